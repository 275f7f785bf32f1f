"""The perft chip at the geometry with modes: what a thread needs beyond Sandström's chip to
count the variants whose pieces walk with modes (``hdl.image.walks``), as data, so that one RTL
serves them all and a variant is its memories' contents.

* **The geometry**: one for every variant with modes (``modes_geometry``, the union of their
  walk images' geometries), so their chips differ in memory contents alone and share one
  compiled model; a variant without modes keeps its own Sandström geometry, its chip as it was.
* **Promotions** per side (piece, last), and how many leaves a promotion counts, as small
  tables (``PromotionTable``): makruk's and shatranj's one piece, grasshopper's five.
* **En passant's victim** (Berolina: the pawn that passed stands beside the square it crossed,
  not behind it): the last double step's to-square, kept with the position
  (``hdl.chip.make_unmake``) and loaded with the root (``root_layout``).
* **The bare king** (shatranj, as ``engine.rules.movegen.bare_king_ended``): a node whose game
  has ended generates no moves; a table bit says whether the variant has the rule
  (``BareKing``).
"""

from functools import cache

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.defs import BLACK, WHITE
from posdata.engine.rules.variants import get_variant

from ..common.contract import POSITION_FIELDS, SQUARE_BITS
from ..common.layouts import PIECE, Position
from ..image.variant import (
    MODED_VARIANTS,
    PROMO_PIECE_BITS,
    Geometry,
    geometry_of,
    promotion_image,
    walk_geometry,
)

#: the root as a chip with modes takes it: the position and en passant's victim (packed on the
#: host by hdl.common.contract.root_word)
RootWithVictim = data.StructLayout({**dict(POSITION_FIELDS), "ep_victim": SQUARE_BITS})


@cache
def modes_geometry() -> Geometry:
    """The perft chip's one geometry with modes: it holds every variant with modes."""
    g = walk_geometry(MODED_VARIANTS[0])
    for v in MODED_VARIANTS[1:]:
        g = g.union(walk_geometry(v))
    return g


def chip_geometry(variant) -> Geometry:
    """The geometry a perft chip of ``variant`` is built at (see the module's docstring)."""
    variant = get_variant(variant)
    if not variant.has_modes:
        return geometry_of(variant)
    return modes_geometry().union(walk_geometry(variant))  # a made-up variant's may be larger


def root_layout(geometry: Geometry):
    """What the chip takes as its root's position: with modes, the victim too."""
    return RootWithVictim if geometry.mode_bits else Position


class PromotionTable(wiring.Component):
    """Combinational: a side's promotion piece ``index`` and whether it is the side's last
    (``hdl.image.variant.promotion_image``, the merger's table), and how many pieces the
    side promotes to (the leaves a bulk count's promotion counts).

    Ports
    -----
    side, index : In
    piece : Out(PIECE), last : Out(1), count : Out
    """

    def __init__(self, promotions, promo_bits: int):
        self._promotions = promotions
        self._bits = promo_bits
        super().__init__({"side": In(1), "index": In(promo_bits), "piece": Out(PIECE),
                          "last": Out(1), "count": Out(promo_bits + 1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.pieces = pieces = Memory(
            shape=PROMO_PIECE_BITS + 1, depth=2 << self._bits,
            init=promotion_image(self._promotions, self._bits), attrs={"rom_style": "logic"})
        m.submodules.counts = counts = Memory(
            shape=self._bits + 1, depth=2,
            init=[len(self._promotions[WHITE]), len(self._promotions[BLACK])],
            attrs={"rom_style": "logic"})
        r = pieces.read_port(domain="comb")
        c = counts.read_port(domain="comb")
        m.d.comb += [r.addr.eq(Cat(self.index, self.side)), c.addr.eq(self.side),
                     self.piece.eq(r.data[:PROMO_PIECE_BITS]),
                     self.last.eq(r.data[PROMO_PIECE_BITS]), self.count.eq(c.data)]
        return m


def at_least(bits, n: int):
    """Has ``bits`` ``n`` or more bits set (n small)? A tree of counts that stop at ``n``: a
    level of LUTs per halving of 64 bits, where clearing the lowest set bit n - 1 times would
    chain n - 1 carries of the plane's width in one clock."""
    width = n.bit_length()
    counts = [bits[i] for i in range(len(bits))]
    while len(counts) > 1:
        pairs = [counts[i] + counts[i + 1] for i in range(0, len(counts) - 1, 2)]
        tail = counts[len(counts) - 1:] if len(counts) % 2 else []
        counts = [Mux(s >= n, n, s)[:width] for s in pairs] + tail
    return counts[0] >= n


class BareKing(wiring.Component):
    """Shatranj's end of the game (``engine.rules.movegen.bare_king_ended``): the side not to
    move has its king alone against two pieces or more, or the side to move has its king alone
    against three or more. ``ended`` is registered from the board (two clocks behind it: a node
    is generated clocks after its board's last write); the rule applies where the variant's
    table bit says so.

    Ports
    -----
    empty, black : In(64)
        The board's colour planes.
    side : In
    ended : Out
    """

    def __init__(self, variant):
        self._rule = int(get_variant(variant).bare_king)
        super().__init__({"empty": In(64), "black": In(64), "side": In(1), "ended": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.rule = rule = Memory(shape=1, depth=1, init=[self._rule],
                                          attrs={"rom_style": "logic"})
        rule_r = rule.read_port(domain="comb")
        # per colour: more than one piece, more than two (registered). The counts are comb
        # signals that a register samples: Amaranth's simulator reruns a sync process's whole
        # tree every clock, a comb one only when the board changes.
        more = [Signal(name=f"more{c}") for c in (WHITE, BLACK)]
        many = [Signal(name=f"many{c}") for c in (WHITE, BLACK)]
        for c, plane in enumerate((~self.empty & ~self.black, ~self.empty & self.black)):
            counts = Signal(2, name=f"counts{c}")
            m.d.comb += counts.eq(Cat(at_least(plane, 2), at_least(plane, 3)))
            m.d.sync += [more[c].eq(counts[0]), many[c].eq(counts[1])]
        side = self.side
        mover_more = Mux(side, more[BLACK], more[WHITE])
        other_more = Mux(side, more[WHITE], more[BLACK])
        other_many = Mux(side, many[WHITE], many[BLACK])
        ended = (~other_more & mover_more) | (~mover_more & other_many)
        m.d.sync += self.ended.eq(rule_r.data & ended)
        return m
