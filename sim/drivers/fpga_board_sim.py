"""Simulated boards for ``sim.drivers.fpga_board``: the board's gateware
(``hdl.link.chip_frontend.UartFrontEnd``: the perft chip behind the UART protocol) with a PC's UART
on its rx and tx lines.

* ``CompiledBoard``: the compiled model, CXXRTL's or Verilator's (the same clocks), with the line
  model in C (sim/models/board_entry.cc, either simulator's): the whole board,
  power-up self-test included, at about half a million clocks a second or more;
* ``SimulatedTransport``: Amaranth's simulator (golden, but about a thousand clocks a second with
  the chip inside), by default without a self-test and with a short frame time-out.

Both count time in clocks of a nominal ``CLOCK_HZ`` clock: ``sleep(seconds)`` runs the design,
and a read gives up once nothing has happened on the line for ``watchdog`` clocks (a stuck design
fails instead of hanging).
"""

import ctypes
from collections import deque

from posdata.hdl.link.protocol import FRAME_TIMEOUT_BYTES, SELF_TEST_DEPTH, UART_FRAME_BITS

from ..models.library import build_model
from ..models.toolchain import ToolchainError
from .compiled_model import CompiledModel, i32, pointer, u32, u64, vp
from .fpga_board import BoardError, ProtocolError

CLOCK_HZ = 100e6          #: the nominal clock (its value only scales simulated time)
CLOCK_PERIOD = 1 / CLOCK_HZ
NAME = "the simulated board"


class CompiledBoard(CompiledModel):
    """The board's compiled model: ``UartFrontEnd(divisor, engines=, self_test_depth=)`` with
    its default frame time-out. A new model starts at power-up, so its self-test runs first.
    ``simulator``: ``cxxrtl`` or ``verilator`` (the same bytes at the same clocks); by default
    sim.drivers.targets' choice. ``design="icebreaker"``: the iCEBreaker's board instead,
    ``GeneratorFrontEnd(divisor)`` (the generator alone, CXXRTL's model; ``engines`` and
    ``self_test_depth`` do not apply)."""

    name = NAME
    just_reset = True
    poll_interval = 2e-4  #: 20,000 clocks between STATUS polls
    MODEL = f"the compiled model of {NAME}"
    PREFIX = "posdata_board_"
    SIGNATURES = {
        "posdata_board_clocks": ([vp], u64),
        "posdata_board_send": ([vp, ctypes.c_char_p, u32], None),
        "posdata_board_run": ([vp, u64, u32, u64, ctypes.c_char_p, u32], i32),
        "posdata_board_probe": ([vp] + [pointer(u32)] * 3, None),
    }
    CONTRACT = True

    def __init__(self, divisor: int = 4, *, engines: int = 1,
                 self_test_depth: int | None = SELF_TEST_DEPTH, watchdog: int = 50_000,
                 library: str | None = None, verbose: bool = True, design: str = "board",
                 simulator: str | None = None):
        if design == "icebreaker":
            params = {"divisor": divisor}
            if simulator not in (None, "cxxrtl"):
                raise ValueError("the iCEBreaker's board has a CXXRTL model only")
            simulator = "cxxrtl"
        else:
            params = {"divisor": divisor, "engines": engines, "self_test_depth": self_test_depth}
        if simulator is None:
            from .targets import model_default
            simulator = model_default("board")
        self.simulator = simulator  #: the simulator that built the model (unless ``library``)
        try:  # a transport's errors are BoardErrors: the board's callers report those
            super().__init__(library or build_model(simulator, design, params, verbose))
        except ToolchainError as e:
            raise BoardError(str(e)) from None
        self.divisor = divisor
        self.watchdog = watchdog
        self.limit = f"{watchdog} idle clock cycles"
        self.frame_timeout = FRAME_TIMEOUT_BYTES * UART_FRAME_BITS * divisor
        self.frame_timeout_s = self.frame_timeout * CLOCK_PERIOD
        self._buffer = ctypes.create_string_buffer(1 << 16)
        self._received = bytearray()

    @property
    def cycle(self) -> int:
        """Clocks simulated so far."""
        return self.lib.posdata_board_clocks(self.handle)

    def write(self, data: bytes) -> None:
        self.lib.posdata_board_send(self.handle, bytes(data), len(data))

    def read(self, n: int) -> bytes:
        if len(self._received) < n:
            self._run(1 << 62, n - len(self._received), self.watchdog)
        data = bytes(self._received[:n])
        del self._received[:n]
        return data

    def discard_input(self) -> None:
        """Let the board finish what it is sending (three idle byte times), drop it all."""
        self._run(1 << 62, 0, 3 * UART_FRAME_BITS * self.divisor)
        self._received.clear()

    def sleep(self, seconds: float) -> None:
        self.run_cycles(round(seconds * CLOCK_HZ))

    def run_cycles(self, clocks: int) -> None:
        """Let the simulation run (what arrives meanwhile is kept for ``read``)."""
        self._run(clocks, 0, 0)

    @property
    def in_waiting(self) -> int:
        """Bytes received and not yet read."""
        self._run(0, 0, 0)
        return len(self._received)

    def probe(self) -> tuple[int, int]:
        """The front end's ``busy`` and ``self_test`` outputs; raises on a framing error seen
        on tx."""
        busy, self_test, errors = ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_uint32()
        self.lib.posdata_board_probe(self.handle, ctypes.byref(busy), ctypes.byref(self_test),
                                     ctypes.byref(errors))
        if errors.value:
            raise ProtocolError(f"framing error on the tx line of {self.name}")
        return busy.value, self_test.value

    def _run(self, max_clocks: int, want: int, quiet: int) -> None:
        while True:
            n = self.lib.posdata_board_run(self.handle, max_clocks, want, quiet, self._buffer,
                                           len(self._buffer))
            self._received += self._buffer.raw[:n]
            if n < len(self._buffer):
                return
            max_clocks = 0  # the buffer was full: collect the rest, run no further


class SimulatedTransport:
    """``UartFrontEnd`` in Amaranth's simulator. Bytes written are serialised onto its ``rx``
    bit by bit (8N1, ``divisor`` cycles per bit); its ``tx`` is decoded by an independent
    receiver model that samples mid-bit and checks the stop bit. ``front_end`` (tests: a
    front end around a small chip model) replaces the default
    ``UartFrontEnd(divisor, self_test_depth=None, frame_timeout=64 byte times)``.
    """

    name = NAME
    just_reset = True  #: a new simulation starts from the gateware's power-up state
    poll_interval = 2e-5

    def __init__(self, divisor: int = 4, *, front_end=None, watchdog: int = 20_000):
        from amaranth.sim import Simulator

        if front_end is None:
            from posdata.hdl.link.chip_frontend import UartFrontEnd
            front_end = UartFrontEnd(divisor, self_test_depth=None,
                                     frame_timeout=64 * UART_FRAME_BITS * divisor)
        self.dut = front_end
        self.divisor = front_end.divisor
        self.watchdog = watchdog
        self.limit = f"{watchdog} idle clock cycles"
        self.frame_timeout_s = front_end.frame_timeout * CLOCK_PERIOD
        self.cycle = 0               #: clock cycles simulated so far
        self._last_activity = 0      #: cycle of the last bit sent or byte received
        self._to_board: deque[int] = deque()
        self._from_board = bytearray()
        self._error: BaseException | None = None
        self.sim = Simulator(self.dut)
        self.sim.add_clock(CLOCK_PERIOD)
        self.sim.add_testbench(self._drive_rx)
        self.sim.add_testbench(self._decode_tx)

    # The host side of the line.

    def write(self, data: bytes) -> None:
        self._to_board.extend(data)

    def read(self, n: int) -> bytes:
        while len(self._from_board) < n and not self._stalled():
            self._advance()
        data = bytes(self._from_board[:n])
        del self._from_board[:n]
        return data

    def discard_input(self) -> None:
        """Let the board finish whatever it was sending (three idle frame times), then drop
        everything received."""
        quiet = 3 * UART_FRAME_BITS * self.divisor
        while self._to_board or self.cycle - self._last_activity < quiet:
            self._advance()
        self._from_board.clear()

    def sleep(self, seconds: float) -> None:
        self.run_cycles(round(seconds * CLOCK_HZ))

    @property
    def in_waiting(self) -> int:
        """Bytes received and not yet read (tests)."""
        return len(self._from_board)

    def run_cycles(self, cycles: int) -> None:
        """Let the simulation run (tests)."""
        end = self.cycle + cycles
        while self.cycle < end:
            self._advance()

    def close(self) -> None:
        pass

    def _stalled(self) -> bool:
        return not self._to_board and self.cycle - self._last_activity >= self.watchdog

    def _advance(self) -> None:
        self.sim.advance()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    # Testbenches: the line as a PC's UART sees it. They wait with delays (one wake-up per bit)
    # rather than clock ticks, which keeps the simulation fast; rx changes between clock edges
    # (it goes through the design's synchroniser) and tx is sampled between clock edges.

    async def _drive_rx(self, ctx):
        """Serialise queued bytes onto rx; also keep the cycle count (idle: one bit at a time)."""
        rx, d = self.dut.rx, self.divisor
        bit_time = d * CLOCK_PERIOD
        ctx.set(rx, 1)
        while True:
            if not self._to_board:
                await ctx.delay(bit_time)
                self.cycle += d
                continue
            byte = self._to_board.popleft()
            for bit in (0, *((byte >> i) & 1 for i in range(8)), 1):
                ctx.set(rx, bit)
                await ctx.delay(bit_time)
                self.cycle += d
            self._last_activity = self.cycle

    async def _decode_tx(self, ctx):
        tx, d = self.dut.tx, self.divisor
        bit_time = d * CLOCK_PERIOD
        while True:
            await ctx.negedge(tx)  # tx changes just after a rising clock edge
            await ctx.delay((d // 2 + 0.5) * CLOCK_PERIOD)  # the middle of the start bit
            if ctx.get(tx):
                continue  # a glitch, not a start bit (the gateware never makes one)
            byte = 0
            for i in range(8):
                await ctx.delay(bit_time)
                byte |= ctx.get(tx) << i
            await ctx.delay(bit_time)
            if not ctx.get(tx):
                self._error = ProtocolError(f"framing error: no stop bit after byte {byte:#04x} "
                                            f"from {self.name}")
            self._from_board.append(byte)
            self._last_activity = self.cycle
