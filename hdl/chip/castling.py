"""Castling on the chip: where the rook goes, which rights a move clears, and the squares the
king crosses.

Orthodox chess's squares are constants. Chess960's come with the position: per right, the king's
from- and to-file and the squares that must be empty (``castling``, as the generator core reads
them) and the rook's from-file (``rooks``), loaded with the root and held through a count
(``hdl.common.contract.castling_word``, ``castle_rooks_word``). A Chess960 king may cross no
square or up to four, may stay put, and may land on its own rook: the legality collector asks
about each crossed square in turn (``step_toward``) and make/unmake leave out a write that would
undo the other piece's.
"""

from amaranth import Cat, Const, Module, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import CASTLES
from posdata.engine.rules.variants import get_variant

from ..common.contract import ORTHODOX_CASTLING, ORTHODOX_ROOKS, ROOK_FILE_BITS
from ..common.layouts import SQUARE, Castling


def castling_ports(variant) -> dict:
    """Chess960's per-position castling inputs; none for other variants (their squares are
    constants)."""
    if not get_variant(variant).chess960:
        return {}
    return {"castling": In(Castling, init=ORTHODOX_CASTLING),
            "rooks": In(data.ArrayLayout(ROOK_FILE_BITS, 4), init=ORTHODOX_ROOKS)}


def two_apart(a, b):
    """Two files (or ranks) apart, from 3-bit coordinates."""
    d = (a - b)[:4]
    return (d == 2) | (d == 14)


def step_toward(sq, frm, to):
    """The square after ``sq`` on the back rank, going from ``frm`` toward ``to``."""
    step = Mux(to > frm, Const(1, SQUARE), Const(63, SQUARE))
    return (sq + step)[:6]


class CastleRules(wiring.Component):
    """Combinational.

    Ports
    -----
    side, king_to : In
        A castling of ``side`` whose king lands on ``king_to`` ...
    rook_from, rook_to : Out
        ... moves its rook from ``rook_from`` to ``rook_to``.
    rights, frm, to : In
        Castling rights before a move from ``frm`` to ``to`` ...
    rights_after : Out(4)
        ... and after it (TSCP's castle_mask: a king or rook that moves, or a rook taken on its
        corner, loses its rights).
    castling, rooks : In (Chess960 only)
        The position's castling squares and rook files.

    Parameters
    ----------
    variant : engine.rules.variants name
        Chess960 takes its squares from the position, every other variant has orthodox ones.
    """

    def __init__(self, variant):
        self._chess960 = get_variant(variant).chess960
        super().__init__({
            "side": In(1), "king_to": In(SQUARE), "rook_from": Out(SQUARE), "rook_to": Out(SQUARE),
            "rights": In(4), "frm": In(SQUARE), "to": In(SQUARE), "rights_after": Out(4),
            **castling_ports(variant),
        })

    def elaborate(self, platform):
        m = Module()
        if self._chess960:
            rook_from, rook_to = self._rook_960()
            rights = self._rights_960()
        else:
            rook_from, rook_to = self._rook_orthodox()
            rights = self._rights_orthodox()
        m.d.comb += [self.rook_from.eq(rook_from), self.rook_to.eq(rook_to),
                     self.rights_after.eq(rights)]
        return m

    def _rook_orthodox(self):
        """By the king's target alone: the four castlings' targets differ."""
        rook_from, rook_to = Const(0, SQUARE), Const(0, SQUARE)
        for side in CASTLES:
            for c in side:
                rook_from = Mux(self.king_to == c.king_to, c.rook_from, rook_from)
                rook_to = Mux(self.king_to == c.king_to, c.rook_to, rook_to)
        return rook_from, rook_to

    def _rook_960(self):
        """The rook's file from the position; its target the f- or d-file."""
        queen_side = self.king_to[:3] == 2
        slot = Cat(queen_side, self.side)
        rank = self.king_to[3:]
        return (Cat(self.rooks[slot], rank),
                Cat(Mux(queen_side, Const(3, 3), Const(5, 3)), rank))

    def _rights_orthodox(self):
        keep = self.rights
        frm, to = self.frm, self.to
        for side in CASTLES:
            for c in side:
                touched = ((frm == c.king_from) | (frm == c.rook_from)
                           | (to == c.king_from) | (to == c.rook_from))
                keep = keep & ~Mux(touched, Const(c.right, 4), Const(0, 4))  # 4 bits wide
        return keep[:4]

    def _rights_960(self):
        """As orthodox chess's, the king's and rooks' squares from the position."""
        keep = self.rights
        frm, to = self.frm, self.to
        for right in range(4):
            rank = Const(0 if right < 2 else 7, 3)
            king_sq = Cat(self.castling[right].king_from, rank)
            rook_sq = Cat(self.rooks[right], rank)
            touched = (frm == king_sq) | (frm == rook_sq) | (to == king_sq) | (to == rook_sq)
            keep = keep & ~Mux(touched, Const(1 << right, 4), Const(0, 4))
        return keep[:4]
