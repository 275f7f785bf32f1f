"""The chip's search, defined once: what a search thread does with a job, step by step in its order.

A job is a node of the host's search: its position (with the game's and the host's path since
the last irreversible move, for repetitions), a window (alpha, beta), the remaining depth, its
ply from the search's root and the check extensions already made on its line
(docs/chip_search.md). The thread searches it by negamax alpha-beta, **fail-hard**: every node
returns a score within its window (alpha when all its moves fail low, beta on a cut-off), so the
job's score is the true score clamped to the window.

* **Entering a node** with depth >= 0 whose side to move is in check adds a ply to its depth
  (the **check extension**), at most ``MAX_EXTENSIONS`` times on a line from the search's root.
  A move from a full-width node leads to a node of depth >= 0, so a checking move is searched a
  ply deeper; a capture in the quiescence search is not.
* A **full-width node** (remaining depth >= 1) is first a **draw** if it is not the search's
  root and its position repeats one of the last ``REPETITION_PLIES`` plies since the last
  irreversible move (the game's, the host's path and the job's own; hashes compared on their
  low ``HASH_BITS``), or the fifty-move counter has reached 100 (scored ``CONTEMPT`` against
  the search root's side, as much for the other). Else it tries stage 1 of
  ``capture_finder`` (promotions as queens, then captures MVV/LVA), then the rest of its moves
  in generation order (stage 2), the ply's two **killers** first (the last two quiet moves that
  cut off at that ply in the job, the newer first, each where the walk generated it). No legal
  move: mated (``-(MATE - ply)``) if in check, else stalemate (``DRAW``). No history table.
* A **quiescence node** (remaining depth <= 0) ``below`` plies under the frontier: in check
  within the first ``QS_CHECK_PLIES`` quiescence plies, an **evasion node**: no stand-pat, every
  legal move in the full-width order, mated if none. Else it stands pat on the evaluation
  (``leaf_eval`` with ``leaf_structure``): a cut-off if it reaches beta, else it raises alpha;
  then stage 1 alone.
* The **ply limit**: a quiescence node QS_PLY_LIMIT plies below the frontier returns its
  evaluation, clamped to its window, without looking at a move.

A **node** is a position the search enters: the job's root and every child reached by a legal
move (an illegal move is no node). The chip counts the same, including the children it settles
without making the move (a quiescence child that stands pat, a child at the ply limit).

``Rules`` names the features, so that a bench can measure each (bench/search_features.py);
``CHIP_RULES``, the default, is what the thread builds.
"""

from dataclasses import dataclass, field

from ..rules import movegen as reference_movegen
from ..rules.capabilities import refusal
from ..rules.defs import BISHOP, CASTLE, EP, KING, KNIGHT, PAWN, PROMOTION, QUEEN, ROOK, WHITE
from ..rules.lines import PIN_LINES
from .capture_finder import capture_stage, quiet_stage
from .leaf_eval import leaf_evaluate
from .leaf_structure import structure_of
from .searcher import DRAW, INFINITY, MATE

QS_PLY_LIMIT = 32  #: quiescence plies below the frontier: the node there returns its evaluation
MAX_JOB_DEPTH = 6  #: the deepest job: its walks (with extensions and evasions) fill the stack
MAX_EXTENSIONS = 4  #: check extensions on one line from the search's root
MAX_JOB_PLY = 127  #: the furthest ply below the search's root a job starts at (a 7-bit counter)
WINDOW = INFINITY  #: a job's window lies within +-WINDOW: the host's full window
QS_CHECK_PLIES = 2  #: quiescence plies in which a side in check searches its evasions
REPETITION_PLIES = 32  #: how far back a repetition is looked for (Deep Blue's detector's span)
FIFTY_PLIES = 100  #: the fifty-move rule, in plies
#: what a repetition or fifty-move draw costs the search root's side, in centipawns: a side a
#: little better does not repeat (bench/search_features.py: fewer threefolds, no points lost)
CONTEMPT = 20
HASH_BITS = 36  #: the low bits of engine.rules.zobrist's hash that the chip keeps and compares
HASH_MASK = (1 << HASH_BITS) - 1
#: per-ply records a thread needs: the job's full-width plies with their extensions, then the
#: quiescence plies above the limit's node (which needs none: it is settled from its parent)
PLY_RECORDS = MAX_JOB_DEPTH + MAX_EXTENSIONS + QS_PLY_LIMIT
#: plies of a job that walk the generator onto the move stack: full-width and evasion nodes
WALK_PLIES = MAX_JOB_DEPTH + MAX_EXTENSIONS + QS_CHECK_PLIES


def job_problem(board, alpha: int, beta: int, depth: int, ply: int = 0,
                extensions: int = 0) -> str | None:
    """Why this is no job a leaf searcher takes, or None. The one statement of the rules: the
    reference, the drivers and the host check them here; the gateware refuses the same jobs
    (hdl.search.records.job_refused) from the same constants."""
    if not alpha < beta:
        return f"empty window ({alpha}, {beta})"
    if not -WINDOW <= alpha < beta <= WINDOW:
        return f"window ({alpha}, {beta}) outside +-{WINDOW}"
    if not 0 <= depth <= MAX_JOB_DEPTH:
        return f"job depth {depth} outside 0 .. {MAX_JOB_DEPTH}"
    if not 0 <= ply <= MAX_JOB_PLY:
        return f"job ply {ply} outside 0 .. {MAX_JOB_PLY}"
    if not 0 <= extensions <= MAX_EXTENSIONS:
        return f"{extensions} extensions outside 0 .. {MAX_EXTENSIONS}"
    return refusal(board.variant, "search", "the search thread")


def check_job(board, alpha: int, beta: int, depth: int, ply: int = 0,
              extensions: int = 0) -> None:
    """ValueError naming the problem unless job_problem finds none."""
    problem = job_problem(board, alpha, beta, depth, ply, extensions)
    if problem:
        raise ValueError(problem)


@dataclass(frozen=True)
class Rules:
    """The features of the tree beyond plain alpha-beta with quiescence; a bench turns them off
    one by one to measure what each buys (nodes, strength)."""
    max_extensions: int = MAX_EXTENSIONS  #: 0: no check extension
    qs_check_plies: int = QS_CHECK_PLIES  #: 0: a quiescence node in check stands pat
    draws: bool = True                    #: repetitions and the fifty-move rule
    structure: bool = True                #: leaf_structure's terms in the evaluation
    contempt: int = CONTEMPT              #: what a repetition or fifty-move draw costs the
                                          #: search root's side
    killers: bool = True                  #: two killer moves a ply tried first in stage 2


CHIP_RULES = Rules()


@dataclass
class LeafStats:
    """What the tree asks of a thread, counted the way the estimate in docs/chip_search.md uses
    it. Every count is of nodes or moves of the job's tree."""
    full: int = 0            #: full-width nodes (draws included)
    quiesce: int = 0         #: quiescence nodes that evaluate (limit nodes not included)
    evasion: int = 0         #: quiescence nodes in check that search their evasions
    limit: int = 0           #: nodes at the ply limit
    stand_pat: int = 0       #: quiescence nodes cut off by their evaluation
    settled: int = 0         #: children settled without being made (stand-pat or limit nodes)
    walks: int = 0           #: nodes that reach stage 2 (a full generator walk)
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
    extended: int = 0        #: nodes whose depth the check extension raised
    check_waits: int = 0     #: nodes that wait for their in-check answer to know their kind
    draws: int = 0           #: full-width nodes scored as a repetition or fifty-move draw
    draw_tests: int = 0      #: repetition tests (full-width nodes but the search's root)
    draw_reads: int = 0      #: positions they compared

    def add(self, other: "LeafStats") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def nodes(self) -> int:
        return self.full + self.quiesce + self.evasion + self.limit


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
    the king (engine.rules.lines.PIN_LINES)."""
    frm = m & 63
    return (board.piece[frm] == KING or bool(m & EP) or board.in_check()
            or PIN_LINES[board.king[board.side] * 64 + frm] is not None)


def may_give_check(board, m: int) -> bool:
    """The chip's check test, made before the move from square numbers alone: False means the
    move certainly does not give check. True for castling and en passant, for a from-square on
    a line with the enemy king (a discovered check), and for a piece that lands where its kind
    could attack the enemy king's square if nothing stood between."""
    if m & (CASTLE | EP):
        return True
    frm, to = m & 63, (m >> 6) & 63
    king = board.king[board.side ^ 1]
    if PIN_LINES[king * 64 + frm] is not None:
        return True
    piece = m >> 18 if m & PROMOTION else board.piece[frm]
    df, dr = (king & 7) - (to & 7), (king >> 3) - (to >> 3)
    if piece == PAWN:
        return abs(df) == 1 and dr == (1 if board.side == WHITE else -1)
    if piece == KNIGHT:
        return {abs(df), abs(dr)} == {1, 2}
    line = PIN_LINES[king * 64 + to]
    if line is None:
        return False
    diagonal = line[1]
    return piece == QUEEN or (piece == BISHOP) == diagonal and piece in (BISHOP, ROOK)


def repeats(board, plies: int = REPETITION_PLIES) -> tuple[bool, int]:
    """(does the position repeat one of the last ``plies`` plies since the last irreversible
    move, positions compared). Only positions with the same side to move can repeat: every
    second one back; hashes compared on their low HASH_BITS."""
    hist, h = board.hist, board.hash
    n = len(hist)
    stop = max(n - min(board.fifty, plies), 0)
    reads = 0
    for i in range(n - 2, stop - 1, -2):
        reads += 1
        if not (hist[i][5] ^ h) & HASH_MASK:
            return True, reads
    return False, reads


def clamp(score: int, alpha: int, beta: int) -> int:
    return alpha if score < alpha else beta if score > beta else score


class LeafSearch:
    """One job on ``board``: ``run(alpha, beta, depth, ply, extensions)``. The board is left as
    given. ``rules`` (``CHIP_RULES``) are for benches that measure a feature."""

    def __init__(self, board, movegen=None, rules: Rules = CHIP_RULES):
        self.board = board
        #: stage 2's walk: any object with ``gen(board)`` (engine.rules.movegen by default)
        self.movegen = movegen if movegen is not None else reference_movegen
        self.rules = rules
        self.stats = LeafStats()
        self.maybe_check = True  #: the move into the node entered next may give check

    def run(self, alpha: int, beta: int, depth: int, ply: int = 0,
            extensions: int = 0) -> LeafResult:
        """Search the board's position with the window (alpha, beta), ``depth`` full-width
        plies, the position ``ply`` plies below the search's root with ``extensions`` check
        extensions made above it on its line."""
        check_job(self.board, alpha, beta, depth, ply, extensions)
        self.stats = LeafStats()
        self.root = self.board.ply
        self.root_ply = ply
        self.extensions = extensions
        self.best_move = None
        self.settled = False
        self.maybe_check = True
        self.killers = {}
        score = self.node(alpha, beta, depth)
        return LeafResult(score, self.best_move, self.stats.nodes, None, self.stats)

    # --- nodes ----------------------------------------------------------------------------

    def node(self, alpha: int, beta: int, depth: int) -> int:
        """Enter a node reached by a legal move (or the job's root)."""
        rules, stats = self.rules, self.stats
        matters = (depth >= 0 and self.extensions < rules.max_extensions
                   or depth <= 0 and -depth < rules.qs_check_plies)
        check = False
        if matters and self.maybe_check:
            # the chip knows the node's kind only once the in-check answer is in
            stats.check_waits += depth <= 0
            check = self.board.in_check()
        if check and depth >= 0 and self.extensions < rules.max_extensions:
            stats.extended += 1
            self.extensions += 1
            try:
                return self.full(alpha, beta, depth + 1)
            finally:
                self.extensions -= 1
        if depth <= 0:
            return self.quiesce(alpha, beta, -depth, check)
        return self.full(alpha, beta, depth)

    def full(self, alpha: int, beta: int, depth: int) -> int:
        self.stats.full += 1
        self.settled = False
        if self.drawn():
            return clamp(self.draw_score(), alpha, beta)
        return self.moves(alpha, beta, depth - 1)

    def draw_score(self) -> int:
        """A repetition or fifty-move draw, for the side to move: the search root's side pays
        the contempt, the other gains it."""
        c = self.rules.contempt
        return -c if self.ply() % 2 == 0 else c

    def drawn(self) -> bool:
        """Is the full-width node entered a repetition or a fifty-move draw? (Never the
        search's root: it is the position the game is in.)"""
        if not self.rules.draws or self.ply() == 0:
            return False
        fifty = self.board.fifty >= FIFTY_PLIES
        repeated, reads = (False, 0) if fifty else repeats(self.board)
        self.stats.draw_tests += not fifty
        self.stats.draw_reads += reads
        self.stats.draws += fifty or repeated
        return fifty or repeated

    def quiesce(self, alpha: int, beta: int, below: int, check: bool = False) -> int:
        """A quiescence node ``below`` plies under the frontier; ``check``: its side to move is
        in check (known only where it matters: within the first QS_CHECK_PLIES)."""
        stats = self.stats
        if below >= QS_PLY_LIMIT:
            stats.limit += 1
            self.settled = True  # settled from the parent on chip
            return clamp(self.evaluate(), alpha, beta)
        if check and below < self.rules.qs_check_plies:
            stats.evasion += 1
            self.settled = False
            return self.moves(alpha, beta, -below - 1)
        e = self.evaluate()
        self.settled = True  # until it asks the finder: settled from the parent on chip
        stats.quiesce += 1
        if e >= beta:
            stats.stand_pat += 1
            return beta
        if e > alpha:
            alpha = e
        stats.finder_nodes += 1
        board = self.board
        board.first_move[board.ply + 1] = board.first_move[board.ply]  # for an evasion child
        first = True
        for m in capture_stage(board, stats):
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

    def moves(self, alpha: int, beta: int, child_depth: int) -> int:
        """Every legal move of a full-width or evasion node, each child searched to
        ``child_depth``: stage 1, then stage 2; no legal move is mate or stalemate."""
        board, stats = self.board, self.stats
        stats.finder_nodes += 1
        ply = board.ply
        board.first_move[ply + 1] = board.first_move[ply]  # stage 1 stores nothing
        found = False
        first = self.first_move()
        stages = ((0, (first,)), (1, None), (2, None)) if first is not None else \
            ((1, None), (2, None))
        for stage, moves in stages:
            if stage == 1:
                moves = capture_stage(board, stats)
            elif stage == 2:
                stats.walks += 1
                self.movegen.gen(board)
                lo, hi = board.first_move[ply], board.first_move[ply + 1]
                stats.walk_moves += hi - lo
                moves = self.killers_first(quiet_stage(board.gen_dat[lo:hi]))
                made = None  # the first read after the walk fills the eval pipeline
            for m in moves:
                if stage and m == first:
                    continue
                if stage == 1:
                    stats.tried += 1
                    stats.queried += needs_query(board, m)
                before = stats.made
                x = self.child(m, alpha, beta, child_depth)
                if stage == 0:
                    self.left_pv()
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
                    if stage == 2 and self.rules.killers:
                        self.note_killer(ply - self.root, m)
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

    # --- helpers ---------------------------------------------------------------------------

    def evaluate(self) -> int:
        e = leaf_evaluate(self.board)
        return e + structure_of(self.board) if self.rules.structure else e

    def child(self, m: int, alpha: int, beta: int, depth: int) -> int | None:
        """The child after ``m`` from the mover's view, None if ``m`` is illegal."""
        board, stats = self.board, self.stats
        maybe = may_give_check(board, m)
        if not board.makemove(m):
            return None
        self.maybe_check = maybe
        x = -self.enter(-beta, -alpha, depth)
        board.takeback()
        if self.settled:  # set by the child as it returned
            stats.settled += 1
        else:
            stats.made += 1
        return x

    def enter(self, alpha: int, beta: int, depth: int) -> int:
        """The child's node (the host hands some to its leaf searcher instead)."""
        return self.node(alpha, beta, depth)

    def first_move(self) -> int | None:
        """A move to try before stage 1 (the host's PV move); the chip has none."""
        return None

    def left_pv(self) -> None:
        """Called after the first move's child returns."""

    def note_best(self, m: int) -> None:
        if self.board.ply == self.root:
            self.best_move = m

    def killers_first(self, moves: list[int]) -> list[int]:
        """A walk's quiet moves with the node's killers among them first."""
        if not self.rules.killers:
            return moves
        killers = [k for k in self.killers.get(self.board.ply - self.root, ()) if k in moves]
        return killers + [m for m in moves if m not in killers]

    def note_killer(self, ply: int, m: int) -> None:
        """A quiet move that cut off: the newer of the ply's two killers."""
        old = self.killers.get(ply, ())
        if not old or old[0] != m:
            self.killers[ply] = (m,) + old[:1]

    def ply(self) -> int:
        """The node's ply from the search's root (what a mate score counts)."""
        return self.root_ply + self.board.ply - self.root


def leaf_search(board, alpha: int, beta: int, depth: int, ply: int = 0,
                extensions: int = 0) -> LeafResult:
    """One job on the reference: ``LeafSearch(board).run(...)``."""
    return LeafSearch(board).run(alpha, beta, depth, ply, extensions)
