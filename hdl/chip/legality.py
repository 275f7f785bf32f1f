"""The legality collector: the attack unit's questions about a node's moves, and what the answers
decide.

While a node is generated (``collect``), each pseudo-legal move on the generator core's stream is
asked about (``hdl.chip.attack``: is the mover's king attacked after the move?). Castling is three
questions, each on the board before the move: the king's square, the square it crosses (Chess960:
every square it crosses, one a clock), and its destination once king and rook have moved; it is
legal if none is attacked. An answer comes ``LATENCY`` clocks later, in order, with the move in its
tag: a legal move goes onto the move stack (``push``), or, at the last ply of a bulk count
(``counting``), into the leaf counter (a promotion counts one leaf per piece of its side's set).
At the last ply of a plain count (``store_all``) every pseudo-legal move goes onto the stack
unasked, and make/unmake asks about each leaf once made (``leaf``: its questions share the unit;
a legal leaf counts one).
"""

from amaranth import Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import BLACK, WHITE
from posdata.engine.rules.variants import get_variant

from ..common.contract import COUNT_BITS
from ..common.layouts import SQUARE, MoveLayout
from .attack import LATENCY, Query
from .castling import CastleRules, castling_ports, step_toward
from .modes import PromotionTable

#: what a question is: a plain move's, or one of castling's three
NORMAL, CASTLE_CHECK, CASTLE_CROSS, CASTLE_TO = range(4)


#: the thread control's side of the collector: the node's moves are being generated
#: (``collect``); a node's generation begins (``open``); its ply is a plain count's last (store
#: every move unasked) or a bulk count's (count the legal moves); the leaf counter clears, or
#: counts perft(0)'s one leaf. ``idle``: no question in flight and no answer arriving;
#: ``quiet``: idle, and nothing pushed this clock.
CollectorControl = wiring.Signature({
    "collect": Out(1), "open": Out(1), "store_all": Out(1), "counting": Out(1),
    "clear": Out(1), "one": Out(1), "idle": In(1), "quiet": In(1),
})


def tag_layout(entry) -> data.StructLayout:
    """What a question carries to its answer: which question, whether it is about a made leaf,
    and the move (a stack entry)."""
    return data.StructLayout({"part": 2, "leaf": 1, "move": entry})


def question_layout(entry) -> data.StructLayout:
    """A question to the attack unit (``hdl.chip.attack.AttackUnit(tag_layout(entry))``)."""
    return data.StructLayout({"query": Query, "tag": tag_layout(entry)})


def answer_layout(entry) -> data.StructLayout:
    return data.StructLayout({"attacked": 1, "tag": tag_layout(entry)})


class LegalityCollector(wiring.Component):
    """Ports
    -----
    moves : In(stream.Signature(MoveLayout))
        The generator core's moves (promotions unexpanded); taken only while ``collect``.
    control : In(CollectorControl)
        From the thread's control.
    side : In
        The side to move.
    king : In(ArrayLayout(SQUARE, 2))
        The kings' squares, per colour.
    ask : Out(stream.Signature(question_layout(entry), always_ready=True))
        To the attack unit.
    answer : In(stream.Signature(answer_layout(entry), always_ready=True))
        From the attack unit.
    leaf : In(stream.Signature(question_layout(entry), always_ready=True))
        Make/unmake's questions (asked in clocks of their own).
    push : Out(stream.Signature(entry, always_ready=True))
        Legal moves (and a plain count's last ply's every move) onto the move stack.
    leaves : Out(64)
        Leaves counted since ``control.clear``.
    castling, rooks : In (Chess960 only)
    ep_victim : In(SQUARE) (modes only)
        The pawn an en passant capture takes (``hdl.chip.make_unmake``).

    Parameters
    ----------
    entry : data.Layout
        A stack entry (``hdl.chip.move_stack.stack_entry``).
    variant : engine.rules.variants name
        Its promotion sets (how many leaves a promotion counts) and castling.
    geometry : hdl.image.variant.Geometry, optional
        With modes: the promotion sets as a table (``hdl.chip.modes``), en passant marked in
        the entry and its victim an input.
    """

    def __init__(self, entry, variant, geometry=None):
        self._entry = entry
        self._variant = variant = get_variant(variant)
        self._chess960 = variant.chess960
        self._modes = geometry is not None and geometry.mode_bits > 0
        self._promo_bits = geometry.promo_bits if self._modes else None
        question = stream.Signature(question_layout(entry), always_ready=True)
        super().__init__({
            "moves": In(stream.Signature(MoveLayout)),
            "control": In(CollectorControl), "side": In(1), "king": In(data.ArrayLayout(SQUARE, 2)),
            "ask": Out(question),
            "answer": In(stream.Signature(answer_layout(entry), always_ready=True)),
            "leaf": In(question),
            "push": Out(stream.Signature(entry, always_ready=True)),
            "leaves": Out(COUNT_BITS),
            **castling_ports(variant),
            **({"ep_victim": In(SQUARE)} if self._modes else {}),
        })

    def elaborate(self, platform):
        m = Module()
        inflight = Signal(range(LATENCY + 8))
        m.d.sync += inflight.eq(inflight + self.ask.valid - self.answer.valid)
        self._ask(m)
        self._answers(m)
        ctl = self.control
        m.d.comb += [ctl.idle.eq((inflight == 0) & ~self.answer.valid),
                     ctl.quiet.eq(ctl.idle & ~self.push.valid)]
        return m

    def _ask(self, m):
        """The questions: make/unmake's when it asks, else, while collecting, the move on the
        core's stream (castling: one question a clock, the move taken with the last)."""
        query, tag = self.ask.p.query, self.ask.p.tag
        word = self.moves.payload
        side = self.side
        own_king = self.king[side]
        castle_part = Signal(2)  # which of castling's three questions is being asked
        with m.If(self.control.open):
            m.d.sync += castle_part.eq(0)
        m.d.comb += [query.by.eq(~side), tag.move.frm.eq(word.frm), tag.move.to.eq(word.to),
                     tag.move.promote.eq(word.flags.promotion)]
        if self._chess960:
            m.d.comb += tag.move.castle.eq(word.flags.castle)
        if self._modes:
            m.d.comb += tag.move.ep.eq(word.flags.ep)

        with m.If(self.leaf.valid):
            m.d.comb += [self.ask.valid.eq(1), self.ask.payload.eq(self.leaf.payload)]
        with m.Elif(self.control.collect & self.control.store_all):
            # plain counting: every pseudo-legal move onto the stack, as it comes
            m.d.comb += [self.moves.ready.eq(1), self.push.valid.eq(self.moves.valid),
                         self.push.p.frm.eq(word.frm), self.push.p.to.eq(word.to),
                         self.push.p.promote.eq(word.flags.promotion)]
            if self._chess960:
                m.d.comb += self.push.p.castle.eq(word.flags.castle)
            if self._modes:
                m.d.comb += self.push.p.ep.eq(word.flags.ep)
        with m.Elif(self.control.collect):
            last_part = ~word.flags.castle | (castle_part == 2)
            m.d.comb += [self.moves.ready.eq(last_part), self.ask.valid.eq(self.moves.valid)]
            with m.If(word.flags.castle):
                if self._chess960:
                    self._ask_castling_960(m, castle_part)
                else:
                    # the king's square, the square it crosses, its destination
                    with m.Switch(castle_part):
                        with m.Case(0):
                            m.d.comb += [query.sq.eq(word.frm), tag.part.eq(CASTLE_CHECK)]
                        with m.Case(1):
                            m.d.comb += [query.sq.eq((word.frm + word.to)[1:]),
                                         tag.part.eq(CASTLE_CROSS)]
                        with m.Default():
                            m.d.comb += [query.sq.eq(word.to), tag.part.eq(CASTLE_TO),
                                         query.clr.eq(word.frm), query.clr_valid.eq(1),
                                         query.put.eq(word.to), query.put_valid.eq(1)]
                    with m.If(self.moves.valid):
                        m.d.sync += castle_part.eq(Mux(last_part, 0, castle_part + 1))
            with m.Else():
                m.d.comb += [query.sq.eq(Mux(word.frm == own_king, word.to, own_king)),
                             tag.part.eq(NORMAL),
                             query.clr.eq(word.frm), query.clr_valid.eq(1),
                             query.put.eq(word.to), query.put_valid.eq(1),
                             query.epc.eq(self.ep_victim if self._modes else word.to ^ 8),
                             query.epc_valid.eq(word.flags.ep)]

    def _ask_castling_960(self, m, castle_part):
        """Chess960: on the board before the move, the king's square, then each square it
        crosses (``castle_sq``, the next to ask); then its destination once king and rook have
        left and the rook stands on its target (where the king lands does not matter to a test
        of that square: ``put`` is the rook's)."""
        query, tag = self.ask.p.query, self.ask.p.tag
        word = self.moves.payload
        m.submodules.castle = rules = CastleRules(self._variant)
        m.d.comb += [rules.side.eq(self.side), rules.king_to.eq(word.to),
                     rules.castling.eq(self.castling), rules.rooks.eq(self.rooks)]
        castle_sq = Signal(SQUARE)
        with m.Switch(castle_part):
            with m.Case(0):
                m.d.comb += [query.sq.eq(word.frm), tag.part.eq(CASTLE_CHECK)]
            with m.Case(1):
                m.d.comb += [query.sq.eq(castle_sq), tag.part.eq(CASTLE_CROSS)]
            with m.Default():
                m.d.comb += [query.sq.eq(word.to), tag.part.eq(CASTLE_TO),
                             query.clr.eq(word.frm), query.clr_valid.eq(1),
                             query.put.eq(rules.rook_to), query.put_valid.eq(1),
                             query.epc.eq(rules.rook_from), query.epc_valid.eq(1)]
        with m.If(self.moves.valid):
            after_frm = step_toward(word.frm, word.frm, word.to)
            after_sq = step_toward(castle_sq, word.frm, word.to)
            with m.Switch(castle_part):
                with m.Case(0):  # none crossed: straight to the destination
                    m.d.sync += [castle_sq.eq(after_frm), castle_part.eq(
                        Mux((word.frm == word.to) | (after_frm == word.to), 2, 1))]
                with m.Case(1):
                    m.d.sync += [castle_sq.eq(after_sq),
                                 castle_part.eq(Mux(after_sq == word.to, 2, 1))]
                with m.Default():
                    m.d.sync += castle_part.eq(0)

    def _answers(self, m):
        """A decided answer: count the leaf, count the move (bulk), or push the move."""
        result = self.answer.payload
        answered = self.answer.valid
        castle_seen = Signal()  # an attacked square among castling's questions so far
        legal = Signal()
        decided = Signal()
        with m.Switch(result.tag.part):
            with m.Case(NORMAL):
                m.d.comb += [legal.eq(~result.attacked), decided.eq(1)]
            with m.Case(CASTLE_TO):
                m.d.comb += [legal.eq(~result.attacked & ~castle_seen), decided.eq(1)]
        with m.If(answered):
            with m.If(result.tag.part == CASTLE_CHECK):
                m.d.sync += castle_seen.eq(result.attacked)
            with m.Elif(result.tag.part == CASTLE_CROSS):
                m.d.sync += castle_seen.eq(castle_seen | result.attacked)

        promotions = self._variant.promotions
        counts = [len(promotions[WHITE]), len(promotions[BLACK])]
        if self._modes:  # a table: one RTL for every variant with modes
            m.submodules.promotions = table = PromotionTable(promotions, self._promo_bits)
            m.d.comb += table.side.eq(self.side)
            promo_leaves = table.count
        elif counts[WHITE] == counts[BLACK]:
            promo_leaves = Const(counts[WHITE])
        else:
            promo_leaves = Mux(self.side, counts[BLACK], counts[WHITE])
        leaves = self.leaves
        count_leg = answered & decided & legal  # a legal move came out of the unit
        with m.If(count_leg & result.tag.leaf):
            m.d.sync += leaves.eq(leaves + 1)        # plain: a made leaf whose king is safe
        with m.Elif(count_leg & self.control.counting):
            m.d.sync += leaves.eq(leaves + Mux(result.tag.move.promote, promo_leaves, 1))
        with m.Elif(count_leg & ~(self.control.collect & self.control.store_all)):
            m.d.comb += [self.push.valid.eq(1), self.push.payload.eq(result.tag.move)]
        with m.If(self.control.clear):
            m.d.sync += leaves.eq(0)
        with m.If(self.control.one):
            m.d.sync += leaves.eq(1)
