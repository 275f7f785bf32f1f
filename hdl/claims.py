"""The claim counter: hands out the nodes at the split ply, one thread each.

Every thread numbers the nodes it reaches at the split ply in the same order (they all walk the
same tree above it); the counter stands at the lowest node nobody has taken. A thread asking for
node i gets it if the counter stands at i and no lower-numbered thread asks in the same clock;
requests and the grant are registered (a grant comes two clocks after the request), and the
counter then stands at i + 1, which tells every other thread asking for i that the node is
taken.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from .perft_thread import CLAIM_BITS, ClaimPort


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
        # each port's match is worked out in parallel, then the lowest matching port wins: no
        # chain through the ports (with twelve threads on the ECP5-85F, a chain of "a lower one
        # won" ahead of the counter's adder was the critical path, 54 MHz)
        matches = Signal(self._threads)
        for i, port in enumerate(self.ports):
            # the requests are registered first: threads may sit far from the counter. Without
            # a reset: ABORT's reset net into these 33 flip-flops per thread was the ECP5-85F's
            # critical path with eight engines (50.91 MHz); a request left from before an abort
            # is harmless, as the next count's start returns the counter to 0
            req = Signal(name=f"req{i}", reset_less=True)
            index = Signal(CLAIM_BITS, name=f"index{i}", reset_less=True)
            m.d.sync += [req.eq(port.req), index.eq(port.index)]
            m.d.comb += [port.next.eq(counter), matches[i].eq(req & (index == counter))]
        wins = Signal(self._threads)
        m.d.comb += wins.eq(matches & -matches)  # the lowest set bit alone
        for i, port in enumerate(self.ports):
            m.d.sync += port.grant.eq(wins[i])
        m.d.sync += counter.eq(counter + matches.any())
        with m.If(self.start):
            m.d.sync += counter.eq(0)
        return m
