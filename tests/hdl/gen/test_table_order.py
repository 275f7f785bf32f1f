"""One table order for the engine and the gateware: the table the prefetcher picks for a piece
(hdl.gen.prefetch.table_of, simulated) is the engine's (engine.rules.defs.ptype), and in every
variant's ROM image that table walks exactly the piece's moves, by plain geometry."""

import pytest
from amaranth import Module, Signal
from amaranth.sim import Simulator

from posdata.engine.rules.defs import BLACK, PAWN, WHITE, ptype
from posdata.hdl.gen.prefetch import table_of
from posdata.hdl.image.addressing import TABLE_BITS, rom_address
from posdata.hdl.image.variant import GATEWARE_VARIANTS, variant_image

#: each definition of engine.rules.variants as (leap, rider) parts, written out by hand
PARTS = {"N": ["N"], "B": ["FF"], "R": ["WW"], "Q": ["WW", "FF"], "K": ["W", "F"],
         "QN": ["WW", "FF", "N"], "RN": ["WW", "N"], "NN": ["NN"]}
LEAPS = {"W": (1, 0), "F": (1, 1), "N": (2, 1)}


def targets(moves: str, frm: int) -> set[int]:
    """Where a piece of definition ``moves`` on ``frm`` goes on an empty board."""
    out = set()
    for part in PARTS[moves]:
        x, y = LEAPS[part[0]]
        steps = {(sx * a, sy * b) for a, b in ((x, y), (y, x)) for sx in (1, -1) for sy in (1, -1)}
        for df, dr in steps:
            f, r = (frm & 7) + df, (frm >> 3) + dr
            while 0 <= f < 8 and 0 <= r < 8:
                out.add(r * 8 + f)
                if len(part) == 1:
                    break
                f, r = f + df, r + dr
    return out


def pawn_targets(color: int, frm: int) -> tuple[list[int], set[int]]:
    """(pushes in order, capture squares) of a pawn of ``color`` on ``frm`` (ranks 2..7)."""
    forward, home = (8, 1) if color == WHITE else (-8, 6)
    if frm >> 3 == (7 if color == WHITE else 0):
        return [], set()
    pushes = [frm + forward] + ([frm + 2 * forward] if frm >> 3 == home else [])
    file = frm & 7
    captures = {frm + forward + df for df in (-1, 1) if 0 <= file + df < 8}
    return pushes, captures


def chain(words, table, frm, field):
    out, u = [], words[rom_address(table, frm, frm)] >> field & 63
    while u != frm and len(out) < 64:
        out.append(u)
        u = words[rom_address(table, frm, u)] >> field & 63
    return out


def gateware_tables() -> dict[tuple[int, int], tuple[int, int]]:
    """(side, code) -> (table, pawn) as the prefetcher's rule gives them, in simulation."""
    m = Module()
    piece, side = Signal(TABLE_BITS), Signal()
    table, pawn = Signal(TABLE_BITS), Signal()
    got_table, got_pawn = table_of(piece, side)
    m.d.comb += [table.eq(got_table), pawn.eq(got_pawn)]
    out = {}

    async def bench(ctx):
        for s in (WHITE, BLACK):
            for code in range(1 << TABLE_BITS):
                ctx.set(side, s)
                ctx.set(piece, code)
                out[s, code] = (ctx.get(table), ctx.get(pawn))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    return out


def test_the_gateware_picks_the_engines_table():
    for (side, code), (table, pawn) in gateware_tables().items():
        assert table == ptype(side, code), (side, code)
        assert pawn == (code == PAWN), (side, code)


@pytest.mark.parametrize("variant", GATEWARE_VARIANTS, ids=lambda v: v.name)
def test_each_piece_s_table_in_the_rom_walks_its_moves(variant):
    words = variant_image(variant).words
    for p in variant.pieces:
        for color in (WHITE, BLACK):
            table = variant.table_index(color, p.code)
            for frm in range(8, 56) if p.code == PAWN else range(64):
                if p.code == PAWN:
                    pushes, captures = pawn_targets(color, frm)
                    assert chain(words, table, frm, 0) == pushes, (p.name, color, frm)
                    got = chain(words, table, frm, 6)
                    assert len(got) == len(set(got)) and set(got) == captures, \
                        (p.name, color, frm)
                else:
                    got = chain(words, table, frm, 0)
                    assert len(got) == len(set(got)), (p.name, color, frm)
                    assert set(got) == targets(p.moves, frm), (p.name, color, frm)
