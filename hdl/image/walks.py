"""The walk image: the dense layout with a mode per entry, for every variant (Muller's legs).

The dense layout (``hdl.image.dense``) stores each walk contiguously, in the order it is
visited; its entry keeps nextpos and nextdir (the squares the walker looks up ahead) and the
distance to the nextdir entry, nextpos being the next entry. A walk with modes
(``engine.rules.pieces``: a hopper's screen search, a lame leap's blocking square, move-only and
capture-only entries, a pawn in the notation) generalises the entry in two fields:

* a mode (5 bits): ``engine.rules.pieces``' QUIET (emit a quiet move on an empty square), CAPTURE
  (a capture on an enemy's), DOUBLE (a pawn's double step), EN_PASSANT, and PROMOTE (a pawn's
  move there promotes: the variant's promotion ranks are data, makruk's sixth as the eighth);
  0 passes through;
* ``pos_skip``: the distance to the entry taken on an empty square (1 in Sandström's walks;
  a grasshopper's screen search skips its landing entries, a lame leap its target).

The walker decides what a square emits while its entry is still being read (``hdl.gen.walker``:
the rule is applied to a context waiting for the ROM), so, as with the squares, an entry's mode
is stored in the entry before it: each word holds the modes of its two successors, and the
start entry the first entry's.

Word, lowest bits first: ``nextpos`` (6), ``nextdir`` (6), ``dir_skip``, ``pos_skip`` (both
``skip_bits``), ``np_mode``, ``nd_mode`` (5 each); beside it the two end bits (nextpos /
nextdir leads home). A successor that ends the walk has skip 0, mode 0 and the from-square as
its square, as in the dense layout. Start entries: the first square (the from-square for an
empty walk), the walk's base address and the first entry's mode.

Tables: a piece walks table ptype (``engine.rules.defs``), as in the sparse and dense images; an
asymmetric piece (``f``, ``b``, ... directions, makruk's khon) walks one table per colour, as
the pawns do, Black's in a table no piece uses (``walk_tables``). A variant whose tables do not
fit in 8 is refused in one line.

Sandström's walks come out entry for entry as the dense image's (tests/hdl/image): the walk
image is that layout with the new fields. The walker reads it at a geometry with modes
(``hdl.image.variant.Geometry.mode_bits``; ``hdl.gen.legs``), the prefetcher finds a piece's
table in a 16-entry table by (colour, code) (``table_lookup``): a variant is then its memories'
contents alone.
"""

from dataclasses import dataclass
from functools import cache

from posdata.engine.rules.capabilities import refusal
from posdata.engine.rules.defs import BLACK, N_TABLES, PAWN, WHITE, ptype
from posdata.engine.rules.pieces import Walk, parse_piece
from posdata.engine.rules.posdata import NEXTDIR_ROWS, NEXTPOS_ROWS, piece_walks, sandstrom_walk
from posdata.engine.rules.variant_data import variant_data
from posdata.engine.rules.variants import Variant, VariantError, get_variant

from .addressing import SQUARE_BITS

MODE_BITS = 5
PROMOTE = 16  #: a mode bit beside engine.rules.pieces' four: the move promotes


def word_fields(skip_bits: int, mode_bits: int = MODE_BITS) -> dict[str, int]:
    """A walk entry's fields and widths, lowest bits first."""
    return {"nextpos": SQUARE_BITS, "nextdir": SQUARE_BITS, "dir_skip": skip_bits,
            "pos_skip": skip_bits, "np_mode": mode_bits, "nd_mode": mode_bits}


def start_fields(addr_bits: int, mode_bits: int = MODE_BITS) -> dict[str, int]:
    """A start entry's fields and widths, lowest bits first."""
    return {"first": SQUARE_BITS, "base": addr_bits, "mode": mode_bits}


def pack(fields: dict[str, int], values: dict) -> int:
    word = shift = 0
    for name, width in fields.items():
        if not 0 <= values[name] < 1 << width:
            raise ValueError(f"{name} = {values[name]} does not fit in {width} bits")
        word |= values[name] << shift
        shift += width
    return word


@dataclass(frozen=True)
class WalkImage:
    variant: Variant
    tables: dict              #: (colour, code) -> the table its walks are stored under
    #: by address: the word's fields (``word_fields``), and for reading: the entry's own square
    #: and mode
    entries: tuple[dict, ...]
    ends: tuple[int, ...]     #: by address: bit 0 nextpos, bit 1 nextdir leads home
    #: by table * 64 + from: (first square, base, first mode)
    starts: tuple[tuple[int, int, int], ...]
    skip_bits: int
    addr_bits: int

    @property
    def table_count(self) -> int:
        return 1 + max(self.tables.values())

    @property
    def depth(self) -> int:
        """The ROM's depth: entries, padded to a power of two."""
        return 1 << self.addr_bits

    @property
    def word_bits(self) -> int:
        return sum(word_fields(self.skip_bits).values())

    def words(self, skip_bits: int | None = None) -> list[int]:
        """The entries packed by ``word_fields`` (with a larger geometry's ``skip_bits``),
        padded to ``depth``."""
        fields = word_fields(self.skip_bits if skip_bits is None else skip_bits)
        out = [pack(fields, e) for e in self.entries]
        return out + [0] * (self.depth - len(out))

    def start_words(self, addr_bits: int | None = None) -> list[int]:
        """The start entries packed by ``start_fields`` (with a larger geometry's
        ``addr_bits``), by table * 64 + from."""
        fields = start_fields(self.addr_bits if addr_bits is None else addr_bits)
        # an empty walk's base is never read (it may be the address past the last entry)
        return [pack(fields, {"first": first, "base": 0 if first == i & 63 else base,
                              "mode": mode})
                for i, (first, base, mode) in enumerate(self.starts)]

    def table_lookup(self) -> list[int]:
        """By colour << 3 | code: the table the piece walks (0 for codes no piece has)."""
        return [self.tables.get((color, code), 0) for color in (WHITE, BLACK)
                for code in range(N_TABLES)]


def walk_tables(variant) -> dict:
    """(colour, code) -> table: ptype, and for Black's asymmetric pieces a free table."""
    variant = get_variant(variant)
    tables = {(c, p.code): ptype(c, p.code) for p in variant.pieces for c in (WHITE, BLACK)}
    used = set(tables.values())
    for p in variant.pieces:
        if p.code != PAWN and parse_piece(p.moves).asymmetric:
            free = [t for t in range(N_TABLES) if t not in used]
            if not free:  # the declaration's line (engine.rules.capabilities), held to this check
                raise VariantError(refusal(variant, "gen") or f"{variant.name}'s {p.name} moves "
                                   f"by colour: no table left for Black's")
            tables[BLACK, p.code] = free[0]
            used.add(free[0])
    return tables


def piece_walk_rows(variant, color: int, code: int) -> tuple[Walk, ...]:
    """The 64 walks of a piece, as the reference walks them."""
    variant = get_variant(variant)
    if code == PAWN and variant.pawn is None:  # the orthodox threads
        t = ptype(color, PAWN) * 64
        return tuple(sandstrom_walk(NEXTPOS_ROWS[t + f], NEXTDIR_ROWS[t + f], f, pawn=True)
                     for f in range(64))
    if code == PAWN:
        return piece_walks(variant.pawn, color, pawn=True)
    return piece_walks(variant.by_code[code].moves, color)


@cache
def walk_image(variant) -> WalkImage:
    variant = get_variant(variant)
    tables = walk_tables(variant)
    by_table = {}
    for (color, code), t in sorted(tables.items(), key=lambda kv: kv[1]):
        by_table.setdefault(t, piece_walk_rows(variant, color, code))
    entries, ends, starts = [], [], [(0, 0, 0)] * ((1 + max(tables.values())) * 64)
    promoting = {t: variant_data(variant).promoting[color]
                 for (color, code), t in tables.items() if code == PAWN}
    for t in sorted(by_table):
        for frm, walk in enumerate(by_table[t]):
            base = len(entries)
            n = len(walk)
            modes = [m | (PROMOTE if t in promoting and u in promoting[t] else 0)
                     for u, m in zip(walk.squares, walk.modes)] + [0]  # [n]: the end's
            starts[t * 64 + frm] = (walk.squares[0] if n else frm, base, modes[0])
            for i, u in enumerate(walk.squares):
                e, o = walk.on_empty[i], walk.on_occupied[i]
                entries.append({
                    "square": u, "mode": modes[i],
                    "nextpos": walk.squares[e] if e < n else frm,
                    "nextdir": walk.squares[o] if o < n else frm,
                    "pos_skip": e - i if e < n else 0, "dir_skip": o - i if o < n else 0,
                    "np_mode": modes[e], "nd_mode": modes[o]})
                ends.append(int(e == n) | int(o == n) << 1)
    longest = max((max(e["pos_skip"], e["dir_skip"]) for e in entries), default=1)
    addr_bits = max(1, (len(entries) - 1).bit_length())
    return WalkImage(variant, tables, tuple(entries), tuple(ends), tuple(starts),
                     max(1, longest.bit_length()), addr_bits)

