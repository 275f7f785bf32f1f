"""Faults injected into the perft chip are caught by ``perft --backend both`` and localised to a
position: a corrupted ROM word, a stuck bit in the attack unit, an unmake that forgets to restore
the en passant square. The chip runs in Amaranth's simulator (a faulty design elaborates in
seconds; compiling one would take a minute), on small positions."""

import pytest
from amaranth import Module
from amaranth.lib import wiring

import posdata.hdl.chip.make_unmake
import posdata.hdl.chip.perft_thread
import posdata.hdl.gen.rom
from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import KNIGHT, parse_square
from posdata.engine.rules.perft import perft
from posdata.hdl.chip.attack import AttackUnit
from posdata.hdl.image.addressing import rom_address
from posdata.sim.drivers.chip_pysim import ChipSimulation
from posdata.sim.runs.chip_perft import run_chip_perft


def both(fen, depth, bulk=True):
    """perft --backend both on a freshly elaborated (possibly faulty) chip in pysim."""
    chip = ChipSimulation()
    return run_chip_perft(Board(fen), depth, "both", "pysim", bulk, factory=lambda: chip)


def test_a_healthy_chip_passes():
    report = both("4k3/8/8/3pP3/8/8/2P5/4K3 w - d6 0 1", 2)
    assert report.match and report.nodes == perft(Board(report.fen), 2)


def test_corrupted_rom_word(monkeypatch):
    """The knight on g1's start entry points nowhere: its moves are missing at the root."""
    g1 = parse_square("g1")
    original = posdata.hdl.gen.rom.variant_image

    def image(variant):  # every ROM of the chip takes its image from here
        return original(variant).with_word(rom_address(KNIGHT, g1, g1), g1 | g1 << 6)
    monkeypatch.setattr(posdata.hdl.gen.rom, "variant_image", image)
    report = both("4k3/8/8/8/8/8/8/4K1N1 w - - 0 1", 2)
    assert not report.match
    assert "legal moves differ after (root)" in report.mismatch
    assert "missing from chip: g1e2 g1f3 g1h3" in report.mismatch, report.mismatch


class StuckAttackUnit(AttackUnit):
    """An attack unit that never sees a rook or queen on a7 (its orth plane's bit stuck at 0)."""

    def elaborate(self, platform):
        m = Module()
        m.submodules.unit = unit = AttackUnit(self._tag_shape)
        for name in ("occupied", "black", "diag", "knight", "pawn", "king"):
            m.d.comb += getattr(unit.planes, name).eq(getattr(self.planes, name))
        m.d.comb += unit.planes.orth.eq(self.planes.orth & ~(1 << parse_square("a7")))
        wiring.connect(m, wiring.flipped(self.query), unit.query)
        wiring.connect(m, unit.result, wiring.flipped(self.result))
        return m


def test_stuck_bit_in_the_attack_unit(monkeypatch):
    """The rook on a7 guards the seventh rank; the faulty unit lets the king walk onto it."""
    monkeypatch.setattr(posdata.hdl.chip.perft_thread, "AttackUnit", StuckAttackUnit)
    report = both("4k3/R7/8/8/8/8/8/4K3 b - - 0 1", 2)
    assert not report.match
    assert "legal moves differ after (root)" in report.mismatch
    assert "extra in chip: e8d7 e8e7 e8f7" in report.mismatch, report.mismatch


def test_unmake_forgets_the_en_passant_square(monkeypatch):
    """After c2c4 is unmade the en passant square stays c3, so e5xd6 (en passant, made later
    at the root) leaves the d5 pawn on the board. Each child alone is right: the report names
    the node where make/unmake between children goes wrong."""
    def forgetful(undo, rights, ep_valid, ep_sq):
        return [rights.eq(undo.rights)]
    monkeypatch.setattr(posdata.hdl.chip.make_unmake, "restore_after_unmake", forgetful)
    fen = "4k3/8/8/3pP3/8/8/2P5/4K3 w - d6 0 1"
    report = both(fen, 2)
    assert not report.match
    assert "counts differ after (root) although every child agrees" in report.mismatch
    assert fen in report.mismatch


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "plain"])
def test_pysim_equals_compiled(bulk):
    """The golden simulator and the compiled model: same count, same clocks."""
    from posdata.sim.drivers.chip_cxxrtl import ChipModel
    fen = "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"  # promotions both ways
    a = ChipSimulation().perft(Board(fen), 2, bulk)
    b = ChipModel().perft(Board(fen), 2, bulk)
    assert (a.leaves, a.clocks) == (b.leaves, b.clocks) and a.leaves == perft(Board(fen), 2)
