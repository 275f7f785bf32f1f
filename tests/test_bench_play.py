"""`make bench-play` (issue 28, item 6): the Elo arithmetic on known values, the opening book and
the Win At Chess suite as committed, the judge of a game, a short game between the chip's search
and the software search, the command's one-line errors, and its row in docs/measurements.md.
The match and the suite themselves are measured by the bench, not here."""

import copy
import importlib.util
import json
import math
from pathlib import Path

import pytest

chess = pytest.importorskip("chess")

from posdata.engine.board import Board  # noqa: E402
from posdata.engine.host_search import ReferenceLeaf  # noqa: E402

BENCH = Path(__file__).resolve().parent.parent / "bench"
DOCS = BENCH.parent / "docs"


@pytest.fixture
def load(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # a bench imports its neighbours by bare name

    def load(name: str):
        spec = importlib.util.spec_from_file_location(f"{name}_under_test", BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return load


# ---- the Elo arithmetic ----------------------------------------------------------------------

def test_elo_of_known_scores(load):
    elo = load("elo")
    # +60 =20 -20: p = 0.7, D = 400 log10(0.7 / 0.3)
    assert elo.score(60, 20, 20) == pytest.approx(0.7)
    assert elo.elo_difference(0.7) == pytest.approx(147.19, abs=0.01)
    # the games' scores around 0.7: variance 0.6 * 0.3^2 + 0.2 * 0.2^2 + 0.2 * 0.7^2 = 0.16, so
    # sigma = 0.4 / sqrt(100) = 0.04; p in 0.7 +- 0.0784: D(0.7784) = 218.24, D(0.6216) = 86.22
    assert elo.error_margin(60, 20, 20) == pytest.approx((218.24 - 86.22) / 2, abs=0.02)
    # +50 -50: even, sigma 0.05; D(0.598) = 400 log10(0.598 / 0.402) = 68.99
    assert elo.elo_difference(elo.score(50, 0, 50)) == 0
    assert elo.error_margin(50, 0, 50) == pytest.approx(68.99, abs=0.01)
    # draws narrow the bar: +30 =40 -30 has variance 0.15, sigma 0.0387, D(0.5759) = 53.16
    assert elo.error_margin(30, 40, 30) == pytest.approx(53.16, abs=0.01)
    assert elo.error_margin(0, 100, 0) == 0


def test_elo_is_the_logistic_inverse_and_infinite_at_the_ends(load):
    elo = load("elo")
    assert elo.expected_score(100) == pytest.approx(1 / (1 + 10 ** -0.25))  # 0.64006
    for d in (-400, -35.5, 0, 120):
        assert elo.elo_difference(elo.expected_score(d)) == pytest.approx(d)
    assert elo.elo_difference(1.0) == math.inf and elo.elo_difference(0.0) == -math.inf
    assert elo.error_margin(3, 0, 0) == math.inf  # the interval reaches a score of 1
    assert (elo.shown(-math.inf), elo.shown(147.2), elo.shown(-3.4)) == ("-inf", "+147", "-3")
    with pytest.raises(ValueError):
        elo.score(0, 0, 0)


# ---- the files ----------------------------------------------------------------------------

def test_the_book_is_fifty_lines_each_legal_for_the_engine_too(load):
    data = load("play_data")
    book = data.read_book()
    assert len(book) >= 50 and len({o.name for o in book}) == len(book)
    for opening in book:
        assert 4 <= len(opening.moves) <= 8, opening
        board = Board()  # the engine's own legality, not python-chess's that read_book used
        for word in opening.moves:
            board.push_uci(word)


@pytest.mark.parametrize("text, error", [
    ("e2e4 e7e5 g1f3 b8c6\ne2e4 e7e5 g1f3 e7e6\n", ":2: 'e7e6' is not a legal move"),
    ("e2e4 e7e5 g1f3\n", ":1: 3 plies, not 4 to 8"),
    ("e2e4 e7e5 g1f3 b8c6 # a\ng1f3 b8c6 e2e4 e7e5 # b\n", ":2: the same position as line 1"),
    ("# nothing\n\n", "no opening lines"),
])
def test_a_bad_book_line_is_named(load, tmp_path, text, error):
    data = load("play_data")
    path = tmp_path / "book.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=error):
        data.read_book(str(path))


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


# ---- a game --------------------------------------------------------------------------------

def position(fen: str, *moves: str) -> "chess.Board":
    board = chess.Board(fen)
    for m in moves:
        board.push_uci(m)
    return board


def test_the_judge(load):
    games = load("play_games")
    start = chess.STARTING_FEN
    assert games.judge(position(start, "f2f3", "e7e5", "g2g4", "d8h4"), 200) == (
        "0-1", "checkmate")
    assert games.judge(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 60"), 200) == (
        "1/2-1/2", "stalemate")
    shuffle = ("g1f3", "g8f6", "f3g1", "f6g8") * 2  # the start position a third time
    assert games.judge(position(start, *shuffle[:-1]), 200) is None
    assert games.judge(position(start, *shuffle), 200) == ("1/2-1/2", "threefold")
    assert games.judge(chess.Board("8/8/8/4k3/8/8/R7/4K3 w - - 100 80"), 200) == (
        "1/2-1/2", "fifty moves")
    assert games.judge(chess.Board("8/8/8/4k3/8/8/8/3NK3 w - - 0 1"), 200) == (
        "1/2-1/2", "insufficient material")
    # the ply cap (move 101, white to move: ply 200): a minor piece ahead wins, less draws
    assert games.judge(chess.Board("8/8/8/4k3/8/8/R7/4K3 w - - 0 101"), 201) is None
    assert games.judge(chess.Board("8/8/8/4k3/8/8/R7/4K3 w - - 0 101"), 200) == (
        "1-0", "ply cap")
    assert games.judge(chess.Board("4k3/ppp5/8/8/8/8/P7/4K3 w - - 0 101"), 200) == (
        "1/2-1/2", "ply cap")
    assert games.judge(chess.Board("4k3/8/8/8/8/5n2/8/4K3 w - - 0 101"), 200) == (
        "1/2-1/2", "insufficient material")
    assert games.judge(chess.Board("4k3/8/8/8/8/1r3n2/P7/4K3 w - - 0 101"), 200) == (
        "0-1", "ply cap")


def test_a_short_game_between_the_searches_ends_in_a_legal_result(load):
    data, games = load("play_data"), load("play_games")
    opening = data.read_book()[0]
    chip = games.ChipPlayer(ReferenceLeaf(), depth=1, chip_depth=2)
    software = games.SoftwarePlayer(depth=1)
    game = games.play(opening, chip, software, ply_cap=60)
    assert game.white == games.CHIP and list(game.moves[:len(opening.moves)]) == \
        list(opening.moves)
    board = chess.Board()  # replayed: every move legal, the game over at the end, not before
    for m in game.moves:
        assert games.judge(board, 60) is None
        board.push(chess.Move.from_uci(m))
    assert games.judge(board, 60) == (game.result, game.reason)
    assert game.result in ("1-0", "0-1", "1/2-1/2")
    assert game.points(games.CHIP) + game.points(games.SOFTWARE) == 1
    assert sum(game.searched.values()) == len(game.moves) - len(opening.moves)


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
    assert s["positions"] == 3 and set(s["solved"]) == {"chip-ref", "software"}
    assert s["agree"] is None  # no compiled thread without --leaf hw
    for k, ids in s["solved_ids"].items():
        assert len(ids) == s["solved"][k] and set(ids) <= {"WAC.001", "WAC.002", "WAC.003"}
    assert f"chip: +{m['wins']} ={m['draws']} -{m['losses']}" in text


@pytest.mark.parametrize("argv, error", [
    (["--games", "101"], "--games 101: 0 to 100"),
    (["--positions", "301"], "--positions 301: 0 to 300"),
    (["--depth", "0"], "--depth 0: at least 1"),
    (["--chip-depth", "9"], "--chip-depth 9: 0 to 8"),
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
