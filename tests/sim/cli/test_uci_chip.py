"""posdata uci with Backend hw, the search thread's compiled model below the host's search, as
a GUI drives it (python-chess's engine client over a pipe): every move is the reference's
(HostSearch over ReferenceLeaf at the same depths), go movetime and stop end with a legal move,
quit ends the process. A full game is in make test-slow."""

import subprocess
import sys
import time

import chess
import chess.engine
import pytest

from posdata.engine.board import Board
from posdata.engine.host_search import HostSearch, ReferenceLeaf

DEPTH, CHIP_DEPTH = 2, 1


@pytest.fixture(scope="module")
def engine():
    uci = chess.engine.SimpleEngine.popen_uci(
        [sys.executable, "-m", "posdata.sim", "uci"], timeout=300)  # a cold cache compiles
    uci.configure({"Backend": "hw", "ChipDepth": CHIP_DEPTH})
    yield uci
    uci.quit()


def reference_move(fen: str) -> str:
    board = Board(fen)
    return board.uci(HostSearch(board, ReferenceLeaf(), CHIP_DEPTH).search(DEPTH).best_move)


def play(engine, plies: int) -> chess.Board:
    """The chip against itself from the start, each move held to the reference's."""
    board = chess.Board()
    while not board.is_game_over(claim_draw=True) and board.ply() < plies:
        fen = board.fen()
        result = engine.play(board, chess.engine.Limit(depth=DEPTH))
        assert result.move.uci() == reference_move(fen), f"{fen}: the chip played {result.move}"
        board.push(result.move)
    return board


def test_the_chip_plays_the_reference_moves(engine):
    play(engine, 8)


def test_movetime_and_stop(engine):
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    t = time.monotonic()
    result = engine.play(board, chess.engine.Limit(time=0.3))
    assert time.monotonic() - t < 3 and result.move in board.legal_moves
    with engine.analysis(board) as analysis:  # go infinite, then stop
        time.sleep(0.3)
        analysis.stop()
        best = analysis.wait().move
    assert best in board.legal_moves


def test_quit_ends_the_process():
    proc = subprocess.Popen([sys.executable, "-m", "posdata.sim", "uci"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate("setoption name Backend value hw\nposition startpos\n"
                              "go infinite\nquit\n", timeout=300)
    assert proc.returncode == 0 and "info string" not in out


@pytest.mark.slow
def test_a_full_game(engine):
    board = play(engine, 400)
    assert board.is_game_over(claim_draw=True) or board.ply() >= 400
