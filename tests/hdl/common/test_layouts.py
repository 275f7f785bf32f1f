"""The two ROM layouts: the dense image holds exactly the walks of the engine's tables (their
entries and lengths counted from the tables, not copied), and the generator walks both layouts
to the same moves in the same clocks. (The other gateware tests run the default layout.)"""

import pytest

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import BPAWN, KING, PAWN
from posdata.engine.rules.posdata import NEXTDIR, NEXTPOS
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.hdl.gen.rom import LAYOUTS, ORTHODOX
from posdata.hdl.image.addressing import START_DEPTH, rom_address, start_address
from posdata.hdl.image.variant import variant_image
from posdata.sim.drivers.gen_pysim import PysimGenerator
from tests.hw_positions import random_positions


def walk_from_tables(pt: int, frm: int) -> list[int]:
    """The squares of a walk in storage order, read off the engine's numpy tables: every
    target along nextpos for a piece; a pawn's pushes (nextpos), then its captures (nextdir)."""
    def chain(table):
        out, u = [], int(table[pt, frm, frm])
        while u != frm:
            out.append(u)
            u = int(table[pt, frm, u])
        return out
    if pt in (PAWN, BPAWN):
        return chain(NEXTPOS) + chain(NEXTDIR)
    return chain(NEXTPOS)


def pushes_of(pt: int, frm: int) -> int:
    n, u = 0, int(NEXTPOS[pt, frm, frm])
    while u != frm:
        n, u = n + 1, int(NEXTPOS[pt, frm, u])
    return n


#: per (table, from): the walk, for every ptype of orthodox chess (the table is the ptype)
WALKS = {(pt, frm): walk_from_tables(pt, frm) for pt in range(BPAWN, KING + 1)
         for frm in range(64)}


def test_the_dense_image_holds_every_walk_once():
    image = variant_image().dense
    lengths = [len(w) for w in WALKS.values()]
    assert image.entries == sum(lengths) == len(set(image.address.values()))
    assert image.entries + START_DEPTH == 4440 and max(lengths) == 27  # as the issue measured
    assert image.entries <= ORTHODOX.dense_depth and sorted(image.address.values()) == \
        list(range(image.entries))
    words = variant_image().words
    for (table, frm), walk in WALKS.items():
        start = image.starts[start_address(table, frm)]
        base, pushes = start >> 12 & 4095, start >> 24
        first_d1 = words[rom_address(table, frm, frm)]  # first | d1 << 6
        pawn = table in (PAWN, BPAWN)
        assert start & 4095 == (first_d1 if pawn else first_d1 & 63)  # d1: a pawn's only
        assert pawn or start >> 6 & 63 == start >> 24 == 0
        for i, u in enumerate(walk):
            a = base + i
            assert image.address[table, frm, u] == a
            word = image.words[a]
            assert word & 4095 == words[rom_address(table, frm, u)]  # the same pointers
            nextpos, nextdir, skip = word & 63, word >> 6 & 63, word >> 12
            if i + 1 < len(walk) and not pawn:
                assert walk[i + 1] == nextpos  # nextpos is the next entry
            if skip:
                assert walk[i + skip] == nextdir  # nextdir is skip entries on
            assert image.ends[a] == int(nextpos == frm) | int(nextdir == frm) << 1
        if table in (PAWN, BPAWN):  # the pushes are the nextpos chain, stored first
            assert pushes == pushes_of(table, frm)
        else:
            assert pushes == 0


@pytest.fixture(scope="module")
def generators():
    return {layout: PysimGenerator(layout=layout) for layout in LAYOUTS}


def test_both_layouts_walk_alike(generators):
    fens = [p.fen for p in STANDARD_POSITIONS] + random_positions(30, seed=21)
    for fen in fens:
        board = Board(fen)
        results = {layout: g.generate(board) for layout, g in generators.items()}
        assert results["dense"].moves == results["sparse"].moves == board.moves(), fen
        assert results["dense"].cycles == results["sparse"].cycles, fen


def test_split_start_table_reads_the_whole_ones_entries():
    """A perft engine's start table (block RAM + a pawn's fields in logic) gives, on both ports,
    every entry the whole table gives, in the same clock."""
    from amaranth import Module
    from amaranth.sim import Simulator

    from posdata.hdl.gen.rom import StartRom

    whole, split = StartRom(), StartRom(split=True)
    entries = START_DEPTH
    got = {}

    async def bench(ctx):
        for i in range(entries):
            for rom in (whole, split):
                for k, port in enumerate((rom.a, rom.b)):
                    j = (i + 37 * k) % entries  # the ports at different addresses
                    ctx.set(port.table, j >> 6)
                    ctx.set(port.frm, j & 63)
                    ctx.set(port.en, 1)
            await ctx.tick()  # one clock: the entry is there after it
            for rom in (whole, split):
                got.setdefault(rom is split, []).append((ctx.get(rom.a.data),
                                                         ctx.get(rom.b.data)))

    m = Module()
    m.submodules.whole, m.submodules.split = whole, split
    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    image = variant_image().dense.starts
    assert got[False] == [(image[i], image[(i + 37) % entries]) for i in range(entries)]
    assert got[True] == got[False]
