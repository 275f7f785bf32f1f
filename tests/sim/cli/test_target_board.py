"""--target board: perft's gen backend (every node's moves from the board's GENERATE) and hw
backend (the board's own PERFT) through pyserial, against the board's compiled model behind a
pseudo-terminal."""

import json

from posdata.engine.rules.positions import BY_NAME
from posdata.sim.cli import main
from tests.sim.cli.test_board_cli import pty_board


def run_json(argv, capsys):
    status = main(argv + ["--json", "--quiet"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


def test_perft_on_the_board(capsys):
    fen = BY_NAME["kiwipete"].fen
    with pty_board() as port:
        board = ["--target", "board", "--port", port, "--fen", fen]
        # a generation over the simulated UART takes about a second: keep the tree small
        gen = run_json(["perft", "--backend", "gen", "--depth", "1", *board], capsys)
        hw = run_json(["perft", "--backend", "hw", "--depth", "3", "--bulk", *board], capsys)
    assert gen["nodes"] == BY_NAME["kiwipete"].counts[0] and gen["generator_calls"] == 1
    assert hw["nodes"] == BY_NAME["kiwipete"].counts[2]


def test_board_target_refuses_workers(capsys):
    assert main(["perft", "--backend", "gen", "--target", "board", "--port", "/dev/null",
                 "-j", "2"]) == 2
    assert "one serial port" in capsys.readouterr().err
