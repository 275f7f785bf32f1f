"""The chip's search, defined once: what a search thread does with a job, step by step in its order.

A job is a node of the host's search: its position, a window (alpha, beta), the remaining depth
and its ply from the search's root (docs/chip_search.md). The thread searches it by negamax
alpha-beta, **fail-hard**: every node returns a score within its window (alpha when all its
moves fail low, beta on a cut-off), so the job's score is the true score clamped to the window.

* A **full-width node** (remaining depth >= 1) tries stage 1 of ``capture_finder`` (promotions
  as queens, then captures MVV/LVA), then the rest of its moves in generation order (stage 2). No
  legal move: mated (``-(MATE - ply)``) if in check, else stalemate (``DRAW``). No check
  extension, no killers, no history.
* A **quiescence node** (remaining depth <= 0) stands pat on the evaluation (``leaf_eval``):
  a cut-off if it reaches beta, else it raises alpha; then stage 1 alone. In check it still
  stands pat (TSCP's quiescence).
* The **ply limit**: a quiescence node QS_PLY_LIMIT plies below the full-width frontier (the
  depth-0 nodes) returns its evaluation, clamped to its window, without looking at a move. With
  no extensions every frontier node lies at the job's depth, so the limit is ``depth +
  QS_PLY_LIMIT`` plies below the job's root, the same ply however the host splits the tree.

A **node** is a position the search enters: the job's root and every child reached by a legal
move (an illegal move is no node). The chip counts the same, including the children it settles
without making the move (a quiescence child that stands pat, a child at the ply limit).

No repetition or fifty-move draws: the chip does not see the game's history.
"""

from dataclasses import dataclass, field

from . import movegen as reference_movegen
from .capture_finder import capture_stage, quiet_stage
from .defs import EP, KING
from .leaf_eval import leaf_evaluate
from .lines import PIN_LINES
from .search import DRAW, MATE

QS_PLY_LIMIT = 32  #: quiescence plies below the frontier: the node there returns its evaluation
MAX_JOB_DEPTH = 8  #: the deepest job: its full-width plies fill at most 8 x 323 stack entries
#: per-ply records a thread needs: the job's full-width plies, then the quiescence plies above
#: the limit's node (which needs none: it is settled from its parent)
PLY_RECORDS = MAX_JOB_DEPTH + QS_PLY_LIMIT


@dataclass
class LeafStats:
    """What the tree asks of a thread, counted the way the estimate in docs/chip_search.md uses
    it. Every count is of nodes or moves of the job's tree."""
    full: int = 0            #: full-width nodes
    quiesce: int = 0         #: quiescence nodes (limit nodes not included)
    limit: int = 0           #: nodes at the ply limit
    stand_pat: int = 0       #: quiescence nodes cut off by their evaluation
    settled: int = 0         #: children settled without being made (stand-pat or limit nodes)
    walks: int = 0           #: full-width nodes that reach stage 2 (a full generator walk)
    walk_moves: int = 0      #: pseudo-legal moves those walks generate (promotions unexpanded)
    finder_nodes: int = 0    #: nodes that ask the capture finder (stage 1)
    victim_queries: int = 0  #: attack-unit queries of the victim scan
    scan_starts: int = 0     #: victim scans started, at a node or again after a made child
    refills: int = 0         #: eval pipeline restarts not at a scan start (docs/chip_search.md)
    tried: int = 0           #: stage-1 moves tested (for legality, and the child's evaluation)
    queried: int = 0         #: ... whose legality the pin test cannot settle (an attack query)
    read: int = 0            #: stage-2 legal moves taken off the move stack
    made: int = 0            #: legal moves made (children that are not settled)
    cutoffs: int = 0         #: nodes cut off by a move (score >= beta)
    legal_first_cut: int = 0  #: ... by their first legal move

    def add(self, other: "LeafStats") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def nodes(self) -> int:
        return self.full + self.quiesce + self.limit


@dataclass
class LeafResult:
    score: int
    best_move: int | None   #: the job root's move that set its score; None if none did
    nodes: int
    clocks: int | None = None  #: the chip's (None for the reference)
    stats: LeafStats = field(default_factory=LeafStats)


def needs_query(board, m: int) -> bool:
    """The chip's pin test: a stage-1 move is legal, without asking the attack unit, unless the
    king moves, it is en passant, the side is in check, or the from-square shares a line with
    the king (engine.lines.PIN_LINES)."""
    frm = m & 63
    return (board.piece[frm] == KING or bool(m & EP) or board.in_check()
            or PIN_LINES[board.king[board.side] * 64 + frm] is not None)


def clamp(score: int, alpha: int, beta: int) -> int:
    return alpha if score < alpha else beta if score > beta else score


class LeafSearch:
    """One job on ``board``: ``run(alpha, beta, depth, ply)``. The board is left as given."""

    def __init__(self, board, movegen=None):
        self.board = board
        #: stage 2's walk: any object with ``gen(board)`` (engine.movegen by default)
        self.movegen = movegen if movegen is not None else reference_movegen
        self.stats = LeafStats()

    def run(self, alpha: int, beta: int, depth: int, ply: int = 0) -> LeafResult:
        """Search the board's position with the window (alpha, beta), ``depth`` full-width
        plies, the position ``ply`` plies below the search's root."""
        if not alpha < beta:
            raise ValueError(f"empty window ({alpha}, {beta})")
        if not 0 <= depth <= MAX_JOB_DEPTH:
            raise ValueError(f"job depth {depth} outside 0 .. {MAX_JOB_DEPTH}")
        if not self.board.data.orthodox or self.board.variant.chess960:
            raise ValueError("the chip searches orthodox chess only")
        self.stats = LeafStats()
        self.root = self.board.ply
        self.root_ply = ply
        self.best_move = None
        self.settled = False
        score = self.node(alpha, beta, depth)
        return LeafResult(score, self.best_move, self.stats.nodes, None, self.stats)

    # --- nodes ----------------------------------------------------------------------------

    def node(self, alpha: int, beta: int, depth: int) -> int:
        """Enter a node reached by a legal move (or the job's root)."""
        if depth <= 0:
            return self.quiesce(alpha, beta, -depth)
        return self.full(alpha, beta, depth)

    def full(self, alpha: int, beta: int, depth: int) -> int:
        board, stats = self.board, self.stats
        stats.full += 1
        stats.finder_nodes += 1
        ply = board.ply
        board.first_move[ply + 1] = board.first_move[ply]  # stage 1 stores nothing
        found = False
        for stage in (1, 2):
            if stage == 1:
                moves = capture_stage(board, stats)
            else:
                stats.walks += 1
                self.movegen.gen(board)
                first, last = board.first_move[ply], board.first_move[ply + 1]
                stats.walk_moves += last - first
                moves = quiet_stage(board.gen_dat[first:last])
                made = None  # the first read after the walk fills the eval pipeline
            for m in moves:
                if stage == 1:
                    stats.tried += 1
                    stats.queried += needs_query(board, m)
                before = stats.made
                x = self.child(m, alpha, beta, depth - 1)
                if x is None:
                    continue
                if stage == 2:  # a read after a made child (or the walk) refills the pipeline
                    stats.read += 1
                    stats.refills += made != before
                    made = stats.made
                if x >= beta:
                    stats.cutoffs += 1
                    stats.legal_first_cut += not found
                    self.note_best(m)
                    self.settled = False
                    return beta
                found = True
                if x > alpha:
                    alpha = x
                    self.note_best(m)
        self.settled = False
        if not found:
            mated = board.in_check()
            return clamp(-(MATE - self.ply()) if mated else DRAW, alpha, beta)
        return alpha

    def quiesce(self, alpha: int, beta: int, below: int) -> int:
        """A quiescence node ``below`` plies under the frontier."""
        stats = self.stats
        e = leaf_evaluate(self.board)
        self.settled = True  # until it asks the finder: settled from the parent on chip
        if below >= QS_PLY_LIMIT:
            stats.limit += 1
            return clamp(e, alpha, beta)
        stats.quiesce += 1
        if e >= beta:
            stats.stand_pat += 1
            return beta
        if e > alpha:
            alpha = e
        stats.finder_nodes += 1
        first = True
        for m in capture_stage(self.board, stats):
            stats.tried += 1
            stats.queried += needs_query(self.board, m)
            x = self.child(m, alpha, beta, -below - 1)
            if x is None:
                continue
            if x >= beta:
                stats.cutoffs += 1
                stats.legal_first_cut += first
                self.note_best(m)
                self.settled = False
                return beta
            first = False
            if x > alpha:
                alpha = x
                self.note_best(m)
        self.settled = False
        return alpha

    # --- helpers ---------------------------------------------------------------------------

    def child(self, m: int, alpha: int, beta: int, depth: int) -> int | None:
        """The child after ``m`` from the mover's view, None if ``m`` is illegal."""
        board, stats = self.board, self.stats
        if not board.makemove(m):
            return None
        x = -self.node(-beta, -alpha, depth)
        board.takeback()
        if self.settled:  # set by the child as it returned
            stats.settled += 1
        else:
            stats.made += 1
        return x

    def note_best(self, m: int) -> None:
        if self.board.ply == self.root:
            self.best_move = m

    def ply(self) -> int:
        """The node's ply from the search's root (what a mate score counts)."""
        return self.root_ply + self.board.ply - self.root


def leaf_search(board, alpha: int, beta: int, depth: int, ply: int = 0) -> LeafResult:
    """One job on the reference: ``LeafSearch(board).run(...)``."""
    return LeafSearch(board).run(alpha, beta, depth, ply)

