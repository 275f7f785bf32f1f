"""The command shell (hdl.link.command_shell) under the three front ends, in Amaranth's simulator
at the UART's pins: a frame the shell refuses (a bad CRC, an unknown command, a length that does
not fit, an engine out of range) and each board's UNSUPPORTED commands are answered by the
shell's Judge and Reply alone, so every board sends the same reply bytes, the same number of
clocks after the command's last bit (the iCEBreaker's a clock more: its link registers each
received byte on its way out of the FIFO). The perft board (around the chip's stand-in), the
iCEBreaker's board (the move generator itself) and the search board (around the thread model)."""

import pytest
from amaranth.sim import Simulator

from posdata.hdl.link.chip_frontend import UartFrontEnd
from posdata.hdl.link.gen_frontend import SUPPORTED as GENERATOR_BOARD
from posdata.hdl.link.gen_frontend import GeneratorFrontEnd
from posdata.hdl.link.protocol import (
    PERFT_BOARD,
    SEARCH_BOARD,
    UART_FRAME_BITS,
    Cmd,
    Err,
    command_frame,
    perft_payload,
    reply_frame,
)
from posdata.hdl.link.search_frontend import SearchFrontEnd
from tests.chip_model import FakeChip

from .thread_model import ThreadModel

DIVISOR = 4
TIMEOUT = 64 * UART_FRAME_BITS * DIVISOR
QUIET = 200  #: clocks of idle line before the command (every board's power-up is done by then)


def perft_board():
    return UartFrontEnd(DIVISOR, chip=FakeChip(2, 300), self_test_depth=None,
                        frame_timeout=TIMEOUT)


def generator_board():
    return GeneratorFrontEnd(DIVISOR, frame_timeout=TIMEOUT)


def search_board():
    return SearchFrontEnd(DIVISOR, frame_timeout=TIMEOUT, threads=2, make_thread=ThreadModel)


BOARDS = {"perft": perft_board, "generator": generator_board, "search": search_board}
SUPPORTED = {"perft": PERFT_BOARD, "generator": GENERATOR_BOARD, "search": SEARCH_BOARD}
#: clocks a board's link adds before the shell sees a byte (HostLink(registered=True))
LINK_DELAY = {"perft": 0, "generator": 1, "search": 0}


def answer(front_end, frame: bytes, reply_bytes: int = 5) -> tuple[int, bytes]:
    """The reply to ``frame`` sent on an idle line: (clocks from the end of the command's last
    stop bit to the reply's first start bit, the reply's bytes)."""
    line = [1] * QUIET
    for byte in frame:
        for bit in [0, *(byte >> i & 1 for i in range(8)), 1]:
            line += [bit] * DIVISOR
    sent = len(line)
    got = []
    first = None

    async def bench(ctx):
        nonlocal first
        cycle = 0
        start = None  # the clock of the start bit of the byte coming in
        value = 0
        while len(got) < reply_bytes:
            assert cycle < sent + 4000, "no reply"
            ctx.set(front_end.rx, line[cycle] if cycle < sent else 1)
            await ctx.tick()
            tx = ctx.get(front_end.tx)
            if start is None:
                if tx == 0:
                    start, value = cycle, 0
                    first = cycle - sent if first is None else first
            else:
                bit, phase = divmod(cycle - start, DIVISOR)
                if phase == DIVISOR // 2 and 1 <= bit <= 8:  # mid-bit
                    value |= tx << (bit - 1)
                elif phase == DIVISOR // 2 and bit == 9:  # the stop bit
                    assert tx == 1
                    got.append(value)
                    start = None
            cycle += 1

    sim = Simulator(front_end)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return first, bytes(got)


def bad_crc(frame: bytes) -> bytes:
    return frame[:-1] + bytes([frame[-1] ^ 0x5A])


REFUSED = [  # (what, frame, the shell's answer)
    ("unknown command", command_frame(0x00), Err.UNKNOWN_COMMAND),
    ("unknown command with a payload", command_frame(0x7F, b"\x01\x02"), Err.UNKNOWN_COMMAND),
    ("bad CRC", bad_crc(command_frame(Cmd.PING)), Err.BAD_CRC),
    ("bad engine", command_frame(Cmd.PING, engine=9), Err.BAD_ENGINE),
    ("bad length", command_frame(Cmd.PING, b"\x00"), Err.BAD_LENGTH),
]


@pytest.mark.parametrize("what, frame, err", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_frames_are_answered_alike_by_every_board(what, frame, err):
    answers = {name: answer(make(), frame) for name, make in BOARDS.items()}
    want = reply_frame(err, frame[1])
    assert {name: got for name, (_, got) in answers.items()} == dict.fromkeys(BOARDS, want)
    assert len({clocks - LINK_DELAY[name] for name, (clocks, _) in answers.items()}) == 1, answers


def test_unsupported_commands_are_answered_alike_by_every_board():
    """Each board's UNSUPPORTED commands: the judge's verdict, sent by the shell's Reply, in the
    clocks of an unknown command's."""
    payloads = {Cmd.PERFT: perft_payload(1, True, 0)}
    unknown = command_frame(0x00)
    clocks = set()
    refused = 0
    for name, make in BOARDS.items():
        base, _ = answer(make(), unknown)
        clocks.add(base - LINK_DELAY[name])
        for cmd in sorted(set(Cmd) - SUPPORTED[name]):
            frame = command_frame(cmd, payloads.get(cmd, b""))
            got_clocks, got = answer(make(), frame)
            assert got == reply_frame(Err.UNSUPPORTED, cmd), (name, cmd)
            # a payload's bytes come first; the answer follows its CRC byte as an unknown one's
            assert got_clocks == base, (name, cmd)
            refused += 1
    assert len(clocks) == 1 and refused >= 8
