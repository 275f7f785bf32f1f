"""The structure terms of a child as stages of the pipelined evaluation (docs/chip_search.md,
"The pipelined thread": T, E1-E3): ``StructureTerms``' logic (hdl/search/structure.py, whose
helpers these reuse) cut so that no clock holds more than a few LUT levels or two short carry
chains.

* board (the inputs' clock): the board's rooks counted per side and file;
* T: the child's pawns (``structure.pawns_after``); the move's rook changes applied to the
  counts per file; the kings' squares after the move;
* E1: per side and file its pawns; per side and relative rank its passed pawns; the shield's
  three values per side;
* E2: per file the doubled and isolated penalty; per rank the passed pawns' weights (the
  endgame weight, and middlegame less endgame: the blend's multiplicand without a subtraction);
  per file the rooks' bonus (a count shifted by the kind of file); the shield's sum;
* E3: the sums.

Each function takes its stage's registered inputs and returns its outputs registered (the next
stage's inputs), except where it says otherwise.
"""

from amaranth import Array, Cat, Const, Mux, Signal, signed
from amaranth.lib import data

from posdata.engine.rules.defs import BLACK, CASTLES, KING, ROOK, WHITE
from posdata.engine.rules.fen import MAX_PAWNS
from posdata.engine.search.eval import (
    DOUBLED_PAWN,
    ISOLATED_PAWN,
    PASSED_EG,
    PASSED_MG,
    ROOK_HALF_OPEN_FILE,
    ROOK_OPEN_FILE,
)

from ..common.layouts import SQUARE
from . import structure
from .structure import (
    PASSED,
    PAWN_RANKS,
    PENALTY,
    ROOKS,
    StructureTerms,
    count_bits,
    named_wire,
    narrow,
    sum_tree,
    table_lookup,
)

COLORS = (WHITE, BLACK)

# the bonus of a file's rooks is its count shifted: the weights must be powers of two
OPEN_SHIFT = ROOK_OPEN_FILE.bit_length() - 1
HALF_SHIFT = ROOK_HALF_OPEN_FILE.bit_length() - 1
assert ROOK_OPEN_FILE == 1 << OPEN_SHIFT and ROOK_HALF_OPEN_FILE == 1 << HALF_SHIFT

#: middlegame less endgame per relative rank: what the passed pawns' blend multiplies
PASSED_DIFF = tuple(mg - eg for mg, eg in zip(PASSED_MG, PASSED_EG))
#: a rank's count as the tables index it (``narrow``ed to MAX_PAWNS' bits)
_MOST = (1 << MAX_PAWNS.bit_length()) - 1
PASSED_DIFF_SHAPE = signed((max(abs(d) for d in PASSED_DIFF) * _MOST).bit_length() + 1)


def _signed_sum(m, values, name):
    """The sum of the signed ``values``, a balanced tree of adds (``structure.sum_tree``'s wires
    are unsigned)."""
    values = list(values)
    level = 0
    while len(values) > 1:
        pairs = []
        for i in range(0, len(values) - 1, 2):
            total = values[i] + values[i + 1]
            wire = Signal(total.shape(), name=f"{name}_{level}_{i // 2}")
            m.d.comb += wire.eq(total)
            pairs.append(wire)
        values = pairs + values[len(values) & ~1:]
        level += 1
    return values[0]


def reg(m, value, shape, name):
    out = Signal(shape, name=name)
    m.d.sync += out.eq(value)
    return out


def board_rooks(m, planes):
    """Board clock, registered: per colour the rooks on each file (at most 8: 4 bits)."""
    rook_plane = named_wire(m, planes.orth & ~planes.diag, "rook_plane")  # the queens ride both
    sides = (~planes.black, planes.black)
    counts = ([], [])
    for f in range(8):
        for color in COLORS:
            bits = Cat(rook_plane[r * 8 + f] & sides[color][r * 8 + f] for r in range(8))
            counts[color].append(reg(m, count_bits(m, bits, f"rooks{color}_{f}_n"), 4,
                                      f"rooks{color}_{f}"))
    return counts


def rooks_after(m, counts, mv, side, mover, captured, null):
    """T, registered: per colour the rooks on each file after the move: the mover's rook (a
    rook's move, a promotion, castling) leaving a file and reaching one, the other side's taken
    on the to-square's file (``StructureTerms``' RookMoves, applied per file)."""
    live = ~null
    castle_from, castle_to = Const(0, 3), Const(0, 3)  # the castling rook's files
    for color in COLORS:
        for c in CASTLES[color]:  # the king's destination names the rook's squares
            hit = mv.to == c.king_to
            castle_from = Mux(hit, c.rook_from & 7, castle_from)
            castle_to = Mux(hit, c.rook_to & 7, castle_to)
    castle = mv.flags.castle
    placed = Mux(mv.flags.promotion, mv.promo, mover)
    leaves = named_wire(m, live & ((mover == ROOK) | castle), "rook_leaves")
    leaves_file = named_wire(m, Mux(castle, castle_from, mv.frm[:3]), "rook_leaves_file")
    reaches = named_wire(m, live & ((placed == ROOK) | castle), "rook_reaches")
    reaches_file = named_wire(m, Mux(castle, castle_to, mv.to[:3]), "rook_reaches_file")
    # (a capture's: an empty square's piece is not read)
    taken = named_wire(m, live & mv.flags.capture & (captured == ROOK), "rook_taken")
    after = ([], [])
    for color in COLORS:
        mine = side == color
        for f in range(8):
            up = mine & reaches & (reaches_file == f)
            down = Mux(mine, leaves & (leaves_file == f), taken & (mv.to[:3] == f))
            after[color].append(reg(m, counts[color][f] + up - down, 4, f"rooks_after{color}_{f}"))
    return after


def kings_after(m, kings, mv, side, mover, null, name):
    """T, registered: the kings' squares after the move (``kings`` before it)."""
    out = []
    for color in COLORS:
        moved = ~null & (mover == KING) & (side == color)
        out.append(reg(m, Mux(moved, mv.to, kings[color]), SQUARE, f"{name}_after{color}"))
    return out


def child_pawns(m, pawn, black, mv, side, mover, null):
    """T, registered: per colour the child's pawns by rank (PAWN_RANKS), 8 bits a rank."""
    pawns = structure.pawns_after(m, pawn, black, mv, side, mover, null)
    return tuple({r: reg(m, row, 8, f"child_pawns{color}_{r}") for r, row in pawns[color].items()}
                 for color in COLORS)


def pawn_features(m, pawns, kings):
    """E1, registered: per colour its pawns per file, its passed pawns per relative rank, its
    files, its shield's three values."""
    counts = [StructureTerms.file_counts(m, color, pawns[color]) for color in COLORS]
    passed = [StructureTerms.passed_bits(m, color, pawns[color], pawns[color ^ 1])
              for color in COLORS]
    files = [named_wire(m, Cat(Cat(pawns[color][r][f] for r in PAWN_RANKS).any() for f in range(8)),
                   f"files{color}") for color in COLORS]
    shield = []
    for color in COLORS:
        near = [pawns[color][k if color == WHITE else 7 - k] for k in (1, 2, 3)]
        values = structure.shield_values(m, color, near, files[color ^ 1], kings[color])
        shield.append([reg(m, v, len(v), f"shield{color}_v{i}") for i, v in enumerate(values)])
    files = [reg(m, f, 8, f"files_r{color}") for color, f in zip(COLORS, files)]
    return counts, passed, files, shield


def term_tables(m, counts, passed, files, rooks):
    """E2, registered: per colour the penalty per file, the passed pawns' endgame weight and
    middlegame-less-endgame weight per rank, the rooks' bonus per file."""
    penalty, passed_eg, passed_diff, bonus = [], [], [], []
    for color in COLORS:
        own, enemy = files[color], files[color ^ 1]
        isolated = own & ~((own << 1)[:8] | own >> 1)
        penalty.append([reg(m, table_lookup(m, Cat(counts[color][f], isolated[f]), [
            DOUBLED_PAWN * max(k - 1, 0) + ISOLATED_PAWN * k * iso
            for iso in (0, 1) for k in range(8)], f"penalty{color}_f{f}"), 8,
            f"penalty_r{color}_{f}") for f in range(8)])
        eg, diff = [], []
        for rel, row in passed[color].items():
            n = narrow(count_bits(m, row, f"passed{color}_{rel}_n"), MAX_PAWNS)
            eg.append(reg(m, table_lookup(m, n, [PASSED_EG[rel] * k for k in range(1 << len(n))],
                                     f"passed_eg{color}_{rel}"), 11, f"passed_eg_r{color}_{rel}"))
            table = Array(Const(PASSED_DIFF[rel] * k, PASSED_DIFF_SHAPE)
                          for k in range(1 << len(n)))
            diff.append(reg(m, table[n], PASSED_DIFF_SHAPE, f"passed_diff_r{color}_{rel}"))
        passed_eg.append(eg)
        passed_diff.append(diff)
        open_files = ~own & ~enemy
        half_open = ~own & enemy
        bonus.append([reg(m, Mux(open_files[f], rooks[color][f] << OPEN_SHIFT, 0)
                           | Mux(half_open[f], rooks[color][f] << HALF_SHIFT, 0), 8,
                           f"rook_bonus{color}_{f}") for f in range(8)])
    return penalty, passed_eg, passed_diff, bonus


#: the terms' sums per colour, E3's outputs
TermSums = data.StructLayout({"penalty": PENALTY, "passed_eg": PASSED, "rooks": ROOKS})


def term_sums(m, penalty, passed_eg, passed_diff, bonus):
    """E3: per colour the penalty, the passed pawns' endgame weight and the rooks' bonus,
    registered (``TermSums``); the passed pawns' middlegame-less-endgame weight, not
    registered (the multiplier's input registers take it)."""
    sums, diffs = [], []
    for color in COLORS:
        out = Signal(TermSums, name=f"term_sums{color}")
        m.d.sync += [out.penalty.eq(sum_tree(m, penalty[color], f"penalty_sum{color}")),
                     out.passed_eg.eq(sum_tree(m, passed_eg[color], f"passed_eg_sum{color}")),
                     out.rooks.eq(sum_tree(m, bonus[color], f"rooks_sum{color}"))]
        sums.append(out)
        diffs.append(_signed_sum(m, passed_diff[color], f"passed_diff_sum{color}"))
    return sums, diffs
