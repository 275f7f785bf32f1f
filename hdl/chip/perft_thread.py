"""A perft thread: the whole node loop of perft on chip, around the generator core.

The thread counts the leaves of the legal move tree below the position loaded into its board,
depth first, TSCP style (README, "The perft engine: memory and threading model"):

* **Generate** a node: the generator core streams the pseudo-legal moves in generation order
  (promotions unexpanded). Each goes to the legality unit (``hdl.chip.attack``: is the mover's king
  attacked after the move? castling: three questions) and, when legal, onto the move stack
  (``gen_dat``: ply p's moves lie between where it began and ``end[p]``), or, at the last ply of a
  bulk count, into the leaf counter (a promotion counts one per piece of its side's set).
* **Descend**: take the ply's next move from the stack (a promotion entry is made once per
  piece of the variant's promotion set, four in orthodox chess), save what unmake needs in the
  ply's undo record, make it on the board (two square writes; three for en passant, four for
  castling), flip the side, and generate the child.
* **Return**: when a ply's moves are done, unmake the move that led to it and go on with the
  parent's next move.
* **Plain counting**: the last ply's pseudo-legal moves are stored, and each is made, its king
  tested on the board after the move (castling: also the king's square and the square it
  crosses, before), counted if legal, and unmade.

Threads count independent subtrees. At the *split* ply every node must be claimed from a
counter shared by all threads (``claim``): a thread descends into the i-th node it reaches at
that ply only if the counter stands at i; otherwise another thread has it. The plies above the
split are walked by every thread.

The move stack holds ``STACK_DEPTH`` entries: 12 plies of the 323 pseudo-legal entries a
position can have at most (README). A write beyond the end sets ``overflow``, which stays set
until the next start: the count is then not to be trusted.
"""


from amaranth import Cat, Const, Module, Mux, ResetInserter, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import BLACK, CASTLES, KING, NO_PIECE, PAWN, ROOK, WHITE, Color
from posdata.engine.variants import CHESS, get_variant

from ..common.contract import (
    CLAIM_BITS,
    MAX_PLIES,
    ORTHODOX_CASTLING,
    ORTHODOX_ROOKS,
    ROOK_FILE_BITS,
    STACK_DEPTH,
    Phase,
)
from ..common.layouts import PIECE, SQUARE, Castling, MoveLayout, Position
from ..gen.core import GeneratorCore
from ..gen.rom import DEFAULT_LAYOUT, check_layout, read_port, start_port
from ..image.variant import geometry_of
from .attack import LATENCY, AttackUnit
from .chessboard import PerftBoard, has_nightriders, plane_codes

#: a thread asks the shared claim counter for the node it has numbered ``index``
ClaimPort = wiring.Signature({
    "req": Out(1),
    "index": Out(CLAIM_BITS),
    "grant": In(1),              # registered: the claim of the previous clock succeeded
    "next": In(CLAIM_BITS),      # the counter: nodes below it are taken
})

#: one move on the stack
StackEntry = data.StructLayout({"frm": SQUARE, "to": SQUARE, "promote": 1})


def stack_entry(chess960: bool):
    """A stack entry; Chess960 marks castling (a king's move of one file, or none, may be one)."""
    if not chess960:
        return StackEntry
    return data.StructLayout({"frm": SQUARE, "to": SQUARE, "promote": 1, "castle": 1})

#: what unmake needs, per ply
Undo = data.StructLayout({
    "frm": SQUARE, "to": SQUARE,
    "moved": PIECE,      # the piece that left ``frm`` (a pawn for a promotion)
    "captured": PIECE,   # the piece taken (a pawn for en passant), NO_PIECE if none
    "castle": 1, "ep": 1, "promote": 1,
    "last": 1,           # the ply's last stack entry: when it is done, so is the node
    "rights": 4, "ep_valid": 1, "ep_sq": SQUARE,
})


#: legality tags: what a result is about
Tag = data.StructLayout({"part": 2, "leaf": 1, "move": StackEntry})


def tag_layout(entry):
    return Tag if entry is StackEntry else data.StructLayout({"part": 2, "leaf": 1,
                                                              "move": entry})
NORMAL, CASTLE_CHECK, CASTLE_CROSS, CASTLE_TO = range(4)


def _castle_squares(to):
    """(rook from, rook to) of the castling whose king lands on ``to`` (a Value)."""
    rook_from, rook_to = Const(0, SQUARE), Const(0, SQUARE)
    for side in CASTLES:
        for c in side:
            rook_from = Mux(to == c.king_to, c.rook_from, rook_from)
            rook_to = Mux(to == c.king_to, c.rook_to, rook_to)
    return rook_from, rook_to


def _two_apart(a, b):
    """Two files (or ranks) apart, from 3-bit coordinates."""
    d = (a - b)[:4]
    return (d == 2) | (d == 14)


def restore_after_unmake(undo, rights, ep_valid, ep_sq):
    """What unmake puts back besides the board: the castling rights and the en passant square
    the position had (a seam for the tests' fault injection)."""
    return [rights.eq(undo.rights), ep_valid.eq(undo.ep_valid), ep_sq.eq(undo.ep_sq)]


def _rights_after_960(rights, frm, to, castling, rooks):
    """Chess960: as ``_rights_after``, the king's and rooks' squares from the position."""
    keep = rights
    for right in range(4):
        rank = Const(0 if right < 2 else 7, 3)
        king_sq, rook_sq = Cat(castling[right].king_from, rank), Cat(rooks[right], rank)
        touched = (frm == king_sq) | (frm == rook_sq) | (to == king_sq) | (to == rook_sq)
        keep = keep & ~Mux(touched, Const(1 << right, 4), Const(0, 4))
    return keep[:4]


def _rights_after(rights, frm, to):
    """Castling rights once a move from ``frm`` to ``to`` is made (TSCP's castle_mask)."""
    keep = rights
    for side in CASTLES:
        for c in side:
            touched = ((frm == c.king_from) | (frm == c.rook_from)
                       | (to == c.king_from) | (to == c.rook_from))
            keep = keep & ~Mux(touched, Const(c.right, 4), Const(0, 4))  # 4 bits wide
    return keep[:4]


def castling_ports(variant) -> dict:
    """Chess960's per-position castling inputs (``hdl.chip.perft_thread``); none for other
    variants."""
    from posdata.engine.variants import get_variant
    if not get_variant(variant).chess960:
        return {}
    return {"castling": In(Castling, init=ORTHODOX_CASTLING),
            "rooks": In(data.ArrayLayout(ROOK_FILE_BITS, 4), init=ORTHODOX_ROOKS)}


class PerftThread(wiring.Component):
    """Ports
    -----
    wr_en, wr_sq, wr_color, wr_piece : In
        Load the root position's board (while idle), one square per clock.
    root : In(Position)
        Side to move, castling rights, en passant square of the root; latched at start.
    start, depth, bulk, split : In
        Count perft(``depth``) (bulk or plain); nodes at ply ``split`` are claimed.
    abort : In
        Stop a count at once (the board is then not the root any more: reload it).
    claim : Out(ClaimPort)
    walk : Out(read_port(geometry)), starts : Out(start_port(geometry))
        The walk ROM port and start-entry port of this thread's generator core.
    busy : Out
        Counting, or listing moves.
    leaves : Out(64)
        Leaves counted so far (of this thread).
    overflow : Out
        The move stack overflowed during the count (sticky until the next start).
    gen_start, gen_legal : In; moves : Out(stream); gen_cycles : Out(32)
        Listing the root's moves (while idle): ``gen_start`` alone streams its pseudo-legal
        moves in generation order (promotions expanded), as the move generator does; with
        ``gen_legal`` its legal moves, tested by the legality unit (the move word carries from,
        to and the promoted piece; no other flags).
    phase : Out(Phase)
        Observation only: where the clock goes.
    castling : In(Castling), rooks : In(4 x 3) (Chess960 only)
        Per castling right, the king's from- and to-file and the squares that must be empty
        (``hdl.common.contract.castling_word``), and the rook's from-file
        (``castle_rooks_word``): the root's, held through a count.

    Parameters
    ----------
    layout : "dense" or "sparse"
        The walk ROM's layout (``hdl.gen.rom``).
    variant : engine.variants name
        Its pieces' attacker planes (``hdl.chip.chessboard``), its promotion sets (per side, any
        count: a small constant table, and a promotion counts as many leaves as its side has
        pieces), its walk ROM's geometry.
    """

    def __init__(self, layout: str = DEFAULT_LAYOUT, variant=CHESS):
        self._layout = check_layout(layout)
        self._variant = variant = get_variant(variant)
        plane_codes(variant)  # refuse a variant the legality unit cannot test, at once
        g = geometry_of(variant)
        self._promo_bits = g.promo_bits
        self._chess960 = variant.chess960
        # Chess960: the castlings' squares come with the position (orthodox chess keeps its
        # constants and no ports)
        castling = castling_ports(variant)
        self._entry = stack_entry(self._chess960)
        self._tag = tag_layout(self._entry)
        super().__init__({**castling,
            "wr_en": In(1), "wr_sq": In(SQUARE), "wr_color": In(Color), "wr_piece": In(PIECE),
            "root": In(Position),
            "start": In(1), "depth": In(4), "bulk": In(1), "split": In(4), "abort": In(1),
            "claim": Out(ClaimPort),
            "walk": Out(read_port(g)), "starts": Out(start_port(g)),
            "busy": Out(1), "leaves": Out(64), "overflow": Out(1),
            "gen_start": In(1), "gen_legal": In(1), "moves": Out(stream.Signature(MoveLayout)),
            "gen_cycles": Out(32), "phase": Out(Phase),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.board = board = PerftBoard(self._variant)
        m.submodules.core = core = GeneratorCore(self._layout, self._variant)
        m.submodules.attack = attack = AttackUnit(self._tag, has_nightriders(self._variant))
        StackEntry = self._entry  # noqa: N806 (this thread's: Chess960's has a castle bit)
        chess960 = self._chess960
        wiring.connect(m, board.planes, core.planes)
        wiring.connect(m, core.lookup, board.lookup)
        wiring.connect(m, board.attack, attack.planes)
        wiring.connect(m, core.walk, wiring.flipped(self.walk))
        wiring.connect(m, core.starts, wiring.flipped(self.starts))

        # --- memories: the move stack and the per-ply records ----------------------------------
        # An entry used is always read below ``top`` and a push writes at ``top``, so a read
        # never meets a write to its entry: ``no_rw_check`` lets the read return anything on a
        # collision. Yosys honours it only where it merges the register behind a combinational
        # read port itself; a synchronous port keeps read-before-write, which the ECP5's block
        # RAM lacks across its two ports, and Yosys built that in logic (the write delayed a
        # clock, an address compare and a bypass: 40 FF and about 30 LUT4 per stack), the
        # compare on the read address's path (the ULX3S-25F's critical path after "Skip")
        m.submodules.stack = stack = Memory(shape=StackEntry, depth=STACK_DEPTH, init=[],
                                            attrs={"no_rw_check": 1})
        stack_w = stack.write_port()
        stack_r = stack.read_port(domain="comb")
        arriving = Signal(StackEntry)  # the entry read: it arrives the clock after its address
        m.d.sync += arriving.eq(stack_r.data)
        ply_records = {}
        for name, shape in (("end", range(STACK_DEPTH + 1)),
                            ("cursor", range(STACK_DEPTH + 1)), ("promo", self._promo_bits),
                            ("undo", Undo)):
            mem = Memory(shape=shape, depth=MAX_PLIES, init=[])
            m.submodules[f"ply_{name}"] = mem
            ply_records[name] = (mem.write_port(), mem.read_port(domain="comb"))

        # --- the thread's registers ---------------------------------------------------------------
        depth = Signal(4)
        bulk = Signal()
        split = Signal(4)
        ply = Signal(range(MAX_PLIES))
        side = Signal()
        rights = Signal(4)
        ep_valid = Signal()
        ep_sq = Signal(SQUARE)
        top = Signal(range(STACK_DEPTH + 1))   # next free stack entry
        leaves = Signal(64)
        overflow = Signal()
        claims = Signal(CLAIM_BITS)            # nodes numbered so far at the split ply
        busy = Signal()
        gen_mode = Signal()
        listing = Signal()                     # listing the root's legal moves
        m.d.comb += [self.leaves.eq(leaves), self.overflow.eq(overflow), self.busy.eq(busy),
                     self.gen_cycles.eq(core.cycles)]

        for name in ("end", "cursor", "promo", "undo"):
            w, r = ply_records[name]
            m.d.comb += [w.addr.eq(ply), r.addr.eq(ply)]
        end_w, end_r = ply_records["end"]
        cursor_w, cursor_r = ply_records["cursor"]
        promo_w, promo_r = ply_records["promo"]
        undo_w, undo_r = ply_records["undo"]
        # The current ply's records are also kept in registers, written through, so the control
        # reads registers, not distributed RAM behind the ply number; on the way back up a
        # ply ("Return") the parent's are loaded from the RAM.
        cached = {}
        for name, (w, r) in ply_records.items():
            reg = Signal.like(r.data, name=f"{name}_q")
            with m.If(w.en):
                m.d.sync += reg.eq(w.data)
            cached[name] = (reg, r.data)
        cursor_q, end_q = cached["cursor"][0], cached["end"][0]
        promo_q, undo_q = cached["promo"][0], cached["undo"][0]
        # ... and what the control asks of them, worked out as they are written (the next entry,
        # whether promotion pieces remain), so no adder or comparator sits on its paths
        cursor_next = Signal.like(cursor_q)
        promo_more = Signal()
        node_first = Signal(range(STACK_DEPTH + 1))  # where the node at ``ply`` stores moves
        # The cursor is written with the node's first entry in "Drain" (``draining``), else with
        # ``cursor_next``: both incremented before the choice, not the choice then incremented
        # (the ULX3S-25F's critical path, 107.19 MHz: the control's branches through a carry
        # chain)
        draining = Signal()
        with m.If(cursor_w.en):
            m.d.sync += cursor_next.eq(Mux(draining, node_first + 1, cursor_next + 1))
        # the side's promotion pieces: constants (``side`` is the ply's mover whenever a
        # promotion index is written or read back; a side-free compare when both sides promote
        # to as many pieces)
        promotions = self._variant.promotions
        counts = [len(promotions[WHITE]), len(promotions[BLACK])]

        def more_after(index):
            if counts[WHITE] == counts[BLACK]:
                return index != counts[WHITE] - 1
            return Mux(side, index != counts[BLACK] - 1, index != counts[WHITE] - 1)
        with m.If(promo_w.en):
            m.d.sync += promo_more.eq(more_after(promo_w.data))
        cached["cursor_next"] = (cursor_next, cursor_r.data + 1)
        cached["promo_more"] = (promo_more, more_after(promo_r.data))

        remaining = Signal(5)
        m.d.comb += remaining.eq(depth - ply)
        # What the ply's node does, registered: a clock behind ``ply``, which is never read
        # in the clock after it changes (a node is generated, or a move made, first), and off
        # the board's write path.
        frontier = remaining == 1
        counting = Signal()   # count legal moves, store nothing
        store_all = Signal()  # plain: store every pseudo-legal move
        m.d.sync += [counting.eq(frontier & bulk), store_all.eq(frontier & ~bulk)]

        # --- the board's write port, shared by the host, make and unmake -------------------------
        wr_en = Signal()
        wr_sq = Signal(SQUARE)
        wr_color = Signal(Color)
        wr_piece = Signal(PIECE)
        m.d.comb += [board.wr_en.eq(wr_en), board.wr_sq.eq(wr_sq), board.wr_color.eq(wr_color),
                     board.wr_piece.eq(wr_piece)]

        def write(sq, color, piece):
            return [wr_en.eq(1), wr_sq.eq(sq), wr_color.eq(color), wr_piece.eq(piece)]

        empty_sq = lambda sq: write(sq, Color.EMPTY, NO_PIECE)  # noqa: E731

        # --- generator core: the thread's own position, or the root in generate mode -------------
        core_start = Signal()
        m.d.comb += [core.start.eq(core_start), core.expand.eq(gen_mode),
                     core.position.side.eq(side), core.position.castle.eq(rights),
                     core.position.ep_valid.eq(ep_valid), core.position.ep_sq.eq(ep_sq)]
        if chess960:  # held by the host through a count; the core latches it at each start
            m.d.comb += core.castling.eq(self.castling)
        moves = core.moves
        listed = Signal(MoveLayout)  # a legal move of the listing, from the stack
        listed_valid = Signal()
        m.d.comb += [self.moves.payload.eq(Mux(listing, listed, moves.payload)),
                     self.moves.valid.eq(Mux(listing, listed_valid, moves.valid & gen_mode))]

        # --- legality queries ---------------------------------------------------------------------
        query = attack.query.payload.query
        tag = attack.query.payload.tag
        king = board.attack.king
        own_king = king[side]
        inflight = Signal(range(LATENCY + 8))
        issued = attack.query.valid
        answered = attack.result.valid
        m.d.sync += inflight.eq(inflight + issued - answered)

        word = moves.payload
        castle_part = Signal(2)  # which of castling's three questions is being asked
        is_king_move = word.frm == own_king
        m.d.comb += [query.by.eq(~side), tag.move.frm.eq(word.frm), tag.move.to.eq(word.to),
                     tag.move.promote.eq(word.flags.promotion)]

        def castle_rook(sd, king_to):
            """Chess960: (rook from, rook to) of ``sd``'s castling whose king lands on
            ``king_to``: the rook's file from the position, its target the f- or d-file."""
            queen_side = king_to[:3] == 2
            slot = Cat(queen_side, sd)
            rank = king_to[3:]
            return Cat(self.rooks[slot], rank), Cat(Mux(queen_side, Const(3, 3), Const(5, 3)),
                                                    rank)

        # Chess960: the squares the king crosses, one question each (the king may cross none
        # or up to four); ``castle_sq`` is the next to ask
        castle_sq = Signal(SQUARE)
        if chess960:
            m.d.comb += tag.move.castle.eq(word.flags.castle)

        def ask_about_move():
            """Queries for the move on the core's stream (the collector)."""
            with m.If(word.flags.castle):
                if chess960:
                    # on the board before the move: the king's square, each square it
                    # crosses; its destination once king and rook have left and the rook
                    # stands on its target (where the king lands does not matter to a test of
                    # that square: ``put`` is the rook's)
                    rook_from, rook_to = castle_rook(side, word.to)
                    with m.Switch(castle_part):
                        with m.Case(0):
                            m.d.comb += [query.sq.eq(word.frm), tag.part.eq(CASTLE_CHECK)]
                        with m.Case(1):
                            m.d.comb += [query.sq.eq(castle_sq), tag.part.eq(CASTLE_CROSS)]
                        with m.Default():
                            m.d.comb += [query.sq.eq(word.to), tag.part.eq(CASTLE_TO),
                                         query.clr.eq(word.frm), query.clr_valid.eq(1),
                                         query.put.eq(rook_to), query.put_valid.eq(1),
                                         query.epc.eq(rook_from), query.epc_valid.eq(1)]
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
            with m.Else():
                m.d.comb += [query.sq.eq(Mux(is_king_move, word.to, own_king)),
                             tag.part.eq(NORMAL),
                             query.clr.eq(word.frm), query.clr_valid.eq(1),
                             query.put.eq(word.to), query.put_valid.eq(1),
                             query.epc.eq(word.to ^ 8), query.epc_valid.eq(word.flags.ep)]

        # --- results: count, or store the legal moves ------------------------------------------
        result = attack.result.payload
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

        push = Signal()          # a move goes onto the stack (registered, written a clock later)
        push_entry = Signal(StackEntry)
        pushing = Signal()
        pushed = Signal(StackEntry)
        m.d.sync += [pushing.eq(push), pushed.eq(push_entry)]
        m.d.comb += [stack_w.addr.eq(top), stack_w.data.eq(pushed),
                     stack_w.en.eq(pushing & (top != STACK_DEPTH))]
        with m.If(pushing):
            with m.If(top == STACK_DEPTH):
                m.d.sync += overflow.eq(1)
            with m.Else():
                m.d.sync += top.eq(top + 1)
        count_leg = answered & decided & legal  # a legal move came out of the unit
        with m.If(count_leg & result.tag.leaf):
            m.d.sync += leaves.eq(leaves + 1)        # plain: a made leaf whose king is safe
        with m.Elif(count_leg & counting):
            promo_leaves = (counts[WHITE] if counts[WHITE] == counts[BLACK]
                            else Mux(side, counts[BLACK], counts[WHITE]))
            m.d.sync += leaves.eq(leaves + Mux(result.tag.move.promote, promo_leaves, 1))
        with m.Elif(count_leg):
            m.d.comb += [push.eq(1), push_entry.eq(result.tag.move)]

        # --- the move in hand: read off the stack, then made ------------------------------------
        entry = Signal(StackEntry)     # the current ply's move being made
        promo = promo_q
        m.d.comb += [board.probe_a.sq.eq(entry.frm), board.probe_b.sq.eq(entry.to)]
        piece_f = board.probe_a.piece
        piece_t = board.probe_b.piece
        to_occupied = ~board.planes.empty.bit_select(entry.to, 1)
        df = (entry.frm[:3] - entry.to[:3])[:4]
        if chess960:
            is_castle = entry.castle
        else:
            is_castle = (piece_f == KING) & _two_apart(entry.frm[:3], entry.to[:3])
        is_ep = (piece_f == PAWN) & ep_valid & (entry.to == ep_sq) & (df != 0)
        promo_piece = Signal(PIECE)
        with m.Switch(Cat(promo, side) if promotions[WHITE] != promotions[BLACK] else promo):
            for colour in ((WHITE, BLACK) if promotions[WHITE] != promotions[BLACK] else (0,)):
                for i, p in enumerate(promotions[colour]):
                    with m.Case(i | colour << self._promo_bits):
                        m.d.comb += promo_piece.eq(p)
        placed = Mux(entry.promote, promo_piece, piece_f)
        # (Chess960: the king may land on its own rook, which is not taken)
        occupied_to = to_occupied & ~is_castle if chess960 else to_occupied
        captured = Mux(is_ep, PAWN, Mux(occupied_to, piece_t, NO_PIECE))
        undo = undo_q
        if chess960:
            u_rook_from, u_rook_to = castle_rook(side, undo.to)
            # king and rook may stay put or swap: a write that would undo the other piece's
            # is left out (make: the king's from-square if it stays, the rook's if the king
            # lands there; unmake: the king's target if it stayed, the rook's if the king
            # came from there)
            king_stays = undo.frm == undo.to
            keep_from = undo.castle & king_stays
            keep_rook_from = u_rook_from == undo.to
            keep_to = undo.castle & king_stays
            keep_rook_to = u_rook_to == undo.frm
        else:
            u_rook_from, u_rook_to = _castle_squares(undo.to)
            keep_from = keep_rook_from = keep_to = keep_rook_to = None

        def write_unless(keep, stmts):
            """``stmts`` (a write) unless ``keep`` (None: always; orthodox chess)."""
            if keep is None:
                m.d.comb += stmts
            else:
                with m.If(~keep):
                    m.d.comb += stmts
        entry_last = Signal()    # ... is the ply's last

        # --- control ---------------------------------------------------------------------------
        m.d.comb += self.claim.index.eq(claims)
        # the node this thread asks for is already another's: registered (a 32-bit comparison
        # in front of the stack's address would not fit in the clock). ``claims`` stays put
        # while a thread asks, so a clock's delay only makes it wait a clock more.
        # ``asked``: the thread has asked for a clock already, so ``taken`` was worked out from
        # this count's counter and this node's number (not the last count's)
        taken = Signal()
        asked = Signal()
        m.d.sync += [taken.eq(self.claim.next > claims), asked.eq(self.claim.req)]
        # the grant comes from the chip's one counter, which may sit across the chip: registered
        # here, so that its route does not end in the stack's read address (the ECP5-85F's
        # critical path, 64.53 MHz). A grant a clock later finds ``taken`` set as well, so it
        # goes first; the counter has moved on, so asking a clock longer cannot win twice.
        granted = Signal()
        m.d.sync += granted.eq(self.claim.grant)
        phase = Signal(Phase)
        m.d.comb += [self.phase.eq(phase), phase.eq(Phase.IDLE)]

        def on_start():
            return [depth.eq(self.depth), bulk.eq(self.bulk), split.eq(self.split),
                    ply.eq(0), side.eq(self.root.side), rights.eq(self.root.castle),
                    ep_valid.eq(self.root.ep_valid), ep_sq.eq(self.root.ep_sq), top.eq(0),
                    leaves.eq(0), overflow.eq(0), claims.eq(0)]

        def leave_node():
            """The node at ``ply`` is counted: back to its parent, to unmake the move that led
            here (or, at the root, finish)."""
            with m.If(ply == 0):
                m.next = "Finish"
            with m.Else():
                m.d.sync += [ply.eq(ply - 1), side.eq(~side)]
                m.next = "Return"

        # The stack is read every clock (its data is used only in "Read" and "List-Hold"), at
        # the address the control reads when it goes there, worked out from registers alone:
        # no state decoding or branch lies on the path into the block RAM's address (the
        # ULX3S-25F's critical path, 102.08 MHz: the state through Unmake's branches)
        # ``draining``: in "Drain", the node's first entry is next
        skipping = Signal()  # in "Skip": the entry in hand is another thread's (not ``undo``)
        same = listing | promo_more & Mux(skipping, entry.promote, undo.promote)
        m.d.comb += stack_r.addr.eq(Mux(draining, node_first, Mux(same, cursor_q, cursor_next)))

        def read_entry():
            """The stack's entry at the address above arrives in "Read"."""
            m.next = "Read"

        def advance(promote, last):
            """Done with the ply's current move (made and unmade, or another thread's): its next
            promotion piece, or the next entry, or (``last``, known since the entry was read,
            so no comparison sits on this path) out of the node."""
            with m.If(promote & promo_more):
                m.d.comb += [promo_w.en.eq(1), promo_w.data.eq(promo + 1)]
                read_entry()  # the same entry, its next promotion piece (``same``)
            with m.Else():
                m.d.comb += [promo_w.en.eq(1), promo_w.data.eq(0),
                             cursor_w.en.eq(1), cursor_w.data.eq(cursor_next)]
                with m.If(last):
                    leave_node()
                with m.Else():
                    read_entry()  # the next entry

        def made():
            """The move is on the board: the rest of the position; then the child, or (plain,
            last ply) the leaf's test."""
            u = undo
            double_step = (u.moved == PAWN) & _two_apart(u.frm[3:], u.to[3:])
            new_rights = (_rights_after_960(rights, u.frm, u.to, self.castling, self.rooks)
                          if chess960 else _rights_after(rights, u.frm, u.to))
            m.d.sync += [rights.eq(new_rights),
                         ep_valid.eq(double_step), ep_sq.eq((u.frm + u.to)[1:]),
                         side.eq(~side)]
            with m.If(store_all):
                m.next = "Leaf-Test"
            with m.Else():
                m.d.sync += ply.eq(ply + 1)
                m.next = "Settle"

        def ask_before_castling(part, sq):
            """A plain leaf that castles: the king's square (CASTLE_CHECK) or the square it
            crosses (CASTLE_CROSS) on the board before the move. The king already stands on its
            target (and the rook may have left its corner), so the query puts it back (``put``
            its square, ``clr`` its target); the rook's corner never matters, as nothing lies
            beyond it on those lines."""
            m.d.comb += [attack.query.valid.eq(1), query.sq.eq(sq),
                         query.clr.eq(undo.to), query.clr_valid.eq(1),
                         query.put.eq(undo.frm), query.put_valid.eq(1),
                         tag.part.eq(part), tag.leaf.eq(1)]

        def unmade():
            m.d.comb += phase.eq(Phase.UNMAKE)
            advance(undo.promote, undo.last)

        with m.FSM(name="thread"):
            with m.State("Idle"):
                m.d.comb += write(self.wr_sq, self.wr_color, self.wr_piece)
                m.d.comb += wr_en.eq(self.wr_en)
                with m.If(self.start):
                    m.d.sync += on_start()
                    m.d.sync += busy.eq(1)
                    with m.If((self.depth == 0) | (self.split == 0)):
                        # the root is one thread's (perft(0) is one leaf, counted once)
                        m.next = "Claim-Root"
                    with m.Else():
                        m.next = "Generate"
                with m.Elif(self.gen_start & self.gen_legal):
                    # the root generated as an interior node: its legal moves on the stack
                    m.d.sync += on_start()
                    m.d.sync += [depth.eq(2), bulk.eq(1), split.eq(0), listing.eq(1),
                                 busy.eq(1)]
                    m.next = "Generate"
                with m.Elif(self.gen_start):
                    m.d.sync += [gen_mode.eq(1), busy.eq(1), side.eq(self.root.side),
                                 rights.eq(self.root.castle), ep_valid.eq(self.root.ep_valid),
                                 ep_sq.eq(self.root.ep_sq)]
                    m.next = "Gen-Mode"

            # generate mode: the root's moves go out on self.moves
            with m.State("Gen-Mode"):
                m.d.comb += core_start.eq(1)
                m.next = "Gen-Mode-Wait"
            with m.State("Gen-Mode-Wait"):
                m.d.comb += moves.ready.eq(self.moves.ready)
                with m.If(core.done):
                    m.d.sync += [gen_mode.eq(0), busy.eq(0)]
                    m.next = "Idle"

            with m.State("Claim-Root"):
                m.d.comb += [phase.eq(Phase.CLAIM), self.claim.req.eq(1)]
                with m.If(granted):
                    with m.If(depth == 0):
                        m.d.sync += leaves.eq(1)
                        m.next = "Finish"
                    with m.Else():
                        m.next = "Generate"
                with m.Elif(taken & asked):
                    m.next = "Finish"

            # --- generate the node at ``ply`` -----------------------------------------------
            with m.State("Settle"):
                # the move's last write reaches the board's planes (hdl.chip.chessboard)
                m.d.comb += phase.eq(Phase.MAKE)
                m.next = "Generate"
            with m.State("Generate"):
                m.d.comb += [phase.eq(Phase.GENERATE), core_start.eq(1)]
                # this ply's moves start where the parent's ended (the stack top)
                m.d.sync += node_first.eq(top)
                m.d.sync += castle_part.eq(0)
                m.next = "Collect"
            with m.State("Collect"):
                m.d.comb += phase.eq(Phase.GENERATE)
                with m.If(store_all):
                    # plain counting: every pseudo-legal move onto the stack, as it comes
                    m.d.comb += [moves.ready.eq(1), push.eq(moves.valid),
                                 push_entry.frm.eq(word.frm), push_entry.to.eq(word.to),
                                 push_entry.promote.eq(word.flags.promotion)]
                    if chess960:
                        m.d.comb += push_entry.castle.eq(word.flags.castle)
                with m.Else():
                    ask_about_move()
                    last_part = ~word.flags.castle | (castle_part == 2)
                    m.d.comb += [moves.ready.eq(last_part), attack.query.valid.eq(moves.valid)]
                    if not chess960:
                        with m.If(moves.valid & word.flags.castle):
                            m.d.sync += castle_part.eq(Mux(last_part, 0, castle_part + 1))
                    else:
                        with m.If(moves.valid & word.flags.castle):
                            step = Mux(word.to > word.frm, Const(1, SQUARE), Const(63, SQUARE))
                            after_frm = (word.frm + step)[:6]
                            after_sq = (castle_sq + step)[:6]
                            with m.Switch(castle_part):
                                with m.Case(0):  # none crossed: straight to the destination
                                    m.d.sync += [castle_sq.eq(after_frm), castle_part.eq(
                                        Mux((word.frm == word.to) | (after_frm == word.to),
                                            2, 1))]
                                with m.Case(1):
                                    m.d.sync += [castle_sq.eq(after_sq),
                                                 castle_part.eq(Mux(after_sq == word.to, 2, 1))]
                                with m.Default():
                                    m.d.sync += castle_part.eq(0)
                with m.If(core.done):
                    m.d.sync += draining.eq(1)
                    m.next = "Drain"
            with m.State("Drain"):
                m.d.comb += phase.eq(Phase.DRAIN)
                with m.If((inflight == 0) & ~answered & ~push & ~pushing):
                    m.d.sync += draining.eq(0)
                    with m.If(counting):
                        leave_node()
                    with m.Else():
                        m.d.comb += [end_w.en.eq(1), end_w.data.eq(top),
                                     cursor_w.en.eq(1), cursor_w.data.eq(node_first),
                                     promo_w.en.eq(1), promo_w.data.eq(0)]
                        with m.If(listing):
                            m.next = "List-Read"
                        with m.Elif(top == node_first):
                            leave_node()  # no legal move
                        with m.Else():
                            read_entry()  # ``draining``: the node's first

            # --- listing the root's legal moves off the stack --------------------------------
            with m.State("List-Read"):
                # the stack is read at ``cursor_q`` (``listing``)
                with m.If(cursor_q == end_q):
                    m.d.sync += listing.eq(0)
                    m.next = "Done"
                with m.Else():
                    m.next = "List-Hold"
            with m.State("List-Hold"):
                # the block RAM's late output into a register before it leaves the thread
                m.d.sync += entry.eq(arriving)
                m.next = "List-Send"
            with m.State("List-Send"):
                m.d.comb += [listed_valid.eq(1), listed.frm.eq(entry.frm),
                             listed.to.eq(entry.to)]
                with m.If(entry.promote):
                    m.d.comb += [listed.flags.promotion.eq(1), listed.promo.eq(promo_piece)]
                with m.If(self.moves.ready):
                    with m.If(entry.promote & promo_more):
                        m.d.comb += [promo_w.en.eq(1), promo_w.data.eq(promo + 1)]
                    with m.Else():
                        m.d.comb += [promo_w.en.eq(1), promo_w.data.eq(0),
                                     cursor_w.en.eq(1), cursor_w.data.eq(cursor_next)]
                    m.next = "List-Read"

            # --- the ply's next move, read off the stack ------------------------------------
            with m.State("Read"):
                # the stack's block RAM answers late in the clock: the entry goes straight into
                # a register, and nothing decided here depends on it
                m.d.comb += phase.eq(Phase.NEXT)
                m.d.sync += [entry.eq(arriving),
                             entry_last.eq(cursor_next == end_q)]
                with m.If(store_all):
                    m.next = "Make"
                with m.Elif(ply + 1 == split):
                    m.next = "Claim"
                with m.Else():
                    m.next = "Make"
            with m.State("Claim"):
                m.d.comb += [phase.eq(Phase.CLAIM), self.claim.req.eq(1)]
                with m.If(granted):
                    m.d.sync += claims.eq(claims + 1)
                    m.next = "Make"
                with m.Elif(taken & asked):
                    m.d.sync += [claims.eq(claims + 1),  # another thread's: on to the next
                                 skipping.eq(1)]
                    m.next = "Skip"
            with m.State("Skip"):
                # a clock of its own, so that ``taken`` (registered from the counter's compare)
                # does not reach the stack's read address through the control (the ULX3S-25F's
                # critical path at 7b1348b, 97.71 MHz)
                m.d.comb += phase.eq(Phase.CLAIM)
                m.d.sync += skipping.eq(0)
                advance(entry.promote, entry_last)

            # --- make ``entry``: two square writes (en passant three, castling four) ----------
            def make_first():
                """The move's first write (its to-square) and its undo record."""
                m.d.comb += phase.eq(Phase.MAKE)
                m.d.comb += write(entry.to, side, placed)
                m.next = "Make-From"
                m.d.comb += [undo_w.en.eq(1), undo_w.data.frm.eq(entry.frm),
                             undo_w.data.to.eq(entry.to),
                             undo_w.data.moved.eq(piece_f), undo_w.data.captured.eq(captured),
                             undo_w.data.castle.eq(is_castle), undo_w.data.ep.eq(is_ep),
                             undo_w.data.promote.eq(entry.promote),
                             undo_w.data.last.eq(entry_last),
                             undo_w.data.rights.eq(rights), undo_w.data.ep_valid.eq(ep_valid),
                             undo_w.data.ep_sq.eq(ep_sq)]

            with m.State("Make"):
                if not chess960:
                    make_first()
                else:
                    # a plain leaf that castles: first the king's square and the squares it
                    # crosses, asked on the board before the move ("Castle-Ask"), then made
                    castle_asked = Signal()
                    with m.If(store_all & entry.castle & ~castle_asked):
                        m.d.comb += phase.eq(Phase.MAKE)
                        m.d.sync += [castle_asked.eq(1), castle_sq.eq(entry.frm)]
                        m.next = "Castle-Ask"
                    with m.Else():
                        m.d.sync += castle_asked.eq(0)
                        make_first()
            if chess960:
                with m.State("Castle-Ask"):
                    m.d.comb += phase.eq(Phase.MAKE)
                    step = Mux(entry.to > entry.frm, Const(1, SQUARE), Const(63, SQUARE))
                    following = (castle_sq + step)[:6]
                    m.d.comb += [attack.query.valid.eq(1), query.sq.eq(castle_sq),
                                 tag.part.eq(Mux(castle_sq == entry.frm, CASTLE_CHECK,
                                                 CASTLE_CROSS)),
                                 tag.leaf.eq(1)]
                    m.d.sync += castle_sq.eq(following)
                    with m.If((castle_sq == entry.to) | (following == entry.to)):
                        m.next = "Make"
            with m.State("Make-From"):
                m.d.comb += phase.eq(Phase.MAKE)
                write_unless(keep_from, empty_sq(undo.frm))
                if not chess960:
                    with m.If(store_all & undo.castle):
                        ask_before_castling(CASTLE_CHECK, undo.frm)
                with m.If(undo.ep):
                    m.next = "Make-Ep"
                with m.Elif(undo.castle):
                    m.next = "Make-Rook-From"
                with m.Else():
                    made()
            with m.State("Make-Ep"):
                m.d.comb += phase.eq(Phase.MAKE)
                m.d.comb += empty_sq(undo.to ^ 8)
                made()
            with m.State("Make-Rook-From"):
                m.d.comb += phase.eq(Phase.MAKE)
                write_unless(keep_rook_from, empty_sq(u_rook_from))
                if not chess960:
                    with m.If(store_all):
                        ask_before_castling(CASTLE_CROSS, (undo.frm + undo.to)[1:])
                m.next = "Make-Rook-To"
            with m.State("Make-Rook-To"):
                m.d.comb += phase.eq(Phase.MAKE)
                m.d.comb += write(u_rook_to, side, ROOK)
                made()

            # --- unmake the move at ``ply`` (``side`` is its mover again) -------------------
            with m.State("Return"):
                # back at the parent's ply: its records, from the RAM
                m.d.comb += phase.eq(Phase.UNMAKE)
                m.d.sync += [reg.eq(data) for reg, data in cached.values()]
                m.next = "Unmake"
            with m.State("Unmake"):
                # the child's moves leave the stack
                m.d.comb += phase.eq(Phase.UNMAKE)
                m.d.comb += write(undo.frm, side, undo.moved)
                m.d.sync += top.eq(end_q)
                m.next = "Unmake-To"
            with m.State("Unmake-To"):
                m.d.comb += phase.eq(Phase.UNMAKE)
                with m.If(undo.captured.any() & ~undo.ep):
                    m.d.comb += write(undo.to, ~side, undo.captured)
                with m.Else():
                    write_unless(keep_to, empty_sq(undo.to))
                m.d.sync += restore_after_unmake(undo, rights, ep_valid, ep_sq)
                with m.If(undo.ep):
                    m.next = "Unmake-Ep"
                with m.Elif(undo.castle):
                    m.next = "Unmake-Rook-To"
                with m.Else():
                    unmade()
            with m.State("Unmake-Ep"):
                m.d.comb += write(undo.to ^ 8, ~side, PAWN)
                unmade()
            with m.State("Unmake-Rook-To"):
                m.d.comb += phase.eq(Phase.UNMAKE)
                write_unless(keep_rook_to, empty_sq(u_rook_to))
                m.next = "Unmake-Rook-From"
            with m.State("Unmake-Rook-From"):
                m.d.comb += write(u_rook_from, side, ROOK)
                unmade()

            # --- plain counting: a leaf, made, tested and unmade -------------------------------
            # The unit reads the board in the clock after a query, before a write in that clock
            # takes effect: unmake may follow the leaf's question at once.
            with m.State("Leaf-Test"):
                # made: is the mover's king attacked now? (``side`` has flipped)
                m.d.comb += phase.eq(Phase.LEAF)
                m.d.comb += [attack.query.valid.eq(1), query.sq.eq(king[~side]), query.by.eq(side),
                             tag.part.eq(Mux(undo.castle, CASTLE_TO, NORMAL)), tag.leaf.eq(1)]
                m.d.sync += side.eq(~side)
                m.next = "Unmake"

            # the last results may still be in the unit
            with m.State("Finish"):
                m.d.comb += phase.eq(Phase.DRAIN)
                with m.If((inflight == 0) & ~answered):
                    m.next = "Done"
            with m.State("Done"):
                m.d.sync += busy.eq(0)
                m.next = "Idle"

        # ABORT resets the control and the core (the board's planes and memories keep what
        # they hold: reload the root before the next count)
        return ResetInserter({"sync": self.abort})(m)
