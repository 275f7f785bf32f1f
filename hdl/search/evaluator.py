"""The search thread's evaluation (engine/search/leaf_eval.py): sums kept by every square write, and
the score formed from them and the kings' squares.

``SumsUpdate`` gives one square write's piece-square words (what stood there, what lands), from
the piece-square ROM (``leaf_eval.pst_words``); ``SumsKeeper`` keeps the sums in a register
through the thread's writes, the words registered before they are added (``add_words``); ``Score``
forms the side to move's score: the kings' middlegame and endgame
words blended by the phase, the bishop pair, white's lead negated for black. ``SumsUpdate`` and
``Score`` are combinational.
"""

from amaranth import Array, Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import BISHOP, BLACK, WHITE, Color
from posdata.engine.search.eval import BISHOP_PAIR, KING_EG, KING_MG
from posdata.engine.search.leaf_eval import PHASE_ONE, PHASE_SHIFT, PST_BITS, pst_words
from posdata.engine.search.leaf_structure import ARMY_SHIFT

from ..common.layouts import PIECE, SQUARE
from .structure import PASSED, PENALTY, ROOKS, SHIELD

SCORE = signed(16)
#: the sums make and unmake keep: white's piece-square lead, each side's phase weight (its
#: non-pawn material: the phase is their sum, the king's shield scales by the enemy's;
#: promotions may push one past PHASE_ONE: 9 bits), each side's bishops
Sums = data.StructLayout({"pst": signed(16), "weights": data.ArrayLayout(9, 2),
                          "bishops": data.ArrayLayout(4, 2)})

Contents = data.StructLayout({"color": Color, "piece": PIECE})

#: the structure terms per colour (hdl.search.structure.StructureTerms's outputs), raw
Structure = data.StructLayout({
    "penalty": data.ArrayLayout(PENALTY, 2), "passed_mg": data.ArrayLayout(PASSED, 2),
    "passed_eg": data.ArrayLayout(PASSED, 2), "rooks": data.ArrayLayout(ROOKS, 2),
    "shield": data.ArrayLayout(SHIELD, 2)})


def add_words(sums, words):
    """The sums after the piece-square words ``words``: each (sign, value, weight, bishop,
    colour), a word added (sign 1) or taken out (sign -1). Returns a Sums value."""
    pst = sums.pst
    weights = [sums.weights[WHITE], sums.weights[BLACK]]
    bishops = [sums.bishops[WHITE], sums.bishops[BLACK]]
    for sign, value, weight, bishop, color in words:
        pst = pst + value if sign > 0 else pst - value
        for side in (WHITE, BLACK):
            mine = color == side
            w = Mux(mine, weight, 0)
            weights[side] = weights[side] + w if sign > 0 else weights[side] - w
            hit = bishop & mine
            bishops[side] = bishops[side] + hit if sign > 0 else bishops[side] - hit
    return Sums(Cat(pst[:16], weights[WHITE][:9], weights[BLACK][:9], bishops[WHITE][:4],
                    bishops[BLACK][:4]))


#: one side of a square write as the ROM gives it: the word's value and weight (0 for an
#: empty square), whether it is a bishop, its colour
Word = data.StructLayout({"value": signed(PST_BITS), "weight": 6, "bishop": 1, "color": 1})


class SumsUpdate(wiring.Component):
    """Ports
    -----
    sq : In(SQUARE)      the square written
    old, new : In(Contents)  what stood there, what lands (colour EMPTY: nothing)
    words : Out(ArrayLayout(Word, 2))  the old piece's word and the new one's, from the ROM
                         (combinational)
    """

    sq: In(SQUARE)
    old: In(Contents)
    new: In(Contents)
    words: Out(data.ArrayLayout(Word, 2))

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = rom = Memory(shape=PST_BITS + 6, depth=1024, init=pst_words())
        for i, name in enumerate(("old", "new")):
            c, w = getattr(self, name), self.words[i]
            port = rom.read_port(domain="comb")
            on = c.color != Color.EMPTY
            m.d.comb += [port.addr.eq(Mux(on, (c.color[0] << 9) | (c.piece << 6) | self.sq, 0)),
                         w.value.eq(Mux(on, port.data[:PST_BITS].as_signed(), 0)),
                         w.weight.eq(Mux(on, port.data[PST_BITS:], 0)),
                         w.bishop.eq(on & (c.piece == BISHOP)), w.color.eq(c.color[0])]
        return m


class SumsKeeper(wiring.Component):
    """The sums, kept by square writes (the register ``SumsUpdate`` feeds), as
    hdl.search.zobrist.HashKeeper keeps the hash.

    Ports
    -----
    en : In(1); sq : In(SQUARE)   a square write this clock, and its square
    old, new : In(Contents)       what stood there (colour EMPTY for a load's), what lands
    restart : In(1)   with ``en``: a load's first write; the sums before it are taken as none,
                      so a load rebuilds them whatever came before
    sums : Out(Sums)  every write up to the one two clocks before (the ROM's words are
                      registered, then added: the square write's lookups and the adders are
                      not one clock)
    """

    en: In(1)
    sq: In(SQUARE)
    old: In(Contents)
    new: In(Contents)
    restart: In(1)
    sums: Out(Sums)

    def elaborate(self, platform):
        m = Module()
        m.submodules.update = update = SumsUpdate()
        m.d.comb += [update.sq.eq(self.sq), update.old.eq(self.old), update.new.eq(self.new)]
        words = Signal(data.ArrayLayout(Word, 2))
        en, restart = Signal(), Signal()
        m.d.sync += [words.eq(update.words), en.eq(self.en), restart.eq(self.en & self.restart)]
        terms = [(sign, words[i].value, words[i].weight, words[i].bishop, words[i].color)
                 for i, sign in enumerate((-1, 1))]
        before = Signal(Sums)
        m.d.comb += before.eq(Mux(restart, 0, self.sums))
        with m.If(en):
            m.d.sync += self.sums.eq(add_words(before, terms))
        return m


class Score(wiring.Component):
    """Ports
    -----
    sums : In(Sums); kings : In(ArrayLayout(SQUARE, 2)); side : In(1)  the side to move
    structure : In(Structure)  the position's structure terms
    score : Out(SCORE)  leaf_eval.EvalSums.score + leaf_structure.structure_of: the passed
                        pawns blended by the phase as the kings' tables are, each shield scaled
                        by the enemy's weight
    """

    sums: In(Sums)
    kings: In(data.ArrayLayout(SQUARE, 2))
    side: In(1)
    structure: In(Structure)
    score: Out(SCORE)

    def elaborate(self, platform):
        m = Module()
        mg = Array(Const(v, signed(9)) for v in KING_MG)
        eg = Array(Const(v, signed(9)) for v in KING_EG)
        phase = Signal(range(PHASE_ONE + 1))
        weight = self.sums.weights[WHITE] + self.sums.weights[BLACK]
        m.d.comb += phase.eq(Mux(weight > PHASE_ONE, PHASE_ONE, weight))
        terms = []
        for color in (WHITE, BLACK):
            own = self.kings[color] ^ (56 if color == BLACK else 0)
            g, e = mg[own], eg[own]
            blend = Signal(signed(12), name=f"blend{color}")
            m.d.comb += blend.eq(e + (((g - e) * phase) >> PHASE_SHIFT))
            pair = Mux(self.sums.bishops[color] >= 2, BISHOP_PAIR, 0)
            terms.append(blend + pair + self._structure(m, color, phase))
        white = Signal(SCORE)
        m.d.comb += white.eq(self.sums.pst + terms[WHITE] - terms[BLACK])
        m.d.comb += self.score.eq(Mux(self.side, -white, white))
        return m

    def _structure(self, m, color, phase):
        """leaf_structure.structure's share of ``color``."""
        t = self.structure
        mg, eg = Signal(signed(12), name=f"passed_mg{color}"), Signal(signed(12),
                                                                    name=f"passed_eg{color}")
        passed = Signal(signed(12), name=f"passed{color}")
        shield = Signal(range(SHIELD.stop << 9), name=f"shield{color}")
        m.d.comb += [mg.eq(t.passed_mg[color]), eg.eq(t.passed_eg[color]),
                     passed.eq(eg + (((mg - eg) * phase) >> PHASE_SHIFT)),
                     shield.eq(t.shield[color] * self.sums.weights[color ^ 1])]
        return passed - t.penalty[color] + t.rooks[color] - (shield >> ARMY_SHIFT)
