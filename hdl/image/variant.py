"""What the gateware holds per variant, as plain data (no amaranth at import): the walker,
prefetcher and merger RTL is the same for every variant; a variant changes only memory contents
and the widths derived from its tables.

* **Tables**: the sparse image (``hdl.image.sparse``) of ``engine.rules.variants``' tables, in the
  engine's order (a piece walks table ptype: ``hdl.image.addressing``), and the dense image
  (``hdl.image.dense``) derived from it.
* **Geometry**: the widths and depths the tables need (tables, the dense ROM's address bits, the
  skip field, the promotion index), derived from the images, never set by hand. A bigger
  geometry than a variant needs also holds it (``Geometry.union``): the structure test builds
  every variant's RTL at one geometry and compares.
* **Walks with modes** (Muller's legs: ``hdl.image.walks``): a variant whose pieces walk with
  modes has no (from, to) tables; its ROM holds the walk image, whose words carry each
  successor's mode and both skips. ``Geometry.mode_bits`` is the switch: 0 for Sandström's
  words (orthodox chess, Chess960 and the four older fairy variants: today's words and RTL), the
  mode's width for the walk image. Any variant's walks fit a geometry with modes
  (``walk_geometry``); the structure test builds every variant at one such geometry.
* **Promotions**: a small table by (side, index): the piece and whether it is the side's last
  (``promotion_image``); the merger walks it, so a side may have any number of promotions.
* **Castling** comes with the position, not the variant (Chess960): its packing is part of the
  hardware contract (``hdl.common.contract.castling_word``).

``variant_image`` builds all of it once per variant; the ROMs (``hdl.gen.rom``) are handed it.
"""

from dataclasses import dataclass, fields
from functools import cache

from posdata.engine.rules.defs import BLACK, WHITE
from posdata.engine.rules.variants import CHESS, VARIANTS, Variant, get_variant

from .addressing import SPARSE_TABLE_WORDS, SQUARE_BITS
from .dense import DenseImage, dense_image, start_fields
from .sparse import SparseImage, rom_words, sparse_image
from .walks import MODE_BITS, WalkImage, walk_image
from .walks import start_fields as walk_start_fields


@dataclass(frozen=True)
class Geometry:
    tables: int           #: ROM tables (7, or 8 when a piece has code 7)
    dense_addr_bits: int  #: the dense walk ROM's address; its depth is ``1 << dense_addr_bits``
    skip_bits: int        #: the dense entry's nextdir skip
    promo_bits: int       #: index of a promotion within a side's set
    mode_bits: int = 0    #: 0: Sandström's words; else the walk image's mode (hdl.image.walks)

    @property
    def word_bits(self) -> int:
        """A dense ROM word: nextpos | nextdir << 6 | skip << 12; with modes the walk image's
        (``hdl.image.walks.word_fields``): a skip and a mode per successor."""
        if self.mode_bits:
            return 2 * (SQUARE_BITS + self.skip_bits + self.mode_bits)
        return 2 * SQUARE_BITS + self.skip_bits

    @property
    def start_fields(self) -> dict[str, int]:
        """A start entry's fields and widths, lowest bits first: the dense layout's
        (``hdl.image.dense.start_fields``), or with modes the walk image's (first, base, mode)."""
        if self.mode_bits:
            return walk_start_fields(self.dense_addr_bits, self.mode_bits)
        return start_fields(self.dense_addr_bits)

    @property
    def start_bits(self) -> int:
        """A start entry: first | d1 << 6 | base << 12 | pushes (with modes: first | base |
        mode)."""
        return sum(self.start_fields.values())

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
    variant: Variant
    #: the (table, from, to) words, their end bits, the start entries (None: walks with modes)
    sparse: SparseImage | None
    dense: DenseImage | None  #: the same walks stored by walk, at its own address width
    geometry: Geometry        #: what the images need
    promotions: tuple         #: per side, the promotion piece codes in generation order

    @property
    def walks(self) -> WalkImage:
        """The walk image with modes (every variant has one; a geometry with modes holds it)."""
        return walk_image(self.variant)

    @property
    def words(self) -> tuple[int, ...]:
        """The sparse words, by hdl.image.addressing.rom_address."""
        return self.sparse.words

    def with_word(self, address: int, word: int) -> "VariantImage":
        """This image with one sparse word changed and everything derived from the words (end
        bits, start entries, the dense image) derived again: the tests' fault injection."""
        words = list(self.words)
        words[address] = word
        return image_of(self.variant, words)


def image_of(variant: Variant, words) -> VariantImage:
    """The images and geometry of ``variant`` holding the sparse words ``words``."""
    dense = dense_image(words)
    geometry = Geometry(tables=len(words) // SPARSE_TABLE_WORDS,
                        dense_addr_bits=dense.addr_bits,
                        skip_bits=max(1, dense.max_skip.bit_length()),
                        promo_bits=promo_bits_of(variant))
    return VariantImage(variant, sparse_image(words), dense, geometry, variant.promotions)


def promo_bits_of(variant: Variant) -> int:
    return max(1, (max(len(p) for p in variant.promotions) - 1).bit_length())


def walk_geometry(variant=CHESS) -> Geometry:
    """The geometry of a variant's walk image (with modes): any variant's walks fit one."""
    variant = get_variant(variant)
    walks = walk_image(variant)
    return Geometry(tables=walks.table_count, dense_addr_bits=walks.addr_bits,
                    skip_bits=walks.skip_bits, promo_bits=promo_bits_of(variant),
                    mode_bits=MODE_BITS)


@cache
def _built(variant: Variant) -> VariantImage:
    if variant.has_modes:  # no (from, to) tables: the walk image alone
        return VariantImage(variant, None, None, walk_geometry(variant), variant.promotions)
    return image_of(variant, rom_words(variant))


def variant_image(variant=CHESS) -> VariantImage:
    """A variant's images (a Variant or a name), built once."""
    return _built(get_variant(variant))


def geometry_of(variant=CHESS) -> Geometry:
    return variant_image(variant).geometry


#: the variants whose gateware walks Sandström's (from, to) words (no modes: today's RTL)
GATEWARE_VARIANTS = tuple(v for v in VARIANTS if not v.has_modes)
#: the variants whose gateware walks the walk image with modes
MODED_VARIANTS = tuple(v for v in VARIANTS if v.has_modes)


def hardware_name(variant) -> str:
    """The first registered variant whose gateware is the same (Chess960 is chess's: its
    castling comes with the position): one compiled model, one bitstream for both."""
    variant = get_variant(variant)
    for v in VARIANTS:
        if v.layout == variant.layout and v.promotions == variant.promotions:
            return v.name
    return variant.name


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
