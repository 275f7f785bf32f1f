"""The evaluation of a child without making its move (leaf_eval.eval_after, with
leaf_structure's terms): the parent's sums through the move's square writes (the to-square, the
from-square, an en passant victim), the kings' squares after it, the structure terms of the
board after it (``StructureTerms``), the score for the child's side to move. What lets the
thread settle a child that stands pat, or sits at the ply limit, by counting it
(docs/chip_search.md, "Settling a child without making it"). Castling is not covered: the
thread makes those children. With ``null`` the move is ignored: the score of the position as it
stands, for its side to move (the thread's own evaluation of a job's root and of a castling's
child).

A pipeline of ``LATENCY`` clocks, one move a clock: the piece-square words of the four writes
(block RAM reads) and the child's board for the structure terms; the child's sums and kings,
its structure terms; its score. The thread holds its inputs while it waits (the move under test
and the board do not change before it is judged).
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import BISHOP, KING, PAWN
from posdata.engine.search.leaf_eval import PST_BITS

from ..chip.attack import AttackPlanes
from ..common.layouts import PIECE, SQUARE, MoveLayout
from . import evaluator, structure
from .evaluator import SCORE, Score, Sums
from .structure import StructureTerms

#: clocks from the inputs to ``score``: the ROM words, the child's sums, its score
LATENCY = 3
assert structure.LATENCY == LATENCY - 1  # the terms meet the child's sums


#: the question the thread's control asks: the child of ``move`` (with ``null``, the position as
#: it stands); its ``score`` comes back ``LATENCY`` clocks later
Ask = wiring.Signature({"move": Out(MoveLayout), "null": Out(1), "score": In(SCORE)})


class ChildEval(wiring.Component):
    """Ports
    -----
    sums : In(Sums); kings : In(ArrayLayout(SQUARE, 2)); side : In(1)   the parent's
    planes : In(AttackPlanes)   the parent's board
    mover, captured : In(PIECE)   what the move's squares hold
    ask : In(Ask)
        move : the move; null : the position as it stands, the move ignored;
        score : (out) the child's evaluation, for the child's side to move (with ``null``, the
        position's, for its side to move), ``LATENCY`` clocks after the inputs
    """

    sums: In(Sums)
    kings: In(data.ArrayLayout(SQUARE, 2))
    side: In(1)
    planes: In(AttackPlanes)
    mover: In(PIECE)
    captured: In(PIECE)
    ask: In(Ask)

    def elaborate(self, platform):
        m = Module()
        mv, side = self.ask.move, self.side
        # the same image as the sums' updates (evaluator.pst_words, where a fault is injected)
        m.submodules.rom = rom = Memory(shape=PST_BITS + 6, depth=1024,
                                        init=evaluator.pst_words())
        placed = Mux(mv.flags.promotion, mv.promo, self.mover)
        victim_sq = Mux(side, mv.to + 8, mv.to - 8)[:6]
        # the writes' words, signed as they enter the sums (leaf_eval.eval_after's order): what
        # leaves the to-square, what lands on it, the mover leaving its square, the en passant
        # victim; each (present, colour, piece, square)
        live = ~self.ask.null
        writes = [(-1, live & (self.captured != 0), ~side, self.captured, mv.to),
                  (1, live, side, placed, mv.to),
                  (-1, live, side, self.mover, mv.frm),
                  (-1, live & mv.flags.ep, ~side, Const(PAWN, PIECE), victim_sq)]
        # the structure terms of the same board, in step with the sums
        m.submodules.structure = terms = StructureTerms()
        wiring.connect(m, wiring.flipped(self.planes), terms.planes)
        m.d.comb += [terms.side.eq(side), terms.move.eq(mv), terms.mover.eq(self.mover),
                     terms.captured.eq(self.captured), terms.null.eq(self.ask.null)]
        # clock 1: the words (the ROM's registered reads) beside the inputs they go with
        words = []
        for i, (sign, on, color, piece, sq) in enumerate(writes):
            port = rom.read_port()
            m.d.comb += port.addr.eq(Cat(sq, piece, color))
            on_r, black_r = Signal(name=f"on{i}"), Signal(name=f"black{i}")
            bishop_r = Signal(name=f"bishop{i}")
            m.d.sync += [on_r.eq(on), black_r.eq(color), bishop_r.eq(on & (piece == BISHOP))]
            value = Mux(on_r, port.data[:PST_BITS].as_signed(), 0)
            weight = Mux(on_r, port.data[PST_BITS:], 0)
            words.append((sign, value, weight, bishop_r, black_r))
        sums1 = Signal(Sums)
        kings1 = Signal(data.ArrayLayout(SQUARE, 2))
        side1 = Signal()
        null1 = Signal()
        m.d.sync += [sums1.eq(self.sums), kings1.eq(self.kings), side1.eq(side),
                     null1.eq(self.ask.null)]
        with m.If(live & (self.mover == KING)):
            m.d.sync += kings1[side].eq(mv.to)
        # clock 2: the child's sums
        sums2 = Signal(Sums)
        kings2 = Signal(data.ArrayLayout(SQUARE, 2))
        side2 = Signal()
        m.d.sync += [sums2.eq(evaluator.add_words(sums1, words)),
                     kings2.eq(kings1), side2.eq(side1 ^ ~null1)]
        # clock 3: its score
        m.submodules.score = score = Score()
        m.d.comb += [score.sums.eq(sums2), score.kings.eq(kings2), score.side.eq(side2),
                     score.structure.penalty.eq(terms.penalty),
                     score.structure.passed_mg.eq(terms.passed_mg),
                     score.structure.passed_eg.eq(terms.passed_eg),
                     score.structure.rooks.eq(terms.rooks),
                     score.structure.shield.eq(terms.shield)]
        m.d.sync += self.ask.score.eq(score.score)
        return m
