"""The perft thread's make and unmake: for any move the generator can emit, making it and
unmaking it leaves the position exactly as it was (every plane, both king squares, the piece
memory, the side to move, the castling rights, the en passant square).

The check starts the thread *in* the state "Make" of a plain count's last ply (the path that
makes a move, tests the leaf and unmakes it at once) with everything else free: the thread's
registers and the board's planes and piece memory have no initial value (checks.FREE_STATE
removes them), so the solver picks any board and any move, restricted only by these
assumptions at the first step:

* the board is consistent where the move touches it (and at one free square ``s``, where the
  piece memory is compared): the planes, the piece memory and the king registers say the same;
* the move is one the generator can emit: it starts on a piece of the side to move and does not
  end on its colour; a king moving two files is one of the side's castlings, with its right,
  its rook in the corner and its king's and rook's targets empty (the walk tables have no other
  two-file king step: test_table_facts); en passant lands on an empty square behind an enemy
  pawn;
* no board write is in flight, and no reset or abort comes.

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
from amaranth.lib.memory import Memory

from posdata.engine.defs import BISHOP, CASTLES, KING, KNIGHT, NO_PIECE, PAWN, QUEEN, ROOK, Color
from posdata.hdl.chip.perft_thread import PerftThread
from posdata.hdl.common.layouts import PIECE

from .abstract import Inside, find_signals, free_read_port, free_start_port, past

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
    raise KeyError(f"the thread has no state {name!r}")


class MakeUnmakeHarness(Elaboratable):
    GROUPS = ("inverse", "cover")

    def __init__(self, group: str):
        assert group in self.GROUPS, group
        self.group = group

    def elaborate(self, platform):
        m = Module()
        t = PerftThread()
        with _ProbeMemory() as probe:
            inside = Inside(t, platform)
        m.submodules.thread = inside.fragment
        m.d.comb += [Assume(~ResetSignal()), t.abort.eq(0)]
        for port in (t.wr_en, t.wr_sq, t.wr_color, t.wr_piece, t.root.as_value(), t.start,
                     t.depth, t.bulk, t.split, t.claim.grant, t.claim.next, t.gen_start,
                     t.gen_legal, t.moves.ready):
            m.d.comb += port.eq(AnySeq(len(port)))
        free_read_port(m, t.walk)
        free_start_port(m, t.starts)

        frag = inside.fragment
        (state, entry, side, rights, ep_valid, ep_sq, store_all, depth, ply, bulk, promo) = \
            find_signals(frag, "", "thread_state", "entry", "side", "rights", "ep_valid",
                         "ep_sq", "store_all", "depth", "ply", "bulk", "promo_q")
        planes = dict(zip(("empty", "black", "orth", "diag", "knight", "pawn"),
                          find_signals(frag, "board", "empty", "black", "orth", "diag",
                                       "knight", "pawn")))
        kings = find_signals(frag, "board", "king0", "king1")
        (board_wr,) = find_signals(frag, "board", "wr_en")
        frm, to = entry[:6], entry[6:12]
        promote = entry[12]
        piece_f, piece_t = t_probe(frag)

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
                Assume(store_all & ~bulk & (depth - ply == 1)),  # a plain count's last ply
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
        # compared as the last unmake state ends: leaving a ply's last move goes up to the
        # parent at once, which flips the side for the parent's own unmake (``leave_node``)
        side_at_last = past(m, past(m, side, "side_1"), "side_2")
        at_s = Cat(plane.bit_select(s, 1) for plane in planes.values())
        position = Cat(at_s, piece_s, *kings, side_at_last, rights, ep_valid, ep_sq)
        before = Signal(len(position))
        kind = Signal(4)  # castle, en passant, promotion, capture: for the covers
        with m.If(first):
            m.d.sync += [before.eq(Cat(at_s, piece_s, *kings, side, rights, ep_valid, ep_sq)),
                         kind.eq(Cat(is_castle, is_ep, promote, colour(to) != Color.EMPTY))]

        # the sequence's last write shows two clocks after the thread leaves it (the board
        # registers a write, then makes it); the next move's first write a clock after that
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


def t_probe(frag):
    """The pieces make reads: on the move's from- and to-squares (the board's probe ports)."""
    return find_signals(frag, "board", "probe_a__piece", "probe_b__piece")
