"""The walker (hdl.gen.walker) on its own, ROM words free: each step goes where Sandström's rule and
the ROM word say, and what it writes for the merger belongs to the side to move.

Free: the pieces offered (any start entry), every ROM word and its end bits, the merger's room,
the board (any, constant), the position (changing only with a new generation). Assumed, as the
core guarantees (the "done" check proves the first, "prefetch-order" the second): a start comes
only while the walker is idle and no piece waits; a piece offered stands on a square of the side
to move.

The harness keeps its own account of each walk context, from the ports alone: the piece it took
(``order`` names the context in the logic stage; ``pieces`` what it took), the address it sent
to the ROM two clocks earlier (A) and the word that came back (W). In the clock the context is
in the logic stage again it must

* on a step that does not end the piece, send the ROM the successor the rule picks from W:
  nextpos (the next entry, A + 1), nextdir (A + skip), or the pawn's capture thread (its start
  entry's base + pushes); and two clocks later be on that pointer's square;
* end the piece exactly when the rule says so (the pointer taken leads home, per W's end bits);
* on a stall (its FIFO had no room) send the same address again;
* on taking a piece, send its first address and two clocks later be on its first square.

With the table's facts (tests/formal/test_table_facts.py: every successor lies strictly further
on in the same walk, and every walk ends) this bounds a generation: each step moves a context
forward within a walk of at most 27 entries.
"""

from amaranth import Array, Elaboratable, Module, Mux, Signal
from amaranth.asserts import AnyConst, AnySeq, Initial
from amaranth.hdl import Assert, Assume, ResetSignal

from posdata.engine.rules.defs import Color
from posdata.hdl.gen.chessboard import color_of
from posdata.hdl.gen.params import CONTEXTS
from posdata.hdl.gen.prefetch import PieceRecord
from posdata.hdl.gen.rom import ORTHODOX
from posdata.hdl.gen.walker import RULE, Context, Go, Square, Thread, Walker

from .abstract import Inside, find_signals, past


class WalkerHarness(Elaboratable):
    GROUPS = ("step", "side")

    def __init__(self, group: str):
        assert group in self.GROUPS, group
        self.group = group

    def elaborate(self, platform):
        m = Module()
        w = Walker("dense")
        inside = Inside(w, platform)
        m.submodules.walker = inside.fragment
        ring_l, ring_r = (Context(sig) for sig in find_signals(inside.fragment, "",
                                                                "ring_l", "ring_r"))
        m.d.comb += Assume(ResetSignal() == Initial())

        # --- free inputs ---------------------------------------------------------------------
        m.d.comb += [w.start.eq(AnySeq(1)), w.planes.empty.eq(AnyConst(64)),
                     w.planes.black.eq(AnyConst(64)),
                     w.pieces.valid.eq(AnySeq(1)),
                     w.pieces.payload.as_value().eq(AnySeq(PieceRecord.size)),
                     w.rom.data.eq(AnySeq(len(w.rom.data))), w.rom.ends.eq(AnySeq(2)),
                     w.entries.room.eq(AnySeq(CONTEXTS))]
        # a square is white, black or empty (hdl.gen.chessboard never sets both planes' bits)
        m.d.comb += Assume((w.planes.empty & w.planes.black) == 0)
        position = w.position.as_value()
        m.d.comb += position.eq(AnySeq(len(position)))
        # hdl.gen.core latches the position in the clock of start: the walker sees it change then
        start_before = past(m, w.start, "start_before")
        position_before = past(m, position, "position_before")
        with m.If(~start_before):
            m.d.comb += Assume(position == position_before)
        # hdl.gen.core starts a generation only once the last has finished: the walker is idle
        # (and no piece is waiting then: the prefetcher's queue is empty)
        m.d.comb += Assume(~w.start | (w.idle & ~w.pieces.valid))
        side = w.position.side
        own = Mux(side, Color.BLACK, Color.WHITE)
        head = w.pieces.payload
        with m.If(w.pieces.valid):
            m.d.comb += Assume(color_of(w.planes, head.frm) == own)

        # --- the harness's account of each context ---------------------------------------------
        cid = w.order.payload             # the context in the logic stage (always driven)
        take = w.pieces.valid & w.pieces.ready
        piece = Array(Signal(PieceRecord, name=f"piece{i}") for i in range(CONTEXTS))
        capt = Array(Signal(name=f"capt{i}") for i in range(CONTEXTS))
        expect_u = Array(Signal(6, name=f"expect_u{i}") for i in range(CONTEXTS))
        expect_known = Array(Signal(name=f"expect_known{i}") for i in range(CONTEXTS))
        issued = past(m, past(m, w.rom.addr, "addr_1"), "addr_2")   # A
        word = past(m, w.rom.data, "word")                           # W
        ends = past(m, w.rom.ends, "ends")
        started = Signal()  # a start has been seen: the account is in step with the walker
        with m.If(w.start):
            m.d.sync += started.eq(1)
            for i in range(CONTEXTS):
                m.d.sync += expect_known[i].eq(0)

        rec = piece[cid]
        entry = w.entries.entry
        u = entry.word.to
        here = color_of(w.planes, u)
        square_is = {
            Square.MARKER: u == rec.frm,
            Square.EMPTY: (u != rec.frm) & (here == Color.EMPTY),
            Square.ENEMY: (u != rec.frm) & (here != Color.EMPTY) & (here != own),
            Square.OWN: (u != rec.frm) & (here == own),
        }
        thread_is = {Thread.PIECE: ~rec.pawn, Thread.PUSHES: rec.pawn & ~capt[cid],
                     Thread.CAPTURES: rec.pawn & capt[cid]}
        nextpos, nextdir = word[:6], word[6:12]
        skip = word[12:12 + ORTHODOX.skip_bits]
        d1_addr = (rec.base + rec.pushes)[:12]
        # the rule, case by case: where the walk goes, and whether the piece ends
        want_addr = Signal(12)
        want_u = Signal(6)
        want_end = Signal()
        to_capt = Signal()
        for (thread, square), step in RULE.items():
            with m.If(thread_is[thread] & square_is[square]):
                if step.go is Go.NEXTPOS:
                    home = ends[0]
                    if step.home is Go.CAPTURES:
                        m.d.comb += [want_addr.eq(Mux(home, d1_addr, issued + 1)),
                                     want_u.eq(Mux(home, rec.d1, nextpos)),
                                     want_end.eq(home & (rec.d1 == rec.frm)), to_capt.eq(home)]
                    else:
                        m.d.comb += [want_addr.eq(issued + 1), want_u.eq(nextpos),
                                     want_end.eq(home)]
                elif step.go is Go.NEXTDIR:
                    m.d.comb += [want_addr.eq(issued + skip), want_u.eq(nextdir),
                                 want_end.eq(ends[1])]
                elif step.go is Go.CAPTURES:
                    m.d.comb += [want_addr.eq(d1_addr), want_u.eq(rec.d1),
                                 want_end.eq(rec.d1 == rec.frm), to_capt.eq(1)]
                else:
                    m.d.comb += want_end.eq(1)

        stepping = w.stepping
        stalled = w.walking & ~w.stepping
        with m.If(take):
            m.d.sync += [piece[cid].eq(head), capt[cid].eq(0), expect_u[cid].eq(head.first),
                         expect_known[cid].eq(1)]
        with m.Elif(stepping & ~want_end):
            m.d.sync += [capt[cid].eq(capt[cid] | to_capt), expect_u[cid].eq(want_u)]
        with m.Elif(stepping):
            m.d.sync += expect_known[cid].eq(0)

        if self.group == "step":
            known = started & ~w.start & ~past(m, w.start, "start_1") \
                & ~past(m, past(m, w.start, "start_2"), "start_3")
            with m.If(known & w.walking & expect_known[cid]):
                m.d.comb += Assert(u == expect_u[cid], "the context is on the square named")
                with m.If(stepping):
                    m.d.comb += Assert(entry.end == want_end, "the piece ends where the rule says")
                with m.If(stepping & ~want_end):
                    m.d.comb += Assert(w.rom.addr == want_addr,
                                       "the next address is the successor the word names")
                with m.If(stalled):
                    m.d.comb += Assert(w.rom.addr == issued, "a stalled step reads again")
            with m.If(take):
                m.d.comb += Assert(w.rom.addr == head.base, "a new piece starts at its base")
            self.invariants(m, started, ring_l, ring_r, piece, capt, expect_u, expect_known)
        else:
            for ring in (ring_l, ring_r):
                with m.If(started & ring.active):
                    m.d.comb += Assert(color_of(w.planes, ring.frm) == own,
                                       "invariant: a context walks a piece of the side to move")
            wrote = (w.entries.write >> cid)[0] & entry.move
            with m.If(started & wrote):
                m.d.comb += [Assert(color_of(w.planes, entry.word.frm) == own,
                                    "a move starts on a square of the side to move"),
                             Assert(color_of(w.planes, entry.word.to) != own,
                                    "a move does not end on its own colour")]
        return m

    @staticmethod
    def invariants(m, started, ring_l, ring_r, piece, capt, expect_u, expect_known):
        """What the harness's account and the walker's contexts agree on: stated so that the
        induction proof need not rediscover it (each is also checked)."""
        m.d.comb += Assert(ring_l.id != ring_r.id, "invariant: the two contexts take turns")
        for ring in (ring_l, ring_r):
            rec = piece[ring.id]
            with m.If(started & ring.active):
                m.d.comb += [
                    Assert(expect_known[ring.id], "invariant: an active context is accounted"),
                    Assert(ring.frm == rec.frm, "invariant: from-square"),
                    Assert(ring.pawn == rec.pawn, "invariant: pawn"),
                    Assert(ring.d1 == rec.d1, "invariant: first capture square"),
                    Assert(ring.d1_end == (rec.d1 == rec.frm), "invariant: empty capture thread"),
                    Assert(ring.d1_addr == (rec.base + rec.pushes)[:12],
                           "invariant: capture thread address"),
                    Assert(ring.capt == capt[ring.id], "invariant: thread"),
                    Assert(ring.u == expect_u[ring.id], "invariant: square"),
                ]
