"""The walker on walks with modes (Muller's legs): Sandström's rule generalised once.

``hdl.gen.walker`` follows Sandström's (from, to) words, with a pawn's two threads written into
its rule. At a geometry with modes (``hdl.image.variant.Geometry.mode_bits``) the ROM holds the
walk image (``hdl.image.walks``) instead, and the rule needs no threads: every entry carries a
mode, and

* on an empty square: emit a quiet move if the mode has QUIET (a double step if DOUBLE), else an
  en passant capture if it has EN_PASSANT and the square is the en passant square; go to the
  on-empty successor (nextpos, ``pos_skip`` entries on);
* on an occupied square: emit a capture if it holds the other side's piece and the mode has
  CAPTURE; go to the on-occupied successor (nextdir, ``dir_skip`` entries on);
* the walk ends where the successor taken leads home (the ROM's end bits), or at once on the
  from-square itself (a walk with no entries);
* the move is a pawn's (PAWN_MOVE) if the piece is a pawn, and promotes if the mode has PROMOTE.

A hopper's screen search (mode 0 entries that only pass through), a lame leap's blocking square,
move-only and capture-only entries, an asymmetric piece's table per colour (the prefetcher's
lookup) and the pawns are all data: a new piece or variant is a new ROM image, never new RTL.

Timing is the Sandström walker's: the same two-context ring, the rule applied to the context
waiting for the ROM (its square and that square's mode are known a step ahead: each word holds
its successors' modes, the start entry the first entry's), the logic stage choosing between
the word's two successors by one registered bit.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import data

from posdata.engine.rules.defs import Color
from posdata.engine.rules.pieces import CAPTURE, DOUBLE, EN_PASSANT, QUIET

from ..common.layouts import SQUARE, MoveLayout
from ..image.variant import Geometry
from ..image.walks import PROMOTE, word_fields
from .chessboard import color_of
from .params import CONTEXTS


def leg_context(geometry: Geometry) -> data.StructLayout:
    """One walk in progress."""
    return data.StructLayout({
        "active": 1,
        "id": range(CONTEXTS),  # which FIFO its moves go to (fixed: contexts circulate)
        "frm": SQUARE,
        "pawn": 1,
        "u": SQUARE,                       # the square whose entry this context reads ...
        "mode": geometry.mode_bits,        # ... what may be emitted there ...
        "addr": geometry.dense_addr_bits,  # ... and that entry's address
    })


#: what the rule decided for a context's square while it waited for the ROM
LegRule = data.StructLayout({
    "emit": 1,
    "promote": 1,
    "word": MoveLayout,
    "empty": 1,   # the square is empty: take the on-empty successor (else the on-occupied)
    "marker": 1,  # the from-square itself: a walk with no entries ends at once
    "step": 1,    # active, and its FIFO has room for what this step may write
})


def has(mode, bit: int):
    return (mode & bit).any()


def elaborate_legs(walker) -> Module:
    """The walker's logic at a geometry with modes (``walker``: the hdl.gen.walker.Walker whose
    ports it drives)."""
    m = Module()
    g = walker._geometry
    side = walker.position.side

    # --- the ring, as in hdl.gen.walker ------------------------------------------------------
    context = leg_context(g)
    ring_l = Signal(context, init={"id": 0})
    ring_r = Signal(context, init={"id": 1})
    data_q = Signal.like(walker.rom.data)
    np_end = Signal()
    nd_end = Signal()
    nxt = Signal(context)
    m.d.sync += [ring_l.eq(ring_r), ring_r.eq(nxt), data_q.eq(walker.rom.data),
                 np_end.eq(walker.rom.ends[0]), nd_end.eq(walker.rom.ends[1])]
    with m.If(walker.start):
        m.d.sync += [ring_l.active.eq(0), ring_r.active.eq(0), ring_l.id.eq(0),
                     ring_r.id.eq(1)]
    m.d.comb += [walker.rom.addr.eq(nxt.addr), walker.rom.en.eq(1)]

    # --- while a context waits for the ROM: its square's colour against its mode ------------
    r = ring_r
    here = Signal(Color)
    m.d.comb += here.eq(color_of(walker.planes, r.u))
    marker = r.u == r.frm
    empty = ~marker & (here == Color.EMPTY)
    enemy = ~marker & (here == Mux(side, Color.WHITE, Color.BLACK))
    ep_square = walker.position.ep_valid & (r.u == walker.position.ep_sq)
    quiet = empty & has(r.mode, QUIET)
    en_passant = empty & ~has(r.mode, QUIET) & has(r.mode, EN_PASSANT) & ep_square
    capture = enemy & has(r.mode, CAPTURE)
    pre_next = Signal(LegRule)
    word = pre_next.word
    m.d.comb += [
        pre_next.emit.eq(quiet | en_passant | capture),
        pre_next.promote.eq(has(r.mode, PROMOTE) & ~en_passant),
        pre_next.empty.eq(empty),
        pre_next.marker.eq(marker),
        word.frm.eq(r.frm), word.to.eq(r.u),
        word.flags.capture.eq(capture | en_passant),
        word.flags.ep.eq(en_passant),
        word.flags.pawn_move.eq(r.pawn),
        word.flags.double.eq(quiet & has(r.mode, DOUBLE)),
        # FIFO room is judged a cycle early: the merger's room leaves a margin for that
        pre_next.step.eq(r.active & (walker.entries.room >> r.id)[0]),
    ]
    pre = Signal(LegRule)  # ... for ring_l
    m.d.sync += pre.eq(pre_next)

    # --- the logic stage: the successor, from the registered ROM word ------------------------
    c = ring_l
    entry = data.StructLayout(word_fields(g.skip_bits, g.mode_bits))(data_q)
    piece_end = Signal()
    m.d.comb += piece_end.eq(pre.marker | Mux(pre.empty, np_end, nd_end))
    advanced = Signal(context)
    m.d.comb += [advanced.eq(c),
                 advanced.u.eq(Mux(pre.empty, entry.nextpos, entry.nextdir)),
                 advanced.mode.eq(Mux(pre.empty, entry.np_mode, entry.nd_mode)),
                 advanced.addr.eq(c.addr + Mux(pre.empty, entry.pos_skip, entry.dir_skip))]

    # --- the step, as in hdl.gen.walker ------------------------------------------------------
    step = pre.step
    head = walker.pieces.payload
    fresh = Signal(context)  # the context taking the queue's head
    m.d.comb += [fresh.active.eq(1), fresh.id.eq(c.id), fresh.frm.eq(head.frm),
                 fresh.pawn.eq(head.pawn), fresh.u.eq(head.first), fresh.mode.eq(head.mode),
                 fresh.addr.eq(head.base)]
    advance = step & ~piece_end
    finishing = step | ~c.active
    take = walker.pieces.valid & walker.pieces.ready
    m.d.comb += walker.pieces.ready.eq(finishing & ~advance)
    other = Signal(context)
    m.d.comb += other.eq(c)
    with m.If(take):
        m.d.comb += other.eq(fresh)
    with m.Elif(step):
        m.d.comb += other.active.eq(0)
    m.d.comb += nxt.eq(Mux(advance, advanced, other))
    m.d.comb += [walker.order.valid.eq(take), walker.order.payload.eq(c.id)]

    out = walker.entries
    m.d.comb += [out.entry.word.eq(pre.word), out.entry.move.eq(pre.emit),
                 out.entry.promote.eq(pre.promote), out.entry.end.eq(piece_end),
                 out.write.eq((step & (pre.emit | piece_end)) << c.id)]
    m.d.comb += [
        walker.idle.eq(~ring_l.active & ~ring_r.active),
        walker.walking.eq(c.active),
        walker.stepping.eq(c.active & step),
        walker.walk_from.eq(c.frm),
    ]
    return m

