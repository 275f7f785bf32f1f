"""The host's search with the compiled search thread below the split equals it with the
reference below: score, best move, PV and nodes (engine/search/host_search.py)."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.sim.drivers.search_cxxrtl import SearchModel


@pytest.fixture(scope="module")
def model():
    with SearchModel(verbose=False) as m:
        yield m


def outcome(result):
    return result.score, result.best_move, result.pv, result.nodes, result.leaf_nodes


def check(model, fen, depth, chip_depth):
    chip = HostSearch(Board(fen), model, chip_depth).search(depth)
    ref = HostSearch(Board(fen), ReferenceLeaf(), chip_depth).search(depth)
    assert outcome(chip) == outcome(ref), (fen, depth, chip_depth)
    assert chip.leaf_clocks > 0


@pytest.mark.parametrize("position", STANDARD_POSITIONS[:3], ids=lambda p: p.name)
def test_host_over_the_chip(model, position):
    check(model, position.fen, 3, 1)


@pytest.mark.slow
@pytest.mark.parametrize("chip_depth", [0, 1, 2, 3])
@pytest.mark.parametrize("position", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_host_over_the_chip_deeper(model, position, chip_depth):
    for depth in range(1, 5):
        check(model, position.fen, depth, chip_depth)
