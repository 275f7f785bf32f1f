"""The piece prefetcher: takes the side's pieces in ascending square order and reads each one's
start entry ``posdata[ptype][from][from]`` through ROM port B into a two-record queue, ahead of
the walker, so the walker never waits for a piece to begin.

A record is ready two cycles after its piece is taken; every piece's walk lasts at least two
clocks (no piece has fewer than two squares to visit), so two records keep the queue ahead.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from engine.defs import PAWN

from .layouts import PIECE, SQUARE
from .priority import lowest_set_bit

#: a piece waiting for the walker: where its walk starts
PieceRecord = data.StructLayout({
    "table": 3,       # ROM table: the ptype, BPAWN folded onto 0 (see hdl.rom)
    "pawn": 1,
    "frm": SQUARE,
    "first": SQUARE,  # nextpos[from][from]: the first square (a pawn's first push)
    "d1": SQUARE,     # nextdir[from][from]: a pawn's first capture square
})

QUEUE_DEPTH = 2


class PiecePrefetcher(wiring.Component):
    """Ports
    -----
    load, side, empty, black : In
        ``load`` takes the mask of ``side``'s pieces from the colour planes (at start).
    run, stall : In
        Prefetch while ``run`` and not ``stall``.
    piece_sq : Out, piece : In
        Piece lookup in the board memory.
    rom_addr, rom_en : Out, rom_data : In
        ROM port B (one cycle latency).
    head : Out(PieceRecord), ready : Out, pop : In
        The next piece for the walker; ``ready`` when the queue holds one.
    left : Out
        Some piece has not been handed to the walker yet.
    """

    load: In(1)
    side: In(1)
    empty: In(64)
    black: In(64)
    run: In(1)
    stall: In(1)
    piece_sq: Out(SQUARE)
    piece: In(PIECE)
    rom_addr: Out(15)
    rom_en: Out(1)
    rom_data: In(12)
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
        any_pending, next_sq = scanner.any, scanner.square

        # Take one and read its start entry.
        count = Signal(range(QUEUE_DEPTH + 1))
        inflight = Signal()
        inflight_rec = Signal(PieceRecord)
        issue = Signal()
        is_pawn = self.piece == PAWN
        table = Mux(is_pawn & self.side, 0, self.piece)
        m.d.comb += [
            self.piece_sq.eq(next_sq),
            issue.eq(self.run & ~self.stall & any_pending & (count + inflight < QUEUE_DEPTH)),
            self.rom_addr.eq(Cat(next_sq, next_sq, table)),
            self.rom_en.eq(issue),
        ]
        m.d.comb += scanner.take.eq(issue)
        with m.If(issue):
            m.d.sync += [
                inflight_rec.table.eq(table),
                inflight_rec.pawn.eq(is_pawn),
                inflight_rec.frm.eq(next_sq),
            ]
        with m.If(~self.stall):
            m.d.sync += inflight.eq(issue)

        # The record completes when ROM B answers.
        arriving = Signal(PieceRecord)
        m.d.comb += [
            arriving.eq(inflight_rec),
            arriving.first.eq(self.rom_data[:6]),
            arriving.d1.eq(self.rom_data[6:]),
        ]
        queue = [Signal(PieceRecord, name=f"queue{i}") for i in range(QUEUE_DEPTH)]
        push = inflight & ~self.stall
        pop = self.pop
        with m.If(push & pop):
            with m.If(count == 2):
                m.d.sync += [queue[0].eq(queue[1]), queue[1].eq(arriving)]
            with m.Else():
                m.d.sync += queue[0].eq(arriving)
        with m.Elif(push):
            with m.If(count == 0):
                m.d.sync += queue[0].eq(arriving)
            with m.Else():
                m.d.sync += queue[1].eq(arriving)
            m.d.sync += count.eq(count + 1)
        with m.Elif(pop):
            m.d.sync += [queue[0].eq(queue[1]), count.eq(count - 1)]

        m.d.comb += [
            self.head.eq(queue[0]),
            self.ready.eq(count != 0),
            self.left.eq((count != 0) | inflight | any_pending),
        ]
        with m.If(self.load):
            m.d.sync += [count.eq(0), inflight.eq(0)]
        return m


class PieceScanner(wiring.Component):
    """The pieces not yet taken, lowest square first. A module of its own so that Amaranth's
    simulator re-evaluates the encoder only when the mask changes."""

    load: In(1)
    own: In(64)
    take: In(1)
    any: Out(1)
    square: Out(SQUARE)

    def elaborate(self, platform):
        m = Module()
        pending = Signal(64)
        any_pending, lowest = lowest_set_bit(m, pending, "next_piece")
        m.d.comb += [self.any.eq(any_pending), self.square.eq(lowest)]
        with m.If(self.load):
            m.d.sync += pending.eq(self.own)
        with m.Elif(self.take):
            m.d.sync += pending.eq(pending & (pending - 1))  # clear the lowest set bit
        return m
