"""posdata compare --random N: seeded random positions through the generator in the loop. The
software counts against python-chess (an independent oracle), the same positions for the same
seed on one or two workers, and a generator made to drop one move at one position is the first
mismatch reported, with its FEN and the missing move."""

import json

import chess

from posdata.sim.cli import main
from posdata.sim.drivers.targets import make_driver
from posdata.sim.runs import gen_perft as hwperft
from posdata.sim.runs.campaign import random_positions


def chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def compare_json(argv, capsys):
    status = main(["compare", "--quiet", "--json", *argv])
    out, err = capsys.readouterr()
    return status, json.loads(out), err


def test_random_positions_match_python_chess(capsys):
    status, data, err = compare_json(["--random", "12", "--depth", "2", "--backend", "gen",
                                      "--seed", "5", "-j", "1"], capsys)
    assert status == 0 and data["mismatches"] == 0, err
    fens = [p["fen"] for p in data["positions"]]
    assert fens == random_positions(12, 5) and len(set(fens)) == 12
    assert fens != random_positions(12, 6)
    for p in data["positions"]:
        want = chess_perft(chess.Board(p["fen"]), 2)
        assert (p["sw_nodes"], p["hw_nodes"]) == (want, want), p["fen"]


def test_two_workers_same_positions(capsys):
    argv = ["--random", "6", "--depth", "1", "--backend", "gen", "--seed", "2"]
    _, one, _ = compare_json(argv + ["-j", "1"], capsys)
    status, two, err = compare_json(argv + ["-j", "2"], capsys)
    assert status == 0, err
    assert two["positions"] == one["positions"]


class DropsOneMove:
    """The compiled generator, losing its last move at one position."""

    def __init__(self, fen: str):
        self.inner, self.fen, self.dropped = make_driver("cxxrtl"), fen, None

    def generate(self, board):
        result = self.inner.generate(board)
        if board.fen() == self.fen:
            self.dropped = board.uci(result.moves.pop())
        return result

    def close(self):
        self.inner.close()


def test_first_mismatch_named(capsys, monkeypatch):
    fens = random_positions(6, 9)
    faulty = DropsOneMove(fens[3])
    monkeypatch.setattr(hwperft, "worker_driver", lambda *a, **k: faulty)
    status = main(["compare", "--quiet", "--random", "6", "--depth", "2", "--backend", "gen",
                   "--seed", "9", "-j", "1"])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "match    NO: 1 of 6 positions differ; the first, position 3:" in out, out
    lines = out.splitlines()
    mismatch = next(line for line in lines if line.startswith("  MISMATCH"))
    assert f"FEN {fens[3]}" in mismatch and f"missing from hw: {faulty.dropped}" in mismatch, out
