"""The reference move generator: Sandström's posdata walk over TSCP's move stack.

``gen(board)`` fills ``board.gen_dat[first_move[ply]:]`` with every pseudo-legal move of the side
to move, in the generation order documented in ``engine.defs``, and sets ``first_move[ply + 1]``.
``gen_caps(board)`` does the same for the moves a quiescence search wants (captures, en passant
and promotions): exactly the subsequence of ``gen`` that carries CAPTURE or PROMOTION.

This is the model the gateware is held to, move for move and in order.
"""

from .defs import (
    BLACK,
    BPAWN,
    CAPTURE,
    CASTLE,
    CASTLES,
    DOUBLE,
    EMPTY,
    EP,
    PAWN,
    PAWN_MOVE,
    PROMO_SHIFT,
    PROMOTION,
    PROMOTION_ORDER,
)
from .posdata import NEXTDIR_ROWS, NEXTPOS_ROWS

# The four promotion flag+piece words, in PROMOTION_ORDER.
_PROMOTIONS = tuple(PAWN_MOVE | PROMOTION | p << PROMO_SHIFT for p in PROMOTION_ORDER)
_PROMOTION_RANKS = (range(56, 64), range(8))  # per side, the to-squares that promote


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
    pawn_row = (BPAWN if side == BLACK else PAWN) * 64
    promoting = _PROMOTION_RANKS[side]

    for sq in [s for s in range(64) if color[s] == side]:
        p = piece[sq]
        if p == PAWN:
            ppos = NEXTPOS_ROWS[pawn_row + sq]
            pdir = NEXTDIR_ROWS[pawn_row + sq]
            u = ppos[sq]  # push thread
            if u != sq and color[u] == EMPTY:
                if u in promoting:
                    for w in _PROMOTIONS:
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
                        for w in _PROMOTIONS:
                            push(sq | u << 6 | CAPTURE | w)
                    else:
                        push(sq | u << 6 | CAPTURE | PAWN_MOVE)
                elif u == ep:
                    push(sq | u << 6 | CAPTURE | EP | PAWN_MOVE)
                u = pdir[u]
        else:
            row = p * 64 + sq
            ppos = NEXTPOS_ROWS[row]
            pdir = NEXTDIR_ROWS[row]
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
        for c in CASTLES[side]:
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
