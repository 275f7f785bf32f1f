"""compare --random on --target board: the board's own PERFT (its compiled model behind a
pseudo-terminal, through pyserial) counts each random position; one port serves the whole
campaign. The counts are held to python-chess's."""

import json

import chess

from posdata.sim.cli import main
from tests.sim.cli.test_board_cli import pty_board
from tests.sim.runs.test_compare_random import chess_perft


def test_random_campaign_on_the_board(capsys):
    with pty_board() as port:
        status = main(["compare", "--random", "3", "--depth", "2", "--bulk", "--backend", "hw",
                       "--seed", "4", "--target", "board", "--port", port, "--json", "--quiet"])
    out, err = capsys.readouterr()
    assert status == 0, err
    data = json.loads(out)
    assert data["sim"].startswith("board on ") and data["mismatches"] == 0
    for p in data["positions"]:
        want = chess_perft(chess.Board(p["fen"]), 2)
        assert (p["sw_nodes"], p["hw_nodes"]) == (want, want), p["fen"]
