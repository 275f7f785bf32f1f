"""sim.runs.search_check finds a leaf searcher's first differing node: a fake leaf that is the
reference but for one node deep in the tree is caught there, with the moves that lead to it."""

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.search.leaf_search import LeafResult, LeafSearch
from posdata.sim.runs.search_check import check_search, first_difference

KIWIPETE = STANDARD_POSITIONS[1].fen


class _Miscounting(LeafSearch):
    """The reference, counting one node too many wherever it enters ``bad``."""

    def __init__(self, board, bad):
        super().__init__(board)
        self.bad = bad

    def node(self, alpha, beta, depth):
        if self.board.fen().split()[0] == self.bad:
            self.stats.quiesce += 1
        return super().node(alpha, beta, depth)


class Faulty:
    """A leaf searcher that miscounts on one position (a FEN's board part)."""

    def __init__(self, bad: str):
        self.bad = bad

    def search(self, board, alpha, beta, depth, ply, extensions=0):
        r = _Miscounting(board, self.bad).run(alpha, beta, depth, ply, extensions)
        return LeafResult(r.score, r.best_move, r.nodes, 7)


class _FirstAtPly(LeafSearch):
    """The reference, noting the first position it enters two plies below its root."""

    def node(self, alpha, beta, depth):
        if self.board.ply - self.root == 2 and not hasattr(self, "found"):
            self.found = self.board.fen()
        return super().node(alpha, beta, depth)


def a_grandchild_fen(fen: str) -> str:
    """A position every search of ``fen`` to depth 2 with the full window enters."""
    search = _FirstAtPly(Board(fen))
    search.run(-30001, 30001, 2)
    return search.found


def test_the_reference_agrees_with_itself():
    assert first_difference(Faulty("none"), KIWIPETE, -30001, 30001, 2) is None
    check = check_search(Faulty("none"), Board(KIWIPETE), 3, 2)
    assert check.match and check.hw_nodes > 0 and check.clocks_per_node


def test_a_difference_descends_to_the_first_differing_node():
    bad = a_grandchild_fen(KIWIPETE)
    line = first_difference(Faulty(bad.split()[0]), KIWIPETE, -30001, 30001, 2)
    assert line is not None
    first = line.splitlines()[0]
    assert first.startswith(bad.split()[0]) and " depth 0 ply 2 " in first, line
    assert line.count("below") == 2  # the two moves from the job's root


def test_the_host_search_reports_the_first_difference():
    bad = a_grandchild_fen(KIWIPETE)
    check = check_search(Faulty(bad.split()[0]), Board(KIWIPETE), 3, 1)
    assert not check.match and bad.split()[0] in check.difference
