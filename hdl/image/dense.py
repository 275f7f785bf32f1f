"""The dense posdata layout: Sandström's table stored by walk instead of by (from, to).

Of the 28,672 words of the (table, from, to) layout only 3,992 can ever be reached by a walk
(plus the 448 start entries ``posdata[table][from][from]``), and no walk is longer than 27 entries
(a queen in the centre). Here every walk is stored contiguously, its entries in the order a walk
visits them, walks one after another in (table, from) order:

* a knight .. king: the entries of its nextpos chain, that is every target, ray after ray. So
  **nextpos is always the next entry**, and nextdir (the first square of the next ray) is a few
  entries further on: the entry keeps that distance, ``skip`` (1 .. 7, the length of a ray);
* a pawn: its push thread (nextpos chain), then its capture thread (nextdir chain, ``skip`` 1).

An entry holds the same 12-bit word as the (from, to) layout, ``nextpos | nextdir << 6``: the
walker needs the *square* of the next entry while it waits for that entry's word (to look up the
square's colour ahead), and the pointers give it; the entry's address is this entry's plus 1
(nextpos) or plus ``skip`` (nextdir). Word: ``nextpos | nextdir << 6 | skip << 12``, 15 bits,
with the same two end bits beside it (nextpos / nextdir leads back to the from-square).

A walk's start entry gives its first square, the walk's first address ``base``, and for a pawn
its first capture square ``d1`` (as in the (from, to) layout) and the number of pushes stored
before the captures (so the capture thread starts at ``base + pushes``): 26 bits, one of 448.
Only a pawn's walk has a second thread, so other pieces' entries hold 0 in d1 and pushes; the
gateware stores those two fields for the two pawn tables only, in logic, and the rest (first and
base, 18 bits) in block RAM, where 18 bits is what one ECP5 DP16KD gives each of its two ports
(``split_starts``).

Worked example, the white knight on g1 (table 2, 3 targets in GNU Chess's direction order:
e2, f3, h3). Its start entry: first = e2, base = 345 (d1 = pushes = 0: not a pawn). Its walk:

    address  square  nextpos  nextdir  skip  ends
    345      e2      f3       f3       1     -     e2 empty: a quiet move, on to 345 + 1;
                                                   e2 occupied: nextdir, 345 + 1 as well
    346      f3      h3       h3       1     -
    347      h3      g1       g1       0     both  back at g1 either way: the walk ends

Everything here is derived from the (from, to) words (``hdl.image.sparse``), never from a
copy, so a word corrupted by the tests' fault injection corrupts the dense image the same way.
"""

from dataclasses import dataclass

from .addressing import (
    PAWN_TABLES,
    PUSH_BITS,
    SPARSE_TABLE_WORDS,
    SQUARE_BITS,
    rom_address,
    start_address,
)

MAX_WALK = 64       #: a corrupted chain that never returns is cut here (64 > any real walk)
MAX_SKIP_BITS = 3   #: the skip field is at most this wide (a ray of 8x8 has at most 7 squares)
BLOCK_FIELDS = ("first", "base")  #: the start entry's fields the gateware keeps in block RAM ...
PAWN_FIELDS = ("d1", "pushes")    #: ... and in logic (zero but for the pawn tables)


def start_fields(addr_bits: int) -> dict[str, int]:
    """A start entry's fields and widths, lowest bits first: the one layout the image, its
    split and the gateware's views of it (``amaranth.lib.data.StructLayout``) all use."""
    return {
        "first": SQUARE_BITS,   # nextpos[from][from]: the first square (a pawn's first push)
        "d1": SQUARE_BITS,      # nextdir[from][from]: a pawn's first capture square
        "base": addr_bits,      # dense layout: the walk's first address ...
        "pushes": PUSH_BITS,    # ... and a pawn's pushes, stored before its captures
    }


def start_halves(addr_bits: int) -> tuple[dict[str, int], dict[str, int]]:
    """The fields of ``start_fields`` the gateware splits off: ``BLOCK_FIELDS``, then
    ``PAWN_FIELDS``, each in ``start_fields``' order."""
    fields = start_fields(addr_bits)
    return tuple({name: width for name, width in fields.items() if name in names}
                 for names in (BLOCK_FIELDS, PAWN_FIELDS))


def pack(fields: dict[str, int], values: dict[str, int]) -> int:
    """``values`` (by field name; a missing field is 0) as one word laid out by ``fields``."""
    word = shift = 0
    for name, width in fields.items():
        value = values.get(name, 0)
        if not 0 <= value < 1 << width:
            raise ValueError(f"{name} = {value} does not fit in {width} bits")
        word |= value << shift
        shift += width
    return word


def unpack(fields: dict[str, int], word: int) -> dict[str, int]:
    """The fields of ``word``, laid out by ``fields``."""
    values, shift = {}, 0
    for name, width in fields.items():
        values[name] = word >> shift & (1 << width) - 1
        shift += width
    return values


@dataclass(frozen=True)
class DenseImage:
    words: list[int]        #: by dense address: nextpos | nextdir << 6 | skip << 12, padded
    ends: list[int]         #: by dense address: bit 0 nextpos, bit 1 nextdir leads home
    starts: list[int]       #: by start_address, packed by ``start_fields(addr_bits)``
    address: dict           #: (table, from, to) -> dense address, for the tests
    entries: int            #: entries stored (3,992 for the engine's tables)
    max_skip: int           #: the longest skip (7 for orthodox chess)
    addr_bits: int          #: A, the address width ``starts`` was packed with

    def starts_at(self, addr_bits: int) -> list[int]:
        """The start entries packed with a wider walk address (a larger geometry's)."""
        if addr_bits == self.addr_bits:
            return self.starts
        own, wide = start_fields(self.addr_bits), start_fields(addr_bits)
        return [pack(wide, unpack(own, s)) for s in self.starts]


def _chain(words, table, frm, field):
    """The squares of a chain from ``frm`` through ``field`` (0: nextpos, 6: nextdir)."""
    out = []
    u = words[rom_address(table, frm, frm)] >> field & 63
    while u != frm and len(out) < MAX_WALK:
        out.append(u)
        u = words[rom_address(table, frm, u)] >> field & 63
    return out


def walk_order(words, table: int, frm: int) -> tuple[list[int], int]:
    """The squares of the walk of ``table`` from ``frm`` in storage order, and how many of them
    are pawn pushes."""
    if table in PAWN_TABLES:
        pushes = _chain(words, table, frm, 0)
        return pushes + _chain(words, table, frm, 6), len(pushes)
    return _chain(words, table, frm, 0), 0


def dense_image(words, addr_bits: int | None = None) -> DenseImage:
    """The dense image of the sparse words ``words`` (``hdl.image.sparse``). Start entries
    carry the walk's address in ``addr_bits`` bits (default: as many as the entries need)."""
    tables = len(words) // SPARSE_TABLE_WORDS
    walks = {(table, frm): walk_order(words, table, frm)
             for table in range(tables) for frm in range(64)}
    entries = sum(len(order) for order, _ in walks.values())
    if addr_bits is None:
        addr_bits = max(1, (entries - 1).bit_length())
    if entries > 1 << addr_bits:
        raise ValueError(f"the dense posdata image needs {entries} entries: more than "
                         f"{addr_bits} address bits hold")
    dense, ends = [0] * (1 << addr_bits), [0] * (1 << addr_bits)  # the ROM's depth
    starts = [0] * (tables * 64)
    address = {}
    base = 0
    max_skip = 0
    for (table, frm), (order, pushes) in walks.items():
        position = {}
        for i, u in enumerate(order):
            position.setdefault(u, i)
            address[table, frm, u] = base + i
        for i, u in enumerate(order):
            w = words[rom_address(table, frm, u)]
            nextpos, nextdir = w & 63, w >> 6
            capture_thread = table in PAWN_TABLES and i >= pushes
            skip = 0
            if (table not in PAWN_TABLES or capture_thread) and nextdir != frm:
                skip = position.get(nextdir, i) - i
                if not 0 < skip < 1 << MAX_SKIP_BITS:
                    raise ValueError(f"nextdir of table {table} from {frm} at {u} is "
                                     f"{skip} entries on: no {MAX_SKIP_BITS}-bit skip holds it")
            max_skip = max(max_skip, skip)
            dense[base + i] = w | skip << 12
            ends[base + i] = int(nextpos == frm) | int(nextdir == frm) << 1
        first = words[rom_address(table, frm, frm)]  # first | d1 << 6
        d1 = first >> 6 if table in PAWN_TABLES else 0
        starts[start_address(table, frm)] = pack(start_fields(addr_bits), {
            "first": first & 63, "d1": d1, "base": base, "pushes": pushes})
        base += len(order)
    return DenseImage(dense, ends, starts, address, base, max_skip, addr_bits)


def split_starts(starts: list[int], addr_bits: int) -> tuple[list[int], list[int]]:
    """The start entries as the gateware stores them: the ``BLOCK_FIELDS`` of every entry (block
    RAM), and the ``PAWN_FIELDS``, zero but for the pawn tables (logic), each packed in the
    order ``start_fields`` gives."""
    fields = start_fields(addr_bits)
    block, pawn = ([pack(half, unpack(fields, s)) for s in starts]
                   for half in start_halves(addr_bits))
    return block, pawn
