"""The perft chip under Verilator against the CXXRTL chip: the same counts, the same clocks to the
clock and the same clocks per thread and phase, on the standard positions at depths 1 to 3, plain
and bulk; the same listings; the same under random X-initialisation; abort and the watchdog; the
CLI's ``--backend hw|both --target verilator``, and Verilator as the chip's default; the model
cache's keys."""

import json
import shutil

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import BY_NAME, STANDARD_POSITIONS
from posdata.sim.drivers.interface import WatchdogError
from tests.hw_positions import random_positions

pytestmark = pytest.mark.skipif(
    not any(shutil.which(c) for c in ("c++", "g++", "clang++")),
    reason="no C++ compiler: the chip's models cannot be built")


@pytest.fixture(scope="module")
def cxxrtl():
    from posdata.sim.drivers.chip_cxxrtl import ChipModel
    return ChipModel()


@pytest.fixture(scope="module")
def verilator():
    from posdata.sim.drivers.chip_verilator import VerilatorChip
    return VerilatorChip()  # cached: 20-40 s once per RTL change


def same_count(a, b, what: str):
    assert (a.leaves, a.clocks, a.overflow) == (b.leaves, b.clocks, b.overflow), \
        f"{what}: verilator {a.leaves} leaves in {a.clocks} clocks, cxxrtl {b.leaves} in " \
        f"{b.clocks}"
    assert a.phases == b.phases, f"{what}: the phases differ"


@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "plain"])
def test_same_counts_and_clocks(cxxrtl, verilator, bulk):
    """Depth 3 where its tree is under 10,000 leaves (CXXRTL's model takes seconds for the
    others'; tests/hdl/chip counts them deeper on the chip's default simulator)."""
    for pos in STANDARD_POSITIONS:
        for depth in (1, 2, 3):
            if pos.counts[depth - 1] >= 10_000:
                continue
            got = verilator.perft(Board(pos.fen), depth, bulk)
            same_count(got, cxxrtl.perft(Board(pos.fen), depth, bulk), f"{pos.name} {depth}")
            assert got.leaves == pos.counts[depth - 1] and got.clocks > 0


def test_split_and_solo_engine_are_passed(cxxrtl, verilator):
    board = Board(BY_NAME["kiwipete"].fen)
    for split, engine in ((0, None), (1, 0), (1, None)):
        got = verilator.perft(board, 2, False, split, engine=engine)
        same_count(got, cxxrtl.perft(board, 2, False, split, engine=engine), f"split {split}")
        assert got.leaves == 2039 and got.split == split


def test_same_listings(cxxrtl, verilator):
    for fen in random_positions(12, seed=31):
        for legal in (True, False):
            a, b = verilator.list_moves(Board(fen), legal), cxxrtl.list_moves(Board(fen), legal)
            assert (a.moves, a.cycles) == (b.moves, b.cycles), f"{fen} legal={legal}"


@pytest.mark.parametrize("seed", [5, 424242])
def test_random_x_initialisation_changes_nothing(cxxrtl, monkeypatch, seed):
    from posdata.sim.drivers.chip_verilator import VerilatorChip
    from posdata.sim.models.verilator import build_library
    monkeypatch.setenv("POSDATA_X_SEED", str(seed))
    with VerilatorChip(library=build_library(design="chip", params={"engines": 1})) as chip:
        board = Board(BY_NAME["position4"].fen)
        same_count(chip.perft(board, 2, False), cxxrtl.perft(board, 2, False), f"seed {seed}")


def test_watchdog_aborts_and_the_next_count_is_whole(cxxrtl, verilator, monkeypatch):
    from posdata.sim.drivers import chip_cxxrtl
    monkeypatch.setattr(chip_cxxrtl, "CHUNK", 500)  # the watchdog is looked at between runs
    board = Board(BY_NAME["kiwipete"].fen)
    with pytest.raises(WatchdogError, match="within 1000 clocks"):
        verilator.perft(board, 3, False, watchdog=1000)
    same_count(verilator.perft(board, 2, True), cxxrtl.perft(board, 2, True), "after an abort")


def perft_json(capsys, *args) -> dict:
    from posdata.sim.cli import main
    code = main(["perft", "--json", "--quiet", "--fen", BY_NAME["position3"].fen, *args])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    return out


@pytest.mark.parametrize("mode", [["--bulk"], []], ids=["bulk", "plain"])
def test_cli_perft_on_verilator(capsys, mode):
    runs = {sim: perft_json(capsys, "--depth", "3", "--backend", "both", "--target", sim, *mode)
            for sim in ("verilator", "cxxrtl")}
    v, c = runs["verilator"], runs["cxxrtl"]
    assert v["sim"] == "verilator" and v["match"] is True and v["nodes"] == 2812
    assert v["hw_cycles"] == c["hw_cycles"] > 0
    divided = perft_json(capsys, "--depth", "3", "--backend", "hw", "--target", "verilator",
                         "--divide", *mode)
    assert divided["nodes"] == 2812 and len(divided["divide"]) == 14


def test_the_chip_runs_on_verilator_by_default(capsys, monkeypatch):
    """Verilator's chip of one engine unless --target names another; CXXRTL's where Verilator's
    toolchain is missing (the same clocks), and for more engines; the generator's default stays
    CXXRTL's."""
    from posdata.sim.cli import main
    from posdata.sim.models import verilator as build
    from posdata.sim.models.toolchain import ToolchainError

    def compare() -> dict:
        assert main(["compare", "--depth", "1", "--json", "--quiet"]) == 0
        return json.loads(capsys.readouterr().out)
    assert perft_json(capsys, "--depth", "1", "--backend", "gen")["sim"] == "cxxrtl"
    chosen = perft_json(capsys, "--depth", "2", "--backend", "hw")
    assert chosen["sim"] == "verilator" and chosen["nodes"] == 191
    on_verilator = compare()
    assert on_verilator["sim"] == "verilator"
    # a larger chip: CXXRTL's, whose first compile grows more slowly with the engines
    two = perft_json(capsys, "--depth", "1", "--backend", "hw", "--engines", "2")
    assert two["sim"] == "cxxrtl" and two["nodes"] == 14

    def missing():
        raise ToolchainError("Verilator needs make, which is not on PATH")
    monkeypatch.setattr(build, "find_verilator", missing)
    fallback = perft_json(capsys, "--depth", "2", "--backend", "hw")
    assert fallback["sim"] == "cxxrtl" and fallback["hw_cycles"] == chosen["hw_cycles"]
    on_cxxrtl = compare()
    assert on_cxxrtl["sim"] == "cxxrtl"
    assert [r["hw_cycles"] for r in on_cxxrtl["positions"]] == \
        [r["hw_cycles"] for r in on_verilator["positions"]]


def test_model_keys():
    from posdata.sim.models.verilator import entry_defines, entry_source, sources_key
    chip, two = {"engines": 1}, {"engines": 2}
    keys = {sources_key("generator"), sources_key("chip", chip), sources_key("chip", two),
            sources_key("chip", {**chip, "variant": "chess960"})}
    assert len(keys) == 4 and sources_key("chip", chip) == sources_key("chip", dict(chip))
    assert "#define POSDATA_THREADS 4" in entry_defines("chip", two)
    assert entry_source("chip", two).count("return top->phases___05F") == 4
    assert "POSDATA_CHESS960" in entry_defines("chip", {**chip, "variant": "chess960"})
    assert "POSDATA_CHESS960" not in entry_defines("chip", chip)
    assert entry_defines("generator", {}) == ""


def test_the_cached_model_is_found_without_verilog(monkeypatch, verilator):
    """A second build of the same chip is the cache's index: no Yosys, no Verilator."""
    from posdata.sim.models import verilator as build
    monkeypatch.setattr(build, "verilog_text", lambda *a, **k: pytest.fail("regenerated"))
    monkeypatch.setattr(build, "find_verilator", lambda: pytest.fail("rebuilt"))
    assert build.build_library(design="chip", params={"engines": 1}).endswith(build.LIBRARY)


@pytest.mark.slow
@pytest.mark.parametrize("engines, variant", [(2, "chess"), (1, "chess960")])
def test_more_engines_and_chess960(engines, variant):
    """Another model each (20-40 s to build): two engines' four threads, and Chess960's inputs."""
    from posdata.sim.drivers.chip_cxxrtl import ChipModel
    from posdata.sim.drivers.chip_verilator import VerilatorChip
    from posdata.sim.runs.variant_positions import sample_positions
    fens = ([p.fen for p in STANDARD_POSITIONS[:3]] if variant == "chess" else
            sample_positions(variant)[:3])
    with ChipModel(engines, variant=variant) as c, VerilatorChip(engines, variant=variant) as v:
        assert v.threads == c.threads == 2 * engines
        for fen in fens:
            for bulk in (True, False):
                board = Board(fen, variant)
                same_count(v.perft(board, 3, bulk), c.perft(board, 3, bulk), fen)
