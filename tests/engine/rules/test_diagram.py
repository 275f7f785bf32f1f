"""UCI's ``d`` (engine.rules.diagram) against python-chess: the checkers are python-chess's
``Board.checkers()`` on positions in and out of check, the drawing's squares its pieces, the key
the board's hash."""

import chess
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.diagram import checkers, diagram
from posdata.engine.rules.perft import tree_fens
from posdata.engine.rules.positions import STANDARD_POSITIONS

#: every 25th node of the standard positions' perft(3) trees; positions with one and two checkers
FENS = sorted({f for p in STANDARD_POSITIONS for f in tree_fens(p.fen, 3)})[::25] + [
    "4k3/8/8/8/1b6/8/8/4K2r w - - 0 1",         # a bishop and a rook
    "4k3/8/8/8/8/3n4/8/4K3 w - - 0 1",          # a knight
    "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1",          # a pawn
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",  # mate
]


@pytest.mark.parametrize("fen", FENS)
def test_checkers_are_python_chess_checkers(fen):
    assert checkers(Board(fen)) == sorted(chess.Board(fen).checkers())


def test_enough_positions_are_in_check():
    """The comparison above can fail: positions in check (two with two checkers) are among
    them."""
    counts = [len(chess.Board(f).checkers()) for f in FENS]
    assert sum(c > 0 for c in counts) >= 5 and counts.count(2) >= 1


@pytest.mark.parametrize("fen", FENS[::10])
def test_the_drawing_is_the_position(fen):
    lines = diagram(Board(fen))
    ours = chess.Board(fen)
    rows = [line for line in lines if line.startswith(" | ")]
    assert len(rows) == 8
    for i, row in enumerate(rows):
        rank = 7 - i
        cells = row.split("|")[1:9]
        for file, cell in enumerate(cells):
            piece = ours.piece_at(chess.square(file, rank))
            assert cell.strip() == (piece.symbol() if piece else ""), (fen, file, rank)
        assert row.endswith(f"| {rank + 1}")
    assert f"Fen: {fen}" in lines
    assert f"Key: {Board(fen).hash:016X}" in lines
    assert lines[-1].startswith("Checkers:")
