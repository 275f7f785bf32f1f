"""The reference move generator: Sandström's posdata walk over TSCP's move stack.

``gen(board)`` fills ``board.gen_dat[first_move[ply]:]`` with every pseudo-legal move of the side
to move, in the generation order documented in ``engine.defs``, and sets ``first_move[ply + 1]``.
``gen_caps(board)`` does the same for the moves a quiescence search wants (captures, en passant
and promotions): exactly the subsequence of ``gen`` that carries CAPTURE or PROMOTION.

This is the model the gateware is held to, move for move and in order. The walk is the same in
every variant: the board's variant supplies the tables (per side, by piece code), the promotion
pieces of each side in order, and the castlings its position allows (``board.castles``).
"""

from .defs import (
    CAPTURE,
    CASTLE,
    DOUBLE,
    EMPTY,
    EP,
    PAWN,
    PAWN_MOVE,
    PROMOTION,
)

_PROMOTION_RANKS = (range(56, 64), range(8))  # per side, the to-squares that promote
_PAWN_ROW = PAWN * 64
#: this generator plays every variant of engine.variants (the UCI engine asks)
SUPPORTS_VARIANTS = True


def gen(board) -> None:
    color, piece = board.color, board.piece
    side = board.side
    xside = side ^ 1
    ep = board.ep
    moves = board.gen_dat
    ply = board.ply
    start = board.first_move[ply]
    del moves[start:]
    push = moves.append
    data = board.data
    pos_rows, dir_rows = data.pos_rows[side], data.dir_rows[side]  # by piece code, per side
    promotions = data.promotion_words[side]
    promoting = _PROMOTION_RANKS[side]

    for sq in [s for s in range(64) if color[s] == side]:
        p = piece[sq]
        if p == PAWN:
            ppos = pos_rows[_PAWN_ROW + sq]
            pdir = dir_rows[_PAWN_ROW + sq]
            u = ppos[sq]  # push thread
            if u != sq and color[u] == EMPTY:
                if u in promoting:
                    for w in promotions:
                        push(sq | u << 6 | w)
                else:
                    push(sq | u << 6 | PAWN_MOVE)
                    u = ppos[u]
                    if u != sq and color[u] == EMPTY:
                        push(sq | u << 6 | PAWN_MOVE | DOUBLE)
            u = pdir[sq]  # capture thread
            while u != sq:
                c = color[u]
                if c == xside:
                    if u in promoting:
                        for w in promotions:
                            push(sq | u << 6 | CAPTURE | w)
                    else:
                        push(sq | u << 6 | CAPTURE | PAWN_MOVE)
                elif u == ep:
                    push(sq | u << 6 | CAPTURE | EP | PAWN_MOVE)
                u = pdir[u]
        else:
            row = p * 64 + sq
            ppos = pos_rows[row]
            pdir = dir_rows[row]
            u = ppos[sq]
            while u != sq:
                c = color[u]
                if c == EMPTY:
                    push(sq | u << 6)
                    u = ppos[u]
                else:
                    if c == xside:
                        push(sq | u << 6 | CAPTURE)
                    u = pdir[u]

    castle = board.castle
    if castle:
        for c in board.castles[side]:
            if castle & c.right and all(color[s] == EMPTY for s in c.empty):
                push(c.king_from | c.king_to << 6 | CASTLE)
    board.first_move[ply + 1] = len(moves)


def gen_caps(board) -> None:
    gen(board)
    keep_captures(board)


def keep_captures(board) -> None:
    """Reduce the current ply's moves to those gen_caps wants (any generator's output)."""
    start = board.first_move[board.ply]
    moves = board.gen_dat
    moves[start:] = [m for m in moves[start:] if m & (CAPTURE | PROMOTION)]
    board.first_move[board.ply + 1] = len(moves)
