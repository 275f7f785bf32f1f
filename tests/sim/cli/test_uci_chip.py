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

from posdata.engine.rules.board import Board
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from tests.hang_guard import guarded

DEPTH, CHIP_DEPTH = 2, 1


@pytest.fixture(scope="module")
def engine():
    # timeout: python-chess's hang guard on each command but play and analysis, long for a
    # cold cache's compile (idle, warm: ~1 s)
    uci = chess.engine.SimpleEngine.popen_uci(
        [sys.executable, "-m", "posdata.sim", "uci"], timeout=300)
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
    result = guarded(lambda: engine.play(board, chess.engine.Limit(time=0.3)), 60,
                     "go movetime 300")  # a hang guard
    # Idle 0.3 s (0.6 s for a fresh engine's first go), as punctual under load: the deadline
    # is the wall clock's, and a running job is aborted at it. Ten times that catches a clock
    # far longer than asked; one ignored never answers (the guard).
    assert time.monotonic() - t < 6 and result.move in board.legal_moves
    with engine.analysis(board) as analysis:  # go infinite, then stop
        time.sleep(0.3)  # into the search (it holds wherever the stop lands)
        analysis.stop()
        # a hang guard: idle the bestmove follows the stop within milliseconds
        best = guarded(lambda: analysis.wait().move, 30, "the bestmove after stop")
    assert best in board.legal_moves


def test_quit_ends_the_process():
    proc = subprocess.Popen([sys.executable, "-m", "posdata.sim", "uci"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    # timeout: a hang guard (a cold cache compiles the model first; idle and warm, ~0.5 s)
    out, _ = proc.communicate("setoption name Backend value hw\nposition startpos\n"
                              "go infinite\nquit\n", timeout=300)
    assert proc.returncode == 0 and "info string" not in out


@pytest.mark.slow
def test_a_full_game(engine):
    board = play(engine, 400)
    assert board.is_game_over(claim_draw=True) or board.ply() >= 400
