"""The repetition table (hdl/search/repetition.py) against the rule: a model written here from
engine.search.leaf_search.repeats' docstring (compare top - 2, top - 4, ... down to max(top - count,
0), stop at the first equal hash), on random tables and queries; against ``repeats`` itself on
engine boards whose games shuffle pieces back and forth; the edge cases one by one (nothing to
compare, a hit at the last entry, hashes that differ in one bit, writes in the start's clock, a
start while busy). Every scan's done must come ``scan_clocks(reads)`` clocks after its start."""

import random
from types import SimpleNamespace

from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import CAPTURE, PAWN, PROMOTION
from posdata.engine.search.leaf_search import HASH_BITS, HASH_MASK, REPETITION_PLIES, repeats
from posdata.hdl.search.repetition import ENTRIES, RepetitionTable, scan_clocks

from .guard import run_guarded

DEADLINE = 60_000  #: clocks: a testbench still running then has hung (the run ends, the test fails)
MOST_CLOCKS = 40   #: a scan's done later than this after its start has hung


def model(entries, top, count, key) -> tuple[bool, int]:
    """The rule: positions with the same side to move, ``count`` plies back at most, newest
    first; (repeated, entries compared)."""
    stop = max(top - count, 0)
    compared = 0
    i = top - 2
    while i >= stop:
        compared += 1
        if entries[i] == key:
            return True, compared
        i -= 2
    return False, compared


def run(bench):
    """A fresh table and a testbench on it; fails if the testbench did not finish."""
    dut = RepetitionTable()
    finished = []

    async def guarded(ctx):
        await bench(ctx, dut)
        finished.append(True)

    sim = Simulator(dut)
    sim.add_testbench(guarded)
    run_guarded(sim, DEADLINE)
    assert finished, "the testbench did not finish (hung?)"


async def put(ctx, dut, index, key):
    ctx.set(dut.put, {"en": 1, "index": index, "hash": key})
    await ctx.tick()
    ctx.set(dut.put.en, 0)


async def fill(ctx, dut, entries):
    for i, key in enumerate(entries):
        await put(ctx, dut, i, key)


def begin(ctx, dut, top, count, key):
    ctx.set(dut.scan.start, 1)
    ctx.set(dut.scan.top, top)
    ctx.set(dut.scan.count, count)
    ctx.set(dut.scan.hash, key)


async def answer(ctx, dut, rng=None) -> tuple[bool, int, int]:
    """After a start's clock: wait for done, checking busy on the way (and, with ``rng``, junk
    on the scan's inputs, which only a start takes); (repeated, reads, clocks from the start)."""
    ctx.set(dut.scan.start, 0)
    clocks = 1
    while not ctx.get(dut.scan.done):
        assert ctx.get(dut.scan.busy), f"not busy {clocks} clocks after the start, no done"
        assert clocks < MOST_CLOCKS, "no done"
        if rng:
            ctx.set(dut.scan.top, rng.randrange(ENTRIES))
            ctx.set(dut.scan.count, rng.randrange(64))
            ctx.set(dut.scan.hash, rng.getrandbits(HASH_BITS))
        await ctx.tick()
        clocks += 1
    assert not ctx.get(dut.scan.busy), "busy in done's clock"
    result = bool(ctx.get(dut.scan.repeated)), ctx.get(dut.scan.reads), clocks
    await ctx.tick()
    assert not ctx.get(dut.scan.done), "done longer than a clock"
    assert (bool(ctx.get(dut.scan.repeated)), ctx.get(dut.scan.reads)) == result[:2], \
        "answer not held"
    return result


async def scan(ctx, dut, top, count, key, rng=None) -> tuple[bool, int, int]:
    begin(ctx, dut, top, count, key)
    await ctx.tick()
    return await answer(ctx, dut, rng)


def test_random_tables_against_the_rule():
    rng = random.Random(38)
    pool = [rng.getrandbits(HASH_BITS) for _ in range(6)]  # few hashes: many hits
    hits, misses, capped = 0, 0, 0

    async def bench(ctx, dut):
        nonlocal hits, misses, capped
        entries = [rng.choice(pool) for _ in range(ENTRIES)]
        await fill(ctx, dut, entries)
        for _ in range(400):
            for _ in range(rng.choice((0, 0, 1, 3))):  # rewrites between scans
                i, key = rng.randrange(ENTRIES), rng.choice(pool)
                entries[i] = key
                await put(ctx, dut, i, key)
            top = rng.randrange(ENTRIES)
            count = rng.randrange(REPETITION_PLIES + 1) if rng.random() < 0.8 else \
                rng.randrange(64)
            key = rng.choice(pool) if rng.random() < 0.9 else rng.getrandbits(HASH_BITS)
            want = model(entries, top, count, key)
            got = await scan(ctx, dut, top, count, key, rng)
            assert got == (*want, scan_clocks(want[1])), (top, count, got, want)
            hits += want[0]
            misses += not want[0] and want[1] > 0
            capped += count > REPETITION_PLIES
            for _ in range(rng.choice((0, 0, 1))):
                await ctx.tick()

    run(bench)
    assert hits > 100 and misses > 50 and capped > 20, (hits, misses, capped)


def shuffle_game(rng, fen, plies):
    """A game that often plays a piece back where it came from, so positions repeat; the board
    after each ply."""
    board = Board(fen)
    for _ in range(plies):
        legal = board.legal_moves()
        if not legal:
            return
        back = None
        if len(board.hist) >= 2:
            m = board.hist[-2][0]
            back = next((x for x in legal if x & 63 == (m >> 6) & 63 and (x >> 6) & 63 == m & 63
                         and not x & (CAPTURE | PROMOTION) and board.piece[x & 63] != PAWN),
                        None)
        quiet = [x for x in legal if not x & CAPTURE and board.piece[x & 63] != PAWN]
        if back is not None and rng.random() < 0.6:
            m = back
        elif quiet and rng.random() < 0.8:
            m = rng.choice(quiet)
        else:
            m = rng.choice(legal)
        board.makemove(m)
        yield board


def test_against_repeats_on_games():
    """The host's load: the hashes since the last irreversible move (32 at most) in entries
    0 .. k - 1, the position at k; the answer is ``repeats(board)``'s."""
    rng = random.Random(5)
    starts = ["r1bqkbnr/pppppppp/2n5/8/8/2N5/PPPPPPPP/R1BQKBNR w KQkq - 2 2",
              "4k3/8/2n5/8/8/5N2/8/R3K3 w Q - 45 80",  # a counter from before the history
              "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 30"]
    tally = {"repeated": 0, "not": 0, "capped": 0, "short": 0, "far": 0}

    async def bench(ctx, dut):
        for game in range(6):
            for board in shuffle_game(rng, starts[game % len(starts)], 70):
                n = len(board.hist)
                count = min(board.fifty, REPETITION_PLIES)
                k = min(count, n)  # the history the host has to load
                await fill(ctx, dut, [h[5] & HASH_MASK for h in board.hist[n - k:]])
                want = repeats(board)
                got = await scan(ctx, dut, k, count, board.hash & HASH_MASK)
                assert got == (*want, scan_clocks(want[1])), (board.fen(), got, want)
                tally["repeated" if want[0] else "not"] += 1
                tally["capped"] += board.fifty > REPETITION_PLIES
                tally["short"] += n < count
                tally["far"] += want[0] and want[1] > 2

    run(bench)
    assert tally["repeated"] > 30 and tally["not"] > 100, tally
    assert tally["capped"] > 20 and tally["short"] > 10 and tally["far"] > 3, tally


def test_nothing_to_compare():
    """count 0 or 1, top 0 or 1: no entry compared, whatever the table holds."""
    key = 0x9_1234_5678

    async def bench(ctx, dut):
        await fill(ctx, dut, [key] * ENTRIES)
        for top, count in ((40, 0), (40, 1), (0, 32), (1, 32), (1, 1), (0, 0), (2, 1)):
            assert await scan(ctx, dut, top, count, key) == (False, 0, scan_clocks(0)), \
                (top, count)
        assert await scan(ctx, dut, 2, 2, key) == (True, 1, scan_clocks(1))

    run(bench)


def test_hit_at_the_last_entry_only():
    """Equal hashes beside the compared entries (odd distance, below the stop) do not count;
    one at the stop does, read last."""
    key = 0xA_5A5A_5A5A

    async def bench(ctx, dut):
        other = key ^ 0x10
        entries = [other] * ENTRIES
        for i in (9, 11, 13, 19, 21, 8):  # odd distances from 20, or below the stop at 10
            entries[i] = key
        await fill(ctx, dut, entries)
        assert await scan(ctx, dut, 20, 10, key) == (False, 5, scan_clocks(5))
        await put(ctx, dut, 10, key)
        assert await scan(ctx, dut, 20, 10, key) == (True, 5, scan_clocks(5))
        # the oldest entry, 0, with the cap of 32 plies
        for i in (8, 9, 10, 11, 13, 19, 21):
            await put(ctx, dut, i, other)
        await put(ctx, dut, 0, key)
        assert await scan(ctx, dut, 32, 32, key) == (True, 16, scan_clocks(16))
        # the newest: the scan stops there
        await put(ctx, dut, 30, key)
        assert await scan(ctx, dut, 32, 32, key) == (True, 1, scan_clocks(1))

    run(bench)


def test_every_kept_bit_counts_and_no_other():
    """An entry differing in any one of the HASH_BITS is no repetition; two 64-bit hashes that
    agree in their low HASH_BITS are one, for repeats and for the table alike."""
    rng = random.Random(9)
    key = rng.getrandbits(HASH_BITS)

    async def bench(ctx, dut):
        for bit in range(HASH_BITS):
            await fill(ctx, dut, [key ^ 1 << bit] * 4)
            assert await scan(ctx, dut, 4, 4, key) == (False, 2, scan_clocks(2)), bit
        # 64-bit hashes: equal above HASH_BITS only (no), equal in the low bits only (yes)
        high = rng.getrandbits(64 - HASH_BITS) << HASH_BITS
        for earlier, now, repeated in ((high | key ^ 1, high | key, False),
                                       (key, high | key, True)):
            board = SimpleNamespace(hist=[(0, 0, 0, 0, 0, earlier), (0, 0, 0, 0, 0, 0)],
                                    hash=now, fifty=2)
            assert repeats(board) == (repeated, 1)
            await fill(ctx, dut, [h[5] & HASH_MASK for h in board.hist])
            assert await scan(ctx, dut, 2, 2, now & HASH_MASK) == (repeated, 1, scan_clocks(1))

    run(bench)


def test_writes_and_the_scan():
    """A write in the clock of the start is seen by the scan (its first read comes a clock
    later); the entry at top itself, which the thread writes as it enters the node, is never
    compared; a write while busy to an entry the scan has yet to read is seen."""
    key = 0x3_0F0F_0F0F

    async def bench(ctx, dut):
        await fill(ctx, dut, [key ^ 1] * 8)
        begin(ctx, dut, 8, 8, key)
        ctx.set(dut.put, {"en": 1, "index": 8, "hash": key})  # the node's own entry
        await ctx.tick()
        ctx.set(dut.put.en, 0)
        assert await answer(ctx, dut) == (False, 4, scan_clocks(4))
        for index, reads in ((6, 1), (0, 4)):  # the first entry read, the last
            begin(ctx, dut, 8, 8, key)
            ctx.set(dut.put, {"en": 1, "index": index, "hash": key})
            await ctx.tick()
            ctx.set(dut.put.en, 0)
            assert await answer(ctx, dut) == (True, reads, scan_clocks(reads)), index
            await put(ctx, dut, index, key ^ 1)
        # while busy, a write to an entry the scan has yet to read (entry 2, read two clocks
        # later than entry 6, which is read in the write's clock)
        begin(ctx, dut, 8, 8, key)
        await ctx.tick()
        ctx.set(dut.scan.start, 0)
        ctx.set(dut.put, {"en": 1, "index": 2, "hash": key})
        await ctx.tick()
        ctx.set(dut.put.en, 0)
        assert await answer(ctx, dut) == (True, 3, scan_clocks(3) - 1)  # a clock gone already

    run(bench)


def test_a_start_while_busy_begins_again():
    """A second start abandons the scan under way: one done, the second scan's answer, its
    clocks counted from the second start."""
    key = 0x7_7777_0001

    async def bench(ctx, dut):
        entries = [key ^ 4] * 64
        entries[2] = key
        await fill(ctx, dut, entries)
        for later in range(1, 6):  # the first scan (32 entries back, no hit) still running
            begin(ctx, dut, 40, 32, key)
            await ctx.tick()
            ctx.set(dut.scan.start, 0)
            for _ in range(later - 1):
                await ctx.tick()
                assert not ctx.get(dut.scan.done)
            assert await scan(ctx, dut, 10, 32, key) == (True, 4, scan_clocks(4)), later

    run(bench)
