"""The child's evaluation as the pipelined thread's stages (docs/chip_search.md, "The pipelined
thread": T, E1-E6): ``ChildEval``'s score for the same inputs, one move a clock, each clock a
few LUT levels or two carry chains, the piece-square words from block RAM through its output
register and the products between the DSP's registers (``ecp5_cells``).

From the inputs' clock (0, the clock the thread's candidate is formed in; its register is T's):

* 0: the piece-square addresses of the move's four writes (the to-square's old and new piece,
  the from-square, the en passant victim: an absent write reads piece 0's word, which is 0);
  the board's rooks per file;
* T (1): the words read; the child's pawns, its rooks per file, its kings, its bishop pairs;
* E1 (2): the child's sums (phase weights, piece-square sum in part); the pawns per file, the
  passed pawns, the shields' values (``eval_structure``); the kings' table words;
* E2 (3): the phase; the kings' middlegame-less-endgame words and the phase into multipliers,
  the shields and the enemy's weights into two more; the structure's tables; the piece-square
  sum; the kings' words and bishop pairs as the child's side less the other's;
* E3 (4): the structure's sums, the passed pawns' middlegame-less-endgame weight and the phase
  into two more multipliers; the piece-square sum for the side to move (the kings' words in);
* E4 (5): the kings' and the shields' products, per term the side's less the other's, summed
  to three;
* E5 (6): the passed pawns' products, the score (``LATENCY``);
* E6 (7): the window: whether the child stands pat and its score clamped to the window
  (``VERDICT_LATENCY``: T + 7, the doc's decision clock).

Side to move's terms less the other's, rather than white's lead negated for black, so that no
clock ends in a negation. Castling as ``ChildEval``: the structure terms follow it, the sums
do not (the thread makes those children).
"""

from amaranth import Array, Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import BISHOP, BLACK, PAWN, WHITE
from posdata.engine.search.eval import BISHOP_PAIR, KING_EG, KING_MG
from posdata.engine.search.leaf_eval import PHASE_ONE, PHASE_SHIFT, PST_BITS
from posdata.engine.search.leaf_structure import ARMY_SHIFT

from ..chip.attack import AttackPlanes
from ..common.layouts import PIECE, SQUARE, MoveLayout
from . import eval_structure as st
from . import evaluator
from .ecp5_cells import Product, RomPair
from .eval_structure import reg
from .evaluator import SCORE, Sums

LATENCY = 7  #: clocks from the inputs to ``score``
VERDICT_LATENCY = LATENCY + 1  #: to ``verdict``

COLORS = (WHITE, BLACK)
KING_DIFF = tuple(mg - eg for mg, eg in zip(KING_MG, KING_EG))

#: the window a child is judged against: its own (the parent's -alpha and -beta)
Window = data.StructLayout({"neg_alpha": SCORE, "neg_beta": SCORE})
#: a child settled without making it: it stands pat (score >= -alpha, its parent's alpha
#: stays); its score clamped to the window (its value at the ply limit)
Verdict = data.StructLayout({"stands": 1, "clamped": SCORE})

#: the pipe as the search control asks it: the move and the pieces on its squares (``null``:
#: no move), the node's window; the child's score ``LATENCY`` and verdict ``VERDICT_LATENCY``
#: clocks later
Ask = wiring.Signature({"move": Out(MoveLayout), "mover": Out(PIECE), "captured": Out(PIECE),
                        "null": Out(1), "window": Out(Window),
                        "score": In(SCORE), "verdict": In(Verdict)})


def _shifted(product, shift):
    """``product >> shift`` in the score's width (the terms' products fit it once shifted)."""
    return product[shift:shift + SCORE.width].as_signed()


class EvalPipe(wiring.Component):
    """Ports
    -----
    sums : In(Sums); kings : In(ArrayLayout(SQUARE, 2)); side : In(1)   the parent's
    planes : In(AttackPlanes)   the parent's board
    mover, captured : In(PIECE)   what the move's squares hold (NO_PIECE on an empty square)
    move : In(MoveLayout); null : In(1)   the move; with ``null`` none (the position's own score)
        These as ``ChildEval``'s, a new set every clock.
    window : In(Window)   read in E6's clock (the node's registered -alpha and -beta)
    score : Out(SCORE)    the child's evaluation for its side to move, ``LATENCY`` clocks after
                          the inputs
    verdict : Out(Verdict)   the window's answers, ``VERDICT_LATENCY`` clocks after the inputs
    """

    sums: In(Sums)
    kings: In(data.ArrayLayout(SQUARE, 2))
    side: In(1)
    planes: In(AttackPlanes)
    mover: In(PIECE)
    captured: In(PIECE)
    move: In(MoveLayout)
    null: In(1)
    window: In(Window)
    score: Out(SCORE)
    verdict: Out(Verdict)

    def elaborate(self, platform):
        m = Module()
        words = self._words(m)
        t = self._t_inputs(m)
        e1 = self._t(m, t)
        e2 = self._e1(m, e1, words)
        e3 = self._e2(m, e2)
        e4 = self._e3(m, e3)
        e5 = self._e4(m, e4)
        self._e5_e6(m, e5)
        return m

    # --- clock 0 and T: the words, the child's board ------------------------------------------

    def _words(self, m):
        """The four writes' words, read from clock 0's addresses, in E1: (value, weight) each;
        the to-square's old piece and the from-square's are taken out, the placed one added,
        the en passant victim taken out (leaf_eval.move_writes)."""
        mv, side, live = self.move, self.side, ~self.null
        placed = Mux(mv.flags.promotion, mv.promo, self.mover)
        victim = Mux(side, mv.to + 8, mv.to - 8)[:6]
        ep_pawn = Mux(mv.flags.ep, Const(PAWN, PIECE), 0)
        writes = [(~side, self.captured, mv.to), (side, placed, mv.to),
                  (side, self.mover, mv.frm), (~side, ep_pawn, victim)]
        image = evaluator.pst_words()  # the sums' own image (where a fault is injected)
        words = []
        for i, (color, piece, sq) in enumerate(writes):
            if i % 2 == 0:
                m.submodules[f"rom{i // 2}"] = rom = RomPair(image)
            addr = Cat(sq, Mux(live, piece, 0), color)  # leaf_eval.pst_address
            m.d.comb += rom.addr[i % 2].eq(addr)
            word = rom.data[i % 2]
            words.append((word[:PST_BITS].as_signed(), word[PST_BITS:]))
        return words

    def _t_inputs(self, m):
        """T's registers: the inputs, the board's rooks per file, the parent's weights."""
        s, w = self.sums, self.sums.weights
        t = {"move": reg(m, self.move, MoveLayout, "t_move"),
             "side": reg(m, self.side, 1, "t_side"),
             "null": reg(m, self.null, 1, "t_null"),
             "mover": reg(m, self.mover, PIECE, "t_mover"),
             "captured": reg(m, self.captured, PIECE, "t_captured"),
             "pst": reg(m, s.pst, signed(16), "t_pst"),
             "bishops": reg(m, s.bishops, data.ArrayLayout(4, 2), "t_bishops"),
             "kings": reg(m, self.kings, data.ArrayLayout(SQUARE, 2), "t_kings"),
             "board_kings": reg(m, self.planes.king, data.ArrayLayout(SQUARE, 2),
                                 "t_board_kings"),
             "pawn": reg(m, self.planes.pawn, 64, "t_pawn"),
             "black": reg(m, self.planes.black, 64, "t_black"),
             "rooks": st.board_rooks(m, self.planes),
             # both sides' weights, the mover's and the other's (ChildEval's 9-bit sums)
             "weight": reg(m, w[WHITE] + w[BLACK], 10, "t_weight"),
             "w_mover": reg(m, Mux(self.side, w[BLACK], w[WHITE]), 9, "t_w_mover"),
             "w_other": reg(m, Mux(self.side, w[WHITE], w[BLACK]), 9, "t_w_other")}
        return t

    def _t(self, m, t):
        """T: the child's pawns, rooks and kings; its bishop pairs; the rest carried on."""
        mv, side, null, mover = t["move"], t["side"], t["null"], t["mover"]
        live = ~null
        placed = Mux(mv.flags.promotion, mv.promo, mover)
        e1 = {"pawns": st.child_pawns(m, t["pawn"], t["black"], mv, side, mover, null),
              "rooks": st.rooks_after(m, t["rooks"], mv, side, mover, t["captured"], null),
              "board_kings": st.kings_after(m, t["board_kings"], mv, side, mover, null,
                                            "board_king"),
              "kings": st.kings_after(m, t["kings"], mv, side, mover, null, "king"),
              # the side to move in the child (with ``null``, the position's)
              "side2": reg(m, side ^ live, 1, "e1_side2")}
        pairs = []
        for color in COLORS:
            mine = side == color
            b = (t["bishops"][color] + (live & mine & (placed == BISHOP))
                 - (live & mine & (mover == BISHOP))
                 - (live & ~mine & (t["captured"] == BISHOP)))
            pairs.append(reg(m, b[:4] >= 2, 1, f"e1_pair{color}"))
        e1["pairs"] = pairs
        for name, shape in (("pst", signed(16)), ("weight", 10), ("w_mover", 9),
                            ("w_other", 9), ("side", 1)):
            e1[name] = reg(m, t[name], shape, f"e1_{name}")
        return e1

    # --- E1, E2: the child's sums, the phase, the structure's tables --------------------------

    def _e1(self, m, e1, words):
        (v_old, w_old), (v_new, w_new), (v_from, w_from), (v_ep, _) = words
        mover_dw = w_new - w_from  # a promotion's weight
        e2 = {"pst_part": reg(m, (v_new - v_old) - (v_from + v_ep), signed(16), "e2_pst_part"),
              "weight": reg(m, (e1["weight"] - w_old) + mover_dw, 10, "e2_weight"),
              "w_mover": reg(m, e1["w_mover"] + mover_dw, 9, "e2_w_mover"),
              "w_other": reg(m, e1["w_other"] - w_old, 9, "e2_w_other")}
        counts, passed, files, shield = st.pawn_features(m, e1["pawns"], e1["board_kings"])
        e2.update(counts=counts, passed=passed, files=files, shield=shield)
        e2["rooks"] = [[reg(m, n, 4, f"e2_rooks{c}_{f}") for f, n in enumerate(e1["rooks"][c])]
                       for c in COLORS]
        eg, diff = Array(Const(v, signed(9)) for v in KING_EG), Array(
            Const(v, signed(9)) for v in KING_DIFF)
        e2["king_eg"], e2["king_diff"] = [], []
        for color in COLORS:
            own = e1["kings"][color] ^ (56 if color == BLACK else 0)
            e2["king_eg"].append(reg(m, eg[own], signed(9), f"e2_king_eg{color}"))
            e2["king_diff"].append(reg(m, diff[own], signed(9), f"e2_king_diff{color}"))
        for name, shape in (("pst", signed(16)), ("side", 1), ("side2", 1)):
            e2[name] = reg(m, e1[name], shape, f"e2_{name}")
        e2["pairs"] = [reg(m, p, 1, f"e2_pair{c}") for c, p in enumerate(e1["pairs"])]
        return e2

    def _e2(self, m, e2):
        weight, side, side2 = e2["weight"], e2["side"], e2["side2"]
        phase = Signal(range(PHASE_ONE + 1), name="phase")
        m.d.comb += phase.eq(Mux(weight > PHASE_ONE, PHASE_ONE, weight))
        e3 = {"kings": [], "shields": []}
        for color in COLORS:
            m.submodules[f"king_product{color}"] = king = Product()
            m.d.comb += [king.a.eq(e2["king_diff"][color]), king.b.eq(phase)]
            e3["kings"].append(king)
            # each shield scaled by the enemy's weight
            enemy = Mux(side == color, e2["w_other"], e2["w_mover"])
            m.submodules[f"shield_product{color}"] = shield = Product()
            m.d.comb += [shield.a.eq(st.sum_tree(m, e2["shield"][color], f"shield_sum{color}")),
                         shield.b.eq(enemy)]
            e3["shields"].append(shield)
        e3["tables"] = st.term_tables(m, e2["counts"], e2["passed"], e2["files"], e2["rooks"])
        # the kings' endgame words and the bishop pairs: the side's less the other's
        own, other = [Mux(side2, e2[n][BLACK], e2[n][WHITE]) for n in ("king_eg", "pairs")], [
            Mux(side2, e2[n][WHITE], e2[n][BLACK]) for n in ("king_eg", "pairs")]
        kings = ((own[0] + Mux(own[1], BISHOP_PAIR, 0))
                 - (other[0] + Mux(other[1], BISHOP_PAIR, 0)))
        e3["kings_eg"] = reg(m, kings, signed(10), "e3_kings_eg")
        e3["pst"] = reg(m, e2["pst"] + e2["pst_part"], signed(16), "e3_pst")
        e3["phase"] = reg(m, phase, phase.shape(), "e3_phase")
        e3["side2"] = reg(m, side2, 1, "e3_side2")
        return e3

    # --- E3-E6: the sums, the products, the score, the window ---------------------------------

    def _e3(self, m, e3):
        side2 = e3["side2"]
        sums, diffs = st.term_sums(m, *e3["tables"])
        e4 = {"sums": sums, "kings": e3["kings"], "shields": e3["shields"], "passed": []}
        for color in COLORS:
            m.submodules[f"passed_product{color}"] = passed = Product()
            m.d.comb += [passed.a.eq(diffs[color]), passed.b.eq(e3["phase"])]
            e4["passed"].append(passed)
        pst = e3["pst"]
        e4["base"] = reg(m, Mux(side2, e3["kings_eg"] - pst, e3["kings_eg"] + pst), SCORE,
                          "e4_base")
        e4["side2"] = reg(m, side2, 1, "e4_side2")
        return e4

    def _e4(self, m, e4):
        side2 = e4["side2"]

        def own(values):
            return Mux(side2, values[BLACK], values[WHITE])

        def other(values):
            return Mux(side2, values[WHITE], values[BLACK])

        kings = [_shifted(p.p, PHASE_SHIFT) for p in e4["kings"]]
        shields = [_shifted(p.p, ARMY_SHIFT) for p in e4["shields"]]
        sums = e4["sums"]
        eg, penalty, rooks = ([getattr(s, n) for s in sums]
                              for n in ("passed_eg", "penalty", "rooks"))
        e5 = {"parts": [
            reg(m, (own(kings) - other(kings)) + (other(shields) - own(shields)), SCORE,
                 "e5_part0"),
            reg(m, (own(eg) - other(eg)) + (other(penalty) - own(penalty)), SCORE, "e5_part1"),
            reg(m, (own(rooks) - other(rooks)) + e4["base"], SCORE, "e5_part2")],
            "passed": [_shifted(p.p, PHASE_SHIFT) for p in e4["passed"]],
            "side2": reg(m, side2, 1, "e5_side2")}
        return e5

    def _e5_e6(self, m, e5):
        side2, passed = e5["side2"], e5["passed"]
        parts = e5["parts"]
        blend = Mux(side2, passed[BLACK], passed[WHITE]) - Mux(side2, passed[WHITE],
                                                              passed[BLACK])
        m.d.sync += self.score.eq(parts[0] + parts[1] + parts[2] + blend)
        # E6: the window, registered by the thread
        w, score = self.window, self.score
        m.d.sync += [self.verdict.stands.eq(score >= w.neg_alpha),
                     self.verdict.clamped.eq(Mux(score < w.neg_beta, w.neg_beta,
                                                 Mux(score > w.neg_alpha, w.neg_alpha, score)))]
