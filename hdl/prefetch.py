"""The piece prefetcher: takes the side's pieces in ascending square order and reads each one's
start entry ``posdata[ptype][from][from]`` through ROM port B into a small queue, ahead of the
walker, so a walk context that finishes a piece starts the next one at once.

The queue is a ring of registers with read and write pointers: a record lands straight from the
block RAM in the slot the write pointer names (no logic between a block RAM output, which comes
late in the cycle, and its register), and the walker takes the head by advancing the read
pointer (one flip-flop), so neither side waits on the other's logic within a cycle.
"""

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import PAWN

from .layouts import PIECE, SQUARE
from .params import QUEUE_DEPTH
from .priority import lowest_set_bit
from .rom_image import ADDR_BITS, WORD_BITS

#: a piece waiting for the walker: where its walk starts
PieceRecord = data.StructLayout({
    "table": 3,       # ROM table: the ptype, BPAWN folded onto 0 (see hdl.rom)
    "pawn": 1,
    "frm": SQUARE,
    "first": SQUARE,  # nextpos[from][from]: the first square (a pawn's first push)
    "d1": SQUARE,     # nextdir[from][from]: a pawn's first capture square
})


class PiecePrefetcher(wiring.Component):
    """Ports
    -----
    load, side, empty, black : In
        ``load`` takes the mask of ``side``'s pieces from the colour planes (at start).
    run : In
        Prefetch while ``run``.
    piece_sq : Out, piece : In
        Piece lookup in the board memory.
    rom_addr, rom_en : Out, rom_data : In
        ROM port B (one cycle latency).
    head : Out(PieceRecord), ready : Out, pop : In
        The next piece in generation order; ``pop`` takes it.
    left : Out
        Some piece has not been handed to the walker yet.
    """

    load: In(1)
    side: In(1)
    empty: In(64)
    black: In(64)
    run: In(1)
    piece_sq: Out(SQUARE)
    piece: In(PIECE)
    rom_addr: Out(ADDR_BITS)
    rom_en: Out(1)
    rom_data: In(WORD_BITS)
    head: Out(PieceRecord)
    ready: Out(1)
    pop: In(1)
    left: Out(1)

    def elaborate(self, platform):
        m = Module()

        m.submodules.scanner = scanner = PieceScanner()
        m.d.comb += [
            scanner.load.eq(self.load),
            scanner.own.eq(~self.empty & Mux(self.side, self.black, ~self.black)),
        ]

        ring = Array(Signal(PieceRecord, name=f"queue{i}") for i in range(QUEUE_DEPTH))
        rd = Signal(range(QUEUE_DEPTH))
        wr = Signal(range(QUEUE_DEPTH))
        count = Signal(range(QUEUE_DEPTH + 1))
        inflight = Signal()  # a start entry is being read
        inflight_rec = Signal(PieceRecord)

        # Take the next piece when the queue will have room for it.
        issue = Signal()
        is_pawn = self.piece == PAWN
        table = Mux(is_pawn & self.side, 0, self.piece)
        m.d.comb += [
            self.piece_sq.eq(scanner.square),
            issue.eq(self.run & scanner.any & (count + inflight < QUEUE_DEPTH)),
            self.rom_addr.eq(Cat(scanner.square, scanner.square, table)),
            self.rom_en.eq(issue),
            scanner.take.eq(issue),
        ]
        m.d.sync += inflight.eq(issue)
        with m.If(issue):
            m.d.sync += [inflight_rec.table.eq(table), inflight_rec.pawn.eq(is_pawn),
                         inflight_rec.frm.eq(scanner.square)]

        # The start entry lands straight in the queue.
        landed = Signal(PieceRecord)
        m.d.comb += [landed.eq(inflight_rec), landed.first.eq(self.rom_data[:6]),
                     landed.d1.eq(self.rom_data[6:])]
        with m.If(inflight):
            m.d.sync += [ring[wr].eq(landed), wr.eq(wr + 1)]
        with m.If(self.pop):
            m.d.sync += rd.eq(rd + 1)
        m.d.sync += count.eq(count + inflight - self.pop)

        m.d.comb += [
            self.head.eq(ring[rd]),
            self.ready.eq(count != 0),
            self.left.eq((count != 0) | inflight | scanner.left),
        ]
        with m.If(self.load):
            m.d.sync += [rd.eq(0), wr.eq(0), count.eq(0), inflight.eq(0)]
        return m


class PieceScanner(wiring.Component):
    """The pieces not yet taken, lowest square first. The candidate square is a register,
    computed from the mask while no candidate is waiting: taking one costs a cycle before the
    next is known (two cycles per piece, still twice the rate the walker takes them), and the
    priority encoder gets a whole clock to itself."""

    load: In(1)
    own: In(64)
    take: In(1)
    any: Out(1)      # a candidate is ready
    square: Out(SQUARE)
    left: Out(1)     # a candidate is ready or some piece is still in the mask

    def elaborate(self, platform):
        m = Module()
        pending = Signal(64)
        valid = Signal()
        square = Signal(SQUARE)
        any_pending, lowest = lowest_set_bit(m, pending, "next_piece")
        m.d.comb += [self.any.eq(valid), self.square.eq(square),
                     self.left.eq(valid | any_pending)]
        with m.If(self.load):
            m.d.sync += [pending.eq(self.own), valid.eq(0)]
        with m.Elif(self.take):
            m.d.sync += [pending.eq(pending & ~(Const(1, 64) << square)[:64]), valid.eq(0)]
        with m.Elif(~valid):
            m.d.sync += [square.eq(lowest), valid.eq(any_pending)]
        return m
