"""FEN in Fairy-Stockfish's notation for the variants with modes: en passant fields of two
squares (a pawn defined in the notation), makruk's count in the en passant and halfmove fields;
read back exactly, checked against pyffish, and bad ones refused in one line."""

import pyffish
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.fen import FenError


@pytest.mark.parametrize("name, fen, move", [
    ("berolina", "4k3/8/8/8/1Pp5/8/8/4K3 b - c3b4 0 1", "c4c3"),
    ("pawnsideways", "4k3/8/8/2pP4/8/8/8/4K3 w - c5c6 0 2", "d5c6"),
    ("makruk", "4k3/8/8/8/8/8/8/R3K3 b - 16 10 50", "e8d7"),
    ("makruk", "4k3/8/8/8/8/8/8/R3K3 w - 16 40 50", "a1b1"),
    ("makruk", "4k3/3s4/8/8/8/8/8/R3K3 w - - 7 30", "a1a7"),
    ("makruk", "4k3/8/3r4/8/8/3M4/8/4K3 b - - 3 30", "d6d3"),
])
def test_fen_round_trip_and_the_move_as_fairy_stockfish(name, fen, move):
    board = Board(fen, name)
    assert board.fen() == fen
    board.push_uci(move)
    assert board.fen() == pyffish.get_fen(name, fen, [move])


def test_makruk_s_count_goes_on_and_survives_takeback():
    fen = "4k3/8/8/8/8/8/8/R3K3 b - 16 10 50"
    board = Board(fen, "makruk")
    moves = []
    for _ in range(4):
        m = board.legal_moves()[0]
        moves.append(board.uci(m))
        board.makemove(m)
    assert board.fen() == pyffish.get_fen("makruk", fen, moves)
    for _ in range(4):
        board.takeback()
    assert board.fen() == fen


@pytest.mark.parametrize("name, fen, words", [
    ("berolina", "4k3/8/8/8/1Pp5/8/8/4K3 b - c3b5 0 1", "must name one empty square"),
    ("berolina", "4k3/8/8/8/2p5/8/8/4K3 b - c3 0 1", "names no one white pawn"),
    ("berolina", "4k3/8/8/8/1Pp5/8/8/4K3 b - c3b4c5 0 1", "not one square or two"),
    ("berolina", "4k3/8/8/8/1Pp5/8/8/4K3 b - z9 0 1", "not one square or two"),
    ("berolina", "4k3/8/8/8/1Pp5/8/8/4K3 w - c3b4 0 1", "on rank 6"),
    ("chess", "4k3/8/8/8/1Pp5/8/8/4K3 b - c3b4 0 1", "not a square"),
    ("makruk", "4k3/8/8/8/8/8/8/R3K3 b - 0 10 50", "counting limit"),
])
def test_bad_fields_are_refused_in_one_line(name, fen, words):
    with pytest.raises(FenError) as info:
        Board(fen, name)
    assert words in str(info.value) and "\n" not in str(info.value), str(info.value)
