"""The walker: Sandström's walk as a two-context barrel pipeline.

A block RAM answers one cycle after it is given an address, and on an ECP5 its output arrives
late in that cycle (about 5.8 ns after the clock). Following the table needs the word just read
to form the next address, so a walker that did it in one cycle could not clock much faster
than 60 MHz. Here the ROM word is registered first, and the loop "address -> ROM -> register ->
logic -> address" takes two clocks. Two walk contexts take turns in it, so the ROM still
serves one table entry every clock while each path has a whole clock to itself:

    cycle t:   context A: entry in ``data_q`` -> emit, next address   context B: in the ROM
    cycle t+1: context B: entry in ``data_q`` -> emit, next address   context A: in the ROM

A context carries everything about its walk (piece, square, pawn thread), so the two simply
circulate through the registers ``ring_l`` (logic stage) and ``ring_r`` (in the ROM). Pieces
go to whichever context is free, in generation order, and the merger is told which context
took each piece, so it can put the moves back into generation order by reading the contexts'
FIFOs piece by piece.

Per entry of the walk (as in engine.movegen and GNU Chess):

* knight .. king: empty -> quiet move, follow nextpos; enemy -> capture, follow nextdir;
  own -> follow nextdir; back at the from-square -> the piece is done.
* pawn, push thread (nextpos): empty -> push (at the second square: double step), follow
  nextpos unless it returns to the from-square; occupied or done -> the capture thread.
* pawn, capture thread (nextdir, from ``d1`` of the prefetched start entry): enemy -> capture,
  empty en passant square -> en passant capture; always follow nextdir.

Each step writes at most one FIFO entry: a move (flagged when it promotes: the merger expands
it into four), the end of the piece, or both. A context whose FIFO is full replays its entry
(same address again), so the ROM never needs a clock enable and nothing else ever waits.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import Color

from .board import color_of
from .layouts import SQUARE, MoveLayout
from .params import CONTEXTS
from .prefetch import PieceRecord
from .rom_image import ADDR_BITS, END_BITS, WORD_BITS

#: one walk in progress
Context = data.StructLayout({
    "active": 1,
    "id": 1,          # which FIFO its moves go to (fixed: contexts circulate, ids stay put)
    "table": 3,
    "frm": SQUARE,
    "d1": SQUARE,     # a pawn's first capture square
    "d1_end": 1,      # ... which is the from-square (an empty capture thread)
    "pawn": 1,
    "capt": 1,        # a pawn in its capture thread
    "push2": 1,       # a pawn at its double-step square
    "u": SQUARE,      # the square whose entry this context reads
})

#: what the logic stage needs about a context's square besides the ROM word: the move made
#: there, and how the ROM word's end bits and pointers decide the next step:
#:   piece_end = always_end | (end_if_np & np_end) | (end_if_nd & nd_end)
#:   next square = nextpos if use_np (and not np_to_d1 with np_end), else nextdir if use_nd,
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
    "np_to_d1": 1,    # a pawn push: when nextpos returns home, continue at d1 instead
    "to_capture": 1,  # the pawn moves to its capture thread whatever the ROM says
    "step": 1,        # active, and its FIFO has room for what this step may write
})

#: what a walk step hands to the output merger
Entry = data.StructLayout({
    "word": MoveLayout,
    "move": 1,        # ``word`` is a move
    "promote": 1,     # ... onto the last rank: four moves, one per promotion piece
    "end": 1,         # the piece is done after this entry
})


class Walker(wiring.Component):
    """Ports
    -----
    start : In
        Begin a generation (resets the contexts; position inputs stable from then on).
    side, ep_valid, ep_sq, empty, black : In
        The position.
    head, head_ready : In; pop : Out; popped_by : Out
        The prefetcher's queue of pieces in generation order. Whichever context is free when
        it reaches the logic stage takes the head; ``popped_by`` names it, so the merger can
        read the contexts' FIFOs in piece order.
    rom_addr : Out; rom_data, rom_ends : In
        ROM port A (one cycle latency, always enabled): the word and its end bits.
    fifo_ready : In(CONTEXTS); fifo_write : Out(CONTEXTS); entry : Out(Entry)
        The per-context move FIFOs. ``fifo_ready`` is sampled while a context waits for the
        ROM, a cycle before it may write, so it must mean "room for two more".
    idle : Out
        Neither context is walking a piece.
    walking, walk_from : Out
        Observation only: the context in the logic stage walks the piece on ``walk_from``.
    """

    start: In(1)
    side: In(1)
    ep_valid: In(1)
    ep_sq: In(SQUARE)
    empty: In(64)
    black: In(64)
    head: In(PieceRecord)
    head_ready: In(1)
    pop: Out(1)
    popped_by: Out(range(CONTEXTS))
    rom_addr: Out(ADDR_BITS)
    rom_data: In(WORD_BITS)
    rom_ends: In(END_BITS)
    fifo_ready: In(CONTEXTS)
    fifo_write: Out(CONTEXTS)
    entry: Out(Entry)
    idle: Out(1)
    walking: Out(1)
    walk_from: Out(SQUARE)

    def elaborate(self, platform):
        m = Module()
        side = self.side

        # --- the ring: the context in the logic stage and the one waiting for the ROM ------
        ring_l = Signal(Context, init={"id": 0})
        ring_r = Signal(Context, init={"id": 1})
        data_q = Signal(WORD_BITS)  # the ROM word of ring_l's square, registered
        # ... and whether each of its pointers leads back to the from-square (the walk or a
        # pawn's thread ends there), read from the ROM beside the word (see hdl.rom).
        np_end = Signal()
        nd_end = Signal()
        nxt = Signal(Context)
        m.d.sync += [ring_l.eq(ring_r), ring_r.eq(nxt), data_q.eq(self.rom_data),
                     np_end.eq(self.rom_ends[0]), nd_end.eq(self.rom_ends[1])]
        with m.If(self.start):  # the same ring phase every time: timing never depends on history
            m.d.sync += [ring_l.active.eq(0), ring_r.active.eq(0), ring_l.id.eq(0),
                         ring_r.id.eq(1)]
        m.d.comb += self.rom_addr.eq(Cat(nxt.u, nxt.frm, nxt.table))

        # --- while a context waits for the ROM: everything that needs no ROM data ----------
        # (the colour of its square, the move it makes there), registered beside it.
        r = ring_r
        here = Signal(Color)
        m.d.comb += here.eq(color_of(self.empty, self.black, r.u))
        r_empty = here == Color.EMPTY
        r_enemy = here == Mux(side, Color.WHITE, Color.BLACK)
        r_own = here == Mux(side, Color.BLACK, Color.WHITE)
        r_marker = r.u == r.frm  # a thread that is empty from the start (no legal position)
        r_last_rank = r.u[3:] == Mux(side, Const(0, 3), Const(7, 3))
        r_ep = self.ep_valid & (r.u == self.ep_sq)
        pre_next = Signal(Precomputed)
        m.d.comb += [pre_next.word.frm.eq(r.frm), pre_next.word.to.eq(r.u)]
        with m.If(~r.pawn):
            m.d.comb += [pre_next.emit.eq(~r_marker & ~r_own),
                         pre_next.word.flags.capture.eq(r_enemy)]
        with m.Elif(~r.capt):
            m.d.comb += [pre_next.emit.eq(~r_marker & r_empty), pre_next.promote.eq(r_last_rank),
                         pre_next.word.flags.pawn_move.eq(1),
                         pre_next.word.flags.double.eq(r.push2)]
        with m.Else():
            m.d.comb += [pre_next.emit.eq(~r_marker & (r_enemy | (r_empty & r_ep))),
                         pre_next.promote.eq(r_last_rank), pre_next.word.flags.pawn_move.eq(1),
                         pre_next.word.flags.capture.eq(1), pre_next.word.flags.ep.eq(~r_enemy)]
        nonpawn = ~r.pawn & ~r_marker
        push = r.pawn & ~r.capt & ~r_marker
        capt = r.pawn & r.capt & ~r_marker
        m.d.comb += [
            # a knight .. king: empty -> nextpos, else nextdir; the piece ends where it points home
            # a pawn's push: empty -> nextpos, unless home: then (and when blocked) -> d1
            # a pawn's capture thread: nextdir; a marker (empty thread): d1 or the end
            pre_next.always_end.eq((push & ~r_empty & r.d1_end)
                                   | (r_marker & (~r.pawn | r.capt | r.d1_end))),
            pre_next.end_if_np.eq((nonpawn & r_empty) | (push & r_empty & r.d1_end)),
            pre_next.end_if_nd.eq((nonpawn & ~r_empty) | capt),
            pre_next.use_np.eq((nonpawn | push) & r_empty),
            pre_next.use_nd.eq((nonpawn & ~r_empty) | capt),
            pre_next.np_to_d1.eq(push & r_empty),
            pre_next.to_capture.eq((push & ~r_empty) | (r_marker & r.pawn & ~r.capt)),
            # FIFO room is judged a cycle early: fifo_ready leaves a margin for that
            pre_next.step.eq(r.active & (self.fifo_ready >> r.id)[0]),
        ]
        pre = Signal(Precomputed)  # ... for ring_l
        m.d.sync += pre.eq(pre_next)

        # --- the logic stage: where the walk goes next, from the registered ROM word --------
        # Only the ROM's pointers and end bits arrive here unprocessed; each decision about
        # them is a small function of registered selects.
        c = ring_l
        nextpos = data_q[:6]
        nextdir = data_q[6:]
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
        # Only piece_end and next_u depend on the ROM word; every other choice is made from
        # registers, so the next address is one mux away from them.
        step = pre.step
        may_take = self.head_ready
        head = self.head
        fresh = Signal(Context)  # the context taking the queue's head
        m.d.comb += [fresh.active.eq(1), fresh.id.eq(c.id), fresh.table.eq(head.table),
                     fresh.frm.eq(head.frm), fresh.d1.eq(head.d1),
                     fresh.d1_end.eq(head.d1 == head.frm), fresh.pawn.eq(head.pawn),
                     fresh.u.eq(head.first)]
        advanced = Signal(Context)
        m.d.comb += [advanced.eq(c), advanced.u.eq(next_u),
                     advanced.capt.eq(c.capt | to_capture),
                     advanced.push2.eq(c.pawn & ~c.capt & ~to_capture)]
        advance = step & ~piece_end   # on to the next square of the same piece
        other = Signal(Context)  # the next context when this one does not advance
        finishing = step | ~c.active  # done with a piece (or had none): may take the next
        m.d.comb += other.eq(c)
        with m.If(finishing & may_take):
            m.d.comb += other.eq(fresh)
        with m.Elif(step):
            m.d.comb += other.active.eq(0)
        m.d.comb += nxt.eq(Mux(advance, advanced, other))
        m.d.comb += [self.pop.eq(finishing & may_take & ~advance),
                     self.popped_by.eq(c.id)]

        m.d.comb += [self.entry.word.eq(pre.word), self.entry.move.eq(pre.emit),
                     self.entry.promote.eq(pre.promote), self.entry.end.eq(piece_end),
                     self.fifo_write.eq((step & (pre.emit | piece_end)) << c.id)]
        m.d.comb += [
            self.idle.eq(~ring_l.active & ~ring_r.active),
            self.walking.eq(c.active),
            self.walk_from.eq(c.frm),
        ]
        return m
