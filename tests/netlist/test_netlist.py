"""What is synthesised is what was simulated: the move generator's post-synthesis netlist
(tests/netlist/build.py) held to the RTL's compiled model, move for move and clock for clock,
on the six standard positions and seeded random ones; and a netlist synthesised from a ROM image
one word off the engine's is caught."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.sim.drivers.gen_cxxrtl import CxxrtlGenerator

from ..hw_positions import random_positions
from .build import design_rtlil, netlist_library
from .rom_fault import one_word_changed

INITIAL = STANDARD_POSITIONS[0].fen


def differences(library, fens):
    """(fen, RTL moves and cycles, netlist moves and cycles) wherever the two differ."""
    rtl = CxxrtlGenerator(verbose=False)
    net = CxxrtlGenerator(library=str(library))
    out = []
    for fen in fens:
        a, b = rtl.generate(Board(fen)), net.generate(Board(fen))
        if (a.moves, a.cycles) != (b.moves, b.cycles):
            out.append((fen, (len(a.moves), a.cycles), (len(b.moves), b.cycles)))
    return out


def report(diffs) -> str:
    return "\n".join(f"{fen}: RTL {a[0]} moves in {a[1]} clocks, netlist {b[0]} in {b[1]}"
                     for fen, a, b in diffs[:10])


@pytest.fixture(scope="module")
def netlist():
    return netlist_library()


def test_netlist_matches_rtl(netlist):
    fens = [p.fen for p in STANDARD_POSITIONS] + random_positions(60, seed=7)
    diffs = differences(netlist, fens)
    assert not diffs, report(diffs)


@pytest.mark.slow
def test_netlist_matches_rtl_deeper(netlist):
    diffs = differences(netlist, random_positions(1000, seed=11))
    assert not diffs, report(diffs)


@pytest.mark.slow
def test_one_word_rom_difference_is_caught():
    with one_word_changed():
        il = design_rtlil()
    diffs = differences(netlist_library(il), [INITIAL])
    assert diffs and diffs[0][0] == INITIAL, "a netlist with a wrong ROM word went unnoticed"
