"""How the posdata ROMs are addressed, and the widths every image shares: the bottom of
``hdl.image`` (plain Python, no amaranth at import).

The ROM's tables are the engine's, in the engine's order: table ``t`` is ``nextpos[t]`` /
``nextdir[t]`` of ``Variant.tables()``, and the table a piece walks is its ptype
(``engine.rules.defs.ptype``: its code, but a black pawn's is 0). Orthodox chess fills tables 0..6,
7 x 4,096 = 28,672 words; a piece on code 7 takes table 7 and the ROM is 8 tables deep.

``rom_address`` and ``start_address`` are the only description of the addressing: they take
plain integers (the images, the tests) or Amaranth values (the gateware's address logic) alike.
"""

from posdata.engine.rules.defs import BLACK, PAWN, WHITE, ptype

SQUARE_BITS = 6
TABLE_BITS = 3          #: a piece code: 8 tables at most
PUSH_BITS = 2           #: a pawn has at most two pushes
SPARSE_TABLE_WORDS = 64 * 64
WORD_BITS = 2 * SQUARE_BITS  #: a (from, to) word: nextpos | nextdir << 6
END_BITS = 2            #: beside each word: nextpos, nextdir leads back to the from-square
ADDR_BITS = TABLE_BITS + 2 * SQUARE_BITS
ROM_DEPTH = 7 * SPARSE_TABLE_WORDS  #: orthodox chess (other variants: hdl.image.variant.Geometry)
START_DEPTH = 7 * 64    #: start entries: one per (table, from-square); orthodox chess

#: the tables that hold pawn threads (pushes, then captures), the same in every variant
PAWN_TABLES = tuple(sorted({ptype(color, PAWN) for color in (WHITE, BLACK)}))


def rom_address(table, frm, to):
    """The address of entry ``to`` of the walk of ``table`` from ``frm``."""
    if all(isinstance(v, int) for v in (table, frm, to)):
        return table << 12 | frm << 6 | to
    from amaranth import Cat, Value
    parts = [Value.cast(v) for v in (to, frm, table)]
    assert [len(v) for v in parts] == [6, 6, TABLE_BITS], "square, square, table"
    return Cat(*parts)


def start_address(table, frm):
    """The address of the walk of ``table`` from ``frm`` in the table of start entries."""
    if isinstance(table, int) and isinstance(frm, int):
        return table << 6 | frm
    from amaranth import Cat, Value
    return Cat(Value.cast(frm), Value.cast(table))
