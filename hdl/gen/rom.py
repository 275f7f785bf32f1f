"""The posdata ROM, initialised at elaboration from engine's tables, in one of two layouts:

* ``dense`` (the default): every walk stored contiguously, 3,992 entries of 15 bits
  (``hdl.image.dense``, where the layout is described with a worked example); five ECP5 block
  RAMs, and a table of start entries of its own (448 x 26 bits, one block RAM; a perft
  engine's, read on two ports, holds a pawn's fields in logic beside it);
* ``sparse``: Sandström's layout, ``posdata[table][from][to]``, 28,672 words of 12 bits
  (``hdl.image.sparse``); 28 block RAMs. Its start entries are words of the same table.

At a geometry with modes (``hdl.image.variant.Geometry.mode_bits``: a variant whose pieces walk
with modes, or any variant built so) the dense ROM holds the walk image instead
(``hdl.image.walks``: each word also carries its successors' modes and skips) and the start
table its first square, base and first mode, whole (a perft engine reads it on two ports); the
walker is ``hdl.gen.legs``.

Both give the walker the same word for the same square (``nextpos | nextdir << 6``; the dense
layout adds ``skip``, how far on the nextdir entry is stored) and the same two bits derived
beside it: whether nextpos, and whether nextdir, leads back to the from-square (the walk, or a
pawn's thread, ends there). The walker needs that answer in the cycle the word arrives from the
block RAM; reading it from the ROM instead of comparing six bits keeps a comparator off the path
that limits the clock.

For an FPGA (elaborated with a platform) the ROM is cut into narrow memories (bit-sliced), so
that each maps onto whole block RAMs with no multiplexer, or one 2:1, between a block RAM and its
register: the sparse ROM as fourteen 28,672 x 1 memories (two 16K x 1 blocks each), the dense
one as 4,096 x 4 memories (one 4K x 4 block each). A wide memory would be mapped as 2K x 9 or
1K x 18 blocks behind a multiplexer tree, several nanoseconds on the path that limits the clock.
In simulation (no platform) each is one memory of whole words, which the simulators read in one
step. Both are the same synchronous ROM: same contents, same one-cycle latency.

The ROMs hold a variant's images as ``hdl.image.variant.variant_image`` built them, once: an
``image`` argument hands them another (the tests' fault injection), and so does replacing this
module's ``variant_image``, where every ROM takes its image from.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.variants import CHESS, get_variant

from ..common.contract import DEFAULT_LAYOUT, ROM_LAYOUTS
from ..image import dense
from ..image.addressing import (
    ADDR_BITS,
    END_BITS,
    PAWN_TABLES,
    TABLE_BITS,
    WORD_BITS,
    rom_address,
    start_address,
)
from ..image.variant import Geometry, VariantImage, geometry_of, variant_image, walk_geometry

LAYOUTS = ROM_LAYOUTS

def read_port(geometry: Geometry) -> wiring.Signature:
    """A read port of the walk ROM, wide enough for either layout (a sparse ROM's word has no
    skip field, a dense ROM's address is shorter)."""
    return wiring.Signature({"addr": Out(ADDR_BITS), "en": Out(1),
                             "data": In(geometry.word_bits), "ends": In(END_BITS)})


def start_port(geometry: Geometry) -> wiring.Signature:
    """Where a piece's walk starts: (table, from-square) in; out the start entry: first square,
    first capture square, and for the dense layout the walk's first address and pawn pushes."""
    return wiring.Signature({"table": Out(TABLE_BITS), "frm": Out(6), "en": Out(1),
                             "data": In(geometry.start_bits)})


ORTHODOX = geometry_of(CHESS)
ReadPort = read_port(ORTHODOX)    #: orthodox chess's (the formal harnesses')
StartPort = start_port(ORTHODOX)


def rom_geometry(variant, geometry: Geometry | None) -> Geometry:
    """The geometry a unit is built with: the variant's own, or a larger one given (with
    modes: one that holds the variant's walk image)."""
    own = walk_geometry(variant) if geometry is not None and geometry.mode_bits else \
        geometry_of(variant)
    if geometry is None:
        return own
    if not geometry.holds(own):
        raise ValueError(f"geometry {geometry} cannot hold the tables of {variant}: {own}")
    return geometry


def check_layout(layout: str) -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"unknown ROM layout {layout!r}: choose from {', '.join(LAYOUTS)}")
    return layout


def check_modes(geometry: Geometry, layout: str, typed_scan: bool = False,
                split_lookup: bool = False) -> None:
    """A geometry with modes (the walk image, hdl.image.walks) is walked from the dense layout
    by the ECP5's generator and perft chip: refuse what it does not have, in one line."""
    if not geometry.mode_bits:
        return
    for asked, what in ((layout == "sparse", "the sparse layout"),
                        (typed_scan or split_lookup, "the iCE40's typed scan and split lookup")):
        if asked:
            raise ValueError(f"walks with modes are stored in the dense layout's walk image: "
                             f"{what} cannot hold them")


def held_image(variant, image: VariantImage | None) -> VariantImage:
    """The image a ROM holds: the one given, or the variant's."""
    if image is None:
        return variant_image(variant)
    if image.variant != get_variant(variant):
        raise ValueError(f"an image of {image.variant.name} for a ROM of {variant}")
    return image


def padded(words, depth: int) -> list[int]:
    """``words`` filled up with zeros to a memory of ``depth`` (a larger geometry's)."""
    if len(words) > depth:
        raise ValueError(f"{len(words)} words do not fit a memory of {depth}")
    return list(words) + [0] * (depth - len(words))


def _sliced_rom(m, image: list[int], width: int, slice_bits: int, ports, platform):
    """One synchronous ROM of ``image`` (``width``-bit words) with a read port per entry of
    ``ports`` ((addr, en) pairs); returns each port's word. Cut into ``slice_bits``-wide memories
    for an FPGA, whole for simulation."""
    step = slice_bits if platform is not None else width
    words = [[] for _ in ports]
    for low in range(0, width, step):
        bits = min(step, width - low)
        mem = Memory(shape=bits, depth=len(image), init=[w >> low & ((1 << bits) - 1)
                                                         for w in image])
        m.submodules[f"bits{low}"] = mem
        for i, (addr, en) in enumerate(ports):
            r = mem.read_port()
            m.d.comb += [r.addr.eq(addr), r.en.eq(en)]
            words[i].append(r.data)
    return [Cat(*w) for w in words]


class PosdataRom(wiring.Component):
    """Two synchronous read ports (one cycle latency; outputs hold while ``en`` is low):
    ``data`` is the posdata word, ``ends`` its two derived end bits.

    Ports
    -----
    a, b : In(read_port(geometry))

    Parameters
    ----------
    layout : "dense" or "sparse"
    variant : the engine.rules.variants name whose tables the ROM holds
    geometry : hdl.image.variant.Geometry, default the variant's own
    image : hdl.image.variant.VariantImage, default the variant's
    """

    def __init__(self, layout: str = DEFAULT_LAYOUT, variant=CHESS,
                 geometry: Geometry | None = None, image: VariantImage | None = None):
        self._layout = check_layout(layout)
        self._image = held_image(variant, image)
        self._geometry = rom_geometry(variant, geometry)
        check_modes(self._geometry, layout)
        port = read_port(self._geometry)
        super().__init__({"a": In(port), "b": In(port)})

    @property
    def layout(self) -> str:
        return self._layout

    def elaborate(self, platform):
        m = Module()
        g = self._geometry
        if g.mode_bits:  # the walk image with modes, its words packed at the geometry's widths
            walks = self._image.walks
            words, ends = walks.words(g.skip_bits)[:len(walks.ends)], walks.ends
            depth, word_bits, slice_bits = g.dense_depth, g.word_bits, 4
        elif self._layout == "sparse":
            held, depth, word_bits, slice_bits = self._image.sparse, g.sparse_depth, WORD_BITS, 1
        else:
            held, depth, word_bits, slice_bits = self._image.dense, g.dense_depth, g.word_bits, 4
        if not g.mode_bits:
            words, ends = held.words, held.ends
        image = padded([w | e << word_bits for w, e in zip(words, ends)], depth)
        ports = [(self.a.addr, self.a.en), (self.b.addr, self.b.en)]
        out = _sliced_rom(m, image, word_bits + END_BITS, slice_bits, ports, platform)
        for port, word in zip((self.a, self.b), out):
            m.d.comb += [port.data.eq(word[:word_bits]), port.ends.eq(word[word_bits:])]
        return m


class StartsFromWalkRom(wiring.Component):
    """Serves a StartPort from a port of a sparse walk ROM: the start entry of (table, from) is
    the word at (table, from, from). (A dense ROM has a StartRom of its own.)"""

    def __init__(self, geometry: Geometry = ORTHODOX):
        super().__init__({"starts": In(start_port(geometry)), "rom": Out(read_port(geometry))})

    def elaborate(self, platform):
        m = Module()
        s = self.starts
        m.d.comb += [self.rom.addr.eq(rom_address(s.table, s.frm, s.frm)),
                     self.rom.en.eq(s.en), s.data.eq(self.rom.data[:WORD_BITS])]
        return m


class StartRom(wiring.Component):
    """The start entries, one per (table, from-square), as a memory of their own, with two
    synchronous read ports: a perft engine's two threads prefetch from it while both walk-ROM
    ports walk; the dense layout's move generator needs it for the walks' first addresses.

    Ports
    -----
    a, b : In(start_port(geometry))

    Parameters
    ----------
    split : bool
        Dense layout: the first square and walk address (18 bits) in block RAM, a pawn's two
        fields (d1 and pushes, zero for other pieces) in logic beside it: each pawn table's 64
        entries, read by the square in the same clock, the table choosing after the read. An
        ECP5 block RAM read on two ports is at most 18 bits wide: split, a perft engine's
        two-port table is one DP16KD, whole (26 bits) two.
        A move generator reads one port, which a whole table fits in one DP16KD (512 x 36).
        At a geometry with modes the table is whole either way (no pawn fields: a pawn walks
        its entries), its 24-bit words two DP16KD on two ports.
    """

    def __init__(self, layout: str = DEFAULT_LAYOUT, variant=CHESS,
                 geometry: Geometry | None = None, split: bool = False,
                 image: VariantImage | None = None):
        self._split = split
        self._layout = check_layout(layout)
        self._image = held_image(variant, image)
        self._geometry = rom_geometry(variant, geometry)
        check_modes(self._geometry, layout)
        port = start_port(self._geometry)
        super().__init__({"a": In(port), "b": In(port)})

    def elaborate(self, platform):
        m = Module()
        g = self._geometry

        def read(mem, port):
            r = mem.read_port()
            m.d.comb += [r.addr.eq(start_address(port.table, port.frm)), r.en.eq(port.en)]
            return r.data

        a = g.dense_addr_bits
        if g.mode_bits:  # first | base | mode, one memory
            m.submodules.mem = mem = Memory(shape=g.start_bits, depth=g.start_depth,
                                            init=padded(self._image.walks.start_words(a),
                                                        g.start_depth))
            for port in (self.a, self.b):
                m.d.comb += port.data.eq(read(mem, port))
            return m
        if self._layout == "sparse":
            starts, width = self._image.sparse.starts, WORD_BITS
        else:
            starts, width = self._image.dense.starts_at(a), g.start_bits
        if self._layout == "sparse" or not self._split:
            m.submodules.mem = mem = Memory(shape=width, depth=g.start_depth,
                                            init=padded(starts, g.start_depth))
            for port in (self.a, self.b):
                m.d.comb += port.data.eq(read(mem, port))
            return m
        entry, block_half, pawn_half = map(data.StructLayout,
                                           (dense.start_fields(a), *dense.start_halves(a)))
        block, pawn = dense.split_starts(starts, a)
        m.submodules.walks = walks = Memory(shape=block_half.size, depth=g.start_depth,
                                            init=padded(block, g.start_depth))
        # A pawn's fields depend on its colour and square alone: each pawn table's 64 entries in
        # logic, read by the square, and the table (behind the board's piece lookup in a thread)
        # picks one after the read's register, not through the logic ROM before it, where it
        # lay on the ULX3S-25F's critical path
        rows = {t: pawn[t << 6:(t + 1) << 6] for t in PAWN_TABLES}
        if any(w for i, w in enumerate(pawn) if i >> 6 not in rows):
            raise ValueError("a pawn's fields in a table not a pawn's")
        for t in PAWN_TABLES:
            m.submodules[f"pawns{t}"] = Memory(shape=pawn_half.size, depth=64, init=rows[t],
                                               attrs={"rom_style": "logic"})
        for port in (self.a, self.b):
            out = entry(port.data)
            got = block_half(read(walks, port))
            m.d.comb += [out[name].eq(got[name]) for name in block_half.members]
            picked = Const(0, pawn_half.size)
            for t in PAWN_TABLES:
                r = m.submodules[f"pawns{t}"].read_port()
                is_table = Signal(name=f"pawn_table{t}")  # held with the read, as its data is
                m.d.comb += [r.addr.eq(port.frm), r.en.eq(port.en)]
                with m.If(port.en):
                    m.d.sync += is_table.eq(port.table == t)
                picked = picked | Mux(is_table, r.data, 0)
            got = pawn_half(picked)
            m.d.comb += [out[name].eq(got[name]) for name in pawn_half.members]
        return m
