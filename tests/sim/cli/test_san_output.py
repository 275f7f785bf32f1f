"""SAN for people (issue 40 item 7): ``posdata search --san`` and ``posdata moves --san`` against
python-chess's SAN of the same moves; other variants refused in one line."""

import json

import chess
import pytest

from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.sim.cli import main

FENS = [p.fen for p in STANDARD_POSITIONS]


def run_json(capsys, argv) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("fen", FENS)
def test_moves_san_is_python_chess_san(capsys, fen):
    out = run_json(capsys, ["moves", "--fen", fen, "--san", "--json"])
    board = chess.Board(fen)
    legal = {m.uci(): board.san(m) for m in board.legal_moves}
    assert {u: s for u, s in zip(out["moves"], out["san"]) if s is not None} == legal
    assert all(s is None for u, s in zip(out["moves"], out["san"]) if u not in legal)


@pytest.mark.parametrize("backend", [[], ["--backend", "sw"]])
@pytest.mark.parametrize("fen", FENS[:4])
def test_search_pv_in_san(capsys, fen, backend):
    out = run_json(capsys, ["search", "--fen", fen, "--depth", "2", "--san", "--json", *backend])
    board = chess.Board(fen)
    expected = []
    for uci in out["pv"]:
        move = chess.Move.from_uci(uci)
        expected.append(board.san(move))
        board.push(move)
    assert out["pv_san"] == expected and expected


def test_search_text_numbers_the_moves(capsys):
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3"
    assert main(["search", "--fen", fen, "--depth", "2", "--san"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("    2 ")]
    assert rows and rows[0].split("  ")[-1].startswith("3... ")


@pytest.mark.parametrize("command", ["search --depth 1", "moves"])
def test_san_of_another_variant_is_refused(capsys, command):
    assert main([*command.split(), "--variant", "amazon", "--san"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--san" in err and "amazon" in err
