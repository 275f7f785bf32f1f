"""The attack map holds exactly the squares the side to move attacks (engine.rules.board's
``attacked``, the posdata walk), two clocks after the planes."""

from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.hdl.search.attack_map import LATENCY, AttackMap
from tests.hw_positions import EXTRA_STARTS, random_positions

from .planes import set_node


def squares(bits: int) -> str:
    return " ".join(f"{'abcdefgh'[s & 7]}{s // 8 + 1}" for s in range(64) if bits >> s & 1) or "-"


def test_the_map_is_the_attacked_squares():
    fens = ([p.fen for p in STANDARD_POSITIONS] + list(EXTRA_STARTS)
            + random_positions(60, seed=41))
    dut = AttackMap()
    got = []

    async def bench(ctx):
        for fen in fens:
            board = Board(fen)
            set_node(ctx, dut, board, ep=False)
            await ctx.tick().repeat(LATENCY)
            got.append(ctx.get(dut.attacked))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    for fen, bits in zip(fens, got):
        board = Board(fen)
        want = sum(board.attacked(s, board.side) << s for s in range(64))
        assert bits == want, (f"{fen}: missing {squares(want & ~bits)}, "
                              f"extra {squares(bits & ~want)}")
