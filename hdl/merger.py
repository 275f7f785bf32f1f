"""The output merger: puts the walk contexts' moves back into generation order, expands
promotions, adds castling, and drives the ``moves`` stream.

Pieces go to whichever walk context is free, in generation order; the walker reports each
assignment, and an order FIFO of context numbers tells the merger which context's FIFO holds
the next piece, so reading them piece by piece yields the moves in engine.movegen order.
A promoting entry leaves as four moves (``PROMOTION_ORDER``), or, with ``expand`` low, as one
word flagged PROMOTION with no piece (a perft thread counts it four times, or stores it once and
makes the four promotions in turn). After the last piece come the
castling moves (king side, then queen side) whose right is held and whose squares between king
and rook are empty; whether the king passes through check is makemove's business.

The stream's ready only reaches this module: when the consumer stalls, the FIFOs fill and the
walk contexts replay their entries until there is room again.
"""

from amaranth import Cat, Module, Mux, Shape, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import CASTLES, PROMOTION_ORDER

from .board import Planes
from .layouts import MoveLayout, Position
from .params import CONTEXTS, FIFO_DEPTH, ORDER_DEPTH, ROOM_MARGIN
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
    """

    start: In(1)
    expand: In(1)
    position: In(Position)
    planes: In(Planes)
    entries: In(EntryPort)
    order: In(OrderPort)
    walk_done: In(1)
    moves: Out(stream.Signature(MoveLayout))
    finished: Out(1)

    def elaborate(self, platform):
        m = Module()

        fifos = [SyncFIFO(width=Entry.size, depth=FIFO_DEPTH) for _ in range(CONTEXTS)]
        room = Signal(CONTEXTS)
        for i, fifo in enumerate(fifos):
            m.submodules[f"fifo{i}"] = fifo
            m.d.comb += [fifo.w_data.eq(self.entries.entry), fifo.w_en.eq(self.entries.write[i])]
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
        m.submodules.order = order = SyncFIFO(width=Shape.cast(range(CONTEXTS)).width,
                                              depth=ORDER_DEPTH)
        m.d.comb += [order.w_data.eq(self.order.payload), order.w_en.eq(self.order.valid)]

        # --- the head of the FIFO of the context that walks the current piece -----------------
        heads = [fifo.r_stream for fifo in fifos]
        cur = Signal(range(CONTEXTS))
        m.d.comb += cur.eq(order.r_data)
        promo_i = Signal(2)
        head = Signal(Entry)
        avail = Signal()
        m.d.comb += [head.eq(Mux(cur, heads[1].payload, heads[0].payload)),
                     avail.eq(order.r_rdy & Mux(cur, heads[1].valid, heads[0].valid))]
        promo_piece = Signal(3)
        with m.Switch(promo_i):
            for i, p in enumerate(PROMOTION_ORDER):
                with m.Case(i):
                    m.d.comb += promo_piece.eq(p)
        last_word = ~head.move | ~head.promote | (promo_i == 3) | ~self.expand
        piece_word = Signal(MoveLayout)
        m.d.comb += [piece_word.eq(head.word), piece_word.flags.promotion.eq(head.promote)]
        with m.If(head.promote & self.expand):
            m.d.comb += piece_word.promo.eq(promo_piece)

        # --- castling ----------------------------------------------------------------------
        castle_ok, castle_word = [], []
        for i in range(2):  # king side, queen side
            ok = []
            w = Signal(MoveLayout, name=f"castle_word{i}")
            for s in (0, 1):
                c = CASTLES[s][i]
                clear = Cat(*(self.planes.empty[sq] for sq in c.empty)).all()
                ok.append((self.position.castle & c.right).any() & clear)
                with m.If(self.position.side == s):
                    m.d.comb += [w.frm.eq(c.king_from), w.to.eq(c.king_to)]
            m.d.comb += w.flags.castle.eq(1)
            castle_ok.append(Mux(self.position.side, ok[1], ok[0]))
            castle_word.append(w)

        with m.FSM(name="merger"):
            with m.State("Idle"):
                with m.If(self.start):
                    m.d.sync += promo_i.eq(0)
                    m.next = "Pieces"

            with m.State("Pieces"):
                with m.If(~stall):
                    with m.If(avail):
                        m.d.comb += [emit.eq(head.move), word.eq(piece_word)]
                        with m.If(head.move & head.promote & self.expand):
                            m.d.sync += promo_i.eq(promo_i + 1)
                        with m.If(last_word):
                            m.d.comb += Cat(h.ready for h in heads).eq(1 << cur)
                            with m.If(head.end):
                                m.d.comb += order.r_en.eq(1)
                    with m.Elif(self.walk_done & ~order.r_rdy
                                & ~Cat(h.valid for h in heads).any()):
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
