"""engine.search.host_parallel: the host's search with a batch of jobs at once, one per leaf
searcher, returns the serial search's score, best move and PV (its node count may differ, and is
reported) on positions with cutoffs, mates and few moves."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.search.host_parallel import ParallelHostSearch
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.engine.search.leaf_search import LeafResult

POSITIONS = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",          # mate in one
    "7k/8/6QK/8/8/8/8/8 w - - 0 1",               # stalemates to avoid
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
]


@pytest.mark.parametrize("fen", POSITIONS)
@pytest.mark.parametrize("depth, chip_depth, threads", [
    (3, 1, 2), (2, 1, 3), pytest.param(3, 1, 3, marks=pytest.mark.slow),
    pytest.param(4, 2, 2, marks=pytest.mark.slow)])
def test_the_serial_result(fen, depth, chip_depth, threads):
    want = HostSearch(Board(fen), ReferenceLeaf(), chip_depth).search(depth)
    search = ParallelHostSearch(Board(fen), [ReferenceLeaf() for _ in range(threads)],
                                chip_depth)
    try:
        got = search.search(depth)
    finally:
        search.close()
    assert (got.score, got.best_move, got.pv) == (want.score, want.best_move, want.pv), fen
    assert got.nodes == got.host_nodes + got.leaf_nodes and got.host_nodes > 0
    assert got.jobs >= search.rounds >= search.batches


class Recording(ReferenceLeaf):
    """A leaf that remembers its jobs' windows and says each took 100 clocks and one a node."""

    def __init__(self, log):
        super().__init__()
        self.log = log

    def search(self, board, alpha, beta, depth, ply, extensions=0):
        r = super().search(board, alpha, beta, depth, ply, extensions)
        self.log.append((board.fen(), alpha, beta))
        return LeafResult(r.score, r.best_move, r.nodes, 100 + r.nodes, r.stats)


def test_the_clocks_projected_with_the_threads_at_once():
    log = []
    fen = POSITIONS[5]
    search = ParallelHostSearch(Board(fen), [Recording(log), Recording(log)], 1)
    try:
        got = search.search(2)
    finally:
        search.close()
    want = HostSearch(Board(fen), ReferenceLeaf(), 1).search(2)
    assert (got.score, got.best_move) == (want.score, want.best_move)
    assert search.batches > 0 and got.jobs == len(log)
    assert all(alpha < beta for _, alpha, beta in log)
    assert got.leaf_clocks == 100 * got.jobs + got.leaf_nodes
    # the projection: lone jobs' clocks plus each batch's longest, never more than all jobs'
    assert 0 < search.parallel_clocks < got.leaf_clocks


def test_no_leaf_is_refused():
    with pytest.raises(ValueError):
        ParallelHostSearch(Board(), [], 1)


class Batcher:
    """A batch searcher as a search board is one (``search_many`` over its ``threads``, and
    ``search`` for a lone job): the reference's jobs, one after another, each batch logged."""

    def __init__(self, threads):
        self.threads = threads
        self.leaf = ReferenceLeaf()
        self.batches = []

    def search(self, board, alpha, beta, depth, ply, extensions=0):
        return self.leaf.search(board, alpha, beta, depth, ply, extensions)

    def search_many(self, jobs):
        self.batches.append(len(jobs))
        return [self.leaf.search(*job) for job in jobs]


@pytest.mark.parametrize("threads, asked", [(2, None), (4, 3)])
def test_a_batch_searcher_takes_the_batches(threads, asked):
    fen = POSITIONS[0]
    batcher = Batcher(threads)
    search = ParallelHostSearch(Board(fen), batcher, 1, asked)
    got = search.search(2)
    search.close()
    want = HostSearch(Board(fen), ReferenceLeaf(), 1).search(2)
    assert (got.score, got.best_move, got.pv) == (want.score, want.best_move, want.pv)
    width = asked or threads
    assert search.threads == width and batcher.batches and max(batcher.batches) == width
    assert search.batches == len(batcher.batches)
