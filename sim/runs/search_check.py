"""The search thread held to the reference (engine/search/leaf_search.py): one job, or the host's
search with the thread below the split (what ``posdata search --backend both`` is to run). On a
difference, the first differing node: the job's children re-run as jobs with the windows, depths and
extensions the reference gave them (on the board with its history: repetitions), down to the deepest
job that differs while its children agree (a quiescence root, depth 0, is as deep as jobs go). """

from dataclasses import dataclass

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.engine.search.leaf_search import LeafResult, LeafSearch, leaf_search


class _Recording(LeafSearch):
    """The reference, noting the root's children: (move, child window, child depth, the
    extensions on the line)."""

    def run(self, alpha, beta, depth, ply=0, extensions=0):
        self.children = []
        return super().run(alpha, beta, depth, ply, extensions)

    def child(self, m, alpha, beta, depth):
        if self.board.ply == self.root and depth >= 0:
            self.children.append((m, -beta, -alpha, depth, self.extensions))
        return super().child(m, alpha, beta, depth)


def same(a: LeafResult, b: LeafResult) -> bool:
    return (a.score, a.best_move, a.nodes) == (b.score, b.best_move, b.nodes)


def describe(board, alpha, beta, depth, ply, extensions, got, want) -> str:
    past = f", {len(board.hist)} plies of history (fifty {board.fifty})" if board.hist else ""
    return (f"{board.fen()}{past} window ({alpha}, {beta}) depth {depth} ply {ply} extensions "
            f"{extensions}: chip score {got.score} best {got.best_move} nodes {got.nodes}; "
            f"reference {want.score} {want.best_move} {want.nodes}")


def first_difference(leaf, position, alpha: int, beta: int, depth: int, ply: int = 0,
                     extensions: int = 0) -> str | None:
    """None if ``leaf`` (a ``host_search.LeafSearcher``) agrees with the reference on the job,
    else a line naming the job's first differing node and the moves that lead there.
    ``position``: a FEN, or a board with its history (left as given)."""
    board = Board(position) if isinstance(position, str) else position.copy()
    got = leaf.search(board.copy(), alpha, beta, depth, ply, extensions)
    want = leaf_search(board.copy(), alpha, beta, depth, ply, extensions)
    if same(got, want):
        return None
    line = describe(board, alpha, beta, depth, ply, extensions, got, want)
    if depth == 0:
        return line
    rec = _Recording(board.copy())
    rec.run(alpha, beta, depth, ply, extensions)
    for m, a, b, d, ext in rec.children:
        child = board.copy()
        child.makemove(m)
        deeper = first_difference(leaf, child, a, b, d, ply + 1, ext)
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

    def search(self, board, alpha, beta, depth, ply, extensions=0) -> LeafResult:
        got = self.leaf.search(board, alpha, beta, depth, ply, extensions)
        want = self.reference.search(board, alpha, beta, depth, ply, extensions)
        self.nodes += got.nodes
        self.clocks += got.clocks or 0
        if self.difference is None and not same(got, want):
            self.difference = first_difference(self.leaf, board, alpha, beta, depth, ply,
                                               extensions)
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
