"""The generator core: Sandström's walk from a board to an ordered stream of moves.

The core is the part of the move generator that every user shares: the piece prefetcher
(``hdl.gen.prefetch``), the two-context walker (``hdl.gen.walker``) and the output merger
(``hdl.gen.merger``), with the control of one generation. It owns no memory: the board, the walk
ROM and the start entries are outside, so that the move generator (``hdl.gen.movegen``) and each
thread of the perft engine (``hdl.chip.perft_thread``) give it their own.

Protocol: pulse ``start`` (ignored while ``busy``) with ``position`` and ``expand`` valid in that
cycle (latched); the board must not change until ``done``. Moves stream out in
engine.rules.movegen order; ``done`` pulses when the last one has been taken; ``cycles`` counts the
busy clocks of the last generation. Timing: see hdl.gen.movegen.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.variants import CHESS

from ..common.contract import ORTHODOX_CASTLING
from ..common.layouts import SQUARE, Castling, MoveLayout, Position
from ..image.variant import Geometry
from .chessboard import PieceLookup, Planes, TypePlanes
from .merger import OutputMerger
from .prefetch import PiecePrefetcher
from .rom import DEFAULT_LAYOUT, check_layout, read_port, rom_geometry, start_port
from .walker import Walker


class GeneratorCore(wiring.Component):
    """Ports
    -----
    start : In
        Begin a generation (ignored while busy).
    position : In(Position)
        Side to move, castling rights, en passant square; latched at start.
    castling : In(Castling)
        The castlings' squares (hdl.image.variant.castling_word; orthodox when undriven);
        latched at start.
    expand : In
        Promotions as four moves (else one word flagged PROMOTION); latched at start.
    planes : In(Planes), lookup : Out(PieceLookup)
        The board.
    walk : Out(ReadPort)
        A walk-ROM port (the walker's).
    starts : Out(StartPort)
        Start entries (the prefetcher's).
    moves : Out(stream.Signature(MoveLayout))
        The moves, in generation order.
    busy, done : Out
        ``busy`` from the cycle after start until the last move has been taken; ``done``
        pulses as it falls.
    cycles : Out(32)
        Busy clocks of the last (or current) generation.
    walking, stepping, walk_from : Out
        Observation only (see hdl.gen.walker).

    Parameters
    ----------
    layout : "dense" or "sparse"
        The walk ROM's layout (``hdl.gen.rom``).
    variant : an engine.rules.variants name: its promotion sets (the merger's table) ...
    geometry : ... and the widths its tables need (default: its own; hdl.image.variant)
    registered_heads : the merger's FIFOs for a device without LUT RAM (hdl.gen.merger)
    typed_scan : the prefetcher finds a piece's type with its square, from the board's piece-type
        planes (a ``types`` port, hdl.gen.chessboard.TypePlanes; hdl.gen.prefetch), and the latched
        ``expand`` starts at 1 (a constant where it is always driven 1): for the iCE40
    split_lookup : the walker's colour lookup split over its two stages (hdl.gen.walker): the iCE40
    """

    def __init__(self, layout: str = DEFAULT_LAYOUT, variant=CHESS,
                 geometry: Geometry | None = None, registered_heads: bool = False,
                 typed_scan: bool = False, split_lookup: bool = False):
        self._split_lookup = split_lookup
        self._layout = check_layout(layout)
        self._variant = variant
        self._geometry = g = rom_geometry(variant, geometry)
        self._registered_heads = registered_heads
        self._typed_scan = typed_scan
        ports = {
            "start": In(1), "position": In(Position),
            "castling": In(Castling, init=ORTHODOX_CASTLING), "expand": In(1),
            "planes": In(Planes), "lookup": Out(PieceLookup), "walk": Out(read_port(g)),
            "starts": Out(start_port(g)), "moves": Out(stream.Signature(MoveLayout)),
            "busy": Out(1), "done": Out(1), "cycles": Out(32), "walking": Out(1),
            "stepping": Out(1), "walk_from": Out(SQUARE)}
        if typed_scan:
            ports["types"] = In(TypePlanes)
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        g = self._geometry
        m.submodules.prefetch = prefetch = PiecePrefetcher(g, self._typed_scan,
                                                           first_rank=self._split_lookup,
                                                           variant=self._variant)
        if self._typed_scan:
            wiring.connect(m, wiring.flipped(self.types), prefetch.types)
        m.submodules.walker = walker = Walker(self._layout, g, self._split_lookup)
        m.submodules.merger = merger = OutputMerger(self._variant, g, self._registered_heads)

        # The block diagram: start entries feed the prefetcher, the walk ROM the walker; pieces
        # flow prefetcher -> walker, table entries walker -> merger, moves merger -> out.
        wiring.connect(m, wiring.flipped(self.planes), prefetch.planes, walker.planes,
                       merger.planes)
        wiring.connect(m, prefetch.lookup, wiring.flipped(self.lookup))
        wiring.connect(m, prefetch.starts, wiring.flipped(self.starts))
        wiring.connect(m, walker.rom, wiring.flipped(self.walk))
        wiring.connect(m, prefetch.pieces, walker.pieces)
        wiring.connect(m, walker.entries, merger.entries)
        wiring.connect(m, walker.order, merger.order)
        wiring.connect(m, wiring.flipped(self.moves), merger.moves)

        # --- control: a generation runs from start until the merger hands over the last move --
        busy = Signal()
        begin = self.start & ~busy
        position = Signal(Position)  # latched at start
        castling = Signal(Castling, init=ORTHODOX_CASTLING)
        # the iCE40's generator always expands (hdl.gen.movegen drives 1): a register that starts
        # at 1 and only ever loads 1 is a constant to Yosys, off the merger's read decision
        expand = Signal(init=int(self._typed_scan))
        with m.If(begin):
            m.d.sync += [position.eq(self.position), castling.eq(self.castling),
                         expand.eq(self.expand)]
        m.d.comb += [
            prefetch.load.eq(begin),
            prefetch.side.eq(Mux(busy, position.side, self.position.side)),
            prefetch.run.eq(busy),
            walker.start.eq(begin),
            walker.position.eq(position),
            merger.start.eq(begin),
            merger.expand.eq(expand),
            merger.position.eq(position),
            merger.castling.eq(castling),
            merger.walk_done.eq(~prefetch.left & walker.idle),
            self.walking.eq(walker.walking),
            self.stepping.eq(walker.stepping),
            self.walk_from.eq(walker.walk_from),
        ]

        m.d.sync += self.done.eq(0)
        with m.If(begin):
            m.d.sync += [busy.eq(1), self.cycles.eq(0)]
        with m.If(busy):
            m.d.sync += self.cycles.eq(self.cycles + 1)
            with m.If(merger.finished):
                m.d.sync += [busy.eq(0), self.done.eq(1)]
        m.d.comb += self.busy.eq(busy)
        return m
