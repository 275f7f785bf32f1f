"""The search thread under Verilator against its CXXRTL model, through one driver
(sim.drivers.search_cxxrtl.SearchModel): the same jobs give the same score, best move, nodes and
clocks, the same clocks per state and per load; a refused job, an aborted one (make test-slow:
make test builds one search model, Verilator's, which tests/hdl/search holds to the reference
and to Amaranth's simulator's clocks). Random X-initialisation changes nothing."""

import json
import random
import shutil

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from tests.hw_positions import EXTRA_STARTS, random_positions

pytestmark = pytest.mark.skipif(
    not any(shutil.which(c) for c in ("c++", "g++", "clang++")),
    reason="no C++ compiler: the search thread's models cannot be built")

FULL = 30_001


def make_jobs() -> list:
    """Depths 0 to 2 over standard, extra and random positions, full and narrow windows."""
    rng = random.Random(31)
    fens = [p.fen for p in STANDARD_POSITIONS] + list(EXTRA_STARTS) + random_positions(8, 31)
    out = []
    for fen in fens:
        for depth in (0, 1, 2):
            a = rng.randint(-400, 300)
            for alpha, beta in ((-FULL, FULL), (a, a + rng.randint(1, 100))):
                out.append((fen, alpha, beta, depth, rng.randint(0, 12)))
    return out


@pytest.fixture(scope="module")
def models():
    from posdata.sim.drivers.search_cxxrtl import SearchModel
    with SearchModel(verbose=False, simulator="cxxrtl") as c, \
            SearchModel(verbose=False, simulator="verilator") as v:
        yield c, v


@pytest.mark.slow
def test_the_same_jobs_to_the_clock(models):
    cxxrtl, verilator = models
    assert (cxxrtl.simulator, verilator.simulator) == ("cxxrtl", "verilator")
    for fen, alpha, beta, depth, ply in make_jobs():
        got = [m.job(Board(fen), alpha, beta, depth, ply) for m in models]
        assert got[1] == got[0], (fen, alpha, beta, depth, ply)
        assert got[0][0].clocks > 0 and not got[0][1]
    assert verilator.phases == cxxrtl.phases and sum(cxxrtl.phases.values()) > 0
    assert (verilator.load_clocks, verilator.jobs) == (cxxrtl.load_clocks, cxxrtl.jobs)


@pytest.mark.slow
def test_a_refused_job_and_an_aborted_one(models):
    board = Board(STANDARD_POSITIONS[1].fen)
    refused = [m.job(board, -FULL, FULL, 15) for m in models]
    assert refused[0][1] and refused[1] == refused[0]
    aborted = []
    for m in models:
        m.begin(board, -FULL, FULL, 3)
        assert not m.run(5_000)
        aborted.append(m.abort())
    assert aborted[0] == aborted[1] > 0
    after = [m.search(board, -50, 50, 1) for m in models]
    assert after[0] == after[1]


def test_random_x_initialisation_changes_nothing(monkeypatch):
    from posdata.sim.drivers.search_cxxrtl import SearchModel
    jobs = make_jobs()[::5]
    with SearchModel(verbose=False, simulator="verilator") as zeros:
        want = [zeros.job(Board(fen), alpha, beta, depth, ply)
                for fen, alpha, beta, depth, ply in jobs]
    monkeypatch.setenv("POSDATA_X_SEED", "4242")
    with SearchModel(verbose=False, simulator="verilator") as seeded:
        for job, result in zip(jobs, want):
            assert seeded.job(Board(job[0]), *job[1:]) == result, job


def search_json(capsys, target: str) -> dict:
    from posdata.sim.cli import main
    code = main(["search", "--backend", "hw", "--depth", "2", "--chip-depth", "1", "--target",
                 target, "--json", "--fen", STANDARD_POSITIONS[1].fen])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    return out


def test_cli_search_on_verilator(capsys):
    got = search_json(capsys, "verilator")
    assert got["hw_nodes"] > 0 and got["hw_cycles"] > 0


@pytest.mark.slow
def test_cli_search_on_either_simulator(capsys):
    runs = [search_json(capsys, target) for target in ("verilator", "cxxrtl")]
    keys = ("score", "bestmove", "pv", "nodes", "hw_nodes", "hw_cycles", "hw_load_cycles")
    assert [runs[0][k] for k in keys] == [runs[1][k] for k in keys]


@pytest.mark.slow
def test_lint_clean_and_every_waiver_needed():
    from posdata.sim.models.verilator import LINT_WAIVERS, lint, waivers
    SEARCH_LINT_WAIVERS = waivers("search")
    from posdata.sim.models.verilog_export import verilog_text
    verilog = verilog_text("search")
    assert lint(verilog, SEARCH_LINT_WAIVERS, top="posdata_search") == []
    for rule in set(SEARCH_LINT_WAIVERS) - set(LINT_WAIVERS):
        rest = {k: v for k, v in SEARCH_LINT_WAIVERS.items() if k != rule}
        assert any(f"-{rule}:" in line for line in lint(verilog, rest, top="posdata_search")), \
            f"the {rule} waiver is not needed any more: drop it"
