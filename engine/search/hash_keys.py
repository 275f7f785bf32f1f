"""The chip's position hash keys: engine.rules.zobrist's keys cut to their low HASH_BITS, laid out
as the tables the search thread's hash keeper loads (hdl/search/zobrist.py). Plain Python, so that
the gateware and any model of it take the same numbers from one place.

* ``hash_key_words()``: 1,024 words; at ``pst_address(colour, piece, sq)`` (the piece-square
  ROM's address: colour bit, piece code, square) the key of that piece on that square. Piece
  code 0 (no piece) holds 0, so an empty square's address adds nothing.
* ``castle_key_words()``: 16 words, by the castling rights.
* ``ep_key_words()``: 16 words, by ``ep_key_index(sq)``. An en passant square lies on rank 3
  or rank 6, so bit 5 of the square (set on rank 6, clear on rank 3) and its file pick it.
* ``side_key_word()``: XOR-ed in when black is to move.

The hash of a position is the XOR of the keys of its occupied squares, its rights' key, its en
passant square's key if it has one and the side key if black moves: ``Board.hash`` (the full
64 bits) with its bits above HASH_BITS dropped.
"""

from ..rules.defs import BLACK, PAWN, WHITE
from ..rules.zobrist import CASTLE_KEYS, EP_KEYS, KEY_ROWS, SIDE_KEY
from .leaf_eval import pst_address
from .leaf_search import HASH_MASK

KEY_WORDS = 1024  #: the piece keys' table: two colours x eight piece codes x 64 squares
EP_RANKS = (2, 5)  #: the ranks (0-based: rank 3 and rank 6) an en passant square can lie on


def hash_key_words() -> list[int]:
    """The piece keys' table: at ``pst_address(c, p, sq)`` KEY_ROWS' key of piece code ``p``
    (1..7: PAWN .. KING and a variant's code 7) of colour ``c`` on ``sq``, its low HASH_BITS;
    0 at code 0 (no piece)."""
    words = [0] * KEY_WORDS
    for color in (WHITE, BLACK):
        for piece in range(PAWN, 8):
            for sq in range(64):
                words[pst_address(color, piece, sq)] = KEY_ROWS[color * 8 + piece][sq] & HASH_MASK
    return words


def castle_key_words() -> list[int]:
    """By the castling rights (4 bits): their key's low HASH_BITS."""
    return [key & HASH_MASK for key in CASTLE_KEYS]


def ep_key_index(sq: int) -> int:
    """The en passant table's index of ``sq`` (on rank 3 or rank 6): bit 5 of the square, then
    its file."""
    if sq >> 3 not in EP_RANKS:
        raise ValueError(f"an en passant square lies on rank 3 or 6, not {sq}")
    return (sq >> 5) << 3 | (sq & 7)


def ep_key_words() -> list[int]:
    """By ``ep_key_index``: the en passant squares' keys, their low HASH_BITS."""
    words = [0] * 16
    for rank in EP_RANKS:
        for file in range(8):
            sq = rank * 8 + file
            words[ep_key_index(sq)] = EP_KEYS[sq] & HASH_MASK
    return words


def side_key_word() -> int:
    """The side key's low HASH_BITS (black to move)."""
    return SIDE_KEY & HASH_MASK
