"""An independent move generator, TSCP style: a 10x12 mailbox and offset tables.

It exists only to check the posdata tables and walk (``engine.rules.posdata``,
``engine.rules.movegen``): for every position both must give the same *set* of pseudo-legal moves.
So it shares nothing with them but the board arrays and the move word
(``engine.rules.defs.pack_move`` and its flags): no posdata tables, no direction tables, no castling
table. Its order is not the generation order and is not meant to be.

Ref: Tom Kerrigan's TSCP 1.81, data.c (``mailbox``, ``mailbox64``, ``offset``) and board.c
``gen()``. TSCP numbers squares from a8; here square 0 is a1, so the 10x12 board is laid out
with rank 1 at the bottom and ``+10`` is one rank up (north).
"""

from posdata.engine.rules.defs import (
    BISHOP,
    CAPTURE,
    CASTLE,
    DOUBLE,
    EMPTY,
    EP,
    KING,
    KNIGHT,
    PAWN,
    PAWN_MOVE,
    PROMOTION,
    QUEEN,
    ROOK,
    pack_move,
)

# --- The 10x12 board -------------------------------------------------------------------------
# Two border rows above and below, one border column left and right: a knight's jump off the
# board always lands on a border cell (-1) and never wraps around.

#: 10x12 cell -> square (0..63), or -1 for the border
MAILBOX = [-1] * 120
#: square (0..63) -> 10x12 cell
MAILBOX64 = [0] * 64
for _rank in range(8):
    for _file in range(8):
        _cell = 21 + _rank * 10 + _file
        MAILBOX[_cell] = _rank * 8 + _file
        MAILBOX64[_rank * 8 + _file] = _cell

#: cell offsets per piece (the order does not matter here)
OFFSETS = {
    KNIGHT: (-21, -19, -12, -8, 8, 12, 19, 21),
    BISHOP: (-11, -9, 9, 11),
    ROOK: (-10, -1, 1, 10),
    QUEEN: (-11, -10, -9, -1, 1, 9, 10, 11),
    KING: (-11, -10, -9, -1, 1, 9, 10, 11),
}
SLIDES = {KNIGHT: False, BISHOP: True, ROOK: True, QUEEN: True, KING: False}

#: per side: pawn push offset, the two capture offsets, home rank, last rank
PAWN_PUSH = (10, -10)
PAWN_CAPTURES = ((9, 11), (-9, -11))
PAWN_HOME_RANK = (1, 6)
PAWN_LAST_RANK = (7, 0)

#: per side: (rights bit, king from, king to, squares that must be empty), from FEN's KQkq
#: (K = 1, Q = 2, k = 4, q = 8) and the squares of the standard start position
CASTLING = (
    ((1, 4, 6, (5, 6)), (2, 4, 2, (1, 2, 3))),
    ((4, 60, 62, (61, 62)), (8, 60, 58, (57, 58, 59))),
)

_PROMOTE_TO = (QUEEN, ROOK, BISHOP, KNIGHT)


def mailbox_moves(board) -> list[int]:
    """The pseudo-legal moves of ``board``'s side to move, as packed move words."""
    color, piece = board.color, board.piece
    side = board.side
    xside = side ^ 1
    moves = []

    def pawn_move(frm, to, flags):
        if to >> 3 == PAWN_LAST_RANK[side]:
            for p in _PROMOTE_TO:
                moves.append(pack_move(frm, to, flags | PAWN_MOVE | PROMOTION, p))
        else:
            moves.append(pack_move(frm, to, flags | PAWN_MOVE))

    for sq in range(64):
        if color[sq] != side:
            continue
        p = piece[sq]
        cell = MAILBOX64[sq]
        if p == PAWN:
            for off in PAWN_CAPTURES[side]:
                to = MAILBOX[cell + off]
                if to == -1:
                    continue
                if color[to] == xside:
                    pawn_move(sq, to, CAPTURE)
                elif to == board.ep:
                    moves.append(pack_move(sq, to, CAPTURE | EP | PAWN_MOVE))
            to = MAILBOX[cell + PAWN_PUSH[side]]
            if to != -1 and color[to] == EMPTY:
                pawn_move(sq, to, 0)
                if sq >> 3 == PAWN_HOME_RANK[side]:
                    to2 = MAILBOX[cell + 2 * PAWN_PUSH[side]]
                    if color[to2] == EMPTY:
                        moves.append(pack_move(sq, to2, PAWN_MOVE | DOUBLE))
            continue
        for off in OFFSETS[p]:
            n = cell
            while True:
                n += off
                to = MAILBOX[n]
                if to == -1:
                    break
                if color[to] != EMPTY:
                    if color[to] == xside:
                        moves.append(pack_move(sq, to, CAPTURE))
                    break
                moves.append(pack_move(sq, to))
                if not SLIDES[p]:
                    break

    for right, king_from, king_to, between in CASTLING[side]:
        if board.castle & right and all(color[s] == EMPTY for s in between):
            moves.append(pack_move(king_from, king_to, CASTLE))
    return moves


def mailbox_gen(board) -> None:
    """``mailbox_moves`` with the signature of ``engine.rules.movegen.gen``: fills the current ply's
    slice of the move stack, so ``perft(board, depth, gen=mailbox_gen)`` works."""
    moves = board.gen_dat
    start = board.first_move[board.ply]
    del moves[start:]
    moves.extend(mailbox_moves(board))
    board.first_move[board.ply + 1] = len(moves)

