"""`make bench`'s whole-process row (issue 30): `posdata perft` and a Python running python-chess
each timed as a process, start to exit, on the same tree, and the row in docs/measurements.md
once measured. The benches are scripts, loaded here from their folder."""

import copy

import pytest

from tests.scripts import BENCH, load_bench

DOCS = BENCH.parent / "docs"


load = load_bench


def test_the_whole_process_row_times_both_peers_on_the_same_tree(monkeypatch):
    pytest.importorskip("chess")
    perft_sw = load("perft_sw", monkeypatch)
    row = perft_sw.whole_process(depth=2, repeat=1)
    assert row["ok"] and row["nodes"] == 400
    # perft(2) takes no longer than start-up: the times are only known to be there
    assert min(row["seconds"], row["startup_seconds"], row["peer_seconds"],
               row["peer_startup_seconds"]) > 0
    # the ratio is of the unrounded times; each time shown is rounded to a millisecond
    ours, theirs, half = row["seconds"], row["peer_seconds"], 0.0005
    assert (theirs - half) / (ours + half) - half <= row["ratio"] <= \
        (theirs + half) / (ours - half) + half
    # what a user types: software, plain, one process (no Dask workers)
    words = row["command"].split()
    assert words[:4] == ["posdata", "perft", "--backend", "sw"]
    assert "--plain" in words and words[words.index("-j") + 1] == "1"


def test_the_process_count_is_read_from_each_peer(monkeypatch):
    pytest.importorskip("chess")
    perft_sw = load("perft_sw", monkeypatch)
    fen = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"  # position 3
    ours, theirs = perft_sw.whole_commands(fen, 2)
    assert perft_sw.time_process(ours)[0] == perft_sw.time_process(theirs)[0] == 191


def test_measurements_show_the_row_once_measured(monkeypatch):
    report = load("report", monkeypatch)
    data = copy.deepcopy(report.load(str(DOCS / "measurements.json")))
    data["runs"]["bench"]["results"].pop("whole_process", None)
    without = report.markdown(data)
    data["runs"]["bench"]["results"]["whole_process"] = {
        "position": "initial", "depth": 5, "nodes": 4865609, "ok": True, "seconds": 6.5,
        "peer_seconds": 19.5, "startup_seconds": 0.1, "peer_startup_seconds": 0.06,
        "ratio": 3.0, "command": "posdata perft --depth 5", "peer_command": "python -c SCRIPT"}
    with_row = report.markdown(data)
    assert "whole process" not in without
    assert "software perft, whole process (start to exit, plain, -j 1) | perft(5) of the " \
           "initial position in 6.50 s, 3.00x python-chess (19.50 s)" in with_row
    assert "| ours | **6.50** | 0.10 | `posdata perft --depth 5` |" in with_row
