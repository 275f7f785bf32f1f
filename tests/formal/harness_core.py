"""The generator core (hdl.gen.core: prefetcher, walker, merger) at its stream boundary, with the
ROM and the board free.

Free: start and its position, ``expand``, the consumer's ``ready``, every ROM word and start
entry, the board's colour planes and pieces. Assumed (the core's documented protocol): the board
does not change while a generation runs; a castling right implies the king and that rook stand
on their squares in the side's colour, and a side has at most 16 pieces (FEN input guarantees
both: the host refuses anything else; the merger's order FIFO holds 16 pieces). Reset only in
the first cycle.

Properties (``Assert``):

* the move stream keeps Amaranth's stream contract: once valid, the move stays, unchanged,
  until taken;
* nothing is emitted while idle; ``done`` comes once per accepted start and never without one;
  ``busy`` spans exactly the generation;
* a start while busy is ignored: the clock count runs on, the generation's side is the one
  latched at the accepted start;
* every emitted move starts on a square of the side to move and ends on one that is not;
* every FIFO of the merger stays within its depth: a context never writes a full FIFO (that
  entry would be lost) and the merger never reads an empty one (that would repeat one).

Covers: each kind of move (quiet, capture, double push, en passant, castling both ways for
both colours, each promotion piece) and a walk context stalled on a full FIFO.
"""

from amaranth import Cat, Elaboratable, Module, Mux, Signal
from amaranth.asserts import AnyConst, AnySeq, Initial
from amaranth.hdl import Assert, Assume, Cover, ResetSignal
from amaranth.lib.fifo import SyncFIFO

from posdata.engine.rules.defs import BISHOP, CASTLES, KNIGHT, QUEEN, ROOK, Color
from posdata.hdl.gen.chessboard import color_of
from posdata.hdl.gen.core import GeneratorCore
from posdata.hdl.gen.params import FIFO_DEPTH
from posdata.hdl.gen.walker import Context, Entry

from .abstract import Inside, find_signals, free_read_port, free_start_port, past


def core_pieces_valid(inside):
    """The prefetcher's queue holds a piece (the walker's ``pieces.valid``)."""
    (count,) = find_signals(inside.fragment, "prefetch", "count")
    return count != 0


def castling_consistent(m, planes, castle):
    """Assume each castling right held has its king and rook on their squares, in its colour."""
    for colour, side in ((Color.WHITE, 0), (Color.BLACK, 1)):
        for c in CASTLES[side]:
            for sq in (c.king_from, c.rook_from):
                with m.If((castle & c.right).any()):
                    m.d.comb += Assume(color_of(planes, sq) == colour)


class CoreHarness(Elaboratable):
    #: the groups of properties (one sby task each: small problems close faster)
    GROUPS = ("stream", "done", "start", "side", "fifo", "order", "cover", "stall")

    def __init__(self, group: str, layout: str = "dense"):
        assert group in self.GROUPS, group
        self.group = group
        self.layout = layout

    def elaborate(self, platform):
        m = Module()
        core = GeneratorCore(self.layout)
        inside = Inside(core, platform, watch=(SyncFIFO,))
        m.submodules.core = inside.fragment
        m.d.comb += Assume(ResetSignal() == Initial())

        # --- free inputs: the board is any board, the same all along (it may not change while
        # a generation runs, and a constant one keeps the solver's problem small) -------------
        m.d.comb += [core.start.eq(AnySeq(1)),
                     core.position.as_value().eq(AnySeq(core.position.shape().size)),
                     core.expand.eq(AnySeq(1)), core.moves.ready.eq(AnySeq(1)),
                     core.planes.empty.eq(AnyConst(64)), core.planes.black.eq(AnyConst(64)),
                     core.lookup.piece.eq(AnySeq(3))]
        # a square is white, black or empty (hdl.gen.chessboard never sets both planes' bits)
        m.d.comb += Assume((core.planes.empty & core.planes.black) == 0)
        # ... and a side has at most 16 pieces (the merger's order FIFO holds one entry per
        # piece: 16; FEN input refuses more material than a game can reach)
        board = core.planes
        for colour in (~board.empty & board.black, ~board.empty & ~board.black):
            m.d.comb += Assume(sum(colour[i] for i in range(64)) <= 16)
        free_read_port(m, core.walk)
        free_start_port(m, core.starts)

        begin = core.start & ~core.busy   # an accepted start
        pos = Signal.like(core.position)  # the generation's position, latched here
        with m.If(begin):
            m.d.sync += pos.eq(core.position)
            castling_consistent(m, core.planes, core.position.castle)
        getattr(self, f"check_{self.group.replace(' ', '_')}")(m, core, begin, pos, inside)
        return m

    @staticmethod
    def check_stream(m, core, begin, pos, inside):
        """Amaranth's stream contract on ``moves``."""
        moves = core.moves
        held = past(m, moves.valid & ~moves.ready, "held")
        payload_before = past(m, moves.payload.as_value(), "payload_before")
        with m.If(held):
            m.d.comb += [Assert(moves.valid, "valid stays up until ready"),
                         Assert(moves.payload.as_value() == payload_before,
                                "the payload is stable until ready")]

    @staticmethod
    def invariants(m, core, inside, at=""):
        """The units' state, as the induction proofs need it stated: idle means idle
        everywhere, and the walk contexts take turns. ``at``: the core's path in the design."""
        frag = inside.fragment
        (state,) = find_signals(frag, at + "merger", "merger_state")
        ring_l, ring_r = (Context(s) for s in find_signals(frag, at + "walker", "ring_l",
                                                            "ring_r"))
        count, inflight, left = find_signals(frag, at + "prefetch", "count", "inflight", "left")
        fifos_empty = Cat(fifo.level == 0 for fifo, _ in inside.made[SyncFIFO]).all()
        m.d.comb += [
            Assert(core.busy == (state != 0), "invariant: busy while the merger is not idle"),
            Assert(ring_l.id != ring_r.id, "invariant: the walk contexts take turns"),
        ]
        # past the pieces (castling, drain) and idle: nothing walks, nothing is queued
        with m.If((state == 0) | (state >= 2)):
            m.d.comb += Assert(~ring_l.active & ~ring_r.active & (count == 0) & ~inflight
                               & ~left & fifos_empty,
                               "invariant: after the pieces, no walk and no piece queued")
        return ring_l, ring_r

    @classmethod
    def check_done(cls, m, core, begin, pos, inside):
        """Nothing while idle; one ``done`` per accepted start; the walker is started only
        when it is idle and no piece waits (harness_walker assumes it)."""
        ring_l, ring_r = cls.invariants(m, core, inside)
        with m.If(begin):
            m.d.comb += Assert(~ring_l.active & ~ring_r.active & ~core_pieces_valid(inside),
                               "a generation starts with the walker idle and no piece queued")
        pending = Signal()  # a generation was accepted and its done has not come
        m.d.sync += pending.eq((pending & ~core.done) | begin)
        m.d.comb += [
            Assert(~core.moves.valid | core.busy, "nothing is emitted while idle"),
            Assert(~core.done | (pending & ~core.busy), "done only ends an accepted generation"),
            Assert(core.busy == (pending & ~core.done), "busy spans exactly the generation"),
        ]

    @staticmethod
    def check_start(m, core, begin, pos, inside):
        """A start while busy is ignored: the clock count runs on."""
        cycles_before = past(m, core.cycles, "cycles_before")
        with m.If(past(m, core.busy, "busy_before")):
            m.d.comb += Assert(core.cycles == (cycles_before + 1)[:32],
                               "the clock count runs on through a generation")

    @staticmethod
    def check_side(m, core, begin, pos, inside):
        """Every move starts on the side to move's colour and does not end on it (the side
        latched at the accepted start: a start while busy must not change it)."""
        word = core.moves.payload
        own = Mux(pos.side, Color.BLACK, Color.WHITE)
        with m.If(core.moves.valid):
            m.d.comb += [Assert(color_of(core.planes, word.frm) == own,
                                "a move starts on a square of the side to move"),
                         Assert(color_of(core.planes, word.to) != own,
                                "a move does not end on its own colour")]

    @classmethod
    def check_fifo(cls, m, core, begin, pos, inside):
        """The walk contexts' FIFOs in the merger: never written full (the entry would be
        lost), never read empty (one would be repeated), within their depth."""
        cls.invariants(m, core, inside)
        for fifo, _ in inside.made[SyncFIFO]:
            if fifo.width == Entry.size:
                cls.fifo_bounds(m, fifo)

    @classmethod
    def check_order(cls, m, core, begin, pos, inside):
        """The merger's order FIFO (one entry per piece) likewise: it holds 16, and a side has
        at most 16 pieces."""
        cls.invariants(m, core, inside)
        # the pieces taken but not finished, and those not taken yet (in the scanner's mask,
        # being read from the ROM, queued), are the side's 16 at most
        pending, valid, square = find_signals(inside.fragment, "prefetch.scanner", "pending",
                                              "valid", "square")
        count, inflight = find_signals(inside.fragment, "prefetch", "count", "inflight")
        order = next(f for f, _ in inside.made[SyncFIFO] if f.width != Entry.size)
        with m.If(valid):
            m.d.comb += Assert(pending.bit_select(square, 1),
                               "invariant: the scanner's candidate is still pending")
        with m.If(core.busy):
            m.d.comb += Assert(order.level + sum(pending[i] for i in range(64)) + count
                               + inflight <= 16, "invariant: at most 16 pieces in flight")
        cls.fifo_bounds(m, order)

    @staticmethod
    def fifo_bounds(m, fifo):
        m.d.comb += [Assert(~fifo.w_en | fifo.w_rdy, "no write into a full FIFO"),
                     Assert(~fifo.r_en | fifo.r_rdy, "no read from an empty FIFO"),
                     Assert(fifo.level <= fifo.depth, "a FIFO stays within its depth")]

    @classmethod
    def check_cover(cls, m, core, begin, pos, inside):
        """Each kind of move is reachable."""
        cls.cover_moves(m, core, pos)

    @staticmethod
    def check_stall(m, core, begin, pos, inside):
        """A walk context stalls on a full FIFO (the consumer holds ``ready`` low: the shortest
        way there)."""
        m.d.comb += Assume(~core.moves.ready)
        stalled = core.walking & ~core.stepping
        m.d.comb += Cover(stalled, "a walk context stalls")
        full = Signal()
        for fifo, _ in inside.made[SyncFIFO]:
            if fifo.width == Entry.size:
                full = full | (fifo.level >= FIFO_DEPTH - 2)
        m.d.comb += Cover(stalled & full, "a walk context stalls on a full FIFO")

    @staticmethod
    def cover_moves(m, core, pos):
        """One Cover per kind of move, each on a line of its own: sby names a cover by its
        source line, and the runner prints that line."""
        moves = core.moves
        w, f = moves.payload, moves.payload.flags
        take = moves.valid & moves.ready
        plain = ~f.capture & ~f.castle & ~f.ep & ~f.double & ~f.promotion

        def cover(cond, name):
            m.d.comb += Cover(take & cond, name, src_loc_at=1)

        def castles(side, wing):
            c = CASTLES[side][wing]
            return f.castle & (pos.side == side) & (w.to == c.king_to)

        cover(plain & ~f.pawn_move, "quiet")
        cover(f.capture & ~f.pawn_move, "capture")
        cover(plain & f.pawn_move, "pawn push")
        cover(f.double, "double push")
        cover(f.capture & f.pawn_move & ~f.ep, "pawn capture")
        cover(f.ep, "en passant")
        cover(castles(0, 0), "castling white kingside")
        cover(castles(0, 1), "castling white queenside")
        cover(castles(1, 0), "castling black kingside")
        cover(castles(1, 1), "castling black queenside")
        cover(f.promotion & (w.promo == QUEEN), "promotion to a queen")
        cover(f.promotion & (w.promo == ROOK), "promotion to a rook")
        cover(f.promotion & (w.promo == BISHOP), "promotion to a bishop")
        cover(f.promotion & (w.promo == KNIGHT), "promotion to a knight")
