"""The claim counter: hands out the nodes at the split ply, one thread each.

Every thread numbers the nodes it reaches at the split ply in the same order (they all walk the
same tree above it); the counter stands at the lowest node nobody has taken. A thread asking for
node i gets it if the counter stands at i and no lower-numbered thread asks in the same clock;
requests are registered twice and the grant once (a grant comes three clocks after the
request), and the counter then stands at i + 1, which tells every other thread asking for i that
the node is taken.

The comparisons are worked out a clock ahead, against the counter and against the counter + 1,
and the clock's grant picks between them by whether the counter moved: the counter's loop is
then a register, a choice and an OR of the ports, and no 32-bit comparison or adder. With many
engines the comparisons sit beside the threads, far from the counter: a loop through them
(counter -> comparisons -> OR -> adder -> counter) would cross that distance twice in a clock;
this way each path crosses it at most once.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from ..common.contract import CLAIM_BITS
from .thread_control import ClaimPort


class ClaimCounter(wiring.Component):
    """Ports
    -----
    start : In
        A count begins: the counter returns to 0.
    ports[i] : In(ClaimPort)
        One per thread; a lower index wins a tie.
    """

    def __init__(self, threads: int):
        if not isinstance(threads, int) or threads < 1:
            raise TypeError(f"threads must be a positive integer, not {threads!r}")
        self._threads = threads
        super().__init__({"start": In(1), "ports": In(ClaimPort).array(threads)})

    def elaborate(self, platform):
        m = Module()
        counter = Signal(CLAIM_BITS)
        # counter + 1 kept in a register of its own, not added: no adder before the comparisons
        counter_plus_one = Signal(CLAIM_BITS, init=1)
        moved = Signal()   # the counter moved on at the last clock: compare with counter + 1
        matches = Signal(self._threads)
        for i, port in enumerate(self.ports):
            # registered first: threads may sit far from the counter. Without a reset, so ABORT's
            # reset net does not reach them across the chip; what was asked before a start is
            # dropped by ``asking``
            req = Signal(name=f"req{i}", reset_less=True)
            index = Signal(CLAIM_BITS, name=f"index{i}", reset_less=True)
            m.d.sync += [req.eq(port.req), index.eq(port.index)]
            # then compared, a clock ahead of the choice
            asking = Signal(name=f"asking{i}")
            at = Signal(name=f"at{i}", reset_less=True)
            after = Signal(name=f"after{i}", reset_less=True)
            m.d.sync += [asking.eq(req & ~self.start), at.eq(index == counter),
                         after.eq(index == counter_plus_one)]
            m.d.comb += [port.next.eq(counter), matches[i].eq(asking & Mux(moved, after, at))]
        wins = Signal(self._threads)
        m.d.comb += wins.eq(matches & -matches)  # the lowest set bit alone
        for i, port in enumerate(self.ports):
            m.d.sync += port.grant.eq(wins[i])
        m.d.sync += moved.eq(matches.any())
        with m.If(matches.any()):
            m.d.sync += [counter.eq(counter_plus_one), counter_plus_one.eq(counter_plus_one + 1)]
        with m.If(self.start):
            m.d.sync += [counter.eq(0), counter_plus_one.eq(1)]
        return m
