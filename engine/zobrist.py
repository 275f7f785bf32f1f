"""Zobrist hash keys: one 64-bit random number per (colour, piece, square), per castling-rights
value, per en passant square, and one for the side to move. Seeded, so hashes are the same in
every run (tests and the search's repetition check may rely on it)."""

import random

_rng = random.Random(0x9D5A_2C4F)

#: PIECE_KEYS[(color * 7 + piece) * 64 + sq]
PIECE_KEYS = [_rng.getrandbits(64) for _ in range(2 * 7 * 64)]
CASTLE_KEYS = [_rng.getrandbits(64) for _ in range(16)]
EP_KEYS = [_rng.getrandbits(64) for _ in range(64)]
SIDE_KEY = _rng.getrandbits(64)


def full_hash(color, piece, side, castle, ep) -> int:
    """Hash from scratch; makemove keeps it up to date incrementally."""
    h = CASTLE_KEYS[castle]
    for sq in range(64):
        if piece[sq]:
            h ^= PIECE_KEYS[(color[sq] * 7 + piece[sq]) * 64 + sq]
    if ep >= 0:
        h ^= EP_KEYS[ep]
    if side:
        h ^= SIDE_KEY
    return h
