"""The search thread's guards: an abort from any state back to Idle (a job loaded after it runs
as on a fresh thread), the evaluation's sums rebuilt by a load (a reset mid-job cannot leave
them apart from the planes), and jobs the thread refuses (depth over MAX_JOB_DEPTH, a window
not within +-(MATE+1), an empty one)."""

import random

import pytest
from amaranth.hdl import ResetInserter
from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.search.leaf_search import MAX_JOB_DEPTH, leaf_search
from posdata.engine.search.searcher import MATE
from posdata.hdl.search.search_thread import SearchThread
from posdata.sim.drivers.search_cxxrtl import SearchModel
from posdata.sim.drivers.search_pysim import load_position, start_job

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
ITALIAN = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 0 1"
FULL = MATE + 1


def outcome(r):
    return r.score, r.best_move, r.nodes


@pytest.fixture(scope="module")
def model():
    with SearchModel(verbose=False) as m:
        yield m


def test_abort_then_a_job_runs_as_on_a_fresh_thread(model):
    rng = random.Random(27)
    want = outcome(leaf_search(Board(ITALIAN), -FULL, FULL, 2))
    # early, mid-walk, mid-make and deep in the job, at random clocks
    for after in list(range(1, 41)) + rng.sample(range(41, 20_000), 12):
        model.begin(Board(KIWIPETE), -FULL, FULL, 3)
        assert not model.run(after), after  # still searching
        assert model.abort() < 100, after
        got, error = model.job(Board(ITALIAN), -FULL, FULL, 2)
        assert not error and outcome(got) == want, after


def test_abort_when_idle_is_nothing(model):
    model.abort()
    got, _ = model.job(Board(ITALIAN), -50, 50, 1)
    assert outcome(got) == outcome(leaf_search(Board(ITALIAN), -50, 50, 1))


@pytest.mark.parametrize("alpha, beta, depth", [
    (-FULL, FULL, MAX_JOB_DEPTH + 1), (-FULL, FULL, 15), (-FULL - 1, 0, 1), (0, FULL + 1, 1),
    (5, 5, 1), (6, 5, 0),
])
def test_refused_jobs(model, alpha, beta, depth):
    got, error = model.job(Board(ITALIAN), alpha, beta, depth)
    assert error and got.nodes == 0 and got.best_move is None
    with pytest.raises(ValueError):
        model.search(Board(ITALIAN), alpha, beta, depth)
    # the thread takes the next job as usual
    good, error = model.job(Board(ITALIAN), -FULL, FULL, 1)
    assert not error and outcome(good) == outcome(leaf_search(Board(ITALIAN), -FULL, FULL, 1))


def test_window_at_the_bounds_is_taken(model):
    got, error = model.job(Board(ITALIAN), -FULL, FULL, 0)
    assert not error and got.nodes > 0


def test_a_reset_mid_job_then_a_load_leaves_the_sums_right():
    """Amaranth's simulator: the domain reset mid-job (the planes keep what they hold, the other
    registers clear), then the next job loaded: it is the reference's."""
    rst = __import__("amaranth").Signal()
    dut = SearchThread()
    top = ResetInserter(rst)(dut)
    results = []

    async def load(ctx, board):
        await load_position(ctx, dut, board)

    async def start(ctx, board, alpha, beta, depth):
        await start_job(ctx, dut, board, alpha, beta, depth)

    async def bench(ctx):
        for cut in (7, 23, 61):  # clocks into the job: walks, makes, writes in flight
            await load(ctx, Board(KIWIPETE))
            await start(ctx, Board(KIWIPETE), -FULL, FULL, 1)
            await ctx.tick().repeat(cut)
            ctx.set(rst, 1)
            await ctx.tick()
            ctx.set(rst, 0)
            await ctx.tick().repeat(8)
            await load(ctx, Board(ITALIAN))
            await start(ctx, Board(ITALIAN), -FULL, FULL, 1)
            for _ in range(200_000):
                await ctx.tick()
                if ctx.get(dut.done):
                    break
            best = ctx.get(dut.best) if ctx.get(dut.best_valid) else None
            results.append((ctx.get(dut.score), best, ctx.get(dut.nodes)))

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    want = outcome(leaf_search(Board(ITALIAN), -FULL, FULL, 1))
    assert results == [want] * 3
