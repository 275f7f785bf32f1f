"""The frame layer in Amaranth's simulator: the receiver (hdl.link.frame_rx) takes command frames
off a byte stream, checks their CRC and drops a half-received one after its time-out; the sender
(hdl.link.frame_tx) puts out exactly hdl.link.protocol.reply_frame. Every simulation runs to a
deadline (the watchdog): a stuck bench leaves its result unset and the test fails instead of
hanging."""

import gc
import warnings

import pytest
from amaranth.hdl import UnusedElaboratable
from amaranth.sim import Simulator

from posdata.hdl.link.frame_rx import FrameReceiver
from posdata.hdl.link.frame_tx import ReplySender
from posdata.hdl.link.protocol import SYNC, Cmd, Err, command_frame, reply_frame

PERIOD = 1e-8
GAP = 3  # clocks between bytes offered to the receiver


def run(dut, bench, cycles):
    sim = Simulator(dut)
    sim.add_clock(PERIOD)
    sim.add_testbench(bench)
    sim.run_until(cycles * PERIOD)


async def offer(ctx, dut, data, gap=GAP):
    """Bytes into the receiver, one every ``gap`` clocks (each waits for ready)."""
    for byte in data:
        ctx.set(dut.i_stream.payload, byte)
        ctx.set(dut.i_stream.valid, 1)
        while not (await ctx.tick().sample(dut.i_stream.ready))[2]:
            pass
        ctx.set(dut.i_stream.valid, 0)
        for _ in range(gap):
            await ctx.tick()


async def take_frame(ctx, dut, limit=2000):
    """The held frame's header and payload; then releases it. None if none came."""
    for _ in range(limit):
        if ctx.get(dut.frames.valid):
            break
        await ctx.tick()
    else:
        return None
    header = ctx.get(dut.frames.payload)
    payload = []
    for i in range(header.length):
        ctx.set(dut.payload_addr, i)
        await ctx.tick()
        payload.append(ctx.get(dut.payload_data))
    ctx.set(dut.frames.ready, 1)
    await ctx.tick()
    ctx.set(dut.frames.ready, 0)
    return header.cmd, header.engine, bytes(payload), bool(header.crc_ok)


FRAMES = [command_frame(Cmd.PING), command_frame(Cmd.PERFT, bytes([5, 1, 2]), engine=0),
          command_frame(Cmd.UPDATE, bytes(range(130)), engine=3),
          command_frame(0x7E, bytes(range(255)))]


def test_receiver_takes_frames_after_noise():
    dut = FrameReceiver(timeout=100)
    got = []

    async def bench(ctx):
        for frame in FRAMES:
            await offer(ctx, dut, b"\x00\xff\x13" + frame)  # noise before SYNC is ignored
            got.append(await take_frame(ctx, dut))

    run(dut, bench, 20_000)
    want = [(f[1], f[2], f[4:-1], True) for f in FRAMES]
    assert got == want


@pytest.mark.parametrize("where", [1, 2, 4, -1])
def test_receiver_flags_a_bad_crc(where):
    frame = bytearray(command_frame(Cmd.PERFT, bytes([5, 1, 2])))
    frame[where] ^= 0x10
    dut = FrameReceiver(timeout=100)
    got = {}

    async def bench(ctx):
        await offer(ctx, dut, bytes(frame))
        got["bad"] = await take_frame(ctx, dut)
        await offer(ctx, dut, command_frame(Cmd.PING))
        got["good"] = await take_frame(ctx, dut)

    run(dut, bench, 5_000)
    assert got["bad"] is not None and got["bad"][3] is False
    assert got["good"] == (Cmd.PING, 0xFF, b"", True)


def test_receiver_drops_a_half_frame_after_its_timeout():
    timeout = 60
    dut = FrameReceiver(timeout=timeout)
    got = {"dropped": 0}
    half = command_frame(Cmd.LOAD, bytes(66))[:20]

    async def bench(ctx):
        await offer(ctx, dut, half)
        for _ in range(timeout + 5):
            got["dropped"] += ctx.get(dut.dropped)
            await ctx.tick()
        await offer(ctx, dut, command_frame(Cmd.STATUS))
        got["frame"] = await take_frame(ctx, dut)

    run(dut, bench, 5_000)
    assert got["dropped"] == 1
    assert got["frame"] == (Cmd.STATUS, 0xFF, b"", True)


def test_receiver_garbled_length_is_dropped_after_its_timeout():
    """A length byte garbled upwards: the receiver waits for payload that never comes, drops
    the frame when the line stays quiet, and takes the next frame."""
    frame = bytearray(command_frame(Cmd.PERFT, bytes([5, 1, 2])))
    frame[3] = 40
    dut = FrameReceiver(timeout=60)
    got = {}

    async def bench(ctx):
        await offer(ctx, dut, bytes(frame))
        got["held"] = await take_frame(ctx, dut, limit=100)
        await offer(ctx, dut, command_frame(Cmd.PING))
        got["next"] = await take_frame(ctx, dut)

    run(dut, bench, 5_000)
    assert got == {"held": None, "next": (Cmd.PING, 0xFF, b"", True)}


def test_receiver_waits_between_bytes_shorter_than_its_timeout():
    dut = FrameReceiver(timeout=60)
    got = {}

    async def bench(ctx):
        await offer(ctx, dut, command_frame(Cmd.PERFT, bytes([3, 0, 0])), gap=55)
        got["frame"] = await take_frame(ctx, dut)

    run(dut, bench, 5_000)
    assert got["frame"] == (Cmd.PERFT, 0xFF, bytes([3, 0, 0]), True)


def test_receiver_holds_a_frame_until_released():
    dut = FrameReceiver(timeout=100)
    got = {}

    async def bench(ctx):
        await offer(ctx, dut, command_frame(Cmd.PING), gap=0)
        # the next frame's SYNC is not taken while the first is held
        ctx.set(dut.i_stream.valid, 1)
        ctx.set(dut.i_stream.payload, SYNC)
        got["ready"] = []
        for _ in range(20):
            _, _, ready, held = await ctx.tick().sample(dut.i_stream.ready, dut.frames.valid)
            got["ready"].append((ready, held))
        got["frame"] = await take_frame(ctx, dut)

    run(dut, bench, 2_000)
    assert set(got["ready"]) == {(0, 1)}
    assert got["frame"] == (Cmd.PING, 0xFF, b"", True)


@pytest.mark.parametrize("seed", [1, 2])
def test_receiver_with_registered_flags_equals_the_plain_one(seed):
    """The iCE40's receiver (``registered_flags``, hdl.link.gen_frontend) beside the ECP5's, driven
    alike clock by clock: frames, noise, garbled lengths, gaps longer than the timeout, late
    releases; readiness, the held frame, its payload and ``dropped`` equal in every clock."""
    import random

    from amaranth import Module

    timeout = 40
    m = Module()
    m.submodules.ref = ref = FrameReceiver(timeout)
    m.submodules.dut = dut = FrameReceiver(timeout, registered_flags=True)
    rng = random.Random(seed)
    stream = bytearray()
    for _ in range(60):
        frame = bytearray(command_frame(rng.randrange(256),
                                        bytes(rng.randrange(256)
                                              for _ in range(rng.choice([0, 1, 2, 3, 66, 255]))),
                                        engine=rng.randrange(256)))
        if rng.random() < 0.2:
            frame[rng.randrange(len(frame))] ^= 1 << rng.randrange(8)
        if rng.random() < 0.2:
            frame = frame[:rng.randrange(1, len(frame))]  # cut short: a time-out
        stream += bytes(rng.randrange(256) for _ in range(rng.randrange(3))) + frame
    checked = {"clocks": 0, "dropped": 0, "frames": 0}

    async def bench(ctx):
        pos = 0
        wait = 0
        while pos < len(stream):
            valid = wait == 0
            ready = rng.random() < 0.3
            addr = rng.randrange(256)
            for f in (ref, dut):
                ctx.set(f.i_stream.valid, valid)
                ctx.set(f.i_stream.payload, stream[pos])
                ctx.set(f.frames.ready, ready)
                ctx.set(f.payload_addr, addr)
            sigs = [(f.i_stream.ready, f.frames.valid, f.frames.payload.as_value(),
                     f.payload_data, f.dropped) for f in (ref, dut)]
            got = [tuple(ctx.get(x) for x in s) for s in sigs]
            assert got[1] == got[0], f"clock {checked['clocks']}: {got[1]} != {got[0]}"
            checked["clocks"] += 1
            checked["dropped"] += got[0][4]
            checked["frames"] += got[0][1] & ready
            taken = valid and got[0][0]
            await ctx.tick()
            if taken:
                pos += 1
                wait = rng.choice([0, 0, 1, 3]) if rng.random() < 0.97 else \
                    rng.choice([timeout - 2, timeout - 1, timeout, timeout + 3])
            elif wait:
                wait -= 1

    run(m, bench, 400_000)
    assert checked["dropped"] > 3 and checked["frames"] > 20


@pytest.mark.parametrize("timeout", [0, -1, 2.5, True, None])
def test_receiver_timeout_must_be_a_positive_integer(timeout):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)  # from the rejected half-made object
        with pytest.raises(TypeError, match="timeout must be a positive integer"):
            FrameReceiver(timeout)
        gc.collect()


@pytest.mark.parametrize("status, cmd, payload", [
    (Err.OK, Cmd.PING, b"POS\x04\x01\x02\x00\x02"), (Err.BUSY, Cmd.LOAD, b""),
    (Err.OK, Cmd.GENERATE, bytes(range(256)) * 2)])
@pytest.mark.parametrize("ready_every", [1, 2])
@pytest.mark.parametrize("registered_crc", [False, True])
def test_sender_sends_the_reply_frame(status, cmd, payload, ready_every, registered_crc):
    dut = ReplySender(registered_crc=registered_crc)
    out = bytearray()

    async def bench(ctx):
        ctx.set(dut.status, status)
        ctx.set(dut.cmd, cmd)
        ctx.set(dut.length, len(payload))
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        queue = list(payload)
        ctx.set(dut.o_stream.ready, 1)
        for clock in range(20 * (len(payload) + 8)):
            # the payload comes when it likes (every third clock), the UART takes when it can
            ctx.set(dut.payload.valid, bool(queue) and clock % 3 == 0)
            ctx.set(dut.payload.payload, queue[0] if queue else 0)
            ctx.set(dut.o_stream.ready, clock % ready_every == 0)
            _, _, valid, ready, byte, p_valid, p_ready = await ctx.tick().sample(
                dut.o_stream.valid, dut.o_stream.ready, dut.o_stream.payload,
                dut.payload.valid, dut.payload.ready)
            if valid and ready:
                out.append(byte)
            if p_valid and p_ready:
                queue.pop(0)
            if not ctx.get(dut.busy) and clock > 2:
                break

    run(dut, bench, 40 * (len(payload) + 8))
    assert bytes(out) == reply_frame(status, cmd, payload)
