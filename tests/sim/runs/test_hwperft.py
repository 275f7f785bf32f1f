"""Perft with the move generator in the loop (``--backend gen``): the gateware agrees with the
reference at every node (``--check``), -j gives the same figures as one process, and injected
faults are caught and localised to a position."""

import pytest
from amaranth import Module
from amaranth.lib import wiring

import posdata.hdl.gen.movegen
import posdata.hdl.gen.rom
from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import EMPTY, KNIGHT
from posdata.engine.rules.positions import BY_NAME, STANDARD_POSITIONS
from posdata.hdl.gen.chessboard import BoardMemory
from posdata.hdl.image.addressing import rom_address
from posdata.hdl.image.variant import variant_image
from posdata.sim.drivers.gen_pysim import PysimGenerator
from posdata.sim.runs.gen_perft import run_perft

CI_DEPTH = 3  # `make perft-hw` goes to depth 4 (and 5 for the initial position)


@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_both_agree_on_standard_positions(pos):
    report = run_perft(Board(pos.fen), CI_DEPTH, "gen", "cxxrtl", jobs=1, check=True)
    assert report.mismatch is None, report.mismatch
    assert report.nodes == report.sw_nodes == pos.counts[CI_DEPTH - 1]
    assert report.calls > 0 and report.cycles > report.moves > 0


def test_jobs_give_identical_results():
    board = Board(BY_NAME["kiwipete"].fen)
    one = run_perft(board, 3, "gen", "cxxrtl", jobs=1)
    two = run_perft(board, 3, "gen", "cxxrtl", jobs=2)
    assert (one.nodes, one.calls, one.cycles, one.moves, one.divide) == \
           (two.nodes, two.calls, two.cycles, two.moves, two.divide)


def faulty_driver(monkeypatch, patch):
    """An Amaranth-simulator driver of a gateware with one fault (patched in while it is
    elaborated)."""
    patch(monkeypatch)
    driver = PysimGenerator()
    monkeypatch.undo()
    return driver


def corrupt_rom_word(pt, frm, to, value):
    def patch(monkeypatch):
        original = posdata.hdl.gen.rom.variant_image

        def image(variant):  # the walk ROM and the start entries take their image from here
            return original(variant).with_word(rom_address(pt, frm, to), value)
        monkeypatch.setattr(posdata.hdl.gen.rom, "variant_image", image)
    return patch


def stuck_empty_bit(square, value):
    class StuckBoard(wiring.Component):
        """BoardMemory whose `empty` plane has one bit stuck."""
        def __init__(self, type_planes: bool = False):
            self.inner = BoardMemory(type_planes)
            super().__init__(dict(self.inner.signature.members))

        def elaborate(self, platform):
            m = Module()
            m.submodules.inner = inner = self.inner
            for name in ("wr_en", "wr_sq", "wr_color", "wr_piece"):
                m.d.comb += getattr(inner, name).eq(getattr(self, name))
            wiring.connect(m, wiring.flipped(self.lookup), inner.lookup)
            empty = inner.planes.empty
            stuck = empty | (1 << square) if value else empty & ~(1 << square)
            m.d.comb += [self.planes.empty.eq(stuck), self.planes.black.eq(inner.planes.black)]
            return m

    def patch(monkeypatch):
        monkeypatch.setattr(posdata.hdl.gen.movegen, "BoardMemory", StuckBoard)
    return patch


def check_localised(report, driver):
    """The reported position really is one where this gateware and the reference differ."""
    assert report.mismatch and "FEN " in report.mismatch, report
    fen = report.mismatch.split("FEN ", 1)[1].split(";", 1)[0]
    board = Board(fen)
    assert driver.generate(board).moves != board.moves()
    return fen


def test_corrupted_rom_word_is_caught_and_localised(monkeypatch):
    # The knight on c3 after 1. Nc3: its walk jumps from its first square straight back home.
    frm = 18
    first = variant_image().words[rom_address(KNIGHT, frm, frm)] & 63
    driver = faulty_driver(monkeypatch, corrupt_rom_word(KNIGHT, frm, first, frm | frm << 6))
    report = run_perft(Board(), 3, "gen", "pysim", factory=lambda: driver, check=True)
    fen = check_localised(report, driver)
    assert "b1c3" in report.mismatch.split("FEN")[0]  # the line from the root leads there
    assert "missing from hw" in report.mismatch
    assert Board(fen).piece[frm] == KNIGHT


def test_stuck_colour_bit_is_caught_and_localised(monkeypatch):
    # e6 reads as never empty: a white pawn reaching e5 could not push, a bishop ray stops short
    driver = faulty_driver(monkeypatch, stuck_empty_bit(44, 0))
    report = run_perft(Board(), 3, "gen", "pysim", factory=lambda: driver, check=True)
    fen = check_localised(report, driver)
    assert Board(fen).color[44] == EMPTY
