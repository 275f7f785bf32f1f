"""The posdata ROM's contents and addressing, from engine's tables (never a copy). Plain Python
(no amaranth at import): the gateware (``hdl.gen.rom``, ``hdl.gen.prefetch``, ``hdl.gen.walker``)
and the tests read it.

Word: ``nextpos | nextdir << 6`` (12 bits). Address: ``table << 12 | from << 6 | to``, where
``table`` is the ptype with BPAWN (7) folded onto the unused slot 0, so 7 tables fill
7 * 4096 = 28672 words (other variants: ``hdl.image.variant``; a piece on code 7 takes table
7, and the ROM is 8 tables deep). Beside each word two bits derived from the same tables: whether
nextpos, and whether nextdir, leads back to the from-square (see ``hdl.gen.rom`` for why).

``table_index``, ``rom_address`` and ``start_address`` are the only description of the
addressing: they take plain integers (the images, the tests) or Amaranth values (the gateware's
address logic) alike. The start entries ``posdata[table][from][from]`` (where a piece's walk
begins) are also available as a table of their own, 448 words (``start_image``), so that a
prefetcher need not take a port of the walk ROM.
"""

from functools import cache

from posdata.engine.defs import BPAWN
from posdata.engine.variants import CHESS, get_variant

from .variant import SPARSE_TABLE_WORDS, engine_table

WORD_BITS = 12
END_BITS = 2
TABLE_BITS = 3
ADDR_BITS = TABLE_BITS + 12
ROM_DEPTH = 7 * 4096  #: orthodox chess (other variants: hdl.image.variant.Geometry)


def table_index(ptype):
    """The ROM table of a ptype: BPAWN shares slot 0 (NO_PIECE has no table)."""
    if isinstance(ptype, int):
        return 0 if ptype == BPAWN else ptype
    from amaranth import Mux
    return Mux(ptype == BPAWN, 0, ptype)


def rom_address(table, frm, to):
    """The address of entry ``to`` of the walk of ``table`` from ``frm``."""
    if all(isinstance(v, int) for v in (table, frm, to)):
        return table << 12 | frm << 6 | to
    from amaranth import Cat, Value
    parts = [Value.cast(v) for v in (to, frm, table)]
    assert [len(v) for v in parts] == [6, 6, TABLE_BITS], "square, square, table"
    return Cat(*parts)


START_DEPTH = 7 * 64  #: start entries: one per (table, from-square); orthodox chess


def start_address(table, frm):
    """The address of the walk of ``table`` from ``frm`` in the table of start entries."""
    if isinstance(table, int) and isinstance(frm, int):
        return table << 6 | frm
    from amaranth import Cat, Value
    return Cat(Value.cast(frm), Value.cast(table))


@cache
def rom_words(variant=CHESS) -> tuple[int, ...]:
    """The sparse ROM of a variant (read-only): its tables in ROM order, 7 of them unless a
    piece has code 7."""
    variant = get_variant(variant)
    nextpos, nextdir = variant.tables()
    tables = 8 if variant.layout[0] is not None else 7
    image = [0] * (tables * SPARSE_TABLE_WORDS)
    for table in range(tables):
        t = engine_table(table)
        words = nextpos[t].astype(int) | nextdir[t].astype(int) << 6  # [from][to]
        base = rom_address(table, 0, 0)
        image[base:base + SPARSE_TABLE_WORDS] = words.reshape(-1).tolist()
    return tuple(image)


def rom_image(variant=CHESS) -> list[int]:
    """The sparse ROM of a variant, a list of its own (the tests' fault injection edits it)."""
    return list(rom_words(variant))


def end_image(words: list[int] | None = None) -> list[int]:
    """Per ROM address: bit 0 = (nextpos == from), bit 1 = (nextdir == from), derived from
    ``words`` (default: ``rom_image()``)."""
    if words is None:
        words = rom_image()
    return [int(w & 63 == a >> 6 & 63) | int(w >> 6 == a >> 6 & 63) << 1
            for a, w in enumerate(words)]


def start_image(words: list[int] | None = None) -> list[int]:
    """The start entries ``posdata[table][from][from]`` (first square | first capture square
    << 6) by ``start_address``, taken from ``words`` (default: ``rom_image()``)."""
    if words is None:
        words = rom_image()
    tables = len(words) // SPARSE_TABLE_WORDS
    image = [0] * (tables * 64)
    for table in range(tables):
        for frm in range(64):
            image[start_address(table, frm)] = words[rom_address(table, frm, frm)]
    return image
