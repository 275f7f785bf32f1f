"""`posdata match` (issue 38, item 7): a tiny real match between two of posdata's backends
through `posdata uci`, matches of the fake engine (tests/engine/match/fake_uci_engine.py) for
concurrency, restarts, forfeits and the SPRT's stop, Ctrl-C, and every bad input as one line
with exit status 2."""

import io
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from posdata.engine.search.leaf_search import MAX_JOB_DEPTH
from posdata.sim.cli import main
from tests.signals import sigint_default

chess = pytest.importorskip("chess")
pytest.importorskip("chess.pgn")

FAKE = Path(__file__).resolve().parents[2] / "engine" / "match" / "fake_uci_engine.py"
#: a book of 4-ply lines: with --ply-cap 6 each engine moves once per game
SHORT_BOOK = """e2e4 e7e5 g1f3 b8c6 # open game
d2d4 d7d5 c2c4 e7e6 # queen's gambit
c2c4 e7e5 b1c3 g8f6 # English
g1f3 d7d5 g2g3 g8f6 # Reti
e2e4 c7c5 g1f3 d7d6 # Sicilian
e2e4 e7e6 d2d4 d7d5 # French
"""


def fake(*flags: str) -> str:
    """cmd= of the fake engine."""
    return "cmd=" + shlex.join([sys.executable, str(FAKE), *flags])


def games_of(path: Path) -> list:
    stream = io.StringIO(path.read_text())
    games = []
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors, game.errors
        games.append(game)
    return games


def one_line_error(argv, capsys, *words) -> str:
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and len(err.splitlines()) == 1, (status, out, err)
    assert err.startswith("posdata: error: ") and "Traceback" not in err
    for word in words:
        assert word in err, err
    return err


def test_help_explains_the_engine_words(capsys):
    with pytest.raises(SystemExit) as e:
        main(["match", "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and out.startswith("usage: posdata match")
    for word in ("backend=tscp|gen|sw|hw", "cmd=COMMAND", "option.NAME=VALUE", "movetime=MS",
                 "timeout=S", "--sprt", "--concurrency", "--pgn", "--json", "--book"):
        assert word in out, word


def test_a_tiny_real_match_between_two_backends(tmp_path, capsys):
    """Two games at depth 1 through `posdata uci` processes: the PGN reads back in python-chess
    and its games end as the JSON says, python-chess agreeing with every ending the rules
    decided."""
    pgn, out = tmp_path / "games.pgn", tmp_path / "match.json"
    assert main(["match", "--engine", "backend=tscp", "depth=1", "--engine", "backend=sw",
                 "depth=1", "chipdepth=1", "--games", "2", "--ply-cap", "60", "--pgn", str(pgn),
                 "--json", str(out)]) == 0
    text, err = capsys.readouterr()
    r = json.loads(out.read_text())
    assert [e["name"] for e in r["engines"]] == ["posdata tscp", "posdata sw"]
    assert r["engines"][1]["options"] == {"ChipDepth": "1"}
    assert r["games"] == 2 == r["wins"] + r["draws"] + r["losses"] == len(r["game_list"])
    assert r["score"] == pytest.approx((r["wins"] + r["draws"] / 2) / 2)
    assert sum(r["endings"].values()) == 2 and r["forfeits"] == {"posdata tscp": 0,
                                                                "posdata sw": 0}
    assert r["as_white"]["wins"] + r["as_black"]["wins"] == r["wins"]
    assert r["sprt"] is None and r["abandoned"] == 0 and r["openings"] == 1
    games = games_of(pgn)
    assert len(games) == 2
    for game, g in zip(games, r["game_list"]):
        assert [m.uci() for m in game.mainline_moves()] == g["moves"].split()
        assert game.headers["Result"] == g["result"] and game.headers["Round"] == str(g["round"])
        assert (game.headers["White"], game.headers["Black"]) == (g["white"], g["black"])
        board = game.end().board()
        if g["reason"] == "ply cap":
            assert g["plies"] == 60 and game.headers["Termination"] == "adjudication"
        else:
            assert board.outcome(claim_draw=True).result() == g["result"], g
    assert games[0].headers["White"] == games[1].headers["Black"] == "posdata tscp"
    first = r["game_list"][0]["moves"].split()[:6]
    assert first == ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]  # the book's first line
    assert text.startswith("match: posdata tscp (depth 1) against posdata sw (depth 1): 2 games")
    assert f"score of posdata tscp: +{r['wins']} ={r['draws']} -{r['losses']}" in text
    assert "Elo difference (posdata tscp - posdata sw): " in text
    assert len([line for line in err.splitlines() if line.startswith("game ")]) == 2


def test_concurrent_games_with_a_crashing_engine_restarted(tmp_path, capsys):
    """Two games at once, six in all; engine 2 crashes at its second move in each of its
    processes: it loses those games, is started again, and the match goes on to the end."""
    book, pgn, out = tmp_path / "book.txt", tmp_path / "g.pgn", tmp_path / "m.json"
    book.write_text(SHORT_BOOK)
    log = tmp_path / "log2.txt"
    assert main(["match", "--engine", fake("--seed", "2"), "name=steady",
                 "--engine", fake("--crash-at", "2", "--log", str(log)), "name=crashy",
                 "--each", "depth=1", "--book", str(book), "--games", "6", "--ply-cap", "12",
                 "--concurrency", "2", "--pgn", str(pgn), "--json", str(out), "--quiet"]) == 0
    text, err = capsys.readouterr()
    assert err == ""  # --quiet
    r = json.loads(out.read_text())
    crashes = [g for g in r["game_list"] if g["reason"] == "crashed"]
    assert crashes and r["forfeits"] == {"steady": 0, "crashy": len(crashes)}
    assert all(g["detail"].startswith("crashy: exited with status 3") for g in crashes)
    assert r["games"] == 6 and sorted(g["round"] for g in r["game_list"]) == list(range(1, 7))
    assert r["openings"] == 3
    # each crash meant a new process: one uci per start (two workers' first ones, then one per
    # crash)
    starts = log.read_text().splitlines().count("uci")
    assert starts == 2 + len(crashes)
    games = games_of(pgn)
    assert [g.headers["Round"] for g in games] == [str(i) for i in range(1, 7)]
    assert {g.headers["Termination"] for g in games if g.headers["Round"] in
            {str(c["round"]) for c in crashes}} == {"abandoned"}
    assert f"forfeits: crashy {len(crashes)} (crashed {len(crashes)})" in text


def test_the_sprt_stops_the_match_when_it_decides(tmp_path, capsys):
    """Engine 2 plays an illegal move at every second move it is asked for: it loses half its
    games, the other half are drawn at the ply cap; with elo1 200 the test accepts H1 after a
    few games, long before the 40 asked for."""
    book, out = tmp_path / "book.txt", tmp_path / "m.json"
    book.write_text(SHORT_BOOK)
    assert main(["match", "--engine", fake("--seed", "3"), "--engine",
                 fake("--illegal-every", "2"), "name=sloppy", "--each", "depth=1",
                 "--book", str(book), "--games", "40", "--ply-cap", "6",
                 "--sprt", "elo0=0", "elo1=200", "--json", str(out)]) == 0
    text, err = capsys.readouterr()
    r = json.loads(out.read_text())
    assert r["engines"][0]["name"] == "fake" and r["engines"][1]["name"] == "sloppy"
    p = r["sprt"]
    assert p["decision"] == "H1" and p["llr"] >= p["upper"] == pytest.approx(2.944, abs=1e-3)
    assert (p["elo0"], p["elo1"], p["alpha"], p["beta"]) == (0, 200, 0.05, 0.05)
    assert 4 <= r["games"] < 40 and r["losses"] == 0 and r["games_planned"] == 40
    assert f"H1 accepted (elo1) after {r['games']} games" in text
    assert err.count("\n") == r["games"] and ", LLR " in err


def test_a_stalled_engine_loses_and_is_restarted(tmp_path, capsys):
    book, out = tmp_path / "book.txt", tmp_path / "m.json"
    book.write_text(SHORT_BOOK)
    assert main(["match", "--engine", fake("--silent-at", "1"), "name=sleepy", "timeout=0.3",
                 "--engine", fake(), "name=awake", "--each", "depth=1", "--book", str(book),
                 "--games", "3", "--ply-cap", "8", "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    stalled = [g for g in r["game_list"] if g["reason"] == "stalled"]
    # each new process of sleepy is silent at its first go: it loses every game
    assert len(stalled) == 3 and r["losses"] == 3
    assert stalled[0]["detail"] == "sleepy: no bestmove within 0.3 s"
    assert r["engines"][0]["timeout"] == 0.3


def once(marker: Path, *flags: str) -> str:
    """cmd= of a fake engine that starts once: later starts exit with status 5."""
    script = (f"if [ -e {shlex.quote(str(marker))} ]; then exit 5; fi; "
              f"touch {shlex.quote(str(marker))}; "
              f"exec {shlex.join([sys.executable, str(FAKE), *flags])}")
    return "cmd=" + shlex.join(["sh", "-c", script])


def test_an_engine_that_cannot_be_restarted_ends_the_match_early(tmp_path, capsys):
    """Engine 2 crashes at its first move, and its command works only once: the match stops
    after that game, which is kept (printed, written), with exit status 1."""
    book, pgn = tmp_path / "book.txt", tmp_path / "g.pgn"
    book.write_text(SHORT_BOOK)
    assert main(["match", "--engine", fake(), "--engine",
                 once(tmp_path / "started", "--crash-at", "1"), "name=once", "--each",
                 "depth=1", "--book", str(book), "--games", "4", "--pgn", str(pgn)]) == 1
    text, err = capsys.readouterr()
    assert "stopped early after 1 of 4 games: engine 2 (once): exited with status 5" in text
    assert err.splitlines()[-1].startswith("posdata match: stopped early: engine 2 (once)")
    games = games_of(pgn)
    assert len(games) == 1 and games[0].headers["Termination"] == "abandoned"


def test_a_second_pair_that_does_not_start_leaves_the_games_to_the_first(tmp_path, capsys):
    book, out = tmp_path / "book.txt", tmp_path / "m.json"
    book.write_text(SHORT_BOOK)
    assert main(["match", "--engine", fake(), "--engine", once(tmp_path / "started"),
                 "name=once", "--each", "depth=1", "--book", str(book), "--games", "4",
                 "--ply-cap", "8", "--concurrency", "2", "--json", str(out), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err == ("posdata match: engine 2 (once): exited with status 5 during the uci "
                   "handshake; one game fewer at once\n")
    r = json.loads(out.read_text())
    assert r["games"] == 4 and r["stopped"] is None


def test_ctrl_c_stops_the_engines_and_writes_nothing(tmp_path):
    book, pgn = tmp_path / "book.txt", tmp_path / "g.pgn"
    book.write_text(SHORT_BOOK)
    pids = [tmp_path / "pid1", tmp_path / "pid2"]
    argv = [sys.executable, "-m", "posdata.sim", "match",
            "--engine", fake("--delay", "0.1", "--pid-file", str(pids[0])),
            "--engine", fake("--delay", "0.1", "--pid-file", str(pids[1])),
            "--each", "depth=1", "--book", str(book), "--games", "6", "--ply-cap", "16",
            "--pgn", str(pgn)]
    run = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    first = run.stderr.readline()  # a game has ended (in about a second): the next one is on
    assert first.startswith("game 1/6"), first
    run.send_signal(signal.SIGINT)
    err = first + run.communicate(timeout=60)[1]  # a hang guard: idle the match ends at once
    assert run.returncode == 130
    assert "posdata match: interrupted after 1 game(s); engines stopped, nothing written" in err
    assert "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["book.txt", "pid1", "pid2"]  # no PGN, no temporary
    for pid in pids:
        number = int(pid.read_text())
        with pytest.raises(ProcessLookupError):
            # the engine may take a moment to be reaped: 5 s, a hang guard (idle: ms)
            for _ in range(50):
                os.kill(number, 0)
                time.sleep(0.1)


@pytest.mark.parametrize("argv, words", [
    (["--engine", "backend=sw", "depth=1"], ["match: give --engine twice", "not 1"]),
    (["--engine", "backend=sw", "depth=1", "--engine", "backend=sw"],
     ["--engine 2: no limit"]),
    (["--engine", "backend=sw", "depth=1", "--engine", "speed=9"], ["unknown key 'speed'"]),
    (["--engine", "backend", "--engine", "backend=sw", "depth=1"], ["'backend' is not KEY=VALUE"]),
    (["--engine", "backend=nope", "depth=1", "--engine", "backend=sw", "depth=1"],
     ["backend must be one of tscp, gen, sw, hw"]),
    (["--each", "depth=0", "--engine", "backend=tscp", "--engine", "backend=sw"],
     ["depth must be an integer from 1 to 999"]),
    (["--engine", "backend=sw", "depth=1", "--engine", "backend=sw", "depth=1", "--games", "0"],
     ["match: --games must be between 1 and 1000000"]),
    (["--engine", "backend=sw", "depth=1", "--engine", "backend=sw", "depth=1",
      "--concurrency", "0"], ["--concurrency must be between 1 and 64"]),
    (["--engine", "backend=sw", "depth=1", "--engine", "backend=sw", "depth=1", "--sprt",
      "elo0=10", "elo1=0"], ["--sprt: elo0 must be less than elo1"]),
    (["--engine", "backend=sw", "depth=1", "--engine", "backend=sw", "depth=1", "--sprt",
      "power=3"], ["--sprt takes elo0=X, elo1=X, alpha=X, beta=X, not 'power=3'"]),
    (["--engine", "backend=sw", "depth=1", "--engine", "backend=sw", "depth=1", "--sprt",
      "alpha=0.9"], ["--sprt alpha must be between"]),
    (["--engine", "backend=sw", "depth=1", "--engine", "backend=sw", "depth=1", "--book",
      "/nonexistent/book.txt"], ["--book: cannot read /nonexistent/book.txt"]),
    (["--engine", "backend=sw", "depth=1", "--engine", "backend=sw", "depth=1", "--pgn",
      "/nonexistent/dir/g.pgn"], ["cannot write /nonexistent/dir/g.pgn (--pgn)"]),
    (["--engine", "cmd=/nonexistent/engine", "depth=1", "--engine", "backend=sw", "depth=1"],
     ["match: engine 1: cannot start '/nonexistent/engine'"]),
    (["--engine", "backend=tscp", "depth=1", "option.NoSuch=1", "--engine", "backend=sw",
      "depth=1"], ["engine 1 has no option 'NoSuch' (it offers: Backend, ChipDepth"]),
    (["--engine", "backend=sw", "depth=1", "chipdepth=99", "--engine", "backend=sw", "depth=1"],
     [f"engine 1: option ChipDepth takes an integer from 0 to {MAX_JOB_DEPTH}, not '99'"]),
    (["--engine", "backend=sw", "depth=1", "option.UCI_Variant=amazon", "--engine",
      "backend=sw", "depth=1"], ["engine 1 refused its options: Backend sw (the chip's search) "
                                 "plays orthodox chess only"]),
])
def test_bad_input_is_one_line_and_status_2(argv, words, capsys, tmp_path):
    one_line_error(["match", *argv], capsys, *words)


def test_a_bad_book_line_is_named(tmp_path, capsys):
    book = tmp_path / "book.txt"
    book.write_text("e2e4 e7e5\ne2e4 e7e6 e1e2 e8e9\n")
    one_line_error(["match", "--engine", "backend=sw", "depth=1", "--engine", "backend=sw",
                    "depth=1", "--book", str(book)], capsys,
                   f"match: --book: {book}:2: 'e8e9' is not a legal move in ")
