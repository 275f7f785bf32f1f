"""The perft chip counts the variants whose pieces walk with modes (hdl.chip.modes): one RTL for
all six at the one geometry with modes, a variant its memories' contents; its counts equal the
software's (engine.rules.perft) at every node of perft trees of each variant's sample positions
(sim.runs.variant_positions) and a few beyond them, bulk and plain, and on the start position to
depth 4. A first difference is shown as its line of moves and FEN, and where the legal moves
first differ.

``make test`` (the CI budget: a compiled model is too slow for it) runs small cases in
Amaranth's simulator: shatranj's bare king and single promotion piece at every node of
perft(2) (tests/sim/cli/test_legs_cli.py counts Berolina's en passant through the command
line), the threads of two variants' RTL, and a planted walk fault. ``-m slow`` runs the compiled
model (one library for the six, each variant an image it loads) at every node of perft(3) of
every variant's positions, the start positions to depth 4, and the whole chip's RTL of all six.
"""

import dataclasses

import pytest
from amaranth.back import rtlil

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import EP, PAWN, PROMO_SHIFT, WHITE, move_uci
from posdata.engine.rules.movegen import bare_king_ended
from posdata.engine.rules.perft import perft
from posdata.engine.rules.variants import get_variant
from posdata.hdl.chip.modes import chip_geometry, modes_geometry
from posdata.hdl.chip.perft_chip import PerftChip
from posdata.hdl.chip.perft_thread import PerftThread
from posdata.hdl.image import variant as variant_module
from posdata.hdl.image.variant import MODED_VARIANTS
from posdata.hdl.image.walks import walk_image
from posdata.sim.drivers.chip_cxxrtl import ChipModel
from posdata.sim.drivers.chip_pysim import ChipSimulation
from posdata.sim.runs.chip_perft import localise, run_chip_perft
from posdata.sim.runs.variant_positions import sample_positions

from ..gen.test_hw_variants import without_memory_contents

MODED = [v.name for v in MODED_VARIANTS]
#: beyond the samples, whose trees reach these too deep: a pawnsideways pawn steps sideways
#: onto the en passant square (a quiet move to where an en passant capture lands); shatranj's
#: bare king ends the game below the root (the king alone against two) and at it (against three)
EXTRA = {"pawnsideways": ("4k3/4p3/3P4/8/8/8/8/4K3 b - - 0 1",),
         "shatranj": ("3k4/6R1/8/8/8/8/8/3K4 b - - 0 1", "3k4/8/8/8/8/8/1R4R1/3K4 b - - 0 1")}
_chips = {}


def chip_of(variant: str, target: str = "cxxrtl"):
    """One chip per variant and simulator, for the module."""
    if (variant, target) not in _chips:
        make = ChipModel if target == "cxxrtl" else ChipSimulation
        _chips[variant, target] = make(variant=variant)
    return _chips[variant, target]


def every_node(chip, board: Board, depth: int, bulk: bool, line: tuple = ()) -> None:
    """The chip's count equals the software's at every node of the perft(``depth``) tree (its
    plies 0 .. depth - 1); the first that differs fails with its line, FEN and the first
    position below whose legal moves differ."""
    hw = chip.perft(board, depth, bulk)
    sw = perft(board, depth, bulk=bulk)
    assert not hw.overflow, board.fen()
    if hw.leaves != sw:
        found = localise(board, depth, bulk, factory=lambda: chip)
        pytest.fail(f"{board.variant.name} perft({depth}) {'bulk' if bulk else 'plain'} after "
                    f"{' '.join(line) or '(root)'}: FEN {board.fen()}: chip {hw.leaves}, sw {sw}; "
                    f"{found}")
    if depth > 1:
        for m in board.legal_moves():
            board.makemove(m)
            every_node(chip, board, depth - 1, bulk, (*line, board.uci(m)))
            board.takeback()


def positions(variant: str) -> list[str]:
    return [*sample_positions(variant), *EXTRA.get(variant, ())]


def cases(variants):
    return [pytest.param(v, fen, id=f"{v}-{i}")
            for v in variants for i, fen in enumerate(positions(v))]


@pytest.mark.parametrize("fen", [*EXTRA["shatranj"], sample_positions("shatranj")[2]])
def test_shatranj_in_the_simulator(fen):
    """The bare king below the root and at it, promotions to a ferz alone (pysim)."""
    for bulk in (True, False):
        every_node(chip_of("shatranj", "pysim"), Board(fen, "shatranj"), 2, bulk)


@pytest.mark.slow
@pytest.mark.parametrize("variant, fen", cases(MODED))
def test_samples_at_every_node_of_perft3(variant, fen):
    for bulk in (True, False):
        every_node(chip_of(variant), Board(fen, variant), 3, bulk)


@pytest.mark.slow
@pytest.mark.parametrize("variant", MODED)
@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "plain"])
def test_start_position_to_depth_4(variant, bulk):
    board = Board(variant=variant)
    report = run_chip_perft(board, 4, "both", bulk=bulk, factory=lambda: chip_of(variant))
    assert report.match, (f"{variant} perft(4) {'bulk' if bulk else 'plain'}: chip "
                          f"{report.nodes}, sw {report.sw_nodes}: {report.mismatch}")


# --- one RTL ------------------------------------------------------------------------------

def rtl_of(unit) -> str:
    return rtlil.convert(unit, name="top", emit_src=False)


def same_rtl_but_memory_contents(names, unit=PerftChip):
    reference = rtl_of(unit(variant=names[0]))
    stripped = without_memory_contents(reference)
    for name in names[1:]:
        got = rtl_of(unit(variant=name))
        assert got != reference, name  # the stripper's own oracle: the contents differ
        if without_memory_contents(got) != stripped:
            diff = next(f"line {i}: {x!r} != {y!r}" for i, (x, y) in
                        enumerate(zip(without_memory_contents(got).splitlines(),
                                      stripped.splitlines())) if x != y)
            pytest.fail(f"{name}'s chip differs from {names[0]}'s beyond memory contents: {diff}")


def test_one_geometry_for_the_variants_with_modes():
    assert {chip_geometry(v) for v in MODED} == {modes_geometry()}
    assert chip_geometry("chess").mode_bits == 0  # orthodox chess's chip is Sandström's


@pytest.mark.slow  # two conversions of a whole thread: about two minutes
def test_one_rtl_for_the_variants_with_modes():
    """Makruk's and Berolina's threads (tables 8 and 7, one promotion piece and four, the
    bare king's rule and none) are one RTL but for memory contents: the thread holds all that
    differs by variant beside the engine's ROMs."""
    same_rtl_but_memory_contents(["makruk", "berolina"], PerftThread)


@pytest.mark.slow
def test_one_rtl_for_all_six():
    same_rtl_but_memory_contents(MODED)


# --- the samples reach the cases -----------------------------------------------------------

def tree_moves(variant: str, depth: int):
    """(board before the move, move) over every node of the samples' perft(depth) trees."""
    for fen in positions(variant):
        board = Board(fen, variant)

        def walk(d):
            for m in board.legal_moves():
                yield board, m
                if d > 1:
                    board.makemove(m)
                    yield from walk(d - 1)
                    board.takeback()
        yield from walk(depth)


def test_the_samples_reach_the_cases():
    """The positions' trees hold what the chip does per variant (else the counts above would
    pass without it): Berolina's en passant (its victim beside the square passed),
    pawnsideways' sideways step onto the en passant square (not a capture), makruk's
    promotion on the sixth rank, grasshopper's promotion to a grasshopper, and shatranj's bare
    king ending a game at a node that generates."""
    def found(variant, depth, test):
        return any(test(b, m) for b, m in tree_moves(variant, depth))
    assert found("berolina", 2, lambda b, m: m & EP and (m >> 6 & 7) == (m & 7))
    assert found("pawnsideways", 3, lambda b, m: b.piece[m & 63] == PAWN and not m & EP
                 and (m >> 6) & 63 == b.ep and (m >> 9 & 7) == (m >> 3 & 7))
    assert found("makruk", 3, lambda b, m: m >> PROMO_SHIFT and (m >> 9 & 7) in (2, 5))
    assert found("grasshopper", 3, lambda b, m: m >> PROMO_SHIFT == 7)
    ended = {Board(fen, "shatranj").fen() for fen in positions("shatranj")
             if bare_king_ended(Board(fen, "shatranj"))}
    for board, m in tree_moves("shatranj", 1):
        board.makemove(m)
        if bare_king_ended(board):
            ended.add(board.fen())
        board.takeback()
    assert len(ended) >= 2, ended  # at a root and below one


# --- a planted fault -----------------------------------------------------------------------

def test_a_planted_walk_fault_is_caught_and_named(monkeypatch):
    """Hoppelpoppel's knibis on b1 with its first entry's mode cleared: the chip loses that
    move (d2, empty here), and the count's difference is localised to the root, the move
    named."""
    image = walk_image("hoppelpoppel")
    table = image.tables[WHITE, 2]
    starts = list(image.starts)
    first, base, mode = starts[table * 64 + 1]
    assert mode
    starts[table * 64 + 1] = (first, base, 0)
    broken = dataclasses.replace(image, starts=tuple(starts))
    monkeypatch.setattr(variant_module, "walk_image", lambda v: broken if get_variant(v).name
                        == "hoppelpoppel" else walk_image(v))
    chip = ChipSimulation(variant="hoppelpoppel")
    board = Board("1n2k1n1/8/2b2b2/8/8/2B2B2/8/1N2K1N1 w - - 0 1", "hoppelpoppel")
    report = run_chip_perft(board, 1, "both", "pysim", factory=lambda: chip)
    move = "b1" + "abcdefgh"[first & 7] + str(1 + (first >> 3))
    assert report.nodes == report.sw_nodes - 1
    assert f"missing from chip: {move}" in report.mismatch, report.mismatch
    assert move in [move_uci(m) for m in board.legal_moves()]


def test_at_least_counts_set_bits():
    """The bare king's counts (``modes.at_least``) against Python's bit count: edges and
    random planes of zero to five pieces."""
    import random

    from amaranth import Module, Signal
    from amaranth.sim import Simulator

    from posdata.hdl.chip.modes import at_least
    plane, two, three = Signal(64), Signal(), Signal()
    m = Module()
    m.d.comb += [two.eq(at_least(plane, 2)), three.eq(at_least(plane, 3))]
    rng = random.Random(3)
    cases = [0, 1, 1 << 63, 3, (1 << 63) | 1, 7, (1 << 64) - 1] + [
        sum(1 << rng.randrange(64) for _ in range(rng.randint(0, 5))) for _ in range(300)]
    wrong = []

    async def bench(ctx):
        for value in cases:
            ctx.set(plane, value)
            n = bin(value).count("1")
            if (ctx.get(two), ctx.get(three)) != (n >= 2, n >= 3):
                wrong.append(hex(value))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert not wrong, f"at_least wrong for {wrong[:5]}"
