"""The sparse posdata image: Sandström's (table, from, to) layout, from engine's tables (never a
copy). Plain Python (no amaranth at import).

Word: ``nextpos | nextdir << 6`` (12 bits) at ``rom_address(table, from, to)``
(``hdl.image.addressing``). Beside each word two bits derived from the same tables: whether
nextpos, and whether nextdir, leads back to the from-square (see ``hdl.gen.rom`` for why). The
start entries ``posdata[table][from][from]`` (where a piece's walk begins) are also a table of
their own, one word per (table, from-square), so that a prefetcher need not take a port of the
walk ROM.
"""

from dataclasses import dataclass
from functools import cache

from posdata.engine.rules.variants import Variant

from .addressing import SPARSE_TABLE_WORDS, rom_address, start_address


@dataclass(frozen=True)
class SparseImage:
    words: tuple[int, ...]   #: by rom_address: nextpos | nextdir << 6
    ends: tuple[int, ...]    #: by rom_address: bit 0 nextpos, bit 1 nextdir leads home
    starts: tuple[int, ...]  #: by start_address: the word at (table, from, from)


@cache
def rom_words(variant: Variant) -> tuple[int, ...]:
    """The sparse words of a variant's tables, in the engine's (the ROM's) order, up to the last
    table a piece walks: 7 tables, 8 when a piece has code 7."""
    nextpos, nextdir = variant.tables()
    tables = 1 + max(t for t, what in enumerate(variant.layout) if what is not None)
    words = nextpos[:tables].astype(int) | nextdir[:tables].astype(int) << 6  # [t][from][to]
    return tuple(words.reshape(-1).tolist())


def sparse_image(words) -> SparseImage:
    """The sparse image of ``words``, its end bits and start entries derived from them."""
    words = tuple(words)
    tables = len(words) // SPARSE_TABLE_WORDS
    ends = tuple(int(w & 63 == a >> 6 & 63) | int(w >> 6 == a >> 6 & 63) << 1
                 for a, w in enumerate(words))
    starts = [0] * (tables * 64)
    for table in range(tables):
        for frm in range(64):
            starts[start_address(table, frm)] = words[rom_address(table, frm, frm)]
    return SparseImage(words, ends, tuple(starts))
