"""A chip of several perft engines: one count shared among all of them (split and summed) equals
the software's; each engine counting alone does too; and an engine made faulty is caught and
named by counting on each engine alone."""

import pytest

import posdata.hdl.chip.perft_engine
from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import KNIGHT, parse_square
from posdata.engine.rules.perft import perft
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.hdl.gen.rom import PosdataRom
from posdata.hdl.image.addressing import rom_address
from posdata.hdl.image.variant import variant_image
from posdata.sim.drivers.chip_cxxrtl import ChipModel
from posdata.sim.drivers.chip_pysim import ChipSimulation
from posdata.sim.runs.chip_perft import run_chip_perft

ENGINES = 2  # compiled: each more engine is another ~40 s of C++ compile


@pytest.fixture(scope="module")
def chip():
    return ChipModel(engines=ENGINES)


@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_shared_count_equals_software(chip, pos):
    depth = 3
    board = Board(pos.fen)
    count = chip.perft(board, depth, bulk=True)
    assert not count.overflow
    assert count.leaves == perft(Board(pos.fen), depth, bulk=True), pos.fen
    # every thread of every engine took part
    busy = [sum(v for k, v in t.items() if k != "idle") for t in count.phases]
    assert len(busy) == 2 * ENGINES and all(busy), busy


def test_each_engine_alone_and_divide(chip):
    pos = STANDARD_POSITIONS[1]  # Kiwipete
    board = Board(pos.fen)
    expected = perft(Board(pos.fen), 3, bulk=True)
    shared = chip.perft(board, 3, bulk=True)
    for engine in range(ENGINES):
        alone = chip.perft(board, 3, bulk=True, engine=engine)
        assert alone.leaves == expected, engine
        # the others stayed idle
        idle = [t["idle"] == sum(t.values()) for t in alone.phases]
        assert idle == [i // 2 != engine for i in range(2 * ENGINES)], idle
        assert alone.clocks > shared.clocks  # sharing the count shortens it
    report = run_chip_perft(board, 3, "hw", bulk=True, divide=True, factory=lambda: chip)
    b = Board(pos.fen)
    for move in b.legal_moves():
        from posdata.engine.rules.defs import move_uci
        b.makemove(move)
        assert report.divide[move_uci(move)] == perft(b, 2, bulk=True)
        b.takeback()


def test_a_missing_engine_is_refused(chip):
    with pytest.raises(ValueError, match="engine 2 does not exist"):
        chip.perft(Board(STANDARD_POSITIONS[0].fen), 1, engine=ENGINES)


def test_faulty_engine_is_named(monkeypatch):
    """Engine 1 of three gets a ROM whose knight on g1 walks nowhere: shared, the count is
    wrong; alone, engines 0 and 2 are right and engine 1 is named."""
    g1 = parse_square("g1")
    calls = []

    class FaultyRom(PosdataRom):
        """The walk ROM, its image one word off in the second engine (engines elaborate in
        order); their start entries stay right."""

        def __init__(self, layout, variant, geometry=None):
            calls.append(len(calls))
            image = variant_image(variant)
            if len(calls) == 2:
                image = image.with_word(rom_address(KNIGHT, g1, g1), g1 | g1 << 6)
            super().__init__(layout, variant, geometry, image=image)
    monkeypatch.setattr(posdata.hdl.chip.perft_engine, "PosdataRom", FaultyRom)
    chip = ChipSimulation(engines=3)
    fen = "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1"
    report = run_chip_perft(Board(fen), 2, "both", "pysim", True, factory=lambda: chip)
    assert len(calls) == 3
    assert not report.match
    assert "counting alone, engine 1 (" in report.mismatch, report.mismatch
    assert "engine 0" not in report.mismatch and "engine 2" not in report.mismatch


def test_a_start_is_taken_with_its_arguments():
    """The chip takes a start into registers and begins a clock later: what the start named
    (depth, bulk, split, the solo engine) counts even when it changes the next clock, busy
    shows from the clock after the start, and a start held on takes one count."""
    from amaranth.sim import Simulator

    from posdata.hdl.chip.perft_chip import PerftChip
    from posdata.hdl.common.contract import SQUARES, default_split, position_word

    board = Board(STANDARD_POSITIONS[0].fen)
    dut = PerftChip(ENGINES)
    seen = []

    async def bench(ctx):
        write = dut.load.write
        ctx.set(write.en, 1)
        for sq in range(SQUARES):
            ctx.set(write.sq, sq)
            ctx.set(write.color, board.color[sq])
            ctx.set(write.piece, board.piece[sq])
            await ctx.tick()
        ctx.set(write.en, 0)
        ctx.set(dut.load.position.root.as_value(), position_word(board))
        for held, engine in ((1, 1), (3, None)):
            ctx.set(dut.count.depth, 2)
            ctx.set(dut.count.bulk, 0)
            ctx.set(dut.count.split, default_split(2))
            ctx.set(dut.solo, engine is not None)
            ctx.set(dut.solo_engine, engine or 0)
            ctx.set(dut.count.start, 1)
            for clock in range(held):
                await ctx.tick()
                assert ctx.get(dut.busy), clock
                # the arguments, changed after the start's clock: not taken
                ctx.set(dut.count.depth, 3)
                ctx.set(dut.count.bulk, 1)
                ctx.set(dut.solo, 1)
                ctx.set(dut.solo_engine, 1 - (engine or 0))
            ctx.set(dut.count.start, 0)
            while ctx.get(dut.busy):
                await ctx.tick()
            seen.append((engine, ctx.get(dut.leaves), ctx.get(dut.clocks)))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    (alone, alone_leaves, alone_clocks), (shared, shared_leaves, shared_clocks) = seen
    assert (alone, shared) == (1, None)
    assert alone_leaves == shared_leaves == 400
    assert alone_clocks > shared_clocks  # the second count was shared: its start's solo was 0
