"""The perft chip behind the board's command protocol (``hdl.link.protocol``, version 2) on a UART.

::

    rx -> HostLink ---- frame --> command FSM --(loads, counts, listings)--> PerftChip
          (UART, FIFO,               |  PayloadCursor, ArgumentCheck,             | moves
          frames, verdict)           |  PositionWriter, CountControl              v
                                     |  copy of the position (64 codes)     ListingBuffer
    tx <- HostLink <- ReplyShifter <-+- PING, STATUS, the listing's header <- words --+

The command FSM takes one received frame at a time, once the previous reply has gone: the link
has judged it (CRC, command, engine, length, busy); the FSM checks its arguments, executes it
and starts its reply. A count runs on in the chip while the FSM answers other commands (STATUS
reads its progress).

Everything the chip sees comes out of a register of the front end, and everything the replies
need of the chip (leaves, clocks, cycles, the listed moves) goes into one first, so the UART side
adds no logic to the chip's paths. The front end keeps its own copy of the loaded position: a
count that is aborted leaves the chip's board somewhere in the tree, and the copy restores it.

Power-up: the copy holds the initial position; the front end loads it into the chip and, when
built with a self-test, counts bulk perft(``self_test_depth``) of it and compares the leaves
with the published count (``self_test`` shows the verdict; STATUS shows the count).
"""

import enum

from amaranth import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.board import Board
from posdata.engine.rules.capabilities import refusal
from posdata.engine.rules.perft import perft
from posdata.engine.rules.positions import BY_NAME
from posdata.engine.rules.variants import CHESS

from ..chip.perft_chip import PerftChip
from ..common.contract import CODE_BITS, SQUARES, default_split, position_fields, square_codes
from .arguments import ArgumentCheck
from .count_control import CountControl
from .cursor import PayloadCursor
from .link import HostLink
from .listing_buffer import ListingBuffer
from .position_writer import PositionWriter
from .protocol import (
    ENGINE_ALL,
    LISTING_CAPACITY,
    LISTING_HEADER,
    PERFT_BOARD,
    PING_BYTES,
    SELF_TEST_DEPTH,
    STATUS_BYTES,
    Cmd,
    Err,
    ping_payload,
    variant_number,
)
from .reply_shifter import ReplyShifter

SHIFT_BYTES = STATUS_BYTES  #: the longest payload that goes out of the shifter
assert PING_BYTES <= SHIFT_BYTES and LISTING_HEADER <= SHIFT_BYTES


def initial_position(variant=CHESS) -> tuple[list[int], dict]:
    """The variant's start position's square codes (a1 first) and its Position fields."""
    board = Board(variant.start_fen, variant)
    return list(square_codes(board)), position_fields(board)


def check_board_variant(variant) -> None:
    """A board's variant must be one an ECP5 board's perft chip plays (engine.rules.capabilities:
    protocol version 2 carries no castling squares, so not Chess960)."""
    problem = refusal(variant, "ecp5")
    if problem:
        raise ValueError(problem)


def self_test_leaves(depth: int, variant=CHESS) -> int:
    """The count the self-test expects: the published one for chess, the software's for another
    variant (its start position, counted once at elaboration)."""
    if variant is CHESS:
        return BY_NAME["initial"].counts[depth - 1] if depth else 1
    return perft(Board(variant.start_fen, variant), depth, bulk=True)


def _byte(value):
    return Cat(value, Const(0, 8 - len(value)))


class Load(enum.IntEnum):
    """The payload the reply shifter takes in the next clock."""
    NONE = 0
    PING = 1
    STATUS = 2
    LISTING = 3


class UartFrontEnd(wiring.Component):
    """Parameters
    ----------
    divisor : int
        Clock cycles per UART bit, ``round(clock_hz / baud)``; at least 4.
    engines : int
        Engines of the perft chip.
    self_test_depth : int or None
        The power-up count (None: no self-test).
    frame_timeout : int or None
        Clocks without a byte after which a half-received command is dropped (default:
        ``FRAME_TIMEOUT_BYTES`` byte times).
    listing_capacity : int
        Moves the listing buffer holds (one more is an OVERFLOW reply).
    chip : wiring.Component or None
        The chip (default ``PerftChip(engines)``); tests pass a small model with its ports,
        ``engines`` and ``phases`` (one per thread).
    variant : engine.rules.variants.Variant
        What the chip plays (its ROMs, promotions, attack planes), the start position and its
        self-test count, the square codes LOAD accepts, PING's variant byte. Chess960 is refused:
        its castling squares per position are not in protocol version 2.

    Ports
    -----
    rx : In(1)
        Serial data from the host (idle high).
    tx : Out(1)
        Serial data to the host (idle high).
    busy : Out(1)
        The chip is counting or listing (for an LED).
    self_test : Out(2)
        The power-up self-test's verdict, a ``SelfTest`` value.
    """

    rx: In(1, init=1)
    tx: Out(1, init=1)
    busy: Out(1)
    self_test: Out(2)

    def __init__(self, divisor: int, *, engines: int = 1,
                 self_test_depth: int | None = SELF_TEST_DEPTH, frame_timeout: int | None = None,
                 listing_capacity: int = LISTING_CAPACITY, chip=None, variant=CHESS):
        try:
            check_board_variant(variant)
        except ValueError:
            self._MustUse__silence = True  # refused: never elaborated, nothing to warn about
            raise
        if self_test_depth is not None and (
                not isinstance(self_test_depth, int) or isinstance(self_test_depth, bool)
                or not 0 <= self_test_depth <= len(BY_NAME["initial"].counts)):
            raise TypeError(f"self_test_depth must be None or an integer from 0 to "
                            f"{len(BY_NAME['initial'].counts)}, not {self_test_depth!r}")
        if (not isinstance(listing_capacity, int) or isinstance(listing_capacity, bool)
                or not 1 <= listing_capacity <= LISTING_CAPACITY):
            raise TypeError(f"listing_capacity must be an integer from 1 to "
                            f"{LISTING_CAPACITY}, not {listing_capacity!r}")
        self.link = HostLink(divisor, frame_timeout,  # checks both
                             engines=engines if chip is None else chip.engines,
                             supported=PERFT_BOARD)
        self.chip = chip if chip is not None else PerftChip(engines, variant=variant)
        self._variant = variant
        self._self_test_depth = self_test_depth
        self._listing_capacity = listing_capacity
        super().__init__()

    @property
    def divisor(self) -> int:
        return self.link.divisor

    @property
    def engines(self) -> int:
        return self.chip.engines

    @property
    def threads(self) -> int:
        """Threads per engine."""
        return len(self.chip.phases) // self.chip.engines

    @property
    def frame_timeout(self) -> int:
        return self.link.frame_timeout

    @property
    def self_test_depth(self) -> int | None:
        return self._self_test_depth

    @property
    def listing_capacity(self) -> int:
        return self._listing_capacity

    def elaborate(self, platform):
        m = Module()
        test_depth = self._self_test_depth
        init_codes, init_root = initial_position(self._variant)
        m.submodules.link = link = self.link
        m.submodules.chip = chip = self.chip
        m.submodules.cursor = cursor = PayloadCursor()
        m.submodules.arguments = check = ArgumentCheck(self._variant, perft=True)
        m.submodules.writer = writer = PositionWriter(init_root)
        m.submodules.count = count = CountControl(
            None if test_depth is None else self_test_leaves(test_depth, self._variant))
        m.submodules.listing = listing = ListingBuffer(self._listing_capacity)
        m.submodules.shifter = shifter = ReplyShifter(SHIFT_BYTES)
        m.d.comb += [link.rx.eq(self.rx), self.tx.eq(link.tx), self.busy.eq(chip.busy),
                     self.self_test.eq(count.verdict)]
        wiring.connect(m, link.payload, cursor.payload)
        wiring.connect(m, cursor.current, check.current, writer.current)
        wiring.connect(m, shifter.payload, link.reply_payload)

        # --- What the chip sees: registers only -------------------------------------------------
        m.d.comb += [
            chip.load.write.en.eq(writer.wr_en), chip.load.write.sq.eq(writer.wr_sq),
            chip.load.write.color.eq(writer.wr_code[:2]),
            chip.load.write.piece.eq(writer.wr_code[2:]),
            chip.load.position.root.eq(writer.root),
            chip.count.start.eq(count.chip_start), chip.count.depth.eq(count.chip_depth),
            chip.count.bulk.eq(count.chip_bulk), chip.count.split.eq(count.chip_split),
            chip.count.abort.eq(count.chip_abort), chip.solo.eq(count.chip_solo),
            chip.solo_engine.eq(count.chip_solo_engine),
            chip.listing.start.eq(listing.gen_start), chip.listing.legal.eq(listing.gen_legal),
            count.chip_busy.eq(chip.busy), count.chip_leaves.eq(chip.leaves),
            count.chip_clocks.eq(chip.clocks), count.chip_overflow.eq(chip.overflow),
            link.counting.eq(count.counting), link.self_testing.eq(count.self_testing),
        ]
        wiring.connect(m, chip.listing.moves, listing.moves)  # the buffer takes a move every clock

        # --- The position: the front end's copy, written with the chip's board ---------------
        m.submodules.position = position = Memory(shape=CODE_BITS, depth=SQUARES, init=init_codes)
        copy_w = position.write_port()
        copy_r = position.read_port()
        m.d.comb += [copy_w.en.eq(writer.wr_en), copy_w.addr.eq(writer.wr_sq),
                     copy_w.data.eq(writer.wr_code), copy_r.addr.eq(cursor.addr),
                     # the copy's square addr - 1 is on its output
                     writer.copy_sq.eq(cursor.addr - 1), writer.copy_code.eq(copy_r.data)]

        # --- The held frame's payload: its arguments checked, then written --------------------
        hdr = link.frame.header
        m.d.comb += [cursor.length.eq(hdr.length),
                     check.load.eq(hdr.cmd == Cmd.LOAD), check.update.eq(hdr.cmd == Cmd.UPDATE),
                     check.perft.eq(hdr.cmd == Cmd.PERFT),
                     writer.load.eq(hdr.cmd == Cmd.LOAD)]

        # --- Counts: PERFT's arguments, or the self-test's --------------------------------------
        m.d.comb += [count.depth.eq(check.depth), count.bulk.eq(check.flags[0]),
                     count.split.eq(check.split), count.engine.eq(hdr.engine)]

        # --- Reply payloads: the shifter's bytes, then the listing's words -------------------
        # A reply's payload goes into the shifter a clock after the state that chose it, from a
        # register: a decoded FSM state fanned out to the shifter's bits is a long path. The
        # sender sends the header first, so the shifter is loaded long before its first byte
        # is asked for.
        chosen = Signal(Load)                   # the payload the shifter takes next
        select = Signal(Load)                   # the FSM's choice
        m.d.sync += chosen.eq(select)
        ping = ping_payload(self.engines, self.threads, 0, variant_number(self._variant))[:-1]
        with m.Switch(chosen):
            with m.Case(Load.PING):
                m.d.comb += [shifter.load_data.eq(Cat(Const(int.from_bytes(ping, "little"),
                                                            8 * len(ping)),
                                                      _byte(count.verdict))),
                             shifter.load_bytes.eq(PING_BYTES)]
            with m.Case(Load.STATUS):
                m.d.comb += [shifter.load_data.eq(count.status),
                             shifter.load_bytes.eq(STATUS_BYTES)]
            with m.Case(Load.LISTING):
                m.d.comb += [shifter.load_data.eq(Cat(chip.listing.cycles, listing.listed)),
                             shifter.load_bytes.eq(LISTING_HEADER)]
        m.d.comb += [shifter.load.eq(chosen != Load.NONE),
                     shifter.word_load.eq(listing.word_load), shifter.word_data.eq(listing.word),
                     listing.word_empty.eq(shifter.word_empty)]

        self._command_fsm(m, link, cursor, check, writer, count, listing, select)
        return m

    def _command_fsm(self, m, link, cursor, check, writer, count, listing, select):
        hdr = link.frame.header
        test_depth = self._self_test_depth
        r_status = Signal(8)
        r_length = Signal(16)
        m.d.comb += [link.reply.status.eq(r_status), link.reply.length.eq(r_length)]

        def reply(status, length=0):
            m.d.sync += [r_status.eq(status), r_length.eq(length)]
            m.next = "Reply"

        def copy_to_chip():
            """A square a clock from the copy into the chip (idx 1 .. 64: squares 0 .. 63)."""
            m.d.comb += [cursor.advance.eq(1), writer.copy.eq(cursor.addr != 0)]

        with m.FSM(name="command"):
            # --- power-up: the copy's initial position into the chip, then the self-test --------
            with m.State("Power-Up"):
                copy_to_chip()
                with m.If(cursor.addr == 64):
                    m.d.comb += cursor.restart.eq(1)
                    m.next = "Idle" if test_depth is None else "Self-Test"
            if test_depth is not None:
                with m.State("Self-Test"):
                    m.d.comb += [count.begin.eq(1), count.depth.eq(test_depth), count.bulk.eq(1),
                                 count.split.eq(default_split(test_depth)),
                                 count.self_test.eq(1), count.engine.eq(ENGINE_ALL)]
                    m.next = "Idle"

            with m.State("Idle"):
                with m.If(link.frame.valid & ~link.reply.busy):
                    m.d.comb += [cursor.restart.eq(1), check.clear.eq(1)]
                    m.next = "Judge"
            with m.State("Judge"):
                # the link's verdict on the frame in hand, registered in the clock before (its
                # checks and the command's decoding do not fit in one clock with what follows)
                with m.If(~link.frame.ok):
                    reply(link.frame.verdict)
                with m.Else():
                    with m.Switch(hdr.cmd):
                        with m.Case(Cmd.PING):
                            m.next = "Load-Ping"
                        with m.Case(Cmd.STATUS):
                            with m.If(count.overflow):
                                reply(Err.OVERFLOW)
                            with m.Else():
                                m.next = "Load-Status"
                        with m.Case(Cmd.ABORT):
                            with m.If(count.counting):
                                # the copy of the progress stays as it stood
                                m.d.comb += count.stop.eq(1)
                                m.next = "Reload"
                            with m.Else():
                                reply(Err.OK)
                        with m.Case(Cmd.PERFT, Cmd.LOAD, Cmd.UPDATE):
                            m.next = "Check"
                        with m.Case(Cmd.GENERATE, Cmd.LEGAL):
                            m.next = "List-Start"

            # --- PING, STATUS: the reply's payload chosen, a clock after the verdict ----------
            with m.State("Load-Ping"):
                m.d.comb += select.eq(Load.PING)
                reply(Err.OK, PING_BYTES)
            with m.State("Load-Status"):
                m.d.comb += select.eq(Load.STATUS)
                reply(Err.OK, STATUS_BYTES)

            # --- LOAD, UPDATE, PERFT: check every argument before anything changes ------------
            with m.State("Check"):
                m.d.comb += [cursor.advance.eq(1), check.check.eq(cursor.started)]
                with m.If(cursor.last):
                    m.next = "Check-Done"
            with m.State("Check-Done"):
                m.d.comb += cursor.restart.eq(1)
                with m.If(check.bad):
                    reply(Err.BAD_ARGUMENT)
                with m.Elif(hdr.cmd == Cmd.PERFT):
                    m.d.comb += count.begin.eq(1)
                    reply(Err.OK)
                with m.Else():
                    m.next = "Write"

            # --- LOAD, UPDATE: the squares into the chip and the copy, the state -----------------
            with m.State("Write"):
                m.d.comb += [cursor.advance.eq(1), writer.write.eq(cursor.started)]
                with m.If(cursor.last):
                    reply(Err.OK)

            # --- ABORT: the chip's board back to the loaded position ---------------------------
            with m.State("Reload"):
                copy_to_chip()
                with m.If(cursor.addr == 64):
                    reply(Err.OK)

            self._listing_states(m, hdr, listing, select, reply)

            with m.State("Reply"):
                m.d.comb += link.reply.start.eq(1)
                m.next = "Idle"

    def _listing_states(self, m, hdr, listing, select, reply):
        """GENERATE, LEGAL: list the root's moves, then answer with them."""
        list_settle = Signal(2)     # clocks until the chip's busy follows gen_start
        with m.State("List-Start"):
            m.d.comb += [listing.begin.eq(1), listing.legal.eq(hdr.cmd == Cmd.LEGAL)]
            m.d.sync += list_settle.eq(3)
            m.next = "List-Run"
        with m.State("List-Run"):
            with m.If(list_settle != 0):
                m.d.sync += list_settle.eq(list_settle - 1)
            with m.Elif(~self.chip.busy):
                m.next = "List-Drain"
        with m.State("List-Drain"):  # the last move passes its register
            m.next = "List-Reply"
        with m.State("List-Reply"):
            with m.If(listing.overflow):
                reply(Err.OVERFLOW)
            with m.Else():
                m.d.comb += [select.eq(Load.LISTING), listing.send.eq(1)]
                listed = listing.listed
                reply(Err.OK, LISTING_HEADER + (listed << 1) + listed)
