"""What the gateware holds per variant and per position, as plain data (no amaranth at import):
the walker, prefetcher and merger RTL is the same for every variant; a variant changes only
memory contents and the widths derived from its tables.

* **Tables**: the walk ROM and start entries (``hdl.image.sparse``, ``hdl.image.dense``) are built
  from ``engine.variants``' tables. ROM table of a piece: its code, but a black pawn's is 0
  (GNU Chess's BPAWN folded onto NO_PIECE's slot), so orthodox chess fills tables 0..6 exactly as
  before and a piece on code 7 (chigorin's chancellor) gets table 7.
* **Geometry**: the widths and depths the tables need (tables, the dense ROM's address bits, the
  skip field, the promotion index), derived from the images, never set by hand. A bigger
  geometry than a variant needs also holds it (``Geometry.union``): the structure test builds
  every variant's RTL at one geometry and compares.
* **Promotions**: a small table by (side, index): the piece and whether it is the side's last
  (``promotion_image``); the merger walks it, so a side may have any number of promotions.
* **Castling** (per position, Chess960): for each of the four rights, the king's from- and
  to-file and the squares of the back rank that must be empty (``castling_word``), loaded with
  the position; the rank is the side's back rank.
"""

from dataclasses import dataclass, fields
from functools import cache

from posdata.engine.defs import BLACK, BPAWN, CASTLES, PAWN, WHITE
from posdata.engine.variants import CHESS, get_variant

SQUARE_BITS = 6
TABLE_BITS = 3          #: a piece code: 8 tables at most
PUSH_BITS = 2           #: a pawn has at most two pushes
SPARSE_TABLE_WORDS = 64 * 64


def rom_table(color: int, code: int) -> int:
    """The ROM table of a piece (see the module docstring); the same for every variant."""
    return 0 if code == PAWN and color == BLACK else code


def engine_table(table: int) -> int:
    """The engine's table (``Variant.table_index``) that ROM table ``table`` holds."""
    return {0: BPAWN, 7: 0}.get(table, table)


@dataclass(frozen=True)
class Geometry:
    tables: int           #: ROM tables (7, or 8 when a piece has code 7)
    dense_addr_bits: int  #: the dense walk ROM's address; its depth is ``1 << dense_addr_bits``
    skip_bits: int        #: the dense entry's nextdir skip
    promo_bits: int       #: index of a promotion within a side's set

    @property
    def word_bits(self) -> int:
        """A dense ROM word: nextpos | nextdir << 6 | skip << 12."""
        return 2 * SQUARE_BITS + self.skip_bits

    @property
    def start_bits(self) -> int:
        """A dense start entry: first | d1 << 6 | base << 12 | pushes."""
        return 2 * SQUARE_BITS + self.dense_addr_bits + PUSH_BITS

    @property
    def dense_depth(self) -> int:
        return 1 << self.dense_addr_bits

    @property
    def sparse_depth(self) -> int:
        return self.tables * SPARSE_TABLE_WORDS

    @property
    def start_depth(self) -> int:
        return self.tables * 64

    def union(self, other: "Geometry") -> "Geometry":
        """The smallest geometry that holds both."""
        return Geometry(*(max(getattr(self, f.name), getattr(other, f.name))
                          for f in fields(self)))

    def holds(self, other: "Geometry") -> bool:
        return self.union(other) == self


@dataclass(frozen=True)
class VariantImage:
    variant: object            #: engine.variants.Variant
    words: list               #: sparse ROM words by hdl.image.sparse.rom_address
    geometry: Geometry        #: what the images need
    promotions: tuple         #: per side, the promotion piece codes in generation order


def hardware_name(variant) -> str:
    """The first registered variant whose gateware is the same (Chess960 is chess's: its
    castling comes with the position): one compiled model, one bitstream for both."""
    from posdata.engine.variants import VARIANTS
    variant = get_variant(variant)
    for v in VARIANTS:
        if v.layout == variant.layout and v.promotions == variant.promotions:
            return v.name
    return variant.name


@cache
def variant_image(variant=CHESS) -> VariantImage:
    from .dense import dense_image  # (it imports this module)
    from .sparse import rom_words
    variant = get_variant(variant)
    words = rom_words(variant)
    dense = dense_image(words)
    most = max(len(p) for p in variant.promotions)
    geometry = Geometry(tables=len(words) // SPARSE_TABLE_WORDS,
                        dense_addr_bits=max(1, (dense.entries - 1).bit_length()),
                        skip_bits=max(1, dense.max_skip.bit_length()),
                        promo_bits=max(1, (most - 1).bit_length()))
    return VariantImage(variant, words, geometry, variant.promotions)


def geometry_of(variant=CHESS) -> Geometry:
    return variant_image(variant).geometry


# --- promotions ----------------------------------------------------------------------------

PROMO_PIECE_BITS = 3


def promotion_image(promotions, promo_bits: int) -> list[int]:
    """By ``side << promo_bits | i``: the side's i-th promotion piece | (it is the last) << 3.
    Unused slots repeat the last piece, marked last."""
    image = []
    for side in (WHITE, BLACK):
        pieces = promotions[side]
        assert 0 < len(pieces) <= 1 << promo_bits
        for i in range(1 << promo_bits):
            j = min(i, len(pieces) - 1)
            image.append(pieces[j] | int(j == len(pieces) - 1) << PROMO_PIECE_BITS)
    return image


# --- castling, per position ----------------------------------------------------------------

#: one right's squares: king from-file, king to-file, the back rank's must-be-empty mask
CASTLE_FIELDS = (("king_from", 3), ("king_to", 3), ("empty", 8))
CASTLE_SLOT_BITS = sum(bits for _, bits in CASTLE_FIELDS)
CASTLING_BITS = 4 * CASTLE_SLOT_BITS  #: the four rights in engine.defs order: WK WQ BK BQ


def castle_slot(c) -> int:
    """An engine.defs.Castle record as one slot's bits."""
    empty = 0
    for sq in c.empty:
        empty |= 1 << (sq & 7)
    return (c.king_from & 7) | (c.king_to & 7) << 3 | empty << 6


def castling_word(castles=CASTLES) -> int:
    """The castling input of the gateware for ``board.castles`` (per side, its Castle records):
    each right's slot, orthodox squares where the position has no such castling (its right
    is clear, so the slot is never read)."""
    word = 0
    for side in (WHITE, BLACK):
        slots = {c.right: c for c in CASTLES[side]}
        slots.update({c.right: c for c in castles[side]})
        for c in slots.values():
            word |= castle_slot(c) << (c.right.bit_length() - 1) * CASTLE_SLOT_BITS
    return word


def castling_fields(word: int) -> list[dict]:
    """A castling word as per-right field values (an Amaranth initialiser)."""
    out = []
    for slot in range(4):
        bits, fields_ = word >> slot * CASTLE_SLOT_BITS, {}
        for name, width in CASTLE_FIELDS:
            fields_[name], bits = bits & ((1 << width) - 1), bits >> width
        out.append(fields_)
    return out


ORTHODOX_CASTLING = castling_fields(castling_word())  #: the gateware's default


#: the perft chip's Chess960 castling also needs each right's rook from-file (3 bits a right,
#: in the castling word's order): it moves the rook and clears the right when the rook moves
ROOK_FILE_BITS = 3
CASTLE_ROOKS_BITS = 4 * ROOK_FILE_BITS


def castle_rooks_word(castles=CASTLES) -> int:
    """Per right, the rook's from-file (orthodox where the position has no such castling)."""
    word = 0
    for side in (WHITE, BLACK):
        slots = {c.right: c for c in CASTLES[side]}
        slots.update({c.right: c for c in castles[side]})
        for c in slots.values():
            word |= (c.rook_from & 7) << (c.right.bit_length() - 1) * ROOK_FILE_BITS
    return word


#: per right, the rook's from-file in orthodox chess (an Amaranth initialiser)
ORTHODOX_ROOKS = [castle_rooks_word() >> ROOK_FILE_BITS * i & 7 for i in range(4)]
