"""Chess programmers' perft conventions, line by line against python-chess's counts: UCI
``go perft N`` in Stockfish's format, and ``posdata perftree`` in the perftree debugger's."""

import io

import chess
import pytest

from posdata.engine.rules.positions import BY_NAME
from posdata.engine.uci.protocol import UciEngine
from posdata.sim.cli import main


def oracle_divide(fen, moves, depth):
    board = chess.Board(fen)
    for m in moves:
        board.push_uci(m)

    def count(b, d):
        if d == 0:
            return 1
        total = 0
        for m in b.legal_moves:
            b.push(m)
            total += count(b, d - 1)
            b.pop()
        return total
    out = {}
    for m in board.legal_moves:
        board.push(m)
        out[m.uci()] = count(board, depth - 1)
        board.pop()
    return out


def uci_lines(commands):
    out = io.StringIO()
    engine = UciEngine(out=out)
    for line in commands:
        engine.handle(line)
    assert engine.wait(timeout=60)  # go perft counts on the engine's worker thread
    return out.getvalue().splitlines()


@pytest.mark.parametrize("name, moves, depth", [("initial", [], 3), ("kiwipete", [], 2),
                                                ("position3", ["b4b1"], 2)])
def test_go_perft_is_stockfish_format(name, moves, depth):
    fen = BY_NAME[name].fen
    position = f"position fen {fen}" + (f" moves {' '.join(moves)}" if moves else "")
    lines = uci_lines([position, f"go perft {depth}"])
    expected = oracle_divide(fen, moves, depth)
    n = len(expected)
    body = dict(line.split(": ") for line in lines[:n])
    assert body == {m: str(c) for m, c in expected.items()}
    assert all(": " in line for line in lines[:n])
    assert lines[n:] == ["", f"Nodes searched: {sum(expected.values())}", ""]


def test_go_perft_bad_depth_is_an_info_string():
    assert uci_lines(["go perft", "go perft x"]) == [
        "info string go perft needs a depth from 1 to 12, not nothing",
        "info string go perft needs a depth from 1 to 12, not x"]


def test_perftree_format(capsys):
    fen = BY_NAME["kiwipete"].fen
    assert main(["perftree", "2", fen, "e1g1 a8b8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    expected = oracle_divide(fen, ["e1g1", "a8b8"], 2)
    n = len(expected)
    assert dict(line.split(" ") for line in lines[:n]) == {m: str(c) for m, c in expected.items()}
    assert lines[n:] == ["", str(sum(expected.values()))]


def test_perftree_bad_move_is_one_line(capsys):
    assert main(["perftree", "1", BY_NAME["initial"].fen, "e2e5"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
