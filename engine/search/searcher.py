"""A TSCP-style search over the board's move stack, on any move generator.

Negamax alpha-beta with a quiescence search on captures and promotions, a check extension,
iterative deepening and a triangular principal variation. Move ordering (the per-move score
lives in ``board.gen_score``, parallel to ``gen_dat``):

* the previous iteration's PV move, while the search still follows that line (sort_pv);
* captures and promotions: CAPTURE_BASE + 10 * victim - attacker (MVV/LVA), promotions by piece;
* quiet moves by history[from][to], credited with the depth whenever a move raises alpha.

Moves are not sorted: when the loop reaches slot ``i`` the best remaining move is swapped into it
(most nodes are cut off after a move or two, so a full sort would be wasted work).

The generator is a parameter: any object with ``gen(board)`` and ``gen_caps(board)`` that fill
``board.gen_dat[first_move[ply]:]`` in place and set ``first_move[ply + 1]`` (the module
``engine.rules.movegen`` is one). The search reads nothing else from it, so two generators that emit
the same moves in the same order walk the very same tree: same nodes, PV and score.

Scores are centipawns for the side to move. A mate is ``MATE - plies``: the number of plies to
the mate is in the score, so a shorter mate is always preferred and the UCI ``mate N`` can be
read off it.
"""

import time
from dataclasses import dataclass, field

from ..rules import movegen as reference_movegen
from ..rules.board import MAX_PLY
from ..rules.defs import CAPTURE, PAWN, PROMOTION, move_uci
from .eval import evaluate as default_evaluate

MATE = 30000  #: the score of giving mate now; mate in n plies scores MATE - n
MAX_SEARCH_PLY = 100  #: deepest ply of one search, quiescence and check extensions included
MATE_BOUND = MATE - MAX_SEARCH_PLY  #: any score beyond +-MATE_BOUND is a mate
INFINITY = MATE + 1  #: outside every real score: the root's initial window
DRAW = 0
MAX_DEPTH = MAX_SEARCH_PLY - 1  #: deepest iteration

PV_BONUS = 10_000_000  #: above every other move score: the PV move goes first
CAPTURE_BASE = 1_000_000  #: captures and promotions go before every quiet move ...
HISTORY_CAP = CAPTURE_BASE - 1  #: ... however large the history grows
CHECK_INTERVAL = 256  #: nodes between looks at the clock and the stop flag


class SearchStopped(Exception):
    """Raised inside the tree when time, nodes or a stop request end the search; the root
    unwinds the board and keeps the best line found so far."""


class MoveGenUnavailable(Exception):
    """A move generator cannot be used here (one line, for the user). Raised by the generator
    factories that the UCI engine and the ``posdata`` command are given."""


@dataclass
class Limits:
    """What ends a search. ``None`` means no such limit; all None (or ``infinite``) searches
    until ``stop()`` or MAX_DEPTH."""
    depth: int | None = None
    nodes: int | None = None
    #: hard limit: the search is aborted mid-iteration when it passes
    time_ms: float | None = None
    #: soft limit: no new iteration starts after it (the next one would rarely finish)
    soft_time_ms: float | None = None
    infinite: bool = False
    #: restrict the root to these moves (UCI ``searchmoves``), as move words
    root_moves: frozenset[int] | None = None


@dataclass
class Iteration:
    depth: int
    seldepth: int
    score: int
    nodes: int
    seconds: float
    pv: list[int]


@dataclass
class SearchResult:
    best_move: int | None  #: None: no legal move (checkmate or stalemate)
    score: int
    depth: int  #: the last completed iteration (0 if none completed)
    pv: list[int]
    nodes: int
    seconds: float
    iterations: list[Iteration] = field(default_factory=list)
    stopped: bool = False  #: ended by time, nodes or stop() rather than by depth


def is_mate_score(score: int) -> bool:
    return abs(score) > MATE_BOUND


def mate_in(score: int) -> int:
    """Moves (not plies) to mate: positive when the side to move mates, negative when mated."""
    if score > 0:
        return (MATE - score + 1) // 2
    return -((MATE + score) // 2)


def uci_score(score: int) -> str:
    """``cp 23`` or ``mate 3`` / ``mate -2``, as in UCI info lines."""
    return f"mate {mate_in(score)}" if is_mate_score(score) else f"cp {score}"


def pv_uci(pv: list[int], board=None) -> str:
    """The moves in UCI; with ``board``, in its notation (its variant's letters, castling as
    its ``chess960_notation`` says)."""
    if board is not None:
        return " ".join(board.uci(m) for m in pv)
    return " ".join(move_uci(m) for m in pv)


class Searcher:
    """One search engine: keeps the history table and PV between calls only within a search.

    ``stop()`` may be called from another thread; the search notices it within CHECK_INTERVAL
    nodes and returns the best move found so far: the last completed iteration's, or a root
    move of the unfinished one that beat it (each iteration searches the previous PV's move
    first). The first iteration always completes, whatever the limits, so the move played has
    been searched. think() never clears the request (a stop
    that arrives before the search starts must not be lost): use a fresh Searcher per search,
    or clear ``stop_requested`` yourself.
    """

    def __init__(self, movegen=None, evaluate=default_evaluate):
        self.movegen = movegen if movegen is not None else reference_movegen
        self.evaluate = evaluate
        self.history = [0] * 4096  # history[from + 64 * to], i.e. indexed by move & 4095
        self.pv = [[0] * MAX_SEARCH_PLY for _ in range(MAX_SEARCH_PLY)]
        self.pv_length = [0] * MAX_SEARCH_PLY
        self.prev_pv: list[int] = []
        self.follow_pv = False
        self.nodes = 0
        self.seldepth = 0
        self.stop_requested = False
        self.next_check = 0
        self.board = None
        self.first_iteration = False

    def stop(self) -> None:
        self.stop_requested = True
        self.next_check = 0  # look at once, not CHECK_INTERVAL nodes from now

    # --- the driver ------------------------------------------------------------------------

    def think(self, board, limits: Limits | None = None, on_iteration=None) -> SearchResult:
        """Iterative deepening from depth 1 until a limit; ``on_iteration(Iteration)`` is
        called after each completed depth. The board is left as it was given."""
        limits = limits or Limits()
        self.board = board
        self.root_ply = board.ply
        # The deepest ply this search may reach: its own cap, and the board's move stack.
        self.max_ply = min(MAX_SEARCH_PLY - 1, MAX_PLY - 1 - board.ply)
        self.root_moves = limits.root_moves
        self.history = [0] * 4096
        self.prev_pv = []
        self.nodes = 0
        self.seldepth = 0
        start = time.monotonic()
        self.start_time = start
        self.deadline = start + limits.time_ms / 1000 if limits.time_ms is not None else None
        self.node_limit = limits.nodes
        self._schedule_check()
        if self.stop_requested:
            self.next_check = 0
        root_history = len(board.hist)
        # gen_score is ours: make it line up with gen_dat below the root's moves.
        first = board.first_move[board.ply]
        del board.gen_score[first:]
        board.gen_score.extend([0] * (first - len(board.gen_score)))

        legal = self._root_legal_moves()
        if self.root_moves:
            allowed = [m for m in legal if m in self.root_moves]
            if allowed:
                legal = allowed
            else:  # none of them is legal here: search every move rather than none
                self.root_moves = None
        if not legal:
            score = -MATE if board.in_check() else DRAW
            return SearchResult(None, score, 0, [], 0, 0.0)

        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        soft = start + limits.soft_time_ms / 1000 if limits.soft_time_ms is not None else None
        result = SearchResult(legal[0], 0, 0, [legal[0]], 0, 0.0)
        for depth in range(1, max_depth + 1):
            self.first_iteration = depth == 1
            if depth == 2:
                self.next_check = 0  # the limits and the stop are looked at again at once
            self.follow_pv = True
            self.pv_length[0] = 0
            self.seldepth = 0
            try:
                score = self.search(-INFINITY, INFINITY, depth)
            except SearchStopped:
                while len(board.hist) > root_history:
                    board.takeback()
                result.stopped = True
                # A root move that finished this iteration and raised alpha is the best so far.
                if self.pv_length[0] > 0:
                    result.pv = self.pv[0][:self.pv_length[0]]
                    result.best_move = result.pv[0]
                break
            now = time.monotonic()
            pv = self.pv[0][:self.pv_length[0]]
            self.prev_pv = pv
            it = Iteration(depth, self.seldepth, score, self.nodes, now - start, pv)
            result.iterations.append(it)
            result.best_move, result.score, result.depth, result.pv = pv[0], score, depth, pv
            if on_iteration is not None:
                on_iteration(it)
            # A mate within the searched depth is the shortest one: deeper cannot improve it.
            if is_mate_score(score) and MATE - abs(score) <= depth and not limits.infinite:
                break
            if soft is not None and now >= soft:
                break
        result.nodes = self.nodes
        result.seconds = time.monotonic() - start
        return result

    def _root_legal_moves(self) -> list[int]:
        board = self.board
        self.movegen.gen(board)
        ply = board.ply
        moves = board.gen_dat[board.first_move[ply]:board.first_move[ply + 1]]
        legal = []
        for m in moves:
            if board.makemove(m):
                board.takeback()
                legal.append(m)
        return legal

    def _schedule_check(self) -> None:
        nxt = self.nodes + CHECK_INTERVAL
        if self.node_limit is not None and self.node_limit < nxt:
            nxt = self.node_limit
        self.next_check = nxt

    def _checkup(self) -> None:
        if self.first_iteration:  # depth 1 always completes: the move played is searched
            self._schedule_check()
            return
        if self.stop_requested:
            raise SearchStopped
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise SearchStopped
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise SearchStopped
        self._schedule_check()

    # --- the tree --------------------------------------------------------------------------

    def search(self, alpha: int, beta: int, depth: int) -> int:
        board = self.board
        # A side in check does not stand pat: it gets a full-width ply (the check extension
        # below), so a mate on the last ply is seen as one.
        if depth <= 0 and not board.in_check():
            return self.quiesce(alpha, beta)
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._checkup()
        ply = board.ply
        sply = ply - self.root_ply
        self.pv_length[sply] = sply
        if sply:
            if self._repetition():
                return DRAW
            self.seldepth = max(self.seldepth, sply)
        if sply >= self.max_ply:
            return self.evaluate(board)

        check = board.in_check()
        if check:
            depth += 1  # the check extension: forcing lines are searched a ply deeper
        self.movegen.gen(board)
        first, last = board.first_move[ply], board.first_move[ply + 1]
        self._score_moves(first, last)
        if self.follow_pv:
            self._sort_pv(first, last, sply)

        moves, scores = board.gen_dat, board.gen_score
        root_moves = self.root_moves if sply == 0 else None
        history = self.history
        found = False
        for i in range(first, last):
            _pick(moves, scores, i, last)
            m = moves[i]
            if root_moves and m not in root_moves:
                continue
            if not board.makemove(m):
                continue
            found = True
            x = -self.search(-beta, -alpha, depth - 1)
            board.takeback()
            if x > alpha:
                history[m & 4095] += depth
                if x >= beta:
                    return beta
                alpha = x
                self._update_pv(sply, m)
        if not found:
            return -MATE + sply if check else DRAW
        if board.fifty >= 100:  # after the mate test: a mate on the 100th ply still counts
            return DRAW
        return alpha

    def quiesce(self, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes >= self.next_check:
            self._checkup()
        board = self.board
        ply = board.ply
        sply = ply - self.root_ply
        self.pv_length[sply] = sply
        self.seldepth = max(self.seldepth, sply)
        x = self.evaluate(board)
        if sply >= self.max_ply:
            return x
        if x >= beta:  # stand pat: the side to move need not capture
            return beta
        alpha = max(alpha, x)

        self.movegen.gen_caps(board)
        first, last = board.first_move[ply], board.first_move[ply + 1]
        self._score_moves(first, last)
        if self.follow_pv:
            self._sort_pv(first, last, sply)

        moves, scores = board.gen_dat, board.gen_score
        for i in range(first, last):
            _pick(moves, scores, i, last)
            m = moves[i]
            if not board.makemove(m):
                continue
            x = -self.quiesce(-beta, -alpha)
            board.takeback()
            if x > alpha:
                if x >= beta:
                    return beta
                alpha = x
                self._update_pv(sply, m)
        return alpha

    # --- helpers ---------------------------------------------------------------------------

    def _update_pv(self, sply: int, m: int) -> None:
        row = self.pv[sply]
        row[sply] = m
        n = self.pv_length[sply + 1]
        row[sply + 1:n] = self.pv[sply + 1][sply + 1:n]
        self.pv_length[sply] = n

    def _score_moves(self, first: int, last: int) -> None:
        board = self.board
        moves, scores = board.gen_dat, board.gen_score
        piece = board.piece
        history = self.history
        del scores[first:]
        append = scores.append
        for i in range(first, last):
            m = moves[i]
            if m & (CAPTURE | PROMOTION):
                s = CAPTURE_BASE
                if m & CAPTURE:
                    # en passant: the victim is not on the to-square, but it is a pawn
                    victim = piece[(m >> 6) & 63] or PAWN
                    s += 10 * victim - piece[m & 63]
                if m & PROMOTION:
                    s += 10 * (m >> 18)
                append(s)
            else:
                h = history[m & 4095]
                append(min(HISTORY_CAP, h))

    def _sort_pv(self, first: int, last: int, sply: int) -> None:
        """Still on the previous iteration's PV? Then its move at this ply goes first."""
        self.follow_pv = False
        if sply >= len(self.prev_pv):
            return
        want = self.prev_pv[sply]
        moves = self.board.gen_dat
        for i in range(first, last):
            if moves[i] == want:
                self.follow_pv = True
                self.board.gen_score[i] += PV_BONUS
                return

    def _repetition(self) -> bool:
        """Has the current position occurred before, since the last capture or pawn move?
        hist[i] holds the hash before move i; those positions with the same side to move are
        an even number of plies back."""
        board = self.board
        hist = board.hist
        h = board.hash
        n = len(hist)
        stop = max(n - board.fifty, 0)
        for i in range(n - 2, stop - 1, -2):
            if hist[i][5] == h:
                return True
        return False


def _pick(moves: list[int], scores: list[int], i: int, last: int) -> None:
    """Swap the best-scored move of slots i..last-1 into slot i (the first best, so ties keep
    generation order)."""
    best = max(scores[i:last])
    j = scores.index(best, i, last)
    if j != i:
        moves[i], moves[j] = moves[j], moves[i]
        scores[i], scores[j] = scores[j], scores[i]


def search_position(board, depth: int | None = None, movetime_ms: float | None = None,
                    movegen=None, on_iteration=None) -> SearchResult:
    """Convenience: one search of ``board`` to a depth and/or for a time."""
    searcher = Searcher(movegen)
    return searcher.think(board, Limits(depth=depth, time_ms=movetime_ms), on_iteration)
