"""The output merger: puts the walk contexts' moves back into generation order, expands
promotions, adds castling, and drives the ``moves`` stream.

Pieces go to whichever walk context is free, in generation order; the walker reports each
assignment, and an order FIFO of context numbers tells the merger which context's FIFO holds
the next piece, so reading them piece by piece yields the moves in engine.rules.movegen order.
A promoting entry leaves as one move per promotion piece of the side (a small table of the
variant's, ``hdl.image.variant.promotion_image``: orthodox Q R B N), or, with ``expand`` low, as
one word flagged PROMOTION with no piece (a perft thread counts it four times, or stores it once
and makes the four promotions in turn). After the last piece come the castling moves (king
side, then queen side) whose right is held and whose squares between king and rook are empty,
the squares coming with the position (``castling``: Chess960 puts king and rook anywhere);
whether the king passes through check is makemove's business.

The stream's ready only reaches this module: when the consumer stalls, the FIFOs fill and the
walk contexts replay their entries until there is room again.
"""

from amaranth import Cat, Module, Mux, Shape, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.variants import CHESS

from ..common.contract import ORTHODOX_CASTLING
from ..common.layouts import Castling, MoveLayout, Position
from ..common.shift_fifo import ShiftFIFO
from ..image.variant import PROMO_PIECE_BITS, Geometry, promotion_image, variant_image
from .chessboard import Planes
from .params import CONTEXTS, FIFO_DEPTH, ORDER_DEPTH, ROOM_MARGIN
from .rom import ORTHODOX
from .walker import Entry, EntryPort, OrderPort


class OutputMerger(wiring.Component):
    """Ports
    -----
    start : In
        Begin a generation.
    expand : In
        Expand a promotion into its four moves (else one word, promoted piece 0).
    position : In(Position)
        Side to move and castling rights.
    castling : In(Castling)
        Per castling right, the king's from- and to-file and the back-rank squares that must be
        empty (hdl.image.variant.castling_word); orthodox chess's when undriven.
    planes : In(Planes)
        The board's colour planes (castling needs empty squares).
    entries : In(EntryPort)
        One FIFO per walk context.
    order : In(OrderPort)
        A context took the next piece (at most 16 per generation: a side's pieces).
    walk_done : In
        No piece is left to walk and the walker is idle.
    moves : Out(stream)
        The generation's moves, in order.
    finished : Out
        The last move has been taken (one cycle).

    Parameters
    ----------
    variant : the engine.rules.variants name whose promotion sets the merger's table holds
    geometry : hdl.image.variant.Geometry (the promotion index's width)
    registered_heads : bool
        For a device without LUT RAM (the iCE40): every FIFO's head a register
        (``hdl.common.shift_fifo``) and the walker's order report registered before its FIFO. Same
        moves and clocks (the report is read at the earliest two clocks after it is made, when
        the piece's first entry lands); off, the FIFOs are LUT RAM (the ECP5).
    """

    start: In(1)
    expand: In(1)
    position: In(Position)
    castling: In(Castling, init=ORTHODOX_CASTLING)
    planes: In(Planes)
    entries: In(EntryPort)
    order: In(OrderPort)
    walk_done: In(1)
    moves: Out(stream.Signature(MoveLayout))
    finished: Out(1)

    def __init__(self, variant=CHESS, geometry: Geometry = ORTHODOX,
                 registered_heads: bool = False):
        self._promotions = variant_image(variant).promotions
        self._geometry = geometry
        self._registered_heads = registered_heads
        super().__init__()

    def elaborate(self, platform):
        m = Module()

        Fifo = ShiftFIFO if self._registered_heads else SyncFIFO
        # registered_heads: each entry carries, behind it, what the merger's read decision
        # needs of it, worked out as it is written: it leaves unless it promotes ("pop"), it
        # ends its piece unless it promotes ("end"), it ends its piece and promotes ("endp")
        extra = 3 if self._registered_heads else 0
        fifos = [Fifo(width=Entry.size + extra, depth=FIFO_DEPTH) for _ in range(CONTEXTS)]
        room = Signal(CONTEXTS)
        e = self.entries.entry
        promotes = e.move & e.promote
        w_data = Cat(e.as_value(), ~promotes, e.end & ~promotes, e.end & promotes)
        for i, fifo in enumerate(fifos):
            m.submodules[f"fifo{i}"] = fifo
            if self._registered_heads:
                m.d.comb += fifo.w_data.eq(w_data)
            else:
                m.d.comb += fifo.w_data.eq(self.entries.entry)
            m.d.comb += fifo.w_en.eq(self.entries.write[i])
            # "room" is registered and the walker samples it a cycle before it writes, so the
            # choice of next address never waits for the FIFO's level logic; the margin covers
            # the write a context may make in between (its previous turn).
            m.d.sync += room[i].eq(fifo.level < FIFO_DEPTH - ROOM_MARGIN)
        m.d.comb += self.entries.room.eq(room)

        # Output register: a full one that is not taken holds everything here.
        out_valid = Signal()
        out_word = Signal(MoveLayout)
        stall = out_valid & ~self.moves.ready
        emit = Signal()
        word = Signal(MoveLayout)
        m.d.comb += [self.moves.valid.eq(out_valid), self.moves.payload.eq(out_word)]
        with m.If(~stall):
            m.d.sync += [out_valid.eq(emit), out_word.eq(word)]

        # Which context walks each piece, in piece order.
        m.submodules.order = order = Fifo(width=Shape.cast(range(CONTEXTS)).width,
                                          depth=ORDER_DEPTH)
        if self._registered_heads:
            m.d.sync += [order.w_data.eq(self.order.payload), order.w_en.eq(self.order.valid)]
        else:
            m.d.comb += [order.w_data.eq(self.order.payload), order.w_en.eq(self.order.valid)]

        # --- the head of the FIFO of the context that walks the current piece -----------------
        heads = [fifo.r_stream for fifo in fifos]
        assert CONTEXTS == 2  # ``cur`` is one bit: Mux(cur, context 1, context 0)
        cur = Signal(range(CONTEXTS))
        m.d.comb += cur.eq(order.r_data)
        promo_bits = self._geometry.promo_bits
        promo_i = Signal(promo_bits)
        head = Signal(Entry)
        avail = Signal()
        payloads = [h.payload[:Entry.size] if extra else h.payload for h in heads]
        m.d.comb += [head.eq(Mux(cur, payloads[1], payloads[0])),
                     avail.eq(order.r_rdy & Mux(cur, heads[1].valid, heads[0].valid))]
        # the side's promotion pieces in order, each with "the last of them": a table per variant
        m.submodules.promotions = promotions = Memory(
            shape=PROMO_PIECE_BITS + 1, depth=2 << promo_bits,
            init=promotion_image(self._promotions, promo_bits))
        promo_r = promotions.read_port(domain="comb")
        m.d.comb += promo_r.addr.eq(Cat(promo_i, self.position.side))
        promo_piece = promo_r.data[:PROMO_PIECE_BITS]
        promo_last = promo_r.data[PROMO_PIECE_BITS]
        # registered_heads: promo_last a clock ahead, from promo_i's next value. In the clock
        # after start it holds the previous generation's side's; nothing is read then (the
        # FIFOs are empty until the walk's first step, clock 6), and it is right from then on.
        if self._registered_heads:
            promo_i_next = Signal(promo_bits)
            promo_last_r = Signal()
            promo_r2 = promotions.read_port(domain="comb")
            m.d.comb += [promo_i_next.eq(promo_i),
                         promo_r2.addr.eq(Cat(promo_i_next, self.position.side))]
            m.d.sync += promo_last_r.eq(promo_r2.data[PROMO_PIECE_BITS])
        last_word = ~head.move | ~head.promote | promo_last | ~self.expand
        piece_word = Signal(MoveLayout)
        m.d.comb += [piece_word.eq(head.word), piece_word.flags.promotion.eq(head.promote)]
        with m.If(head.promote & self.expand):
            m.d.comb += piece_word.promo.eq(promo_piece)

        # --- castling: the squares of the side to move's two castlings ---------------------------
        side = self.position.side
        back_rank = side.replicate(3)  # rank 1 or rank 8
        rank_empty = Mux(side, self.planes.empty[56:64], self.planes.empty[0:8])
        castle_ok, castle_word = [], []
        for i in range(2):  # king side, queen side: the rights WK WQ, BK BQ
            slot = Mux(side, self.castling[2 + i].as_value(), self.castling[i].as_value())
            squares = Signal.like(self.castling[i], name=f"castle_squares{i}")
            m.d.comb += squares.eq(slot)
            right = Mux(side, self.position.castle[2 + i], self.position.castle[i])
            castle_ok.append(right & (rank_empty | ~squares.empty).all())
            w = Signal(MoveLayout, name=f"castle_word{i}")
            m.d.comb += [w.frm.eq(Cat(squares.king_from, back_rank)),
                         w.to.eq(Cat(squares.king_to, back_rank)), w.flags.castle.eq(1)]
            castle_word.append(w)

        if self._registered_heads:
            # the same reads as below, decided per context from its head's registers before
            # ``cur`` picks one: ``cur`` (the order FIFO's head) is then one input of the last
            # LUTs before the FIFOs' read enables, not the head of the path; each head's flags
            # were worked out as it was written, "the last promotion piece" is a register, and
            # so is "in Pieces" (the state machine's state is three bits)
            in_pieces = Signal()
            go = in_pieces & ~stall & order.r_rdy
            pops, ends = [], []
            done = promo_last_r | ~self.expand
            for h in heads:
                pop, end, endp = h.payload[Entry.size:]
                pops.append(h.valid & (pop | done))
                ends.append(h.valid & (end | (endp & done)))
            m.d.comb += [heads[0].ready.eq(go & ~cur & pops[0]),
                         heads[1].ready.eq(go & cur & pops[1]),
                         order.r_en.eq(go & Mux(cur, ends[1], ends[0]))]

        with m.FSM(name="merger"):
            with m.State("Idle"):
                with m.If(self.start):
                    m.d.sync += promo_i.eq(0)
                    if self._registered_heads:
                        m.d.comb += promo_i_next.eq(0)
                        m.d.sync += in_pieces.eq(1)
                    m.next = "Pieces"

            with m.State("Pieces"):
                with m.If(~stall):
                    with m.If(avail):
                        m.d.comb += [emit.eq(head.move), word.eq(piece_word)]
                        with m.If(head.move & head.promote & self.expand):
                            m.d.sync += promo_i.eq(Mux(promo_last, 0, promo_i + 1))
                            if self._registered_heads:
                                m.d.comb += promo_i_next.eq(Mux(promo_last, 0, promo_i + 1))
                        if not self._registered_heads:
                            with m.If(last_word):
                                m.d.comb += Cat(h.ready for h in heads).eq(1 << cur)
                                with m.If(head.end):
                                    m.d.comb += order.r_en.eq(1)
                    with m.Elif(self.walk_done & ~order.r_rdy
                                & ~Cat(h.valid for h in heads).any()):
                        if self._registered_heads:
                            m.d.sync += in_pieces.eq(0)
                        with m.If(castle_ok[0]):
                            m.next = "Castle-Kingside"
                        with m.Elif(castle_ok[1]):
                            m.next = "Castle-Queenside"
                        with m.Else():
                            m.next = "Drain"

            with m.State("Castle-Kingside"):
                with m.If(~stall):
                    m.d.comb += [emit.eq(1), word.eq(castle_word[0])]
                    with m.If(castle_ok[1]):
                        m.next = "Castle-Queenside"
                    with m.Else():
                        m.next = "Drain"

            with m.State("Castle-Queenside"):
                with m.If(~stall):
                    m.d.comb += [emit.eq(1), word.eq(castle_word[1])]
                    m.next = "Drain"

            with m.State("Drain"):
                with m.If(~stall):
                    m.d.comb += self.finished.eq(1)
                    m.next = "Idle"
        return m
