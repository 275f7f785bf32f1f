"""engine.search.host_think: the host's search over a leaf searcher within a go's limits. A
completed iteration is held to HostSearch's search of that depth on the previous iteration's PV (the
tree posdata search --backend sw prints); stops, deadlines and node limits to a legal move and the
board as given."""

import threading

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.engine.search.host_think import HostThinker
from posdata.engine.search.searcher import MATE, Limits, SearchStopped
from tests.hang_guard import guarded

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
ENDING = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"


@pytest.mark.parametrize("fen, chip_depth", [(KIWIPETE, 1), (ENDING, 2), (ENDING, 0)])
def test_each_iteration_is_the_host_search_of_its_depth(fen, chip_depth):
    board = Board(fen)
    seen = []
    result = HostThinker(ReferenceLeaf(), chip_depth).think(board, Limits(depth=3), seen.append)
    assert board.fen() == fen
    total, previous = 0, []
    for it in seen:
        want = HostSearch(Board(fen), ReferenceLeaf(), chip_depth).search(it.depth,
                                                                         prev_pv=previous)
        total += want.nodes
        previous = want.pv
        assert (it.score, it.pv[:1], it.nodes) == (want.score, [want.best_move], total), \
            f"{fen} depth {it.depth}"
        assert it.pv == want.pv
    assert [it.depth for it in seen] == [1, 2, 3]
    assert (result.best_move, result.depth, result.stopped) == (seen[-1].pv[0], 3, False)


def test_stop_from_another_thread_ends_with_a_legal_move():
    board = Board(KIWIPETE)
    thinker = HostThinker(ReferenceLeaf(), 2)
    timer = threading.Timer(0.3, thinker.stop)
    timer.start()
    # a hang guard: idle the search ends 0.1-0.6 s after the stop (seen before the next host
    # node or job, and a job of this leaf runs to its end), so 0.4-0.9 s in all
    result = guarded(lambda: thinker.think(board, Limits(infinite=True)), 20,
                     "an infinite search stopped from another thread", on_hang=thinker.stop)
    assert result.stopped and result.best_move in board.legal_moves()
    assert board.fen() == KIWIPETE and board.ply == 0


def test_a_stop_before_think_is_kept():
    """... and obeyed once the first iteration, which always completes, is done."""
    thinker = HostThinker(ReferenceLeaf(), 2)
    thinker.stop()
    result = thinker.think(Board(KIWIPETE), Limits(depth=5))
    assert result.stopped and result.depth == 1 and result.best_move == result.pv[0]


def test_the_first_iteration_completes_whatever_the_limits():
    for limits in (Limits(nodes=1), Limits(time_ms=0.001), Limits(nodes=1, time_ms=0.001)):
        result = HostThinker(ReferenceLeaf(), 2).think(Board(KIWIPETE), limits)
        assert result.stopped and result.depth == 1, limits
        assert result.best_move == result.iterations[0].pv[0]


def test_deadline_and_node_limit_stop_the_search():
    board = Board(KIWIPETE)
    thinker = HostThinker(ReferenceLeaf(), 1)
    # a hang guard: idle ~0.09 s (the first iteration completes past the 50 ms). Stopped: the
    # deadline cut an iteration short (the only limit: neither a depth reached nor a soft stop)
    result = guarded(lambda: thinker.think(board, Limits(time_ms=50)), 10,
                     "a search on a 50 ms deadline", on_hang=thinker.stop)
    assert result.stopped
    result = HostThinker(ReferenceLeaf(), 1).think(board, Limits(nodes=3000))
    # depth 1 takes 1,963 nodes, depth 2 2,466 more: the limit falls in depth 2
    assert result.stopped and result.depth == 1 and result.nodes >= 3000
    assert board.fen() == KIWIPETE


def test_a_mate_found_ends_the_search():
    board = Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")  # Ra8 mates
    result = HostThinker(ReferenceLeaf(), 1).think(board, Limits(depth=6))
    assert result.score == MATE - 1 and board.uci(result.best_move) == "a1a8"
    # the mated node is in check: the extension makes it full-width at depth 1
    assert result.depth == 1 and not result.stopped


@pytest.mark.parametrize("fen, score", [("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0),
                                        ("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", -MATE)])
def test_no_legal_move(fen, score):
    result = HostThinker(ReferenceLeaf(), 2).think(Board(fen), Limits(depth=3))
    assert (result.best_move, result.score) == (None, score)


class Interruptible(ReferenceLeaf):
    """A leaf searcher that offers ``interrupt`` (as the compiled thread does) and raises
    SearchStopped from inside a job once it is asked to."""

    def __init__(self):
        super().__init__()
        self.interrupt = None
        self.asked = 0

    def search(self, board, alpha, beta, depth, ply, extensions=0):
        self.asked += 1
        if self.interrupt is not None and self.interrupt():
            raise SearchStopped
        return super().search(board, alpha, beta, depth, ply, extensions)


def test_a_leaf_that_can_be_interrupted_is_given_the_stop_and_handed_back():
    leaf = Interruptible()
    thinker = HostThinker(leaf, 2)
    thinker.stop_requested = False
    timer = threading.Timer(0.2, thinker.stop)
    timer.start()
    # a hang guard: idle ~0.3 s in all (the first iteration completes, then the stop is seen)
    result = guarded(lambda: thinker.think(Board(KIWIPETE), Limits(infinite=True)), 10,
                     "an infinite search over an interruptible leaf", on_hang=thinker.stop)
    assert result.stopped and leaf.asked > 0
    assert leaf.interrupt is None  # handed back as it was
