"""The search thread held to the reference (engine/leaf_search.py): one job, or the host's search
with the thread below the split (what ``posdata search --backend both`` is to run). On a
difference, the first differing node: the job's children re-run as jobs with the windows the
reference gave them, down to the deepest job that differs while its children agree (a
quiescence root, depth 0, is as deep as jobs go).
"""

from dataclasses import dataclass

from posdata.engine.board import Board
from posdata.engine.defs import move_uci
from posdata.engine.host_search import HostSearch, ReferenceLeaf
from posdata.engine.leaf_search import LeafResult, LeafSearch, leaf_search


class _Recording(LeafSearch):
    """The reference, noting the root's children: (move, child window, child depth)."""

    def run(self, alpha, beta, depth, ply=0):
        self.children = []
        return super().run(alpha, beta, depth, ply)

    def child(self, m, alpha, beta, depth):
        if self.board.ply == self.root and depth >= 0:
            self.children.append((m, -beta, -alpha, depth))
        return super().child(m, alpha, beta, depth)


def same(a: LeafResult, b: LeafResult) -> bool:
    return (a.score, a.best_move, a.nodes) == (b.score, b.best_move, b.nodes)


def describe(fen, alpha, beta, depth, ply, got, want) -> str:
    return (f"{fen} window ({alpha}, {beta}) depth {depth} ply {ply}: chip score {got.score} "
            f"best {got.best_move} nodes {got.nodes}; reference {want.score} {want.best_move} "
            f"{want.nodes}")


def first_difference(leaf, fen: str, alpha: int, beta: int, depth: int, ply: int = 0
                     ) -> str | None:
    """None if ``leaf`` (a ``host_search.LeafSearcher``) agrees with the reference on the job,
    else a line naming the job's first differing node and the moves that lead there."""
    got = leaf.search(Board(fen), alpha, beta, depth, ply)
    want = leaf_search(Board(fen), alpha, beta, depth, ply)
    if same(got, want):
        return None
    line = describe(fen, alpha, beta, depth, ply, got, want)
    if depth == 0:
        return line
    rec = _Recording(Board(fen))
    rec.run(alpha, beta, depth, ply)
    for m, a, b, d in rec.children:
        board = Board(fen)
        board.makemove(m)
        deeper = first_difference(leaf, board.fen(), a, b, d, ply + 1)
        if deeper:
            return f"{deeper}\n  below {move_uci(m)} of {line}"
    return line


class BothLeaf:
    """A leaf searcher that runs each job on ``leaf`` and on the reference, hands the host the
    reference's result (so the host's tree is the reference's) and keeps the first difference."""

    def __init__(self, leaf):
        self.leaf, self.reference = leaf, ReferenceLeaf()
        self.difference: str | None = None
        self.nodes = self.clocks = 0

    def search(self, board, alpha, beta, depth, ply) -> LeafResult:
        got = self.leaf.search(board, alpha, beta, depth, ply)
        want = self.reference.search(board, alpha, beta, depth, ply)
        self.nodes += got.nodes
        self.clocks += got.clocks or 0
        if self.difference is None and not same(got, want):
            self.difference = first_difference(self.leaf, board.fen(), alpha, beta, depth, ply)
        return want


@dataclass
class SearchCheck:
    score: int
    bestmove: int | None
    pv: list[int]
    nodes: int
    hw_nodes: int
    hw_cycles: int
    difference: str | None

    @property
    def match(self) -> bool:
        return self.difference is None

    @property
    def clocks_per_node(self) -> float | None:
        return self.hw_cycles / self.hw_nodes if self.hw_nodes else None


def check_search(leaf, board, depth: int, chip_depth: int) -> SearchCheck:
    """The host's search of ``depth`` on ``board`` with ``leaf`` and the reference below the
    split, job by job; the result is the reference's, with the leaf's nodes and clocks."""
    both = BothLeaf(leaf)
    result = HostSearch(board, both, chip_depth).search(depth)
    return SearchCheck(result.score, result.best_move, result.pv, result.nodes, both.nodes,
                       both.clocks, both.difference)
