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
* **Castling** comes with the position, not the variant (Chess960): its packing is part of the
  hardware contract (``hdl.common.contract.castling_word``).
"""

from dataclasses import dataclass, fields
from functools import cache

from posdata.engine.defs import BLACK, BPAWN, PAWN, WHITE
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
