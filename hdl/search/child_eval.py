"""The evaluation of a child without making its move (leaf_eval.eval_after): the parent's sums
through the move's square writes (the to-square, the from-square, an en passant victim), the
kings' squares after it, the score for the child's side to move. What lets the thread settle a
child that stands pat, or sits at the ply limit, by counting it (docs/chip_search.md, "Settling
a child without making it"). Castling is not covered: the thread makes those children.

Combinational: the three writes are three ``SumsUpdate`` in a chain (a pipeline on the FPGA).
"""

from amaranth import Module, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import KING, PAWN, Color

from ..common.layouts import PIECE, SQUARE, MoveLayout
from .evaluator import SCORE, Score, Sums, SumsUpdate


class ChildEval(wiring.Component):
    """Ports
    -----
    sums : In(Sums); kings : In(ArrayLayout(SQUARE, 2)); side : In(1)   the parent's
    move : In(MoveLayout); mover, captured : In(PIECE)   the move and what its squares hold
    score : Out(SCORE)   the child's evaluation, for the child's side to move
    """

    sums: In(Sums)
    kings: In(data.ArrayLayout(SQUARE, 2))
    side: In(1)
    move: In(MoveLayout)
    mover: In(PIECE)
    captured: In(PIECE)
    score: Out(SCORE)

    def elaborate(self, platform):
        m = Module()
        mv, side = self.move, self.side
        to_sq, from_sq, victim = SumsUpdate(), SumsUpdate(), SumsUpdate()
        m.submodules.to_sq, m.submodules.from_sq, m.submodules.victim = to_sq, from_sq, victim
        m.submodules.score = score = Score()
        placed = Mux(mv.flags.promotion, mv.promo, self.mover)
        m.d.comb += [
            to_sq.sums.eq(self.sums), to_sq.sq.eq(mv.to),
            to_sq.old.color.eq(Mux(self.captured != 0, ~side, Color.EMPTY)),
            to_sq.old.piece.eq(self.captured),
            to_sq.new.color.eq(side), to_sq.new.piece.eq(placed),
            from_sq.sums.eq(to_sq.after), from_sq.sq.eq(mv.frm),
            from_sq.old.color.eq(side), from_sq.old.piece.eq(self.mover),
            from_sq.new.color.eq(Color.EMPTY),
            victim.sums.eq(from_sq.after), victim.sq.eq(Mux(side, mv.to + 8, mv.to - 8)[:6]),
            victim.old.color.eq(Mux(mv.flags.ep, ~side, Color.EMPTY)),
            victim.old.piece.eq(PAWN),
            victim.new.color.eq(Color.EMPTY),
            score.sums.eq(victim.after), score.side.eq(~side),
            score.kings.eq(self.kings),
        ]
        with m.If(self.mover == KING):
            m.d.comb += score.kings[side].eq(mv.to)
        m.d.comb += self.score.eq(score.score)
        return m
