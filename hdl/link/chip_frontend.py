"""The perft chip behind the board's command protocol (``hdl.link.protocol``, version 4) on a UART:
the perft chip's commands on the command shell (``hdl.link.command_shell``).

::

    rx -> HostLink -- frame --> CommandShell --(loads, counts, listings)--> PerftChip
                                 |  + PERFT, STATUS, ABORT, GENERATE, LEGAL       | moves
                                 |  CountControl, copy of the position            v
    tx <- HostLink <- ReplyShifter <- PING, STATUS, the listing's header <- ListingBuffer

The shell judges a frame, checks its arguments and writes LOAD's and UPDATE's positions; this
board adds PING, STATUS (a count's progress), ABORT, PERFT (its count starts once its arguments
pass) and the listings. A count runs on in the chip while the shell answers other commands.

Everything the chip sees comes out of a register of the front end, and everything the replies
need of the chip (leaves, clocks, cycles, the listed moves) goes into one first, so the UART side
adds no logic to the chip's paths. The front end keeps its own copy of the loaded position: a
count that is aborted leaves the chip's board somewhere in the tree, and the copy restores it.

Power-up: the copy holds the initial position; the front end loads it into the chip and, when
built with a self-test, counts bulk perft(``self_test_depth``) of it and compares the leaves
with the published count (``self_test`` shows the verdict; STATUS shows the count).
"""
import enum

from amaranth import Cat, Const, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.rules.board import Board
from posdata.engine.rules.capabilities import refusal
from posdata.engine.rules.perft import perft
from posdata.engine.rules.positions import BY_NAME
from posdata.engine.rules.variants import CHESS

from ..chip.chessboard import check_chip
from ..chip.perft_chip import PerftChip
from ..common.contract import SQUARES, default_split
from .command_shell import CommandShell, initial_position
from .count_control import CountControl
from .link import HostLink
from .listing_buffer import ListingBuffer
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

__all__ = ["UartFrontEnd", "check_board_variant", "initial_position", "self_test_leaves"]

SHIFT_BYTES = STATUS_BYTES  #: the longest payload that goes out of the shifter
assert PING_BYTES <= SHIFT_BYTES and LISTING_HEADER <= SHIFT_BYTES


def check_board_variant(variant) -> None:
    """A board's variant must be one an ECP5 board's perft chip plays, the declaration's line
    (engine.rules.capabilities): the chip plays it, and the protocol carries what the chip
    needs: no castling squares (so not Chess960); en passant's victim comes with the state."""
    try:
        check_chip(variant)
    except ValueError:  # UnsupportedVariant, a table problem
        pass
    else:
        if not variant.chess960:
            return
    raise ValueError(refusal(variant, "ecp5"))


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


class UartFrontEnd(CommandShell):
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
        self-test count, the square codes LOAD accepts, PING's variant byte. Refused where the
        protocol lacks what the chip needs (``check_board_variant``).

    Ports
    -----
    rx : In(1)
        Serial data from the host (idle high).
    tx : Out(1)
        Serial data to the host (idle high).
    busy : Out(1)
        The chip is counting or listing, a clock later (for an LED).
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
        link = HostLink(divisor, frame_timeout,  # checks both
                        engines=engines if chip is None else chip.engines, supported=PERFT_BOARD)
        self.chip = chip if chip is not None else PerftChip(engines, variant=variant)
        self._self_test_depth = self_test_depth
        self._listing_capacity = listing_capacity
        super().__init__(link, shift_bytes=SHIFT_BYTES, variant=variant, perft=True)

    @property
    def engines(self) -> int:
        return self.chip.engines

    @property
    def threads(self) -> int:
        """Threads per engine."""
        return len(self.chip.phases) // self.chip.engines

    @property
    def self_test_depth(self) -> int | None:
        return self._self_test_depth

    @property
    def listing_capacity(self) -> int:
        return self._listing_capacity

    # --- the chip, its count and its listing ------------------------------------------------

    def _build(self, m, s):
        test_depth = self._self_test_depth
        link, writer, check, shifter = s.link, s.writer, s.check, s.shifter
        m.submodules.chip = chip = self.chip
        m.submodules.count = count = CountControl(
            None if test_depth is None else self_test_leaves(test_depth, self._variant))
        m.submodules.listing = listing = ListingBuffer(self._listing_capacity)
        self._count, self._listing = count, listing
        m.d.comb += self.self_test.eq(count.verdict)

        # what the chip sees: registers only
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

        # counts: PERFT's arguments (the self-test's in Self-Test)
        m.d.comb += [count.depth.eq(check.depth), count.bulk.eq(check.flags[0]),
                     count.split.eq(check.split), count.engine.eq(s.header.engine)]

        # Reply payloads: the shifter's bytes, then the listing's words. A reply's payload goes
        # into the shifter a clock after the state that chose it, from a register: a decoded
        # FSM state fanned out to the shifter's bits is a long path. The sender sends the
        # header first, so the shifter is loaded long before its first byte is asked for.
        chosen = Signal(Load)                   # the payload the shifter takes next
        self._select = select = Signal(Load)    # the FSM's choice
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

    def _busy(self, s):
        return self.chip.busy

    def _root_layout(self):
        return self.chip.load.position.root.shape()  # with modes, the victim too

    def _power_up(self, m, s):
        """The copy's initial position into the chip, then the self-test (if built with one)."""
        test_depth = self._self_test_depth
        count = self._count
        with m.State("Power-Up"):
            s.copy_square()
            with m.If(s.cursor.addr == SQUARES):
                m.d.comb += s.cursor.restart.eq(1)
                m.next = "Idle" if test_depth is None else "Self-Test"
        if test_depth is not None:
            with m.State("Self-Test"):
                m.d.comb += [count.begin.eq(1), count.depth.eq(test_depth), count.bulk.eq(1),
                             count.split.eq(default_split(test_depth)),
                             count.self_test.eq(1), count.engine.eq(ENGINE_ALL)]
                m.next = "Idle"

    def _dispatch(self, m, s):
        count = self._count
        with m.Switch(s.header.cmd):
            with m.Case(Cmd.PING):
                m.next = "Load-Ping"
            with m.Case(Cmd.STATUS):
                with m.If(count.overflow):
                    s.reply(Err.OVERFLOW)
                with m.Else():
                    m.next = "Load-Status"
            with m.Case(Cmd.ABORT):
                with m.If(count.counting):
                    m.d.comb += count.stop.eq(1)  # the copy of the progress stays as it stood
                    m.next = "Reload"
                with m.Else():
                    s.reply(Err.OK)
            with m.Case(Cmd.PERFT, Cmd.LOAD, Cmd.UPDATE):
                m.next = "Check"
            with m.Case(Cmd.GENERATE, Cmd.LEGAL):
                m.next = "List-Start"

    def _checked(self, m, s):
        """PERFT's count starts once its arguments pass; LOAD and UPDATE write."""
        with m.If(s.check.bad):
            s.reply(Err.BAD_ARGUMENT)
        with m.Elif(s.header.cmd == Cmd.PERFT):
            m.d.comb += self._count.begin.eq(1)
            s.reply(Err.OK)
        with m.Else():
            m.next = "Write"

    def _states(self, m, s):
        select = self._select
        # PING, STATUS: the reply's payload chosen, a clock after the verdict
        with m.State("Load-Ping"):
            m.d.comb += select.eq(Load.PING)
            s.reply(Err.OK, PING_BYTES)
        with m.State("Load-Status"):
            m.d.comb += select.eq(Load.STATUS)
            s.reply(Err.OK, STATUS_BYTES)

        # ABORT: the chip's board back to the loaded position
        with m.State("Reload"):
            s.copy_square()
            with m.If(s.cursor.addr == SQUARES):
                s.reply(Err.OK)

        self._listing_states(m, s)

    def _listing_states(self, m, s):
        """GENERATE, LEGAL: list the root's moves, then answer with them."""
        listing = self._listing
        list_settle = Signal(2)     # clocks until the chip's busy follows gen_start
        with m.State("List-Start"):
            m.d.comb += [listing.begin.eq(1), listing.legal.eq(s.header.cmd == Cmd.LEGAL)]
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
                s.reply(Err.OVERFLOW)
            with m.Else():
                m.d.comb += [self._select.eq(Load.LISTING), listing.send.eq(1)]
                listed = listing.listed
                s.reply(Err.OK, LISTING_HEADER + (listed << 1) + listed)
