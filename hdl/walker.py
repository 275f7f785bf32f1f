"""The walker: Sandström's walk, one posdata entry per clock, then castling.

In the cycle ROM port A delivers the entry of square ``u``, ``colour[u]`` (``u`` is a register,
so this lookup is off the critical path) decides the move to emit and which of nextpos/nextdir
to follow. The ROM data goes through little logic before it is the next address:
(next == from?) and a mux between it and the next piece's first square.

Per piece:

* knight .. king: empty -> quiet move, follow nextpos; enemy -> capture, follow nextdir;
  own -> follow nextdir; back at the from-square -> next piece.
* pawn, push thread (nextpos): empty -> push (at the second square: double step), follow
  nextpos unless it returns to the from-square; occupied or done -> the capture thread.
* pawn, capture thread (nextdir, starting at ``d1`` from the prefetched start entry): enemy ->
  capture, empty en passant square -> en passant capture; always follow nextdir.
* A pawn move onto the last rank is four moves (``PROMOTION_ORDER``): the walker holds the
  square for three more clocks.

After the last piece, castling: king side, then queen side, when the right is held and the
squares between king and rook are empty (one clock per castling move).
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from engine.defs import CASTLES, PROMOTION_ORDER, Color

from .board import color_of
from .layouts import SQUARE, MoveLayout
from .prefetch import PieceRecord


class Walker(wiring.Component):
    """Ports
    -----
    go : In
        Begin (one cycle); the position inputs below are stable for the whole generation.
    side, castle, ep_valid, ep_sq, empty, black : In
        The position.
    stall : In
        Freeze (the output register is full).
    head, head_ready, pieces_left : In; pop : Out
        The prefetcher's queue.
    rom_addr, rom_en : Out; rom_data : In
        ROM port A.
    emit : Out, word : Out(MoveLayout)
        A move this cycle.
    finished : Out
        All moves have been emitted (one cycle, then idle).
    walking, walk_from : Out
        Observation only: the walker is on a piece, and that piece's square.
    """

    go: In(1)
    side: In(1)
    castle: In(4)
    ep_valid: In(1)
    ep_sq: In(SQUARE)
    empty: In(64)
    black: In(64)
    stall: In(1)
    head: In(PieceRecord)
    head_ready: In(1)
    pieces_left: In(1)
    pop: Out(1)
    rom_addr: Out(15)
    rom_en: Out(1)
    rom_data: In(12)
    emit: Out(1)
    word: Out(MoveLayout)
    finished: Out(1)
    walking: Out(1)
    walk_from: Out(SQUARE)

    def elaborate(self, platform):
        m = Module()
        side = self.side

        # --- the piece being walked ---------------------------------------------------------
        cur_table = Signal(3)
        cur_from = Signal(SQUARE)
        cur_d1 = Signal(SQUARE)
        pawn = Signal()     # walking a pawn
        capt = Signal()     # a pawn in its capture thread
        push2 = Signal()    # a pawn at its double-step square
        u = Signal(SQUARE)  # the square whose entry ROM A delivers this cycle
        promo_i = Signal(2)

        nextpos = self.rom_data[:6]
        nextdir = self.rom_data[6:]
        here = Signal(Color)
        m.d.comb += here.eq(color_of(self.empty, self.black, u))
        empty = here == Color.EMPTY
        enemy = here == Mux(side, Color.WHITE, Color.BLACK)
        own = here == Mux(side, Color.BLACK, Color.WHITE)
        marker = u == cur_from  # a thread that is empty from the start (no legal position)
        on_last_rank = u[3:] == Mux(side, Const(0, 3), Const(7, 3))
        on_ep = self.ep_valid & (u == self.ep_sq)

        # --- the move of this square ---------------------------------------------------------
        walk_emit = Signal()
        walk_word = Signal(MoveLayout)
        m.d.comb += [walk_word.frm.eq(cur_from), walk_word.to.eq(u)]
        with m.If(~pawn):
            m.d.comb += [walk_emit.eq(~marker & ~own), walk_word.flags.capture.eq(enemy)]
        with m.Elif(~capt):
            m.d.comb += [walk_emit.eq(~marker & empty),
                         walk_word.flags.pawn_move.eq(1),
                         walk_word.flags.double.eq(push2),
                         walk_word.flags.promotion.eq(on_last_rank)]
        with m.Else():
            m.d.comb += [walk_emit.eq(~marker & (enemy | (empty & on_ep))),
                         walk_word.flags.pawn_move.eq(1),
                         walk_word.flags.capture.eq(1),
                         walk_word.flags.ep.eq(~enemy),
                         walk_word.flags.promotion.eq(on_last_rank)]
        with m.If(walk_word.flags.promotion):
            with m.Switch(promo_i):
                for i, p in enumerate(PROMOTION_ORDER):
                    with m.Case(i):
                        m.d.comb += walk_word.promo.eq(p)
        promoting = walk_emit & walk_word.flags.promotion
        hold = promoting & (promo_i != 3)  # stay on this square for the next promotion word

        # --- where the walk goes next, from this cycle's ROM data ----------------------------
        # The ROM word is late in the cycle; everything it meets on its way to the next
        # address is kept to: two compares with the from-square, then muxes whose selects
        # come from registers (empty: colour of the registered u).
        np_end = nextpos == cur_from
        nd_end = nextdir == cur_from
        d1_end = Signal()  # the pawn's capture thread is empty (registered at piece start)
        piece_end = Signal()
        to_capture = Signal()  # a pawn's push thread is over: continue at its capture thread
        next_u = Signal(SQUARE)
        with m.If(marker):
            m.d.comb += [to_capture.eq(pawn & ~capt), next_u.eq(cur_d1),
                         piece_end.eq(~pawn | capt | d1_end)]
        with m.Elif(~pawn):
            m.d.comb += [next_u.eq(Mux(empty, nextpos, nextdir)),
                         piece_end.eq(Mux(empty, np_end, nd_end))]
        with m.Elif(~capt):
            with m.If(empty & ~np_end):
                m.d.comb += next_u.eq(nextpos)
            with m.Else():
                m.d.comb += [to_capture.eq(1), next_u.eq(cur_d1), piece_end.eq(d1_end)]
        with m.Else():
            m.d.comb += [next_u.eq(nextdir), piece_end.eq(nd_end)]

        head = self.head
        take_head = Signal()  # present the next piece's first square instead of the walk's
        m.d.comb += self.rom_addr.eq(Mux(take_head, Cat(head.first, head.frm, head.table),
                                         Cat(next_u, cur_from, cur_table)))

        def start_piece():
            """Load the queue's head into the walker (its first square goes to ROM A)."""
            m.d.comb += [self.pop.eq(1), self.rom_en.eq(1)]
            m.d.sync += [cur_table.eq(head.table), cur_from.eq(head.frm), cur_d1.eq(head.d1),
                         d1_end.eq(head.d1 == head.frm), pawn.eq(head.pawn), capt.eq(0),
                         push2.eq(0), u.eq(head.first)]

        # --- castling --------------------------------------------------------------------
        castle_ok = []
        castle_word = []
        for i in range(2):  # king side, queen side
            ok = []
            w = Signal(MoveLayout, name=f"castle_word{i}")
            for s in (0, 1):
                c = CASTLES[s][i]
                clear = Cat(*(self.empty[sq] for sq in c.empty)).all()
                ok.append((self.castle & c.right).any() & clear)
                with m.If(side == s):
                    m.d.comb += [w.frm.eq(c.king_from), w.to.eq(c.king_to)]
            m.d.comb += w.flags.castle.eq(1)
            castle_ok.append(Mux(side, ok[1], ok[0]))
            castle_word.append(w)

        def after_pieces():
            with m.If(castle_ok[0]):
                m.next = "Castle-Kingside"
            with m.Elif(castle_ok[1]):
                m.next = "Castle-Queenside"
            with m.Else():
                m.d.comb += self.finished.eq(1)
                m.next = "Idle"

        # --- the state machine -----------------------------------------------------------
        m.d.comb += self.walk_from.eq(cur_from)
        with m.FSM(name="walker") as fsm:
            with m.State("Idle"):
                with m.If(self.go):
                    m.next = "Wait-Piece"

            with m.State("Wait-Piece"):  # only at the start of a generation
                m.d.comb += take_head.eq(1)
                with m.If(~self.stall):
                    with m.If(self.head_ready):
                        start_piece()
                        m.next = "Walk"
                    with m.Elif(~self.pieces_left):
                        after_pieces()

            with m.State("Walk"):
                m.d.comb += [self.emit.eq(walk_emit), self.word.eq(walk_word),
                             take_head.eq(piece_end)]
                with m.If(~self.stall):
                    with m.If(promoting):
                        m.d.sync += promo_i.eq(promo_i + 1)
                    with m.If(~hold):
                        with m.If(piece_end):
                            with m.If(self.head_ready):
                                start_piece()
                            with m.Elif(~self.pieces_left):
                                after_pieces()
                            with m.Else():
                                m.next = "Wait-Piece"
                        with m.Else():
                            m.d.comb += self.rom_en.eq(1)
                            m.d.sync += [u.eq(next_u),
                                         push2.eq(pawn & ~capt & ~to_capture),
                                         capt.eq(capt | to_capture)]

            with m.State("Castle-Kingside"):
                m.d.comb += [self.emit.eq(1), self.word.eq(castle_word[0])]
                with m.If(~self.stall):
                    with m.If(castle_ok[1]):
                        m.next = "Castle-Queenside"
                    with m.Else():
                        m.d.comb += self.finished.eq(1)
                        m.next = "Idle"

            with m.State("Castle-Queenside"):
                m.d.comb += [self.emit.eq(1), self.word.eq(castle_word[1])]
                with m.If(~self.stall):
                    m.d.comb += self.finished.eq(1)
                    m.next = "Idle"
        m.d.comb += self.walking.eq(fsm.ongoing("Walk"))
        return m
