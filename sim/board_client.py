"""The host side of the board's command protocol (``hdl.protocol``).

``BoardClient(transport).generate(board)`` has the interface of the simulator drivers
(``sim.pysim_driver.PysimGenerator``, ``sim.cxxrtl_driver.CxxrtlGenerator``): it writes the
squares that changed since the last call, sets side/castling/en passant, generates, and returns
a ``sim.driver.Generation`` with the moves in order and the generator's cycle count.

A transport carries the bytes:

* ``SerialTransport(port, baud)``: a real board on a serial port (pyserial);
* ``SimulatedTransport(divisor)``: ``hdl.frontend.UartFrontEnd`` in Amaranth's simulator, driven
  at the level of UART bits, so the client is proven without a board.

Every read has a time limit; when it expires the client raises ``BoardTimeout`` naming what did
not arrive. All errors are ``BoardError``\\ s with a one-line message.

Importing this module does not import amaranth or pyserial; the transports import them when
created.
"""

from collections import deque

from posdata.engine.defs import MAX_MOVES, MOVE_BITS
from posdata.hdl.protocol import (CYCLES_BYTES, DEFAULT_BAUD, MOVE_RECORD_BYTES, PING_MAGIC,
                                  PING_REPLY, PROTOCOL_VERSION, RESYNC, Cmd, parse_record,
                                  position_args, write_square_args)

from .driver import Generation, ShadowBoard, position_inputs

MOVE_MASK = (1 << MOVE_BITS) - 1
CLOCK_PERIOD = 1e-8       #: of the simulated board (its value only scales the simulated time)


class BoardError(Exception):
    """Talking to the board failed; the message is one line."""


class BoardTimeout(BoardError):
    """Something the board should have sent did not arrive in time."""


class ProtocolError(BoardError):
    """The board sent something the protocol does not allow."""


class BoardClient:
    """Drives one board over ``transport`` (``write(bytes)``, ``read(n) -> bytes`` returning
    fewer than ``n`` bytes when its time limit expires, ``discard_input()``, ``name``,
    ``limit`` (the time limit, for messages), ``close()``; optionally ``just_reset``: the board
    is known to hold its power-up state, so the first load writes only the occupied squares).

    The first ``generate`` of a session, and the first after an error, pings first: the board
    may be in the middle of an earlier exchange."""

    def __init__(self, transport):
        self.transport = transport
        self.shadow = ShadowBoard()
        self.version = None
        self._synced = bool(getattr(transport, "just_reset", False))
        if not self._synced:
            # a board may hold anything from an earlier session: load it all
            self.shadow.forget()

    def close(self) -> None:
        self.transport.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def ping(self) -> int:
        """Bring the board back to reading commands, check that it speaks this protocol and
        return its protocol version."""
        t = self.transport
        t.write(RESYNC)
        t.discard_input()
        self.shadow.forget()  # RESYNC may have completed a half-received WRITE_SQUARE
        t.write(bytes([Cmd.PING.value]))
        reply = self._read(len(PING_REPLY), "the PING reply")
        if reply[:len(PING_MAGIC)] != PING_MAGIC:
            raise ProtocolError(f"{t.name} answered PING with {reply.hex(' ')}, not a posdata "
                                f"board (expected {PING_REPLY.hex(' ')})")
        version = reply[len(PING_MAGIC)]
        if version != PROTOCOL_VERSION:
            raise ProtocolError(f"the board on {t.name} speaks protocol version {version}, this "
                                f"host version {PROTOCOL_VERSION}: rebuild the bitstream")
        self.version = version
        self._synced = True
        return version

    def generate(self, board) -> Generation:
        if not self._synced:
            self.ping()
        writes = self.shadow.diff(board)
        request = bytearray()
        for sq, color, piece in writes:
            request += bytes([Cmd.WRITE_SQUARE.value]) + write_square_args(sq, color, piece)
        request += bytes([Cmd.SET_POSITION.value]) + position_args(**position_inputs(board))
        # READ_CYCLES waits in the board's receiver until the move stream has ended.
        request += bytes([Cmd.GENERATE.value, Cmd.READ_CYCLES.value])
        try:
            self.transport.write(bytes(request))
            moves = self._read_moves()
            cycles = int.from_bytes(self._read(CYCLES_BYTES, "the READ_CYCLES reply"), "little")
        except BaseException:
            # The board's squares are uncertain now, and it may still be sending.
            self.shadow.forget()
            self._synced = False
            raise
        return Generation(moves, cycles, len(writes))

    def _read_moves(self) -> list[int]:
        moves: list[int] = []
        while True:
            record = self._read(MOVE_RECORD_BYTES,
                                f"move record {len(moves) + 1} or the end record of GENERATE")
            end, value = parse_record(record)
            if end:
                if value != len(moves):
                    raise ProtocolError(f"the board's end record counts {value} moves but "
                                        f"{len(moves)} arrived")
                return moves
            if value & ~MOVE_MASK:
                raise ProtocolError(f"garbage in the move stream (record {record.hex(' ')} after "
                                    f"{len(moves)} moves): is the baud rate right?")
            if len(moves) >= MAX_MOVES:  # the move buffer's size, which no position exceeds
                raise ProtocolError(f"the board sent more than {MAX_MOVES} moves in one "
                                    f"generation, more than any position has: a stuck generator "
                                    f"or a garbled line")
            moves.append(value)

    def _read(self, n: int, what: str) -> bytes:
        data = self.transport.read(n)
        if len(data) < n:
            got = f", got {len(data)} of {n} bytes" if data else ""
            raise BoardTimeout(f"{what} did not arrive from {self.transport.name} within "
                               f"{self.transport.limit}{got}")
        return data


# --- Transports --------------------------------------------------------------------------------

class SerialTransport:
    """A board on a serial port. ``timeout`` (seconds) bounds every read."""

    def __init__(self, port: str, baud: int = DEFAULT_BAUD, timeout: float = 1.0):
        try:
            import serial
        except ImportError:
            raise BoardError("pyserial is not installed (pip install pyserial)") from None
        self.name = port
        self.baud = baud
        self.limit = f"{timeout:g} s"
        try:
            self._port = serial.Serial(port, baud, timeout=timeout)
        except (serial.SerialException, OSError, ValueError) as e:
            # pyserial wraps the OS error ("[Errno 2] could not open port X: [Errno 2] ..."):
            # name the operating system's reason once.
            cause_args = getattr(e.__cause__ or e.__context__, "args", ())
            if len(cause_args) == 2 and isinstance(cause_args[1], str):
                reason = cause_args[1]  # OSError and termios.error: (errno, text)
            else:
                reason = " ".join(str(e).split())
            raise BoardError(f"cannot open serial port {port} at {baud} baud: {reason}") from None

    def write(self, data: bytes) -> None:
        self._port.write(data)
        self._port.flush()

    def read(self, n: int) -> bytes:
        return self._port.read(n)

    def discard_input(self, quiet: float = 0.05) -> None:
        """Drop what has arrived and whatever follows until the line has been quiet for
        ``quiet`` seconds (or 30 byte times, if longer)."""
        quiet = max(quiet, 300 / self.baud)
        old_timeout = self._port.timeout
        self._port.timeout = quiet
        try:
            self._port.reset_input_buffer()
            while self._port.read(4096):
                pass
        finally:
            self._port.timeout = old_timeout

    def close(self) -> None:
        self._port.close()


class SimulatedTransport:
    """``UartFrontEnd(divisor)`` in Amaranth's simulator. Bytes written are serialised onto its
    ``rx`` bit by bit (8N1, ``divisor`` cycles per bit); its ``tx`` is decoded by an independent
    receiver model that samples mid-bit and checks the stop bit.

    A read gives up (returns what it has) once the host has sent everything and nothing has
    arrived for ``watchdog`` clock cycles: a stuck design fails instead of hanging.
    """

    name = "the simulated board"
    just_reset = True  #: a new simulation starts from the gateware's power-up state

    def __init__(self, divisor: int = 4, *, fifo_depth: int = 256, watchdog: int = 20_000):
        from amaranth.sim import Simulator

        from posdata.hdl.frontend import UartFrontEnd

        self.dut = UartFrontEnd(divisor, fifo_depth=fifo_depth)
        self.divisor = divisor
        self.watchdog = watchdog
        self.limit = f"{watchdog} idle clock cycles"
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
        quiet = 3 * 10 * self.divisor
        deadline = self.cycle + 10 * self.watchdog
        while self._to_board or self.cycle - self._last_activity < quiet:
            if self.cycle > deadline:
                raise BoardTimeout(f"{self.name} did not fall silent within "
                                   f"{10 * self.watchdog} clock cycles")
            self._advance()
        self._from_board.clear()

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
