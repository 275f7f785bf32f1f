"""The board as the gateware holds it.

Colours are kept as two 64-bit planes of registers, ``empty`` and ``black`` (a square's colour
is ``Cat(black, empty)``: WHITE 0b00, BLACK 0b01, EMPTY 0b10, engine.rules.defs.Color), because the
walker looks up one square every clock and the piece scanner needs the whole side at once:
``own = ~empty & (black if side else ~black)``. Pieces live in a small memory, read once per
piece. Neither is reset: a reset in the middle of a generation keeps the board.
"""

from amaranth import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import Color

from ..common.layouts import PIECE, SQUARE

assert (Color.WHITE, Color.BLACK, Color.EMPTY) == (0b00, 0b01, 0b10)


#: the colour planes, as the board drives them to the prefetcher, the walker and the merger
Planes = wiring.Signature({"empty": Out(64), "black": Out(64)})

#: a combinational lookup of one square's piece
PieceLookup = wiring.Signature({"sq": Out(SQUARE), "piece": In(PIECE)})

#: the pieces as three 64-bit planes, bit k of square s's piece at ``bits[64 * k + s]``
TypePlanes = wiring.Signature({"bits": Out(64 * PIECE.width)})


def color_of(planes, sq):
    """The Color of square ``sq`` (a Value) from the colour ``planes``."""
    return Cat(planes.black.bit_select(sq, 1), planes.empty.bit_select(sq, 1))


def rank_of(planes, sq):
    """The rank of square ``sq`` (a Value) in both colour planes: Cat(8 black bits, 8 empty
    bits), file a first (the iCE40 walker's split colour lookup, hdl.gen.walker)."""
    return Cat(planes.black.word_select(sq[3:], 8), planes.empty.word_select(sq[3:], 8))


class BoardMemory(wiring.Component):
    """Ports
    -----
    wr_en, wr_sq, wr_color, wr_piece : In
        Write one square per cycle.
    planes : Out(Planes)
        The colour planes (every square EMPTY after power-up).
    lookup : In(PieceLookup)
        Combinational read of one square's piece.
    types : Out(TypePlanes)
        With ``type_planes`` only: the pieces as planes of registers instead of a memory, so
        that the piece on the prefetcher's next square is found with that square (the iCE40,
        which has no LUT RAM, holds the memory in flip-flops anyway).
    """

    def __init__(self, type_planes: bool = False):
        self._type_planes = type_planes
        ports = {"wr_en": In(1), "wr_sq": In(SQUARE), "wr_color": In(Color),
                 "wr_piece": In(PIECE), "planes": Out(Planes), "lookup": In(PieceLookup)}
        if type_planes:
            ports["types"] = Out(TypePlanes)
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        empty = Signal(64, reset_less=True, init=(1 << 64) - 1)
        black = Signal(64, reset_less=True)
        # Whole-plane updates through a one-hot mask (cheaper to simulate than a bit select).
        mask = Signal(64)
        color = Value.cast(self.wr_color)
        m.d.comb += mask.eq(Const(1, 64) << self.wr_sq)
        with m.If(self.wr_en):
            m.d.sync += [empty.eq(Mux(color[1], empty | mask, empty & ~mask)),
                         black.eq(Mux(color[0], black | mask, black & ~mask))]
        m.d.comb += [self.planes.empty.eq(empty), self.planes.black.eq(black)]

        if self._type_planes:
            types = Signal(64 * PIECE.width, reset_less=True)
            with m.If(self.wr_en):
                m.d.sync += types.eq(Cat(Mux(self.wr_piece[k], types[64 * k:64 * k + 64] | mask,
                                             types[64 * k:64 * k + 64] & ~mask)
                                         for k in range(PIECE.width)))
            m.d.comb += [self.types.bits.eq(types),
                         self.lookup.piece.eq(Cat(types.bit_select(64 * k + self.lookup.sq, 1)
                                                  for k in range(PIECE.width)))]
            return m

        m.submodules.pieces = pieces = Memory(shape=PIECE, depth=64, init=[])
        wr = pieces.write_port()
        rd = pieces.read_port(domain="comb")
        m.d.comb += [
            wr.addr.eq(self.wr_sq), wr.data.eq(self.wr_piece), wr.en.eq(self.wr_en),
            rd.addr.eq(self.lookup.sq), self.lookup.piece.eq(rd.data),
        ]
        return m
