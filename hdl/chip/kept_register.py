"""A register that synthesis keeps apart from its twins.

Yosys's ``opt_merge`` folds registers with the same input into one: N copies of ABORT, each
meant to drive one thread's synchronous reset from near that thread, become one register whose
net reaches every flip-flop of every engine, across the chip; so do the copies of a count's
parameters each engine takes from the chip. Vendor
flip-flop primitives are not merged, so on the ECP5 each bit is a ``TRELLIS_FF`` instance;
elsewhere (the simulators, other families) a plain register, which behaves the same.
"""

from amaranth import ClockSignal, Instance, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


class KeptRegister(wiring.Component):
    """``q`` is ``d`` a clock later (0 after configuration); not reset by the domain's reset."""

    def __init__(self, width: int = 1):
        super().__init__({"d": In(width), "q": Out(width)})

    def elaborate(self, platform):
        m = Module()
        if getattr(platform, "family", None) == "ecp5":
            for i in range(len(self.d)):
                # TRELLIS_FF as Yosys's ecp5 cells_sim.v defines it: no clock enable, no
                # set/reset, power-up value 0 (REGSET RESET)
                m.submodules[f"ff{i}"] = Instance(
                    "TRELLIS_FF", p_GSR="DISABLED", p_CEMUX="1", p_CLKMUX="CLK",
                    p_LSRMUX="LSR", p_REGSET="RESET", p_SRMODE="LSR_OVER_CE",
                    i_CLK=ClockSignal("sync"), i_LSR=0, i_DI=self.d[i], o_Q=self.q[i])
        else:
            q = Signal(len(self.d), reset_less=True)
            m.d.sync += q.eq(self.d)
            m.d.comb += self.q.eq(q)
        return m
