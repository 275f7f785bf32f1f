"""The search thread's capture finder (engine/search/capture_finder.py, docs/chip_search.md "Move
order"): stage 1's moves one at a time from the board's planes, never a list of the node's moves.

Three combinational answers, each from a cursor the thread keeps per ply:

* ``promo``: the next push onto the last rank (as a queen) from file ``promo_file`` on;
* ``victim``: the next enemy piece at or after (``victim_kind``, ``victim_sq``) in the finder's
  order (queens, rooks, bishops, knights, pawns; each kind by ascending square), or strictly
  after it with ``victim_after``;
* ``aggressor``: the next capture of the piece on ``target`` from slot ``slot`` on, least
  valuable aggressor first, ties in the slot order of ``SLOTS``.

The aggressors are read from the planes with no move applied: the board the thread asks about
is the node's own (a child is unmade before its parent asks again).
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import CAPTURE, EP, PAWN_MOVE, PROMO_SHIFT, PROMOTION, QUEEN
from posdata.engine.search.capture_finder import KNIGHT_STEPS, RAYS

from ..chip.attack import AttackPlanes
from ..common.layouts import SQUARE
from ..common.priority import lowest_set_bit

MOVE = 21
QUEEN_PROMOTION = PROMOTION | QUEEN << PROMO_SHIFT
#: the victim kinds in the finder's order (queen, rook, bishop, knight, pawn)
VICTIM_KINDS = 5
#: the aggressor slots in priority order: (kind of slot, index within it)
SLOTS = ([("pawn", i) for i in range(2)] + [("ep", i) for i in range(2)]
         + [("knight", i) for i in range(8)] + [("bishop", i) for i in range(4, 8)]
         + [("rook", i) for i in range(4)] + [("queen", i) for i in range(8)] + [("king", 0)])
SLOT_BITS = 5


def _offset(m, sq, df, dr, name):
    """The square ``sq`` + (df, dr) (|df|, |dr| <= 7) and whether it is on the board."""
    f2 = (sq[:3] + df)[:4]  # off the board shows in bit 3 (as -1 .. -7 or 8 .. 14)
    r2 = (sq[3:] + dr)[:4]
    out, on = Signal(SQUARE, name=f"{name}_sq"), Signal(name=f"{name}_on")
    m.d.comb += [out.eq(Cat(f2[:3], r2[:3])), on.eq(~f2[3] & ~r2[3])]
    return out, on


def _move(frm, to, flags):
    return Cat(frm, to, Const(flags >> 12, 9))


#: the finder's cursors and its answers, as the thread's control sees them:
#: promo_file -> promo_valid, promo_move, promo_next_file;
#: victim_kind, victim_sq, victim_after -> victim_valid, found_kind, found_sq;
#: target, slot -> aggressor_valid, aggressor_slot, aggressor_move
Cursors = wiring.Signature({
    "promo_file": Out(4),
    "promo_valid": In(1), "promo_move": In(MOVE), "promo_next_file": In(4),
    "victim_kind": Out(3), "victim_sq": Out(SQUARE), "victim_after": Out(1),
    "victim_valid": In(1), "found_kind": In(3), "found_sq": In(SQUARE),
    "target": Out(SQUARE), "slot": Out(SLOT_BITS),
    "aggressor_valid": In(1), "aggressor_slot": In(SLOT_BITS), "aggressor_move": In(MOVE),
})


class CaptureFinder(wiring.Component):
    """Ports
    -----
    planes : In(AttackPlanes)   the board (hdl/chip/chessboard.py's attack planes)
    side : In(1); ep_valid : In(1); ep_sq : In(SQUARE)   the node's side and en passant square
    cursors : In(Cursors)       the three cursors in, the three answers out
    """

    planes: In(AttackPlanes)
    side: In(1)
    ep_valid: In(1)
    ep_sq: In(SQUARE)
    cursors: In(Cursors)

    def elaborate(self, platform):
        m = Module()
        p = self.planes
        white_own = p.occupied & ~p.black
        own = Signal(64)
        enemy = Signal(64)
        m.d.comb += [own.eq(Mux(self.side, p.black, white_own)),
                     enemy.eq(Mux(self.side, white_own, p.black))]
        self._promotions(m, own)
        self._victims(m, enemy)
        self._aggressors(m, own)
        return m

    def _promotions(self, m, own):
        p = self.planes
        pawns = own & p.pawn
        empty = ~p.occupied
        ready = Signal(8)
        m.d.comb += ready.eq(Mux(self.side, pawns[8:16] & empty[0:8], pawns[48:56] & empty[56:64]))
        masked = Signal(8)
        m.d.comb += masked.eq(ready & (Const(0xFF, 8) << self.cursors.promo_file)[:8])
        file = Signal(3)
        for i in reversed(range(8)):
            with m.If(masked[i]):
                m.d.comb += file.eq(i)
        frm = Cat(file, Mux(self.side, Const(1, 3), Const(6, 3)))
        to = Cat(file, Mux(self.side, Const(0, 3), Const(7, 3)))
        m.d.comb += [self.cursors.promo_valid.eq(masked.any()),
                     self.cursors.promo_move.eq(_move(frm, to, PAWN_MOVE | QUEEN_PROMOTION)),
                     self.cursors.promo_next_file.eq(file + 1)]

    def _victims(self, m, enemy):
        p = self.planes
        kinds = [p.orth & p.diag, p.orth & ~p.diag, p.diag & ~p.orth, p.knight, p.pawn]
        from_here = Signal(64)
        # a comparison per square (not (1 << sq) - 1, nor sq + 1): no carry chain in the scan
        sq, after = self.cursors.victim_sq, self.cursors.victim_after
        # square i is at or after the cursor: sq < i, or sq == i unless strictly after; written
        # so that no comparison is constant (sq < 0, sq <= 63), which Verilator's lint refuses
        m.d.comb += from_here.eq(Cat(*((sq < i if i else 0) | (~after & (sq == i))
                                       for i in range(64))))
        found = []
        for k, plane in enumerate(kinds):
            bits = Signal(64, name=f"victims{k}")
            window = Mux(self.cursors.victim_kind < k, Const((1 << 64) - 1, 64),
                         Mux(self.cursors.victim_kind == k, from_here, 0))
            m.d.comb += bits.eq(plane & enemy & window)
            found.append(lowest_set_bit(m, bits, f"victim{k}"))
        m.d.comb += self.cursors.victim_valid.eq(0)
        for k, (any_, index) in reversed(list(enumerate(found))):
            with m.If(any_):
                m.d.comb += [self.cursors.victim_valid.eq(1), self.cursors.found_kind.eq(k),
                             self.cursors.found_sq.eq(index)]

    def _rays(self, m):
        """Per ray from the target (RAYS order): whether a piece stands on it, and its square."""
        p = self.planes
        out = []
        for d, (df, dr) in enumerate(RAYS):
            hit, sq = Signal(name=f"ray{d}_hit"), Signal(SQUARE, name=f"ray{d}_sq")
            for k in reversed(range(1, 8)):  # the nearest wins: assigned last
                s, on = _offset(m, self.cursors.target, k * df, k * dr, f"ray{d}_{k}")
                with m.If(on & p.occupied.bit_select(s, 1)):
                    m.d.comb += [hit.eq(1), sq.eq(s)]
            out.append((hit, sq))
        return out

    def _aggressors(self, m, own):
        p, v, side = self.planes, self.cursors.target, self.side
        kind_planes = {"bishop": p.diag & ~p.orth, "rook": p.orth & ~p.diag,
                       "queen": p.orth & p.diag, "knight": p.knight, "pawn": p.pawn}
        mine = {name: Signal(64, name=f"own_{name}") for name in kind_planes}
        for name, plane in kind_planes.items():
            m.d.comb += mine[name].eq(plane & own)
        ep_victim = Mux(side, self.ep_sq + 8, self.ep_sq - 8)[:6]
        is_ep_victim = self.ep_valid & (v == ep_victim)
        last_rank = v[3:] == Mux(side, 0, 7)
        pawn_flags = CAPTURE | PAWN_MOVE
        rays = self._rays(m)
        slots = []  # (bit, from-square, move word) in SLOTS order
        for name, i in SLOTS:
            if name in ("pawn", "ep"):
                df = (-1, 1)[i]
                behind = Mux(side, 1, -1) if name == "pawn" else 0
                f2 = (v[:3] + df)[:4]
                r2 = (v[3:] + behind)[:4]
                s, on = Signal(SQUARE, name=f"{name}{i}_sq"), Signal(name=f"{name}{i}_on")
                m.d.comb += [s.eq(Cat(f2[:3], r2[:3])), on.eq(~f2[3] & ~r2[3])]
                bit = on & mine["pawn"].bit_select(s, 1)
                if name == "pawn":
                    word = Mux(last_rank, _move(s, v, pawn_flags | QUEEN_PROMOTION),
                               _move(s, v, pawn_flags))
                else:
                    bit = bit & is_ep_victim
                    word = _move(s, self.ep_sq, pawn_flags | EP)
            elif name == "knight":
                s, on = _offset(m, v, *KNIGHT_STEPS[i], f"knight{i}")
                bit, word = on & mine["knight"].bit_select(s, 1), _move(s, v, CAPTURE)
            elif name == "king":
                s = p.king[side]
                df, dr = (s[:3] - v[:3])[:4], (s[3:] - v[3:])[:4]
                near = lambda d: (d == 0) | (d == 1) | (d == 15)  # noqa: E731
                bit, word = near(df) & near(dr) & (s != v), _move(s, v, CAPTURE)
            else:
                hit, s = rays[i]
                bit, word = hit & mine[name].bit_select(s, 1), _move(s, v, CAPTURE)
            slots.append((bit, word))
        bits = Signal(len(SLOTS))
        m.d.comb += bits.eq(Cat(*(b for b, _ in slots)))
        m.d.comb += self.cursors.aggressor_valid.eq(0)
        for i in reversed(range(len(SLOTS))):
            with m.If(bits[i] & (self.cursors.slot <= i)):
                m.d.comb += [self.cursors.aggressor_valid.eq(1), self.cursors.aggressor_slot.eq(i),
                             self.cursors.aggressor_move.eq(slots[i][1])]
