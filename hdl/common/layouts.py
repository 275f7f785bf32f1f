"""Gateware views of engine's encodings: the move word as a ``data.StructLayout`` whose bits are
exactly engine's packed move (checked by a test), and the shapes of board squares."""

from amaranth import unsigned
from amaranth.lib import data

from posdata.engine.rules.defs import FLAGS_SHIFT, MOVE_BITS, PROMO_SHIFT, TO_SHIFT, Flag

from .contract import CASTLE_FIELDS, CASTLING_BITS, PIECE_BITS, POSITION_FIELDS, SQUARE_BITS

SQUARE = unsigned(SQUARE_BITS)
PIECE = unsigned(PIECE_BITS)

#: one bit per Flag member, bit 0 = CAPTURE (engine's bit 12)
FlagsLayout = data.StructLayout({f.name.lower(): 1 for f in sorted(Flag, key=int)})

MoveLayout = data.StructLayout({
    "frm": SQUARE,
    "to": SQUARE,
    "flags": FlagsLayout,
    "promo": PIECE,
})

assert MoveLayout.size == MOVE_BITS
assert MoveLayout._fields["to"].offset == TO_SHIFT
assert MoveLayout._fields["flags"].offset == FLAGS_SHIFT
assert MoveLayout._fields["promo"].offset == PROMO_SHIFT
assert all(FlagsLayout._fields[f.name.lower()].offset == int(f).bit_length() - 1 for f in Flag)

#: what a generation needs besides the board, latched at ``start`` (engine.rules.defs encodings; the
#: host packs it as hdl.common.contract.position_word)
Position = data.StructLayout(dict(POSITION_FIELDS))

#: castling's squares, loaded with the position (Chess960): per right (WK, WQ, BK, BQ), the
#: king's from- and to-file and the back-rank squares that must be empty; packed on the host by
#: hdl.common.contract.castling_word
CastleSquares = data.StructLayout(dict(CASTLE_FIELDS))
Castling = data.ArrayLayout(CastleSquares, 4)
assert Castling.size == CASTLING_BITS
assert list(CastleSquares._fields) == [name for name, _ in CASTLE_FIELDS]  # in packing order
