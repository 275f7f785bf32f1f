"""The search thread's alpha-beta control (hdl.search.search_control): its window invariants.

* ``window`` (a proof): while a job is searched (any state but Idle and Abort) the current
  ply's record holds -WINDOW <= alpha < beta <= WINDOW; a node leaves (Leave) with its score
  ``ret`` within its own [alpha, beta]; a result (``done`` without ``error``) lies within the
  window of the job the thread took.
* ``window-bounded`` (bounded from reset): the same claims, and the child's score as its parent
  takes it back (Unmake, Return), negated, within the parent's [alpha, beta].

The control (``SearchControl``) is checked alone: every input port is free (``AnySeq``: any
value, every clock), those from the parts it drives and reads (the board, the attack unit, the
generator core, the move stack, the capture finder and pipe, the evaluation pipe, make/unmake, the
hash and the repetition table) as well as the host's (load, job, start, abort). So the claims
hold for any evaluation, any board, any legality answer, any order and number of moves, any
timing of make and unmake. Two assumptions are made of them: the capture finder's and the
capture pipe's moves are not castlings (stages 0 and 1 hold promotions and captures only;
castling comes from the walk, at full-width nodes), and the evaluation pipe's verdict is clamped
to the window the control gave it (its E6 stage, held to the reference in
tests/hdl/search/test_eval_pipe.py). The per-ply records memory and the killers stay as built.

The proof is k-induction. The records of the plies above the current one live in a memory, read
back as a child is left, so the invariant speaks of each of them: the harness gives the memory
one more read port per record (``_RecordProbes``) and asserts, for every index below the ply,
the record's window as above, its depth (the job's less its index, plus the check extensions
made below the job's root) and its stage (stage 2, the walk's moves, only at a full-width or
evasion node). With the ply bound (the current depth is the job's less the ply plus the
extensions, never below -QS_PLY_LIMIT; a make only from a node whose child is above the limit;
a castling only at a full-width or evasion node) and the root's window (its beta the job's, its
alpha at least the job's; in the record at index 0 once the root has a child), that closes in
two steps. Relating each record's window to the next one's (what the parent-takes-back claim
needs) is left to the bounded check: that chain over 41 records does not close in minutes.
"""

from amaranth import Cat, Elaboratable, Module, Mux, Signal
from amaranth.asserts import Initial
from amaranth.hdl import Assert, Assume, ResetSignal
from amaranth.lib import data
from amaranth.lib.memory import Memory

from posdata.engine.search.leaf_search import (
    MAX_EXTENSIONS,
    MAX_JOB_DEPTH,
    PLY_RECORDS,
    QS_CHECK_PLIES,
    QS_PLY_LIMIT,
    WINDOW,
)
from posdata.hdl.common.layouts import MoveLayout
from posdata.hdl.search.records import FIELDS, RECORDS, Job
from posdata.hdl.search.search_control import STATES, SearchControl, fails_high

from .abstract import Inside
from .harness_thread import free_inputs


class _RecordProbes:
    """While active, the ply records' memory gets ``count`` more combinational read ports, for
    the harness to read any record."""

    def __init__(self, count):
        self.count, self.ports = count, []

    def __enter__(self):
        original = self.original = Memory.elaborate
        probe = self
        fields = set(FIELDS)

        def elaborate(mem, platform):
            layout = mem.shape
            if (probe.count and not probe.ports and mem.depth == RECORDS
                    and isinstance(layout, data.StructLayout)
                    and set(layout.members) == fields):
                probe.ports = [mem.read_port(domain="comb") for _ in range(probe.count)]
            return original(mem, platform)

        Memory.elaborate = elaborate
        return self

    def __exit__(self, *exc):
        Memory.elaborate = self.original


class SearchHarness(Elaboratable):
    GROUPS = ("window", "window-bounded")

    def __init__(self, group: str = "window", fails_high=fails_high):
        """``fails_high``: the control's cutoff (a faulty one: the checks must fail)."""
        assert group in self.GROUPS, group
        self.group = group
        self.fails_high = fails_high

    def elaborate(self, platform):
        m = Module()
        m.d.comb += Assume(ResetSignal() == Initial())
        t = SearchControl(self.fails_high)
        with _RecordProbes(RECORDS if self.group == "window" else 0) as probes:
            inside = Inside(t, platform)
        m.submodules.control = inside.fragment
        # the parts' answers and the host's side: anything, every clock
        free_inputs(m, t)
        for move in (t.finder.promo_move, t.captures.candidates.payload.move.as_value()):
            m.d.comb += Assume(~data.View(MoveLayout, move).flags.castle)

        def state(*names):
            return Cat(t.phase == STATES.index(n) for n in names).any()

        # the job the thread took: what its job input held as it left Idle
        job = Signal(Job, name="job_taken")
        with m.If(state("Idle")):
            m.d.sync += job.as_value().eq(t.job.as_value())
        ja, jb = job.alpha, job.beta
        r, ret = t.r, t.ret
        searching = ~state("Idle", "Abort")
        # the evaluation pipe's contract: a settled child's score clamped to the window the
        # control gives it (-beta .. -alpha of the node, which holds still while its moves are
        # evaluated and judged), as the control keeps it for the move it judges
        clamped = t.verdict_q.clamped
        with m.If(state("Judge")):
            m.d.comb += Assume((-r.beta <= clamped) & (clamped <= -r.alpha))

        def window(rec):
            return (-WINDOW <= rec.alpha) & (rec.alpha < rec.beta) & (rec.beta <= WINDOW)

        # the claims (the child's score as its parent takes it: bounded only, its proof
        # would need each record's window related to the next one's)
        bounded = self.group == "window-bounded"
        with m.If(searching):
            m.d.comb += Assert(window(r), "alpha < beta in the current ply's record")
            with m.If(state("Leave")):
                m.d.comb += Assert((r.alpha <= ret) & (ret <= r.beta),
                                   "a node leaves with a score within its window")
            with m.If(state("Unmake", "Return") if bounded else 0):
                m.d.comb += Assert((r.alpha <= -ret) & (-ret <= r.beta),
                                   "the child's score, negated, within the parent's window")
        with m.If(t.done & ~t.error):
            m.d.comb += Assert((ja <= t.score) & (t.score <= jb),
                               "the result lies within the job's window")
        if probes.ports:
            with m.If(searching):
                self.invariant(m, t, state, job, [port.data for port in probes.ports], window)
            for index, port in enumerate(probes.ports):
                m.d.comb += port.addr.eq(index)
        return m

    @staticmethod
    def invariant(m, t, state, job, records, window):
        """What makes the claims inductive: the job, the depth and ply, the records below the
        ply (``records``: each record of the memory, by index)."""
        r, ply = t.r, t.ply
        ja, jb, jd, je = job.alpha, job.beta, job.depth, job.ext

        def root(rec):
            return (rec.beta == jb) & (rec.alpha >= ja)

        def walks(rec):
            return (rec.depth > 0) | rec.evasion

        def full_width_stage(rec):
            """stage 2 at full-width or evasion nodes only; evasions in the first quiescence
            plies only"""
            return (((rec.stage != 2) | walks(rec))
                    & (~rec.evasion | (rec.depth > -QS_CHECK_PLIES)))

        def depth_at(rec, index):
            """depth + ply = the job's depth + the extensions made in the job"""
            return ((rec.depth + index == jd + rec.ext - je) & (je <= rec.ext)
                    & (rec.ext <= MAX_EXTENSIONS))

        m.d.comb += [
            Assert((-WINDOW <= ja) & (ja < jb) & (jb <= WINDOW) & (jd <= MAX_JOB_DEPTH)
                   & (je <= MAX_EXTENSIONS), "the job taken is one the thread accepts"),
            Assert(depth_at(r, ply) & (r.depth >= -QS_PLY_LIMIT) & (ply <= PLY_RECORDS),
                   "the ply within the records, the depth the job's less the ply"),
            Assert(Mux(ply == 0, root(r), root(records[0])),
                   "the root's window is the job's, alpha raised"),
        ]
        # (Settle and Enter hold the stage a make or a start left; Enter sets it)
        with m.If(~state("Settle", "Enter")):
            m.d.comb += Assert(full_width_stage(r), "stage 2 at a full-width node only")
        # a node's one in-check answer (which may extend it) is in before it judges a move
        with m.If(state("Judge", "Make")):
            m.d.comb += Assert(r.known, "the in-check answer is in")
        with m.If(state("Test", "Judge") & t.cand.flags.castle):
            m.d.comb += Assert(walks(r), "castling at a full-width or evasion node only")
        with m.If(state("Make")):
            m.d.comb += Assert(r.depth - 1 > -QS_PLY_LIMIT, "a child made above the limit")
        # Judge's choices, registered in Test, are those of the move and the record it judges
        child = r.depth - 1
        anyway = (child > 0) | t.cand.flags.castle
        with m.If(state("Judge")):
            m.d.comb += Assert(
                (t.anyway == anyway) & (t.at_limit == (child <= -t._ply_limit))
                & (t.makes == (anyway | (t.gives_q & t._matters(child, r.ext)))),
                "Judge's registered choices are the move's and the record's")
        # each record below the ply: its window, depth and stage; it made a child
        for index, rec in enumerate(records):
            with m.If(index < ply):
                m.d.comb += Assert(window(rec) & depth_at(rec, index) & full_width_stage(rec)
                                   & (rec.depth - 1 > -QS_PLY_LIMIT), "a record below the ply")
