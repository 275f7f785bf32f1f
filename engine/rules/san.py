"""Standard algebraic notation (SAN) of orthodox chess and Chess960, written from the engine's
board: the match's PGN, ``posdata search --san`` and ``posdata moves --san``.

A move is its piece's letter (none for a pawn), the from-square's file, rank or both when another
piece of that kind could also go to the square (file first, as PGN's export format asks), ``x``
for a capture (a pawn's from-file before it), the to-square, ``=Q`` for a promotion, and ``+``
or ``#`` for check or mate; castling is ``O-O`` or ``O-O-O``.
"""

from .board import Board
from .defs import CASTLE, EMPTY, EP, PAWN, SQUARE_NAMES

LETTERS = ".PNBRQK"  #: a piece code's SAN letter
#: the variants whose moves this notation writes (orthodox pieces, orthodox or Chess960 castling)
SAN_VARIANTS = ("chess", "chess960")


def san(board: Board, m: int, legal: list[int]) -> str:
    """``m`` in SAN, without the check suffix (see ``suffix``): ``legal`` are the position's
    legal moves, ``m`` one of them."""
    frm, to = m & 63, (m >> 6) & 63
    if m & CASTLE:
        return "O-O" if board.castle_by_king_to[to].kingside else "O-O-O"
    piece = board.piece[frm]
    capture = board.color[to] != EMPTY or bool(m & EP)
    if piece == PAWN:
        text = (SQUARE_NAMES[frm][0] + "x" if capture else "") + SQUARE_NAMES[to]
        promo = m >> 18
        return text + ("=" + LETTERS[promo] if promo else "")
    rivals = [o & 63 for o in legal
              if o != m and not o & CASTLE and (o >> 6) & 63 == to and board.piece[o & 63] == piece]
    which = ""
    if rivals:
        if all(r & 7 != frm & 7 for r in rivals):
            which = SQUARE_NAMES[frm][0]
        elif all(r >> 3 != frm >> 3 for r in rivals):
            which = SQUARE_NAMES[frm][1]
        else:
            which = SQUARE_NAMES[frm]
    return LETTERS[piece] + which + ("x" if capture else "") + SQUARE_NAMES[to]


def suffix(board: Board, legal: list[int]) -> str:
    """The check suffix of the move that led to ``board`` (whose legal moves are ``legal``):
    ``#`` for mate, ``+`` for check, else nothing."""
    if not board.in_check():
        return ""
    return "+" if legal else "#"


def san_line(board: Board, moves: list[int]) -> list[str]:
    """A line of legal moves from ``board`` in SAN with check suffixes (the board is left as it
    was)."""
    out = []
    for m in moves:
        text = san(board, m, board.legal_moves())
        board.makemove(m)
        out.append(text + suffix(board, board.legal_moves()))
    for _ in moves:
        board.takeback()
    return out


def san_of_moves(board: Board, moves: list[int]) -> list[str | None]:
    """Each of ``moves`` (``board``'s pseudo-legal moves) in SAN with its check suffix; None
    for one that is not legal. The position's legal moves are generated once."""
    legal = board.legal_moves()
    out = []
    for m in moves:
        if m not in legal:
            out.append(None)
            continue
        text = san(board, m, legal)
        board.makemove(m)
        out.append(text + suffix(board, board.legal_moves()))
        board.takeback()
    return out


def numbered(board: Board, moves: list[int]) -> str:
    """A line in SAN with move numbers, as PGN and GUIs print a PV: ``12. Nf3 Nc6 13. O-O``, or
    ``12... Nc6 13. O-O`` from a position with black to move."""
    number = int(board.fen().split()[5])
    black = board.side != 0
    words = [f"{number}..."] if black and moves else []
    for text in san_line(board, moves):
        if not black:
            words.append(f"{number}.")
        else:
            number += 1
        words.append(text)
        black = not black
    return " ".join(words)
