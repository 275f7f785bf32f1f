"""A perft engine: one posdata walk ROM, one table of start entries, two threads.

Each thread walks on its own port of the two ROMs (``hdl.gen.rom``: port A for thread 0, B for
thread 1), so both keep their walkers busy at one table entry per clock. The engine loads the
same root into both threads, starts them together and sums their leaves; the threads share the
nodes at the split ply through a claim counter (``hdl.chip.claims``), which the engine leaves to its
owner, so that one counter can serve every engine of a chip (``hdl.chip.perft_chip``).
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.variants import CHESS

from ..common.contract import COUNT_BITS, THREADS, Phase
from ..gen.rom import DEFAULT_LAYOUT, PosdataRom, StartRom, check_layout
from ..image.variant import Geometry
from .kept_register import KeptRegister
from .modes import chip_geometry
from .perft_thread import PerftThread
from .ports import CountControl, Listing, root_load
from .thread_control import ClaimPort


class PerftEngine(wiring.Component):
    """Ports
    -----
    load : In(root_load(variant)), count : In(CountControl)
        As a thread's (``hdl.chip.perft_thread``), into both threads. These reach the threads a
        clock later: the engine registers what the chip broadcasts near its own threads, in
        registers of its own (``hdl.chip.kept_register``), so that no one net from the chip's
        control reaches into every engine; each thread takes ABORT from a register of its own.
    listing : In(Listing)
        Listing the root's moves, on thread 0 (its start and legal held, as above).
    claims : Out(ClaimPort) per thread
        To the claim counter.
    busy : Out
        Some thread is counting (registered: a clock after the threads').
    lister_busy : Out
        Thread 0 is busy (listing the root's moves, or counting) or about to be (its held
        listing start), not registered: the chip takes no command while it is.
    leaves : Out(64)
        The threads' leaves, summed (registered: valid a clock after the threads' counts).
    overflow : Out
        Some thread's move stack overflowed.
    phases : Out(Phase) per thread
        Observation only.

    Parameters
    ----------
    layout : "dense" or "sparse"
        The ROMs' layout (``hdl.gen.rom``).
    variant : engine.rules.variants name
        The ROMs' tables and the threads' pieces (``hdl.chip.perft_thread``).
    geometry : hdl.image.variant.Geometry
        The ROMs' widths (default ``hdl.chip.modes.chip_geometry``: with modes, one for every
        variant that has them).
    """

    def __init__(self, layout: str = DEFAULT_LAYOUT, variant=CHESS,
                 geometry: Geometry | None = None):
        self._layout = check_layout(layout)
        self._variant = variant
        self._geometry = geometry = geometry or chip_geometry(variant)
        super().__init__({
            "load": In(root_load(variant, geometry)), "count": In(CountControl),
            "listing": In(Listing),
            "claims": Out(ClaimPort).array(THREADS),
            "busy": Out(1), "lister_busy": Out(1), "leaves": Out(COUNT_BITS), "overflow": Out(1),
            "phases": Out(Phase).array(THREADS),
        })

    def elaborate(self, platform):
        m = Module()
        g = self._geometry
        m.submodules.rom = rom = PosdataRom(self._layout, self._variant, g)
        m.submodules.starts = starts = StartRom(self._layout, self._variant, g, split=True)
        # what the chip broadcasts, a clock later
        load = root_load(self._variant, g).create(path=("load_held",))
        count = CountControl.create(path=("count_held",))  # its abort: per thread, below
        listing = Listing.create(path=("listing_held",))
        broadcast = [*_values(self.load), self.count.start, self.count.depth, self.count.bulk,
                     self.count.split, self.listing.start, self.listing.legal]
        held_values = [*_values(load), count.start, count.depth, count.bulk, count.split,
                       listing.start, listing.legal]
        m.submodules.held = held = KeptRegister(len(Cat(*broadcast)))
        m.d.comb += [held.d.eq(Cat(*broadcast)), Cat(*held_values).eq(held.q)]
        threads = []
        for i, (walk, start_port) in enumerate(((rom.a, starts.a), (rom.b, starts.b))):
            m.submodules[f"thread{i}"] = thread = PerftThread(self._layout, self._variant, g)
            m.submodules[f"abort{i}"] = abort = KeptRegister()
            threads.append(thread)
            wiring.connect(m, thread.walk, walk)
            wiring.connect(m, thread.starts, start_port)
            wiring.connect(m, load, thread.load)
            m.d.comb += [thread.count.start.eq(count.start), thread.count.depth.eq(count.depth),
                         thread.count.bulk.eq(count.bulk), thread.count.split.eq(count.split),
                         abort.d.eq(self.count.abort), thread.count.abort.eq(abort.q),
                         self.phases[i].eq(thread.phase)]
            claim = self.claims[i]
            # the claim counter's value, a clock later, from a copy beside each thread, so the
            # counter's route to the threads' comparisons ends in a register. A thread sees its
            # node taken a clock later, never a node taken that is not: within a count the
            # counter only grows, and a thread asks two clocks after the count's start at the
            # earliest.
            m.submodules[f"next{i}"] = next_held = KeptRegister(len(claim.next))
            m.d.comb += [claim.req.eq(thread.claim.req), claim.index.eq(thread.claim.index),
                         thread.claim.grant.eq(claim.grant),
                         next_held.d.eq(claim.next), thread.claim.next.eq(next_held.q)]
        first = threads[0]
        m.d.comb += [first.listing.start.eq(listing.start), first.listing.legal.eq(listing.legal),
                     self.listing.cycles.eq(first.listing.cycles)]
        wiring.connect(m, first.listing.moves, wiring.flipped(self.listing.moves))
        for thread in threads[1:]:
            m.d.comb += thread.listing.moves.ready.eq(0)

        leaves = Signal(COUNT_BITS)
        total = threads[0].leaves
        for thread in threads[1:]:
            total = total + thread.leaves
        m.d.sync += leaves.eq(total)
        busy = threads[0].busy
        overflow = threads[0].overflow
        for thread in threads[1:]:
            busy = busy | thread.busy
            overflow = overflow | thread.overflow
        busy_held = Signal()
        m.d.sync += busy_held.eq(busy)
        m.d.comb += [self.leaves.eq(leaves), self.busy.eq(busy_held), self.overflow.eq(overflow),
                     self.lister_busy.eq(threads[0].busy | listing.start)]
        return m


def _values(interface) -> list:
    """An interface's port values, in its signature's order."""
    return [value for _, _, value in interface.signature.flatten(interface)]
