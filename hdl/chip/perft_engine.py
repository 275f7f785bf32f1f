"""A perft engine: one posdata walk ROM, one table of start entries, two threads.

Each thread walks on its own port of the two ROMs (``hdl.gen.rom``: port A for thread 0, B for
thread 1), so both keep their walkers busy at one table entry per clock. The engine loads the
same root into both threads, starts them together and sums their leaves; the threads share the
nodes at the split ply through a claim counter (``hdl.chip.claims``), which the engine leaves to its
owner, so that one counter can serve every engine of a chip (``hdl.chip.perft_chip``).
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import Color
from posdata.engine.variants import CHESS

from ..common.contract import THREADS, Phase
from ..common.layouts import PIECE, SQUARE, MoveLayout, Position
from ..gen.rom import DEFAULT_LAYOUT, PosdataRom, StartRom, check_layout
from .castling import castling_ports
from .kept_register import KeptRegister
from .perft_thread import PerftThread
from .thread_control import ClaimPort


class PerftEngine(wiring.Component):
    """Ports
    -----
    wr_en, wr_sq, wr_color, wr_piece : In
        Load the root's board into both threads (while idle).
    root : In(Position)
    start, depth, bulk, split, abort : In
        As a thread's (``hdl.chip.perft_thread``). These, the board's writes and the root reach the
        threads a clock later: the engine registers what the chip broadcasts near its own
        threads, in registers of its own (``hdl.chip.kept_register``), so that no one net from the
        chip's control reaches into every engine.
    claims : Out(ClaimPort) per thread
        To the claim counter.
    busy : Out
        Some thread is counting (registered: a clock after the threads').
    listing : Out
        Thread 0 is busy (listing the root's moves, or counting) or about to be (its held
        ``gen_start``), not registered: the chip takes no command while it is.
    leaves : Out(64)
        The threads' leaves, summed (registered: valid a clock after the threads' counts).
    overflow : Out
        Some thread's move stack overflowed.
    gen_start, gen_legal, moves, gen_cycles
        Listing the root's moves, on thread 0 (see hdl.chip.perft_thread).
    phases : Out(Phase) per thread
        Observation only.

    Parameters
    ----------
    layout : "dense" or "sparse"
        The ROMs' layout (``hdl.gen.rom``).
    variant : engine.variants name
        The ROMs' tables and the threads' pieces (``hdl.chip.perft_thread``).
    """

    def __init__(self, layout: str = DEFAULT_LAYOUT, variant=CHESS):
        self._layout = check_layout(layout)
        self._variant = variant
        super().__init__({
            "wr_en": In(1), "wr_sq": In(SQUARE), "wr_color": In(Color), "wr_piece": In(PIECE),
            "root": In(Position),
            "start": In(1), "depth": In(4), "bulk": In(1), "split": In(4), "abort": In(1),
            "claims": Out(ClaimPort).array(THREADS),
            "busy": Out(1), "listing": Out(1), "leaves": Out(64), "overflow": Out(1),
            "gen_start": In(1), "gen_legal": In(1), "moves": Out(stream.Signature(MoveLayout)),
            "gen_cycles": Out(32),
            "phases": Out(Phase).array(THREADS),
            **castling_ports(variant),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = rom = PosdataRom(self._layout, self._variant)
        m.submodules.starts = starts = StartRom(self._layout, self._variant, split=True)
        # what the chip broadcasts, a clock later (castling: Chess960's root squares)
        names = ["wr_en", "wr_sq", "wr_color", "wr_piece", "root", "start", "depth", "bulk",
                 "split", "gen_start", "gen_legal",
                 *(n for n in ("castling", "rooks") if n in self.signature.members)]
        local = {n: Signal(self.signature.members[n].shape, name=f"{n}_held") for n in names}
        broadcast = Cat(*(getattr(self, n) for n in names))
        m.submodules.held = held = KeptRegister(len(broadcast))
        m.d.comb += [held.d.eq(broadcast), Cat(*local.values()).eq(held.q)]
        threads = []
        for i, (walk, start_port) in enumerate(((rom.a, starts.a), (rom.b, starts.b))):
            m.submodules[f"thread{i}"] = thread = PerftThread(self._layout, self._variant)
            m.submodules[f"abort{i}"] = abort = KeptRegister()
            threads.append(thread)
            wiring.connect(m, thread.walk, walk)
            wiring.connect(m, thread.starts, start_port)
            claim = self.claims[i]
            # the claim counter's value, a clock later, from a copy beside each thread, so the
            # counter's route to the 16 threads' comparisons ends in a register (on the
            # ECP5-85F with eight engines it ran into them: 56.26 MHz; with the copies 56.66,
            # the counter's own loop then critical). A thread sees its node taken a clock
            # later, never a node taken that is not: within a count the counter only grows, and
            # a thread asks two clocks after the count's start at the earliest.
            m.submodules[f"next{i}"] = next_held = KeptRegister(len(claim.next))
            m.d.comb += [claim.req.eq(thread.claim.req), claim.index.eq(thread.claim.index),
                         thread.claim.grant.eq(claim.grant),
                         next_held.d.eq(claim.next), thread.claim.next.eq(next_held.q)]
            m.d.comb += [getattr(thread, n).eq(local[n]) for n in names
                         if not n.startswith("gen_")]
            m.d.comb += [abort.d.eq(self.abort), thread.abort.eq(abort.q),
                         self.phases[i].eq(thread.phase)]
        first = threads[0]
        m.d.comb += [first.gen_start.eq(local["gen_start"]),
                     first.gen_legal.eq(local["gen_legal"]),
                     self.gen_cycles.eq(first.gen_cycles)]
        wiring.connect(m, wiring.flipped(self.moves), first.moves)
        for thread in threads[1:]:
            m.d.comb += thread.moves.ready.eq(0)

        leaves = Signal(64)
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
                     self.listing.eq(threads[0].busy | local["gen_start"])]
        return m
