"""The generator's protocol corners in Amaranth's simulator: reset in the middle of a
generation, start while busy, writes while busy. Every testbench has a watchdog."""

from amaranth import Signal
from amaranth.hdl import ResetInserter
from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import BY_NAME
from posdata.hdl.gen.movegen import MoveGenerator
from posdata.sim.drivers.gen_pysim import collect_moves, start, write_squares
from posdata.sim.drivers.interface import ShadowBoard, position_inputs
from tests.compiled import compiled_cycles

WATCHDOG = 2000


def run_bench(bench, top, deadline_cycles=20_000):
    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run_until(deadline_cycles * 1e-8)  # a hung testbench ends here instead of hanging


def test_reset_mid_generation_then_clean_restart():
    dut = MoveGenerator()
    rst = Signal()
    top = ResetInserter(rst)(dut)
    board = Board(BY_NAME["kiwipete"].fen)
    expected = board.moves()
    outcome = {}

    async def bench(ctx):
        await write_squares(ctx, dut, ShadowBoard().diff(board))
        await start(ctx, dut, position_inputs(board))
        for _ in range(20):  # well inside the walk
            await ctx.tick()
        assert ctx.get(dut.busy)
        ctx.set(rst, 1)
        await ctx.tick()
        ctx.set(rst, 0)
        await ctx.tick()
        outcome["busy_after_reset"] = ctx.get(dut.busy)
        outcome["valid_after_reset"] = ctx.get(dut.moves.valid)
        # the board survives the reset: start again without reloading
        await start(ctx, dut, position_inputs(board))
        outcome["moves"] = await collect_moves(ctx, dut, WATCHDOG)
        outcome["cycles"] = ctx.get(dut.cycles)

    run_bench(bench, top)
    assert outcome["busy_after_reset"] == 0 and outcome["valid_after_reset"] == 0
    assert outcome["moves"] == expected
    assert outcome["cycles"] == compiled_cycles(board)


def test_start_and_writes_while_busy_are_ignored():
    dut = MoveGenerator()
    board = Board(BY_NAME["position4"].fen)
    expected = board.moves()
    outcome = {}

    async def bench(ctx):
        await write_squares(ctx, dut, ShadowBoard().diff(board))
        await start(ctx, dut, position_inputs(board))
        # hammer start and the write port (emptying e1) while the walk is under way
        ctx.set(dut.start, 1)
        ctx.set(dut.side, 1)
        ctx.set(dut.wr_en, 1)
        ctx.set(dut.wr_sq, 4)
        ctx.set(dut.wr_color, 2)
        moves = []
        payload = dut.moves.payload.as_value()
        for _ in range(WATCHDOG):
            _, _, valid, word, done, cycles = await ctx.tick().sample(
                dut.moves.valid, payload, dut.done, dut.cycles)
            if valid:
                moves.append(word)
            if done:
                outcome["cycles"] = cycles  # start is still high: a new generation follows
                break
        ctx.set(dut.start, 0)
        ctx.set(dut.wr_en, 0)
        outcome["moves"] = moves

    run_bench(bench, dut)
    assert outcome["moves"] == expected
    assert outcome["cycles"] == compiled_cycles(board)


def test_empty_side_finishes():
    """A board the host never loaded (no pieces at all) still finishes: no hang."""
    dut = MoveGenerator()
    outcome = {}

    async def bench(ctx):
        await start(ctx, dut, {"side": 0, "castle": 0, "ep_valid": 0, "ep_sq": 0})
        outcome["moves"] = await collect_moves(ctx, dut, WATCHDOG)

    run_bench(bench, dut)
    assert outcome["moves"] == []
