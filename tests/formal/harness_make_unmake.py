"""Make/unmake (hdl.chip.make_unmake) on its board: for any move the generator can emit, making
it and unmaking it leaves the position exactly as it was (every plane, both king squares, the
piece memory, the side to move, the castling rights, the en passant square).

The part is checked alone, in a rig of its own with the board and the move stack it works on
(``MakeUnmakeRig``, as the perft thread joins them). The check starts the sequencer *in* its state
"Make" at a plain count's last ply (the path that makes a move, tests the leaf and unmakes it at
once) with everything else free: the rig's registers and the board's planes and piece memory have
no initial value (checks.FREE_STATE removes them), so the solver picks any board and any move,
restricted only by these assumptions at the first step:

* the board is consistent where the move touches it (and at one free square ``s``, where the
  piece memory is compared): the planes, the piece memory and the king registers say the same;
* the move is one the generator can emit: it starts on a piece of the side to move and does not
  end on its colour; a king moving two files is one of the side's castlings, with its right,
  its rook in the corner and its king's and rook's targets empty (the walk tables have no other
  two-file king step: test_table_facts); en passant lands on an empty square behind an enemy
  pawn;
* no board write is in flight, and nothing else drives the board or the stack: the control's
  other commands and the host's writes stay off.

The whole sequence (castling, the longest: four writes, the leaf test, four writes) is over
in the 9 clocks from "Make" (steps 0-8), and its last write shows in the board two clocks later
(step 10), so a bounded check of depth 11 covers every sequence to its end: for this path it is
a complete check, not a sample.
The interior plies' path runs the same make and unmake states; what it adds (the undo record
kept in the ply memory while the child runs) is held by the perft tests' counts.
"""

from amaranth import Cat, Elaboratable, Module, Mux, Signal, Value
from amaranth.asserts import AnyConst, AnySeq, Initial
from amaranth.hdl import Assert, Assume, Cover, ResetSignal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory

from posdata.engine.rules.defs import (
    BISHOP,
    CASTLES,
    KING,
    KNIGHT,
    NO_PIECE,
    PAWN,
    QUEEN,
    ROOK,
    Color,
)
from posdata.engine.rules.variants import CHESS
from posdata.hdl.chip.chessboard import PerftBoard
from posdata.hdl.chip.make_unmake import MakeUnmake, Undo
from posdata.hdl.chip.move_stack import MoveStack, StackEntry
from posdata.hdl.common.layouts import PIECE

from .abstract import Inside, find_signals, past

#: the states of make, the leaf test and unmake (the path under check)
SEQUENCE = ("Make", "Make-From", "Make-Ep", "Make-Rook-From", "Make-Rook-To", "Leaf-Test",
            "Unmake", "Unmake-To", "Unmake-Ep", "Unmake-Rook-To", "Unmake-Rook-From")


class _ProbeMemory:
    """While active, the board's piece memory (64 x PIECE) gets one more combinational read
    port, for the harness to read any square."""

    def __init__(self):
        self.port = None

    def __enter__(self):
        original = self.original = Memory.elaborate
        probe = self

        def elaborate(mem, platform):
            if probe.port is None and mem.depth == 64 and mem.shape == PIECE:
                probe.port = mem.read_port(domain="comb")
            return original(mem, platform)

        Memory.elaborate = elaborate
        return self

    def __exit__(self, *exc):
        Memory.elaborate = self.original


def state_code(state, name):
    """The FSM state's encoding, by name (Amaranth numbers states as it meets them)."""
    for code in range(1 << len(state)):
        if state.decoder(code).split("/")[0] == name:
            return code
    raise KeyError(f"make/unmake has no state {name!r}")


class MakeUnmakeRig(Elaboratable):
    """Make/unmake joined to its board and a small move stack as the perft thread joins them;
    every other input is the harness's."""

    def __init__(self):
        self.board = PerftBoard(CHESS)
        self.stack = MoveStack(StackEntry, CHESS.promotions, {"undo": Undo}, depth=16, plies=4)
        self.moves = MakeUnmake(StackEntry, CHESS)

    def elaborate(self, platform):
        m = Module()
        board, stack, moves = self.board, self.stack, self.moves
        m.submodules.board, m.submodules.stack, m.submodules.moves = board, stack, moves
        wiring.connect(m, moves.write, board.write)
        wiring.connect(m, moves.probe_from, board.probe_a)
        wiring.connect(m, moves.probe_to, board.probe_b)
        wiring.connect(m, stack.hand, moves.hand)
        wiring.connect(m, moves.use, stack.use)
        wiring.connect(m, moves.undo, stack.undo)
        m.d.comb += [moves.empty.eq(board.planes.empty), moves.king.eq(board.attack.king),
                     stack.side.eq(moves.position.side)]
        return m


class MakeUnmakeHarness(Elaboratable):
    GROUPS = ("inverse", "cover")

    def __init__(self, group: str):
        assert group in self.GROUPS, group
        self.group = group

    def elaborate(self, platform):
        m = Module()
        rig = MakeUnmakeRig()
        with _ProbeMemory() as probe:
            inside = Inside(rig, platform)
        m.submodules.rig = inside.fragment
        moves, stack = rig.moves, rig.stack
        ctl = moves.control
        m.d.comb += [Assume(~ResetSignal()),
                     # the control's other commands and the host stay off; the sequence runs
                     # at a plain count's last ply (store_all is a register of the control's,
                     # steady while a move is made and unmade)
                     ctl.make.eq(0), ctl.unmake.eq(0), ctl.load.eq(0), ctl.flip.eq(0),
                     ctl.host_ok.eq(0), ctl.store_all.eq(1),
                     stack.push.valid.eq(0), stack.control.ply.eq(0),
                     moves.root.eq(AnySeq(len(moves.root.as_value()))), moves.host.en.eq(0)]
        for name in ("start", "open", "close", "next_promo", "next_entry", "reload", "take",
                     "draining", "listing", "skipping"):
            m.d.comb += getattr(stack.control, name).eq(0)

        frag = inside.fragment
        (state,) = find_signals(frag, "moves", "make_unmake_state")
        (entry, promo) = find_signals(frag, "stack", "entry", "promo_q")
        pos = moves.position
        side, rights, ep_valid, ep_sq = pos.side, pos.castle, pos.ep_valid, pos.ep_sq
        planes = dict(zip(("empty", "black", "orth", "diag", "knight", "pawn"),
                          find_signals(frag, "board", "empty", "black", "orth", "diag",
                                       "knight", "pawn")))
        kings = find_signals(frag, "board", "king0", "king1")
        (board_wr,) = find_signals(frag, "board", "wr_en")
        frm, to = entry[:6], entry[6:12]
        promote = entry[12]
        piece_f, piece_t = moves.probe_from.piece, moves.probe_to.piece

        s = Signal(6)
        m.d.comb += [s.eq(AnyConst(6)), probe.port.addr.eq(s)]
        piece_s = probe.port.data

        def colour(sq):
            return Mux(planes["empty"].bit_select(sq, 1), Color.EMPTY,
                       Mux(planes["black"].bit_select(sq, 1), Color.BLACK, Color.WHITE))

        def holds(sq, col, piece):
            """The planes (and a king register) at ``sq`` say ``col``'s ``piece``."""
            sq, col, piece = Value.cast(sq), Value.cast(col), Value.cast(piece)  # ints too
            bit = {name: plane.bit_select(sq, 1) for name, plane in planes.items()}
            occupied = piece != NO_PIECE
            return ((bit["empty"] == ~occupied)
                    & (bit["black"] == (occupied & (col == Color.BLACK)))
                    & (bit["orth"] == (occupied & ((piece == ROOK) | (piece == QUEEN))))
                    & (bit["diag"] == (occupied & ((piece == BISHOP) | (piece == QUEEN))))
                    & (bit["knight"] == (occupied & (piece == KNIGHT)))
                    & (bit["pawn"] == (occupied & (piece == PAWN)))
                    & ((piece != KING) | ~occupied | (Mux(col, kings[1], kings[0]) == sq)))

        own = Mux(side, Color.BLACK, Color.WHITE)
        enemy = Mux(side, Color.WHITE, Color.BLACK)
        two_files = (frm[:3] - to[:3] == 2) | (to[:3] - frm[:3] == 2)
        is_castle = (piece_f == KING) & two_files
        is_ep = (piece_f == PAWN) & ep_valid & (to == ep_sq) & (frm[:3] != to[:3])

        first = Initial()
        with m.If(first):
            m.d.comb += [
                Assume(state == state_code(state, "Make")),
                Assume(promo < 4),
                Assume(~board_wr),                               # no write in flight
                # consistent where the move touches the board, and at s
                Assume(holds(s, colour(s), piece_s)),
                Assume(holds(frm, own, piece_f) & (piece_f != NO_PIECE)),
                Assume((colour(to) != own) & holds(to, colour(to), piece_t)),
            ]
            with m.If(colour(to) == Color.EMPTY):
                m.d.comb += Assume(piece_t == NO_PIECE)
            with m.If(is_ep):
                m.d.comb += Assume((colour(to) == Color.EMPTY) & holds(to ^ 8, enemy, PAWN))
                with m.If(s == to ^ 8):
                    m.d.comb += Assume(piece_s == PAWN)
            with m.If(is_castle):
                castlings = []
                for colour_code, side_castles in enumerate(CASTLES):
                    for c in side_castles:
                        match = ((side == colour_code) & (frm == c.king_from)
                                 & (to == c.king_to) & (rights & c.right).any())
                        castlings.append(match)
                        with m.If(match):
                            m.d.comb += [Assume(holds(c.rook_from, own, ROOK)),
                                         Assume(colour(to) == Color.EMPTY),
                                         Assume(holds(c.rook_to, Color.EMPTY, NO_PIECE))]
                            with m.If(s == c.rook_from):
                                m.d.comb += Assume(piece_s == ROOK)
                m.d.comb += Assume(Cat(castlings).any())

        # the position at the first step, kept: at the free square s (the solver may pick any,
        # so this is every square, and far cheaper than whole planes). The side to move is
        # compared as the sequence ends: make flips it, the leaf test flips it back
        at_s = Cat(plane.bit_select(s, 1) for plane in planes.values())
        position = Cat(at_s, piece_s, *kings, side, rights, ep_valid, ep_sq)
        before = Signal(len(position))
        kind = Signal(4)  # castle, en passant, promotion, capture: for the covers
        with m.If(first):
            m.d.sync += [before.eq(position),
                         kind.eq(Cat(is_castle, is_ep, promote, colour(to) != Color.EMPTY))]

        # the sequence's last write shows two clocks after the sequencer leaves it (the board
        # registers a write, then makes it)
        in_sequence = Cat(state == state_code(state, n) for n in SEQUENCE).any()
        left = past(m, ~in_sequence & past(m, in_sequence, "was_in"), "left")
        checked = Signal()
        m.d.sync += checked.eq(checked | left)
        at_end = left & ~checked
        if self.group == "inverse":
            with m.If(at_end):
                m.d.comb += Assert(position == before, "make then unmake restores the "
                                   "planes, the piece memory, the kings, side, rights and ep")
        else:
            castle, ep, promotion, capture = kind
            m.d.comb += [Cover(at_end & castle, "castling made and unmade"),
                         Cover(at_end & ep, "en passant made and unmade"),
                         Cover(at_end & promotion & capture, "a capturing promotion"),
                         Cover(at_end & capture & ~promotion, "a capture"),
                         Cover(at_end & (kind == 0), "a quiet move")]
        return m
