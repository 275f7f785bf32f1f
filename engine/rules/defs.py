"""Every encoding of posdata, in one place.

The gateware (``hdl/``) uses these enums as shapes and packs/unpacks the same move word, so
nothing here may import amaranth. Hot loops elsewhere use the plain ``int`` aliases below the
enums, because attribute lookups on an enum class are slow in CPython.

Squares
    a1 = 0, b1 = 1, ... h1 = 7, a2 = 8, ... h8 = 63; ``file = sq & 7``, ``rank = sq >> 3``.

Colours (2 bits in hardware)
    WHITE = 0, BLACK = 1, EMPTY = 2. ``side ^ 1`` is the other side.

Pieces (3 bits) and the table a piece walks (its ptype) A board square holds a colour and a piece
(NO_PIECE, PAWN .. KING). The move tables are indexed by *ptype* (``PType``), which equals the piece
except that a black pawn is BPAWN, because pawns of the two colours move in opposite directions.
Ref: GNU Chess 4.0 (``gnuchess.h``, ``init.c``) has the same rule, ``ptype[side][piece]``, but
numbers BPAWN 7 and leaves table 0 (no_piece) empty. Here BPAWN takes that empty slot, 0: orthodox
chess fills tables 0..6, seven tables of 64 x 64 entries rather than eight, so the gateware's ROM
holds no empty table (``hdl.image``), and table 7 is left to a variant's piece on code 7
(``engine.rules.variants``), whose ptype is its code as any non-pawn's. The engine stores its tables
in this one order and the gateware reads them in it: a ptype is a ROM table, with no translation
between the two. ``ptype(colour, code)`` is the whole rule, for every variant
(``Variant.table_index``); ``BPAWN`` (a table) and ``NO_PIECE`` (a board code) are both 0 but never
index the same thing.

Move word (21 bits, ``MOVE_BITS``)
    bits  0..5   from square
    bits  6..11  to square
    bits 12..17  flags: CAPTURE, CASTLE, EP, DOUBLE (pawn double step), PAWN_MOVE, PROMOTION
                 (the values match TSCP's 1, 2, 4, 8, 16, 32 shifted left by 12)
    bits 18..20  promoted piece (KNIGHT .. QUEEN), 0 when not a promotion
    An en passant capture carries CAPTURE | EP | PAWN_MOVE; castling carries CASTLE only and is
    written as the king's move (e1g1).

Generation order (the hardware must reproduce it exactly)
    1. The pieces of the side to move, in ascending square order (a1, b1, ..., h8).
    2. A knight, bishop, rook, queen or king walks its posdata chain: rays in the order of
       ``DIRECTIONS[ptype]`` (rays that leave the board are dropped), squares along a ray from
       near to far. An empty square is a quiet move (then nextpos), an enemy piece a capture
       (then nextdir), an own piece nothing (then nextdir).
    3. A pawn first walks its push thread (nextpos: one step, then the double step from its home
       rank), stopping at the first occupied square; then its capture thread (nextdir: the
       diagonals in ``DIRECTIONS`` order), where an enemy piece is a capture and the en passant
       square an en passant capture. A move onto the last rank becomes four promotions, in
       ``PROMOTION_ORDER`` (other variants: their ``promotions[colour]``).
    4. Castling after all pieces: king side, then queen side, for each right held whose squares
       between king and rook are empty (Chess960: the position's ``Castle`` records). Whether
       the king passes through check is makemove's business, as in TSCP.
"""

from enum import IntEnum

# --- Squares ---------------------------------------------------------------------------------

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES = [f + r for r in RANK_NAMES for f in FILE_NAMES]
(A1, B1, C1, D1, E1, F1, G1, H1,
 A2, B2, C2, D2, E2, F2, G2, H2,
 A3, B3, C3, D3, E3, F3, G3, H3,
 A4, B4, C4, D4, E4, F4, G4, H4,
 A5, B5, C5, D5, E5, F5, G5, H5,
 A6, B6, C6, D6, E6, F6, G6, H6,
 A7, B7, C7, D7, E7, F7, G7, H7,
 A8, B8, C8, D8, E8, F8, G8, H8) = range(64)
NO_SQUARE = -1  #: the en passant square when there is none


def square(file: int, rank: int) -> int:
    return rank * 8 + file


def file_of(sq: int) -> int:
    return sq & 7


def rank_of(sq: int) -> int:
    return sq >> 3


def parse_square(name: str) -> int:
    """``"e4"`` -> 28; raises ValueError on anything else."""
    if name in _SQUARE_INDEX:
        return _SQUARE_INDEX[name]
    raise ValueError(f"not a square: {name!r}")


_SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}


# --- Colours and pieces ----------------------------------------------------------------------

class Color(IntEnum):
    WHITE = 0
    BLACK = 1
    EMPTY = 2


class Piece(IntEnum):
    NO_PIECE = 0
    PAWN = 1
    KNIGHT = 2
    BISHOP = 3
    ROOK = 4
    QUEEN = 5
    KING = 6


class PType(IntEnum):
    """The posdata table of orthodox chess's pieces (see the module docstring: GNU Chess's ptype
    with BPAWN moved from 7 to the empty table 0). Not a board code: a square holds a Piece."""
    BPAWN = 0
    PAWN = 1
    KNIGHT = 2
    BISHOP = 3
    ROOK = 4
    QUEEN = 5
    KING = 6


WHITE, BLACK, EMPTY = int(Color.WHITE), int(Color.BLACK), int(Color.EMPTY)
NO_PIECE, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(7)
BPAWN = int(PType.BPAWN)
N_TABLES = 8  #: the seven ptypes and table 7, for a variant's piece on code 7

PIECE_LETTERS = ".pnbrqk"  #: lower case; FEN uses upper case for white


def ptype(color: int, piece: int) -> int:
    """The posdata table of a piece (any 3-bit code): its code, except BPAWN for a black pawn."""
    return BPAWN if (color == BLACK and piece == PAWN) else piece


# --- Castling rights (4 bits) ----------------------------------------------------------------

WHITE_KINGSIDE, WHITE_QUEENSIDE, BLACK_KINGSIDE, BLACK_QUEENSIDE = 1, 2, 4, 8
CASTLING_LETTERS = {"K": WHITE_KINGSIDE, "Q": WHITE_QUEENSIDE,
                    "k": BLACK_KINGSIDE, "q": BLACK_QUEENSIDE}


class Castle:
    """One castling move: the right it needs, king and rook squares, the squares that must be empty
    and the squares the king crosses (which must not be attacked; where it lands is makemove's
    usual king test). Orthodox chess has the four of ``CASTLES``; a Chess960 position makes its
    own (``engine.rules.chess960.castle_for``), where king and rook may stay put or swap."""

    def __init__(self, right, king_from, king_to, rook_from, rook_to, empty):
        self.right = right
        self.king_from, self.king_to = king_from, king_to
        self.rook_from, self.rook_to = rook_from, rook_to
        self.empty = empty
        self.passes = rook_to  # orthodox: the king crosses the rook's destination square
        step = 1 if king_to > king_from else -1
        self.crosses = tuple(range(king_from + step, king_to, step))
        self.kingside = king_to > rook_to

    def __repr__(self):
        return (f"Castle({SQUARE_NAMES[self.king_from]}->{SQUARE_NAMES[self.king_to]}, "
                f"{SQUARE_NAMES[self.rook_from]}->{SQUARE_NAMES[self.rook_to]})")


#: per side, in generation order: king side first, then queen side
CASTLES = (
    (Castle(WHITE_KINGSIDE, E1, G1, H1, F1, (F1, G1)),
     Castle(WHITE_QUEENSIDE, E1, C1, A1, D1, (D1, C1, B1))),
    (Castle(BLACK_KINGSIDE, E8, G8, H8, F8, (F8, G8)),
     Castle(BLACK_QUEENSIDE, E8, C8, A8, D8, (D8, C8, B8))),
)


# --- Move word -------------------------------------------------------------------------------

FROM_SHIFT, TO_SHIFT, FLAGS_SHIFT, PROMO_SHIFT = 0, 6, 12, 18
MOVE_BITS = 21

#: The move buffer of one generation (the compiled model's, the board client's): room for the
#: pseudo-legal moves of any position the FEN parser accepts, promotions expanded, so a
#: generation reporting more is a broken generator or a garbled line, never a big position.
#: The proven bound is 712. Every move but a promotion has its own (from, to) pair. A square is
#: reached by at most 16 pieces (the nearest piece along each of the 8 rays, which covers
#: sliders, kings, castling and pawns, plus 8 knights), and not from a square of the mover's
#: own n pieces: at most 16 * (64 - n) pairs; no piece has more than 27: at most 27 * n. Both
#: hold, so at most 640 pairs (n = 24). The 8 squares of the 7th rank hold at most 8 pawns of
#: at most 3 promoting pairs, each 3 moves more: at most 72 more moves.
MAX_MOVES = 1024

CAPTURE = 1 << 12
CASTLE = 2 << 12
EP = 4 << 12
DOUBLE = 8 << 12
PAWN_MOVE = 16 << 12
PROMOTION = 32 << 12


class Flag(IntEnum):
    """The six flag bits of a move word, as a 6-bit field (bit 0 = CAPTURE)."""
    CAPTURE = 1
    CASTLE = 2
    EP = 4
    DOUBLE = 8
    PAWN_MOVE = 16
    PROMOTION = 32


#: the four promotions of one pawn move, in generation order
PROMOTION_ORDER = (QUEEN, ROOK, BISHOP, KNIGHT)


def pack_move(frm: int, to: int, flags: int = 0, promo: int = 0) -> int:
    """``flags`` is an OR of CAPTURE, CASTLE, ... (already shifted)."""
    return frm | to << TO_SHIFT | flags | promo << PROMO_SHIFT


def move_from(m: int) -> int:
    return m & 63


def move_to(m: int) -> int:
    return (m >> TO_SHIFT) & 63


def move_promo(m: int) -> int:
    return m >> PROMO_SHIFT


def move_uci(m: int) -> str:
    s = SQUARE_NAMES[m & 63] + SQUARE_NAMES[(m >> TO_SHIFT) & 63]
    promo = m >> PROMO_SHIFT
    return s + PIECE_LETTERS[promo] if promo else s


def describe_move(m: int) -> str:
    """A move word for humans: ``e7e8q capture|pawn|promotion``."""
    names = [f.name.lower() for f in Flag if m & (int(f) << FLAGS_SHIFT)]
    return move_uci(m) + (" " + "|".join(names) if names else "")


# --- Directions of the posdata tables --------------------------------------------------------
# Ref: GNU Chess 4.0 init.c `direc`, 10x12 mailbox offsets, rewritten as (file, rank) steps:
# +1 east, +10 north, +9 north-west, +11 north-east, +8 = 10-2 etc.

_MAILBOX_STEP = {1: (1, 0), -1: (-1, 0), 10: (0, 1), -10: (0, -1),
                 9: (-1, 1), -9: (1, -1), 11: (1, 1), -11: (-1, -1),
                 8: (-2, 1), -8: (2, -1), 12: (2, 1), -12: (-2, -1),
                 19: (-1, 2), -19: (1, -2), 21: (1, 2), -21: (-1, -2)}
_GNU_DIREC = {
    PAWN: (10, 9, 11),
    KNIGHT: (8, -8, 12, -12, 19, -19, 21, -21),
    BISHOP: (9, 11, -9, -11),
    ROOK: (1, 10, -1, -10),
    QUEEN: (1, 10, -1, -10, 9, 11, -9, -11),
    KING: (1, 10, -1, -10, 9, 11, -9, -11),
    BPAWN: (-10, -9, -11),
}
#: per ptype, the ray directions as (file step, rank step), in generation order.
#: For pawns the first is the push, the others the two captures.
DIRECTIONS = {pt: tuple(_MAILBOX_STEP[d] for d in dirs) for pt, dirs in _GNU_DIREC.items()}
#: how far a ray goes: pawns 2 (the double step, only from the home rank), leapers 1, sliders 7
MAX_STEPS = {PAWN: 2, BPAWN: 2, KNIGHT: 1, KING: 1, BISHOP: 7, ROOK: 7, QUEEN: 7}
HOME_RANK = {PAWN: 1, BPAWN: 6}
LAST_RANK = (7, 0)  #: per side, where its pawns promote

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
