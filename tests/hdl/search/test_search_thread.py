"""The search thread returns the reference's score, best move and node count exactly
(engine/search/leaf_search.py): random census positions and windows (full, null, around the true
score, fail high and low, at the mate bounds), depths 0-2 on the compiled model, a few small jobs in
Amaranth's simulator (the two simulators run the same RTL); deeper jobs are marked slow. A
difference names the FEN, window, depth and the first differing node (sim.runs.search_check)."""

import functools
import random

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.search.leaf_search import MAX_EXTENSIONS, LeafStats, leaf_search
from posdata.engine.search.searcher import MATE
from posdata.sim.drivers.search_cxxrtl import SearchModel
from posdata.sim.runs.search_check import first_difference
from tests.engine.search.test_leaf_rules import CHECKING, histories
from tests.hw_positions import EXTRA_STARTS, census, random_positions

from .thread_bench import run_jobs

FULL = 30_001
#: mate in one both ways, mated, stalemate: a full-width node without a legal move
ENDINGS = (
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "6k1/8/8/8/8/8/5PPP/r5K1 w - - 0 1",
)


def windows(board, depth: int, rng: random.Random) -> list[tuple[int, int]]:
    """Windows for a job: full, null and narrow ones around the true score, ones the true
    score lies above and below, and the mate bounds."""
    s = leaf_search(Board(board.fen()), -FULL, FULL, depth).score
    out = [(-FULL, FULL), (s - 1, s), (s, s + 1), (s - 30, s + 30),
           (s + 1, s + rng.randint(2, 300)), (s - rng.randint(2, 300), s - 1),
           (MATE - 100, FULL), (-FULL, -MATE + 100)]
    return [(max(a, -FULL), min(b, FULL)) for a, b in out if max(a, -FULL) < min(b, FULL)]


@functools.cache
def jobs(count: int, depths: tuple, seed: int, per_position: int = 2) -> list:
    rng = random.Random(seed)
    fens = list(ENDINGS) + list(EXTRA_STARTS) + random_positions(count, seed=seed)
    out = []
    for fen in fens:
        board = Board(fen)
        for depth in depths:
            for alpha, beta in rng.sample(windows(board, depth, rng), per_position):
                out.append((fen, alpha, beta, depth, rng.randint(0, 20)))
    return out


def make_test_jobs() -> list:
    """make test's jobs: depths 0 and 1 on 60 positions and more, depth 2 on 20 and more."""
    return jobs(60, (0, 1), seed=27) + jobs(20, (2,), seed=28, per_position=1)


def past_jobs(count: int, depths: tuple, seed: int) -> list:
    """Jobs where the rules of issue 38 decide: boards whose history lets a position repeat
    (tests/engine/search/test_leaf_rules.py's shuffles), positions with long checking lines and
    checks, mates and stalemates, each with extensions already made above it (0 to the cap)."""
    rng = random.Random(seed)
    boards = histories(count, seed) + [Board(fen) for fen in CHECKING + ENDINGS]
    out = []
    for board in boards:
        for depth in depths:
            ext = rng.randint(0, MAX_EXTENSIONS)
            ply = rng.randint(1, 6)
            s = leaf_search(board.copy(), -FULL, FULL, depth, ply, ext).score
            for alpha, beta in ((-FULL, FULL), (s - 1, s), (s - rng.randint(2, 200), s + 40)):
                out.append((board, max(alpha, -FULL), min(beta, FULL), depth, ply, ext))
    return out


@pytest.fixture(scope="module")
def model():
    with SearchModel(verbose=False) as m:
        yield m


def check(model, job_list):
    for job in job_list:
        difference = first_difference(model, *job)
        assert difference is None, difference


def test_the_jobs_cover_the_census():
    fens = {job[0] for job in make_test_jobs()}
    counts = census(sorted(fens))
    assert all(counts[k] for k in ("ep", "promotion", "castle", "check", "capture")), counts


def test_compiled_thread_depths_0_to_2(model):
    check(model, make_test_jobs())


def test_compiled_thread_repetitions_checks_and_extensions(model):
    """Repetitions through the job's history, check extensions (the job's own and those made
    above it), evasions and mates in the quiescence search, depths 1 and 2."""
    jobs = past_jobs(16, (1, 2), seed=38)
    stats = LeafStats()
    for board, *job in jobs:
        stats.add(leaf_search(board.copy(), *job).stats)
    assert min(stats.draws, stats.extended, stats.evasion, stats.check_waits) > 0, stats
    check(model, jobs)


@pytest.mark.slow
@pytest.mark.parametrize("depth", [2, 3, 4])
def test_compiled_thread_deeper(model, depth):
    check(model, jobs(40, (depth,), seed=100 + depth, per_position=2))


#: promotions by push and by capture for both sides in quiescence: EXTRA_STARTS[1] with a
#: pawn fewer a side (47 nodes, not 375: the simulator runs the thread at hundreds of clocks a
#: second)
PROMOTIONS_SMALL = ("n1n5/PP1k4/8/8/8/8/4Kpp1/5N1N b - - 0 1", -FULL, FULL, 0, 0)


def test_pysim_thread_small_jobs(model):
    """A few small jobs in Amaranth's simulator, held to the reference and to the compiled
    model's clocks."""
    small = [(ENDINGS[0], -FULL, FULL, 1, 0), (ENDINGS[2], -FULL, FULL, 1, 3),
             ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", -50, 50, 1, 0),
             PROMOTIONS_SMALL]
    for job, got in zip(small, run_jobs(small)):
        want = leaf_search(Board(job[0]), *job[1:])
        compiled = model.search(Board(job[0]), *job[1:])
        assert (got.score, got.best_move, got.nodes) == (want.score, want.best_move,
                                                         want.nodes), job
        assert got.clocks == compiled.clocks, job
