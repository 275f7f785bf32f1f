"""The hardware move generator: Sandström's posdata walk as a state machine.

A ROM holds posdata (``hdl.gen.rom``); colours live in two 64-bit register planes
(``hdl.gen.chessboard``) so that a square's colour can be looked up combinationally and the side's
pieces form a mask; piece types live in a small memory. On ``start`` the generator emits every
pseudo-legal move of the side to move on the ``moves`` stream, in exactly the order of
``engine.rules.movegen.gen``. The walking itself is the generator core (``hdl.gen.core``), which the
perft engine's threads share.

Two ROM ports share the work:

* port B, the piece prefetcher (``hdl.gen.prefetch``), takes the side's pieces in ascending square
  order and reads each one's start entry ``posdata[ptype][from][from]`` into a small queue;
* port A serves the walker (``hdl.gen.walker``): two walk contexts take turns in a two-clock loop
  (address, ROM, registered word, logic), so the ROM delivers one table entry per clock while
  both contexts are busy, and the clock is not limited by a block RAM's late output;
* the output merger (``hdl.gen.merger``) puts the contexts' moves back into generation order,
  expands promotions, adds castling and drives the ``moves`` stream.

Timing
------
Clocks are numbered from the one in which ``start`` is taken (clock 0); ``cycles`` counts the
busy clocks 1 .. N, N being the clock in which the merger is in "Drain".
tests/sim/views/test_timing.py holds the gateware to each fact below, and ``posdata sim`` / ``make
bench-hw`` measure the accounts on the gateware (its ``walking``/``stepping`` observation outputs,
sim.views.accounts).

* Start-up. The piece scanner's candidate is a register: clock 0 loads the mask of the side's
  pieces, clock 1 finds the lowest, clock 2 sends it to ROM port B, and its start entry lands in
  the prefetch queue at the end of clock 3. Context 1 takes the first piece in clock 4 and
  steps in clock 6; the second piece goes to context 0 in clock 7 (first step in 9), or back to
  context 1 if its first piece ended in one step. The walk always begins in clock 6; clock 7 is
  always idle.
* Steady state. A context steps every other clock, so with both contexts walking the ROM
  delivers one table entry per clock. Changing pieces costs nothing: the step that ends a piece
  takes the head of the queue and sends that piece's first square to the ROM at once. The
  scanner delivers a piece every two clocks and the queue holds two, which keeps up with
  everything but runs of one- and two-entry pieces.
* The tail. Once the queue and the scanner are empty, a context that finishes stays idle and the
  other walks what it still has at half speed: ``7k/8/8/8/8/8/8/KQ6 w`` takes 52 clocks for 24
  entries, the queen's 21 at two clocks each.
* Merger and Drain. A step that emits a move or ends its piece writes one entry into its
  context's FIFO; the merger reads one entry per clock from the FIFO of the context that walks
  the oldest unfinished piece, and the word leaves through the output register a clock later:
  with nothing queued, a move found in clock t is taken in clock t + 2. A promoting entry holds
  the merger for four clocks. When no piece is left, both contexts are idle and all FIFOs are
  empty, it adds the castling moves, one clock each, and then spends one clock in Drain: a lone
  king on e1 steps in clocks 6, 8 .. 14, its moves leave in 8 .. 16, and ``cycles`` is 17.
* Full FIFOs. A context can run up to fourteen entries ahead of the merger on later pieces while
  the other walks a long piece that comes first. The registered ``room`` flags (level < 14) may
  be a clock stale; the margin of two covers the write a context can make in between, so no
  entry is dropped. A step without room does not happen: the context presents the same entry
  again and loses two clocks. With ``ready`` held high this happens in about one random
  position in a hundred, e.g. ``4r1R1/5k1r/3P4/8/r7/2p5/5Kp1/3Q4 w`` (4 stalls, 64 clocks).

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

from amaranth import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import Color
from posdata.engine.rules.variants import CHESS

from ..common.contract import ORTHODOX_CASTLING
from ..common.layouts import PIECE, SQUARE, Castling, MoveLayout
from ..image.variant import Geometry
from .chessboard import BoardMemory
from .core import GeneratorCore
from .rom import (
    DEFAULT_LAYOUT,
    PosdataRom,
    StartRom,
    StartsFromWalkRom,
    check_layout,
    check_modes,
    rom_geometry,
)


class MoveGenerator(wiring.Component):
    """Ports
    -----
    wr_en, wr_sq, wr_color, wr_piece : In
        Host write port of the board (one square per cycle, ignored while busy).
    side, castle, ep_valid, ep_sq : In
        Side to move, castling rights (engine.rules.defs bits), en passant square; sampled at start.
    castling : In(Castling)
        The castlings' squares (``hdl.image.variant.castling_word(board.castles)``; orthodox
        chess's by default); sampled at start.
    start : In
        Begin a generation (ignored while busy).
    busy, done : Out
        ``busy`` is high from the cycle after ``start`` until the last move has been taken;
        ``done`` pulses in the cycle ``busy`` falls.
    cycles : Out(32)
        Clock cycles the last (or current) generation has been busy.
    moves : Out(stream.Signature(MoveLayout))
        The moves, in engine.rules.movegen.gen order, packed as engine's move word.
    walking, stepping, walk_from : Out
        Observation only (simulation traces, cycle accounts): the walker's logic stage is on
        the piece standing on ``walk_from`` and, with ``stepping``, consumes a table entry.

    Parameters
    ----------
    layout : "dense" (default) or "sparse"
        The posdata ROM's layout (``hdl.gen.rom``). Same moves, same order, same cycles.
    variant : an engine.rules.variants name (default chess)
        Whose tables and promotion sets the memories hold; the logic is the same for all.
    geometry : hdl.image.variant.Geometry
        The widths the tables need (default: the variant's own; a larger one holds it too).
    registered_heads : bool
        The merger's FIFOs with registered heads, for a device without LUT RAM (the iCE40;
        ``hdl.gen.merger``). Same moves, same cycles.
    typed_scan : bool
        The pieces in planes of registers and the prefetcher's next piece type found with its
        square (``hdl.gen.prefetch``), off the iCE40's critical path. Same moves, same cycles.
    split_lookup : bool
        The walker's colour lookup split over its two loop stages (``hdl.gen.walker``), for the
        iCE40. Same moves, same cycles.
    """

    wr_en: In(1)
    wr_sq: In(SQUARE)
    wr_color: In(Color)
    wr_piece: In(PIECE)
    side: In(1)
    castle: In(4)
    castling: In(Castling, init=ORTHODOX_CASTLING)
    ep_valid: In(1)
    ep_sq: In(SQUARE)
    start: In(1)
    busy: Out(1)
    done: Out(1)
    cycles: Out(32)
    moves: Out(stream.Signature(MoveLayout))
    walking: Out(1)
    stepping: Out(1)
    walk_from: Out(SQUARE)

    def __init__(self, layout: str = DEFAULT_LAYOUT, variant=CHESS,
                 geometry: Geometry | None = None, registered_heads: bool = False,
                 typed_scan: bool = False, split_lookup: bool = False):
        self._layout = check_layout(layout)
        self._split_lookup = split_lookup
        self._registered_heads = registered_heads
        self._typed_scan = typed_scan
        self._variant = variant
        self._geometry = rom_geometry(variant, geometry)
        check_modes(self._geometry, self._layout, typed_scan=typed_scan,
                    split_lookup=split_lookup)
        super().__init__()

    @property
    def layout(self) -> str:
        return self._layout

    def elaborate(self, platform):
        m = Module()
        m.submodules.board = board = BoardMemory(self._typed_scan)
        v, g = self._variant, self._geometry
        m.submodules.core = core = GeneratorCore(self._layout, v, g, self._registered_heads,
                                                 self._typed_scan, self._split_lookup)
        if self._typed_scan:
            wiring.connect(m, board.types, core.types)
        m.submodules.rom = rom = PosdataRom(self._layout, v, g)
        wiring.connect(m, board.planes, core.planes)
        wiring.connect(m, core.lookup, board.lookup)
        wiring.connect(m, core.walk, rom.a)
        wiring.connect(m, wiring.flipped(self.moves), core.moves)
        # ROM port A walks; the start entries come from port B (sparse: they are words of the
        # same table) or from a table of their own (dense: it also holds each walk's address)
        if self._layout == "sparse":
            m.submodules.starts = starts = StartsFromWalkRom(g)
            wiring.connect(m, core.starts, starts.starts)
            wiring.connect(m, starts.rom, rom.b)
        else:
            m.submodules.starts = starts = StartRom(self._layout, v, g)
            wiring.connect(m, core.starts, starts.a)

        m.d.comb += [
            board.wr_en.eq(self.wr_en & ~core.busy),
            board.wr_sq.eq(self.wr_sq),
            board.wr_color.eq(self.wr_color),
            board.wr_piece.eq(self.wr_piece),
            core.start.eq(self.start),
            core.expand.eq(1),
            core.position.side.eq(self.side),
            core.position.castle.eq(self.castle),
            core.position.ep_valid.eq(self.ep_valid),
            core.position.ep_sq.eq(self.ep_sq),
            core.castling.eq(self.castling),
            self.busy.eq(core.busy),
            self.done.eq(core.done),
            self.cycles.eq(core.cycles),
            self.walking.eq(core.walking),
            self.stepping.eq(core.stepping),
            self.walk_from.eq(core.walk_from),
        ]
        return m
