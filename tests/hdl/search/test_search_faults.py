"""Faults injected into the search thread are caught by the search check (what
``posdata search --backend both`` runs: sim.runs.search_check) and localised to the first
differing node, named by its FEN, window and depth: a corrupted word of the evaluation's
piece-square ROM, and the alpha-beta control's cutoff line stuck at 0. The thread runs in
Amaranth's simulator (a faulty design elaborates in a second or two; compiling one would take a
minute), on small positions, as tests/hdl/chip/test_chip_faults.py does for the perft chip."""

import re

import pytest
from amaranth import Const

import posdata.hdl.search.evaluator
from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import KNIGHT, WHITE, move_uci, parse_square
from posdata.engine.search.leaf_eval import pst_address, pst_words
from posdata.engine.search.leaf_search import leaf_search
from posdata.hdl.search.search_thread import SearchThread
from posdata.sim.drivers.search_pysim import SearchSimulation
from posdata.sim.runs.search_check import check_search, same

KNIGHT_ENDING = "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1"
#: a node line of search_check.describe: FEN (its history's length), window, depth, ply
NODE = re.compile(r"^(?P<fen>\S+ [wb] \S+ \S+ \d+ \d+)(, \d+ plies of history \(fifty \d+\))? "
                  r"window \((?P<alpha>-?\d+), (?P<beta>-?\d+)\) depth (?P<depth>\d+) "
                  r"ply (?P<ply>\d+) extensions 0:")


def first_node(difference: str) -> tuple[str, int, int, int, int]:
    """The first differing node a difference names (its first line)."""
    found = NODE.match(difference.splitlines()[0])
    assert found, difference
    return (found["fen"], int(found["alpha"]), int(found["beta"]), int(found["depth"]),
            int(found["ply"]))


@pytest.fixture(scope="module")
def healthy():
    """A thread elaborated before any fault is injected."""
    return SearchSimulation()


def assert_localised(faulty, healthy, difference):
    """The node named differs from the reference on the faulty thread and agrees on the
    healthy one: the fault, not the check, makes the difference there."""
    fen, alpha, beta, depth, ply = first_node(difference)
    want = leaf_search(Board(fen), alpha, beta, depth, ply)
    assert not same(faulty.search(Board(fen), alpha, beta, depth, ply), want)
    assert same(healthy.search(Board(fen), alpha, beta, depth, ply), want)


def test_a_healthy_thread_passes(healthy):
    result = check_search(healthy, Board(KNIGHT_ENDING), 2, 1)
    assert result.match, result.difference
    assert result.hw_nodes > 0 and result.hw_cycles > 0


def test_corrupted_evaluation_word(monkeypatch, healthy):
    """The white knight's piece-square word for h3 gains 1,024 (bit 10 of its value): the first
    differing node is the one after g1h3, a quiescence root that stands pat on the wrong
    score (the root, which sees it through that child, differs too)."""
    h3 = parse_square("h3")

    def image():  # the thread's piece-square ROMs (its sums and the child's) take it from here
        words = pst_words()
        words[pst_address(WHITE, KNIGHT, h3)] ^= 1 << 10
        return words
    monkeypatch.setattr(posdata.hdl.search.evaluator, "pst_words", image)
    faulty = SearchSimulation()
    result = check_search(faulty, Board(KNIGHT_ENDING), 1, 1)
    assert not result.match
    fen, alpha, beta, depth, ply = first_node(result.difference)
    after = Board(KNIGHT_ENDING)
    after.makemove(next(m for m in after.legal_moves() if move_uci(m) == "g1h3"))
    assert (fen, depth, ply) == (after.fen(), 0, 1), result.difference
    assert f"below g1h3 of {KNIGHT_ENDING} window (-30001, 30001) depth 1" in result.difference
    assert_localised(faulty, healthy, result.difference)


def test_stuck_cutoff_in_the_alpha_beta_control(healthy):
    """Return's cutoff line stuck at 0: a node whose child reaches beta searches on (more nodes,
    its alpha raised to beta and past). The difference names the depth-1 node below the host's
    root where a quiescence child first fails high; its children agree."""
    faulty = SearchSimulation(SearchThread(fails_high=lambda score, beta: Const(0)))
    result = check_search(faulty, Board(KNIGHT_ENDING), 2, 2)
    assert not result.match
    fen, alpha, beta, depth, ply = first_node(result.difference)
    assert (depth, ply) == (1, 1), result.difference
    assert f"of {KNIGHT_ENDING} window (-30001, 30001) depth 2 ply 0" in result.difference
    assert_localised(faulty, healthy, result.difference)
