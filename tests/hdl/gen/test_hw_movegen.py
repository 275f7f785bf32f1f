"""The gateware against the reference generator, in Amaranth's simulator: same moves, same
order, and exactly the cycle count of the compiled model of the same RTL (tests/compiled.py);
where the clocks go is tests/sim/views/test_timing.py's."""

import random

import pytest
from amaranth import Const

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import (
    CAPTURE,
    DOUBLE,
    EP,
    KNIGHT,
    PAWN_MOVE,
    PROMOTION,
    QUEEN,
    pack_move,
)
from posdata.engine.rules.perft import tree_fens
from posdata.engine.rules.posdata import NEXTDIR, NEXTPOS
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.hdl.common.layouts import MoveLayout
from posdata.hdl.image.addressing import ROM_DEPTH, rom_address
from posdata.hdl.image.variant import variant_image
from posdata.sim.drivers.gen_pysim import PysimGenerator
from posdata.sim.views.difference import describe_difference
from tests.compiled import compiled_cycles
from tests.hw_positions import census, random_positions


@pytest.fixture(scope="module")
def hw():
    return PysimGenerator()


def check(hw, fen):
    board = Board(fen)
    result = hw.generate(board)
    sw = board.moves()
    assert result.moves == sw, describe_difference(fen, result.moves, sw)
    expected = compiled_cycles(board)
    assert result.cycles == expected, f"{fen}: {result.cycles} cycles, model says {expected}"
    return result


def test_move_word_is_engine_encoding():
    cases = [(12, 28, PAWN_MOVE | DOUBLE, 0), (52, 61, CAPTURE | PAWN_MOVE | PROMOTION, QUEEN),
             (36, 43, CAPTURE | EP | PAWN_MOVE, 0), (0, 63, 0, KNIGHT)]
    for frm, to, flags, promo in cases:
        word = pack_move(frm, to, flags, promo)
        names = {"capture": flags & CAPTURE, "double": flags & DOUBLE, "ep": flags & EP,
                 "pawn_move": flags & PAWN_MOVE, "promotion": flags & PROMOTION}
        const = Const.cast(MoveLayout.const({
            "frm": frm, "to": to, "promo": promo,
            "flags": {k: int(bool(v)) for k, v in names.items()}}))
        assert const.value == word


def test_rom_image_is_engine_tables():
    """The ROM holds the engine's tables in the engine's order (a table is a ptype)."""
    image = variant_image().words
    assert len(image) == ROM_DEPTH
    for pt in range(7):
        for frm in range(64):
            for to in range(64):
                w = image[rom_address(pt, frm, to)]
                assert (w & 63, w >> 6) == (NEXTPOS[pt, frm, to], NEXTDIR[pt, frm, to])


@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_perft2_tree_nodes(hw, pos):
    for fen in tree_fens(pos.fen, 2):
        check(hw, fen)


def test_random_positions(hw):
    fens = random_positions(250)
    seen = census(fens)
    # the sample must keep covering what the generator handles specially
    assert seen["ep"] >= 20 and seen["promotion"] >= 10 and seen["castle"] >= 20, seen
    assert seen["check"] >= 8 and seen["many_pieces"] >= 40, seen
    for fen in fens:
        check(hw, fen)


def test_backpressure_loses_and_repeats_nothing():
    rng = random.Random(7)
    hw = PysimGenerator(ready=lambda cycle: rng.random() < 0.4)
    for pos in STANDARD_POSITIONS:
        board = Board(pos.fen)
        result = hw.generate(board)
        sw = board.moves()
        assert result.moves == sw, describe_difference(pos.fen, result.moves, sw)
        assert result.cycles > compiled_cycles(board)  # stalls cost cycles, nothing else changes


def test_incremental_loads_after_make_and_takeback(hw):
    board = Board(STANDARD_POSITIONS[1].fen)
    hw.generate(board)
    for m in board.legal_moves()[:10]:
        board.makemove(m)
        r = hw.generate(board)
        assert r.writes <= 4  # from, to, and at most a rook or an en passant pawn
        assert r.moves == board.moves()
        board.takeback()
        assert hw.generate(board).moves == board.moves()
