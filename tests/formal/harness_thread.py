"""The perft thread's bookkeeping, part by part and whole.

* ``sticky``, the move stack alone (hdl.chip.move_stack): the overflow flag is sticky: once set it
  stays set until the stack is started again (a count, or a listing, which starts like one) or
  reset (ABORT resets the thread). A proof, with every input free.
* ``range``, the whole thread with its ROM ports free: the stack pointer stays in range (the next
  free entry is never beyond STACK_DEPTH: a write there sets overflow instead), and the ply never
  exceeds the count's depth. Bounded, not proven: the pointer is reloaded from the ply records (a
  memory) on the way up, and induction would need an invariant over every record.

"Make then unmake restores the position" has a harness of its own (harness_make_unmake.py).
"""

from amaranth import Const, Elaboratable, Module, Value
from amaranth.asserts import AnySeq, Initial
from amaranth.hdl import Assert, Assume, ResetSignal

from posdata.engine.rules.variants import CHESS
from posdata.hdl.chip.make_unmake import Undo
from posdata.hdl.chip.move_stack import MoveStack, StackEntry
from posdata.hdl.chip.perft_thread import PerftThread
from posdata.hdl.common.contract import STACK_DEPTH

from .abstract import Inside, find_signals, free_read_port, free_start_port, past


def free_inputs(m, component):
    """Every input port of ``component`` (at any depth of its signature) free, every clock;
    not a tie-off (an always-ready stream's ``ready``)."""
    for _, member, value in component.signature.flatten(component):
        value = Value.cast(value)
        if member.flow.name == "In" and not isinstance(value, Const):
            m.d.comb += value.eq(AnySeq(len(value)))


class ThreadHarness(Elaboratable):
    GROUPS = ("sticky", "range")

    def __init__(self, group: str):
        assert group in self.GROUPS, group
        self.group = group

    def elaborate(self, platform):
        m = Module()
        m.d.comb += Assume(ResetSignal() == Initial())
        if self.group == "sticky":
            self.sticky(m)
        else:
            self.range(m, platform)
        return m

    @staticmethod
    def sticky(m):
        stack = MoveStack(StackEntry, CHESS.promotions, {"undo": Undo})
        m.submodules.stack = stack
        free_inputs(m, stack)
        restart = past(m, stack.control.start | ResetSignal(), "restart")
        overflow_before = past(m, stack.overflow, "overflow_before")
        later = past(m, Const(1), "later")
        with m.If(later & overflow_before & ~restart):
            m.d.comb += Assert(stack.overflow, "the overflow flag is sticky until a new count")

    @staticmethod
    def range(m, platform):
        t = PerftThread()
        inside = Inside(t, platform)
        m.submodules.thread = inside.fragment
        free_inputs(m, t)
        free_read_port(m, t.walk)
        free_start_port(m, t.starts)
        (top,) = find_signals(inside.fragment, "stack", "top")
        ply, depth = find_signals(inside.fragment, "control", "ply", "depth")
        m.d.comb += Assert(top <= STACK_DEPTH, "the stack pointer stays in range")
        with m.If(t.busy):
            m.d.comb += Assert(ply <= depth, "the ply stays within the count's depth")
