"""The square writes of make and unmake, one a clock (the order of leaf_eval.move_writes):
make writes the to-square, the from-square, then the en passant victim or the castling rook's
two squares; unmake writes each back. Unmake's writes undo make's, so the evaluation's sums,
which follow every write, come back too.
"""

from amaranth import Module, Mux
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import PAWN, ROOK, Color

from ..chip.chessboard import SquareWrite
from ..common.layouts import PIECE, MoveLayout


class MoveWrites(wiring.Component):
    """Ports
    -----
    move : In(MoveLayout); mover, captured : In(PIECE)   the move and what its squares held
    side : In(1)      the mover's side
    unmake : In(1)    unmake (else make)
    step : In(2)      which write
    write : Out(SquareWrite)   the step's write (``en`` low for a step with none)
    last : Out(1)     the step is the move's last write
    """

    move: In(MoveLayout)
    mover: In(PIECE)
    captured: In(PIECE)
    side: In(1)
    unmake: In(1)
    step: In(2)
    write: Out(SquareWrite)
    last: Out(1)

    def elaborate(self, platform):
        m = Module()
        c, side, w = self.move, self.side, self.write
        kingside = c.to[:3] == 6
        rook_from = Mux(kingside, c.to + 1, c.to - 2)[:6]
        rook_to = Mux(kingside, c.to - 1, c.to + 1)[:6]
        victim = Mux(side, c.to + 8, c.to - 8)[:6]
        placed = Mux(c.flags.promotion, c.promo, self.mover)
        captured = Mux(self.captured != 0, ~side, Color.EMPTY)

        def put(sq, color, piece):
            m.d.comb += [w.en.eq(1), w.sq.eq(sq), w.color.eq(color), w.piece.eq(piece)]

        m.d.comb += self.last.eq(self.step == Mux(c.flags.castle, 3, Mux(c.flags.ep, 2, 1)))
        with m.Switch(self.step):
            with m.Case(0):
                with m.If(self.unmake):
                    put(c.frm, side, self.mover)
                with m.Else():
                    put(c.to, side, placed)
            with m.Case(1):
                with m.If(self.unmake):
                    put(c.to, captured, self.captured)
                with m.Else():
                    put(c.frm, Color.EMPTY, 0)
            with m.Case(2):
                with m.If(c.flags.castle):
                    with m.If(self.unmake):
                        put(rook_to, Color.EMPTY, 0)
                    with m.Else():
                        put(rook_from, Color.EMPTY, 0)
                with m.Elif(c.flags.ep):
                    put(victim, Mux(self.unmake, ~side, Color.EMPTY), Mux(self.unmake, PAWN, 0))
            with m.Case(3):
                put(Mux(self.unmake, rook_from, rook_to), side, ROOK)
        return m
