"""Zobrist hash keys: one 64-bit random number per (colour, piece, square), per castling-rights
value, per en passant square, and one for the side to move. Seeded, so hashes are the same in
every run (tests and the search's repetition check may rely on it).

Piece codes 0..6 draw their keys first, as they always did (orthodox hashes never change); the
keys of code 7 (a variant's extra piece) are drawn after the rest.
"""

import random

_rng = random.Random(0x9D5A_2C4F)

#: PIECE_KEYS[(color * 7 + piece) * 64 + sq], codes 0..6
PIECE_KEYS = [_rng.getrandbits(64) for _ in range(2 * 7 * 64)]
CASTLE_KEYS = [_rng.getrandbits(64) for _ in range(16)]
EP_KEYS = [_rng.getrandbits(64) for _ in range(64)]
SIDE_KEY = _rng.getrandbits(64)
_CODE7_KEYS = [_rng.getrandbits(64) for _ in range(2 * 64)]

#: the keys of one (colour, piece code 0..7) as a row per square: KEY_ROWS[color * 8 + piece][sq]
KEY_ROWS = [row for color in (0, 1) for row in
            [PIECE_KEYS[(color * 7 + p) * 64:(color * 7 + p + 1) * 64] for p in range(7)]
            + [_CODE7_KEYS[color * 64:(color + 1) * 64]]]


def full_hash(color, piece, side, castle, ep) -> int:
    """Hash from scratch; makemove keeps it up to date incrementally."""
    h = CASTLE_KEYS[castle]
    for sq in range(64):
        if piece[sq]:
            h ^= KEY_ROWS[color[sq] * 8 + piece[sq]][sq]
    if ep >= 0:
        h ^= EP_KEYS[ep]
    if side:
        h ^= SIDE_KEY
    return h
