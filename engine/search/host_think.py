"""The host's search over a leaf searcher as a UCI ``go`` runs it: iterative deepening within
the go's limits, stopped from another thread.

``HostThinker`` has the interface of ``engine.search.searcher.Searcher`` (``think(board, limits,
on_iteration)``, ``stop()``), so the UCI engine runs either. Each iteration is one
``HostSearch`` of the root to that depth with the full window, the previous iteration's PV
tried first at every host ply: the same tree as ``HostSearch.think``, so a completed depth's
score, best move, PV and nodes are those of ``posdata search --backend sw|hw`` at that depth.
The limits are looked at before every host node and every job, and, when the leaf searcher
offers it (``interrupt``, the compiled search thread does), while a job runs: a stop aborts the
job under way. The first iteration always completes, whatever the limits. A search stopped
during an iteration moves as ``Searcher`` does: the last completed iteration's move (the
unfinished iteration tried it first), or a root move that beat it there (raised alpha after
it).

Not supported below the split: ``searchmoves`` (every root move is searched; the UCI engine
says so), variants (the chip plays orthodox chess).
"""

import time

from .host_search import DEFAULT_CHIP_DEPTH, HostSearch
from .searcher import (
    INFINITY,
    MATE,
    MAX_DEPTH,
    Iteration,
    Limits,
    SearchResult,
    SearchStopped,
    is_mate_score,
)


class _Limited(HostSearch):
    """A HostSearch that asks ``check(nodes)`` before each host node and each job."""

    def __init__(self, board, leaf, chip_depth, check):
        super().__init__(board, leaf, chip_depth)
        self.check = check

    def nodes_so_far(self) -> int:
        return self.stats.full + self.leaf_nodes

    def full(self, alpha: int, beta: int, depth: int) -> int:
        self.check(self.nodes_so_far())
        return super().full(alpha, beta, depth)

    def job(self, alpha: int, beta: int, depth: int) -> int:
        self.check(self.nodes_so_far())
        return super().job(alpha, beta, depth)


class HostThinker:
    """``think`` a position with ``leaf`` below ``chip_depth`` plies to go. Use one per search
    (a stop that arrives before ``think`` starts is kept, as in ``Searcher``)."""

    def __init__(self, leaf, chip_depth: int = DEFAULT_CHIP_DEPTH):
        self.leaf, self.chip_depth = leaf, chip_depth
        self.stop_requested = False
        self.deadline = None
        self.node_limit = None
        self.done_nodes = 0  #: the nodes of the iterations before the one under way
        self.first_iteration = False

    def stop(self) -> None:
        self.stop_requested = True

    def _interrupted(self) -> bool:
        """The stop request or the hard deadline (what a running job is aborted for), after
        the first iteration (which always completes: the move played has been searched)."""
        return not self.first_iteration and (
            self.stop_requested or (self.deadline is not None
                                    and time.monotonic() >= self.deadline))

    def _check(self, nodes: int) -> None:
        if self._interrupted() or (not self.first_iteration and self.node_limit is not None
                                   and self.done_nodes + nodes >= self.node_limit):
            raise SearchStopped

    def think(self, board, limits: Limits | None = None, on_iteration=None) -> SearchResult:
        limits = limits or Limits()
        start = time.monotonic()
        self.deadline = start + limits.time_ms / 1000 if limits.time_ms is not None else None
        soft = start + limits.soft_time_ms / 1000 if limits.soft_time_ms is not None else None
        self.node_limit = limits.nodes
        legal = board.legal_moves()
        if not legal:
            return SearchResult(None, -MATE if board.in_check() else 0, 0, [], 0, 0.0)
        result = SearchResult(legal[0], 0, 0, [legal[0]], 0, 0.0)
        nodes = 0
        root_history = len(board.hist)
        last_pv: list[int] = []  # the last completed iteration's line: searched first
        previous_interrupt = getattr(self.leaf, "interrupt", None)
        if hasattr(self.leaf, "interrupt"):
            self.leaf.interrupt = self._interrupted
        try:
            for depth in range(1, min(limits.depth or MAX_DEPTH, MAX_DEPTH) + 1):
                self.done_nodes = nodes
                self.first_iteration = depth == 1
                search = _Limited(board, self.leaf, self.chip_depth, self._check)
                try:
                    done = search.search(depth, -INFINITY, INFINITY, prev_pv=last_pv)
                except SearchStopped:
                    while len(board.hist) > root_history:
                        board.takeback()
                    nodes += search.nodes_so_far()
                    result.stopped = True
                    if search.best_move is not None:  # a root move finished and raised alpha
                        result.best_move = search.best_move
                        result.pv = search.pv.get(0, [search.best_move]) or [search.best_move]
                    break
                nodes += done.nodes
                now = time.monotonic()
                pv = done.pv or ([done.best_move] if done.best_move is not None else [])
                it = Iteration(depth, depth, done.score, nodes, now - start, pv)
                result.iterations.append(it)
                if done.best_move is not None:
                    result.best_move, result.pv = done.best_move, pv
                last_pv = pv
                result.score, result.depth = done.score, depth
                if on_iteration is not None:
                    on_iteration(it)
                # a mate within the searched depth is the shortest one
                if (is_mate_score(done.score) and MATE - abs(done.score) <= depth
                        and not limits.infinite):
                    break
                if soft is not None and now >= soft:
                    break
        finally:
            if hasattr(self.leaf, "interrupt"):
                self.leaf.interrupt = previous_interrupt
        result.nodes = nodes
        result.seconds = time.monotonic() - start
        return result
