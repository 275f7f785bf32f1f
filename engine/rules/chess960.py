"""Chess960: the 960 start positions and castling from any king and rook squares.

Ref: Reinhard Scharnagl's numbering of the start positions (0..959; 518 is the orthodox
RNBQKBNR), as in python-chess's ``Board.from_chess960_pos``; the castling rule of the FIDE Laws
of Chess, Guidelines II (Chess960): after castling the king stands on the g- or c-file and the
rook on the f- or d-file, all squares between the king's and the rook's from- and to-squares
are empty but for those two pieces, and no square the king stands on or crosses is attacked.
"""

from .defs import BLACK_KINGSIDE, BLACK_QUEENSIDE, WHITE, WHITE_KINGSIDE, WHITE_QUEENSIDE, Castle

ORTHODOX_START = 518

#: the five squares left for the knights, as (first, second) among them, by Scharnagl's digit
_KNIGHT_PAIRS = ((0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))


def start_rank(n: int) -> str:
    """The back rank of start position ``n`` (0..959), white's letters from a to h."""
    if not 0 <= n < 960:
        raise ValueError(f"Chess960 position number must be 0..959, not {n}")
    rank = [""] * 8
    n, light = divmod(n, 4)
    rank[2 * light + 1] = "B"
    n, dark = divmod(n, 4)
    rank[2 * dark] = "B"
    n, queen = divmod(n, 6)
    free = [i for i in range(8) if not rank[i]]
    rank[free[queen]] = "Q"
    free = [i for i in range(8) if not rank[i]]
    for k in _KNIGHT_PAIRS[n]:
        rank[free[k]] = "N"
    free = [i for i in range(8) if not rank[i]]
    for i, ch in zip(free, "RKR"):
        rank[i] = ch
    return "".join(rank)


def start_fen(n: int) -> str:
    """The FEN of start position ``n``, castling rights in Shredder-FEN (rook files)."""
    white = start_rank(n)
    files = "".join("abcdefgh"[i] for i, ch in enumerate(white) if ch == "R")
    rights = files[::-1].upper() + files[::-1]
    return f"{white.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{white} w {rights} - 0 1"


_RIGHTS = ((WHITE_KINGSIDE, WHITE_QUEENSIDE), (BLACK_KINGSIDE, BLACK_QUEENSIDE))


def castle_for(side: int, king_from: int, rook_from: int) -> Castle:
    """The castling of ``side``'s king with the rook on ``rook_from`` (both on the back rank):
    the king goes to the g- (rook east of it) or c-file, the rook to the f- or d-file."""
    base = 0 if side == WHITE else 56
    kingside = rook_from > king_from
    king_to = base + (6 if kingside else 2)
    rook_to = base + (5 if kingside else 3)
    span = range(min(king_from, king_to, rook_from, rook_to),
                 max(king_from, king_to, rook_from, rook_to) + 1)
    # Every square between each piece and its target, targets included, but the two pieces'
    # own squares. Both pieces move along the rank between the outermost of the four squares.
    king_path = set(range(min(king_from, king_to), max(king_from, king_to) + 1))
    rook_path = set(range(min(rook_from, rook_to), max(rook_from, rook_to) + 1))
    empty = tuple(s for s in span if s in king_path | rook_path and s not in (king_from, rook_from))
    return Castle(_RIGHTS[side][0 if kingside else 1], king_from, king_to, rook_from, rook_to,
                  empty)
