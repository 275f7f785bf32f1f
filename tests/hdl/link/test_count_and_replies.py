"""The front ends' parts behind a reply and a count, each alone in Amaranth's simulator: the reply
shifter (hdl.link.reply_shifter) in both its forms, the perft chip's listing buffer
(hdl.link.listing_buffer), the generator's two-pass listing (hdl.link.two_pass_listing) and the
count's control (hdl.link.count_control), whose STATUS payload is held to the host's packer
(hdl.link.protocol.status_payload). Each bench runs to a deadline and must report that it
finished."""

import random

import pytest
from amaranth.sim import Simulator

from posdata.hdl.link.count_control import SETTLE_CLOCKS, CountControl
from posdata.hdl.link.listing_buffer import ListingBuffer
from posdata.hdl.link.protocol import ENGINE_ALL, SelfTest, State, status_payload
from posdata.hdl.link.reply_shifter import ReplyShifter
from posdata.hdl.link.two_pass_listing import TwoPassListing

PERIOD = 1e-8


def simulate(dut, benches, clocks):
    finished = []
    sim = Simulator(dut)
    sim.add_clock(PERIOD)
    for i, bench in enumerate(benches):
        async def watched(ctx, bench=bench):
            await bench(ctx)
            finished.append(True)
        sim.add_testbench(watched, background=i > 0)
    sim.run_until(clocks * PERIOD)
    assert finished, "the bench did not finish before its deadline"


async def take_bytes(ctx, stream, n, rng):
    """``n`` bytes off ``stream`` the way the link's one-byte buffer takes them: never in the
    clock after one was taken, and sometimes later still."""
    got = []
    while len(got) < n:
        ready = rng.random() < 0.6
        ctx.set(stream.ready, ready)
        taken = ready and ctx.get(stream.valid)
        if taken:
            got.append(ctx.get(stream.payload))
        await ctx.tick()
        if taken:
            ctx.set(stream.ready, 0)
            await ctx.tick()
    ctx.set(stream.ready, 0)
    return got


async def take_words(ctx, load, word, room, rng, quiet=20):
    """Words offered on ``load`` taken as a reply's payload takes them: ``room`` until one is
    taken, then none while its bytes go out; done once none has come for ``quiet`` clocks."""
    words = []
    ctx.set(room, 1)
    idle = 0
    while idle < quiet:
        if ctx.get(load):
            words.append(ctx.get(word))
            await ctx.tick()  # taken
            ctx.set(room, 0)
            for _ in range(rng.randrange(1, 5)):
                await ctx.tick()
            ctx.set(room, 1)
            idle = 0
            continue
        idle += 1
        await ctx.tick()
    return words


# --- The reply shifter ---------------------------------------------------------------------------

@pytest.mark.parametrize("registered", [False, True], ids=["ecp5", "ice40"])
def test_shifter_sends_its_bytes_then_the_words(registered):
    rng = random.Random(3)
    dut = ReplyShifter(8, registered=registered)
    replies = [(bytes(rng.randrange(256) for _ in range(n)), [rng.randrange(1 << 21)
                                                              for _ in range(w)])
               for n, w in ((6, 5), (8, 0), (1, 3))]
    got = []

    async def words(ctx, queue):
        """The words' source: a word whenever the shifter has room for one."""
        while True:
            await ctx.tick()
            if queue and ctx.get(dut.word_empty):
                ctx.set(dut.word_data, queue.pop(0))
                ctx.set(dut.word_load, 1)
                await ctx.tick()
                ctx.set(dut.word_load, 0)

    queue = []

    async def bench(ctx):
        for head, moves in replies:
            assert ctx.get(dut.empty)
            ctx.set(dut.load_data, int.from_bytes(head, "little"))
            ctx.set(dut.load_bytes, len(head))
            ctx.set(dut.load, 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            queue.extend(moves)
            got.append(bytes(await take_bytes(ctx, dut.payload, len(head) + 3 * len(moves), rng)))
            for _ in range(4):
                await ctx.tick()

    simulate(dut, [bench, lambda ctx: words(ctx, queue)], 2000)
    assert got == [head + b"".join(w.to_bytes(3, "little") for w in moves)
                   for head, moves in replies]


# --- The perft chip's listing buffer -------------------------------------------------------------

def test_listing_buffer_keeps_the_chips_moves_for_the_reply():
    rng = random.Random(5)
    dut = ListingBuffer(capacity=6)
    got = []

    async def chip_lists(ctx, moves):
        ctx.set(dut.begin, 1)
        ctx.set(dut.legal, 1)
        await ctx.tick()
        ctx.set(dut.begin, 0)
        starts = (ctx.get(dut.gen_start), ctx.get(dut.gen_legal))
        await ctx.tick()
        assert not ctx.get(dut.gen_start)  # a pulse
        for move in moves:  # a move every clock or two
            assert ctx.get(dut.moves.ready)
            ctx.set(dut.moves.payload.as_value(), move)
            ctx.set(dut.moves.valid, 1)
            await ctx.tick()
            ctx.set(dut.moves.valid, 0)
            ctx.set(dut.moves.payload.as_value(), 0x1FFFFF)  # not a move: not valid
            for _ in range(rng.randrange(2)):
                await ctx.tick()
        for _ in range(2):  # the last move passes its register
            await ctx.tick()
        return starts, ctx.get(dut.listed), ctx.get(dut.overflow)

    async def bench(ctx):
        ctx.set(dut.moves.valid, 0)
        moves = [rng.randrange(1 << 21) for _ in range(5)]
        starts, listed, overflow = await chip_lists(ctx, moves)
        # the reply asks for them: a word whenever its payload has room for one
        ctx.set(dut.send, 1)
        await ctx.tick()
        ctx.set(dut.send, 0)
        words = await take_words(ctx, dut.word_load, dut.word, dut.word_empty, rng)
        got.append((starts, listed, overflow, words, moves))
        got.append(await chip_lists(ctx, [1, 2, 3, 4, 5, 6, 7]))  # one too many

    simulate(dut, [bench], 400)
    (starts, listed, overflow, words, moves), second = got
    assert (starts, listed, overflow) == ((1, 1), 5, 0) and words == moves
    assert second == ((1, 1), 6, 1)


# --- The generator's two-pass listing ------------------------------------------------------------

def test_two_pass_listing_counts_then_sends_the_same_moves():
    rng = random.Random(9)
    dut = TwoPassListing()
    moves = [rng.randrange(1 << 21) for _ in range(7)]
    got = {}

    async def generator(ctx):
        """A stand-in generator: on each start, the same moves, each waiting for ready."""
        while True:
            await ctx.tick()
            if not ctx.get(dut.start):
                continue
            for move in moves:
                ctx.set(dut.moves.payload.as_value(), move)
                ctx.set(dut.moves.valid, 1)
                while not ctx.get(dut.moves.ready):
                    await ctx.tick()
                await ctx.tick()
                ctx.set(dut.moves.valid, 0)
                await ctx.tick()
            ctx.set(dut.gen_cycles, 100 + len(moves))

    async def bench(ctx):
        ctx.set(dut.payload_empty, 1)
        ctx.set(dut.count, 1)
        await ctx.tick()
        ctx.set(dut.count, 0)
        for _ in range(60):  # pass 1: the moves counted at once
            await ctx.tick()
        ctx.set(dut.capture, 1)
        await ctx.tick()
        ctx.set(dut.capture, 0)
        got["count"] = (ctx.get(dut.listed), ctx.get(dut.cycles))
        ctx.set(dut.send, 1)
        await ctx.tick()
        ctx.set(dut.send, 0)
        # pass 2: a word whenever the payload is empty
        got["words"] = await take_words(ctx, dut.word_load, dut.word, dut.payload_empty, rng)

    simulate(dut, [bench, generator], 600)
    assert got == {"count": (len(moves), 100 + len(moves)), "words": moves}


# --- The count's control -------------------------------------------------------------------------

def run_count(expected, counts):
    """Counts on a stand-in chip: each (depth, bulk, split, engine, self_test, leaves, busy
    clocks, overflow, abort after) gives what the chip saw and what STATUS and the self-test
    showed during and after it."""
    dut = CountControl(expected)
    seen = []

    async def bench(ctx):
        seen.append(("power-up", ctx.get(dut.verdict), ctx.get(dut.status).to_bytes(20, "little")))
        for depth, bulk, split, engine, self_test, leaves, clocks, overflow, abort in counts:
            for port, value in (("depth", depth), ("bulk", bulk), ("split", split),
                                ("engine", engine), ("self_test", self_test)):
                ctx.set(getattr(dut, port), value)
            ctx.set(dut.begin, 1)
            await ctx.tick()
            ctx.set(dut.begin, 0)
            chip = tuple(ctx.get(getattr(dut, f"chip_{f}")) for f in (
                "start", "depth", "bulk", "split", "solo", "solo_engine"))
            ctx.set(dut.chip_busy, 1)  # the chip follows its start within the settling clocks
            for clock in range(clocks):
                ctx.set(dut.chip_leaves, clock)
                ctx.set(dut.chip_clocks, clock)
                if abort is not None and clock == abort:
                    ctx.set(dut.stop, 1)
                    await ctx.tick()
                    ctx.set(dut.stop, 0)
                    assert ctx.get(dut.chip_abort)
                    break
                await ctx.tick()
                assert ctx.get(dut.counting) and not ctx.get(dut.chip_start)
            ctx.set(dut.chip_leaves, leaves)
            ctx.set(dut.chip_overflow, overflow)
            ctx.set(dut.chip_busy, 0)
            for _ in range(SETTLE_CLOCKS + 2):
                await ctx.tick()
            seen.append((chip, ctx.get(dut.counting), ctx.get(dut.overflow),
                         ctx.get(dut.verdict), ctx.get(dut.status).to_bytes(20, "little")))

    simulate(dut, [bench], 2000)
    return seen


def test_count_control_runs_a_count_and_reports_it():
    seen = run_count(None, [(5, 1, 2, ENGINE_ALL, 0, 4242, 30, 0, None),
                            (7, 0, 3, 1, 0, 0, 40, 0, 20),
                            (11, 1, 2, ENGINE_ALL, 0, 9, 10, 1, None)])
    assert seen[0] == ("power-up", SelfTest.NONE, status_payload(State.IDLE, 0, 0, 0, 0, 0))
    done, aborted, overflowed = seen[1:]
    assert done == ((1, 5, 1, 2, 0, ENGINE_ALL), 0, 0, SelfTest.NONE,
                    status_payload(State.DONE, 1, 5, 2, 4242, 29))
    # aborted: the progress as it stood a clock before the stop (registered), solo on engine 1
    assert aborted[:4] == ((1, 7, 0, 3, 1, 1), 0, 0, SelfTest.NONE)
    assert aborted[4][:4] == bytes([State.ABORTED, 0, 7, 3])
    assert overflowed[2] == 1 and overflowed[4][0] == State.DONE


@pytest.mark.parametrize("leaves, overflow, verdict", [
    (400, 0, SelfTest.PASSED), (399, 0, SelfTest.FAILED), (400, 1, SelfTest.FAILED)])
def test_count_control_judges_the_self_test(leaves, overflow, verdict):
    seen = run_count(400, [(2, 1, 1, ENGINE_ALL, 1, leaves, 25, overflow, None),
                           (2, 1, 1, ENGINE_ALL, 0, 0, 25, 0, None)])  # a later count
    assert seen[0][1] == SelfTest.RUNNING
    assert seen[1][3] == verdict and seen[1][4][1] == 0b11  # flags: bulk, the self-test's
    assert seen[2][3] == verdict  # a count of the host's leaves it alone
