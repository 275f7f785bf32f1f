"""The gateware generator held to the reference on walks with modes (issue 29): the same moves,
in the same order, with the same flags, at every node of perft(3) of each variant's sample
positions (sim.runs.variant_positions), on its compiled model; and ``posdata perft --backend
gen`` runs them. One compiled model in make test (makruk: a table per colour, promotion on
the sixth rank), grasshopper's hops on Amaranth's simulator (perft(2) of a position of
screens), the other models in make test-slow."""

import pytest

from posdata.engine.rules.board import Board
from posdata.sim.cli import main
from posdata.sim.runs.gen_perft import run_perft
from posdata.sim.runs.variant_positions import LEGS, sample_positions


def check_perft3(name: str) -> None:
    nodes = 0
    for fen in sample_positions(name):
        report = run_perft(Board(fen, name), 3, "gen", "cxxrtl", check=True)
        assert not report.mismatch, f"{name}: {report.mismatch}"
        assert report.nodes == report.sw_nodes and report.calls > 1, (name, fen)
        nodes += report.nodes
    assert nodes > 10_000, name


def test_gateware_equals_reference_on_perft3_trees():
    check_perft3("makruk")


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in LEGS if n != "makruk"])
def test_gateware_equals_reference_on_perft3_trees_slow(name):
    check_perft3(name)


def test_pysim_follows_a_grasshopper_s_hops():
    """Grasshoppers and queens among screens: hops, landings blocked by a friend, captures
    on landing, and the queen's rays, at every node of perft(2)."""
    fen = LEGS["grasshopper"][2]
    assert fen.count("g") == 4 and fen.count("G") == 4
    report = run_perft(Board(fen, "grasshopper"), 2, "gen", "pysim", check=True)
    assert not report.mismatch, report.mismatch
    assert report.nodes == report.sw_nodes > 1000 and report.calls > 30


def test_the_sample_positions_reach_the_rare_cases():
    """Each variant's positions: its start and at least three built for it."""
    for name in LEGS:
        fens = sample_positions(name)
        assert fens[0] == Board(variant=name).fen() and len(fens) >= 4, name
        for fen in fens:
            assert Board(fen, name).fen() == fen, (name, fen)


def test_perft_backend_gen_runs_a_variant_with_modes(capsys):
    status = main(["perft", "--variant", "makruk", "--backend", "gen", "--check",
                   "--depth", "2", "--fen", "3k4/2s1s3/8/8/8/8/2S1S3/3K4 w - - 0 1"])
    out = capsys.readouterr().out
    assert status == 0 and "match    yes" in out
    board = Board("3k4/2s1s3/8/8/8/8/2S1S3/3K4 w - - 0 1", "makruk")
    from posdata.engine.rules.perft import perft
    assert f"nodes    {perft(board, 2)}" in out
