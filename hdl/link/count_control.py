"""A count on the perft chip, from the front end's side: the chip's count controls in registers,
the count's state and a registered copy of its progress (what STATUS reports), and the power-up
self-test's verdict.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..common.contract import DEPTH_BITS
from .protocol import ENGINE_ALL, STATUS_BYTES, SelfTest, State

#: clocks after a start until the chip's busy and sums follow it (one engine's: the chip takes
#: its start into registers and begins a clock later, hdl.chip.perft_chip)
SETTLE_CLOCKS = 5


def _byte(value):
    return Cat(value, Const(0, 8 - len(value)))


class CountControl(wiring.Component):
    """Parameters
    ----------
    expected : int or None
        The leaves the self-test's count must give (None: built without a self-test).

    Ports
    -----
    begin : In(1)
        Start a count of ``depth`` (bulk with ``bulk``, split at ply ``split``) on engine
        ``engine`` (``ENGINE_ALL``: shared among them all); ``self_test`` marks the power-up
        count.
    depth, split : In(DEPTH_BITS); bulk, self_test : In(1); engine : In(8)
    stop : In(1)
        Abort the running count: its progress stays as it stood.
    chip_start, chip_abort : Out(1)
        The chip's pulses.
    chip_depth, chip_split : Out(DEPTH_BITS); chip_bulk, chip_solo : Out(1);
    chip_solo_engine : Out(8)
        The chip's count controls.
    chip_busy : In(1); chip_leaves, chip_clocks : In(64); chip_overflow : In(1)
        The chip's progress.
    counting : Out(1)
        A count runs.
    self_testing : Out(1)
        The power-up self-test counts.
    overflow : Out(1)
        The count overflowed a move stack (no number to report).
    status : Out(8 * STATUS_BYTES)
        STATUS's payload as it stands: state, flags, depth, split, leaves, clocks.
    verdict : Out(2)
        The self-test's verdict, a ``SelfTest``.
    """

    begin: In(1)
    depth: In(DEPTH_BITS)
    bulk: In(1)
    split: In(DEPTH_BITS)
    self_test: In(1)
    engine: In(8)
    stop: In(1)
    chip_start: Out(1)
    chip_depth: Out(DEPTH_BITS)
    chip_bulk: Out(1)
    chip_split: Out(DEPTH_BITS)
    chip_solo: Out(1)
    chip_solo_engine: Out(8)
    chip_abort: Out(1)
    chip_busy: In(1)
    chip_leaves: In(64)
    chip_clocks: In(64)
    chip_overflow: In(1)
    counting: Out(1)
    self_testing: Out(1)
    overflow: Out(1)
    status: Out(8 * STATUS_BYTES)
    verdict: Out(2)

    def __init__(self, expected: int | None):
        self._expected = expected
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        state = Signal(2, init=State.IDLE)
        counting = self.counting
        settle = Signal(range(SETTLE_CLOCKS + 1))
        c_bulk = Signal()
        c_self = Signal()           # the count is the power-up self-test
        c_depth = Signal(DEPTH_BITS)
        c_split = Signal(DEPTH_BITS)
        leaves = Signal(64)
        clocks = Signal(64)
        overflow = self.overflow
        verdict = Signal(2, init=SelfTest.NONE if self._expected is None else SelfTest.RUNNING)
        m.d.comb += [self.verdict.eq(verdict), self.self_testing.eq(counting & c_self),
                     self.status.eq(Cat(_byte(state), _byte(Cat(c_bulk, c_self)),
                                        _byte(c_depth), _byte(c_split), leaves, clocks))]
        m.d.sync += [self.chip_start.eq(0), self.chip_abort.eq(0)]  # pulses
        settling = counting & (settle != 0)
        following = counting & (settle == 0)  # the copy of the progress follows the chip's
        # A start loads these registers under the same enable as their updates, not above it:
        # Yosys would otherwise fold the start into their synchronous reset, one net to some
        # 130 flip-flops at the end of the command's decoding.
        with m.If(self.begin | settling):
            m.d.sync += settle.eq(Mux(self.begin, SETTLE_CLOCKS, settle - 1))
        with m.If(self.begin | following):
            m.d.sync += [leaves.eq(Mux(self.begin, 0, self.chip_leaves)),
                         clocks.eq(Mux(self.begin, 0, self.chip_clocks)),
                         overflow.eq(Mux(self.begin, 0, self.chip_overflow))]
        with m.If(following & ~self.chip_busy):
            m.d.sync += [counting.eq(0), state.eq(State.DONE)]
            if self._expected is not None:
                passed = (self.chip_leaves == self._expected) & ~self.chip_overflow
                with m.If(c_self):
                    m.d.sync += verdict.eq(Mux(passed, SelfTest.PASSED, SelfTest.FAILED))
        with m.If(self.begin):
            m.d.sync += [self.chip_start.eq(1), self.chip_depth.eq(self.depth),
                         self.chip_bulk.eq(self.bulk), self.chip_split.eq(self.split),
                         self.chip_solo.eq(self.engine != ENGINE_ALL),
                         self.chip_solo_engine.eq(self.engine),
                         counting.eq(1), state.eq(State.RUNNING),
                         c_depth.eq(self.depth), c_bulk.eq(self.bulk), c_split.eq(self.split),
                         c_self.eq(self.self_test)]
        with m.If(self.stop):
            m.d.sync += [self.chip_abort.eq(1), counting.eq(0), state.eq(State.ABORTED)]
        return m
