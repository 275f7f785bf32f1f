"""The compiled CXXRTL model against Amaranth's simulator: identical move sequences and cycle
counts, including across long runs of incremental board updates."""

import json
import os
import random
import shutil
import subprocess
import sys

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import MAX_MOVES, move_uci
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.sim.drivers.gen_cxxrtl import CxxrtlGenerator
from posdata.sim.drivers.gen_pysim import PysimGenerator
from posdata.sim.drivers.interface import MoveOverflowError
from posdata.sim.models.cache import ModelCache, intact
from posdata.sim.models.cxxrtl import build_library, sources_key
from posdata.sim.models.toolchain import ToolchainError
from posdata.sim.views.difference import describe_difference
from tests.hw_positions import random_positions


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
    code = ("from posdata.sim.models.cxxrtl import build_library\n"
            "from posdata.sim.models.toolchain import ToolchainError\n"
            "try:\n    build_library()\nexcept ToolchainError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)  # a hang guard: idle ~1 s
    assert "no C++ compiler found" in out.stdout, out.stdout + out.stderr


def test_cli_reports_missing_compiler_in_one_line(tmp_path):
    env = dict(os.environ, POSDATA_CACHE=str(tmp_path), CXX="", PATH=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "posdata.sim", "perft", "--backend", "hw",
                          "--depth", "1", "-j", "1"], env=env, capture_output=True, text=True,
                         timeout=120)  # a hang guard: idle ~3 s
    assert out.returncode == 2
    lines = [line for line in out.stderr.splitlines() if not line.startswith("posdata: compiling")]
    assert len(lines) == 1 and "no C++ compiler found" in lines[0], out.stderr


def test_library_is_cached():
    assert build_library() == build_library()
    assert isinstance(ToolchainError("x"), RuntimeError)


def test_many_moves_fit_the_buffer(pair):
    """24 queens: 271 moves, the most a search over dense positions found (any position's fit
    in engine.rules.defs.MAX_MOVES, by a counting argument). More material than a game reaches, so
    the FEN's material check is waived."""
    result = same(pair, Board("QQQQQQBk/Q5RB/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1",
                              check_material=False))
    assert len(result.moves) == 271


def test_more_moves_than_the_buffer_is_an_error():
    """The entry point counts every move but stores only what fits: a list that does not fit
    is refused, not cut short."""
    board = Board()
    with CxxrtlGenerator(library=build_library(), capacity=19) as small:
        with pytest.raises(MoveOverflowError, match=f"reported 20 moves .* than the 19 the move "
                                                    f"buffer holds .* fit in {MAX_MOVES}"):
            small.generate(board)
    with CxxrtlGenerator(library=build_library(), capacity=20) as exact:
        assert exact.generate(board).moves == board.moves()


@pytest.fixture(scope="module")
def private_cache(tmp_path_factory):
    """A cache of its own holding a copy of the built model (and its index entry), so tests may
    damage it: copied rather than built, which saves a compile."""
    library = build_library()
    root = tmp_path_factory.mktemp("posdata-cache")
    cache = ModelCache("cxxrtl", str(root))
    entry = os.path.basename(os.path.dirname(library))
    shutil.copytree(os.path.dirname(library), os.path.join(cache.dir, entry))
    copy = os.path.join(cache.dir, entry, os.path.basename(library))
    cache.remember(sources_key(), copy)
    assert cache.lookup(sources_key()) == copy  # the copy is found where it now lives
    return root, copy


def test_truncated_library_is_rebuilt_not_loaded(private_cache):
    """A cut-short library (a full disk, an interrupted copy) used to be mapped and crash the
    process with SIGBUS; its digest no longer matches, so it is rebuilt."""
    root, library = private_cache
    with open(library, "r+b") as f:
        f.truncate(os.path.getsize(library) // 3)
    assert not intact(library)
    env = dict(os.environ, POSDATA_CACHE=str(root))
    out = subprocess.run([sys.executable, "-m", "posdata.sim", "perft", "--backend", "gen",
                          "--check", "--depth", "2", "-j", "1", "--json", "--quiet"], env=env,
                         capture_output=True, text=True,
                         timeout=600)  # a hang guard: idle the rebuild takes ~4 s
    assert out.returncode == 0, out.stderr
    assert "posdata: compiling the CXXRTL model" in out.stderr  # rebuilt, not trusted
    report = json.loads(out.stdout)
    assert (report["nodes"], report["sw_nodes"], report["match"]) == (400, 400, True)
    assert intact(library)
