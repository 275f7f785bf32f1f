"""The walker follows the walk image's modes (Muller's legs, issue 29): at a geometry with modes
a variant is its memories' contents alone, the same RTL for every variant; Sandström's geometry
keeps today's words; and the modes are read, not assumed (a wrong mode is seen)."""

import dataclasses
import gc

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.rules.variants import VARIANTS, get_variant
from posdata.hdl.gen.movegen import MoveGenerator
from posdata.hdl.gen.rom import StartRom
from posdata.hdl.image import variant as variant_module
from posdata.hdl.image.variant import (
    GATEWARE_VARIANTS,
    MODED_VARIANTS,
    geometry_of,
    hardware_name,
    variant_image,
    walk_geometry,
)
from posdata.hdl.image.walks import MODE_BITS, walk_image
from posdata.sim.drivers.gen_pysim import PysimGenerator
from posdata.sim.views.difference import describe_difference

from .test_hw_variants import rtl, without_memory_contents

HARDWARE = [v.name for v in VARIANTS if hardware_name(v) == v.name]
LEGS = [v.name for v in MODED_VARIANTS]


def common_geometry(names):
    g = walk_geometry(names[0])
    for name in names[1:]:
        g = g.union(walk_geometry(name))
    return g


def same_rtl_but_memory_contents(names):
    common = common_geometry(HARDWARE)  # one geometry with modes that holds every variant
    reference = rtl(names[0], common)
    stripped = without_memory_contents(reference)
    for name in names[1:]:
        got = rtl(name, common)
        assert got != reference, name  # the stripper's own oracle: the contents do differ
        if without_memory_contents(got) != stripped:
            diff = next(f"line {i}: {x!r} != {y!r}" for i, (x, y) in
                        enumerate(zip(without_memory_contents(got).splitlines(),
                                      stripped.splitlines())) if x != y)
            pytest.fail(f"{name}'s RTL differs from {names[0]}'s beyond memory contents: {diff}")


def test_a_new_variant_is_a_new_rom_image_only():
    """The six variants with legs and orthodox chess, at one geometry with modes: the RTLIL is
    equal once memory data is taken out (walk ROM, start entries, the prefetcher's table
    lookup, the promotion table)."""
    same_rtl_but_memory_contents(["chess"] + LEGS)


@pytest.mark.slow
def test_every_variant_is_a_new_rom_image_only():
    same_rtl_but_memory_contents(HARDWARE)


def test_geometry_switch():
    """Sandström's variants keep their geometry (no modes: today's 15-bit words); the variants
    with legs walk the walk image, 28 to 30-bit words, ROMs of 4,096 to 8,192 entries."""
    for v in GATEWARE_VARIANTS:
        g = geometry_of(v)
        assert g.mode_bits == 0 and g.word_bits == 12 + g.skip_bits, v.name
        assert variant_image(v).dense is not None
    for name in LEGS:
        g, walks = geometry_of(name), walk_image(name)
        assert g == walk_geometry(name) and g.mode_bits == MODE_BITS, name
        assert variant_image(name).sparse is None and variant_image(name).dense is None
        assert 28 <= g.word_bits <= 30 and 4096 <= g.dense_depth <= 8192, name
        assert len(walks.entries) <= g.dense_depth < 2 * len(walks.entries), name
        assert g.start_bits == 6 + g.dense_addr_bits + MODE_BITS
    # makruk's black khon walks table 7, which the ptype rule cannot name
    lookup = walk_image("makruk").table_lookup()
    assert lookup[3] == 3 and lookup[8 + 3] == 7 and lookup[8 + 1] == 0


@pytest.mark.filterwarnings("ignore:.*created but never used")
def test_what_the_walk_image_cannot_be_stored_in_is_refused_in_one_line():
    attempts = [lambda: MoveGenerator("sparse", "makruk"),
                lambda: StartRom("sparse", variant="berolina"),
                lambda: MoveGenerator(variant="grasshopper", typed_scan=True,
                                      registered_heads=True, split_lookup=True)]
    for attempt in attempts:
        with pytest.raises(ValueError) as info:
            attempt()
        assert "modes" in str(info.value) and "\n" not in str(info.value)
        del info
    gc.collect()  # the refused units, half built, are dropped here, where their warning is off


def test_chess_at_a_geometry_with_modes_plays_chess_clock_for_clock():
    """Orthodox chess's walk image walked with modes: the same moves, in the same order, in
    the same clocks as Sandström's words on the standard positions (one walker serves both)."""
    with PysimGenerator() as sandstrom, PysimGenerator(
            dut=MoveGenerator(variant="chess", geometry=walk_geometry("chess"))) as legs:
        for pos in STANDARD_POSITIONS:
            board = Board(pos.fen)
            a, b = sandstrom.generate(board), legs.generate(board)
            assert a.moves == b.moves == board.moves(), pos.fen
            assert a.cycles == b.cycles, pos.fen


def test_a_wrong_mode_is_seen(monkeypatch):
    """The walker reads the modes: the white khon on c1 with its first entry's mode cleared
    loses that move, and the difference names it."""
    image = walk_image("makruk")
    table = image.tables[0, 3]
    starts = list(image.starts)
    first, base, mode = starts[table * 64 + 2]
    assert mode
    starts[table * 64 + 2] = (first, base, 0)
    broken = dataclasses.replace(image, starts=tuple(starts))
    monkeypatch.setattr(variant_module, "walk_image",
                        lambda v: broken if get_variant(v).name == "makruk" else walk_image(v))
    board = Board(variant="makruk")
    with PysimGenerator(variant="makruk") as generator:
        got = generator.generate(board).moves
    assert got != board.moves()
    square = "abcdefgh"[first & 7] + str(1 + (first >> 3))
    assert f"missing from hw: c1{square}" in describe_difference(board.fen(), got, board.moves(),
                                                                 uci=board.uci)
