"""The UART (hdl.link.uart) in Amaranth's simulator: loopback of random bytes at several divisors,
the exact line waveform, framing errors, glitches shorter than half a bit, clock mismatch, overrun,
argument checks. Every simulation runs to a fixed deadline (the watchdog): a testbench that has not
finished by then leaves its result unset and the test fails instead of hanging."""

import gc
import random
import warnings

import pytest
from amaranth import Module
from amaranth.hdl import UnusedElaboratable
from amaranth.sim import Simulator

from posdata.hdl.link.uart import UartRx, UartTx

PERIOD = 1e-8


def simulate(top, *benches, cycles: int) -> None:
    sim = Simulator(top)
    sim.add_clock(PERIOD)
    for bench in benches:
        sim.add_testbench(bench, background=bench is not benches[0])
    sim.run_until(cycles * PERIOD)


def frame_levels(byte: int, divisor: int, stop: int = 1, bit_cycles: int | None = None):
    """The line, one level per clock cycle, for one 8N1 frame."""
    bits = [0, *((byte >> i) & 1 for i in range(8)), stop]
    return [b for b in bits for _ in range(bit_cycles or divisor)]


async def drive(ctx, line, levels) -> None:
    for level in levels:
        ctx.set(line, level)
        await ctx.tick()


# Background testbenches wait with plain ticks: one left suspended inside ``until``/``repeat``
# when the simulation ends complains when it is garbage-collected (Amaranth 0.5.10).

async def take(ctx, o_stream) -> int:
    ctx.set(o_stream.ready, 1)
    while True:
        _, _, valid, byte = await ctx.tick().sample(o_stream.valid, o_stream.payload)
        if valid:
            return byte


def loopback(divisor):
    tx, rx = UartTx(divisor), UartRx(divisor)
    m = Module()
    m.submodules.tx, m.submodules.rx = tx, rx
    m.d.comb += rx.rx.eq(tx.tx)
    return m, tx, rx


@pytest.mark.parametrize("divisor", [4, 5, 7, 16])
def test_loopback_random_bytes(divisor):
    data = random.Random(divisor).randbytes(24) + b"\x00\xff\x55\xaa"
    top, tx, rx = loopback(divisor)
    assert tx.divisor == rx.divisor == divisor
    got = []
    sent = {}

    async def send(ctx):
        for byte in data:
            ctx.set(tx.i_stream.payload, byte)
            ctx.set(tx.i_stream.valid, 1)
            while not (await ctx.tick().sample(tx.i_stream.ready))[2]:
                pass
        ctx.set(tx.i_stream.valid, 0)
        sent["all"] = True

    async def receive(ctx):
        while True:
            got.append(await take(ctx, rx.o_stream))

    async def main(ctx):
        while len(got) < len(data):
            await ctx.tick()

    simulate(top, main, send, receive, cycles=(len(data) + 2) * (10 * divisor + 1))
    assert sent.get("all"), "watchdog: the transmitter did not take every byte"
    assert bytes(got) == data


@pytest.mark.parametrize("divisor", [4, 9])
def test_tx_waveform(divisor):
    """Idle high, start bit, eight data bits LSB first, stop bit: each exactly divisor cycles."""
    tx = UartTx(divisor)
    levels = []

    async def bench(ctx):
        ctx.set(tx.i_stream.payload, 0xB4)
        ctx.set(tx.i_stream.valid, 1)
        await ctx.tick()
        ctx.set(tx.i_stream.valid, 0)
        for _ in range(11 * divisor):
            levels.append(ctx.get(tx.tx))
            await ctx.tick()

    simulate(tx, bench, cycles=12 * divisor + 2)
    assert levels[:10 * divisor] == frame_levels(0xB4, divisor)
    assert set(levels[10 * divisor:]) == {1}


def test_tx_ready_only_when_idle():
    tx = UartTx(4)
    outcome = {}

    async def bench(ctx):
        assert ctx.get(tx.i_stream.ready) and ctx.get(tx.tx) == 1
        ctx.set(tx.i_stream.valid, 1)
        await ctx.tick()
        ctx.set(tx.i_stream.valid, 0)
        busy_cycles = 0
        while not ctx.get(tx.i_stream.ready):
            assert ctx.get(tx.busy)
            busy_cycles += 1
            await ctx.tick()
        outcome["busy"] = busy_cycles

    simulate(tx, bench, cycles=100)
    assert outcome["busy"] == 40  # ten bits of four cycles


@pytest.mark.parametrize("divisor", [4, 8, 9])
def test_rx_ignores_glitch_shorter_than_half_a_bit(divisor):
    rx = UartRx(divisor)
    glitches = [g for g in range(1, divisor) if g < divisor / 2]
    outcome = {"bytes": []}

    async def receive(ctx):
        while True:
            outcome["bytes"].append(await take(ctx, rx.o_stream))

    async def bench(ctx):
        ctx.set(rx.rx, 1)
        for g in glitches:
            await drive(ctx, rx.rx, [1] * 3 * divisor + [0] * g + [1] * 3 * divisor)
        await drive(ctx, rx.rx, frame_levels(0x3C, divisor) + [1] * 2 * divisor)
        outcome["done"] = True

    cycles = sum(6 * divisor + g for g in glitches) + 13 * divisor
    simulate(rx, bench, receive, cycles=cycles)
    assert outcome.get("done"), "watchdog"
    assert outcome["bytes"] == [0x3C]


@pytest.mark.parametrize("divisor", [4, 7])
def test_rx_framing_error_drops_byte_and_waits_for_idle(divisor):
    rx = UartRx(divisor)
    outcome = {"bytes": [], "framing_errors": 0}

    async def receive(ctx):
        while True:
            _, _, valid, error = await ctx.tick().sample(rx.o_stream.valid, rx.framing_error)
            outcome["framing_errors"] += error
            if valid:
                outcome["bytes"].append(ctx.get(rx.o_stream.payload))

    async def bench(ctx):
        ctx.set(rx.o_stream.ready, 1)
        ctx.set(rx.rx, 1)
        await ctx.tick()
        # A frame whose stop bit is 0, then the line held low (a break), then a good frame.
        await drive(ctx, rx.rx, frame_levels(0x81, divisor, stop=0) + [0] * 25 * divisor)
        await drive(ctx, rx.rx, [1] * 2 * divisor + frame_levels(0x42, divisor))
        await drive(ctx, rx.rx, [1] * 2 * divisor)
        outcome["done"] = True

    simulate(rx, bench, receive, cycles=50 * divisor)
    assert outcome.get("done"), "watchdog"
    assert outcome["bytes"] == [0x42]
    assert outcome["framing_errors"] == 1


@pytest.mark.parametrize("bit_cycles", [31, 33])
def test_rx_tolerates_three_percent_clock_mismatch(bit_cycles):
    divisor = 32
    rx = UartRx(divisor)
    outcome = {"bytes": []}

    async def receive(ctx):
        while True:
            outcome["bytes"].append(await take(ctx, rx.o_stream))

    async def bench(ctx):
        ctx.set(rx.rx, 1)
        await ctx.tick()
        for byte in (0x80, 0x01, 0xA5):
            await drive(ctx, rx.rx, frame_levels(byte, divisor, bit_cycles=bit_cycles))
        await drive(ctx, rx.rx, [1] * divisor)
        outcome["done"] = True

    simulate(rx, bench, receive, cycles=32 * bit_cycles + 2 * divisor)
    assert outcome.get("done"), "watchdog"
    assert outcome["bytes"] == [0x80, 0x01, 0xA5]


def test_rx_overrun_keeps_the_first_byte():
    divisor = 4
    rx = UartRx(divisor)
    outcome = {}

    async def bench(ctx):
        ctx.set(rx.rx, 1)
        ctx.set(rx.o_stream.ready, 0)
        await ctx.tick()
        await drive(ctx, rx.rx, frame_levels(0x11, divisor))
        overruns = 0
        for level in frame_levels(0x22, divisor) + [1] * 2 * divisor:
            ctx.set(rx.rx, level)
            _, _, overrun = await ctx.tick().sample(rx.overrun)
            overruns += overrun
        outcome["overruns"] = overruns
        outcome["valid"] = ctx.get(rx.o_stream.valid)
        outcome["byte"] = ctx.get(rx.o_stream.payload)
        ctx.set(rx.o_stream.ready, 1)
        await ctx.tick()
        outcome["valid_after_take"] = ctx.get(rx.o_stream.valid)

    simulate(rx, bench, cycles=25 * divisor)
    assert outcome == {"overruns": 1, "valid": 1, "byte": 0x11, "valid_after_take": 0}


@pytest.mark.parametrize("cls", [UartTx, UartRx])
@pytest.mark.parametrize("divisor", [3, 0, -8, 4.0, "8", None, True])
def test_bad_divisor(cls, divisor):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)  # from the rejected half-made object
        with pytest.raises(TypeError, match=r"divisor must be an integer of at least 4, not "):
            cls(divisor)
        gc.collect()
