"""A board's attack planes as the gateware holds them, for tests that drive the planes directly."""

from posdata.engine.rules.defs import BISHOP, BLACK, EMPTY, KNIGHT, PAWN, QUEEN, ROOK


def planes_of(board) -> dict:
    bits = {name: 0 for name in ("occupied", "black", "orth", "diag", "knight", "pawn")}
    for sq in range(64):
        c, p = board.color[sq], board.piece[sq]
        if c == EMPTY:
            continue
        bits["occupied"] |= 1 << sq
        bits["black"] |= (c == BLACK) << sq
        bits["orth"] |= (p in (ROOK, QUEEN)) << sq
        bits["diag"] |= (p in (BISHOP, QUEEN)) << sq
        bits["knight"] |= (p == KNIGHT) << sq
        bits["pawn"] |= (p == PAWN) << sq
    return bits
