"""The attack unit (hdl.attack) against the reference's SqAtakd (engine.board.attacked) on the
board after a move's changes, in Amaranth's simulator: random squares, attackers and changes on
seeded random positions, and the cases a legality unit gets wrong first."""

import random

import pytest
from amaranth.sim import Simulator

from posdata.engine.board import Board
from posdata.engine.defs import (BISHOP, BLACK, EMPTY, KNIGHT, NO_PIECE, PAWN, QUEEN, ROOK,
                                 parse_square)
from posdata.hdl.attack import LATENCY, AttackUnit

from .hw_positions import random_positions


def planes_of(board) -> dict[str, int]:
    def plane(pred):
        return sum(1 << sq for sq in range(64) if board.color[sq] != EMPTY and pred(sq))
    return {"occupied": plane(lambda sq: True),
            "black": plane(lambda sq: board.color[sq] == BLACK),
            "orth": plane(lambda sq: board.piece[sq] in (ROOK, QUEEN)),
            "diag": plane(lambda sq: board.piece[sq] in (BISHOP, QUEEN)),
            "knight": plane(lambda sq: board.piece[sq] == KNIGHT),
            "pawn": plane(lambda sq: board.piece[sq] == PAWN)}


def reference(board, sq, by, clr, put, epc) -> bool:
    """SqAtakd on a copy of the board with the changes made: ``put`` gets a piece of the side
    that does not attack (a pawn: it blocks and attacks nothing of its own side)."""
    saved = board.color, board.piece
    color, piece = list(board.color), list(board.piece)
    for s in (clr, epc):
        if s is not None:
            color[s], piece[s] = EMPTY, NO_PIECE
    if put is not None:
        color[put], piece[put] = by ^ 1, PAWN
    board.color, board.piece = color, piece
    try:
        return board.attacked(sq, by)
    finally:
        board.color, board.piece = saved


def run_queries(cases):
    """cases: (fen, sq, by, clr, put, epc); returns the unit's answers, one query per clock."""
    dut = AttackUnit(tag_shape=16)
    answers = {}

    async def bench(ctx):
        for i, (fen, sq, by, clr, put, epc) in enumerate(cases):
            board = Board(fen)
            for name, value in planes_of(board).items():
                ctx.set(getattr(dut.planes, name), value)
            ctx.set(dut.planes.king, list(board.king))
            query = {"sq": sq, "by": by,
                     "clr": clr or 0, "clr_valid": clr is not None,
                     "put": put or 0, "put_valid": put is not None,
                     "epc": epc or 0, "epc_valid": epc is not None}
            ctx.set(dut.query.payload, {"query": query, "tag": i})
            ctx.set(dut.query.valid, 1)
            await ctx.tick()
            ctx.set(dut.query.valid, 0)
            for _ in range(LATENCY - 1):  # the planes must hold while the query is in flight
                await ctx.tick()
            assert ctx.get(dut.result.valid) and ctx.get(dut.result.payload.tag) == i
            answers[i] = bool(ctx.get(dut.result.payload.attacked))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return [answers[i] for i in range(len(cases))]


def check(cases):
    got = run_queries(cases)
    wrong = [(case, g) for case, g in zip(cases, got) if g != reference(Board(case[0]), *case[1:])]
    assert not wrong, "\n".join(f"{c}: unit says {g}" for c, g in wrong[:10])


def random_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    fens = random_positions(count // 10, seed=seed)
    while len(cases) < count:
        fen = rng.choice(fens)
        board = Board(fen)
        sq, by = rng.randrange(64), rng.randrange(2)
        clr, put, epc = (rng.choice([None, rng.randrange(64)]) for _ in range(3))
        if put is not None and put in (clr, epc):
            put = None
        # the tested square is the king's or a move's target; the changes never remove the
        # attacking king (a move never takes a king)
        if sq in (clr, put) or board.king[by] in (clr, put, epc):
            continue
        cases.append((fen, sq, by, clr, put, epc))
    return cases


def test_random_queries():
    check(random_cases(800, seed=11))


S = parse_square


@pytest.mark.parametrize("case", [
    # a rook behind the moving piece: a discovered attack on the king (e1) along the file
    ("4r1k1/8/8/8/8/8/4B3/4K3 w - - 0 1", S("e1"), BLACK, S("e2"), S("d3"), None, True),
    # ... not when the piece stays on the line
    ("4r1k1/8/8/8/8/8/4R3/4K3 w - - 0 1", S("e1"), BLACK, S("e2"), S("e5"), None, False),
    # capturing the only attacker
    ("6k1/8/8/8/8/8/8/r3K3 w - - 0 1", S("e1"), BLACK, S("b1"), S("a1"), None, False),
    # en passant takes two pawns off the fifth rank: the rook sees the king
    ("8/8/8/K1pP3r/8/8/8/7k w - c6 0 1", S("a5"), BLACK, S("d5"), S("c6"), S("c5"), True),
    # a king move: the king's old square no longer blocks the slider behind it
    ("8/8/8/8/8/8/8/r3K2k w - - 0 1", S("f1"), BLACK, S("e1"), S("f1"), None, True),
    # knight, pawn and king attacks around the square, and their captures
    ("6k1/8/8/8/8/3n4/8/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, True),
    ("6k1/8/8/8/8/3n4/8/4K3 w - - 0 1", S("e1"), BLACK, S("c1"), S("d3"), None, False),
    ("6k1/8/8/8/8/8/3p4/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, True),
    ("6k1/8/8/8/8/8/3P4/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, False),
    ("8/8/8/8/8/5k2/8/4K3 w - - 0 1", S("f2"), BLACK, None, None, None, True),
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", S("e1"), BLACK, None, None, None, False),  # e8 is far
], ids=lambda c: c[0].split()[0])
def test_directed(case):
    fen, sq, by, clr, put, epc, want = case
    assert reference(Board(fen), sq, by, clr, put, epc) == want  # the case says what it means
    assert run_queries([(fen, sq, by, clr, put, epc)]) == [want]
