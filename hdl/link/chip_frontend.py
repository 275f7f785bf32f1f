"""The perft chip behind the board's command protocol (``hdl.link.protocol``, version 2) on a UART.

::

    rx -> UartRx -> FIFO -> FrameReceiver -> command FSM --(loads, counts, listings)--> PerftChip
                                                |   +-- copy of the position (64 codes)    | moves
                                                |                         listing buffer (BRAM)
                                                v                                           |
    tx <- UartTx <- ReplySender <- payload: shifter (up to 20 bytes), then listing words <--+

The command FSM takes one received frame at a time, once the previous reply has gone: it checks
the frame (CRC, command, engine, length, busy, arguments), executes it and starts its reply. A
count runs on in the chip while the FSM answers other commands (STATUS reads its progress).

Everything the chip sees comes out of a register of the front end, and everything the replies
need of the chip (leaves, clocks, cycles, the listed moves) goes into one first, so the UART side
adds no logic to the chip's paths. The front end keeps its own copy of the loaded position: a
count that is aborted leaves the chip's board somewhere in the tree, and the copy restores it.

Power-up: the copy holds the initial position; the front end loads it into the chip and, when
built with a self-test, counts bulk perft(``self_test_depth``) of it and compares the leaves
with the published count (``self_test`` shows the verdict; STATUS shows the count).
"""

import enum

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from posdata.engine.board import Board
from posdata.engine.perft import perft
from posdata.engine.positions import BY_NAME
from posdata.engine.variants import CHESS

from ..chip.perft_chip import PerftChip
from ..common.layouts import MoveLayout, Position
from .frame_rx import FrameReceiver
from .frame_tx import ReplySender
from .protocol import (
    DEPTH_BITS,
    ENGINE_ALL,
    FLAG_BULK,
    FRAME_TIMEOUT_BYTES,
    LISTING_CAPACITY,
    LISTING_HEADER,
    LISTINGS,
    MAX_COMMAND_PAYLOAD,
    MAX_DEPTH,
    MOVE_BYTES,
    NEEDS_IDLE,
    PAYLOAD_LENGTHS,
    PING_BYTES,
    SELF_TEST_DEPTH,
    STATUS_BYTES,
    UART_FRAME_BITS,
    Cmd,
    Err,
    SelfTest,
    State,
    ping_payload,
    square_code,
    valid_square_codes,
    variant_number,
)
from .uart import UartRx, UartTx

#: bytes received while a command is in hand: a command sent right behind another (the protocol
#: allows one) arrives while the first is checked, written or listed; 32 byte times are 1,280
#: clocks at the smallest divisor, more than any command takes before its reply starts
RX_FIFO_DEPTH = 32
CODE_BITS = 5             #: a square code: colour (2 bits) | piece (3 bits) << 2
SHIFT_BYTES = STATUS_BYTES  #: the longest payload that goes out of the shifter
assert PING_BYTES <= SHIFT_BYTES and LISTING_HEADER <= SHIFT_BYTES


def initial_position(variant=CHESS) -> tuple[list[int], dict]:
    """The variant's start position's square codes (a1 first) and its Position fields."""
    board = Board(variant.start_fen, variant)
    codes = [square_code(c, p) for c, p in zip(board.color, board.piece)]
    return codes, {"side": board.side, "castle": board.castle, "ep_valid": 0, "ep_sq": 0}


def check_board_variant(variant) -> None:
    """A board's variant must be one protocol version 2 can load positions of."""
    if variant.chess960:
        raise ValueError(f"a board for {variant.name} needs each position's castling squares, "
                         "which protocol version 2 does not carry")


def self_test_split(depth: int) -> int:
    """The split ply the host chooses (sim.drivers.chip_cxxrtl.default_split)."""
    return max(0, min(2, depth - 1))


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
    variant : engine.variants.Variant
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
        check_board_variant(variant)
        if self_test_depth is not None and (
                not isinstance(self_test_depth, int) or isinstance(self_test_depth, bool)
                or not 0 <= self_test_depth <= len(BY_NAME["initial"].counts)):
            raise TypeError(f"self_test_depth must be None or an integer from 0 to "
                            f"{len(BY_NAME['initial'].counts)}, not {self_test_depth!r}")
        if (not isinstance(listing_capacity, int) or isinstance(listing_capacity, bool)
                or not 1 <= listing_capacity <= LISTING_CAPACITY):
            raise TypeError(f"listing_capacity must be an integer from 1 to "
                            f"{LISTING_CAPACITY}, not {listing_capacity!r}")
        self.uart_rx = UartRx(divisor)  # checks divisor
        self.uart_tx = UartTx(divisor)
        if frame_timeout is None:
            frame_timeout = FRAME_TIMEOUT_BYTES * UART_FRAME_BITS * divisor
        self.receiver = FrameReceiver(frame_timeout)  # checks frame_timeout
        self.sender = ReplySender()
        self.chip = chip if chip is not None else PerftChip(engines, variant=variant)
        self._variant = variant
        self._divisor = divisor
        self._self_test_depth = self_test_depth
        self._listing_capacity = listing_capacity
        super().__init__()

    @property
    def divisor(self) -> int:
        return self._divisor

    @property
    def engines(self) -> int:
        return self.chip.engines

    @property
    def threads(self) -> int:
        """Threads per engine."""
        return len(self.chip.phases) // self.chip.engines

    @property
    def frame_timeout(self) -> int:
        return self.receiver.timeout

    @property
    def self_test_depth(self) -> int | None:
        return self._self_test_depth

    @property
    def listing_capacity(self) -> int:
        return self._listing_capacity

    def elaborate(self, platform):
        m = Module()
        m.submodules.uart_rx = urx = self.uart_rx
        m.submodules.uart_tx = utx = self.uart_tx
        m.submodules.receiver = rcv = self.receiver
        m.submodules.sender = snd = self.sender
        m.submodules.chip = chip = self.chip
        m.d.comb += [urx.rx.eq(self.rx), self.tx.eq(utx.tx), self.busy.eq(chip.busy)]
        # A few received bytes wait here while the FSM still holds the previous command
        m.submodules.rx_fifo = rx_fifo = SyncFIFOBuffered(width=8, depth=RX_FIFO_DEPTH)
        m.d.comb += [rx_fifo.w_data.eq(urx.o_stream.payload), rx_fifo.w_en.eq(urx.o_stream.valid),
                     urx.o_stream.ready.eq(rx_fifo.w_rdy),
                     rcv.i_stream.payload.eq(rx_fifo.r_data),
                     rcv.i_stream.valid.eq(rx_fifo.r_rdy), rx_fifo.r_en.eq(rcv.i_stream.ready)]
        # a one-byte buffer between the reply sender and the transmitter: the sender's (and the
        # payload sources') readiness is then a register, not the UART's bit counter
        out_valid = Signal()
        out_byte = Signal(8)
        m.d.comb += [snd.o_stream.ready.eq(~out_valid), utx.i_stream.valid.eq(out_valid),
                     utx.i_stream.payload.eq(out_byte)]
        with m.If(snd.o_stream.valid & ~out_valid):
            m.d.sync += [out_valid.eq(1), out_byte.eq(snd.o_stream.payload)]
        with m.Elif(utx.i_stream.ready):
            m.d.sync += out_valid.eq(0)
        capacity = self._listing_capacity
        test_depth = self._self_test_depth
        init_codes, init_root = initial_position(self._variant)

        # --- What the chip sees: registers only -------------------------------------------------
        wr_en = Signal()
        wr_sq = Signal(6)
        wr_code = Signal(CODE_BITS)
        root = Signal(Position, init=init_root)
        start = Signal()
        depth = Signal(DEPTH_BITS)
        bulk = Signal()
        split = Signal(DEPTH_BITS)
        solo = Signal()
        solo_engine = Signal(8)
        abort = Signal()
        gen_start = Signal()
        gen_legal = Signal()
        m.d.sync += [wr_en.eq(0), start.eq(0), abort.eq(0), gen_start.eq(0)]  # pulses
        m.d.comb += [
            chip.load.write.en.eq(wr_en), chip.load.write.sq.eq(wr_sq),
            chip.load.write.color.eq(wr_code[:2]), chip.load.write.piece.eq(wr_code[2:]),
            chip.load.position.root.eq(root),
            chip.count.start.eq(start), chip.count.depth.eq(depth), chip.count.bulk.eq(bulk),
            chip.count.split.eq(split), chip.count.abort.eq(abort),
            chip.solo.eq(solo), chip.solo_engine.eq(solo_engine),
            chip.listing.start.eq(gen_start), chip.listing.legal.eq(gen_legal),
            chip.listing.moves.ready.eq(1),  # the listing buffer takes a move every clock
        ]

        # --- The position: the front end's copy, written with the chip's board ---------------
        m.submodules.position = position = Memory(shape=CODE_BITS, depth=64, init=init_codes)
        copy_w = position.write_port()
        copy_r = position.read_port()
        m.d.comb += [copy_w.en.eq(wr_en), copy_w.addr.eq(wr_sq), copy_w.data.eq(wr_code)]

        # --- The count: its state and a registered copy of its progress ----------------------
        state = Signal(2, init=State.IDLE)
        counting = Signal()
        settle = Signal(3)          # clocks until the chip's busy and sums follow a start
        c_bulk = Signal()
        c_self = Signal()           # the count is the power-up self-test
        c_depth = Signal(DEPTH_BITS)
        c_split = Signal(DEPTH_BITS)
        leaves = Signal(64)
        clocks = Signal(64)
        overflow = Signal()
        verdict = Signal(2, init=SelfTest.NONE if test_depth is None else SelfTest.RUNNING)
        m.d.comb += self.self_test.eq(verdict)
        self_testing = counting & c_self
        with m.If(counting):
            with m.If(settle != 0):
                m.d.sync += settle.eq(settle - 1)
            with m.Else():
                m.d.sync += [leaves.eq(chip.leaves), clocks.eq(chip.clocks),
                             overflow.eq(chip.overflow)]
                with m.If(~chip.busy):
                    m.d.sync += [counting.eq(0), state.eq(State.DONE)]
                    if test_depth is not None:
                        expected = self_test_leaves(test_depth, self._variant)
                        passed = (chip.leaves == expected) & ~chip.overflow
                        with m.If(c_self):
                            m.d.sync += verdict.eq(Mux(passed, SelfTest.PASSED, SelfTest.FAILED))

        def start_count(d, b, s, self_test=False, engine=ENGINE_ALL):
            m.d.sync += [start.eq(1), depth.eq(d), bulk.eq(b), split.eq(s),
                         solo.eq(engine != ENGINE_ALL), solo_engine.eq(engine),
                         counting.eq(1), settle.eq(4), state.eq(State.RUNNING),
                         c_depth.eq(d), c_bulk.eq(b), c_split.eq(s), c_self.eq(self_test),
                         leaves.eq(0), clocks.eq(0), overflow.eq(0)]

        # --- The listing: the chip's moves, registered, into block RAM ------------------------
        m.submodules.listing = listing = Memory(shape=MoveLayout.size, depth=capacity, init=[])
        list_w = listing.write_port()
        list_r = listing.read_port()
        mv_valid = Signal()
        mv_word = Signal(MoveLayout.size)
        listed = Signal(range(capacity + 1))
        list_settle = Signal(2)     # clocks until the chip's busy follows gen_start
        list_overflow = Signal()
        m.d.sync += [mv_valid.eq(chip.listing.moves.valid),
                     mv_word.eq(chip.listing.moves.payload)]
        m.d.comb += [list_w.addr.eq(listed), list_w.data.eq(mv_word),
                     list_w.en.eq(mv_valid & (listed != capacity))]
        with m.If(mv_valid):
            with m.If(listed == capacity):
                m.d.sync += list_overflow.eq(1)
            with m.Else():
                m.d.sync += listed.eq(listed + 1)

        # --- Reply payload: the shifter's bytes, then the listing's words --------------------
        shift = Signal(8 * SHIFT_BYTES)
        shift_left = Signal(range(SHIFT_BYTES + 1))
        load = Signal(Load)                     # the payload the shifter takes next
        word = Signal(8 * MOVE_BYTES)
        word_left = Signal(range(MOVE_BYTES + 1))
        words = Signal(range(capacity + 1))     # listing words still to fetch
        word_addr = Signal(range(capacity + 1))
        fetching = Signal()
        pl = snd.payload
        m.d.comb += [pl.valid.eq((shift_left != 0) | (word_left != 0)),
                     pl.payload.eq(Mux(shift_left != 0, shift[:8], word[:8])),
                     list_r.addr.eq(word_addr)]
        # The shifter moves on a clock after the sender takes a byte: its enable, fanned out to
        # every shifter bit, then comes from a flip-flop, not from the sender's handshake (the
        # 25F's critical path, 83.46 MHz). The one-byte buffer before the UART is never ready
        # in the clock after it takes a byte, so the stale byte is never taken twice.
        took = Signal()
        m.d.sync += took.eq(pl.valid & pl.ready)
        with m.If(took):
            with m.If(shift_left != 0):
                m.d.sync += [shift.eq(shift >> 8), shift_left.eq(shift_left - 1)]
            with m.Else():
                m.d.sync += [word.eq(word >> 8), word_left.eq(word_left - 1)]
        # A reply's payload goes into the shifter a clock after the state that chose it, from a
        # register: a decoded FSM state fanned out to the shifter's bits was the 85F's critical
        # path (57.47 MHz, 15.7 ns of routing). The sender sends the header first, so the
        # shifter is loaded long before its first byte is asked for.
        m.d.sync += load.eq(Load.NONE)
        with m.Switch(load):
            with m.Case(Load.PING):
                ping = ping_payload(self.engines, self.threads, 0,
                                    variant_number(self._variant))[:-1]
                m.d.sync += [shift.eq(Cat(Const(int.from_bytes(ping, "little"), 8 * len(ping)),
                                          _byte(verdict))),
                             shift_left.eq(PING_BYTES)]
            with m.Case(Load.STATUS):
                flags = Cat(c_bulk, c_self)
                m.d.sync += [shift.eq(Cat(_byte(state), _byte(flags), _byte(c_depth),
                                          _byte(c_split), leaves, clocks)),
                             shift_left.eq(STATUS_BYTES)]
            with m.Case(Load.LISTING):
                m.d.sync += [shift.eq(Cat(chip.listing.cycles, listed)),
                             shift_left.eq(LISTING_HEADER)]
        with m.If(fetching):  # the block RAM's word goes into a register before the mux
            m.d.sync += [word.eq(list_r.data), word_left.eq(MOVE_BYTES), fetching.eq(0),
                         word_addr.eq(word_addr + 1), words.eq(words - 1)]
        with m.Elif((word_left == 0) & (words != 0)):
            m.d.sync += fetching.eq(1)

        # --- The frame in hand: its verdict ----------------------------------------------------
        hdr = rcv.frames.payload
        r_status = Signal(8)
        r_length = Signal(16)
        m.d.comb += [snd.status.eq(r_status), snd.cmd.eq(hdr.cmd), snd.length.eq(r_length)]
        known = Signal()
        engine_ok = Signal()
        length_ok = Signal()
        blocked = Signal()
        any_engine = (hdr.engine < self.engines) | (hdr.engine == ENGINE_ALL)
        with m.Switch(hdr.cmd):
            for c in Cmd:
                with m.Case(c):
                    lo, hi = PAYLOAD_LENGTHS[c]
                    fits = (hdr.length >= lo) & (hdr.length <= hi)
                    if c == Cmd.UPDATE:
                        fits = fits & ~hdr.length[0]
                    m.d.comb += [known.eq(1), length_ok.eq(fits)]
                    if c in LISTINGS:
                        m.d.comb += engine_ok.eq((hdr.engine == 0) | (hdr.engine == ENGINE_ALL))
                    else:
                        m.d.comb += engine_ok.eq(any_engine)
                    if c in NEEDS_IDLE:
                        m.d.comb += blocked.eq(counting)
                    elif c == Cmd.ABORT:
                        m.d.comb += blocked.eq(self_testing)
        verdict_now = Signal(8)
        judged = Signal(8)
        m.d.sync += judged.eq(verdict_now)
        with m.If(~hdr.crc_ok):
            m.d.comb += verdict_now.eq(Err.BAD_CRC)
        with m.Elif(~known):
            m.d.comb += verdict_now.eq(Err.UNKNOWN_COMMAND)
        with m.Elif(~engine_ok):
            m.d.comb += verdict_now.eq(Err.BAD_ENGINE)
        with m.Elif(~length_ok):
            m.d.comb += verdict_now.eq(Err.BAD_LENGTH)
        with m.Elif(blocked):
            m.d.comb += verdict_now.eq(Err.BUSY)
        with m.Else():
            m.d.comb += verdict_now.eq(Err.OK)

        # --- Walking a payload (or the copy of the position) a byte per clock ----------------
        # ``idx`` addresses byte idx of both memories. The copy's square idx - 1 (``sq``) is on
        # its output; the payload's block RAM output comes late in the clock, so it is
        # registered first and payload byte idx - 2 (``j``) is in ``byte``.
        idx = Signal(range(MAX_COMMAND_PAYLOAD + 3))
        sq = Signal(6)
        j = Signal(range(MAX_COMMAND_PAYLOAD + 1))
        byte = Signal(8)
        m.d.comb += [sq.eq(idx - 1), j.eq(idx - 2),
                     rcv.payload_addr.eq(idx), copy_r.addr.eq(idx)]
        m.d.sync += byte.eq(rcv.payload_data)
        bad = Signal()      # an argument out of range
        pair_sq = Signal(6)  # UPDATE: the square of the pair being read
        a_depth = Signal(8)
        a_flags = Signal(8)
        a_split = Signal(8)
        valid_code = Signal()
        with m.Switch(byte):  # the variant's piece codes, either colour, or an empty square
            with m.Case(*sorted(valid_square_codes(self._variant))):
                m.d.comb += valid_code.eq(1)

        def write_square(sq, code):
            m.d.sync += [wr_en.eq(1), wr_sq.eq(sq), wr_code.eq(code)]

        def set_state(first, which):
            """A state byte: ``first`` the side/castle byte, else the en passant byte."""
            if first:
                return [root.side.eq(which[0]), root.castle.eq(which[1:5])]
            return [root.ep_valid.eq(which[7]), root.ep_sq.eq(which[:6])]

        def reply(status, length=0):
            m.d.sync += [r_status.eq(status), r_length.eq(length)]
            m.next = "Reply"

        with m.FSM(name="command"):
            # --- power-up: the copy's initial position into the chip, then the self-test --------
            with m.State("Power-Up"):
                m.d.sync += idx.eq(idx + 1)
                with m.If(idx != 0):
                    write_square(sq, copy_r.data)
                with m.If(idx == 64):
                    m.d.sync += idx.eq(0)
                    m.next = "Idle" if test_depth is None else "Self-Test"
            if test_depth is not None:
                with m.State("Self-Test"):
                    start_count(test_depth, 1, self_test_split(test_depth), self_test=True)
                    m.next = "Idle"

            with m.State("Idle"):
                with m.If(rcv.frames.valid & ~snd.busy):
                    m.d.sync += [idx.eq(0), bad.eq(0)]
                    m.next = "Judge"
            with m.State("Judge"):
                # the verdict of the frame in hand, registered in the clock before (its checks
                # and the command's decoding do not fit in one clock with what follows)
                with m.If(judged != Err.OK):
                    reply(judged)
                with m.Else():
                    with m.Switch(hdr.cmd):
                        with m.Case(Cmd.PING):
                            m.next = "Load-Ping"
                        with m.Case(Cmd.STATUS):
                            with m.If(overflow):
                                reply(Err.OVERFLOW)
                            with m.Else():
                                m.next = "Load-Status"
                        with m.Case(Cmd.ABORT):
                            with m.If(counting):
                                # the copy of the progress stays as it stood
                                m.d.sync += [abort.eq(1), counting.eq(0),
                                             state.eq(State.ABORTED)]
                                m.next = "Reload"
                            with m.Else():
                                reply(Err.OK)
                        with m.Case(Cmd.PERFT, Cmd.LOAD, Cmd.UPDATE):
                            m.next = "Check"
                        with m.Case(Cmd.GENERATE, Cmd.LEGAL):
                            m.next = "List-Start"

            # --- PING, STATUS: the reply's payload chosen, a clock after the verdict ----------
            with m.State("Load-Ping"):
                m.d.sync += load.eq(Load.PING)
                reply(Err.OK, PING_BYTES)
            with m.State("Load-Status"):
                m.d.sync += load.eq(Load.STATUS)
                reply(Err.OK, STATUS_BYTES)

            # --- LOAD, UPDATE, PERFT: check every argument before anything changes ------------
            with m.State("Check"):
                m.d.sync += idx.eq(idx + 1)
                with m.If(idx >= 2):
                    with m.Switch(hdr.cmd):
                        with m.Case(Cmd.PERFT):
                            # judged byte by byte, like the others: compared in "Check-Done",
                            # the arguments ran through a carry chain into the start of a
                            # count (the ULX3S-25F's critical path, 97.01 MHz)
                            with m.Switch(j):
                                with m.Case(0):
                                    m.d.sync += [a_depth.eq(byte),
                                                 bad.eq(bad | (byte > MAX_DEPTH))]
                                with m.Case(1):
                                    m.d.sync += [a_flags.eq(byte),
                                                 bad.eq(bad | (byte & ~FLAG_BULK).any())]
                                with m.Case(2):
                                    split_ok = (byte == 0) | (byte < a_depth)
                                    m.d.sync += [a_split.eq(byte), bad.eq(bad | ~split_ok)]
                        with m.Case(Cmd.LOAD):
                            with m.If(j < 64):
                                m.d.sync += bad.eq(bad | ~valid_code)
                            with m.Elif(j == 64):
                                m.d.sync += bad.eq(bad | (byte[5:] != 0))
                            with m.Else():
                                m.d.sync += bad.eq(bad | byte[6])
                        with m.Case(Cmd.UPDATE):
                            with m.If(j == 0):
                                m.d.sync += bad.eq(bad | (byte[5:] != 0))
                            with m.Elif(j == 1):
                                m.d.sync += bad.eq(bad | byte[6])
                            with m.Elif(~j[0]):
                                m.d.sync += bad.eq(bad | (byte[6:] != 0))
                            with m.Else():
                                m.d.sync += bad.eq(bad | ~valid_code)
                with m.If(idx == hdr.length + 1):
                    m.next = "Check-Done"
            with m.State("Check-Done"):
                m.d.sync += idx.eq(0)
                with m.If(bad):
                    reply(Err.BAD_ARGUMENT)
                with m.Elif(hdr.cmd == Cmd.PERFT):
                    start_count(a_depth, a_flags[0], a_split, engine=hdr.engine)
                    reply(Err.OK)
                with m.Else():
                    m.next = "Write"

            # --- LOAD, UPDATE: the squares into the chip and the copy, the state -----------------
            with m.State("Write"):
                m.d.sync += idx.eq(idx + 1)
                with m.If(idx >= 2):
                    with m.If(hdr.cmd == Cmd.LOAD):
                        with m.If(j < 64):
                            write_square(j, byte)
                        with m.Elif(j == 64):
                            m.d.sync += set_state(True, byte)
                        with m.Else():
                            m.d.sync += set_state(False, byte)
                    with m.Else():
                        with m.If(j == 0):
                            m.d.sync += set_state(True, byte)
                        with m.Elif(j == 1):
                            m.d.sync += set_state(False, byte)
                        with m.Elif(~j[0]):
                            m.d.sync += pair_sq.eq(byte)
                        with m.Else():
                            write_square(pair_sq, byte)
                with m.If(idx == hdr.length + 1):
                    reply(Err.OK)

            # --- ABORT: the chip's board back to the loaded position ---------------------------
            with m.State("Reload"):
                m.d.sync += idx.eq(idx + 1)
                with m.If(idx != 0):
                    write_square(sq, copy_r.data)
                with m.If(idx == 64):
                    reply(Err.OK)

            # --- GENERATE, LEGAL: list the root's moves, then answer with them -------------------
            with m.State("List-Start"):
                m.d.sync += [gen_start.eq(1), gen_legal.eq(hdr.cmd == Cmd.LEGAL),
                             listed.eq(0), list_overflow.eq(0), list_settle.eq(3)]
                m.next = "List-Run"
            with m.State("List-Run"):
                with m.If(list_settle != 0):
                    m.d.sync += list_settle.eq(list_settle - 1)
                with m.Elif(~chip.busy):
                    m.next = "List-Drain"
            with m.State("List-Drain"):  # the last move passes its register
                m.next = "List-Reply"
            with m.State("List-Reply"):
                with m.If(list_overflow):
                    reply(Err.OVERFLOW)
                with m.Else():
                    m.d.sync += [load.eq(Load.LISTING), words.eq(listed), word_addr.eq(0)]
                    reply(Err.OK, LISTING_HEADER + (listed << 1) + listed)

            with m.State("Reply"):
                m.d.comb += [snd.start.eq(1), rcv.frames.ready.eq(1)]
                m.next = "Idle"
        return m

