"""The posdata table's own facts, checked in Python on the engine's tables and the dense ROM
image built from them: the half of "a generation ends" that the formal proofs leave out (they
keep the ROM free; tests/formal/harness_walker.py proves that each walker step goes to the
successor the ROM word names).

* Every walk strictly progresses: in the dense image (the default ROM) every successor a word
  names, nextpos at address + 1, nextdir at address + skip (skip >= 1), a pawn's capture thread
  at base + pushes, lies further on within the same walk and holds the square the word names;
  a pointer that leads back to the from-square is flagged by its end bit. So a walk visits each
  of its entries at most once and ends within its length.
* Every walk comes home: each nextpos and nextdir chain of the (from, to) table returns to its
  from-square without repeating a square.
* A king's walk steps one square: a two-file king move only ever comes from castling, which
  tests/formal/harness_make_unmake.py assumes of the moves it makes and unmakes.
* The bound on a generation: a walk has at most 27 entries (a queen in the centre), and the
  walks of any 16 pieces on distinct squares at most GENERATION_ENTRIES_BOUND in all.
"""

from posdata.engine.rules.defs import KING
from posdata.hdl.image import dense
from posdata.hdl.image.addressing import PAWN_TABLES, rom_address
from posdata.hdl.image.variant import variant_image

MAX_WALK = 27                  #: a queen on d4/d5/e4/e5
GENERATION_ENTRIES_BOUND = 16 * MAX_WALK

ORTHODOX = variant_image()     #: what the ROMs hold
WORDS = ORTHODOX.words
IMAGE = ORTHODOX.dense


def walks():
    """(table, from, first address, squares in storage order, pushes) of every walk."""
    for table in range(7):
        for frm in range(64):
            start = IMAGE.starts[table << 6 | frm]
            base, pushes = start >> 12 & 0xFFF, start >> 24
            order, n_push = dense.walk_order(WORDS, table, frm)
            assert pushes == n_push
            yield table, frm, base, order, pushes


def test_chains_come_home_without_repeating():
    for table in range(7):
        for frm in range(64):
            for field in (0, 6):
                seen = set()
                u = WORDS[rom_address(table, frm, frm)] >> field & 63
                while u != frm:
                    assert u not in seen, (table, frm, field, u)
                    seen.add(u)
                    u = WORDS[rom_address(table, frm, u)] >> field & 63
                assert len(seen) <= MAX_WALK


def test_every_successor_is_further_on_in_the_same_walk():
    for table, frm, base, order, pushes in walks():
        end = base + len(order)
        first = IMAGE.starts[table << 6 | frm]
        if order:
            assert first & 63 == order[0] or table in PAWN_TABLES
        for i, u in enumerate(order):
            addr = base + i
            word, ends = IMAGE.words[addr], IMAGE.ends[addr]
            nextpos, nextdir, skip = word & 63, word >> 6 & 63, word >> 12
            assert ends & 1 == (nextpos == frm) and ends >> 1 == (nextdir == frm), (table, frm, u)
            capture_thread = table in PAWN_TABLES and i >= pushes
            if not ends & 1 and not capture_thread:
                assert addr + 1 < end and order[i + 1] == nextpos, (table, frm, u)
            if not ends >> 1 and (table not in PAWN_TABLES or capture_thread):
                assert 1 <= skip and addr + skip < end, (table, frm, u)
                assert order[i + skip] == nextdir, (table, frm, u)
        if table in PAWN_TABLES and pushes < len(order):
            # the capture thread starts after every push
            d1 = first >> 6 & 63
            assert order[pushes] == d1


def test_end_bits_match_the_sparse_table():
    ends = ORTHODOX.sparse.ends
    for (table, frm, u), addr in IMAGE.address.items():
        assert IMAGE.ends[addr] == ends[rom_address(table, frm, u)]


def test_king_walks_step_one_square():
    for frm in range(64):
        u = WORDS[rom_address(KING, frm, frm)] & 63
        while u != frm:
            assert max(abs(u % 8 - frm % 8), abs(u // 8 - frm // 8)) == 1, (frm, u)
            u = WORDS[rom_address(KING, frm, u)] & 63


def test_generation_bound():
    longest = {}
    for table, frm, base, order, pushes in walks():
        assert len(order) <= MAX_WALK
        longest[frm] = max(longest.get(frm, 0), len(order))
    top16 = sorted(longest.values(), reverse=True)[:16]
    assert sum(top16) <= GENERATION_ENTRIES_BOUND
    assert IMAGE.entries <= ORTHODOX.geometry.dense_depth
