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


def set_node(ctx, dut, board, ep: bool = True) -> None:
    """Drive ``dut``'s planes, kings and side to move (and its en passant square, ``ep``) with
    ``board``'s, as the thread's board and records present them."""
    for name, value in planes_of(board).items():
        ctx.set(getattr(dut.planes, name), value)
    ctx.set(dut.planes.king[0], board.king[0])
    ctx.set(dut.planes.king[1], board.king[1])
    ctx.set(dut.side, board.side)
    if ep:
        ctx.set(dut.ep_valid, board.ep >= 0)
        ctx.set(dut.ep_sq, max(board.ep, 0))
