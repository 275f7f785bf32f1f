"""The structure terms of a child without making its move (engine/search/leaf_structure.py): pawn
structure, rooks on open files and the kings' pawn shields, per colour, on the board after the
move or, with ``null``, on the board as it stands. ``ChildEval``'s counterpart for the terms that
read whole files and the squares around a king rather than one word per square.

Every term is a count of pawns or rooks weighted by eval.py's constants, so the logic is counts
over a file's or a rank's 8 squares, shared by the terms and gated per file rather than per
square: a file's pawn count gives its file bit, its doubled and its isolated pawns; a file's
rook count serves the open and the half-open files. A count is weighted last, by a table of its
few values (each bit of it one LUT), and the weighted counts are summed by adds. A pipeline of
``LATENCY`` clocks, one move a clock, split so that no clock holds both the move's decode and a
long sum:

* clock 1, the child's pawns and the board's rooks. The move's square writes
  (leaf_eval.move_writes) reach the pawns as logic, not registers: a decode of the from- and
  to-squares and the en passant victim, then per square the placed pawn on the to-square, else
  the board's pawn unless its square is emptied. Over ranks 2-7 only: a pawn never stands on its
  first or last rank (the FEN parser refuses one, a promotion replaces it). Registered from
  them: per side and file its pawns (at most 6: 3 bits), per side and rank its passed pawns (no
  enemy pawn ahead on the file or either neighbour: per file a running OR of the enemy's pawns
  from the far end back, three of those ORed a square), the three rows the shield reads. The
  rooks are counted per side and file on the board as it stands (at most 8 a file: 4 bits),
  registered beside what the move does to them (``RookMoves``): a few bits instead of 128 plane
  bits edited ahead of 16 counts. The kings' squares after the move.
* clock 2, the terms: the file sets (a count not zero); the penalty per file a table of its
  count and whether it is isolated, summed; the passed pawns counted per rank, weighted by
  ``PASSED_MG`` / ``PASSED_EG``, summed; per kind of file (open, half-open) the rooks' counts on
  those files summed, the move's rook changes applied, weighted; the shield a table per file of
  the three around the king (its file selects three bits of each row), summed. Registered: the
  outputs.

The outputs are raw, per colour (WHITE, BLACK): the thread's Score unit blends the passed pawns
by the phase and scales the shield by the enemy's weight (leaf_structure.structure). Castling is
orthodox (engine.rules.defs.CASTLES, as the thread's make/unmake): the to-square names the king's
destination, which names the rook's files.
"""

from amaranth import Array, Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import BLACK, CASTLES, KING, PAWN, ROOK, WHITE
from posdata.engine.rules.fen import MAX_PAWNS, MAX_PIECES
from posdata.engine.search.eval import (
    DOUBLED_PAWN,
    ISOLATED_PAWN,
    PASSED_EG,
    PASSED_MG,
    ROOK_HALF_OPEN_FILE,
    ROOK_OPEN_FILE,
    SHIELD_ADVANCED,
    SHIELD_MISSING,
    SHIELD_OPEN,
)

from ..chip.attack import AttackPlanes
from ..common.layouts import PIECE, SQUARE, MoveLayout

#: clocks from the inputs to the outputs: the child's board, its terms
LATENCY = 2

PAWN_RANKS = range(1, 7)  #: where a pawn can stand (ranks 2-7)
MAX_ROOKS = MAX_PIECES - 1  #: every piece of a side but its king (the FEN parser's bound)

# The outputs' widths: the largest each term reaches on a board the FEN parser accepts (at most
# MAX_PAWNS pawns and MAX_PIECES pieces a side). Unsigned: every term is a sum of non-negative
# weights; the Score unit gives them their signs.
PENALTY = range(DOUBLED_PAWN * (MAX_PAWNS - 1) + ISOLATED_PAWN * MAX_PAWNS + 1)
PASSED = range(MAX_PAWNS * max(max(PASSED_MG), max(PASSED_EG)) + 1)
ROOKS = range(MAX_ROOKS * max(ROOK_OPEN_FILE, ROOK_HALF_OPEN_FILE) + 1)
SHIELD = range(3 * max(SHIELD_ADVANCED, SHIELD_MISSING + SHIELD_OPEN) + 1)

#: a rook's move from or to a file
RookChange = data.StructLayout({"valid": 1, "file": 3})
#: what the move does to the rooks, as the terms need it: the mover's side, its rook leaving a
#: file (a rook's move, castling) and reaching one (a rook's move, a promotion, castling), the
#: other side's rook taken on the to-square's file
RookMoves = data.StructLayout({"side": 1, "leaves": RookChange, "reaches": RookChange,
                               "taken": RookChange})


def ep_victim(to_hot: Value, side: Value) -> Value:
    """The en passant victim's square, one-hot, from the to-square's: a rank behind it for the
    mover (leaf_eval.move_writes: ``to - 8`` for white, ``to + 8`` for black). A module-level
    function so that a test can plant a fault in it."""
    return Mux(side, (to_hot << 8)[:64], to_hot >> 8)


def named_wire(m, value, name: str) -> Signal:
    """``value`` as a signal: a slice of an expression would copy all of it into the netlist,
    one copy a bit."""
    out = Signal(len(Value.cast(value)), name=name)
    m.d.comb += out.eq(value)
    return out


def sum_tree(m, values, name: str) -> Value:
    """The sum of ``values``, a balanced tree of adds."""
    values = list(values)
    level = 0
    while len(values) > 1:
        pairs = []
        for i in range(0, len(values) - 1, 2):
            pairs.append(named_wire(m, values[i] + values[i + 1], f"{name}_{level}_{i // 2}"))
        values = pairs + values[len(values) & ~1:]
        level += 1
    return values[0]


def count_bits(m, bits, name: str) -> Value:
    """How many of ``bits`` (a value) are set: per four bits a count as logic (each of its
    three bits one LUT), then a tree of adds."""
    bits = named_wire(m, bits, f"{name}_bits")
    counts = []
    for i in range(0, len(bits), 4):
        a, b, c, d = (bits[j] if j < len(bits) else Const(0) for j in range(i, i + 4))
        ab, cd = a ^ b, c ^ d
        counts.append(Cat(ab ^ cd, (a & b) ^ (c & d) ^ (ab & cd), a & b & c & d))
    return sum_tree(m, counts, name)


def table_lookup(m, index, values, name: str) -> Signal:
    """``values[index]``: a few inputs, so each bit of it is one LUT."""
    out = Signal(range(max(values) + 1), name=name)
    m.d.comb += out.eq(Array(Const(v, out.shape()) for v in values)[index])
    return out


def narrow(value, most: int) -> Value:
    """``value`` known to be at most ``most``: its low bits only."""
    return value[:max(most, 1).bit_length()]


def pawns_after(m, pawn, black, mv, side, mover, null):
    """Per colour, the pawns after the move ``mv`` (``null``: none) by rank (PAWN_RANKS), 8 bits
    a rank, from the board's ``pawn`` and ``black`` planes: logic, not registered."""
    live = ~null
    # the squares a move empties or fills, one-hot over the pawns' ranks
    squares = [r * 8 + f for r in PAWN_RANKS for f in range(8)]
    frm_hot = named_wire(m, Cat(live & (mv.frm == sq) for sq in squares), "frm_hot")
    to_hot = named_wire(m, Cat(live & (mv.to == sq) for sq in squares), "to_hot")
    # the en passant victim, on the pawns' ranks
    base = squares[0]
    victim = ep_victim(Cat(Const(0, base), to_hot, Const(0, 64 - base - len(squares))), side)
    cleared = named_wire(m, Mux(mv.flags.ep, victim[base:base + len(squares)], 0) | frm_hot,
                    "cleared")  # the to-square aside: it takes the placed piece
    placed = Mux(mv.flags.promotion, mv.promo, mover)
    puts = [named_wire(m, (side == color) & (placed == PAWN), f"put{color}") for color in
            (WHITE, BLACK)]
    sides = (~black, black)
    pawns = ({}, {})
    for r in PAWN_RANKS:
        rows = ([], [])
        for f in range(8):
            sq = r * 8 + f
            i = squares.index(sq)
            left = pawn[sq] & ~cleared[i]
            for color in (WHITE, BLACK):
                # the placed pawn on the to-square, else the board's unless cleared
                rows[color].append(Mux(to_hot[i], puts[color], left & sides[color][sq]))
        for color in (WHITE, BLACK):
            pawns[color][r] = named_wire(m, Cat(rows[color]), f"pawns{color}_{r}")
    return pawns


def shield_values(m, color, near, enemy_files, king) -> list:
    """shield_penalty's three values, one a file around the king (0 for a king off its first
    two ranks): the own pawns one and two ranks ahead (``near``: the rows one, two and three
    ranks up) and whether the enemy has a pawn on the file (``enemy_files``)."""
    file, rank = king[:3], king[3:]
    home = 0 if color == WHITE else 7
    forward = 1 if color == WHITE else -1
    at_home = (rank == home) | (rank == home + forward)
    on_first = rank == home

    def around(bits, name):
        """The three bits of the king's file and its neighbours (0 off the board)."""
        return named_wire(m, Cat(Const(0), bits, Const(0)).bit_select(file, 3), name)

    # the king on its first rank looks at ranks 2 and 3 (relative), on its second 3 and 4
    one = around(Mux(on_first, near[0], near[1]), f"shield{color}_one")
    two = around(Mux(on_first, near[1], near[2]), f"shield{color}_two")
    on_board = around(Const(0xFF, 8), f"shield{color}_files")
    covered = around(enemy_files, f"shield{color}_covered")
    values = []
    for i in range(3):
        values.append(table_lookup(m, Cat(one[i], two[i], covered[i], on_board[i] & at_home), [
            0 if not looked or one_ else SHIELD_ADVANCED if two_ else
            SHIELD_MISSING + (0 if covered_ else SHIELD_OPEN)
            for looked in (0, 1) for covered_ in (0, 1) for two_ in (0, 1)
            for one_ in (0, 1)], f"shield{color}_{i}"))
    return values


class StructureTerms(wiring.Component):
    """Ports
    -----
    planes : In(AttackPlanes)
        The board (the thread's ``attack`` planes and kings' squares).
    side : In(1)
        The side to move: the mover.
    move : In(MoveLayout)
        The move.
    mover, captured : In(PIECE)
        The pieces on its from- and to-squares (make/unmake's probes: NO_PIECE on an empty
        square, as for ``ChildEval``).
    null : In(1)
        1: the terms of the board as it stands (``side``, ``move``, ``mover`` and ``captured``
        ignored); 0: of the board after the move.
    penalty : Out(ArrayLayout(PENALTY, 2))
        Per colour (WHITE, BLACK), ``DOUBLED_PAWN`` and ``ISOLATED_PAWN`` over its pawns.
    passed_mg, passed_eg : Out(ArrayLayout(PASSED, 2))
        Per colour, ``PASSED_MG`` / ``PASSED_EG`` summed over its passed pawns.
    rooks : Out(ArrayLayout(ROOKS, 2))
        Per colour, its rooks' file bonus.
    shield : Out(ArrayLayout(SHIELD, 2))
        Per colour, its king's shield penalty, unscaled (0 off its first two ranks).

    The outputs are ``LATENCY`` clocks after the inputs (leaf_structure.pawn_terms,
    rook_bonus, shield_penalty).
    """

    planes: In(AttackPlanes)
    side: In(1)
    move: In(MoveLayout)
    mover: In(PIECE)
    captured: In(PIECE)
    null: In(1)
    penalty: Out(data.ArrayLayout(PENALTY, 2))
    passed_mg: Out(data.ArrayLayout(PASSED, 2))
    passed_eg: Out(data.ArrayLayout(PASSED, 2))
    rooks: Out(data.ArrayLayout(ROOKS, 2))
    shield: Out(data.ArrayLayout(SHIELD, 2))

    def elaborate(self, platform):
        m = Module()
        pawns = self._pawns_after(m)
        files, passed, near = [], [], []
        for color in (WHITE, BLACK):
            files.append(self.file_counts(m, color, pawns[color]))
            passed.append(self.passed_bits(m, color, pawns[color], pawns[color ^ 1]))
            near.append(self._near_king(m, color, pawns[color]))
        rooks = self._rooks(m)
        kings = self._kings(m)
        for color in (WHITE, BLACK):
            self._terms(m, color, files, passed[color], near[color], rooks, kings[color])
        return m

    # --- clock 1: the child's pawns, its rooks per file, its kings ---------------------------

    def _pawns_after(self, m):
        """Per colour, the pawns after the move by rank (PAWN_RANKS), 8 bits a rank."""
        p = self.planes
        return pawns_after(m, p.pawn, p.black, self.move, self.side, self.mover, self.null)

    @staticmethod
    def file_counts(m, color, own):
        """Registered: per file the pawns of ``own`` on it (at most 6: 3 bits)."""
        counts = []
        for f in range(8):
            count = Signal(3, name=f"pawns{color}_f{f}")
            n = count_bits(m, Cat(own[r][f] for r in PAWN_RANKS), f"pawns{color}_f{f}_n")
            m.d.sync += count.eq(narrow(n, len(PAWN_RANKS)))
            counts.append(count)
        return counts

    @staticmethod
    def passed_bits(m, color, own, enemy):
        """Registered: per relative rank the passed pawns of ``own`` (8 bits). Per file a
        running OR of the enemy's pawns ahead, from the far end back; a pawn is passed when
        neither its file's nor a neighbour's shows one."""
        ranks = list(PAWN_RANKS) if color == WHITE else list(reversed(PAWN_RANKS))
        ahead = Const(0, 8)
        passed = {}
        for r in reversed(ranks):  # the far end first
            rel = r if color == WHITE else 7 - r
            blocked = ahead | (ahead << 1)[:8] | ahead >> 1
            row = Signal(8, name=f"passed{color}_{rel}")
            m.d.sync += row.eq(own[r] & ~blocked)
            passed[rel] = row
            ahead = named_wire(m, ahead | enemy[r], f"ahead{color}_{rel}")
        return passed

    @staticmethod
    def _near_king(m, color, own):
        """Registered: the rows of ``own`` the shield reads, one, two and three ranks up from
        the first (relative)."""
        rows = []
        for k in (1, 2, 3):
            r = k if color == WHITE else 7 - k
            row = Signal(8, name=f"shield_row{color}_{k}")
            m.d.sync += row.eq(own[r])
            rows.append(row)
        return rows

    def _rooks(self, m):
        """Registered: per colour the rooks on each file of the board as it stands (at most
        8 a file: 4 bits), and the move's rook changes (``RookMoves``)."""
        p, mv, side = self.planes, self.move, self.side
        live = ~self.null
        rook_plane = named_wire(m, p.orth & ~p.diag, "rook_plane")  # the queens ride both
        sides = (~p.black, p.black)
        counts = ([], [])
        for f in range(8):
            for color in (WHITE, BLACK):
                count = Signal(4, name=f"rooks{color}_{f}")
                bits = Cat(rook_plane[r * 8 + f] & sides[color][r * 8 + f] for r in range(8))
                m.d.sync += count.eq(count_bits(m, bits, f"rooks{color}_{f}_n"))
                counts[color].append(count)
        castle_from, castle_to = Const(0, 3), Const(0, 3)  # the castling rook's files
        for color in (WHITE, BLACK):
            for c in CASTLES[color]:  # the king's destination names the rook's squares
                hit = mv.to == c.king_to
                castle_from = Mux(hit, c.rook_from & 7, castle_from)
                castle_to = Mux(hit, c.rook_to & 7, castle_to)
        castle = mv.flags.castle
        placed = Mux(mv.flags.promotion, mv.promo, self.mover)
        moves = Signal(RookMoves, name="rook_moves")
        m.d.sync += [
            moves.side.eq(side),
            moves.leaves.valid.eq(live & ((self.mover == ROOK) | castle)),
            moves.leaves.file.eq(Mux(castle, castle_from, mv.frm[:3])),
            moves.reaches.valid.eq(live & ((placed == ROOK) | castle)),
            moves.reaches.file.eq(Mux(castle, castle_to, mv.to[:3])),
            # (a capture's: an empty square's piece is not read)
            moves.taken.valid.eq(live & mv.flags.capture & (self.captured == ROOK)),
            moves.taken.file.eq(mv.to[:3]),
        ]
        return counts, moves

    def _kings(self, m):
        """Registered: the kings' squares after the move."""
        kings = []
        for color in (WHITE, BLACK):
            king = Signal(SQUARE, name=f"king{color}")
            moved = ~self.null & (self.mover == KING) & (self.side == color)
            m.d.sync += king.eq(Mux(moved, self.move.to, self.planes.king[color]))
            kings.append(king)
        return kings

    # --- clock 2: the terms ------------------------------------------------------------------

    def _terms(self, m, color, files, passed, near, rooks, king):
        counts = files[color]
        own_files = named_wire(m, Cat(n.any() for n in counts), f"files{color}")
        enemy_files = named_wire(m, Cat(n.any() for n in files[color ^ 1]), f"enemy_files{color}")

        # doubled and isolated: per file, from its pawns and whether it is isolated (an own
        # file with no own file beside it), a table
        isolated = own_files & ~((own_files << 1)[:8] | own_files >> 1)
        penalty = sum_tree(m, [table_lookup(m, Cat(counts[f], isolated[f]), [
            DOUBLED_PAWN * max(k - 1, 0) + ISOLATED_PAWN * k * iso
            for iso in (0, 1) for k in range(8)], f"penalty{color}_f{f}") for f in range(8)],
            f"penalty{color}")

        # passed: counted per rank, each rank's count weighted by a table
        mg, eg = [], []
        for rel, row in passed.items():
            n = narrow(count_bits(m, row, f"passed{color}_{rel}_n"), MAX_PAWNS)
            mg.append(table_lookup(m, n, [PASSED_MG[rel] * k for k in range(1 << len(n))],
                             f"passed_mg{color}_{rel}"))
            eg.append(table_lookup(m, n, [PASSED_EG[rel] * k for k in range(1 << len(n))],
                                   f"passed_eg{color}_{rel}"))
        passed_mg = sum_tree(m, mg, f"passed_mg{color}")
        passed_eg = sum_tree(m, eg, f"passed_eg{color}")

        # rooks: open files have no pawn, half-open ones the enemy's only. The board's rooks
        # per file (before the move), gated by the child's files and summed, then the move's
        # rook: one of the mover's leaves a file and reaches one, one of the other side's is
        # taken
        rook_counts, moves = rooks[0][color], rooks[1]
        mine = moves.side == color
        open_files = named_wire(m, ~own_files & ~enemy_files, f"open_files{color}")
        half_open = named_wire(m, ~own_files & enemy_files, f"half_open{color}")
        bonus = []
        for kind_files, weight, kind in ((open_files, ROOK_OPEN_FILE, "open"),
                                         (half_open, ROOK_HALF_OPEN_FILE, "half")):
            def on(change, kind_files=kind_files):
                return change.valid & kind_files.bit_select(change.file, 1)
            parent = sum_tree(m, [Mux(kind_files[f], rook_counts[f], 0) for f in range(8)],
                          f"{kind}{color}")
            gone = Mux(mine, on(moves.leaves), on(moves.taken))
            n = narrow(parent + (mine & on(moves.reaches)) - gone, MAX_ROOKS)
            bonus.append(table_lookup(m, n, [weight * k for k in range(1 << len(n))],
                                f"{kind}{color}_bonus"))
        rook_bonus = sum_tree(m, bonus, f"rooks{color}")

        shield = self._shield(m, color, near, enemy_files, king)

        for port, value in ((self.penalty, penalty), (self.passed_mg, passed_mg),
                            (self.passed_eg, passed_eg), (self.rooks, rook_bonus),
                            (self.shield, shield)):
            m.d.sync += port[color].eq(value)

    @staticmethod
    def _shield(m, color, near, enemy_files, king):
        """shield_penalty: the three files' values (``shield_values``) summed."""
        return sum_tree(m, shield_values(m, color, near, enemy_files, king), f"shield{color}")
