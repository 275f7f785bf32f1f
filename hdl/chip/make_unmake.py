"""Make and unmake on chip: the move in hand onto the thread's board, and back off it.

Make writes the move's squares one a clock (two writes; three for en passant, four for castling),
saves in the ply's undo record what unmake needs, and sets the rest of the position: castling
rights, the en passant square, the side to move. Unmake writes the squares back in the same order
and restores the rights and en passant square from the undo record. At the last ply of a plain
count the sequencer makes the move, asks the legality collector whether the mover's king is
attacked now (castling: also the king's square and the squares it crosses, on the board before
the move), and unmakes it at once; otherwise it returns after make (``made``) and the control
descends, and unmake runs when the control comes back up (``unmake``, then ``unmade``).

The position (side to move, rights, en passant square) lives here: make and unmake change it,
the control loads it (``load``) and flips the side on the way up (``flip``). The board's write
port is make and unmake's; while the control is idle (``host_ok``), the host's writes pass.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import KING, NO_PIECE, PAWN, ROOK, Color
from posdata.engine.rules.variants import get_variant

from ..common.contract import Phase
from ..common.layouts import PIECE, SQUARE, Position
from ..gen.chessboard import PieceLookup
from .castling import CastleRules, castling_ports, step_toward, two_apart
from .chessboard import SquareWrite
from .legality import CASTLE_CHECK, CASTLE_CROSS, CASTLE_TO, NORMAL, question_layout
from .modes import RootWithVictim
from .move_stack import StackUse, hand, record_port

#: the thread control's side of make/unmake: begin making the move in hand, or unmaking the
#: ply's move (its records just reloaded); a plain count's last ply (make, ask, unmake); load the
#: position from the root; flip the side (going up a ply); pass the host's writes (idle).
#: ``made``/``unmade`` pulse in the clock of the last write (``made``: not at a plain count's last
#: ply); ``phase`` is MAKE, LEAF or UNMAKE while busy.
SequencerControl = wiring.Signature({
    "make": Out(1), "unmake": Out(1), "store_all": Out(1), "load": Out(1), "flip": Out(1),
    "host_ok": Out(1), "made": In(1), "unmade": In(1), "phase": In(Phase),
})

#: what unmake needs of a move besides the move itself (the move stack keeps that)
Undo = data.StructLayout({
    "moved": PIECE,      # the piece that left the from-square (a pawn for a promotion)
    "captured": PIECE,   # the piece taken (a pawn for en passant), NO_PIECE if none
    "castle": 1, "ep": 1,
    "rights": 4, "ep_valid": 1, "ep_sq": SQUARE,
})


def undo_layout(modes: bool) -> data.StructLayout:
    """The undo record; with modes also en passant's victim before the move."""
    return data.StructLayout({**Undo.members, "ep_victim": SQUARE}) if modes else Undo


def restore_after_unmake(undo, rights, ep_valid, ep_sq):
    """What unmake puts back besides the board: the castling rights and the en passant square
    the position had (a seam for the tests' fault injection)."""
    return [rights.eq(undo.rights), ep_valid.eq(undo.ep_valid), ep_sq.eq(undo.ep_sq)]


class MakeUnmake(wiring.Component):
    """Ports
    -----
    control : In(SequencerControl)
        From the thread's control.
    root : In(Position)
        The position ``control.load`` takes.
    position : Out(Position)
        Side to move, castling rights, en passant square.
    host : In(SquareWrite)
        The host's square writes, passed to the board while ``control.host_ok``.
    write : Out(SquareWrite)
        The board's write port.
    probe_from, probe_to : Out(PieceLookup)
        The pieces on the move's squares.
    empty : In(64), king : In(ArrayLayout(SQUARE, 2))
        The board's empty plane and the kings' squares.
    ask : Out(stream.Signature(question_layout(entry), always_ready=True))
        Questions to the legality collector (a plain count's leaves).
    hand : In(hand(entry)), use : Out(StackUse), undo : Out(record_port(Undo))
        The move stack's move in hand and records.
    castling, rooks : In (Chess960 only)
    ep_victim : Out(SQUARE) (modes only)
        The square of the pawn an en passant capture takes: the last double step's to-square
        (a Berolina pawn passes diagonally: it does not stand behind the square it crossed).

    Parameters
    ----------
    entry : data.Layout
        A stack entry (``hdl.chip.move_stack.stack_entry``).
    variant : engine.rules.variants name
        Chess960 castles from the position's squares, marked in the entry.
    modes : bool
        Pawns with modes (``hdl.chip.modes``): en passant is marked in the entry, its victim
        kept with the position and loaded with the root (``hdl.chip.modes.root_layout``).
    """

    def __init__(self, entry, variant, modes: bool = False):
        self._entry = entry
        self._variant = variant = get_variant(variant)
        self._chess960 = variant.chess960
        self._modes = modes
        victim = {"ep_victim": Out(SQUARE)} if modes else {}
        super().__init__({
            "control": In(SequencerControl), "root": In(RootWithVictim if modes else Position),
            "position": Out(Position), **victim,
            "host": In(SquareWrite), "write": Out(SquareWrite),
            "probe_from": Out(PieceLookup), "probe_to": Out(PieceLookup),
            "empty": In(64), "king": In(data.ArrayLayout(SQUARE, 2)),
            "ask": Out(stream.Signature(question_layout(entry), always_ready=True)),
            "hand": In(hand(entry)), "use": Out(StackUse),
            "undo": Out(record_port(undo_layout(modes))),
            **castling_ports(variant),
        })

    def elaborate(self, platform):
        m = Module()
        pos, ctl = self.position, self.control
        with m.If(ctl.load):
            m.d.sync += [pos.side.eq(self.root.side), pos.castle.eq(self.root.castle),
                         pos.ep_valid.eq(self.root.ep_valid), pos.ep_sq.eq(self.root.ep_sq)]
            if self._modes:
                m.d.sync += self.ep_victim.eq(self.root.ep_victim)
        with m.If(ctl.flip):
            m.d.sync += pos.side.eq(~pos.side)

        m.submodules.castle = rules = CastleRules(self._variant)
        made = self.hand.made.move  # the move made from the ply (its squares, once recorded)
        m.d.comb += [rules.side.eq(pos.side), rules.king_to.eq(made.to),
                     rules.rights.eq(pos.castle), rules.frm.eq(made.frm), rules.to.eq(made.to)]
        if self._chess960:
            m.d.comb += [rules.castling.eq(self.castling), rules.rooks.eq(self.rooks)]

        move = self._move_facts(m)
        with m.FSM(name="make_unmake"):
            with m.State("Idle"):
                with m.If(ctl.host_ok):
                    m.d.comb += [self.write.en.eq(self.host.en), self.write.sq.eq(self.host.sq),
                                 self.write.color.eq(self.host.color),
                                 self.write.piece.eq(self.host.piece)]
                with m.If(ctl.make):
                    m.next = "Make"
                with m.Elif(ctl.unmake):
                    m.next = "Unmake"
            self._make(m, rules, move)
            self._unmake(m, rules)
        return m

    def _move_facts(self, m) -> dict:
        """What make needs to know of the move in hand, from the board before it: the pieces on
        its squares, what lands on the to-square, what is taken, castling, en passant."""
        entry, pos = self.hand.entry, self.position
        m.d.comb += [self.probe_from.sq.eq(entry.frm), self.probe_to.sq.eq(entry.to)]
        piece_f, piece_t = self.probe_from.piece, self.probe_to.piece
        to_occupied = ~self.empty.bit_select(entry.to, 1)
        df = (entry.frm[:3] - entry.to[:3])[:4]
        if self._chess960:
            is_castle = entry.castle
            occupied_to = to_occupied & ~is_castle  # the king may land on its own rook
        else:
            is_castle = (piece_f == KING) & two_apart(entry.frm[:3], entry.to[:3])
            occupied_to = to_occupied
        if self._modes:  # the generator marked it: a pawn may step there without taking
            is_ep = entry.ep
        else:
            is_ep = (piece_f == PAWN) & pos.ep_valid & (entry.to == pos.ep_sq) & (df != 0)
        return {"moved": piece_f, "placed": Mux(entry.promote, self.hand.piece, piece_f),
                "is_castle": is_castle, "is_ep": is_ep,
                "captured": Mux(is_ep, PAWN, Mux(occupied_to, piece_t, NO_PIECE))}

    # --- helpers --------------------------------------------------------------------------

    def _victim(self):
        """The en passant victim's square (the position's before the move: make writes it in
        the clock the position changes, unmake after restoring it)."""
        return self.ep_victim if self._modes else self.hand.made.move.to ^ 8

    def _put(self, m, sq, color, piece):
        m.d.comb += [self.write.en.eq(1), self.write.sq.eq(sq), self.write.color.eq(color),
                     self.write.piece.eq(piece)]

    def _clear(self, m, sq, keep=None):
        """Empty ``sq``, unless ``keep`` (Chess960: the square holds the other castling piece
        now; None: always)."""
        if keep is None:
            self._put(m, sq, Color.EMPTY, NO_PIECE)
        else:
            with m.If(~keep):
                self._put(m, sq, Color.EMPTY, NO_PIECE)

    def _castle_keeps(self, rules):
        """Chess960: king and rook may stay put or swap, so a write that would undo the other
        piece's is left out: make leaves the king's from-square if it stays, and the rook's if
        the king lands there; unmake leaves the king's target if it stayed, and the rook's
        target if the king came from there. (None for orthodox chess: always written.)"""
        if not self._chess960:
            return None, None, None, None
        made, undo = self.hand.made.move, self.undo.q
        king_stays = undo.castle & (made.frm == made.to)
        return (king_stays, rules.rook_from == made.to,   # make: from, rook from
                king_stays, rules.rook_to == made.frm)    # unmake: to, rook to

    def _ask(self, m, sq, part, **move):
        """A question about the board for the plain leaf's test (by the side not to move unless
        ``by`` is given); ``clr``/``put``/``epc`` as the attack unit takes them."""
        q, tag = self.ask.p.query, self.ask.p.tag
        by = move.pop("by", ~self.position.side)
        m.d.comb += [self.ask.valid.eq(1), q.sq.eq(sq), q.by.eq(by), tag.part.eq(part),
                     tag.leaf.eq(1)]
        for name, value in move.items():
            m.d.comb += [getattr(q, name).eq(value), getattr(q, f"{name}_valid").eq(1)]

    # --- make -----------------------------------------------------------------------------

    def _make(self, m, rules, move):
        entry, pos = self.hand.entry, self.position
        undo, made = self.undo.q, self.hand.made.move
        keep_from, keep_rook_from, _, _ = self._castle_keeps(rules)

        def make_first():
            """The move's first write (its to-square), its undo record and the stack's record
            of the move."""
            m.d.comb += self.control.phase.eq(Phase.MAKE)
            self._put(m, entry.to, pos.side, move["placed"])
            m.d.comb += [self.undo.en.eq(1), self.use.record.eq(1),
                         self.undo.data.moved.eq(move["moved"]),
                         self.undo.data.captured.eq(move["captured"]),
                         self.undo.data.castle.eq(move["is_castle"]),
                         self.undo.data.ep.eq(move["is_ep"]),
                         self.undo.data.rights.eq(pos.castle),
                         self.undo.data.ep_valid.eq(pos.ep_valid),
                         self.undo.data.ep_sq.eq(pos.ep_sq)]
            if self._modes:
                m.d.comb += self.undo.data.ep_victim.eq(self.ep_victim)
            m.next = "Make-From"

        def made_it():
            """The move is on the board: the rest of the position; then the leaf's test (a
            plain count's last ply), or back to the control."""
            double_step = (undo.moved == PAWN) & two_apart(made.frm[3:], made.to[3:])
            m.d.sync += [pos.castle.eq(rules.rights_after), pos.ep_valid.eq(double_step),
                         pos.ep_sq.eq((made.frm + made.to)[1:]), pos.side.eq(~pos.side)]
            if self._modes:  # read only while ep_valid: after a double step, its pawn
                m.d.sync += self.ep_victim.eq(made.to)
            with m.If(self.control.store_all):
                m.next = "Leaf-Test"
            with m.Else():
                m.d.comb += self.control.made.eq(1)
                m.next = "Idle"

        with m.State("Make"):
            if not self._chess960:
                make_first()
            else:
                # a plain leaf that castles: first the king's square and the squares it
                # crosses, asked on the board before the move ("Castle-Ask"), then made
                castle_asked = Signal()
                castle_sq = Signal(SQUARE)
                with m.If(self.control.store_all & entry.castle & ~castle_asked):
                    m.d.comb += self.control.phase.eq(Phase.MAKE)
                    m.d.sync += [castle_asked.eq(1), castle_sq.eq(entry.frm)]
                    m.next = "Castle-Ask"
                with m.Else():
                    m.d.sync += castle_asked.eq(0)
                    make_first()
        if self._chess960:
            with m.State("Castle-Ask"):
                m.d.comb += self.control.phase.eq(Phase.MAKE)
                following = step_toward(castle_sq, entry.frm, entry.to)
                self._ask(m, castle_sq, Mux(castle_sq == entry.frm, CASTLE_CHECK, CASTLE_CROSS))
                m.d.sync += castle_sq.eq(following)
                with m.If((castle_sq == entry.to) | (following == entry.to)):
                    m.next = "Make"
        with m.State("Make-From"):
            m.d.comb += self.control.phase.eq(Phase.MAKE)
            self._clear(m, made.frm, keep_from)
            if not self._chess960:
                with m.If(self.control.store_all & undo.castle):
                    self._ask_before_castling(m, CASTLE_CHECK, made.frm)
            with m.If(undo.ep):
                m.next = "Make-Ep"
            with m.Elif(undo.castle):
                m.next = "Make-Rook-From"
            with m.Else():
                made_it()
        with m.State("Make-Ep"):
            m.d.comb += self.control.phase.eq(Phase.MAKE)
            self._clear(m, self._victim())
            made_it()
        with m.State("Make-Rook-From"):
            m.d.comb += self.control.phase.eq(Phase.MAKE)
            self._clear(m, rules.rook_from, keep_rook_from)
            if not self._chess960:
                with m.If(self.control.store_all):
                    self._ask_before_castling(m, CASTLE_CROSS, (made.frm + made.to)[1:])
            m.next = "Make-Rook-To"
        with m.State("Make-Rook-To"):
            m.d.comb += self.control.phase.eq(Phase.MAKE)
            self._put(m, rules.rook_to, pos.side, ROOK)
            made_it()

        # the unit reads the board in the clock after a question, before a write in that
        # clock takes effect: unmake may follow the leaf's question at once
        with m.State("Leaf-Test"):
            # made: is the mover's king attacked now? (``side`` has flipped)
            m.d.comb += self.control.phase.eq(Phase.LEAF)
            self._ask(m, self.king[~pos.side], Mux(undo.castle, CASTLE_TO, NORMAL),
                      by=pos.side)
            m.d.sync += pos.side.eq(~pos.side)
            m.next = "Unmake"

    def _ask_before_castling(self, m, part, sq):
        """Orthodox chess's plain leaf that castles: the king's square (CASTLE_CHECK) or the
        square it crosses (CASTLE_CROSS) on the board before the move. The king already stands
        on its target (and the rook may have left its corner), so the question puts it back
        (``put`` its square, ``clr`` its target); the rook's corner never matters, as nothing
        lies beyond it on those lines."""
        made = self.hand.made.move
        self._ask(m, sq, part, clr=made.to, put=made.frm)

    # --- unmake ---------------------------------------------------------------------------

    def _unmake(self, m, rules):
        pos, undo, made = self.position, self.undo.q, self.hand.made.move
        _, _, keep_to, keep_rook_to = self._castle_keeps(rules)

        def unmade():
            m.d.comb += [self.control.phase.eq(Phase.UNMAKE), self.control.unmade.eq(1)]
            m.next = "Idle"

        with m.State("Unmake"):
            # the child's moves leave the stack (``side`` is the move's mover again)
            m.d.comb += [self.control.phase.eq(Phase.UNMAKE), self.use.pop.eq(1)]
            self._put(m, made.frm, pos.side, undo.moved)
            m.next = "Unmake-To"
        with m.State("Unmake-To"):
            m.d.comb += self.control.phase.eq(Phase.UNMAKE)
            with m.If(undo.captured.any() & ~undo.ep):
                self._put(m, made.to, ~pos.side, undo.captured)
            with m.Else():
                self._clear(m, made.to, keep_to)
            m.d.sync += restore_after_unmake(undo, pos.castle, pos.ep_valid, pos.ep_sq)
            if self._modes:
                m.d.sync += self.ep_victim.eq(undo.ep_victim)
            with m.If(undo.ep):
                m.next = "Unmake-Ep"
            with m.Elif(undo.castle):
                m.next = "Unmake-Rook-To"
            with m.Else():
                unmade()
        with m.State("Unmake-Ep"):
            self._put(m, self._victim(), ~pos.side, PAWN)
            unmade()
        with m.State("Unmake-Rook-To"):
            m.d.comb += self.control.phase.eq(Phase.UNMAKE)
            self._clear(m, rules.rook_to, keep_rook_to)
            m.next = "Unmake-Rook-From"
        with m.State("Unmake-Rook-From"):
            self._put(m, rules.rook_from, pos.side, ROOK)
            unmade()
