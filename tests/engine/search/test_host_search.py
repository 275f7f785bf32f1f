"""The host's search over a leaf searcher: with the reference below it is the reference searched
from the root, whatever the split; deterministic; its jobs are what the leaf interface says."""

import chess
import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.positions import BY_NAME
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.engine.search.leaf_search import CHIP_RULES, MAX_EXTENSIONS, LeafSearch, Rules
from posdata.engine.search.searcher import INFINITY

#: small trees of the search bench's positions (bench/search.py)
POSITIONS = [BY_NAME["initial"].fen, BY_NAME["position3"].fen,
             "8/5pk1/6p1/3R4/r7/6P1/5PK1/8 w - - 0 40",
             "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQK2R b KQkq - 0 5"]


class CheckingLeaf:
    """The reference as a leaf searcher, checking each job against the interface's contract."""

    def __init__(self, chip_depth: int, root, rules=CHIP_RULES):
        self.inner, self.chip_depth, self.root = ReferenceLeaf(rules=rules), chip_depth, root
        self.jobs = []

    def search(self, board, alpha, beta, depth, ply, extensions=0):
        assert -INFINITY <= alpha < beta <= INFINITY
        assert 0 <= depth <= self.chip_depth
        assert ply == board.ply - self.root  # plies below the search's root
        assert 0 <= extensions <= min(ply, MAX_EXTENSIONS)
        fen = board.fen()
        result = self.inner.search(board, alpha, beta, depth, ply, extensions)
        assert board.fen() == fen and alpha <= result.score <= beta
        self.jobs.append((fen, alpha, beta, depth, ply, extensions))
        return result


def host(fen: str, depth: int, chip_depth: int, rules=CHIP_RULES):
    board = Board(fen)
    leaf = CheckingLeaf(chip_depth, board.ply, rules)
    result = HostSearch(board, leaf, chip_depth, rules).search(depth)
    assert board.fen() == fen
    return result, leaf


SPLITS = [(1, 0), (2, 0), (2, 1), (3, 1), (3, 2), (2, 2), (1, 2)]


@pytest.mark.parametrize("fen,depth,chip_depth",
                         [(fen, d, c) for fen in POSITIONS for d, c in SPLITS
                          if d < 3 or fen != POSITIONS[3]])
def test_the_split_does_not_change_the_search(fen, depth, chip_depth):
    """Score, best move and nodes of the host over the reference equal the reference's own
    search of the root to the same depth, but for the killers: each job keeps its own (as a
    thread does), the host its, so with them the nodes differ (score and best move do not)."""
    result, leaf = host(fen, depth, chip_depth)
    ref = LeafSearch(Board(fen)).run(-INFINITY, INFINITY, depth)
    assert (result.score, result.best_move) == (ref.score, ref.best_move), (fen, depth)
    rules = Rules(killers=False)
    result, leaf = host(fen, depth, chip_depth, rules)
    ref = LeafSearch(Board(fen), rules=rules).run(-INFINITY, INFINITY, depth)
    assert (result.score, result.best_move, result.nodes) == \
        (ref.score, ref.best_move, ref.nodes), (fen, depth, chip_depth)
    assert result.nodes == result.host_nodes + result.leaf_nodes
    assert result.jobs == len(leaf.jobs) >= 1
    assert result.leaf_clocks is None  # the reference has no clocks
    if depth <= chip_depth:
        assert result.jobs == 1 and result.host_nodes == 0


def test_deterministic_and_the_pv_is_legal():
    fen = POSITIONS[3]
    first, leaf1 = host(fen, 3, 2)
    second, leaf2 = host(fen, 3, 2)
    assert first == second and leaf1.jobs == leaf2.jobs
    board = chess.Board(fen)
    assert first.pv and first.pv[0] == first.best_move
    for m in first.pv:
        move = chess.Move.from_uci(move_uci(m))
        assert move in board.legal_moves, first.pv
        board.push(move)


def test_iterative_deepening_ends_on_the_full_search():
    fen = POSITIONS[2]
    board = Board(fen)
    seen = []
    result = HostSearch(board, ReferenceLeaf(), 1).think(3, seen.append)
    assert [r.depth for r in seen] == [1, 2, 3] and result is seen[-1]
    assert result.score == LeafSearch(Board(fen)).run(-INFINITY, INFINITY, 3).score


def test_chip_depth_is_checked():
    with pytest.raises(ValueError):
        HostSearch(Board(), ReferenceLeaf(), 9)


@pytest.mark.slow
@pytest.mark.parametrize("chip_depth", [1, 2, 3])
def test_the_bench_positions_at_depth_four(chip_depth):
    for fen in POSITIONS:
        result, _ = host(fen, 4, chip_depth)
        ref = LeafSearch(Board(fen)).run(-INFINITY, INFINITY, 4)
        assert (result.score, result.best_move, result.nodes) == \
            (ref.score, ref.best_move, ref.nodes), fen
