"""The chip search's structure terms: eval.py's pawn structure, rooks on open files and the
king's pawn shield, defined on the board's planes (64-bit masks, a1 = bit 0), as the thread
forms them.

eval.py's terms, with its constants; what differs is said per term:

* **doubled pawns**: ``DOUBLED_PAWN`` per pawn beyond the first on a file;
* **isolated pawns**: ``ISOLATED_PAWN`` per pawn on a file with no own pawn on either neighbour;
* **passed pawns**: no enemy pawn ahead on its file or a neighbouring one; per relative rank
  ``PASSED_MG`` / ``PASSED_EG``, summed per side and blended by the phase as the kings' tables
  are (``eg + ((mg - eg) * phase >> 8)``, phase the non-pawn weight of both sides clamped to
  ``PHASE_ONE``; eval.py divides by its exact material instead);
* **rooks**: ``ROOK_OPEN_FILE`` on a file with no pawn, ``ROOK_HALF_OPEN_FILE`` with enemy
  pawns only;
* **the king's shield**: for a king on its first two ranks, per file of the three around it, no
  penalty for an own pawn a rank ahead, ``SHIELD_ADVANCED`` for one two ranks ahead, else
  ``SHIELD_MISSING`` and ``SHIELD_OPEN`` more when the file has no enemy pawn; scaled by the
  enemy's non-pawn weight (``leaf_eval.PHASE_WEIGHT``, 128 for a full army) as ``penalty *
  weight >> 7`` (eval.py scales by the enemy's material over a full army's).

``structure(planes)`` is white's lead from these terms; ``Planes.of(board)`` reads what it needs.
"""

from dataclasses import dataclass
from functools import lru_cache

from ..rules.defs import BLACK, EMPTY, PAWN, ROOK, WHITE
from .eval import (
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
from .leaf_eval import PHASE_ONE, PHASE_SHIFT, PHASE_WEIGHT

ARMY_SHIFT = 7  #: a side's full army weighs 1 << 7 = 128 (half of PHASE_ONE)
FILE_A = 0x0101010101010101


def _file_mask(files: int) -> int:
    out = 0
    for f in range(8):
        if files >> f & 1:
            out |= FILE_A << f
    return out


FILE_MASKS = [_file_mask(files) for files in range(256)]


def file_mask(files: int) -> int:
    """The squares of the files set in the 8-bit ``files``."""
    return FILE_MASKS[files]


def files_of(plane: int) -> int:
    """The 8-bit set of files that hold a square of ``plane`` (its ranks ORed together)."""
    x = plane | plane >> 32
    x |= x >> 16
    x |= x >> 8
    return x & 0xFF


def neighbours(files: int) -> int:
    return (files << 1 | files >> 1) & 0xFF


def _span(sq: int, forward: int) -> int:
    """The squares ahead of ``sq`` (towards rank 8 if ``forward`` > 0) on its file and the two
    beside it: where an enemy pawn stops a pawn on ``sq`` being passed."""
    f, r = sq & 7, sq >> 3
    out = 0
    rr = r + forward
    while 0 <= rr < 8:
        for ff in (f - 1, f, f + 1):
            if 0 <= ff < 8:
                out |= 1 << (rr * 8 + ff)
        rr += forward
    return out


#: per colour and square, the passed-pawn span (white looks up the board, black down)
FRONT_SPAN = ([_span(sq, 1) for sq in range(64)], [_span(sq, -1) for sq in range(64)])


@dataclass(frozen=True)
class Planes:
    """What the structure terms read: per colour its pawns and rooks as planes, its king's
    square and its non-pawn phase weight."""
    pawns: tuple[int, int]
    rooks: tuple[int, int]
    kings: tuple[int, int]
    weights: tuple[int, int]

    @classmethod
    def of(cls, board) -> "Planes":
        pawns, rooks, weights = [0, 0], [0, 0], [0, 0]
        for sq, c in enumerate(board.color):
            if c == EMPTY:
                continue
            p = board.piece[sq]
            if p == PAWN:
                pawns[c] |= 1 << sq
            elif p == ROOK:
                rooks[c] |= 1 << sq
            weights[c] += PHASE_WEIGHT[p]
        return cls((pawns[0], pawns[1]), (rooks[0], rooks[1]),
                   (board.king[WHITE], board.king[BLACK]), (weights[0], weights[1]))


@lru_cache(maxsize=1 << 16)  # pawn structures repeat all over a tree (a pawn hash, in Python)
def pawn_terms(own: int, enemy: int, color: int) -> tuple[int, int, int]:
    """(doubled and isolated penalty, passed mg, passed eg) of the pawns ``own`` of ``color``."""
    files = files_of(own)
    pawns = own.bit_count()
    penalty = DOUBLED_PAWN * (pawns - files.bit_count())
    isolated = files & ~neighbours(files)
    penalty += ISOLATED_PAWN * (own & file_mask(isolated)).bit_count()
    mg = eg = 0
    spans = FRONT_SPAN[color]
    bits = own
    while bits:
        sq = (bits & -bits).bit_length() - 1
        bits &= bits - 1
        if not spans[sq] & enemy:
            rel = sq >> 3 if color == WHITE else 7 - (sq >> 3)
            mg += PASSED_MG[rel]
            eg += PASSED_EG[rel]
    return penalty, mg, eg


def rook_bonus(rooks: int, own_pawns: int, enemy_pawns: int) -> int:
    own_files, enemy_files = files_of(own_pawns), files_of(enemy_pawns)
    open_files = ~(own_files | enemy_files) & 0xFF
    half_open = ~own_files & enemy_files & 0xFF
    return (ROOK_OPEN_FILE * (rooks & file_mask(open_files)).bit_count()
            + ROOK_HALF_OPEN_FILE * (rooks & file_mask(half_open)).bit_count())


@lru_cache(maxsize=1 << 16)
def shield_penalty(king: int, color: int, own_pawns: int, enemy_pawns: int) -> int:
    """eval._shield_penalty on the planes."""
    rel = king >> 3 if color == WHITE else 7 - (king >> 3)
    if rel > 1:
        return 0
    step = 8 if color == WHITE else -8
    enemy_files = files_of(enemy_pawns)
    f0 = king & 7
    penalty = 0
    for f in range(max(f0 - 1, 0), min(f0 + 1, 7) + 1):
        s1 = (king & ~7 | f) + step
        if own_pawns >> s1 & 1:
            continue
        if own_pawns >> (s1 + step) & 1:
            penalty += SHIELD_ADVANCED
        else:
            penalty += SHIELD_MISSING + (0 if enemy_files >> f & 1 else SHIELD_OPEN)
    return penalty


def structure(planes: Planes) -> int:
    """White's lead from the structure terms."""
    phase = min(planes.weights[WHITE] + planes.weights[BLACK], PHASE_ONE)
    total = 0
    for color, sign in ((WHITE, 1), (BLACK, -1)):
        x = color ^ 1
        own, enemy = planes.pawns[color], planes.pawns[x]
        penalty, mg, eg = pawn_terms(own, enemy, color)
        s = -penalty + eg + ((mg - eg) * phase >> PHASE_SHIFT)
        s += rook_bonus(planes.rooks[color], own, enemy)
        shield = shield_penalty(planes.kings[color], color, own, enemy)
        s -= shield * planes.weights[x] >> ARMY_SHIFT
        total += sign * s
    return total


def structure_of(board) -> int:
    """The structure terms of ``board`` for the side to move."""
    white = structure(Planes.of(board))
    return white if board.side == WHITE else -white

