"""The host's search over several leaf searchers at once: a chip's search threads, a job each.

At a host node whose children are jobs, the first legal child is searched alone (it sets the
window, as in Young Brothers Wait); the others go out in batches of one per thread, each with
the window the node has when its batch leaves. The results are then taken in move order, as
the serial search takes them: a child searched with an older (wider) window than the serial
search would have given it returns the same verdict, because with fail-hard bounds a score
inside both windows is the exact value and a score at or below the newer alpha fails low in
both. So the score, best move and PV are the serial search's; the node count is not (a batch
may search siblings the serial search would have cut off, with wider windows), and is reported.

A batch goes to a *batch searcher*: ``search_many(jobs)`` with ``threads`` (its width). A
list of leaf searchers is one (``PooledLeaves``): the batch's jobs on threads of this process,
each on its own copy of the position (the compiled search thread's native loop releases
Python's lock, so a batch of model jobs runs on as many cores). A search board with several
threads is another (``sim.drivers.fpga_board.BoardClient``: a job to each of its threads).
``parallel_clocks`` projects the chip's time with one thread per job of a batch: each batch
costs its longest job, a lone first child its own clocks.
"""

from concurrent.futures import ThreadPoolExecutor

from .capture_finder import capture_stage, is_capture_stage_move, quiet_stage
from .host_search import DEFAULT_CHIP_DEPTH, HostResult, HostSearch
from .leaf_search import clamp
from .searcher import DRAW, INFINITY, MATE


class PooledLeaves:
    """Leaf searchers, one per thread: ``search_many`` runs a batch's jobs (at most one per
    searcher) at once on threads of this process."""

    def __init__(self, leaves: list):
        if not leaves:
            raise ValueError("at least one leaf searcher")
        self.leaves = list(leaves)
        self.threads = len(self.leaves)
        self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="leaf")

    def search_many(self, jobs: list) -> list:
        """``jobs``: (board, alpha, beta, depth, ply, extensions) each, a board of its own; the
        results in their order."""
        if len(jobs) > self.threads:
            raise ValueError(f"{len(jobs)} jobs for {self.threads} leaf searchers")
        futures = [self.pool.submit(leaf.search, *job) for leaf, job in zip(self.leaves, jobs)]
        return [f.result() for f in futures]

    def close(self) -> None:
        self.pool.shutdown()


class ParallelHostSearch(HostSearch):
    """``search(depth)`` of ``board`` with ``leaves`` below ``chip_depth``: a list of leaf
    searchers (one per thread), or a batch searcher (``search_many`` and ``threads``, and
    ``search`` for a lone job), which the caller closes; ``threads``: at most so many jobs a
    batch."""

    def __init__(self, board, leaves, chip_depth: int = DEFAULT_CHIP_DEPTH,
                 threads: int | None = None):
        if hasattr(leaves, "search_many"):
            self.batcher, self._owned = leaves, False
            first = leaves
        else:
            self.batcher, self._owned = PooledLeaves(leaves), True
            first = self.batcher.leaves[0]
        if self.batcher.threads < 1:
            raise ValueError("a batch searcher with no threads")
        super().__init__(board, first, chip_depth)
        #: jobs a batch: the batcher's threads, or fewer if asked
        self.threads = self.batcher.threads if threads is None else min(threads,
                                                                        self.batcher.threads)
        if self.threads < 1:
            raise ValueError("at least one thread")
        self.parallel_clocks: int | None = 0
        self.batches = 0
        self.rounds = 0  #: lone jobs and batches: the times the threads are loaded

    def close(self) -> None:
        if self._owned:
            self.batcher.close()

    def search(self, depth: int, alpha: int = -INFINITY, beta: int = INFINITY,
               prev_pv=(), ply: int = 0) -> HostResult:
        self.parallel_clocks, self.batches, self.rounds = 0, 0, 0
        return super().search(depth, alpha, beta, prev_pv, ply)

    def job(self, alpha: int, beta: int, depth: int) -> int:
        """A job alone (the root, or a first child): it takes the whole chip's time."""
        before = self.clocks
        score = super().job(alpha, beta, depth)
        self._add_parallel(None if before is None or self.clocks is None
                           else self.clocks - before)
        return score

    def _add_parallel(self, clocks) -> None:
        self.rounds += 1
        if self.parallel_clocks is not None:
            self.parallel_clocks = None if clocks is None else self.parallel_clocks + clocks

    def full(self, alpha: int, beta: int, depth: int) -> int:
        if depth - 1 > self.chip_depth:  # the children are host nodes
            return super().full(alpha, beta, depth)
        board, stats = self.board, self.stats
        here = board.ply - self.root
        self.pv[here] = []
        stats.full += 1
        self.settled = False
        if self.drawn():
            return clamp(self.draw_score(), alpha, beta)
        stats.finder_nodes += 1
        legal, pv_move = self._legal_children()
        found = False
        first = 0
        while first < len(legal):
            batch = legal[first:first + (1 if first == 0 else self.threads)]
            first += len(batch)
            if len(batch) == 1:  # searched alone, with the node's window of now
                results = [(self._alone(batch[0], alpha, beta, depth - 1))]
                self.left_pv()
            else:
                results = self._batch(batch, alpha, beta, depth - 1)
            for m, (x, pv) in zip(batch, results):
                self.pv[here + 1] = pv
                if x >= beta:
                    self.note_best(m)
                    if self.rules.killers and not is_capture_stage_move(m) and m != pv_move:
                        self.note_killer(here, m)
                    return beta
                found = True
                if x > alpha:
                    alpha = x
                    self.note_best(m)
        if not found:
            mated = board.in_check()
            return clamp(-(MATE - self.ply()) if mated else DRAW, alpha, beta)
        return alpha

    def _legal_children(self) -> tuple[list[int], int | None]:
        """The node's legal moves in the order the serial search tries them (the PV's move,
        the capture stage, then the walk's moves, the ply's killers first), and the PV's
        move."""
        board = self.board
        ply = board.ply
        board.first_move[ply + 1] = board.first_move[ply]  # stage 1 stores nothing
        first = self.first_move()
        moves = list(capture_stage(board, self.stats))
        self.movegen.gen(board)
        moves += self.killers_first(
            quiet_stage(board.gen_dat[board.first_move[ply]:board.first_move[ply + 1]]))
        if first is not None:
            moves = [first] + [m for m in moves if m != first]
        legal = []
        for m in moves:
            if board.makemove(m):
                board.takeback()
                legal.append(m)
        return legal, first

    def _alone(self, m: int, alpha: int, beta: int, depth: int) -> tuple[int, list[int]]:
        self.board.makemove(m)
        x = -self.job(-beta, -alpha, depth)
        pv = self.pv.get(self.board.ply - self.root, [])
        self.board.takeback()
        return x, pv

    def _batch(self, moves: list[int], alpha: int, beta: int, depth: int) -> list:
        """The moves' jobs at once, a thread each, each on a copy of the child position (with
        the game's history: repetitions)."""
        board, ply = self.board, self.ply() + 1
        children = []
        for m in moves:
            board.makemove(m)
            children.append(board.copy())
            board.takeback()
        results = self.batcher.search_many([(child, -beta, -alpha, depth, ply, self.extensions)
                                            for child in children])
        self.batches += 1
        slowest = 0
        for r in results:
            self.jobs += 1
            self.leaf_nodes += r.nodes
            if self.clocks is not None:
                self.clocks = None if r.clocks is None else self.clocks + r.clocks
            slowest = None if slowest is None or r.clocks is None else max(slowest, r.clocks)
        self._add_parallel(slowest)
        return [(-r.score, [] if r.best_move is None else [r.best_move]) for r in results]
