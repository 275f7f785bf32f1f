"""The perft engines of a chip behind one interface: the root is loaded into every engine, a count
starts them all, one claim counter shares the nodes at the split ply among all their threads,
and the leaves are summed. ``clocks`` counts the clocks of the last count, from start until the
last thread is done (its makespan).
"""

from amaranth import (
    ClockDomain,
    ClockSignal,
    DomainRenamer,
    Module,
    Mux,
    ResetInserter,
    ResetSignal,
    Signal,
)
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.variants import CHESS

from ..common.contract import COUNT_BITS, ENGINE_BITS, THREADS, Phase
from ..gen.rom import DEFAULT_LAYOUT, check_layout
from .chessboard import SquareWrite, check_chip
from .claims import ClaimCounter
from .perft_engine import PerftEngine
from .ports import CountControl, Listing, root_load


def chip_signature(engines: int, variant=CHESS) -> wiring.Signature:
    """The chip's ports (described on ``PerftChip``): the front end's side of it, which stand-ins
    for the chip in tests share."""
    return wiring.Signature({
        "load": In(root_load(variant)), "count": In(CountControl),
        "solo": In(1), "solo_engine": In(ENGINE_BITS), "listing": In(Listing),
        "busy": Out(1), "leaves": Out(COUNT_BITS), "clocks": Out(COUNT_BITS), "overflow": Out(1),
        "phases": Out(Phase).array(engines * THREADS),
    })


class PerftChip(wiring.Component):
    """Ports
    -----
    load : In(root_load(variant))
        The root position (load while idle; hdl.chip.ports).
    count : In(CountControl)
        A count (see hdl.chip.perft_thread); a start while busy is ignored. Its depth, bulk and
        split are taken with the start; the engines begin a clock later (the root's side,
        rights and en passant square are latched then, so they hold through that clock).
    solo, solo_engine : In
        With ``solo``, the count runs on engine ``solo_engine`` alone (the others stay idle and
        add nothing): counting on each engine in turn names a faulty one.
    listing : In(Listing)
        Listing the root's moves (engine 0, thread 0): pseudo-legal in generation order, or
        legal; ``busy`` until the last has been taken.
    busy : Out
        Counting (from the clock after a start) or listing.
    leaves, clocks : Out(64)
        Leaves so far (final once ``busy`` falls) and clocks since start.
    overflow : Out
        Some move stack overflowed: the count is not to be trusted.
    phases : Out(Phase) per thread
        Observation only: where each thread's clock goes.

    Parameters
    ----------
    engines : int
    layout : "dense" or "sparse"
        The posdata ROMs' layout (``hdl.gen.rom``).
    variant : engine.rules.variants name
        What the engines play (``hdl.chip.perft_thread``); one chip per variant.
    """

    def __init__(self, engines: int = 1, layout: str = DEFAULT_LAYOUT, variant=CHESS):
        if not isinstance(engines, int) or engines < 1:
            raise TypeError(f"engines must be a positive integer, not {engines!r}")
        self._engines = engines
        self._layout = check_layout(layout)
        self._variant = variant
        check_chip(variant)  # a variant the chip cannot count: refused here, at once
        super().__init__(chip_signature(engines, variant))

    @property
    def engines(self) -> int:
        return self._engines

    def elaborate(self, platform):
        outer = Module()  # the engines: outside the chip's ResetInserter
        m = Module()
        m.submodules.claims = claims = ClaimCounter(self._engines * THREADS)
        engines = []
        busy = Signal()      # a count is running
        listing = Signal()   # engine 0 is busy (counting, or listing the root's moves)
        # A start is taken into registers, and the count begins from them a clock later: each
        # engine's start from a flip-flop of its own, the count's arguments from copies. Taken
        # directly, the start gated by busy and listing was one net from the control to every
        # engine, across the die, and back into the control's state (the ULX3S-85F's critical
        # path). Every part of the count moves by the same clock, so its clocks are unchanged.
        begin = Signal()     # the count begins (a start taken the clock before)
        taken = self.count.start & ~busy & ~listing & ~begin
        starts = Signal(self._engines)  # each engine's start, a clock after the chip's
        depth = Signal.like(self.count.depth, reset_less=True)
        split = Signal.like(self.count.split, reset_less=True)
        bulk = Signal(reset_less=True)
        m.d.sync += begin.eq(taken)
        for e in range(self._engines):
            m.d.sync += starts[e].eq(taken & (~self.solo | (self.solo_engine == e)))
        with m.If(taken):
            m.d.sync += [depth.eq(self.count.depth), bulk.eq(self.count.bulk),
                         split.eq(self.count.split)]
        # which engines this count runs on, fixed at its start
        enabled = Signal(self._engines, init=(1 << self._engines) - 1)
        with m.If(begin):
            m.d.sync += enabled.eq(starts)
        place, reset = (lambda engine: engine), 0
        if platform is not None:
            # On a device the engines run in a domain of the same clock without the domain's
            # reset: that reset (the PLL's lock, synchronised) would be one register's net into
            # every flip-flop of the chip. It reaches each thread through the thread's own abort
            # register instead, a clock later. (Not in
            # simulation: a clock driven from another clock would race its registers there,
            # and the simulators never reset the domain.)
            outer.domains.engines = ClockDomain("engines", reset_less=True, local=True)
            outer.d.comb += ClockSignal("engines").eq(ClockSignal("sync"))
            place, reset = DomainRenamer({"sync": "engines"}), ResetSignal("sync")
        for e in range(self._engines):
            engine = PerftEngine(self._layout, self._variant)
            # engines sit outside the control's ResetInserter: each thread takes ABORT through
            # a register of its own, as the control does (the front end's first reload write
            # reaches the chip two clocks after its ABORT, when both have been reset)
            outer.submodules[f"engine{e}"] = place(engine)
            engines.append(engine)
            for t in range(THREADS):
                wiring.connect(m, engine.claims[t], claims.ports[e * THREADS + t])
                m.d.comb += self.phases[e * THREADS + t].eq(engine.phases[t])
            m.d.comb += [engine.count.start.eq(starts[e]), engine.count.depth.eq(depth),
                         engine.count.bulk.eq(bulk), engine.count.split.eq(split)]
            # outside the control, whose domain has no reset on a device
            outer.d.comb += engine.count.abort.eq(self.count.abort | reset)
        # the root goes to every engine; its board only while no count or listing runs
        write = SquareWrite.create(path=("write",))
        m.d.comb += [write.en.eq(self.load.write.en & ~busy & ~listing & ~begin),
                     write.sq.eq(self.load.write.sq), write.color.eq(self.load.write.color),
                     write.piece.eq(self.load.write.piece)]
        wiring.connect(m, write, *(engine.load.write for engine in engines))
        wiring.connect(m, wiring.flipped(self.load.position),
                       *(engine.load.position for engine in engines))
        first = engines[0]
        m.d.comb += [listing.eq(first.lister_busy),
                     first.listing.start.eq(self.listing.start & ~busy & ~listing & ~begin),
                     first.listing.legal.eq(self.listing.legal),
                     self.listing.cycles.eq(first.listing.cycles)]
        wiring.connect(m, wiring.flipped(self.listing.moves), first.listing.moves)
        for engine in engines[1:]:
            m.d.comb += [engine.listing.start.eq(0), engine.listing.moves.ready.eq(0)]
        m.d.comb += claims.start.eq(begin)

        # The leaves' sum: a tree of registered pairwise sums (one 64-bit adder deep per clock,
        # however many engines), each engine's count masked unless it runs in this count.
        level = [Mux(enabled[e], engine.leaves, 0) for e, engine in enumerate(engines)]
        levels = 0
        while len(level) > 1 or levels == 0:
            pairs = [level[i] + level[i + 1] if i + 1 < len(level) else level[i]
                     for i in range(0, len(level), 2)]
            # reset-less: a pipeline that follows the engines' counts (reset by ABORT) within
            # a few clocks; with a reset it was most of the control reset's fan-out
            regs = [Signal(64, name=f"sum{levels}_{i}", reset_less=True)
                    for i in range(len(pairs))]
            m.d.sync += [r.eq(p) for r, p in zip(regs, pairs)]
            level, levels = regs, levels + 1
        leaves = level[0]
        any_busy = engines[0].busy
        overflow = engines[0].overflow & enabled[0]
        for e, engine in enumerate(engines[1:], 1):
            any_busy = any_busy | engine.busy
            overflow = overflow | (engine.overflow & enabled[e])

        # busy from start until every engine is idle and the leaves' sum has passed its
        # registers (each engine's, then the tree's levels)
        # clocks before the engines' busy (after start: their held start, the threads' busy,
        # their held busy), or the sum, is valid
        wait = Signal(range(levels + 4))
        with m.FSM(name="count"):
            with m.State("Idle"):
                with m.If(begin):
                    m.d.sync += [busy.eq(1), self.clocks.eq(0), wait.eq(3)]
                    m.next = "Counting"
            with m.State("Counting"):
                m.d.sync += self.clocks.eq(self.clocks + 1)
                with m.If(wait != 0):
                    m.d.sync += wait.eq(wait - 1)
                with m.Elif(~any_busy):
                    m.d.sync += wait.eq(levels)
                    m.next = "Summing"
            with m.State("Summing"):
                with m.If(wait != 0):
                    m.d.sync += wait.eq(wait - 1)
                with m.Else():
                    m.d.sync += busy.eq(0)
                    m.next = "Idle"
        # busy also while engine 0 lists the root's moves, and from the clock after a start
        m.d.comb += [self.busy.eq(busy | listing | begin), self.leaves.eq(leaves),
                     self.overflow.eq(overflow)]
        # ABORT returns every engine and the count to idle (boards keep what they hold). The
        # control takes it from a register, a clock late like the engines' threads: taken
        # directly, ABORT or the domain's reset would reach every control flip-flop through one
        # LUT, a net across the chip. The register also
        # stands for the domain's reset (set while it is held), so on a device the control runs
        # in a reset-less domain of the same clock and that register is its only reset.
        control_reset = Signal(init=1)
        outer.d.sync += control_reset.eq(self.count.abort)
        control = ResetInserter({"sync": control_reset})(m)
        if platform is not None:
            outer.domains.control = ClockDomain("control", reset_less=True, local=True)
            outer.d.comb += ClockSignal("control").eq(ClockSignal("sync"))
            control = DomainRenamer({"sync": "control"})(control)
        outer.submodules.control = control
        return outer
