"""The static evaluation of the search: centipawns from the side to move's point of view.

Terms (written for this project; the numbers are round, hand-picked values):

* material: pawn 100, knight 320, bishop 330, rook 500, queen 900, plus a bishop pair bonus
  (other variants' pieces: their values in ``engine.rules.variants``);
* piece-square tables built at import by small functions of centre distance and rank, so each
  table's intent reads as a formula instead of 64 numbers;
* pawn structure: doubled and isolated pawns cost, passed pawns earn by how far they have
  advanced, more so as the pieces come off;
* rooks on open and half-open files;
* king safety: the pawn shield in front of the king and open files next to it, scaled by the
  enemy's remaining pieces (no attackers, no danger);
* the king's table is blended between a middlegame one (stay home, behind pawns) and an endgame
  one (come to the centre) by the game phase, the non-pawn material left on the board.

Squares are white's view (a1 = 0); a black piece on ``sq`` reads its tables at ``sq ^ 56``.
"""

from ..rules.defs import BISHOP, BLACK, EMPTY, KING, KNIGHT, PAWN, QUEEN, ROOK, WHITE
from ..rules.pieces import AttackKind, parse_piece

PIECE_VALUE = (0, 100, 320, 330, 500, 900, 0)  #: by piece; the king is never traded
BISHOP_PAIR = 30
DOUBLED_PAWN = 12  #: per pawn beyond the first on a file
ISOLATED_PAWN = 14  #: no friendly pawn on either neighbouring file
#: by relative rank (0 = own back rank): middlegame and endgame bonuses of a passed pawn
PASSED_MG = (0, 5, 8, 14, 24, 40, 60, 0)
PASSED_EG = (0, 10, 16, 28, 48, 80, 120, 0)
ROOK_OPEN_FILE = 16
ROOK_HALF_OPEN_FILE = 8
SHIELD_ADVANCED = 10  #: the shield pawn stands two squares ahead instead of one
SHIELD_MISSING = 25  #: no friendly pawn ahead of the king on this file
SHIELD_OPEN = 12  #: ... and no enemy pawn either: an open line at the king
#: the non-pawn material of one side at the start; king danger scales with the enemy's share
PIECES_START = 2 * PIECE_VALUE[KNIGHT] + 2 * PIECE_VALUE[BISHOP] + 2 * PIECE_VALUE[ROOK] \
    + PIECE_VALUE[QUEEN]
PHASE_MAX = 2 * PIECES_START  #: both sides' non-pawn material: pure middlegame


def _centre_distance(sq: int) -> int:
    """0 for d4/e4/d5/e5, 1 for the ring around them, ... 3 for the edge."""
    f, r = sq & 7, sq >> 3
    return max(abs(2 * f - 7), abs(2 * r - 7)) // 2


def _table(fn) -> tuple[int, ...]:
    return tuple(fn(sq & 7, sq >> 3, _centre_distance(sq)) for sq in range(64))


def _pawn(f, r, cd):
    # Advance a little; the centre pawns more, since they take the squares pieces want.
    centre = (0, 0, 4, 10, 10, 4, 0, 0)[f]
    return (0, 0, 2, 5, 10, 16, 24, 0)[r] + (centre if 2 <= r <= 4 else 0) \
        - (12 if r == 1 and f in (3, 4) else 0)  # unmoved d/e pawns block the bishops


def _knight(f, r, cd):
    return (16, 10, -4, -24)[cd] - (6 if r == 0 else 0)


def _bishop(f, r, cd):
    long_diagonal = 6 if f == r or f + r == 7 else 0
    return (10, 8, 2, -8)[cd] + long_diagonal - (8 if r == 0 else 0)


def _rook(f, r, cd):
    return (16 if r == 6 else 0) + (4 if f in (3, 4) else 0)


def _queen(f, r, cd):
    return (6, 4, 0, -6)[cd]


def _king_middlegame(f, r, cd):
    # At home behind the pawns, best after castling; every step forward is exposure.
    if r == 0:
        return (10, 20, 12, 0, 0, 4, 24, 12)[f]
    if r == 1:
        return (0, 0, -8, -16, -16, -8, 0, 0)[f]
    return -30 - 10 * (r - 2)


def _king_endgame(f, r, cd):
    return (30, 18, 0, -24)[cd]


PST = (None, _table(_pawn), _table(_knight), _table(_bishop), _table(_rook), _table(_queen))
KING_MG = _table(_king_middlegame)
KING_EG = _table(_king_endgame)


def _signed_pst(values, tables) -> list[list[int]]:
    """SIGNED_PST[color * 8 + piece][sq]: material + table, read from the piece's side, negative
    for black, so one sum gives white's lead."""
    out = [[0] * 64 for _ in range(2 * 8)]
    for c, sign in ((WHITE, 1), (BLACK, -1)):
        for p, table in enumerate(tables):
            if table is None:
                continue
            for sq in range(64):
                own = sq if c == WHITE else sq ^ 56
                out[c * 8 + p][sq] = sign * (values[p] + table[own])
    return out


SIGNED_PST = _signed_pst(PIECE_VALUE, PST)


class VariantEval:
    """A variant's material and tables: piece values from ``engine.rules.variants``; a new piece
    reads the table of the orthodox piece it most resembles (a rider on ranks and files and
    diagonals the queen's, on ranks and files alone the rook's, ...; leapers and nightriders
    the knight's, which rewards the centre). The phase and the king danger scale with the
    variant's own starting material."""

    def __init__(self, variant):
        values = [0] * 8
        tables = [None] * 8
        for p in variant.pieces:
            values[p.code] = p.value
            if p.code == KING:
                continue
            if p.code == PAWN:
                tables[p.code] = PST[PAWN]
                continue
            kinds = parse_piece(p.moves).attack_kinds
            orth = bool(kinds & AttackKind.ORTHOGONAL_RIDER)
            diag = bool(kinds & AttackKind.DIAGONAL_RIDER)
            tables[p.code] = PST[QUEEN if orth and diag else ROOK if orth else
                                 BISHOP if diag else KNIGHT]
        self.value = tuple(values)
        self.signed_pst = _signed_pst(values, tables)
        start = max(sum(values[code] * n for code, n in variant.start_army(c).items()
                        if code != PAWN) for c in (WHITE, BLACK))
        self.pieces_start = start
        self.phase_max = 2 * start


_EVALS = {}


def _variant_eval(variant):
    e = _EVALS.get(variant.name)
    if e is None:
        e = _EVALS[variant.name] = VariantEval(variant)
    return e


#: by the bit mask of files holding a side's pawns: how many files, and which have no pawn
#: of the side on either neighbouring file
def _isolated(mask: int) -> tuple[int, ...]:
    def has(f):
        return 0 <= f < 8 and mask >> f & 1
    return tuple(f for f in range(8) if has(f) and not has(f - 1) and not has(f + 1))


FILE_COUNT = [m.bit_count() for m in range(256)]
ISOLATED_FILES = [_isolated(m) for m in range(256)]


def evaluate(board) -> int:
    color, piece = board.color, board.piece
    total = 0  # white's lead; returned from the side to move's view
    pieces = [0, 0]  # non-pawn material, per side: the phase and the king danger
    bishops = [0, 0]
    white_pawns, black_pawns, rooks = [], [], []
    files = ([0] * 8, [0] * 8)  # pawns per file, per side
    # Per file, the rank of the rearmost pawn of each side as seen from the enemy: white's
    # lowest and black's highest. A pawn is passed when no enemy pawn on its file or the
    # neighbouring ones stands beyond its rank in its direction of travel.
    white_low = [8] * 8
    black_high = [-1] * 8
    masks = [0, 0]  # per side, the files that hold its pawns, as bits
    v = _variant_eval(board.variant)
    pst = v.signed_pst
    value = v.value
    phase_max, pieces_start = v.phase_max, v.pieces_start
    for sq, c in enumerate(color):
        if c == EMPTY:
            continue
        p = piece[sq]
        total += pst[c * 8 + p][sq]
        if p == PAWN:
            f = sq & 7
            r = sq >> 3
            if c == WHITE:
                white_pawns.append(sq)
                files[0][f] += 1
                masks[0] |= 1 << f
                white_low[f] = min(white_low[f], r)
            else:
                black_pawns.append(sq)
                files[1][f] += 1
                masks[1] |= 1 << f
                black_high[f] = max(black_high[f], r)
        elif p != KING:
            pieces[c] += value[p]
            if p == BISHOP:
                bishops[c] += 1
            elif p == ROOK:
                rooks.append(sq)

    phase = min(pieces[WHITE] + pieces[BLACK], phase_max)
    endgame = phase_max - phase
    # The highest black / lowest white pawn rank over each file and its neighbours.
    black_block = list(map(max, [-1] + black_high[:7], black_high, black_high[1:] + [-1]))
    white_block = list(map(min, [8] + white_low[:7], white_low, white_low[1:] + [8]))
    for c, sign, pawns in ((WHITE, 1, white_pawns), (BLACK, -1, black_pawns)):
        x = c ^ 1
        s = BISHOP_PAIR if bishops[c] >= 2 else 0
        own, their = files[c], files[x]
        if pawns:
            mask = masks[c]
            s -= DOUBLED_PAWN * (len(pawns) - FILE_COUNT[mask])
            for f in ISOLATED_FILES[mask]:
                s -= ISOLATED_PAWN * own[f]
            passed_mg = passed_eg = 0
            for sq in pawns:
                f, r = sq & 7, sq >> 3
                if c == WHITE:
                    if black_block[f] > r:
                        continue
                    rel = r
                else:
                    if white_block[f] < r:
                        continue
                    rel = 7 - r
                passed_mg += PASSED_MG[rel]
                passed_eg += PASSED_EG[rel]
            if passed_mg:
                s += (passed_mg * phase + passed_eg * endgame) // phase_max
        for sq in rooks:
            if color[sq] == c:
                f = sq & 7
                if not own[f]:
                    s += ROOK_OPEN_FILE if not their[f] else ROOK_HALF_OPEN_FILE
        # The king: table blended by phase, shield weighted by the enemy's attacking material.
        k = board.king[c]
        ksq = k if c == WHITE else k ^ 56
        s += (KING_MG[ksq] * phase + KING_EG[ksq] * endgame) // phase_max
        if pieces[x]:
            s -= _shield_penalty(k, c, color, piece, their) * pieces[x] // pieces_start
        total += sign * s

    return total if board.side == WHITE else -total


def _shield_penalty(k: int, c: int, color, piece, their_files) -> int:
    """What the three files around the king lack in pawn cover. Only for a king on its first
    two ranks: a king further up is an endgame king or already lost to the tables."""
    rel = k >> 3 if c == WHITE else 7 - (k >> 3)
    if rel > 1:
        return 0
    step = 8 if c == WHITE else -8
    f0 = k & 7
    penalty = 0
    for f in range(max(f0 - 1, 0), min(f0 + 1, 7) + 1):
        s1 = (k & ~7 | f) + step
        s2 = s1 + step
        if color[s1] == c and piece[s1] == PAWN:
            continue
        if color[s2] == c and piece[s2] == PAWN:
            penalty += SHIELD_ADVANCED
        else:
            penalty += SHIELD_MISSING
            if not their_files[f]:
                penalty += SHIELD_OPEN
    return penalty
