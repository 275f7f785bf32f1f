"""The search thread's evaluation (engine/leaf_eval.py): sums kept by every square write, and the
score formed from them and the kings' squares.

``SumsUpdate`` gives the sums after one square write (what stood there out, what lands in), from
the piece-square ROM (``leaf_eval.pst_words``); ``Score`` forms the side to move's score:
the kings' middlegame and endgame words blended by the phase, the bishop pair, white's lead
negated for black. Both are combinational: the thread registers their outputs.
"""

from amaranth import Array, Const, Module, Mux, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import BISHOP, BLACK, WHITE, Color
from posdata.engine.eval import BISHOP_PAIR, KING_EG, KING_MG
from posdata.engine.leaf_eval import PHASE_ONE, PHASE_SHIFT, PST_BITS, pst_words

from ..common.layouts import PIECE, SQUARE

SCORE = signed(16)
#: the sums make and unmake keep: white's piece-square lead, the phase weights (promotions may
#: push them past PHASE_ONE: 10 bits), each side's bishops
Sums = data.StructLayout({"pst": signed(16), "weight": 10,
                          "bishops": data.ArrayLayout(4, 2)})

Contents = data.StructLayout({"color": Color, "piece": PIECE})


class SumsUpdate(wiring.Component):
    """Ports
    -----
    sums : In(Sums)      before the write
    sq : In(SQUARE)      the square written
    old, new : In(Contents)  what stood there, what lands (colour EMPTY: nothing)
    after : Out(Sums)    the sums after the write
    """

    sums: In(Sums)
    sq: In(SQUARE)
    old: In(Contents)
    new: In(Contents)
    after: Out(Sums)

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = rom = Memory(shape=PST_BITS + 6, depth=1024, init=pst_words())
        terms = []
        for name, sign in (("old", -1), ("new", 1)):
            c = getattr(self, name)
            port = rom.read_port(domain="comb")
            on = c.color != Color.EMPTY
            m.d.comb += port.addr.eq(Mux(on, (c.color[0] << 9) | (c.piece << 6) | self.sq, 0))
            value = Mux(on, port.data[:PST_BITS].as_signed(), 0)
            weight = Mux(on, port.data[PST_BITS:], 0)
            bishop = on & (c.piece == BISHOP)
            terms.append((sign, value, weight, bishop, c.color[0]))
        pst, weight = self.sums.pst, self.sums.weight
        bishops = [self.sums.bishops[0], self.sums.bishops[1]]
        for sign, value, w, bishop, color in terms:
            pst = pst + value if sign > 0 else pst - value
            weight = weight + w if sign > 0 else weight - w
            for side in (WHITE, BLACK):
                hit = bishop & (color == side)
                bishops[side] = bishops[side] + hit if sign > 0 else bishops[side] - hit
        m.d.comb += [self.after.pst.eq(pst), self.after.weight.eq(weight),
                     self.after.bishops[0].eq(bishops[0]), self.after.bishops[1].eq(bishops[1])]
        return m


class Score(wiring.Component):
    """Ports
    -----
    sums : In(Sums); kings : In(ArrayLayout(SQUARE, 2)); side : In(1)  the side to move
    score : Out(SCORE)  leaf_eval.EvalSums.score
    """

    sums: In(Sums)
    kings: In(data.ArrayLayout(SQUARE, 2))
    side: In(1)
    score: Out(SCORE)

    def elaborate(self, platform):
        m = Module()
        mg = Array(Const(v, signed(9)) for v in KING_MG)
        eg = Array(Const(v, signed(9)) for v in KING_EG)
        phase = Signal(range(PHASE_ONE + 1))
        m.d.comb += phase.eq(Mux(self.sums.weight > PHASE_ONE, PHASE_ONE, self.sums.weight))
        terms = []
        for color in (WHITE, BLACK):
            own = self.kings[color] ^ (56 if color == BLACK else 0)
            g, e = mg[own], eg[own]
            blend = Signal(signed(12), name=f"blend{color}")
            m.d.comb += blend.eq(e + (((g - e) * phase) >> PHASE_SHIFT))
            pair = Mux(self.sums.bishops[color] >= 2, BISHOP_PAIR, 0)
            terms.append(blend + pair)
        white = Signal(SCORE)
        m.d.comb += white.eq(self.sums.pst + terms[WHITE] - terms[BLACK])
        m.d.comb += self.score.eq(Mux(self.side, -white, white))
        return m
