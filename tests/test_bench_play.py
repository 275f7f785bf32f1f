"""`make bench-play` (issue 28, item 6; issue 38, item 7): the Win At Chess suite as committed, a
short run of the bench (its match through `posdata match`, two games), the command's one-line
errors, and its row in docs/measurements.md. The match and the suite themselves are measured by
the bench, not here; the match's parts (Elo, judge, book, PGN) are tested in
tests/engine/match/test_match_*.py."""

import copy
import json

import pytest

from posdata.engine.search.leaf_search import MAX_JOB_DEPTH
from tests.scripts import BENCH, load_script

chess = pytest.importorskip("chess")

from posdata.engine.rules.board import Board  # noqa: E402

DOCS = BENCH.parent / "docs"


@pytest.fixture
def load(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # a bench imports its neighbours by bare name

    return lambda name: load_script(BENCH / f"{name}.py")


# ---- the suite -----------------------------------------------------------------------------

def test_win_at_chess_is_300_positions_each_with_a_legal_best_move(load):
    data = load("play_data")
    suite = data.read_suite()
    assert [p.id for p in suite] == [f"WAC.{i:03d}" for i in range(1, 301)]
    for p in suite:
        board = Board(p.fen)
        legal = {board.uci(m) for m in board.legal_moves()}
        assert p.best and p.best <= legal, p.id
    # the suite's first problem, Qg6, as any copy of WAC has it
    assert suite[0].best == {"g3g6"} and suite[0].solved_by("g3g6")
    assert not suite[0].solved_by("e5c6") and not suite[0].solved_by(None)


def test_solved_means_in_bm_and_not_in_am(load):
    data = load("play_data")
    both = data.Problem("x", chess.STARTING_FEN, frozenset({"e2e4", "d2d4"}),
                        frozenset({"d2d4"}))
    avoid = data.Problem("y", chess.STARTING_FEN, frozenset(), frozenset({"g2g4"}))
    assert [both.solved_by(m) for m in ("e2e4", "d2d4", "c2c4")] == [True, False, False]
    assert [avoid.solved_by(m) for m in ("g2g4", "c2c4")] == [False, True]


# ---- the command ------------------------------------------------------------------------------

def test_the_command_plays_and_solves_and_writes_its_json(load, tmp_path, capsys):
    bench = load("search_play")
    out = tmp_path / "play.json"
    assert bench.main(["--depth", "1", "--games", "2", "--ply-cap", "24", "--positions", "3",
                       "--jobs", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    r = json.loads(out.read_text())
    m, s = r["match"], r["suite"]
    assert m["games"] == 2 and m["wins"] + m["draws"] + m["losses"] == 2
    assert m["score"] == pytest.approx((m["wins"] + m["draws"] / 2) / 2)
    assert sum(m["endings"].values()) == 2 and m["plies"] <= 48
    # the chip (Backend sw, ChipDepth) against the software search (Backend tscp), depth 1
    chip, software = m["engines"]
    assert (chip["name"], chip["backend"], chip["options"], chip["limits"]["depth"]) == (
        "chip", "sw", {"ChipDepth": "2"}, 1)
    assert (software["name"], software["backend"], software["limits"]["depth"]) == (
        "software", "tscp", 1)
    assert set(m["seconds_per_move"]) == {"chip", "software"} and "game_list" not in m
    assert m["ply_cap"] == 24 and m["openings"] == 1 and m["concurrency"] == 1
    assert s["positions"] == 3 and set(s["solved"]) == {"chip-ref", "software"}
    assert s["agree"] is None  # no compiled thread without --leaf hw
    for k, ids in s["solved_ids"].items():
        assert len(ids) == s["solved"][k] and set(ids) <= {"WAC.001", "WAC.002", "WAC.003"}
    assert f"score of chip: +{m['wins']} ={m['draws']} -{m['losses']}" in text
    assert "Elo difference (chip - software): " in text and "by threefold repetition" in text


@pytest.mark.parametrize("argv, error", [
    (["--games", "265"], "--games 265: 0 to 264"),
    (["--positions", "301"], "--positions 301: 0 to 300"),
    (["--depth", "0"], "--depth 0: at least 1"),
    (["--chip-depth", "9"], f"--chip-depth 9: 0 to {MAX_JOB_DEPTH}"),
    (["--jobs", "0"], "--jobs 0: 1 to 64"),
    (["--book", "/nonexistent/book.txt"], "cannot read /nonexistent/book.txt"),
])
def test_bad_input_is_one_line_and_status_2(load, tmp_path, capsys, argv, error):
    bench = load("search_play")
    out = tmp_path / "play.json"
    assert bench.main([*argv, "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bench/search_play.py: error: ") \
        and error in err
    assert not out.exists()


# ---- the row in docs/measurements.md ------------------------------------------------------

def test_measurements_show_the_play_row_once_measured(load):
    report = load("report")
    data = copy.deepcopy(report.load(str(DOCS / "measurements.json")))
    data["runs"].pop("play", None)
    without = report.markdown(data)
    data["runs"]["play"] = {"command": ".venv/bin/python bench/search_play.py", "commit": "abc",
                            "date": "2026-11-26", "seconds": 1800, "results": {
        "depth": 3, "chip_depth": 2, "leaf": "ref", "jobs": 2,
        "match": {"games": 100, "openings": 50, "ply_cap": 200, "wins": 20, "draws": 30,
                  "losses": 50, "score": 0.35, "elo": -107.5, "elo_margin": 60.2,
                  "as_white": {"wins": 12, "draws": 15, "losses": 23},
                  "as_black": {"wins": 8, "draws": 15, "losses": 27},
                  "endings": {"checkmate": 60, "threefold": 40}, "plies": 9000,
                  "seconds": 1800, "games_per_s": 0.0556,
                  "seconds_per_move": {"chip": 0.46, "software": 0.22},
                  "digest": "0123456789abcdef"},
        "suite": {"name": "WAC", "positions": 300, "depth": 3,
                  "solved": {"chip-ref": 150, "software": 200},
                  "nodes": {"chip-ref": 1000000, "software": 900000},
                  "seconds": {"chip-ref": 300.0, "software": 100.0}, "agree": None}}}
    with_row = report.markdown(data)
    assert "Playing strength" not in without
    assert "| playing strength: the chip's search against the software search | 100 games at " \
           "depth 3: chip +20 =30 -50, 35.0 %, Elo -108 +- 60; WAC at depth 3: chip-ref 150, " \
           "software 200 of 300 | `make bench-play` |" in with_row
    assert "| as white | 12 | 15 | 23 | 39.0 % |" in with_row
    assert "| chip-ref | **150** | 1,000,000 | 300.0 |" in with_row
    assert "**-108 +- 60**" in with_row
