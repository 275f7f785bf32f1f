"""The ply limit's node (a quiescence node QS_PLY_LIMIT plies below the frontier returns its
evaluation clamped to its window): the bench's trees never reach 32 plies, so the thread and the
reference are both built with a limit of 1 and 2 here, where most captures reach it."""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.search import leaf_search as reference
from posdata.hdl.search.search_thread import SearchThread
from tests.hw_positions import EXTRA_STARTS

from .thread_bench import run_jobs

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize("limit", [1, 2])
def test_the_limit_node_returns_its_clamped_evaluation(monkeypatch, limit):
    monkeypatch.setattr(reference, "QS_PLY_LIMIT", limit)
    jobs = [(KIWIPETE, -30001, 30001, 0, 0), (KIWIPETE, -40, 60, 1, 2),
            (EXTRA_STARTS[0], -30001, 30001, 0, 0), (EXTRA_STARTS[3], 10, 11, 0, 0)]
    limits = 0
    for job, got in zip(jobs, run_jobs(jobs, dut=SearchThread(ply_limit=limit))):
        want = reference.LeafSearch(Board(job[0])).run(*job[1:])
        limits += want.stats.limit
        assert (got.score, got.best_move, got.nodes) == (want.score, want.best_move,
                                                         want.nodes), job
    assert limits > 10  # the limit's nodes were there to be settled
