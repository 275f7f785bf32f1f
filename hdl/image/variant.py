"""What the gateware holds per variant, as plain data (no amaranth at import): the walker,
prefetcher and merger RTL is the same for every variant; a variant changes only memory contents
and the widths derived from its tables.

* **Tables**: the sparse image (``hdl.image.sparse``) of ``engine.variants``' tables, in the
  engine's order (a piece walks table ptype: ``hdl.image.addressing``), and the dense image
  (``hdl.image.dense``) derived from it.
* **Geometry**: the widths and depths the tables need (tables, the dense ROM's address bits, the
  skip field, the promotion index), derived from the images, never set by hand. A bigger
  geometry than a variant needs also holds it (``Geometry.union``): the structure test builds
  every variant's RTL at one geometry and compares.
* **Promotions**: a small table by (side, index): the piece and whether it is the side's last
  (``promotion_image``); the merger walks it, so a side may have any number of promotions.
* **Castling** comes with the position, not the variant (Chess960): its packing is part of the
  hardware contract (``hdl.common.contract.castling_word``).

``variant_image`` builds all of it once per variant; the ROMs (``hdl.gen.rom``) are handed it.
"""

from dataclasses import dataclass, fields
from functools import cache

from posdata.engine.defs import BLACK, WHITE
from posdata.engine.variants import CHESS, VARIANTS, Variant, VariantError, get_variant

from .addressing import PUSH_BITS, SPARSE_TABLE_WORDS, SQUARE_BITS
from .dense import DenseImage, dense_image
from .sparse import SparseImage, rom_words, sparse_image


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
    variant: Variant
    sparse: SparseImage       #: the (table, from, to) words, their end bits, the start entries
    dense: DenseImage         #: the same walks stored by walk, at its own address width
    geometry: Geometry        #: what the images need
    promotions: tuple         #: per side, the promotion piece codes in generation order

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
    most = max(len(p) for p in variant.promotions)
    geometry = Geometry(tables=len(words) // SPARSE_TABLE_WORDS,
                        dense_addr_bits=dense.addr_bits,
                        skip_bits=max(1, dense.max_skip.bit_length()),
                        promo_bits=max(1, (most - 1).bit_length()))
    return VariantImage(variant, sparse_image(words), dense, geometry, variant.promotions)


@cache
def _built(variant: Variant) -> VariantImage:
    if variant.has_modes:
        raise VariantError(f"the gateware generator walks Sandström's (from, to) tables: "
                           f"{variant.name}'s pieces walk with modes, which its walker does not "
                           f"follow yet (hdl.image.walks holds their image); use --backend sw")
    return image_of(variant, rom_words(variant))


def variant_image(variant=CHESS) -> VariantImage:
    """A variant's images (a Variant or a name), built once."""
    return _built(get_variant(variant))


def geometry_of(variant=CHESS) -> Geometry:
    return variant_image(variant).geometry


#: the variants the gateware generator holds: Sandström's tables, no walks with modes (yet)
GATEWARE_VARIANTS = tuple(v for v in VARIANTS if not v.has_modes)


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
