"""The move generator plays every variant from the same RTL: a variant changes only the
contents of its memories (walk ROM, start entries, promotion table) and the widths derived from
its tables, and Chess960's castling comes with the position. Held to the reference generator
move for move and in order at every node of perft(2) trees of each variant's sample positions,
on the compiled model (one library per geometry, each table set an image it loads; Chess960
runs on chess's)."""

import dataclasses
import json

import pytest
from amaranth.back import rtlil

from posdata.engine.rules.board import Board
from posdata.engine.rules.variants import VARIANT_NAMES, get_variant
from posdata.hdl.common.contract import castling_fields, castling_word
from posdata.hdl.gen.movegen import MoveGenerator
from posdata.hdl.image.dense import dense_image
from posdata.hdl.image.variant import (
    GATEWARE_VARIANTS,
    Geometry,
    geometry_of,
    hardware_name,
    promotion_image,
    variant_image,
)
from posdata.sim.drivers.gen_cxxrtl import CxxrtlGenerator
from posdata.sim.drivers.gen_pysim import PysimGenerator
from posdata.sim.runs.gen_perft import run_perft
from posdata.sim.runs.variant_positions import sample_positions

FAIRY = ("amazon", "almost", "chigorin", "nightrider")


# --- the same RTL for every variant ---------------------------------------------------------

def without_memory_contents(il: str) -> str:
    """RTLIL with the data of every memory initialisation ($meminit_v2 cells) taken out."""
    out, in_init = [], False
    for line in il.splitlines():
        stripped = line.strip()
        if stripped.startswith("cell $meminit_v2"):
            in_init = True
        elif stripped == "end":
            in_init = False
        if in_init and stripped.startswith("connect \\DATA "):
            continue
        out.append(line)
    return "\n".join(out)


def rtl(variant, geometry=None, layout="dense") -> str:
    return rtlil.convert(MoveGenerator(layout, variant, geometry), name="top", emit_src=False)


def test_the_stripper_sees_a_memory_change():
    """Its own oracle: two variants' RTLIL differ, and only in memory data."""
    g = geometry_of("chess").union(geometry_of("amazon"))  # amazon's ROM is deeper
    a, b = rtl("chess", g), rtl("amazon", g)
    assert a != b
    assert without_memory_contents(a) == without_memory_contents(b)
    assert without_memory_contents(a) != without_memory_contents(rtl("chess"))  # widths show


@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_every_variant_is_the_same_rtl_but_memory_contents(layout):
    """At one geometry (the union of all variants'), each variant's RTLIL equals chess's once
    memory data is taken out; so the RTL differs only in memory contents and, at a variant's
    own geometry, in the widths derived from its tables."""
    names = [v.name for v in GATEWARE_VARIANTS if hardware_name(v) == v.name]
    common = geometry_of("chess")
    for name in names:
        common = common.union(geometry_of(name))
    reference = without_memory_contents(rtl("chess", common, layout))
    for name in names[1:]:
        got = without_memory_contents(rtl(name, common, layout))
        if got != reference:
            diff = next(f"line {i}: {x!r} != {y!r}" for i, (x, y) in
                        enumerate(zip(got.splitlines(), reference.splitlines())) if x != y)
            pytest.fail(f"{name}'s RTL differs from chess's beyond memory contents: {diff}")


def test_widths_come_from_the_tables():
    assert geometry_of("chess") == Geometry(tables=7, dense_addr_bits=12, skip_bits=3,
                                            promo_bits=2)  # today's orthodox generator
    for name in (v.name for v in GATEWARE_VARIANTS):
        image = variant_image(name)
        g = image.geometry
        dense = dense_image(image.words)  # built again, from the words: not the image's own
        assert dense == image.dense
        assert 1 << g.dense_addr_bits - 1 < dense.entries <= 1 << g.dense_addr_bits, name
        assert g.tables == (8 if any(p.code == 7 for p in get_variant(name).pieces) else 7)
        assert dense.max_skip < 1 << g.skip_bits
        most = max(len(p) for p in get_variant(name).promotions)
        assert 1 << g.promo_bits - 1 < most <= 1 << g.promo_bits or most == g.promo_bits == 1
    assert geometry_of("chigorin").tables == 8  # the chancellor on code 7
    assert hardware_name("chess960") == "chess" and hardware_name("fischerandom") == "chess"


def test_variants_with_modes_walk_the_walk_image():
    """A variant whose pieces walk with modes has no (from, to) tables: its gateware holds the
    walk image, at a geometry with modes (tests/hdl/gen/test_hw_legs.py)."""
    moded = [n for n in VARIANT_NAMES if get_variant(n).has_modes]
    assert moded == ["grasshopper", "hoppelpoppel", "berolina", "shatranj", "makruk",
                     "pawnsideways"]
    for name in moded:
        image = variant_image(name)
        assert image.sparse is None and image.geometry.mode_bits > 0, name


def test_promotion_table_and_castling_word():
    v = get_variant("chigorin")
    image = promotion_image(v.promotions, 2)
    white, black = image[:4], image[4:]
    assert [w & 7 for w in white[:3]] == list(v.promotions[0])
    assert [w >> 3 for w in white] == [0, 0, 1, 1] and [b >> 3 for b in black] == [0, 0, 1, 1]
    board = Board("rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1", "chess960")
    slots = castling_fields(castling_word(board.castles))
    # white king side: b1 to g1, c1..g1 empty; queen side: b1 to c1, c1 and d1 empty
    assert slots[0] == {"king_from": 1, "king_to": 6, "empty": 0b01111100}
    assert slots[1] == {"king_from": 1, "king_to": 2, "empty": 0b00001100}
    assert castling_fields(castling_word(Board().castles))[0] == \
        {"king_from": 4, "king_to": 6, "empty": 0b01100000}


def test_a_generator_refuses_a_board_of_other_tables():
    generator = PysimGenerator(variant="almost")
    with pytest.raises(ValueError, match="tables of almost, not chess"):
        generator.generate(Board())


# --- gateware == reference at every node of perft(2) ----------------------------------------

def check_perft2(name: str) -> None:
    for fen in sample_positions(name):
        board = Board(fen, name)
        report = run_perft(board, 2, "gen", "cxxrtl", check=True)
        assert not report.mismatch, f"{name}: {report.mismatch}"
        assert report.nodes == report.sw_nodes and report.calls > 1, (name, fen)


@pytest.mark.parametrize("name", ["chess960", "chigorin"])
def test_gateware_equals_reference_on_perft2_trees(name):
    check_perft2(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in FAIRY if n != "chigorin"])
def test_gateware_equals_reference_on_perft2_trees_slow(name):
    check_perft2(name)


def test_pysim_plays_chess960_castling():
    """Amaranth's simulator agrees too (castling with king on its target, king-rook swap)."""
    generator = PysimGenerator()
    for fen in sample_positions("chess960")[2:5]:
        board = Board(fen, "chess960")
        assert generator.generate(board).moves == board.moves(), fen


def test_orthodox_cycles_unchanged_by_variant_plumbing():
    """chess960 on chess's model: the start position's cycles equal chess's."""
    with CxxrtlGenerator(variant="chess960") as generator:
        a = generator.generate(Board(variant="chess960")).cycles
    with CxxrtlGenerator() as generator:
        assert generator.generate(Board()).cycles == a


def test_a_wrong_promotion_table_is_caught(monkeypatch):
    """The cross-check can fail: a promotion table with the pieces of another variant gives
    chigorin's white pawn a queen and is reported with the position."""
    import posdata.hdl.gen.merger as merger
    original = merger.variant_image

    def swapped(variant):
        image = original(variant)
        return dataclasses.replace(image, promotions=(image.promotions[1], image.promotions[1]))
    monkeypatch.setattr(merger, "variant_image", swapped)
    generator = PysimGenerator(variant="chigorin")
    board = Board("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "chigorin")
    from posdata.sim.views.difference import describe_difference
    got = generator.generate(board).moves
    assert got != board.moves()
    assert "missing from hw: b7b8n b7b8c" in describe_difference(board.fen(), got, board.moves(),
                                                                 uci=board.uci)


def test_moves_on_the_gateware_in_a_variant(capsys):
    from posdata.sim.cli import main
    status = main(["moves", "--variant", "chigorin", "--backend", "hw", "--json", "--fen",
                   "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0 and report["moves"][-3:] == ["b7b8c", "b7b8r", "b7b8n"]
