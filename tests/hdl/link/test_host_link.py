"""The link both front ends share (hdl.link.link.HostLink) and its judge (hdl.link.judge.FrameJudge)
in Amaranth's simulator, each alone.

The judge is held to the protocol's rules written out here from its documentation (the checks'
order, each command's engines and payload lengths, what BUSY refuses), over every command and a
spread of engines and lengths, in both its forms (the ECP5's and the iCE40's registered one).
The link round-trips frames over its UART lines: behind it a stand-in front end answers each
held frame with its verdict and, when OK, the payload read back reversed; the host's side is
sim.drivers.fpga_board_sim.SimulatedTransport, whose watchdog ends a read that stalls."""

import pytest
from amaranth.sim import Simulator

from posdata.hdl.link.judge import FrameJudge, flag
from posdata.hdl.link.link import HostLink
from posdata.hdl.link.protocol import (
    ENGINE_ALL,
    UART_FRAME_BITS,
    Cmd,
    Err,
    command_frame,
    reply_frame,
)
from posdata.sim.drivers.fpga_board_sim import SimulatedTransport

PERIOD = 1e-8

# --- The judge -----------------------------------------------------------------------------------

#: payload lengths each command takes (the protocol's command table)
LENGTHS = {Cmd.PING: {0}, Cmd.LOAD: {67}, Cmd.UPDATE: set(range(3, 132, 2)),
           Cmd.GENERATE: {0}, Cmd.LEGAL: {0}, Cmd.PERFT: {3}, Cmd.STATUS: {0}, Cmd.ABORT: {0},
           Cmd.SEARCH: set(range(8, 169, 5)), Cmd.RESULT: {0}}
IDLE_ONLY = {Cmd.LOAD, Cmd.UPDATE, Cmd.GENERATE, Cmd.LEGAL, Cmd.PERFT, Cmd.SEARCH}


def expected_verdict(cmd, engine, length, crc_ok, counting, self_testing, engines, supported):
    if not crc_ok:
        return Err.BAD_CRC
    if cmd not in set(Cmd):
        return Err.UNKNOWN_COMMAND
    if cmd not in supported:
        return Err.UNSUPPORTED
    listing = cmd in (Cmd.GENERATE, Cmd.LEGAL)
    if engine != ENGINE_ALL and not (engine == 0 if listing else engine < engines):
        return Err.BAD_ENGINE
    if length not in LENGTHS[cmd]:
        return Err.BAD_LENGTH
    if counting and cmd in IDLE_ONLY or self_testing and cmd == Cmd.ABORT:
        return Err.BUSY
    return Err.OK


HEADERS = [(cmd, engine, length)
           for cmd in [*Cmd, 0x00, 0x7E]
           for engine in (0, 1, 2, 0xFE, ENGINE_ALL)
           for length in (0, 1, 2, 3, 4, 66, 67, 68, 131, 133)]
# SEARCH's: a job and whole hashes (8 + 5k, k <= 32), around its ends and between hashes
HEADERS += [(Cmd.SEARCH, engine, length) for engine in (0, 2, ENGINE_ALL)
            for length in (7, 8, 12, 13, 14, 163, 168, 173)]
#: the perft board's commands and the search board's, as the protocol's table gives them
PERFT = frozenset({Cmd.PING, Cmd.LOAD, Cmd.UPDATE, Cmd.GENERATE, Cmd.LEGAL, Cmd.PERFT,
                   Cmd.STATUS, Cmd.ABORT})
SEARCH = frozenset({Cmd.PING, Cmd.LOAD, Cmd.UPDATE, Cmd.SEARCH, Cmd.RESULT, Cmd.ABORT})
BOARDS = [  # (engines, supported, registered): the ECP5's chip, the iCEBreaker's generator,
    # the search board, and a judge that takes every command
    (1, PERFT, False), (3, PERFT, False), (3, PERFT, True),
    (1, frozenset({Cmd.PING, Cmd.LOAD, Cmd.UPDATE, Cmd.GENERATE}), True),
    (1, SEARCH, False), (1, frozenset(Cmd), False)]


@pytest.mark.parametrize("engines, supported, registered", BOARDS)
def test_judge_follows_the_protocol(engines, supported, registered):
    dut = FrameJudge(engines, supported=supported, registered=registered)
    wrong = []
    # the header stands for a clock before it is judged (the receiver sets it a clock or more
    # before the CRC byte comes); counting and self-testing are read in the judging clock
    cases = [(*h, crc, c, s) for h in HEADERS for crc, c, s in ((1, 0, 0), (1, 1, 0), (1, 1, 1))]
    cases += [(*h, 0, 0, 0) for h in HEADERS[::7]]

    async def bench(ctx):
        for cmd, engine, length, crc, counting, self_testing in cases:
            ctx.set(dut.header, {"cmd": cmd, "engine": engine, "length": length, "crc_ok": crc})
            await ctx.tick()
            ctx.set(dut.counting, counting)
            ctx.set(dut.self_testing, self_testing)
            await ctx.tick()
            got = ctx.get(dut.verdict)
            want = expected_verdict(cmd, engine, length, crc, counting, self_testing, engines,
                                    supported)
            flags = {c for c in supported if ctx.get(flag(dut.is_cmd, c))}
            if (got, ctx.get(dut.ok), flags) != (want, want == Err.OK, {cmd} & supported):
                wrong.append((hex(cmd), engine, length, crc, counting, self_testing, got, want))
        done.append(True)

    done = []
    sim = Simulator(dut)
    sim.add_clock(PERIOD)
    sim.add_testbench(bench)
    sim.run_until(3 * len(cases) * PERIOD)
    assert done and not wrong, wrong[:5]


# --- The link ------------------------------------------------------------------------------------

DIVISOR = 4


def echo_link(registered):
    """The link behind the host's UART, with a stand-in front end: each held frame answered with
    its verdict and, when OK, its payload reversed."""
    link = HostLink(DIVISOR, 32 * UART_FRAME_BITS * DIVISOR, engines=2, registered=registered)
    transport = SimulatedTransport(DIVISOR, front_end=link)

    async def tick_until(ctx, signal, value=1):
        while True:  # plain ticks: the simulation ends while this bench waits
            await ctx.tick()
            if ctx.get(signal) == value:
                return

    async def answer(ctx):
        while True:
            await tick_until(ctx, link.frame.valid)
            await ctx.tick()  # the verdict: a clock after the frame is held
            verdict = ctx.get(link.frame.verdict)
            payload = []
            if verdict == Err.OK:
                for i in range(ctx.get(link.frame.header).length):
                    ctx.set(link.payload.addr, i)
                    await ctx.tick()  # the byte comes a clock after its address
                    payload.append(ctx.get(link.payload.data))
            ctx.set(link.reply.status, verdict)
            ctx.set(link.reply.length, len(payload))
            ctx.set(link.reply.start, 1)
            await ctx.tick()
            ctx.set(link.reply.start, 0)
            assert not ctx.get(link.frame.valid)  # the reply released the frame
            for byte in reversed(payload):
                ctx.set(link.reply_payload.payload, byte)
                ctx.set(link.reply_payload.valid, 1)
                while not ctx.get(link.reply_payload.ready):
                    await ctx.tick()
                await ctx.tick()  # taken
            ctx.set(link.reply_payload.valid, 0)
            await tick_until(ctx, link.reply.busy, 0)

    transport.sim.add_testbench(answer, background=True)
    return transport


@pytest.mark.parametrize("registered", [False, True], ids=["ecp5", "ice40"])
def test_link_round_trips_frames(registered):
    transport = echo_link(registered)
    bad_crc = bytearray(command_frame(Cmd.PING))
    bad_crc[-1] ^= 0x21
    exchanges = [
        (command_frame(Cmd.PERFT, bytes([5, 1, 2]), engine=1), reply_frame(Err.OK, Cmd.PERFT,
                                                                           bytes([2, 1, 5]))),
        (bytes(bad_crc), reply_frame(Err.BAD_CRC, Cmd.PING)),
        (command_frame(Cmd.PING, engine=2), reply_frame(Err.BAD_ENGINE, Cmd.PING)),
        (command_frame(0x7E), reply_frame(Err.UNKNOWN_COMMAND, 0x7E)),
        (command_frame(Cmd.UPDATE, bytes(range(11))),
         reply_frame(Err.OK, Cmd.UPDATE, bytes(reversed(range(11))))),
    ]
    for command, want in exchanges:
        transport.write(command)
        assert transport.read(len(want)) == want, command.hex()
    # two commands back to back (the protocol allows one in flight): the second waits its turn
    transport.write(exchanges[0][0] + exchanges[4][0])
    want = exchanges[0][1] + exchanges[4][1]
    assert transport.read(len(want)) == want
    transport.run_cycles(4 * UART_FRAME_BITS * DIVISOR)
    assert transport.in_waiting == 0  # one reply per frame, nothing more
