"""What the board shows and does by itself: the LEDs (hdl.boards.leds) in Amaranth's simulator, and
the power-up self-test on the real chip in Amaranth's simulator at a small depth (slow: the chip
runs about a thousand clocks a second there; the compiled board runs the real depth-4 self-test in
every test of tests/hdl/link/test_board_protocol.py)."""

import gc
import warnings

import pytest
from amaranth.hdl import UnusedElaboratable
from amaranth.sim import Simulator

from posdata.engine.rules.board import Board
from posdata.hdl.boards.leds import StatusLeds
from posdata.hdl.common.contract import default_split
from posdata.hdl.link.chip_frontend import UartFrontEnd, self_test_leaves
from posdata.hdl.link.protocol import UART_FRAME_BITS, SelfTest, State
from posdata.sim.drivers.fpga_board import BoardClient
from posdata.sim.drivers.fpga_board_sim import SimulatedTransport

STRETCH, HEARTBEAT, BLINK = 4, 6, 2  # counters of 16, 64 and a blink every 4 clocks


def led_trace(busy, self_test, clocks=64):
    """LEDs per clock with ``busy`` high for the first clock and ``self_test`` held."""
    dut = StatusLeds(STRETCH, HEARTBEAT, BLINK)
    trace = []

    async def bench(ctx):
        ctx.set(dut.locked, 1)
        ctx.set(dut.self_test, self_test)
        ctx.set(dut.busy, busy)
        for clock in range(clocks):
            await ctx.tick()
            ctx.set(dut.busy, 0)
            trace.append(ctx.get(dut.leds))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run_until(2 * clocks * 1e-8)  # the watchdog: a stuck bench leaves the trace short
    assert len(trace) == clocks
    return trace


def bit(trace, i):
    return [v >> i & 1 for v in trace]


def test_busy_is_stretched_and_locked_shown():
    trace = led_trace(busy=1, self_test=SelfTest.NONE)
    assert bit(trace, 0)[:15] == [1] * 15 and set(bit(trace, 0)[16:]) == {0}
    assert set(bit(trace, 1)) == {1}
    beat = bit(trace, 2)  # the heartbeat's top bit: 32 clocks low, 32 high
    assert beat[:31] == [0] * 31 and beat[32:63] == [1] * 31


@pytest.mark.parametrize("verdict, shown", [
    (SelfTest.NONE, {0}), (SelfTest.RUNNING, {0}), (SelfTest.PASSED, {1})])
def test_self_test_led_is_off_while_running_and_steady_when_passed(verdict, shown):
    assert set(bit(led_trace(0, verdict), 3)) == shown


def test_self_test_led_blinks_when_failed():
    led = bit(led_trace(0, SelfTest.FAILED), 3)
    assert led[:12] == [0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1]  # heartbeat bit 2


def test_blink_bit_must_be_in_the_heartbeat():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)  # from the rejected half-made object
        with pytest.raises(TypeError, match="blink_bit must be below heartbeat_bits"):
            StatusLeds(4, 6, 6)
        gc.collect()


def test_self_test_expectations_come_from_the_published_counts():
    assert [self_test_leaves(d) for d in range(5)] == [1, 20, 400, 8902, 197281]
    assert [default_split(d) for d in range(5)] == [0, 0, 1, 2, 2]


@pytest.mark.slow
def test_self_test_on_the_real_chip_in_amaranths_simulator():
    """perft(2) at power-up, the host held off while it runs, then its verdict and a listing,
    UART bits and all (the transport the CLI's --pysim uses)."""
    front_end = UartFrontEnd(4, self_test_depth=2, frame_timeout=64 * UART_FRAME_BITS * 4)
    client = BoardClient(SimulatedTransport(front_end=front_end, watchdog=50_000))
    assert client.ping().self_test == SelfTest.RUNNING
    info = client.wait_self_test(limit=600)
    assert info.self_test == SelfTest.PASSED
    s = client.status()
    assert (s.state, s.leaves, s.depth, s.self_test) == (State.DONE, 400, 2, True)
    board = Board()
    assert client.generate(board).moves == board.moves()
