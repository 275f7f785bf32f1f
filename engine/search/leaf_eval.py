"""The chip search's evaluation: a sum of per-piece-square words, kept up to date by make/unmake.

The terms are engine/search/eval.py's own, those that follow a move by table lookups alone:

* material and piece-square tables: ``eval.SIGNED_PST`` (white positive, black negative);
* the kings: ``eval.KING_MG`` and ``eval.KING_EG`` blended by the game phase, the non-pawn
  material left. eval.py blends by ``phase / PHASE_MAX`` (PHASE_MAX = 6,400); here each piece
  carries a phase weight of ``value * 256 / PHASE_MAX`` rounded (knight 13, bishop 13, rook 20,
  queen 36: the start position sums to 256 exactly), so the blend is a multiply and an 8-bit
  shift: ``eg + ((mg - eg) * phase >> 8)``;
* the bishop pair, ``eval.BISHOP_PAIR`` for a side with two bishops or more.

Pawn structure, rooks on open files and the king's shield need per-file pawn counts or a look
around the king, not one word per square: they are ``leaf_structure``'s, which the leaf search
adds to this score (``leaf_search``, with ``Rules.structure``).

The chip keeps three sums (``EvalSums``): the piece-square words of every occupied square, their
phase weights, and each side's bishops. Every square write of make and unmake (``move_writes``)
adds the word of what now stands on the square and subtracts the word of what stood there, so
unmake's writes undo make's exactly. The score is formed from the sums and the two kings'
squares. ``pst_words`` and ``king_words`` are the ROM images the chip loads.
"""

from dataclasses import dataclass

from ..rules.defs import (
    BISHOP,
    BLACK,
    CASTLE,
    EMPTY,
    EP,
    KING,
    NO_PIECE,
    PAWN,
    PROMOTION,
    WHITE,
)
from .eval import BISHOP_PAIR, KING_EG, KING_MG, PHASE_MAX, PIECE_VALUE, SIGNED_PST

PHASE_SHIFT = 8
PHASE_ONE = 1 << PHASE_SHIFT  #: the phase of a full middlegame (the start position's material)


def phase_weights() -> tuple[int, ...]:
    """Per piece code, its share of PHASE_ONE: eval.py's non-pawn material, rescaled so that
    both sides' starting pieces sum to PHASE_ONE (pawns and kings weigh nothing)."""
    return tuple(0 if p in (NO_PIECE, PAWN, KING) else
                 (PIECE_VALUE[p] * PHASE_ONE + PHASE_MAX // 2) // PHASE_MAX
                 for p in range(KING + 1))


PHASE_WEIGHT = phase_weights()

# --- the ROM images ---------------------------------------------------------------------------

PST_BITS = 12     #: a piece-square word's signed value (|value| <= 906)
WEIGHT_BITS = 6   #: its phase weight (<= 36)
PST_WORD_BITS = PST_BITS + WEIGHT_BITS  #: 18: one DP16KD in its 1,024 x 18 shape
KING_FIELD_BITS = 8  #: the king tables' signed values (-80 .. 30)


def pst_address(color: int, piece: int, sq: int) -> int:
    """The piece-square ROM's address of a piece (WHITE or BLACK, PAWN .. KING) on ``sq``."""
    return (color << 3 | piece) << 6 | sq


def pst_words() -> list[int]:
    """The piece-square ROM, 1,024 words of PST_WORD_BITS: at ``pst_address(c, p, sq)`` the
    signed material + table value (two's complement, low PST_BITS) and the phase weight above.
    Kings and unused codes hold 0: the kings' terms come from ``king_words``."""
    words = [0] * 1024
    for color in (WHITE, BLACK):
        for piece in range(PAWN, KING):
            for sq in range(64):
                value = SIGNED_PST[color * 8 + piece][sq]
                assert -(1 << PST_BITS - 1) <= value < 1 << PST_BITS - 1
                words[pst_address(color, piece, sq)] = (
                    value & (1 << PST_BITS) - 1 | PHASE_WEIGHT[piece] << PST_BITS)
    return words


def king_words() -> list[int]:
    """The king ROM, 64 words by the king's square seen from its own side (a black king on sq
    reads sq ^ 56): the middlegame value in the low byte, the endgame value above, both signed."""
    mask = (1 << KING_FIELD_BITS) - 1
    return [KING_MG[sq] & mask | (KING_EG[sq] & mask) << KING_FIELD_BITS for sq in range(64)]


def signed(value: int, bits: int) -> int:
    """A two's complement field of ``bits`` as an int."""
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


# --- the sums and the score -------------------------------------------------------------------

@dataclass
class EvalSums:
    """What the chip keeps: the piece-square sum (white's lead), the phase weights of all
    pieces, and the bishops of each side."""
    pst: int = 0
    weight: int = 0
    bishops: tuple[int, int] = (0, 0)

    def write(self, sq: int, old: tuple[int, int], new: tuple[int, int]) -> None:
        """One square written: ``old`` and ``new`` are (colour, piece), EMPTY for none."""
        for (color, piece), sign in ((old, -1), (new, 1)):
            if color == EMPTY:
                continue
            self.pst += sign * SIGNED_PST[color * 8 + piece][sq]
            self.weight += sign * PHASE_WEIGHT[piece]
            if piece == BISHOP:
                b = list(self.bishops)
                b[color] += sign
                self.bishops = (b[0], b[1])

    @classmethod
    def of(cls, board) -> "EvalSums":
        """The sums of ``board`` from scratch (every occupied square written once)."""
        pst = weight = 0
        bishops = [0, 0]
        piece = board.piece
        for sq, c in enumerate(board.color):
            if c != EMPTY:
                p = piece[sq]
                pst += SIGNED_PST[c * 8 + p][sq]
                weight += PHASE_WEIGHT[p]
                bishops[c] += p == BISHOP
        return cls(pst, weight, (bishops[0], bishops[1]))

    def score(self, side: int, kings) -> int:
        """Centipawns for ``side`` (the side to move), the kings on ``kings[WHITE]``,
        ``kings[BLACK]``."""
        phase = min(self.weight, PHASE_ONE)
        white = self.pst
        for color, sign in ((WHITE, 1), (BLACK, -1)):
            own = kings[color] if color == WHITE else kings[color] ^ 56
            mg, eg = KING_MG[own], KING_EG[own]
            blend = eg + ((mg - eg) * phase >> PHASE_SHIFT)
            pair = BISHOP_PAIR if self.bishops[color] >= 2 else 0
            white += sign * (blend + pair)
        return white if side == WHITE else -white


def leaf_evaluate(board) -> int:
    """The chip's evaluation of ``board`` for the side to move, from scratch."""
    return EvalSums.of(board).score(board.side, board.king)


def move_writes(board, m: int) -> list[tuple[int, tuple[int, int], tuple[int, int]]]:
    """The square writes make performs for the pseudo-legal move ``m`` on ``board`` (before it
    is made), in hdl/chip/make_unmake.py's order: the to-square, the from-square, then the en
    passant victim or the castling rook's two squares. Each is (square, old, new)."""
    color, piece, side = board.color, board.piece, board.side
    frm, to = m & 63, (m >> 6) & 63
    mover = (side, piece[frm])
    empty = (EMPTY, NO_PIECE)
    if m & CASTLE:
        c = board.castle_by_king_to[to]
        return [(c.king_to, empty, (side, KING)), (c.king_from, mover, empty),
                (c.rook_from, (side, piece[c.rook_from]), empty),
                (c.rook_to, empty, (side, piece[c.rook_from]))]
    placed = (side, m >> 18) if m & PROMOTION else mover
    writes = [(to, (color[to], piece[to]), placed), (frm, mover, empty)]
    if m & EP:
        victim = to - 8 if side == WHITE else to + 8
        writes.append((victim, (side ^ 1, PAWN), empty))
    return writes


def eval_after(board, sums: EvalSums, m: int) -> int:
    """The evaluation of the child after ``m``, for the child's side to move, worked out from
    the parent's sums and the move's writes without making it (what lets the chip settle a
    child that stands pat without making the move: docs/chip_search.md)."""
    child = EvalSums(sums.pst, sums.weight, sums.bishops)
    for sq, old, new in move_writes(board, m):
        child.write(sq, old, new)
    kings = list(board.king)
    if board.piece[m & 63] == KING:
        kings[board.side] = (m >> 6) & 63
    return child.score(board.side ^ 1, kings)
