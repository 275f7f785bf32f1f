"""The search thread's control (hdl/search/search_thread.py joins it to its parts): a state
machine over the node procedure of docs/chip_search.md, the per-ply records, the killers, and
the job's node and clock counts.

* Enter: a quiescence node stands pat on its evaluation (or returns it at the ply limit); one
  entered by a move that may give check (``leaf_search.may_give_check``, square arithmetic on
  the move) waits in Kind for its in-check answer first: in check it becomes a full-width node
  (the check extension) or an evasion node; a full-width node that is not the search's root
  looks for a repetition (Repeat, the repetition table) or a fifty-move draw;
* Next: the next move from the finder (push promotions, then victim by victim, aggressor by
  aggressor) or, at a full-width node, from the stack the walk filled (quiet moves, castling,
  under-promotions, in generation order);
* Test: its legality by the attack unit with the move applied (castling: not in check, nor
  crossing an attacked square);
* Make: the squares written one a clock (each write keeps the evaluation's sums), the child's
  window; Leave: its score; Unmake: the squares back; Return: alpha-beta at the parent.

A quiescence child is settled without a make when its evaluation (the child evaluation, from
the parent's sums and the move) stands pat or it sits at the ply limit, and its move cannot
give a check that would change its kind: its node is counted, the parent goes on. A full-width
node in check gets a ply more when its in-check answer arrives (before its first child is
judged). Each node entered writes its hash into the repetition table at its ply, after the
job's history. A node asks the attack unit whether its side is in check as it is entered; the
pin test (``leaf_search.needs_query``) then settles most moves' legality without a query. (The
answer comes ``attack.LATENCY`` clocks later, tagged with the ply; the next node at that ply is
entered ``REENTRY`` clocks later at the soonest, so no answer is taken for another node's.)
Board writes reach the planes two clocks after they are asked for: Settle waits the clock
between.
"""

from contextlib import contextmanager

from amaranth import Array, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory, ReadPort, WritePort
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import BISHOP, KING, KNIGHT, NO_PIECE, PAWN, QUEEN, ROOK
from posdata.engine.search.capture_finder import VICTIM_ORDER
from posdata.engine.search.leaf_search import (
    CONTEMPT,
    FIFTY_PLIES,
    HASH_BITS,
    MAX_EXTENSIONS,
    QS_CHECK_PLIES,
    QS_PLY_LIMIT,
    REPETITION_PLIES,
)
from posdata.engine.search.searcher import MATE

from ..chip.attack import LATENCY, query_stream, result_stream
from ..chip.make_unmake import SequencerControl, Undo
from ..chip.move_stack import StackEntry, StackUse, hand, record_port
from ..common.layouts import PIECE, SQUARE, MoveLayout, Position
from .capture_pipe import Captures
from .eval_pipe import LATENCY as EVAL_LATENCY
from .eval_pipe import VERDICT_LATENCY, Ask, Verdict
from .evaluator import SCORE
from .finder import MOVE, SLOTS, Cursors
from .records import (
    FIFTY_BITS,
    KILLER_SLOTS,
    PLY_BITS,
    RECORDS,
    STACK_BITS,
    HistoryWrite,
    Job,
    Past,
    PlyRecords,
    job_refused,
)
from .repetition import Table

#: the control's states, as the ``phase`` output numbers them (where the clocks go)
STATES = ("Idle", "Enter", "Next", "Walk", "Collect", "Collected", "Test", "Judge", "Make",
          "Leave", "Unmake", "Settle", "Return", "Check", "Abort", "Kind", "Repeat")
SETTLE = 2  #: clocks from a board write to the planes: Settle waits the one between
#: the fewest clocks from entering a node to entering the next node at its ply: Enter, Leave,
#: Unmake (2), Return, Next, Test, Make (2), Settle, then Enter. A node's in-check answer,
#: tagged with its ply only, must arrive before then.
REENTRY = 10
assert LATENCY < REENTRY, "an in-check answer could be taken for the next node at its ply"
#: clocks Abort waits at least: an attack unit answer (5 clocks) still under way is gone after
DRAIN = 7
#: what a capture candidate's victim kind (the finder's order) and slot (its own cursor: the
#: picked slot + 1) say of the pieces on its squares
SLOT_PIECES = {"pawn": PAWN, "ep": PAWN, "knight": KNIGHT, "bishop": BISHOP, "rook": ROOK,
               "queen": QUEEN, "king": KING}
SERIAL_BITS = 5  #: an evaluation's serial: at most two new ones a clock, none lives 16 clocks

#: an attack query's tag: the in-check query of a node entered (and its ply), or a legality query
Tag = data.StructLayout({"check": 1, "ply": PLY_BITS})

#: the generator core as the control drives it: a walk of the node (promotions expanded), its
#: end, and whether one still runs (Abort drains it)
CoreControl = wiring.Signature({"start": Out(1), "expand": Out(1), "done": In(1),
                                "busy": In(1)})

#: the move stack (a block RAM of moves) as the control reads and writes it
StackRead = ReadPort.Signature(addr_width=STACK_BITS, shape=MOVE).flip()
StackWrite = WritePort.Signature(addr_width=STACK_BITS, shape=MOVE).flip()


def _clamp(x, lo, hi):
    return Mux(x < lo, lo, Mux(x > hi, hi, x))


def fails_high(score, beta):
    """Return's cutoff: the child's score, seen from the parent, reaches the parent's beta."""
    return score >= beta


class SearchControl(wiring.Component):
    """Ports
    -----
    history : In(HistoryWrite)  the hashes of the job's earlier positions, while idle (into the
                                repetition table)
    job : In(Job); past : In(Past); start : In(1)   the job and its past, taken with ``start``
    abort : In(1)            back to Idle from any state (``busy`` falls once the parts are quiet)
    busy, done : Out(1)      ``done`` pulses with the result
    error : Out(1)           with ``done``, a job refused at its start (records.job_refused; or
                             a history over REPETITION_PLIES): no search, nothing counted
    score : Out(SCORE); best : Out(MOVE); best_valid : Out(1)   the result
    nodes : Out(64); clocks : Out(64)   the job's nodes and clocks from start to done
    phase : Out  the state (``STATES``), for clock accounts
    kings : In(ArrayLayout(SQUARE, 2))  the board's kings
    mover, captured : In(PIECE)  the pieces on the move under test's from- and to-squares
                             (make/unmake probes them)
    query : Out(query_stream(Tag)); result : In(result_stream(Tag))   the attack unit
    core : Out(CoreControl); generated : In(stream.Signature(MoveLayout))   the generator core
    stack_read : Out(StackRead); stack_write : Out(StackWrite)   the move stack's ports
    sequencer : Out(SequencerControl); root : Out(Position); position : In(Position);
    hand : Out(hand(StackEntry)); use : In(StackUse); undo : In(record_port(Undo))
                             make/unmake: its control, the job's position, the move under test
                             and the ply's records
    finder : Out(Cursors)    the capture finder's push promotions (stage 0)
    captures : Out(Captures) the capture pipe (stage 1): restarted as a node is entered and
                             after a made child returns, its candidates taken one at a time
    evaluation : Out(Ask)    the evaluation pipe: the move under test, the node's window; the
                             child's score and verdict
    repetition : Out(Table)  the repetition table
    hash : In(HASH_BITS)     the position's hash

    Parameters
    ----------
    fails_high : (score, beta) -> Value
        Return's cutoff (``fails_high``); the tests pass a faulty one.
    ply_limit : int
        How many plies below the frontier a quiescence node returns its evaluation
        (``leaf_search.QS_PLY_LIMIT``; the tests pass a smaller one).
    """

    def __init__(self, fails_high=fails_high, ply_limit: int = QS_PLY_LIMIT):
        self._fails_high = fails_high
        self._ply_limit = ply_limit
        super().__init__({
            "history": In(HistoryWrite), "job": In(Job), "past": In(Past), "start": In(1),
            "abort": In(1),
            "busy": Out(1), "done": Out(1), "error": Out(1), "score": Out(SCORE),
            "best": Out(MOVE), "best_valid": Out(1), "nodes": Out(64), "clocks": Out(64),
            "phase": Out(range(len(STATES))),
            "kings": In(data.ArrayLayout(SQUARE, 2)), "mover": In(PIECE),
            "captured": In(PIECE),
            "query": Out(query_stream(Tag)), "result": In(result_stream(Tag)),
            "core": Out(CoreControl), "generated": In(stream.Signature(MoveLayout)),
            "stack_read": Out(StackRead), "stack_write": Out(StackWrite),
            "sequencer": Out(SequencerControl), "root": Out(Position),
            "position": In(Position), "hand": Out(hand(StackEntry)), "use": In(StackUse),
            "undo": In(record_port(Undo)),
            "finder": Out(Cursors), "captures": Out(Captures), "evaluation": Out(Ask),
            "repetition": Out(Table),
            "hash": In(HASH_BITS),
        })

    def elaborate(self, platform):
        m = Module()
        self._state(m)
        self._comb(m)
        with m.FSM():
            self._idle(m)
            self._enter(m)
            self._next(m)
            self._walk(m)
            self._test(m)
            self._make(m)
            self._leave(m)
            self._unmake(m)
            self._settle(m)
            self._return(m)
            self._check(m)
            self._abort(m)
            self._kind(m)
            self._repeat(m)
        return m

    @contextmanager
    def _in(self, m, name):
        """``m.State(name)``, numbered on the phase output."""
        with m.State(name):
            m.d.comb += self.phase.eq(STATES.index(name))
            yield
            if name not in ("Idle", "Abort"):  # last, so it wins over the state's own moves
                with m.If(self.abort):
                    m.d.sync += [self.done.eq(0), self._busy.eq(1), self.step.eq(0)]
                    m.next = "Abort"

    # --- registers -------------------------------------------------------------------------

    def _state(self, m):
        self.r = PlyRecords()
        m.submodules.records = self.r.memory
        self.ply = Signal(PLY_BITS)
        self.side = self.position.side
        self.sp = Signal(STACK_BITS)
        self.root_ply = Signal(7)
        self.ret = Signal(SCORE)       # the score a leaving node hands up
        self.cand = Signal(MoveLayout)  # the move under test
        # writes of make/unmake, queries of a test, settle clocks, the drain
        self.step = Signal(range(max(SETTLE + EVAL_LATENCY, DRAIN + 1)))
        self.illegal = Signal()
        self.judged = Signal()          # the legality answer came: the move is legal
        # the evaluations: which move each one in the pipe is of (``_evaluations``)
        self.serial = Signal(SERIAL_BITS)       # the capture pipe's head's
        self.cand_serial = Signal(SERIAL_BITS)  # the move under test's
        self.cand_piped = Signal()      # the move under test came from the capture pipe
        self.have = Signal()            # its score and verdict are in (score_q, verdict_q)
        self.score_q = Signal(SCORE)
        self.verdict_q = Signal(Verdict)
        self.taking_head = Signal()     # Next takes the capture pipe's head
        self.feed_null = Signal()       # Settle's own evaluation: no move
        self.rescan = Signal()          # a made child has returned: the capture pipe restarts
        self.kept = Signal(SCORE)       # a made child's evaluation, as the parent found it
        self.own_eval = Signal()        # the node entered next evaluates itself (in Settle)
        self.pinned = Signal()          # the pin test found the move under test legal
        self.answers = Signal(2)
        self.hist_len = Signal(range(REPETITION_PLIES + 1))  # the job's earlier positions
        # the killers: per ply of the job the last two quiet moves that cut off there, the
        # newer first (valid bits per ply, cleared as a job starts)
        killers = Memory(shape=data.ArrayLayout(MoveLayout, KILLER_SLOTS), depth=RECORDS,
                         init=[])
        m.submodules.killers = killers
        self.kill_r = killers.read_port(domain="comb")
        self.kill_w = killers.write_port()
        self.kill_valid = [Signal(RECORDS, name=f"killer{i}_valid") for i in range(KILLER_SLOTS)]
        m.d.comb += [self.kill_r.addr.eq(self.ply), self.kill_w.addr.eq(self.ply)]
        self.gives = Signal()          # the move under test may give check (kept for Make)
        # Judge's choices, registered in Test from the move under test and the ply's record
        # (neither changes between): the move-under-test's make and settle tests then reach
        # Judge's next state and ``ret`` from registers, not through the check arithmetic
        self.gives_q = Signal()        # it may give check
        self.anyway = Signal()         # a legal child is made without its evaluation (a
                                       # full-width child's is not read, castling's is its own)
        self.makes = Signal()          # ... or made, its evaluation kept (it may give check)
        self.at_limit = Signal()       # its child sits at the ply limit
        self.child_fifty = Signal(FIFTY_BITS)  # the halfmove counter after it
        # the walk expands promotions (stage 2 takes the under-promotions)
        m.d.comb += self.core.expand.eq(1)
        m.d.sync += self.done.eq(0)
        # the child's window, registered: alpha and beta change many clocks before the
        # evaluation pipe's last stage reads them (in Enter, Kind or Return, then Next and Test)
        window = self.evaluation.window
        m.d.sync += [window.neg_alpha.eq(-self.r.alpha), window.neg_beta.eq(-self.r.beta)]
        # a node is counted from a registered pulse, a clock after it is found: the 64-bit
        # counter's carry chain then starts from a register, not from the control's decision
        self.count = Signal()
        m.d.sync += self.count.eq(0)
        with m.If(self.count):
            m.d.sync += self.nodes.eq(self.nodes + 1)
        busy = Signal()
        with m.If(busy):
            m.d.sync += self.clocks.eq(self.clocks + 1)
        self._busy = busy
        m.d.comb += self.busy.eq(busy)
        # the host writes while idle; make/unmake's hand is the move under test, its records
        # (the move made from the ply, the undo record) the ply's
        hand, r = self.hand, self.r
        m.d.comb += [self.sequencer.host_ok.eq(~busy),
                     hand.entry.frm.eq(self.cand.frm), hand.entry.to.eq(self.cand.to),
                     hand.entry.promote.eq(self.cand.flags.promotion),
                     hand.piece.eq(self.cand.promo),
                     hand.made.move.frm.eq(r.move.frm), hand.made.move.to.eq(r.move.to),
                     hand.made.move.promote.eq(r.move.flags.promotion),
                     self.undo.q.eq(r.undo)]
        with m.If(self.use.record):
            m.d.sync += r.move.eq(self.cand)
        with m.If(self.undo.en):
            m.d.sync += r.undo.eq(self.undo.data)

    # --- states ----------------------------------------------------------------------------

    def _idle(self, m):
        r, job, past = self.r, self.job, self.past
        refused = (job_refused(job.alpha, job.beta, job.depth, job.ply, job.ext)
                   | (past.length > REPETITION_PLIES))
        with self._in(m, "Idle"):
            with m.If(self.history.en):  # the job's earlier positions, oldest first
                put, h = self.repetition.put, self.history
                m.d.comb += [put.en.eq(1), put.index.eq(h.index), put.hash.eq(h.hash)]
            with m.If(self.start & refused):
                m.d.sync += [self.error.eq(1), self.done.eq(1), self.score.eq(0),
                             self.best_valid.eq(0), self.nodes.eq(0), self.clocks.eq(0)]
            with m.Elif(self.start):
                m.d.sync += [
                    self.error.eq(0),
                    self._busy.eq(1), self.clocks.eq(0), self.nodes.eq(1),
                    self.best_valid.eq(0), self.ply.eq(0), self.sp.eq(0),
                    self.root_ply.eq(job.ply),
                    r.alpha.eq(job.alpha), r.beta.eq(job.beta), r.depth.eq(job.depth),
                    self.step.eq(0), self.own_eval.eq(job.depth == 0),
                    r.ext.eq(job.ext), r.maybe.eq(1), r.fifty.eq(past.fifty),
                    self.hist_len.eq(past.length),
                ] + [valid.eq(0) for valid in self.kill_valid]
                root = self.root
                m.d.comb += [self.sequencer.load.eq(1), root.side.eq(job.side),
                             root.castle.eq(job.castle), root.ep_valid.eq(job.ep_valid),
                             root.ep_sq.eq(job.ep_sq)]
                m.next = "Settle"

    @staticmethod
    def _matters(depth, ext):
        """Does being in check change a node's kind or depth? (leaf_search's node: the check
        extension, then the evasions of the first quiescence plies)"""
        return (((depth >= 0) & (ext < MAX_EXTENSIONS))
                | ((depth <= 0) & (depth > -QS_CHECK_PLIES)))

    def _enter(self, m):
        r = self.r
        depth = r.depth
        q = self.query.payload
        with self._in(m, "Enter"):
            m.d.sync += [r.base.eq(self.sp), r.stage.eq(0), r.promo_file.eq(0),
                         r.vkind.eq(0), r.vsq.eq(0), r.vvalid.eq(0),
                         r.found.eq(0), r.known.eq(0), r.evasion.eq(0), self.rescan.eq(0)]
            # the capture pipe from the node's first victim, its attack map computed anew
            go = self.captures.restart
            m.d.comb += [go.valid.eq(1), go.payload.new_map.eq(1)]
            m.d.sync += self.serial.eq(self.serial + 1)
            # in check? (the pin test's question, the node's kind, mate or stalemate's)
            m.d.comb += [self.query.valid.eq(1), q.tag.check.eq(1),
                         q.query.sq.eq(self.kings[self.side]),
                         q.query.clr_valid.eq(0), q.query.put_valid.eq(0),
                         q.query.epc_valid.eq(0)]
            # the node's hash, after the job's history: what the nodes below compare with
            put = self.repetition.put
            m.d.comb += [put.en.eq(1), put.index.eq(self.hist_len + self.ply),
                         put.hash.eq(self.hash)]
            with m.If(depth <= -self._ply_limit):
                m.d.sync += self.ret.eq(_clamp(self._eval(), r.alpha, r.beta))
                m.next = "Leave"
            with m.Elif((depth <= 0) & r.maybe & self._matters(depth, r.ext)):
                m.next = "Kind"
            with m.Elif(depth <= 0):
                self._stand_pat(m)
            with m.Else():
                self._full_width(m)

    def _eval(self):
        """The entered node's evaluation: the one its parent found for it, or its own (the
        job's root, castling's child: Settle evaluates them)."""
        return self.kept

    def _stand_pat(self, m):
        r, e = self.r, self._eval()
        m.next = "Next"
        with m.If(e >= r.beta):
            m.d.sync += self.ret.eq(r.beta)
            m.next = "Leave"
        with m.Elif(e > r.alpha):  # (the verdicts under way read the old window)
            m.d.sync += [r.alpha.eq(e), self.serial.eq(self.serial + 1)]

    def _full_width(self, m):
        """A full-width node: a draw if it repeats a position or the fifty moves are up (never
        the search's root)."""
        r, rep = self.r, self.repetition.scan
        draw = self._draw()
        with m.If((self.root_ply == 0) & (self.ply == 0)):
            m.next = "Next"
        with m.Elif(r.fifty >= FIFTY_PLIES):
            m.d.sync += self.ret.eq(draw)
            m.next = "Leave"
        with m.Else():
            m.d.comb += [rep.start.eq(1), rep.top.eq(self.hist_len + self.ply),
                         rep.count.eq(Mux(r.fifty > REPETITION_PLIES, REPETITION_PLIES,
                                          r.fifty)),
                         rep.hash.eq(self.hash)]
            m.next = "Repeat"

    def _kind(self, m):
        """A quiescence node whose move may have given check waits for the answer: in check it
        is extended to a full-width node (at the frontier, extensions left) or searches its
        evasions (in the first QS_CHECK_PLIES); else it stands pat as any other."""
        r = self.r
        with self._in(m, "Kind"):
            with m.If(r.known):
                with m.If(r.incheck & (r.depth == 0) & (r.ext < MAX_EXTENSIONS)):
                    m.d.sync += [r.depth.eq(1), r.ext.eq(r.ext + 1)]
                    self._full_width(m)
                with m.Elif(r.incheck & (r.depth > -QS_CHECK_PLIES)):
                    m.d.sync += r.evasion.eq(1)
                    m.next = "Next"
                with m.Else():
                    self._stand_pat(m)

    def _repeat(self, m):
        with self._in(m, "Repeat"):
            with m.If(self.repetition.scan.done):
                m.next = "Next"
                with m.If(self.repetition.scan.repeated):
                    m.d.sync += self.ret.eq(self._draw())
                    m.next = "Leave"

    def _draw(self):
        """A repetition or fifty-move draw, clamped: CONTEMPT against the search root's side
        (to move at an even ply from the root), as much for the other."""
        even = ~(self.root_ply[0] ^ self.ply[0])
        return _clamp(Mux(even, Const(-CONTEMPT, SCORE), Const(CONTEMPT, SCORE)),
                      self.r.alpha, self.r.beta)

    def _next(self, m):
        r, f = self.r, self.finder
        with self._in(m, "Next"):
            with m.If(self.rescan):
                # back from a made child, the planes the node's again: the capture pipe
                # from the record's cursor (the last candidate's own), the map anew
                go = self.captures.restart
                cursor = go.payload.cursor
                m.d.comb += [go.valid.eq(1), go.payload.new_map.eq(1),
                             cursor.vkind.eq(r.vkind), cursor.vsq.eq(r.vsq),
                             cursor.vvalid.eq(r.vvalid), cursor.slot.eq(r.slot)]
                m.d.sync += [self.rescan.eq(0), self.serial.eq(self.serial + 1)]
            with m.Switch(r.stage):
                with m.Case(0):
                    with m.If(f.promo_valid):
                        m.d.sync += [self.cand.eq(f.promo_move),
                                     r.promo_file.eq(f.promo_next_file)]
                        self._take_unevaluated(m)
                        m.next = "Test"
                    with m.Else():  # no push promotion (left): the captures at once
                        m.d.sync += r.stage.eq(1)
                        self._next_capture(m)
                with m.Case(1):
                    self._next_capture(m)
                with m.Case(2):
                    with m.If(r.ptr != r.end):
                        # past the first killer's place, over the second's if it is empty
                        skip = (r.ptr == r.base) & ~r.killed[1]
                        m.d.sync += [self.cand.eq(self.stack_read.data),
                                     r.ptr.eq(r.ptr + Mux(skip, 2, 1))]
                        self._take_unevaluated(m)
                        m.next = "Test"
                    with m.Elif(r.found):
                        m.d.sync += self.ret.eq(r.alpha)
                        m.next = "Leave"
                    with m.Else():
                        m.d.sync += self.step.eq(0)
                        m.next = "Check"

    def _next_capture(self, m):
        r, pipe = self.r, self.captures
        c = pipe.candidates
        with m.If(self.rescan):
            pass  # (what the pipe offers in its restart's clock is stale)
        with m.Elif(c.valid):  # the next capture, with its own cursor for the record
            m.d.comb += [c.ready.eq(1), self.taking_head.eq(1)]
            m.d.sync += [self.cand.eq(c.payload.move), r.vvalid.eq(1),
                         r.vkind.eq(c.payload.vkind), r.vsq.eq(c.payload.vsq),
                         r.slot.eq(c.payload.slot), self.cand_serial.eq(self.serial),
                         self.cand_piped.eq(1), self.serial.eq(self.serial + 1)]
            m.next = "Test"
        with m.Elif(~pipe.idle):
            pass  # the pipe's latency: it has not yet found the next one
        with m.Elif((r.depth > 0) | r.evasion):
            m.d.sync += [r.stage.eq(2), r.ptr.eq(self.sp)]
            m.next = "Walk"
        with m.Else():
            m.d.sync += self.ret.eq(r.alpha)
            m.next = "Leave"

    def _take_unevaluated(self, m):
        """Next takes a move not evaluated ahead (a push promotion, a stack entry): from Test
        on the evaluation pipe is fed the move under test, under a serial of its own."""
        m.d.sync += [self.cand_piped.eq(0), self.have.eq(0),
                     self.cand_serial.eq(self.serial + 1), self.serial.eq(self.serial + 2)]

    def _evaluations(self, m):
        """The evaluation pipe takes a move a clock. Outside Test and Judge of a move not
        from the capture pipe (and Settle's own evaluation) it is fed the capture pipe's head,
        the next capture, whose pieces its victim kind and slot name: so while one capture is
        tested and judged the next one is evaluated, and its verdict is often in as it is
        taken. A serial goes beside each move fed, through a delay line as long as the pipe;
        a verdict coming out under the move under test's serial is kept (``score_q``,
        ``verdict_q``, ``have``). The serial changes as the head does (taken, restarted) and
        as the node's alpha does (the verdicts under way read the old window)."""
        ask, head = self.evaluation, self.captures.candidates
        hp = head.payload
        mover = Array(Const(SLOT_PIECES[name], PIECE) for name, _ in SLOTS)[hp.slot - 1]
        captured = Mux(hp.move.flags.ep, NO_PIECE,
                       Array(Const(p, PIECE) for p in VICTIM_ORDER)[hp.vkind])
        testing = ((self.phase == STATES.index("Test")) | (self.phase == STATES.index("Judge")))
        own = testing & ~self.cand_piped
        Tag = data.StructLayout({"valid": 1, "serial": SERIAL_BITS})
        fed = Signal(Tag)
        with m.If(self.feed_null):
            m.d.comb += ask.null.eq(1)
        with m.Elif(own):
            m.d.comb += [ask.move.eq(self.cand), ask.mover.eq(self.mover),
                         ask.captured.eq(self.captured),
                         fed.valid.eq(1), fed.serial.eq(self.cand_serial)]
        with m.Else():
            m.d.comb += [ask.move.eq(hp.move), ask.mover.eq(mover), ask.captured.eq(captured),
                         fed.valid.eq(head.valid & ~self.captures.restart.valid),
                         fed.serial.eq(self.serial)]
        line = [Signal(Tag, name=f"eval_tag{i}") for i in range(VERDICT_LATENCY)]
        m.d.sync += [line[0].eq(fed)] + [b.eq(a) for a, b in zip(line, line[1:])]
        out = line[-1]  # the serial of the move whose verdict is on the pipe's output
        score = Signal(SCORE)  # the score, a clock after it is out: beside its verdict
        m.d.sync += score.eq(ask.score)
        keep = [self.score_q.eq(score), self.verdict_q.eq(ask.verdict)]
        head_out = out.valid & (out.serial == self.serial)
        with m.If(self.taking_head):
            m.d.sync += self.have.eq(head_out)
            with m.If(head_out):
                m.d.sync += keep
        with m.Elif(out.valid & (out.serial == self.cand_serial)):
            m.d.sync += [self.have.eq(1)] + keep

    def _walk(self, m):
        """Stage 2: the generator's moves onto the stack, stage 1's left out; the ply's killers,
        where the walk generates them, into the two places ahead of the others (base, base +
        1), so that the reads take them first (leaf_search's order)."""
        r, core, moves = self.r, self.core, self.generated
        mv = moves.payload
        stage1 = Mux(mv.flags.promotion, mv.promo == QUEEN, mv.flags.capture)
        # the ply's killers and their valid bits, registered: the ply holds still from Enter
        # on, and no killer is written at it while it walks (Return writes them)
        killers = Signal.like(self.kill_r.data)
        valid = Signal(KILLER_SLOTS)
        m.d.sync += [killers.eq(self.kill_r.data)] + [
            valid[i].eq(self.kill_valid[i].bit_select(self.ply, 1)) for i in range(KILLER_SLOTS)]
        hits = [valid[i] & (mv.as_value() == killers[i].as_value()) for i in range(KILLER_SLOTS)]
        with self._in(m, "Walk"):
            m.d.comb += core.start.eq(1)
            m.d.sync += [self.sp.eq(self.sp + KILLER_SLOTS), r.killed.eq(0)]
            m.next = "Collect"
        with self._in(m, "Collect"):
            m.d.comb += moves.ready.eq(1)
            with m.If(moves.valid & ~stage1):
                m.d.comb += self.stack_write.en.eq(1)
                with m.If(hits[0]):
                    m.d.comb += self.stack_write.addr.eq(r.base)
                    m.d.sync += r.killed[0].eq(1)
                with m.Elif(hits[1]):
                    m.d.comb += self.stack_write.addr.eq(r.base + 1)
                    m.d.sync += r.killed[1].eq(1)
                with m.Else():
                    m.d.sync += self.sp.eq(self.sp + 1)
            with m.If(core.done):
                m.next = "Collected"
        with self._in(m, "Collected"):
            # the first move to read: a killer's place, or the first after them (the address a
            # clock ahead of Next, as the block RAM wants)
            first = Mux(r.killed[0], r.base, Mux(r.killed[1], r.base + 1, r.base + KILLER_SLOTS))
            m.d.comb += self.stack_read.addr.eq(first)
            m.d.sync += [r.end.eq(self.sp), r.ptr.eq(first)]
            m.next = "Next"

    def _test(self, m):
        """One query a move, where the king stands after it; castling three: the king's square,
        the square it crosses, and where it lands."""
        c, r = self.cand, self.r
        king = self.kings[self.side]
        kf, kr, ff, fr = king[:3], king[3:], c.frm[:3], c.frm[3:]
        on_a_line = (kf == ff) | (kr == fr) | (kf + fr == ff + kr) | (kf + kr == ff + fr)
        needs_query = (self.mover == KING) | c.flags.ep | r.incheck | on_a_line
        child = r.depth - 1
        with self._in(m, "Test"):
            # (the node's in-check answer, which may extend it, is in from Test's last clock on)
            anyway = (child > 0) | c.flags.castle
            m.d.sync += [self.gives_q.eq(self.gives_now), self.anyway.eq(anyway),
                         self.makes.eq(anyway | (self.gives_now & self._matters(child, r.ext))),
                         self.at_limit.eq(child <= -self._ply_limit)]
            with m.If(self.step == 0):
                m.d.sync += [self.illegal.eq(0), self.answers.eq(0), self.pinned.eq(0),
                             self.judged.eq(0)]
            with m.If(c.flags.castle & r.known):  # (the answer may extend the node first)
                m.d.comb += self.query.valid.eq(1)
                m.d.sync += self.step.eq(self.step + 1)
                with m.If(self.step == 2):
                    m.next = "Judge"
            with m.Elif(r.known):  # the pin test (leaf_search.needs_query)
                with m.If(needs_query):
                    m.d.comb += self.query.valid.eq(1)
                    m.next = "Judge"
                with m.Else():  # legal: Judge waits for the child's evaluation only
                    m.d.sync += self.pinned.eq(1)
                    m.next = "Judge"
        res = self.result
        answer = res.valid & ~res.payload.tag.check  # the last one is used as it arrives
        with self._in(m, "Judge"):
            with m.If(self.pinned | self.judged):
                # (a child made whatever its evaluation does not wait for the verdict)
                with m.If(self.anyway | self.have):
                    self._decide(m)
            with m.Elif(answer & (self.answers + 1 == Mux(self.cand.flags.castle, 3, 1))):
                m.d.sync += self.step.eq(0)
                with m.If(self.illegal | res.payload.attacked):
                    m.next = "Next"
                with m.Else():  # legal: decided from the next clock, the verdict in or not
                    m.d.sync += self.judged.eq(1)

    def _decide(self, m):
        """A legal move: make it, or settle its child from the parent's evaluation of it."""
        r, c = self.r, self.cand
        e, verdict = self.score_q, self.verdict_q
        castle = c.flags.castle
        mover = self.mover
        # the child's own evaluation: the parent's, kept for it; a castling's (not covered
        # by ChildEval) from its board, where Settle waits a clock more
        m.d.sync += [self.kept.eq(e), self.own_eval.eq(castle), self.gives.eq(self.gives_q),
                     self.child_fifty.eq(Mux(c.flags.capture | (mover == PAWN), 0,
                                             Mux(r.fifty == (1 << FIFTY_BITS) - 1, r.fifty,
                                                 r.fifty + 1)))]
        # a child whose move may give check is made: its kind waits for its in-check answer
        with m.If(self.makes):
            m.d.comb += self.sequencer.make.eq(1)
            m.next = "Make"
        # a quiescence child settled from the parent: its node counted, no make
        with m.Elif(self.at_limit):
            m.d.sync += [self.count.eq(1), r.move.eq(self.cand), self.ret.eq(verdict.clamped)]
            m.next = "Return"
        with m.Elif(verdict.stands):  # it stands pat: the parent's alpha stays
            m.d.sync += [self.count.eq(1), r.found.eq(1)]
            m.next = "Next"
        with m.Else():
            m.d.comb += self.sequencer.make.eq(1)
            m.next = "Make"

    def _may_give_check(self, m, mover):
        """leaf_search.may_give_check on square numbers: castling, en passant, a from-square
        on a line with the enemy king (a discovered check), or the piece landing where its kind
        would attack the enemy king's square with nothing between."""
        c = self.cand
        king = self.kings[~self.side]
        kf, kr, ff, fr, tf, tr = king[:3], king[3:], c.frm[:3], c.frm[3:], c.to[:3], c.to[3:]

        def on_line(f, r):
            return (kf == f) | (kr == r) | (kf + r == f + kr) | (kf + kr == f + r)

        orth = (kf == tf) | (kr == tr)
        diag = (kf + tr == tf + kr) | (kf + kr == tf + tr)
        piece = Mux(c.flags.promotion, c.promo, mover)
        df = Signal(range(-7, 8))
        dr = Signal(range(-7, 8))
        m.d.comb += [df.eq(kf - tf), dr.eq(kr - tr)]
        adf = Mux(df < 0, -df, df)
        adr = Mux(dr < 0, -dr, dr)
        ahead = Mux(self.side, dr == -1, dr == 1)
        lands = Mux(piece == PAWN, (adf == 1) & ahead,
                Mux(piece == KNIGHT, ((adf == 1) & (adr == 2)) | ((adf == 2) & (adr == 1)),
                Mux(piece == BISHOP, diag,
                Mux(piece == ROOK, orth,
                Mux(piece == QUEEN, orth | diag, 0)))))
        return c.flags.castle | c.flags.ep | on_line(ff, fr) | lands

    def _comb(self, m):
        """What the states share: the evaluations, the finder's promotion cursor and the stack's
        read address from the ply's records, the stack's write port, the query of the move under
        test (Test) and the answers it collects (Judge)."""
        r, p, f = self.r, self.ply, self.finder
        self._evaluations(m)
        # the move under test may give check (Judge decides on it; make/unmake probes its
        # from-square, so the mover is known)
        self.gives_now = Signal()
        m.d.comb += self.gives_now.eq(self._may_give_check(m, self.mover))
        m.d.comb += f.promo_file.eq(r.promo_file)
        # the stack's read comes a clock after its address (block RAM): the cursor never moves
        # in the clock before Next reads it (Next -> Test, Walk -> Collect, Leave -> Unmake come
        # between)
        m.d.comb += self.stack_read.addr.eq(r.ptr)
        m.d.comb += [self.stack_write.addr.eq(self.sp),
                     self.stack_write.data.eq(self.generated.payload)]
        c, side = self.cand, self.side  # (make/unmake probes c's squares)
        king = self.kings[side]
        ep_victim = Mux(side, c.to + 8, c.to - 8)[:6]
        q = self.query.payload.query
        castling, last = c.flags.castle, self.step == 2
        m.d.comb += [
            q.by.eq(~side), q.clr.eq(c.frm), q.put.eq(c.to), q.epc.eq(ep_victim),
            q.epc_valid.eq(c.flags.ep),
            q.sq.eq(Mux(castling, Mux(self.step == 0, c.frm,
                                      Mux(self.step == 1, (c.frm + c.to) >> 1, c.to)),
                        Mux(self.mover == KING, c.to, king))),
            q.clr_valid.eq(~castling | last), q.put_valid.eq(~castling | last),
        ]
        m.d.comb += [self.query.payload.tag.check.eq(0),
                     self.query.payload.tag.ply.eq(p)]
        res = self.result
        with m.If(res.valid & res.payload.tag.check):
            with m.If(res.payload.tag.ply == p):  # else a child's, left before its answer
                m.d.sync += [r.incheck.eq(res.payload.attacked), r.known.eq(1)]
                # the check extension of a full-width node (a quiescence node's is in Kind),
                # on the node's one answer
                with m.If(res.payload.attacked & ~r.known & (r.depth >= 1)
                          & (r.ext < MAX_EXTENSIONS)):
                    m.d.sync += [r.depth.eq(r.depth + 1), r.ext.eq(r.ext + 1)]
        with m.Elif(res.valid):
            m.d.sync += [self.answers.eq(self.answers + 1),
                         self.illegal.eq(self.illegal | res.payload.attacked)]

    def _make(self, m):
        """Make/unmake writes the move's squares (begun as the move was judged legal); with
        its last write, the child's ply: its window, one node more."""
        r, p = self.r, self.ply
        with self._in(m, "Make"):
            with m.If(self.sequencer.made):
                r.spill(m, p)
                m.d.sync += [
                    self.count.eq(1), self.ply.eq(p + 1),
                    r.alpha.eq(-r.beta), r.beta.eq(-r.alpha), r.depth.eq(r.depth - 1),
                    r.maybe.eq(self.gives), r.fifty.eq(self.child_fifty),
                    self.step.eq(0),
                ]
                m.next = "Settle"

    def _leave(self, m):
        r, p = self.r, self.ply
        with self._in(m, "Leave"):
            m.d.sync += self.sp.eq(r.base)
            with m.If(p == 0):
                m.d.sync += [self.score.eq(self.ret), self.done.eq(1), self._busy.eq(0)]
                m.next = "Idle"
            with m.Else():
                # back to the parent's side and records; unmake begins with them
                m.d.comb += [self.sequencer.flip.eq(1), self.sequencer.unmake.eq(1)]
                # (the parent's capture pipe restarts in its Next: the planes change under it)
                m.d.sync += [self.ply.eq(p - 1), self.step.eq(0), self.rescan.eq(1)]
                r.restore(m, p - 1)
                m.next = "Unmake"

    def _unmake(self, m):
        with self._in(m, "Unmake"):
            with m.If(self.sequencer.unmade):
                m.next = "Return"  # the parent reads the planes in Next, a clock later

    def _settle(self, m):
        """The writes reach the planes; a node with no evaluation from its parent gets its
        own, the child evaluation of no move, once the board it reads has settled."""
        with self._in(m, "Settle"):
            m.d.sync += self.step.eq(self.step + 1)
            m.d.comb += self.feed_null.eq(self.own_eval)
            with m.If(self.step == Mux(self.own_eval, SETTLE - 1 + EVAL_LATENCY, SETTLE - 2)):
                m.d.sync += [self.step.eq(0), self.own_eval.eq(0)]
                with m.If(self.own_eval):
                    m.d.sync += self.kept.eq(self.evaluation.score)
                m.next = "Enter"

    def _return(self, m):
        r = self.r
        x = Signal(SCORE)
        m.d.comb += x.eq(-self.ret)
        with self._in(m, "Return"):
            with m.If(self._fails_high(x, r.beta)):
                self._note_best(m)
                with m.If(r.stage == 2):  # a quiet move cut off: the ply's newer killer
                    self._note_killer(m)
                m.d.sync += self.ret.eq(r.beta)
                m.next = "Leave"
            with m.Else():
                m.d.sync += r.found.eq(1)
                with m.If(x > r.alpha):  # (a verdict under way read the old window)
                    m.d.sync += [r.alpha.eq(x), self.serial.eq(self.serial + 1)]
                    self._note_best(m)
                m.next = "Next"

    def _note_killer(self, m):
        """leaf_search.note_killer: the move becomes the first killer, the first the second
        (unless it is the first already)."""
        ply, move, first = self.ply, self.r.move, self.kill_r.data[0]
        valid0 = self.kill_valid[0].bit_select(ply, 1)
        with m.If(~valid0 | (move.as_value() != first.as_value())):
            m.d.comb += [self.kill_w.en.eq(1), self.kill_w.data[0].eq(move),
                         self.kill_w.data[1].eq(first)]
            m.d.sync += [self.kill_valid[0].bit_select(ply, 1).eq(1),
                         self.kill_valid[1].bit_select(ply, 1).eq(valid0)]

    def _note_best(self, m):
        with m.If(self.ply == 0):
            m.d.sync += [self.best.eq(self.r.move), self.best_valid.eq(1)]

    def _abort(self, m):
        """Drain what runs on: a walk under way (its moves taken and dropped), the attack unit's
        answers still in flight; then Idle. Belt and braces: the next job's load (67 clocks)
        outlasts both, but a shorter load (or a start without one) then finds nothing stale."""
        with self._in(m, "Abort"):
            m.d.comb += self.generated.ready.eq(1)
            with m.If(self.step != DRAIN):
                m.d.sync += self.step.eq(self.step + 1)
            with m.Elif(~self.core.busy):
                m.d.sync += [self._busy.eq(0), self.step.eq(0)]
                m.next = "Idle"

    def _check(self, m):
        """No legal move at a full-width node: mated if in check, else stalemate."""
        r, p = self.r, self.ply
        mated = Signal(SCORE)
        m.d.comb += mated.eq(-(MATE - (self.root_ply + p)))
        with self._in(m, "Check"):
            with m.If(r.known):
                m.d.sync += self.ret.eq(Mux(r.incheck,
                                            _clamp(mated, r.alpha, r.beta),
                                            _clamp(Const(0, SCORE), r.alpha, r.beta)))
                m.next = "Leave"
