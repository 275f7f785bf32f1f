"""The perft thread (hdl.chip.perft_thread) with its ROM ports free: the move stack's bookkeeping.

* the overflow flag is sticky: once set it stays set until a new count (or a listing, which
  starts like one) is accepted, or ABORT resets the thread;
* the stack pointer stays in range: the next free entry is never beyond STACK_DEPTH (a write
  there sets overflow instead), and the ply never exceeds the count's depth.

"Make then unmake restores the position" has a harness of its own (harness_make_unmake.py):
it starts the thread in the middle of a count with its state free (from reset, a make is more
clocks away than a bounded check of the whole thread affords).
The stack range is bounded, not proven: the pointer is reloaded from the ply records (a
memory) on the way up, and induction would need an invariant over every record.
"""

from amaranth import Const, Elaboratable, Module
from amaranth.asserts import AnySeq, Initial
from amaranth.hdl import Assert, Assume, ResetSignal

from posdata.hdl.chip.perft_thread import PerftThread
from posdata.hdl.common.contract import STACK_DEPTH

from .abstract import Inside, find_signals, free_read_port, free_start_port, past


class ThreadHarness(Elaboratable):
    GROUPS = ("sticky", "range")

    def __init__(self, group: str):
        assert group in self.GROUPS, group
        self.group = group

    def elaborate(self, platform):
        m = Module()
        t = PerftThread()
        inside = Inside(t, platform)
        m.submodules.thread = inside.fragment
        m.d.comb += Assume(ResetSignal() == Initial())
        for port in (t.wr_en, t.wr_sq, t.wr_color, t.wr_piece, t.root.as_value(), t.start,
                     t.depth, t.bulk, t.split, t.abort, t.claim.grant, t.claim.next,
                     t.gen_start, t.gen_legal, t.moves.ready):
            m.d.comb += port.eq(AnySeq(len(port)))
        free_read_port(m, t.walk)
        free_start_port(m, t.starts)

        if self.group == "sticky":
            self.sticky(m, t, inside)
        else:
            self.range(m, t, inside)
        return m

    @staticmethod
    def sticky(m, t, inside):
        # a count (or a listing) is accepted in the Idle state (the FSM's first)
        (state,) = find_signals(inside.fragment, "", "thread_state")
        accepted = (t.start | t.gen_start) & (state == 0)
        restart = past(m, accepted | t.abort, "restart")
        overflow_before = past(m, t.overflow, "overflow_before")
        later = past(m, Const(1), "later")
        with m.If(later & overflow_before & ~restart):
            m.d.comb += Assert(t.overflow, "the overflow flag is sticky until a new count")

    @staticmethod
    def range(m, t, inside):
        top, ply, depth = find_signals(inside.fragment, "", "top", "ply", "depth")
        m.d.comb += Assert(top <= STACK_DEPTH, "the stack pointer stays in range")
        with m.If(t.busy):
            m.d.comb += Assert(ply <= depth, "the ply stays within the count's depth")
