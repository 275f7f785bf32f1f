"""``posdata perft --backend hw -j N``: the tree split at the chip's split ply over N chip models.
The jobs are the nodes at that ply, the same for any number of workers: two Dask workers count
what one model in this process counts, leaf for leaf and clock for clock, and the software's
perft is the oracle of the counts; the divide is the software's; a scheduler named by the
environment is never used; progress is positions and clocks/s; bad values are one line."""

import json

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.perft import divide, perft
from posdata.sim.cli import main
from posdata.sim.drivers.targets import chip_default, make_chip
from posdata.sim.runs.chip_perft import job_split, run_chip_perft, split_ply
from posdata.sim.runs.gen_perft import frontier
from tests.sim.runs.test_chip_perft import HidingChip, game_board, state


def perft_json(argv, capsys) -> dict:
    status = main(["perft", "--backend", "hw", "--json", "--quiet", *argv])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


class Recorder:
    def __init__(self):
        self.lines = []

    def update(self, text: str) -> None:
        self.lines.append(text)


def test_the_split_is_the_chips_split_ply():
    assert [split_ply(d) for d in range(1, 7)] == [1, 1, 2, 2, 2, 2]
    assert [job_split(d) for d in range(0, 6)] == [0, 0, 1, 1, 2, 2]


def test_split_jobs_add_up_to_the_softwares_divide():
    """With a stand-in chip (the software's count, 10 clocks a ply): one job per node at the
    split ply, summed by root move; the caller's board as it was."""
    board, chip = game_board(), HidingChip()
    before = state(board)
    progress = Recorder()
    report = run_chip_perft(board, 3, "hw", "cxxrtl", bulk=False, jobs=2,
                            factory=lambda: chip, progress=progress)
    assert state(board) == before
    ply2 = perft(Board(board.fen()), 2, bulk=True)
    assert report.split == 2 and report.counts == chip.counts == ply2
    assert report.clocks == 10 * 1 * ply2  # jobs of depth 3 - 2
    want = {move_uci(m): n for m, n in divide(Board(board.fen()), 3).items()}
    assert report.divide == want and report.nodes == sum(want.values())
    assert progress.lines[-1].startswith(f"perft 3 on 1 chip model(s): {ply2}/{ply2} "
                                         f"positions at ply 2, {report.clocks:,} clocks (")
    assert progress.lines[-1].endswith(" clocks/s)")


def test_a_difference_below_the_split_is_localised():
    board, chip = game_board(), HidingChip(hidden="f8e7")
    report = run_chip_perft(board, 3, "both", "cxxrtl", jobs=2, factory=lambda: chip)
    assert report.match is False and report.nodes < report.sw_nodes
    assert "missing from chip: f8e7" in report.mismatch


def test_two_workers_count_what_one_model_counts(capsys, monkeypatch):
    """Two local workers against the same jobs on one model here (the oracle of the clocks:
    each node at the split ply loaded from its FEN and counted to depth 5 - 2, split as the
    jobs are) and the software (of the counts), and -j 1; with both, the workers count the
    jobs in software too."""
    # an unauthenticated scheduler the environment names: never used by the chip's workers
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://127.0.0.1:9")
    fen = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"  # small enough for perft(5): 14,991 leaves
    two = perft_json(["--fen", fen, "--depth", "5", "-j", "2", "--divide", "--backend", "both"],
                     capsys)
    one = perft_json(["--fen", fen, "--depth", "5", "-j", "1"], capsys)
    board = Board(fen)
    chip = make_chip(chip_default())
    jobs = [chip.perft(Board(child), 3, False, job_split(3)) for _, child in frontier(board, 2)]
    assert two["nodes"] == one["nodes"] == perft(board, 5) == sum(c.leaves for c in jobs)
    assert two["sw_nodes"] == two["nodes"] and two["match"]  # the workers' software counts
    assert two["hw_cycles"] == sum(c.clocks for c in jobs)
    assert two["chip_counts"] == len(jobs) and two["split_ply"] == 2
    assert two["divide"] == {move_uci(m): n for m, n in divide(board, 5).items()}


@pytest.mark.parametrize("argv, words", [
    (["-j", "0"], "--jobs"),
    (["-j", "two"], "--jobs"),
    (["-j", "257"], "--jobs"),
    (["-j", "2", "--engines", "2"], "--engines N is one chip model"),
    (["-j", "2", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler goes with"),
])
def test_bad_jobs_are_one_line(capsys, argv, words):
    assert main(["perft", "--backend", "hw", "--depth", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("posdata: error: ") and err.count("\n") == 1 and words in err, err
