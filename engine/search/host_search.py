"""The host's search above the chip: full-width plies on the host, the last ``chip_depth`` plies
and the quiescence search on a leaf searcher (docs/chip_search.md, "The split").

The host's nodes are the reference's full-width nodes (``leaf_search.LeafSearch.full``: the same
move order, fail-hard, mate and stalemate scores); a child with ``chip_depth`` plies or fewer to
go is a job, handed with its window, remaining depth and ply to a ``LeafSearcher``: the reference
(``ReferenceLeaf``) or, later, the chip's driver. The tree is the same however it is split, so
with the reference below, the host's search of depth n returns what the reference returns for
the root searched to depth n, node for node.

The existing ``engine.search.searcher.Searcher`` (history, PV ordering, check extension, eval.py's
full evaluation) and its bench signature are a different search and stay as they are. """

from dataclasses import dataclass
from typing import Protocol

from .leaf_search import CHIP_RULES, MAX_JOB_DEPTH, LeafResult, LeafSearch, LeafStats, Rules
from .searcher import INFINITY

DEFAULT_CHIP_DEPTH = 2  #: the host hands a node to the leaf searcher at 2 plies to go


class LeafSearcher(Protocol):
    """What searches a job below the split: the reference or the chip."""

    def search(self, board, alpha: int, beta: int, depth: int, ply: int,
               extensions: int = 0) -> LeafResult:
        """Search ``board``'s position (the side to move's view) with the fail-hard window
        (alpha, beta), ``depth`` full-width plies (0 .. MAX_JOB_DEPTH), the position ``ply``
        plies below the search's root (mate scores count from there) with ``extensions`` check
        extensions made above it on its line; the board's history since the last irreversible
        move is the job's repetition history. Return the score within [alpha, beta], the best
        move at the job's root (None if no move set the score) and the job's nodes (``clocks``
        too, from the chip). Leave the board as given."""
        ...


class ReferenceLeaf:
    """The reference search as a leaf searcher; ``stats`` sums its jobs' tree counts."""

    def __init__(self, movegen=None, rules: Rules = CHIP_RULES):
        self.movegen, self.rules = movegen, rules
        self.stats = LeafStats()

    def search(self, board, alpha: int, beta: int, depth: int, ply: int,
               extensions: int = 0) -> LeafResult:
        result = LeafSearch(board, self.movegen, self.rules).run(alpha, beta, depth, ply,
                                                                 extensions)
        self.stats.add(result.stats)
        return result


@dataclass
class HostResult:
    score: int
    best_move: int | None
    pv: list[int]
    nodes: int           #: the host's nodes and the jobs' nodes
    host_nodes: int
    leaf_nodes: int
    jobs: int
    leaf_clocks: int | None  #: the jobs' clocks summed (None when the leaf searcher has none)
    depth: int


class HostSearch(LeafSearch):
    """``search(depth)`` of ``board`` with ``leaf`` below ``chip_depth``. The host's own nodes
    are counted in ``stats`` (full-width nodes only). Given the previous iteration's PV, each
    host node on it tries the PV's move first."""

    def __init__(self, board, leaf: LeafSearcher, chip_depth: int = DEFAULT_CHIP_DEPTH,
                 rules: Rules = CHIP_RULES):
        super().__init__(board, rules=rules)
        if not 0 <= chip_depth <= MAX_JOB_DEPTH:
            raise ValueError(f"chip depth {chip_depth} outside 0 .. {MAX_JOB_DEPTH}")
        self.leaf, self.chip_depth = leaf, chip_depth
        self.pv: dict[int, list[int]] = {}  # per ply below the root: the line from there
        self.prev_pv: list[int] = []
        self.following = False  # the nodes entered so far lie on prev_pv

    def search(self, depth: int, alpha: int = -INFINITY, beta: int = INFINITY,
               prev_pv=(), ply: int = 0) -> HostResult:
        """One search of ``depth`` plies from the board's position with (alpha, beta);
        ``prev_pv``: the previous iteration's line, its moves tried first; ``ply``: the
        position's distance from the search's root (mates, draws and the contempt's side count
        from there, so a child searched with ``ply=1`` scores as its parent's search does)."""
        self.stats = LeafStats()
        self.root, self.root_ply, self.best_move = self.board.ply, ply, None
        self.extensions, self.maybe_check, self.settled = 0, True, False
        self.killers = {}
        self.leaf_nodes, self.jobs, self.clocks = 0, 0, 0
        self.pv = {}
        self.prev_pv, self.following = list(prev_pv), bool(prev_pv)
        if depth <= self.chip_depth:  # the whole search is one job
            score = self.job(alpha, beta, depth)
            self.best_move = self.pv[0][0] if self.pv[0] else None
        else:
            score = self.node(alpha, beta, depth)
        host = self.stats.full
        return HostResult(score, self.best_move, self.pv.get(0, []), host + self.leaf_nodes,
                          host, self.leaf_nodes, self.jobs, self.clocks, depth)

    def think(self, depth: int, on_iteration=None) -> HostResult:
        """Iterative deepening, 1 .. ``depth``, each iteration on the last one's PV;
        ``on_iteration(HostResult)`` after each."""
        result = None
        for d in range(1, depth + 1):
            result = self.search(d, prev_pv=result.pv if result is not None else ())
            if on_iteration is not None:
                on_iteration(result)
        return result

    # --- the reference's full-width node, with jobs below the split ---------------------------

    def full(self, alpha: int, beta: int, depth: int) -> int:
        self.pv[self.board.ply - self.root] = []
        return super().full(alpha, beta, depth)

    def enter(self, alpha: int, beta: int, depth: int) -> int:
        if depth <= self.chip_depth:
            return self.job(alpha, beta, depth)
        return self.node(alpha, beta, depth)

    def job(self, alpha: int, beta: int, depth: int) -> int:
        result = self.leaf.search(self.board, alpha, beta, depth, self.ply(), self.extensions)
        self.jobs += 1
        self.leaf_nodes += result.nodes
        self.settled = False
        if self.clocks is not None:
            self.clocks = None if result.clocks is None else self.clocks + result.clocks
        self.pv[self.board.ply - self.root] = [] if result.best_move is None \
            else [result.best_move]
        return result.score

    def first_move(self) -> int | None:
        here = self.board.ply - self.root
        if self.following and here < len(self.prev_pv):
            return self.prev_pv[here]
        self.following = False
        return None

    def left_pv(self) -> None:
        self.following = False

    def note_best(self, m: int) -> None:
        here = self.board.ply - self.root
        self.pv[here] = [m] + self.pv.get(here + 1, [])
        if here == 0:
            self.best_move = m
