"""The attack map (docs/chip_search.md, "The pipelined thread": stages M1 and M2): the squares the
side to move attacks, 64 bits, so that the victim scan skips the enemy pieces nothing of its own
attacks (a victim with no aggressor costs no clock).

The sliders' attacks are occluded fills (Kogge-Stone: a fill doubles its reach each step
through the empty squares), one per direction, rook directions from the own rooks and queens,
bishop directions from the own bishops and queens:

* M1: the own pieces and the empty squares, the first two fill steps of each direction
  (registered with the propagators they leave); the knights', pawns' and king's attacks whole;
* M2: the third fill step, the last shift onto the attacked squares, all OR-ed: ``attacked``,
  registered.

The map follows the planes ``LATENCY`` clocks late. A square counts as attacked whatever a
move there would do to the mover's king (pins are the legality test's business), as the capture
finder's aggressors do.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.search.capture_finder import KNIGHT_STEPS, RAYS

from ..chip.attack import AttackPlanes

LATENCY = 2  #: clocks from the planes to ``attacked``

FULL = (1 << 64) - 1
NOT_A = FULL & ~sum(1 << (8 * r) for r in range(8))      # no square on file a
NOT_H = FULL & ~sum(1 << (8 * r + 7) for r in range(8))  # no square on file h


def _shift(x, df: int, dr: int):
    """``x`` moved by (df, dr) squares, |df| <= 1 per call: what leaves the board is dropped,
    and nothing wraps from one edge file onto the other."""
    s = df + 8 * dr
    moved = (x << s)[:64] if s >= 0 else x >> -s
    return moved & Const({1: NOT_A, -1: NOT_H, 0: FULL}[df], 64)


def _leap(x, df: int, dr: int):
    """``x`` moved by a leap (|df| <= 2), through steps that each stop at the edge."""
    for _ in range(abs(df)):
        x = _shift(x, 1 if df > 0 else -1, 0)
    return _shift(x, 0, dr) if dr else x


def _king_moves(sq: int) -> int:
    f, r = sq % 8, sq // 8
    return sum(1 << (r2 * 8 + f2) for f2 in range(f - 1, f + 2) for r2 in range(r - 1, r + 2)
               if 0 <= f2 < 8 and 0 <= r2 < 8 and (f2, r2) != (f, r))


class AttackMap(wiring.Component):
    """Ports
    -----
    planes : In(AttackPlanes)   the board (hdl/chip/chessboard.py's attack planes)
    side : In(1)                the side to move, whose attacks are mapped
    attacked : Out(64)          the squares it attacks, ``LATENCY`` clocks after the planes
    """

    planes: In(AttackPlanes)
    side: In(1)
    attacked: Out(64)

    def elaborate(self, platform):
        m = Module()
        p, side = self.planes, self.side
        own = Signal(64)
        m.d.comb += own.eq(Mux(side, p.black, p.occupied & ~p.black))
        empty = ~p.occupied

        # --- M1: two fill steps per direction; the leapers' attacks -------------------------
        fills = []
        for d, (df, dr) in enumerate(RAYS):
            gen = (p.orth if d < 4 else p.diag) & own
            pro = empty & Const({1: NOT_A, -1: NOT_H, 0: FULL}[df], 64)
            for step in range(2):
                gen = gen | (pro & self._far(gen, df, dr, 1 << step))
                pro = pro & self._far(pro, df, dr, 1 << step)
            gen_r, pro_r = Signal(64, name=f"fill{d}_gen"), Signal(64, name=f"fill{d}_pro")
            m.d.sync += [gen_r.eq(gen), pro_r.eq(pro)]
            fills.append((df, dr, gen_r, pro_r))
        knights, pawns = p.knight & own, p.pawn & own
        near = [_leap(knights, df, dr) for df, dr in KNIGHT_STEPS]
        near += [Mux(side, _shift(pawns, df, -1), _shift(pawns, df, 1)) for df in (-1, 1)]
        # square i is next to the king iff the king is next to square i
        king = p.king[side]
        near.append(Cat(*(Const(_king_moves(i), 64).bit_select(king, 1) for i in range(64))))
        near_r = Signal(64)
        m.d.sync += near_r.eq(_or(near))

        # --- M2: the third step, the last shift, everything OR-ed ---------------------------
        rays = [_shift(gen | (pro & self._far(gen, df, dr, 4)), df, dr)
                for df, dr, gen, pro in fills]
        m.d.sync += self.attacked.eq(_or(rays + [near_r]))
        return m

    @staticmethod
    def _far(x, df: int, dr: int, n: int):
        """``x`` moved n squares in direction (df, dr) with no edge masks: the fill's
        propagators already hold no square a wrap could reach."""
        s = n * (df + 8 * dr)
        return (x << s)[:64] if s >= 0 else x >> -s


def _or(values):
    out = values[0]
    for v in values[1:]:
        out = out | v
    return out
