"""The structure terms of a child without making its move (engine/leaf_structure.py): pawn
structure, rooks on open files and the kings' pawn shields, per colour, on the board after the
move, or on the board as it stands (``null``). ``ChildEval``'s counterpart for the terms that
read files and the squares around a king rather than one word per square.

A pipeline of ``LATENCY`` clocks, one move a clock; each clock's logic is kept to a few LUT
levels and no wide sums:

* clock 1, the child's board: the move's square writes (leaf_eval.move_writes) applied to the
  planes: the from-square, the to-square and an en passant victim emptied, the placed piece on
  the to-square, castling's rook moved; the kings' squares after it. Each square of the pawn and
  rook planes is a small function of its plane bits and the decoded move, so this is a decode
  and one or two LUTs a square; registered: both sides' pawns (ranks 2-7 only: a pawn never
  stands on its first or last rank, the FEN parser refuses one and a promotion replaces it)
  and rooks (the ``orth`` plane less the queens, which are ``diag`` too), and the two kings.
* clock 2, the terms: every term is a small count. Per file (an 8-bit set per side: the OR of
  its ranks) open, half-open and isolated files; per square a pawn beyond the first on its
  file (an own pawn behind it), a passed pawn (no enemy pawn ahead on its file or either
  neighbour: per file a running OR of the enemy's pawns ahead, three of them ORed a square),
  an isolated pawn, a rook on an open or half-open file. Each count is a tree of full adders
  (``_weighted_sum``), weighted by engine's constants last (a count is a few bits; the
  constants' bits would multiply the tree). The shield reads six own pawn squares and three
  enemy file bits beside the king, selected by its square. Registered: the outputs.

The outputs are the raw terms, per colour (WHITE, BLACK): the thread's Score unit blends the
passed pawns by the phase and scales the shield by the enemy's weight (leaf_structure.structure).
What stands on the to-square is read from the planes (it leaves them whatever it is), so unlike
``ChildEval`` no ``captured`` piece is needed. Castling is orthodox (engine.defs.CASTLES, as the
thread's make/unmake): the to-square names the king's destination, which names the rook's move.
"""

from collections import defaultdict, deque

from amaranth import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.defs import BLACK, CASTLES, KING, PAWN, ROOK, WHITE
from posdata.engine.eval import (
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
from posdata.engine.fen import MAX_PAWNS, MAX_PIECES

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


def ep_victim(to_hot: Value, side: Value) -> Value:
    """The en passant victim's square, one-hot, from the to-square's: a rank behind it for the
    mover (leaf_eval.move_writes: ``to - 8`` for white, ``to + 8`` for black). A module-level
    function so that a test can plant a fault in it."""
    return Mux(side, (to_hot << 8)[:64], to_hot >> 8)


def _wire(m, value, name: str) -> Signal:
    """``value`` as a signal: a slice of an expression would copy all of it into the netlist,
    one copy a bit."""
    value = Value.cast(value)
    if isinstance(value, Signal):
        return value
    out = Signal(len(value), name=name)
    m.d.comb += out.eq(value)
    return out


def _weighted_sum(m, terms, name: str) -> Value:
    """``sum(weight * value)`` over ``terms``, (value, weight) pairs with constant weights >= 0.
    Every set bit of a weight puts the value's bits into the columns it shifts them to; full
    adders written as logic (three bits to a sum and a carry: LUTs, which the synthesis packs)
    reduce each column to two bits; one adder (a carry chain) ends the sum. Each adder's bits
    are signals: an expression reused by the next adders would be copied into each of them."""
    columns = defaultdict(deque)
    for i, (value, weight) in enumerate(terms):
        value = _wire(m, value, f"{name}_t{i}")
        for k in range(len(value)):
            for s in range(weight.bit_length()):
                if weight >> s & 1:
                    columns[k + s].append(value[k])
    rows = ([], [])
    w = n = 0
    while w <= max(columns, default=-1):
        col = columns[w]
        while len(col) > 2:
            a, b, c = col.popleft(), col.popleft(), col.popleft()
            total, carry = Signal(name=f"{name}_s{n}"), Signal(name=f"{name}_c{n}")
            m.d.comb += [total.eq(a ^ b ^ c), carry.eq((a & b) | (a & c) | (b & c))]
            col.append(total)
            columns[w + 1].append(carry)
            n += 1
        rows[0].append(col[0] if col else Const(0))
        rows[1].append(col[1] if len(col) > 1 else Const(0))
        w += 1
    if not rows[0]:
        return Const(0)
    out = Signal(len(rows[0]) + 1, name=name)
    if all(isinstance(b, Const) for b in rows[1]):
        m.d.comb += out.eq(Cat(*rows[0]))
    else:
        m.d.comb += out.eq(Cat(*rows[0]) + Cat(*rows[1]))
    return out


def _count(m, bits, name: str) -> Value:
    """How many of ``bits`` (a value) are set."""
    bits = _wire(m, bits, f"{name}_bits")
    return _weighted_sum(m, [(b, 1) for b in bits], name)


class StructureTerms(wiring.Component):
    """Ports
    -----
    planes : In(AttackPlanes)
        The board (the thread's ``attack`` planes and kings' squares).
    side : In(1)
        The side to move: the mover.
    move : In(MoveLayout)
        The move; ``mover`` : In(PIECE) the piece on its from-square (make/unmake's probe).
    null : In(1)
        1: the terms of the board as it stands (``move`` and ``mover`` ignored); 0: of the
        board after the move.
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
    null: In(1)
    penalty: Out(data.ArrayLayout(PENALTY, 2))
    passed_mg: Out(data.ArrayLayout(PASSED, 2))
    passed_eg: Out(data.ArrayLayout(PASSED, 2))
    rooks: Out(data.ArrayLayout(ROOKS, 2))
    shield: Out(data.ArrayLayout(SHIELD, 2))

    def elaborate(self, platform):
        m = Module()
        pawns, rooks, kings = self._child(m)
        for color in (WHITE, BLACK):
            self._terms(m, color, pawns, rooks, kings[color])
        return m

    # --- clock 1: the child's board ----------------------------------------------------------

    def _child(self, m):
        """The pawn and rook planes of both sides and the kings' squares after the move,
        registered: pawns as [rank][file] bits of PAWN_RANKS, rooks as 64-bit planes."""
        p, mv, side = self.planes, self.move, self.side
        live = ~self.null
        frm_hot = _wire(m, Cat(live & (mv.frm == sq) for sq in range(64)), "frm_hot")
        to_hot = _wire(m, Cat(live & (mv.to == sq) for sq in range(64)), "to_hot")
        placed = _wire(m, Mux(mv.flags.promotion, mv.promo, self.mover), "placed")
        victim = _wire(m, Mux(mv.flags.ep, ep_victim(to_hot, side), 0), "victim")
        # castling: the king's destination names the rook's squares
        rook_from = [Const(0)] * 64
        rook_to = [Const(0)] * 64
        for color in (WHITE, BLACK):
            for c in CASTLES[color]:
                on = live & mv.flags.castle & (mv.to == c.king_to)
                rook_from[c.rook_from] = rook_from[c.rook_from] | on
                rook_to[c.rook_to] = rook_to[c.rook_to] | on
        rook_to = _wire(m, Cat(*rook_to), "rook_to")
        gone = _wire(m, frm_hot | to_hot | victim | Cat(*rook_from), "gone")
        rook_plane = _wire(m, p.orth & ~p.diag, "rook_plane")  # the queens ride both
        pawns, rooks = [], []
        for color in (WHITE, BLACK):
            mine = side == color
            own = p.black if color == BLACK else ~p.black
            put_pawn = Mux(mine & (placed == PAWN), to_hot, 0)
            put_rook = Mux(mine & (placed == ROOK), to_hot, 0) | Mux(mine, rook_to, 0)
            pawn_next = p.pawn & own & ~gone | put_pawn
            rook_next = rook_plane & own & ~gone | put_rook
            pawn_r = Signal(len(PAWN_RANKS) * 8, name=f"pawns{color}")
            rook_r = Signal(64, name=f"rooks{color}")
            m.d.sync += [pawn_r.eq(pawn_next[8 * PAWN_RANKS.start:8 * PAWN_RANKS.stop]),
                         rook_r.eq(rook_next)]
            base = 8 * PAWN_RANKS.start
            pawns.append({r: pawn_r[8 * r - base:8 * r - base + 8] for r in PAWN_RANKS})
            rooks.append(rook_r)
        kings = []
        for color in (WHITE, BLACK):
            king_r = Signal(SQUARE, name=f"king{color}")
            moved = live & (self.mover == KING) & (side == color)
            m.d.sync += king_r.eq(Mux(moved, mv.to, p.king[color]))
            kings.append(king_r)
        return pawns, rooks, kings

    # --- clock 2: the terms ------------------------------------------------------------------

    def _terms(self, m, color, pawns, rooks, king):
        own, enemy = pawns[color], pawns[color ^ 1]
        forward = 1 if color == WHITE else -1
        ranks = list(PAWN_RANKS) if color == WHITE else list(reversed(PAWN_RANKS))  # back first

        def files_of(grid):
            out = grid[PAWN_RANKS.start]
            for r in PAWN_RANKS[1:]:
                out = out | grid[r]
            return out

        own_files = _wire(m, files_of(own), f"files{color}")
        enemy_files = _wire(m, files_of(enemy), f"enemy_files{color}")

        # doubled: a pawn with an own pawn behind it on its file is one beyond the first
        behind = Const(0, 8)
        doubled = []
        for r in ranks:
            doubled.append(own[r] & behind)
            behind = behind | own[r]
        # isolated: an own file with no own file beside it
        isolated = _wire(m, own_files & ~((own_files << 1)[:8] | own_files >> 1),
                         f"isolated_files{color}")
        isolated_pawns = Cat(*(own[r] & isolated for r in PAWN_RANKS))
        penalty = _weighted_sum(m, [
            (_count(m, Cat(*doubled), f"doubled{color}"), DOUBLED_PAWN),
            (_count(m, isolated_pawns, f"isolated{color}"), ISOLATED_PAWN)], f"penalty{color}")

        # passed: per file a running OR of the enemy's pawns ahead, from the far end back;
        # a pawn is passed when neither its file's nor a neighbour's shows one
        ahead = Const(0, 8)
        per_rank = {}
        for r in reversed(ranks):
            rel = r if color == WHITE else 7 - r
            blocked = ahead | (ahead << 1)[:8] | ahead >> 1
            passed = _wire(m, own[r] & ~blocked, f"passed{color}_{rel}")
            per_rank[rel] = _count(m, passed, f"passed{color}_{rel}_n")
            ahead = _wire(m, ahead | enemy[r], f"ahead{color}_{rel}")
        passed_mg = _weighted_sum(m, [(n, PASSED_MG[rel]) for rel, n in per_rank.items()],
                                  f"passed_mg{color}")
        passed_eg = _weighted_sum(m, [(n, PASSED_EG[rel]) for rel, n in per_rank.items()],
                                  f"passed_eg{color}")

        # rooks: open files have no pawn, half-open ones the enemy's only
        open_files = _wire(m, ~own_files & ~enemy_files, f"open_files{color}")
        half_open = _wire(m, ~own_files & enemy_files, f"half_open{color}")
        rook_bits = rooks[color]
        on_open = Cat(*(rook_bits[sq] & open_files[sq & 7] for sq in range(64)))
        on_half = Cat(*(rook_bits[sq] & half_open[sq & 7] for sq in range(64)))
        rook_bonus = _weighted_sum(m, [(_count(m, on_open, f"open{color}"), ROOK_OPEN_FILE),
                                       (_count(m, on_half, f"half{color}"), ROOK_HALF_OPEN_FILE)],
                                   f"rooks{color}")

        shield = self._shield(m, color, own, enemy_files, king, forward)

        for port, value in ((self.penalty, penalty), (self.passed_mg, passed_mg),
                            (self.passed_eg, passed_eg), (self.rooks, rook_bonus),
                            (self.shield, shield)):
            m.d.sync += port[color].eq(value)

    @staticmethod
    def _shield(m, color, own, enemy_files, king, forward):
        """shield_penalty: for a king on its first two ranks, per file of the three around it,
        the own pawns one and two ranks ahead and whether the enemy has a pawn on the file."""
        file, rank = king[:3], king[3:]
        home = 0 if color == WHITE else 7
        at_home = (rank == home) | (rank == home + forward)
        on_first = rank == home

        def around(bits):
            """The three bits of the king's file and its neighbours (0 off the board)."""
            return Cat(Const(0), bits, Const(0)).bit_select(file, 3)

        # the king on its first rank looks at ranks 2 and 3 (relative), on its second 3 and 4
        one = _wire(m, around(Mux(on_first, own[home + forward], own[home + 2 * forward])),
                    f"shield{color}_one")
        two = _wire(m, around(Mux(on_first, own[home + 2 * forward], own[home + 3 * forward])),
                    f"shield{color}_two")
        on_board = _wire(m, around(Const(0xFF, 8)), f"shield{color}_files")
        covered = _wire(m, around(enemy_files), f"shield{color}_covered")
        terms = []
        for i in range(3):
            open_ = at_home & on_board[i] & ~one[i]
            terms += [(open_ & two[i], SHIELD_ADVANCED), (open_ & ~two[i], SHIELD_MISSING),
                      (open_ & ~two[i] & ~covered[i], SHIELD_OPEN)]
        return _weighted_sum(m, terms, f"shield{color}")
