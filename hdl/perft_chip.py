"""The perft engines of a chip behind one interface: the root is loaded into every engine, a count
starts them all, one claim counter shares the nodes at the split ply among all their threads,
and the leaves are summed. ``clocks`` counts the clocks of the last count, from start until the
last thread is done (its makespan).
"""

from amaranth import Module, ResetInserter, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import Color

from .claims import ClaimCounter
from .layouts import PIECE, SQUARE, MoveLayout, Position
from .perft_engine import THREADS, PerftEngine
from .perft_thread import Phase
from .rom import DEFAULT_LAYOUT, check_layout


class PerftChip(wiring.Component):
    """Ports
    -----
    wr_en, wr_sq, wr_color, wr_piece, root : In
        The root position (load while idle).
    start, depth, bulk, split, abort : In
        A count (see hdl.perft_thread); ``start`` while busy is ignored.
    busy : Out
        Counting or listing.
    leaves, clocks : Out(64)
        Leaves so far (final once ``busy`` falls) and clocks since start.
    overflow : Out
        Some move stack overflowed: the count is not to be trusted.
    gen_start, gen_legal, moves, gen_cycles
        Listing the root's moves (engine 0, thread 0): pseudo-legal in generation order, or
        (``gen_legal``) legal; ``busy`` until the last has been taken.
    phases : Out(Phase) per thread
        Observation only: where each thread's clock goes.

    Parameters
    ----------
    engines : int
    layout : "dense" or "sparse"
        The posdata ROMs' layout (``hdl.rom``).
    """

    def __init__(self, engines: int = 1, layout: str = DEFAULT_LAYOUT):
        if not isinstance(engines, int) or engines < 1:
            raise TypeError(f"engines must be a positive integer, not {engines!r}")
        self._engines = engines
        self._layout = check_layout(layout)
        super().__init__({
            "wr_en": In(1), "wr_sq": In(SQUARE), "wr_color": In(Color), "wr_piece": In(PIECE),
            "root": In(Position),
            "start": In(1), "depth": In(4), "bulk": In(1), "split": In(4), "abort": In(1),
            "busy": Out(1), "leaves": Out(64), "clocks": Out(64), "overflow": Out(1),
            "gen_start": In(1), "gen_legal": In(1), "moves": Out(stream.Signature(MoveLayout)),
            "gen_cycles": Out(32),
            "phases": Out(Phase).array(engines * THREADS),
        })

    @property
    def engines(self) -> int:
        return self._engines

    def elaborate(self, platform):
        m = Module()
        m.submodules.claims = claims = ClaimCounter(self._engines * THREADS)
        engines = []
        busy = Signal()      # a count is running
        listing = Signal()   # engine 0 is busy (counting, or listing the root's moves)
        begin = self.start & ~busy & ~listing
        for e in range(self._engines):
            m.submodules[f"engine{e}"] = engine = PerftEngine(self._layout)
            engines.append(engine)
            for t in range(THREADS):
                wiring.connect(m, engine.claims[t], claims.ports[e * THREADS + t])
                m.d.comb += self.phases[e * THREADS + t].eq(engine.phases[t])
            m.d.comb += [
                engine.wr_en.eq(self.wr_en & ~busy & ~listing), engine.wr_sq.eq(self.wr_sq),
                engine.wr_color.eq(self.wr_color), engine.wr_piece.eq(self.wr_piece),
                engine.root.eq(self.root),
                engine.start.eq(begin), engine.depth.eq(self.depth), engine.bulk.eq(self.bulk),
                engine.split.eq(self.split), engine.abort.eq(self.abort),
            ]
        first = engines[0]
        m.d.comb += listing.eq(first.busy)
        m.d.comb += [first.gen_start.eq(self.gen_start & ~busy & ~listing),
                     first.gen_legal.eq(self.gen_legal),
                     self.gen_cycles.eq(first.gen_cycles)]
        wiring.connect(m, wiring.flipped(self.moves), first.moves)
        m.d.comb += claims.start.eq(begin)

        # busy from start until every engine is idle and the leaves' sum has passed its two
        # registers (each engine's, then the chip's)
        any_busy = engines[0].busy
        overflow = engines[0].overflow
        total = engines[0].leaves
        for engine in engines[1:]:
            any_busy = any_busy | engine.busy
            overflow = overflow | engine.overflow
            total = total + engine.leaves
        leaves = Signal(64)
        m.d.sync += leaves.eq(total)
        wait = Signal(2)  # clocks before the threads' busy (after start), or the sum, is valid
        with m.FSM(name="count"):
            with m.State("Idle"):
                with m.If(begin):
                    m.d.sync += [busy.eq(1), self.clocks.eq(0), wait.eq(1)]
                    m.next = "Counting"
            with m.State("Counting"):
                m.d.sync += self.clocks.eq(self.clocks + 1)
                with m.If(wait != 0):
                    m.d.sync += wait.eq(wait - 1)
                with m.Elif(~any_busy):
                    m.d.sync += wait.eq(1)
                    m.next = "Summing"
            with m.State("Summing"):
                with m.If(wait != 0):
                    m.d.sync += wait.eq(wait - 1)
                with m.Else():
                    m.d.sync += busy.eq(0)
                    m.next = "Idle"
        # busy also while engine 0 lists the root's moves
        m.d.comb += [self.busy.eq(busy | listing), self.leaves.eq(leaves),
                     self.overflow.eq(overflow)]
        # ABORT returns every engine and the count to idle (boards keep what they hold)
        return ResetInserter({"sync": self.abort})(m)
