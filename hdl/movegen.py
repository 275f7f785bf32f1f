"""The hardware move generator: Sandström's posdata walk as a state machine.

A ROM holds posdata (``hdl.rom``); colours live in two 64-bit register planes (``hdl.board``) so
that a square's colour can be looked up combinationally and the side's pieces form a mask;
piece types live in a small memory. On ``start`` the generator emits every pseudo-legal move of
the side to move on the ``moves`` stream, in exactly the order of ``engine.movegen.gen``.

Two ROM ports share the work:

* port B, the piece prefetcher (``hdl.prefetch``), takes the side's pieces in ascending square
  order and reads each one's start entry ``posdata[ptype][from][from]`` into a small queue;
* port A serves the walker (``hdl.walker``): two walk contexts take turns in a two-clock loop
  (address, ROM, registered word, logic), so the ROM delivers one table entry per clock while
  both contexts are busy, and the clock is not limited by a block RAM's late output;
* the output merger (``hdl.merger``) puts the contexts' moves back into generation order,
  expands promotions, adds castling and drives the ``moves`` stream.

Timing: ``sim.model`` is a clock-by-clock model of this design and predicts ``cycles`` exactly
(with ``moves.ready`` held high); the tests hold the gateware to it.

Protocol
--------
* Write squares while idle (``wr_en``; writes while ``busy`` are ignored). Colour registers and
  the piece memory are not reset, so a reset in the middle of a generation keeps the board.
* Pulse ``start`` with ``side``, ``castle``, ``ep_valid``/``ep_sq`` valid in that cycle (they are
  latched). ``start`` while ``busy`` is ignored.
* Moves stream out (``moves.valid``/``ready``/``payload``); with ready low the output holds, the
  walk contexts fill their FIFOs and then repeat their steps until there is room: nothing is
  lost or repeated, and the stalled clocks count in ``cycles``.
* ``done`` pulses for one cycle when the last move has been taken; ``busy`` falls with it.
  ``cycles`` then holds the number of clock cycles the generation was busy.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import Color

from .board import BoardMemory
from .layouts import PIECE, SQUARE, MoveLayout
from .prefetch import PiecePrefetcher
from .rom import PosdataRom
from .merger import OutputMerger
from .walker import Walker


class MoveGenerator(wiring.Component):
    """Ports
    -----
    wr_en, wr_sq, wr_color, wr_piece : In
        Host write port of the board (one square per cycle, ignored while busy).
    side, castle, ep_valid, ep_sq : In
        Side to move, castling rights (engine.defs bits), en passant square; sampled at start.
    start : In
        Begin a generation (ignored while busy).
    busy, done : Out
        ``busy`` is high from the cycle after ``start`` until the last move has been taken;
        ``done`` pulses in the cycle ``busy`` falls.
    cycles : Out(32)
        Clock cycles the last (or current) generation has been busy.
    moves : Out(stream.Signature(MoveLayout))
        The moves, in engine.movegen.gen order, packed as engine's move word.
    walking, walk_from : Out
        Observation only (simulation traces, cycle accounts): the walker is on the piece
        standing on ``walk_from``.
    """

    wr_en: In(1)
    wr_sq: In(SQUARE)
    wr_color: In(Color)
    wr_piece: In(PIECE)
    side: In(1)
    castle: In(4)
    ep_valid: In(1)
    ep_sq: In(SQUARE)
    start: In(1)
    busy: Out(1)
    done: Out(1)
    cycles: Out(32)
    moves: Out(stream.Signature(MoveLayout))
    walking: Out(1)
    walk_from: Out(SQUARE)

    def elaborate(self, platform):
        m = Module()
        m.submodules.board = board = BoardMemory()
        m.submodules.prefetch = prefetch = PiecePrefetcher()
        m.submodules.walker = walker = Walker()
        m.submodules.merger = merger = OutputMerger()
        m.submodules.rom = rom = PosdataRom()
        rom_a, rom_b = rom.a, rom.b

        busy = Signal()
        begin = self.start & ~busy
        side = Signal()
        castle = Signal(4)
        ep_valid = Signal()
        ep_sq = Signal(SQUARE)
        with m.If(begin):
            m.d.sync += [side.eq(self.side), castle.eq(self.castle),
                         ep_valid.eq(self.ep_valid), ep_sq.eq(self.ep_sq)]

        m.d.comb += [
            board.wr_en.eq(self.wr_en & ~busy),
            board.wr_sq.eq(self.wr_sq),
            board.wr_color.eq(self.wr_color),
            board.wr_piece.eq(self.wr_piece),
            board.rd_sq.eq(prefetch.piece_sq),

            prefetch.load.eq(begin),
            prefetch.side.eq(Mux(busy, side, self.side)),
            prefetch.empty.eq(board.empty),
            prefetch.black.eq(board.black),
            prefetch.run.eq(busy),
            prefetch.piece.eq(board.rd_piece),
            prefetch.pop.eq(walker.pop),
            rom_b.addr.eq(prefetch.rom_addr),
            rom_b.en.eq(prefetch.rom_en),
            prefetch.rom_data.eq(rom_b.data),

            walker.start.eq(begin),
            walker.side.eq(side),
            walker.ep_valid.eq(ep_valid),
            walker.ep_sq.eq(ep_sq),
            walker.empty.eq(board.empty),
            walker.black.eq(board.black),
            walker.head.eq(prefetch.head),
            walker.head_ready.eq(prefetch.ready),
            rom_a.addr.eq(walker.rom_addr),
            rom_a.en.eq(1),
            walker.rom_data.eq(rom_a.data),
            walker.rom_ends.eq(rom_a.ends),
            walker.fifo_ready.eq(merger.room),

            merger.start.eq(begin),
            merger.side.eq(side),
            merger.castle.eq(castle),
            merger.empty.eq(board.empty),
            merger.write.eq(walker.fifo_write),
            merger.entry.eq(walker.entry),
            merger.order_write.eq(walker.pop),
            merger.order_id.eq(walker.popped_by),
            merger.walk_done.eq(~prefetch.left & walker.idle),

            self.walking.eq(walker.walking),
            self.walk_from.eq(walker.walk_from),
        ]
        wiring.connect(m, wiring.flipped(self.moves), merger.moves)

        # busy from start until the merger has handed over the last move.
        m.d.sync += self.done.eq(0)
        with m.If(begin):
            m.d.sync += [busy.eq(1), self.cycles.eq(0)]
        with m.If(busy):
            m.d.sync += self.cycles.eq(self.cycles + 1)
            with m.If(merger.finished):
                m.d.sync += [busy.eq(0), self.done.eq(1)]
        m.d.comb += self.busy.eq(busy)
        return m
