"""The compiled CXXRTL model against Amaranth's simulator: identical move sequences and cycle
counts, including across long runs of incremental board updates."""

import os
import random
import subprocess
import sys

import pytest

from posdata.engine.board import Board
from posdata.engine.defs import move_uci
from posdata.engine.positions import STANDARD_POSITIONS
from posdata.sim.compare import describe_difference
from posdata.sim.cxxrtl_driver import CxxrtlGenerator, ToolchainError, build_library
from posdata.sim.model import predict
from posdata.sim.pysim_driver import PysimGenerator

from .hw_positions import random_positions


@pytest.fixture(scope="module")
def pair():
    return CxxrtlGenerator(), PysimGenerator()


def same(pair, board):
    compiled, golden = pair
    a, b = compiled.generate(board), golden.generate(board)
    fen = board.fen()
    assert a.moves == b.moves, describe_difference(fen, a.moves, b.moves, "cxxrtl", "pysim")
    assert a.cycles == b.cycles, f"{fen}: cxxrtl {a.cycles} cycles, pysim {b.cycles}"
    assert a.writes == b.writes
    return a


def test_standard_positions(pair):
    for pos in STANDARD_POSITIONS:
        board = Board(pos.fen)
        result = same(pair, board)
        assert result.moves == board.moves()
        assert result.cycles == predict(board).cycles


def test_random_positions(pair):
    for fen in random_positions(120, seed=11):
        same(pair, Board(fen))


def test_long_games_of_incremental_updates(pair):
    """Both drivers follow the same games move by move, so each load writes only the squares
    the last move changed; a board the gateware holds wrongly would show within a few moves."""
    rng = random.Random(3)
    for pos in STANDARD_POSITIONS[:4]:
        board = Board(pos.fen)
        for _ in range(60):
            same(pair, board)
            legal = board.legal_moves()
            if not legal:
                break
            board.push_uci(move_uci(rng.choice(legal)))
        # and back again by takebacks: the other direction of every update
        while board.hist:
            board.takeback()
            same(pair, board)


def test_missing_compiler_is_one_clear_error(tmp_path):
    env = dict(os.environ, POSDATA_CACHE=str(tmp_path), CXX="", PATH=str(tmp_path))
    code = ("from posdata.sim.cxxrtl_driver import build_library, ToolchainError\n"
            "try:\n    build_library()\nexcept ToolchainError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert "no C++ compiler found" in out.stdout, out.stdout + out.stderr


def test_cli_reports_missing_compiler_in_one_line(tmp_path):
    env = dict(os.environ, POSDATA_CACHE=str(tmp_path), CXX="", PATH=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "posdata.sim", "perft", "--backend", "hw",
                          "--depth", "1", "-j", "1"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2
    lines = [line for line in out.stderr.splitlines() if not line.startswith("posdata: compiling")]
    assert len(lines) == 1 and "no C++ compiler found" in lines[0], out.stderr


def test_library_is_cached():
    assert build_library() == build_library()
    assert isinstance(ToolchainError("x"), RuntimeError)
