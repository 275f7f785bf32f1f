"""UCI plays only searched moves (issue 38, item 6): under ``go nodes`` and ``go movetime`` the
bestmove is the last completed iteration's PV move, or a root move that beat it in the unfinished
iteration. The test reads the engine's info lines and does not trust them: the completed
iteration's PV move is recomputed (the same search to that depth, on its own), and a bestmove
other than it must score more than it one ply deeper, by an exact search of both children (a
full-window alpha-beta, whose value no move order changes).

On every backend: tscp and gen (engine.search.searcher.Searcher on the reference and on the
gateware's generator), sw and hw (the host's search over the reference leaf search and over the
compiled search thread; gen and hw run the same trees as tscp and sw, which other tests hold them
to). ``make test`` takes a few positions and limits; the 30 positions x 20 limits are slow."""

import random

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.engine.search.searcher import Limits, Searcher
from tests.engine.uci.uci_inprocess import Engine
from tests.hw_positions import random_positions

NODES = (1, 10, 100, 300, 1_000, 3_000, 10_000, 30_000, 60_000, 100_000)
MOVETIME = (1, 5, 20, 50, 100, 200, 400, 700, 1_000, 2_000)
CHIP_DEPTH = 2


def positions(count: int) -> list[str]:
    """Positions with legal moves whose side to move is not in check (an exact search of a
    child then starts as the root's own search reaches it)."""
    out = []
    for fen in [p.fen for p in STANDARD_POSITIONS] + random_positions(4 * count, seed=38):
        board = Board(fen)
        if board.legal_moves() and not board.in_check():
            out.append(fen)
    return out[:count]


def leaves():
    def chip():
        from posdata.sim.drivers.search_cxxrtl import SearchModel
        return SearchModel(verbose=False)
    return {"sw": ReferenceLeaf, "hw": chip}


def movegens():
    from posdata.sim.drivers.movegens import movegens_on
    return movegens_on("cxxrtl")


def setup(engine: Engine, backend: str) -> None:
    if backend in ("tscp", "gen"):
        engine.say("setoption name Backend value tscp",
                   f"setoption name MoveGen value {'sw' if backend == 'tscp' else 'hw'}")
    else:
        engine.say(f"setoption name Backend value {backend}",
                   f"setoption name ChipDepth value {CHIP_DEPTH}")
    engine.say("isready")
    engine.expect("readyok", timeout=600)  # a cold cache compiles the model


def search(engine: Engine, fen: str, limit: str) -> tuple[int, str | None, str]:
    """(the last completed depth, its PV's first move, bestmove) as the engine printed them."""
    first = len(engine.lines)
    engine.say("ucinewgame", f"position fen {fen}", f"go {limit}")
    line, _ = engine.expect("bestmove", timeout=120)  # a hang guard: idle at most ~2 s
    depth, pv = 0, None
    for text in engine.lines[first:]:
        words = text.split()
        if words[:2] == ["info", "depth"] and "pv" in words:
            depth, pv = int(words[2]), words[words.index("pv") + 1]
    return depth, pv, line.split()[1]


def iteration_move(backend: str, fen: str, depth: int) -> str:
    """The first move of iteration ``depth``'s PV, recomputed."""
    board = Board(fen)
    if backend in ("tscp", "gen"):
        move = Searcher().think(board, Limits(depth=depth)).pv[0]
    else:
        move = HostSearch(board, ReferenceLeaf(), CHIP_DEPTH).think(depth).pv[0]
    return board.uci(move)


def child_value(backend: str, fen: str, move: str, depth: int) -> int:
    """The root's exact score of ``move`` in an iteration of ``depth + 1``: the child's own
    search to ``depth``, negated (for Searcher mate scores shift by a ply, which keeps their
    order; the chip's search takes the child's ply, for its draws' contempt too)."""
    board = Board(fen)
    board.push_uci(move)
    if backend in ("tscp", "gen"):
        return -Searcher().think(board, Limits(depth=depth)).score
    if depth == 0:
        from posdata.engine.search.leaf_search import LeafSearch
        return -LeafSearch(board).run(-30_001, 30_001, 0, 1).score
    return -HostSearch(board, ReferenceLeaf(), CHIP_DEPTH).search(depth, ply=1).score


def check(backend: str, fens: list[str], limits: list[str]) -> int:
    """Every search's bestmove is searched; returns how many beat the completed PV's move."""
    beaten = 0
    engine = Engine(movegens=movegens(), leaves=leaves())
    try:
        setup(engine, backend)
        for fen in fens:
            for limit in limits:
                depth, pv, best = search(engine, fen, limit)
                where = f"{backend} {fen} go {limit}: bestmove {best}, depth {depth} pv {pv}"
                assert depth >= 1, f"{where}: no completed iteration"
                assert pv == iteration_move(backend, fen, depth), where
                if best != pv:
                    assert child_value(backend, fen, best, depth) > \
                        child_value(backend, fen, pv, depth), f"{where}: it did not beat {pv}"
                    beaten += 1
    finally:
        engine.say("quit")
    return beaten


LIMITS = [f"nodes {n}" for n in NODES] + [f"movetime {t}" for t in MOVETIME]


@pytest.mark.parametrize("backend", ["tscp", "sw"])
def test_searched_moves_only(backend):
    # nodes 30000 stops the initial position in its fourth iteration, where a search without
    # the last PV's move first would play the first generated move
    check(backend, positions(2), ["nodes 1", "nodes 30000", "movetime 1", "movetime 60"])


@pytest.mark.parametrize("backend", ["gen", "hw"])
def test_searched_moves_only_on_the_gateware(backend):
    check(backend, positions(2), ["nodes 1", "nodes 2000", "movetime 30"])


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["tscp", "gen", "sw", "hw"])
def test_searched_moves_only_everywhere(backend):
    limits = list(LIMITS)
    random.Random(backend).shuffle(limits)
    beaten = check(backend, positions(30), limits)
    print(f"{backend}: {beaten} of {30 * len(limits)} bestmoves beat the completed PV's move")
