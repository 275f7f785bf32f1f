"""The piece prefetcher (hdl.gen.prefetch) on its own: its queue of start entries, at the stream
boundary between it and the walker.

Free: the board (any, constant), the piece on each square, every start entry the ROM answers,
when the walker takes the head. Assumed (the core's control guarantees it): ``load`` and ``run``
are never high together, two loads never come in a row, and the side only changes with a
load.

Properties:

* every piece offered stands on a square of the side to move, pieces leave in ascending square
  order, each square at most once per load;
* the queue holds at most QUEUE_DEPTH records (start entries that landed, less pieces taken);
  it offers a piece exactly when it holds one;
* nothing is lost or repeated: the k-th start entry to land (any k) is the k-th piece taken,
  with the square and table it was read for.
"""

from amaranth import Elaboratable, Module, Mux, Signal
from amaranth.asserts import AnyConst, AnySeq, Initial
from amaranth.hdl import Assert, Assume, ResetSignal

from posdata.engine.rules.defs import PAWN, Color
from posdata.hdl.gen.chessboard import color_of
from posdata.hdl.gen.params import QUEUE_DEPTH
from posdata.hdl.gen.prefetch import PiecePrefetcher, PieceRecord

from .abstract import Inside, find_signals, past

SEQ_BITS = 7  # counts pieces per load (at most 64), modulo 128


class PrefetchHarness(Elaboratable):
    GROUPS = ("order", "queue")

    def __init__(self, group: str):
        assert group in self.GROUPS, group
        self.group = group

    def elaborate(self, platform):
        m = Module()
        p = PiecePrefetcher()
        inside = Inside(p, platform)
        m.submodules.prefetch = inside.fragment
        m.d.comb += Assume(ResetSignal() == Initial())

        m.d.comb += [p.load.eq(AnySeq(1)), p.side.eq(AnySeq(1)), p.run.eq(AnySeq(1)),
                     p.planes.empty.eq(AnyConst(64)), p.planes.black.eq(AnyConst(64)),
                     p.lookup.piece.eq(AnySeq(3)), p.starts.data.eq(AnySeq(len(p.starts.data))),
                     p.pieces.ready.eq(AnySeq(1))]
        m.d.comb += [Assume((p.planes.empty & p.planes.black) == 0), Assume(~(p.load & p.run))]
        side_before = past(m, p.side, "side_before")
        with m.If(~p.load):
            m.d.comb += Assume(p.side == side_before)
        # a load is followed by a run (hdl.gen.core: start, then busy): never two loads in a row
        load_before = past(m, p.load, "load_before")
        m.d.comb += Assume(~(p.load & load_before))
        seen = Signal()  # a load has been seen ...
        with m.If(p.load):
            m.d.sync += seen.eq(1)
        loaded = seen & ~p.load  # ... and this clock is not another

        pop = p.pieces.valid & p.pieces.ready
        head = p.pieces.payload
        if self.group == "order":
            own = Mux(p.side, Color.BLACK, Color.WHITE)
            last = Signal(6)
            have_last = Signal()
            with m.If(p.load):
                m.d.sync += have_last.eq(0)
            with m.Elif(pop):
                m.d.sync += [last.eq(head.frm), have_last.eq(1)]
            with m.If(loaded & p.pieces.valid):
                m.d.comb += Assert(color_of(p.planes, head.frm) == own,
                                   "a piece of the side to move")
            with m.If(loaded & pop & have_last):
                m.d.comb += Assert(head.frm > last, "pieces in ascending square order")
            self.order_invariants(m, p, inside, own, loaded, have_last, last)
        else:
            self.queue_checks(m, p, inside, loaded, pop, head)
        return m

    @staticmethod
    def order_invariants(m, p, inside, own, loaded, have_last, last):
        pending, valid, square = find_signals(inside.fragment, "scanner", "pending", "valid",
                                              "square")
        q0, q1, count, inflight, inflight_rec, rd, wr = find_signals(
            inside.fragment, "", "queue0", "queue1", "count", "inflight", "inflight_rec", "rd",
            "wr")
        q = [PieceRecord(q0), PieceRecord(q1)]
        rec = PieceRecord(inflight_rec)
        own_mask = ~p.planes.empty & Mux(p.side, p.planes.black, ~p.planes.black)
        head, second = Mux(rd, q[1].frm, q[0].frm), Mux(rd, q[0].frm, q[1].frm)
        # pieces wait in order: taken (last) < head < second < in flight < candidate < pending
        below = Signal(64)  # squares at or below the newest piece handed on from the scanner
        newest = Signal(6)
        m.d.comb += newest.eq(Mux(inflight, rec.frm, Mux(count == 2, second, Mux(
            count == 1, head, last))))
        m.d.comb += below.eq((2 << newest) - 1)
        handed = inflight | (count != 0) | have_last
        with m.If(loaded):
            m.d.comb += [Assert((pending & ~own_mask) == 0, "invariant: pending pieces are own"),
                         Assert(~valid | pending.bit_select(square, 1),
                                "invariant: the candidate is pending"),
                         Assert(count + inflight <= QUEUE_DEPTH, "invariant: queue within depth"),
                         Assert(wr == (rd + count)[:1], "invariant: the ring's pointers")]
            with m.If(valid):
                m.d.comb += Assert((pending & ((1 << square) - 1)[:64]) == 0,
                                   "invariant: the candidate is the lowest pending")
            with m.If(handed):
                m.d.comb += Assert((pending & below[:64]) == 0,
                                   "invariant: pending pieces come after those handed on")
            with m.If(inflight):
                m.d.comb += Assert(color_of(p.planes, rec.frm) == own,
                                   "invariant: the piece being read is own")
                with m.If(count != 0):
                    m.d.comb += Assert(rec.frm > Mux(count == 2, second, head),
                                       "invariant: the piece being read comes after the queue")
                with m.Elif(have_last):
                    m.d.comb += Assert(rec.frm > last,
                                       "invariant: the piece being read comes after the last")
            with m.If((count != 0) & have_last):
                m.d.comb += Assert(head > last, "invariant: the head comes after the last taken")
            with m.If(count == 2):
                m.d.comb += Assert(second > head, "invariant: the queue is in order")
            for i in range(QUEUE_DEPTH):
                occupied = ((i - rd)[:1] < count) if QUEUE_DEPTH == 2 else None
                with m.If(occupied):
                    m.d.comb += Assert(color_of(p.planes, q[i].frm) == own,
                                       "invariant: queued pieces are own")

    @staticmethod
    def queue_checks(m, p, inside, loaded, pop, head):
        # a start entry lands a clock after it was read, for the square and table read
        issued = past(m, p.starts.en & ~p.load, "issued")
        frm = past(m, p.starts.frm, "issued_frm")
        table = past(m, p.starts.table, "issued_table")
        pawn = past(m, p.lookup.piece == PAWN, "issued_pawn")
        data = p.starts.data
        landed = issued & ~p.load
        held = Signal(range(QUEUE_DEPTH + 2))
        with m.If(p.load):
            m.d.sync += held.eq(0)
        with m.Else():
            m.d.sync += held.eq(held + landed - pop)
        with m.If(loaded):
            m.d.comb += [Assert(held <= QUEUE_DEPTH, "the queue stays within its depth"),
                         Assert(p.pieces.valid == (held != 0), "a piece is offered iff queued")]

        # one tracked entry: the k-th to land must be the k-th taken, unchanged
        k = AnyConst(SEQ_BITS)
        landed_n = Signal(SEQ_BITS)
        taken_n = Signal(SEQ_BITS)
        want = Signal(PieceRecord)
        with m.If(p.load):
            m.d.sync += [landed_n.eq(0), taken_n.eq(0)]
        with m.Else():
            m.d.sync += [landed_n.eq(landed_n + landed), taken_n.eq(taken_n + pop)]
        with m.If(landed & (landed_n == k)):
            m.d.sync += [want.table.eq(table), want.pawn.eq(pawn), want.frm.eq(frm),
                         want.first.eq(data[:6]), want.d1.eq(data[6:12]),
                         want.base.eq(data[12:24]), want.pushes.eq(data[24:26])]
        with m.If(loaded & pop & (taken_n == k)):
            m.d.comb += Assert(head.as_value() == want.as_value(),
                               "the k-th piece taken is the k-th start entry, unchanged")
        # invariants for the proof: the queue's slots hold the entries in landing order
        q0, q1, rd, wr, count, inflight = find_signals(inside.fragment, "", "queue0", "queue1",
                                                       "rd", "wr", "count", "inflight")
        q = [q0, q1]
        with m.If(loaded):
            m.d.comb += [Assert(count == held, "invariant: the queue's count"),
                         Assert(wr == (rd + count)[:1], "invariant: the ring's pointers"),
                         Assert(count + inflight <= QUEUE_DEPTH, "invariant: room for the read"),
                         Assert(inflight == issued, "invariant: a read in flight"),
                         Assert((landed_n - taken_n)[:SEQ_BITS] == held,
                                "invariant: entries in the queue")]
            for i in range(QUEUE_DEPTH):
                slot_seq = (taken_n + (i - rd)[:1])[:SEQ_BITS]
                with m.If(((i - rd)[:1] < count) & (slot_seq == k)):
                    m.d.comb += Assert(q[i] == want.as_value(), "invariant: the tracked slot")
