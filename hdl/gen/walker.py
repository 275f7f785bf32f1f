"""The walker: Sandström's walk as a two-context barrel pipeline.

Sandström's rule, per entry of a walk (GNU Chess doc/MOVE-GEN; engine.rules.movegen is the same walk
in Python): *an empty square: take nextpos; an occupied one: take nextdir*, and the walk ends when
the pointer it takes leads back to the from-square. ``RULE`` below writes the rule out for the
three kinds of thread a walk can be in (a piece, a pawn's pushes, a pawn's captures); the
walker's select bits are derived from that table at elaboration, so the table is the rule and
the logic follows from it.

Timing. A block RAM answers one cycle after it is given an address, and on an ECP5 its output
arrives late in that cycle (about 5.8 ns after the clock). Following the table needs the word
just read to form the next address, so a walker that did it in one cycle could not clock much
faster than 60 MHz. Here the ROM word is registered first, and the loop "address -> ROM ->
register -> logic -> address" takes two clocks. Two walk contexts take turns in it, so the ROM
still serves one table entry every clock while each path has a whole clock to itself:

    cycle t:   context A: entry in ``data_q`` -> emit, next address   context B: in the ROM
    cycle t+1: context B: entry in ``data_q`` -> emit, next address   context A: in the ROM

A context carries everything about its walk (piece, square, pawn thread), so the two simply
circulate through the registers ``ring_l`` (logic stage) and ``ring_r`` (in the ROM). While a
context waits for the ROM, everything that needs no ROM data (its square's colour, the move it
makes there, which pointer the rule takes) is computed and registered beside it; in the logic
stage only the ROM's two pointers and two end bits arrive unprocessed, and the next address is
one multiplexer away from them.

Pieces go to whichever context is free, in generation order; the walker reports on ``order``
which context took each piece, so the merger can put the moves back into generation order by
reading the contexts' FIFOs piece by piece. Each step writes at most one FIFO entry: a move
(flagged when it promotes: the merger expands it into four), the end of the piece, or both. A
context whose FIFO has no room replays its entry (same address again), so the ROM never needs a
clock enable and nothing else ever waits.
"""

import enum
from typing import NamedTuple

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import Color

from ..common.layouts import SQUARE, MoveLayout, Position
from ..image.addressing import TABLE_BITS, rom_address
from ..image.variant import Geometry
from .chessboard import Planes, color_of, rank_of
from .legs import elaborate_legs
from .params import CONTEXTS
from .prefetch import piece_record
from .rom import DEFAULT_LAYOUT, ORTHODOX, check_layout, check_modes, read_port

# --- Sandström's rule ----------------------------------------------------------------------------

class Thread(enum.Enum):
    PIECE = "a knight, bishop, rook, queen or king"
    PUSHES = "a pawn's push thread (nextpos)"
    CAPTURES = "a pawn's capture thread (nextdir)"


class Square(enum.Enum):
    EMPTY = "empty"
    ENEMY = "the other side's piece"
    OWN = "the side to move's piece"
    MARKER = "the from-square itself: a thread with no entries"


class Go(enum.Enum):
    NEXTPOS = "follow nextpos"
    NEXTDIR = "follow nextdir"
    CAPTURES = "on to the pawn's capture thread (its first square d1), or the end if it is empty"
    END = "the piece is done"


class Emit(enum.Enum):
    QUIET = "a quiet move"
    CAPTURE = "a capture"
    PUSH = "a pawn push (a double step at the second square; four moves on the last rank)"
    PAWN_CAPTURE = "a pawn capture (four moves on the last rank)"
    EN_PASSANT = "an en passant capture, if the square is the en passant square"


class Step(NamedTuple):
    emit: Emit | None
    go: Go
    home: Go = Go.END  #: where to go instead when the pointer taken leads to the from-square


#: (thread, square) -> what a walk step does there
RULE = {
    (Thread.PIECE, Square.EMPTY): Step(Emit.QUIET, Go.NEXTPOS),
    (Thread.PIECE, Square.ENEMY): Step(Emit.CAPTURE, Go.NEXTDIR),
    (Thread.PIECE, Square.OWN): Step(None, Go.NEXTDIR),
    (Thread.PIECE, Square.MARKER): Step(None, Go.END),
    (Thread.PUSHES, Square.EMPTY): Step(Emit.PUSH, Go.NEXTPOS, home=Go.CAPTURES),
    (Thread.PUSHES, Square.ENEMY): Step(None, Go.CAPTURES),
    (Thread.PUSHES, Square.OWN): Step(None, Go.CAPTURES),
    (Thread.PUSHES, Square.MARKER): Step(None, Go.CAPTURES),
    (Thread.CAPTURES, Square.EMPTY): Step(Emit.EN_PASSANT, Go.NEXTDIR),
    (Thread.CAPTURES, Square.ENEMY): Step(Emit.PAWN_CAPTURE, Go.NEXTDIR),
    (Thread.CAPTURES, Square.OWN): Step(None, Go.NEXTDIR),
    (Thread.CAPTURES, Square.MARKER): Step(None, Go.END),
}
assert set(RULE) == {(t, s) for t in Thread for s in Square}


# --- registers -----------------------------------------------------------------------------------

def context_layout(geometry: Geometry) -> data.StructLayout:
    """One walk in progress."""
    return data.StructLayout({
        "active": 1,
        "id": range(CONTEXTS),  # which FIFO its moves go to (fixed: contexts circulate)
        "table": TABLE_BITS,
        "frm": SQUARE,
        "d1": SQUARE,     # a pawn's first capture square
        "d1_end": 1,      # ... which is the from-square (an empty capture thread)
        "pawn": 1,
        "capt": 1,        # a pawn in its capture thread
        "push2": 1,       # a pawn at its double-step square
        "u": SQUARE,      # the square whose entry this context reads
        "addr": geometry.dense_addr_bits,     # dense layout: that entry's address ...
        "d1_addr": geometry.dense_addr_bits,  # ... and the address of the pawn's first capture
    })


Context = context_layout(ORTHODOX)  #: orthodox chess's (the formal harnesses')

#: what the rule decided for a context's square while it waited for the ROM; the logic stage
#: combines it with the ROM word's pointers and end bits:
#:   piece_end = always_end | (end_if_np & np_end) | (end_if_nd & nd_end)
#:   next square = nextpos if use_np (unless np_to_d1 and np_end), else nextdir if use_nd,
#:                 else the pawn's first capture square d1
Precomputed = data.StructLayout({
    "emit": 1,
    "promote": 1,
    "word": MoveLayout,
    "always_end": 1,
    "end_if_np": 1,
    "end_if_nd": 1,
    "use_np": 1,
    "use_nd": 1,
    "np_to_d1": 1,    # nextpos leads home: on to the capture thread instead
    "to_capture": 1,  # the pawn moves to its capture thread
    "step": 1,        # active, and its FIFO has room for what this step may write
})

#: what a walk step hands to the output merger
Entry = data.StructLayout({
    "word": MoveLayout,
    "move": 1,        # ``word`` is a move
    "promote": 1,     # ... onto the last rank: four moves, one per promotion piece
    "end": 1,         # the piece is done after this entry
})

#: walker -> merger: one entry per clock into the FIFO of the context that made it. ``room`` is
#: sampled while a context waits for the ROM, a cycle before it may write, so it must mean
#: "room for two more".
EntryPort = wiring.Signature({
    "entry": Out(Entry),
    "write": Out(CONTEXTS),
    "room": In(CONTEXTS),
})

#: walker -> merger: which context took each piece, in piece order
OrderPort = stream.Signature(range(CONTEXTS), always_ready=True)


def rule_selects(m, pre, thread_is: dict, square_is: dict, d1_end) -> None:
    """Drive ``pre``'s select bits from RULE: each is the OR of the (thread, square) cases
    whose step asks for it."""
    terms = {name: [] for name in ("use_np", "use_nd", "np_to_d1", "end_if_np", "end_if_nd",
                                   "always_end", "to_capture")}
    for (thread, square), step in RULE.items():
        case = thread_is[thread] & square_is[square]
        # Go.CAPTURES ends the piece where the capture thread is empty
        ends = Const(1) if step.home is Go.END else d1_end
        if step.go is Go.NEXTPOS:
            terms["use_np"].append(case)
            terms["end_if_np"].append(case & ends)
            if step.home is Go.CAPTURES:
                terms["np_to_d1"].append(case)
        elif step.go is Go.NEXTDIR:
            terms["use_nd"].append(case)
            terms["end_if_nd"].append(case & ends)
        elif step.go is Go.CAPTURES:
            terms["to_capture"].append(case)
            terms["always_end"].append(case & d1_end)
        else:
            terms["always_end"].append(case)
    for name, cases in terms.items():
        value = Const(0)
        for case in cases:
            value = value | case
        m.d.comb += getattr(pre, name).eq(value)


class Walker(wiring.Component):
    """Ports
    -----
    start : In
        Begin a generation (resets the contexts; position inputs stable from then on).
    position : In(Position)
        Side to move and en passant square.
    planes : In(Planes)
        The board's colour planes.
    pieces : In(stream.Signature(PieceRecord))
        The prefetcher's queue of pieces in generation order. Whichever context is free when
        it reaches the logic stage takes the head.
    rom : Out(ReadPort)
        ROM port (one cycle latency, always enabled): the word and its end bits.
    entries : Out(EntryPort)
        The per-context move FIFOs of the merger.
    order : Out(OrderPort)
        The context that took each piece.
    idle : Out
        Neither context is walking a piece.
    walking, stepping, walk_from : Out
        Observation only (traces, cycle accounts): the context in the logic stage walks the
        piece on ``walk_from``; ``stepping``: and consumes its ROM entry (else it stalls on a
        full FIFO and replays it).

    Parameters
    ----------
    layout : "dense" or "sparse"
        How the ROM stores the table (``hdl.gen.rom``): the walk and its timing are the same; only
        how the next entry's address is formed differs (from (table, from, square), or this
        entry's address plus 1 or ``skip``).
    geometry : hdl.image.variant.Geometry
        The widths the variant's tables need (the dense ROM's addresses and skip field). With
        modes (``mode_bits``) the ROM holds the walk image and the walker follows its modes
        (``hdl.gen.legs``): the rule below, generalised.
    split_lookup : bool
        The colour lookup split over the loop's two stages (for the iCE40): the logic stage
        picks the rank (8 squares of each plane) for every square the context may go to next,
        from registers, and registers the one it goes to beside the context; the ROM stage then
        picks the file, and the rule follows in the same clock. Same moves, same cycles.
        The pieces then carry their first square's rank (hdl.gen.prefetch, ``first_rank``).
    """

    def __init__(self, layout: str = DEFAULT_LAYOUT, geometry: Geometry = ORTHODOX,
                 split_lookup: bool = False):
        self._layout = check_layout(layout)
        self._geometry = geometry
        self._split_lookup = split_lookup
        check_modes(geometry, layout, split_lookup=split_lookup)
        super().__init__({
            "start": In(1), "position": In(Position), "planes": In(Planes),
            "pieces": In(stream.Signature(piece_record(geometry, split_lookup))),
            "rom": Out(read_port(geometry)), "entries": Out(EntryPort), "order": Out(OrderPort),
            "idle": Out(1), "walking": Out(1), "stepping": Out(1), "walk_from": Out(SQUARE)})

    def elaborate(self, platform):
        if self._geometry.mode_bits:  # the walk image: the rule generalised (hdl.gen.legs)
            return elaborate_legs(self)
        m = Module()
        side = self.position.side

        # --- the ring: the context in the logic stage and the one waiting for the ROM ------
        context = context_layout(self._geometry)
        ring_l = Signal(context, init={"id": 0})
        ring_r = Signal(context, init={"id": 1})
        data_q = Signal.like(self.rom.data)  # the ROM word of ring_l's square, registered
        # ... and whether each of its pointers leads back to the from-square (the walk or a
        # pawn's thread ends there), read from the ROM beside the word (see hdl.gen.rom).
        np_end = Signal()
        nd_end = Signal()
        nxt = Signal(context)
        m.d.sync += [ring_l.eq(ring_r), ring_r.eq(nxt), data_q.eq(self.rom.data),
                     np_end.eq(self.rom.ends[0]), nd_end.eq(self.rom.ends[1])]
        with m.If(self.start):  # the same ring phase every time: timing never depends on history
            m.d.sync += [ring_l.active.eq(0), ring_r.active.eq(0), ring_l.id.eq(0),
                         ring_r.id.eq(1)]
        dense = self._layout == "dense"
        m.d.comb += [self.rom.addr.eq(nxt.addr if dense else
                                      rom_address(nxt.table, nxt.frm, nxt.u)),
                     self.rom.en.eq(1)]

        # --- while a context waits for the ROM: the rule applied to its square ---------------
        r = ring_r
        here = Signal(Color)
        if self._split_lookup:
            # the rank of ring_r's square and ring_l's: 8 squares of each plane (black, empty)
            row_r = Signal(16)
            row_l = Signal(16)
            m.d.sync += row_l.eq(row_r)
            m.d.comb += here.eq(Cat(row_r[:8].bit_select(r.u[:3], 1),
                                    row_r[8:].bit_select(r.u[:3], 1)))
        else:
            m.d.comb += here.eq(color_of(self.planes, r.u))

        def apply_rule(pre_next, here):
            marker = r.u == r.frm
            square_is = {
                Square.MARKER: marker,
                Square.EMPTY: ~marker & (here == Color.EMPTY),
                Square.ENEMY: ~marker & (here == Mux(side, Color.WHITE, Color.BLACK)),
                Square.OWN: ~marker & (here == Mux(side, Color.BLACK, Color.WHITE)),
            }
            thread_is = {Thread.PIECE: ~r.pawn, Thread.PUSHES: r.pawn & ~r.capt,
                         Thread.CAPTURES: r.pawn & r.capt}
            rule_selects(m, pre_next, thread_is, square_is, r.d1_end)

            # whether the rule emits a move on this square ...
            last_rank = r.u[3:] == Mux(side, Const(0, 3), Const(7, 3))
            ep_square = self.position.ep_valid & (r.u == self.position.ep_sq)
            emit = Const(0)
            for (thread, square), step in RULE.items():
                if step.emit is not None:
                    when = ep_square if step.emit is Emit.EN_PASSANT else Const(1)
                    emit = emit | (thread_is[thread] & square_is[square] & when)
            m.d.comb += pre_next.emit.eq(emit)
            # ... and the move word it would be: the flags of an emitted move depend only on
            # the thread (and, for a capture thread, whether it is en passant), so they are set
            # per thread, whatever the square
            word = pre_next.word
            flags = word.flags
            m.d.comb += [word.frm.eq(r.frm), word.to.eq(r.u)]
            with m.If(thread_is[Thread.PIECE]):      # QUIET or CAPTURE
                m.d.comb += flags.capture.eq(square_is[Square.ENEMY])
            with m.Elif(thread_is[Thread.PUSHES]):   # PUSH
                m.d.comb += [flags.pawn_move.eq(1), flags.double.eq(r.push2),
                             pre_next.promote.eq(last_rank)]
            with m.Else():                           # PAWN_CAPTURE or EN_PASSANT
                m.d.comb += [flags.pawn_move.eq(1), flags.capture.eq(1),
                             flags.ep.eq(~square_is[Square.ENEMY]),
                             pre_next.promote.eq(last_rank)]
            # FIFO room is judged a cycle early: the merger's room leaves a margin for that
            m.d.comb += pre_next.step.eq(r.active & (self.entries.room >> r.id)[0])

        pre_next = Signal(Precomputed)
        if self._split_lookup:
            # the rule applied for each colour the square can have, from registers, while the
            # file is picked from the rank; the colour selects last (applied to the looked-up
            # colour, the rule would follow the 8:1 selection: seven LUT levels in one clock on
            # the iCE40)
            if_colour = {}
            for colour in (Color.WHITE, Color.BLACK, Color.EMPTY):
                if_colour[colour] = Signal(Precomputed, name=f"pre_if_{colour.name.lower()}")
                apply_rule(if_colour[colour], Const(colour, Color))
            m.d.comb += pre_next.as_value().eq(
                Mux(here[1], if_colour[Color.EMPTY].as_value(),
                    Mux(here[0], if_colour[Color.BLACK].as_value(),
                        if_colour[Color.WHITE].as_value())))
        else:
            apply_rule(pre_next, here)
        pre = Signal(Precomputed)  # ... for ring_l
        m.d.sync += pre.eq(pre_next)

        # --- the logic stage: where the walk goes next, from the registered ROM word --------
        c = ring_l
        nextpos = data_q[:6]
        nextdir = data_q[6:12]
        skip = data_q[12:12 + self._geometry.skip_bits]  # dense: the nextdir entry, this far on
        piece_end = Signal()
        to_capture = Signal()
        next_u = Signal(SQUARE)
        take_np = pre.use_np & ~(pre.np_to_d1 & np_end)
        m.d.comb += [
            piece_end.eq(pre.always_end | (pre.end_if_np & np_end) | (pre.end_if_nd & nd_end)),
            next_u.eq(Mux(take_np, nextpos, Mux(pre.use_nd, nextdir, c.d1))),
            to_capture.eq(pre.to_capture | (pre.np_to_d1 & np_end)),
        ]

        # --- the step ----------------------------------------------------------------------
        step = pre.step
        head = self.pieces.payload
        fresh = Signal(context)  # the context taking the queue's head
        m.d.comb += [fresh.active.eq(1), fresh.id.eq(c.id), fresh.table.eq(head.table),
                     fresh.frm.eq(head.frm), fresh.d1.eq(head.d1),
                     fresh.d1_end.eq(head.d1 == head.frm), fresh.pawn.eq(head.pawn),
                     fresh.u.eq(head.first)]
        advanced = Signal(context)
        m.d.comb += [advanced.eq(c), advanced.u.eq(next_u),
                     advanced.capt.eq(c.capt | to_capture),
                     advanced.push2.eq(c.pawn & ~c.capt & ~to_capture)]
        if dense:
            m.d.comb += [fresh.addr.eq(head.base), fresh.d1_addr.eq(head.base + head.pushes),
                         advanced.addr.eq(Mux(take_np, c.addr + 1,
                                              Mux(pre.use_nd, c.addr + skip, c.d1_addr)))]
        advance = step & ~piece_end   # on to the next square of the same piece
        finishing = step | ~c.active  # done with a piece (or had none): may take the next
        take = self.pieces.valid & self.pieces.ready
        m.d.comb += self.pieces.ready.eq(finishing & ~advance)
        other = Signal(context)  # the next context when this one does not advance
        m.d.comb += other.eq(c)
        # split_lookup (the iCE40): take is valid & finishing when the context does not
        # advance; written so, the late ``advance`` selects last (the same contexts)
        with m.If(self.pieces.valid & finishing if self._split_lookup else take):
            m.d.comb += other.eq(fresh)
        with m.Elif(step):
            m.d.comb += other.active.eq(0)
        m.d.comb += nxt.eq(Mux(advance, advanced, other))
        if self._split_lookup:
            # the same choices as nxt.u's, between ranks picked a clock earlier: those of the
            # ROM word's two pointers as it is registered (the block RAM's output, then the
            # 8:1 selections), of ring_r's d1 (ring_l's now) and of the queue head's first
            # square (picked as it landed). Picked here, after the registered word, the 8:1
            # selections and then these multiplexers would be seven LUT levels in one clock,
            # and Yosys relaxes every other path to the depth of the deepest
            np_row = Signal(16)
            nd_row = Signal(16)
            d1_row = Signal(16)
            m.d.sync += [np_row.eq(rank_of(self.planes, self.rom.data[:6])),
                         nd_row.eq(rank_of(self.planes, self.rom.data[6:12])),
                         d1_row.eq(rank_of(self.planes, ring_r.d1))]
            next_row = Mux(take_np, np_row, Mux(pre.use_nd, nd_row, d1_row))
            # (as ``other``: the late ``advance`` selects last)
            m.d.sync += row_r.eq(Mux(advance, next_row,
                                     Mux(self.pieces.valid & finishing, head.first_rank,
                                         row_l)))
        m.d.comb += [self.order.valid.eq(take), self.order.payload.eq(c.id)]

        m.d.comb += [self.entries.entry.word.eq(pre.word), self.entries.entry.move.eq(pre.emit),
                     self.entries.entry.promote.eq(pre.promote),
                     self.entries.entry.end.eq(piece_end),
                     self.entries.write.eq((step & (pre.emit | piece_end)) << c.id)]
        m.d.comb += [
            self.idle.eq(~ring_l.active & ~ring_r.active),
            self.walking.eq(c.active),
            self.stepping.eq(c.active & step),
            self.walk_from.eq(c.frm),
        ]
        return m
