"""The move generator alone behind the board's command protocol (``hdl.link.protocol``, version 2):
the iCEBreaker's board, where the perft chip does not fit.

::

    rx -> UartRx -> FIFO -> FrameReceiver -> command FSM --(squares, state, start)--> MoveGenerator
                                                                                         | moves
    tx <- UartTx <- ReplySender <- payload: shifter (PING, the listing's header), then moves <-+

It speaks the protocol's commands that need no perft chip: PING (0 engines, 0 threads, no
self-test: what this board has), LOAD, UPDATE and GENERATE. PERFT, LEGAL, STATUS and ABORT are
answered ``Err.UNSUPPORTED``. The engine byte may be 0 (the generator) or ``ENGINE_ALL``.

A listing is generated twice instead of being buffered (a 1,024-move buffer would take six of
the UP5K's 30 block RAMs): the first pass, with the move stream always ready, counts the moves
and gives the cycle count the reply reports (the generator's clocks for the position, as on the
ULX3S); the second pass, stalled move by move by the UART, sends them. The generator is
deterministic, so both passes give the same moves; the next command waits until the generator
is idle.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..gen.movegen import MoveGenerator
from .chip_frontend import CODE_BITS, RX_FIFO_DEPTH, initial_position
from .frame_rx import FrameReceiver
from .frame_tx import ReplySender
from .protocol import (
    ENGINE_ALL,
    FRAME_TIMEOUT_BYTES,
    LISTING_HEADER,
    MAX_COMMAND_PAYLOAD,
    MOVE_BYTES,
    PAYLOAD_LENGTHS,
    PING_BYTES,
    UART_FRAME_BITS,
    Cmd,
    Err,
    SelfTest,
    ping_payload,
    square_code,
)
from .uart import UartRx, UartTx

#: what this board answers; the other commands need the perft chip
SUPPORTED = frozenset({Cmd.PING, Cmd.LOAD, Cmd.UPDATE, Cmd.GENERATE})
SHIFT_BYTES = max(PING_BYTES, LISTING_HEADER)


class GeneratorFrontEnd(wiring.Component):
    """Parameters
    ----------
    divisor : int
        Clock cycles per UART bit (the clock must be a whole multiple of the baud rate on the
        iCEBreaker: ``hdl.boards.ice40_pll.exact_divisor``); at least 4.
    frame_timeout : int or None
        Clocks without a byte after which a half-received command is dropped (default:
        ``FRAME_TIMEOUT_BYTES`` byte times).

    Ports
    -----
    rx : In(1)
        Serial data from the host (idle high).
    tx : Out(1)
        Serial data to the host (idle high).
    busy : Out(1)
        The generator is listing (for an LED).
    self_test : Out(2)
        Always ``SelfTest.NONE`` (the same ports as ``hdl.link.chip_frontend.UartFrontEnd``, so the
        compiled board's line model drives either).
    """

    rx: In(1, init=1)
    tx: Out(1, init=1)
    busy: Out(1)
    self_test: Out(2)

    engines = 0   #: PING: no perft engine
    threads = 0

    def __init__(self, divisor: int, *, frame_timeout: int | None = None):
        self.uart_rx = UartRx(divisor)  # checks divisor
        self.uart_tx = UartTx(divisor)
        if frame_timeout is None:
            frame_timeout = FRAME_TIMEOUT_BYTES * UART_FRAME_BITS * divisor
        # its flags registered (the iCE40's critical path ran from its byte count)
        self.receiver = FrameReceiver(frame_timeout, registered_flags=True)  # checks timeout
        # its CRC from a register (the one-byte buffer below is never ready in the clock after
        # it takes a byte, so the same bytes in the same clocks)
        self.sender = ReplySender(registered_crc=True)
        # no LUT RAM on the iCE40: the merger's FIFOs with registered heads, the pieces in
        # planes of flip-flops with the next piece's type found beside its square, the walker's
        # colour lookup over two stages (same moves, same clocks; hdl.gen.movegen). The typed
        # scanner's registers lag the board by a clock: a start never comes in the clock after
        # a board write here (tests/hdl/boards/test_icebreaker.py checks it on every clock)
        self.gen = MoveGenerator(registered_heads=True, typed_scan=True, split_lookup=True)
        self._divisor = divisor
        super().__init__()

    @property
    def divisor(self) -> int:
        return self._divisor

    @property
    def frame_timeout(self) -> int:
        return self.receiver.timeout

    def elaborate(self, platform):
        m = Module()
        m.submodules.uart_rx = urx = self.uart_rx
        m.submodules.uart_tx = utx = self.uart_tx
        m.submodules.receiver = rcv = self.receiver
        m.submodules.sender = snd = self.sender
        m.submodules.gen = gen = self.gen
        m.d.comb += [urx.rx.eq(self.rx), self.tx.eq(utx.tx), self.busy.eq(gen.busy),
                     self.self_test.eq(SelfTest.NONE)]
        # received bytes wait here while the FSM holds the previous command (hdl.link.chip_frontend)
        m.submodules.rx_fifo = rx_fifo = SyncFIFOBuffered(width=8, depth=RX_FIFO_DEPTH)
        m.d.comb += [rx_fifo.w_data.eq(urx.o_stream.payload), rx_fifo.w_en.eq(urx.o_stream.valid),
                     urx.o_stream.ready.eq(rx_fifo.w_rdy)]
        # ... and pass a register on their way to the receiver (a byte a clock still): its CRC
        # and state logic start at a flip-flop, not at the block RAM's late output
        rx_valid = Signal()
        rx_byte = Signal(8)
        m.d.comb += [rcv.i_stream.payload.eq(rx_byte), rcv.i_stream.valid.eq(rx_valid),
                     rx_fifo.r_en.eq(~rx_valid | rcv.i_stream.ready)]
        with m.If(rx_fifo.r_en):
            m.d.sync += [rx_valid.eq(rx_fifo.r_rdy), rx_byte.eq(rx_fifo.r_data)]
        # a one-byte buffer before the transmitter: the payload's readiness is a register
        out_valid = Signal()
        out_byte = Signal(8)
        m.d.comb += [snd.o_stream.ready.eq(~out_valid), utx.i_stream.valid.eq(out_valid),
                     utx.i_stream.payload.eq(out_byte)]
        with m.If(snd.o_stream.valid & ~out_valid):
            m.d.sync += [out_valid.eq(1), out_byte.eq(snd.o_stream.payload)]
        with m.Elif(utx.i_stream.ready):
            m.d.sync += out_valid.eq(0)

        # --- What the generator sees: registers only -------------------------------------------
        init_codes, init_root = initial_position()
        wr_en = Signal()
        wr_sq = Signal(6)
        wr_code = Signal(CODE_BITS)
        side = Signal(init=init_root["side"])
        castle = Signal(4, init=init_root["castle"])
        ep_valid = Signal()
        ep_sq = Signal(6)
        start = Signal()
        m.d.sync += [wr_en.eq(0), start.eq(0)]
        m.d.comb += [gen.wr_en.eq(wr_en), gen.wr_sq.eq(wr_sq), gen.wr_color.eq(wr_code[:2]),
                     gen.wr_piece.eq(wr_code[2:]), gen.side.eq(side), gen.castle.eq(castle),
                     gen.ep_valid.eq(ep_valid), gen.ep_sq.eq(ep_sq), gen.start.eq(start)]
        # the initial position, written into the generator's board at power-up
        m.submodules.initial = initial = Memory(shape=CODE_BITS, depth=64, init=init_codes)
        init_r = initial.read_port(domain="comb")

        # --- The listing: pass 1 counts and times, pass 2 sends -------------------------------
        # The generator's ready is a register's output (a one-move holding register, never
        # full while counting): on the iCE40 the merger's own path into its FIFOs' read enables
        # is long, and any logic behind ready would lengthen it.
        counting = Signal()     # pass 1: every move counted at once
        listed = Signal(16)
        cycles = Signal(32)
        held = Signal()         # pass 2: a move taken from the generator, not yet in ``word``
        held_word = Signal(8 * MOVE_BYTES)
        shift = Signal(8 * SHIFT_BYTES)
        shift_left = Signal(range(SHIFT_BYTES + 1))
        word = Signal(8 * MOVE_BYTES)
        word_left = Signal(range(MOVE_BYTES + 1))
        # shift_left != 0 and word_left != 0, registers kept with the counts: the payload's
        # valid and its byte select (the reply sender's CRC and state follow) start at them
        shift_any = Signal()
        word_any = Signal()
        sending = Signal()      # pass 2 runs (else a held move is dropped: nothing is asked)
        m.d.comb += gen.moves.ready.eq(~held)
        with m.If(gen.moves.valid & ~held):
            with m.If(counting):
                m.d.sync += listed.eq(listed + 1)
            with m.Elif(sending):
                m.d.sync += [held.eq(1), held_word.eq(gen.moves.payload)]
        with m.If(held & ~sending):
            m.d.sync += held.eq(0)
        with m.Elif(held & ~shift_any & ~word_any):
            m.d.sync += [word.eq(held_word), word_left.eq(MOVE_BYTES), word_any.eq(1),
                         held.eq(0)]

        pl = snd.payload
        m.d.comb += [pl.valid.eq(shift_any | word_any),
                     pl.payload.eq(Mux(shift_any, shift[:8], word[:8]))]
        with m.If(pl.valid & pl.ready):
            with m.If(shift_any):
                m.d.sync += [shift.eq(shift >> 8), shift_left.eq(shift_left - 1),
                             shift_any.eq(shift_left != 1)]
            with m.Else():
                m.d.sync += [word.eq(word >> 8), word_left.eq(word_left - 1),
                             word_any.eq(word_left != 1)]

        # --- The frame in hand: its verdict, registered ----------------------------------------
        hdr = rcv.frames.payload
        r_status = Signal(8)
        r_length = Signal(16)
        m.d.comb += [snd.status.eq(r_status), snd.cmd.eq(hdr.cmd), snd.length.eq(r_length)]
        # The verdict in two registered steps: per command, whether the header names it and
        # whether its length fits; then the verdict with the CRC's flag. The header is set a
        # clock or more before its CRC byte comes, and the CRC's flag a clock or more before
        # "Judge" reads ``judged``.
        is_cmd = {c: Signal(name=f"is_cmd_{c.value:02x}") for c in Cmd}
        fits = {c: Signal(name=f"fits_cmd_{c.value:02x}") for c in Cmd}
        engine_ok = Signal()
        for c in Cmd:
            lo, hi = PAYLOAD_LENGTHS[c]
            fit = (hdr.length >= lo) & (hdr.length <= hi)
            if c == Cmd.UPDATE:
                fit = fit & ~hdr.length[0]
            m.d.sync += [is_cmd[c].eq(hdr.cmd == c), fits[c].eq(fit)]
        m.d.sync += engine_ok.eq((hdr.engine == 0) | (hdr.engine == ENGINE_ALL))
        known = Cat(is_cmd.values()).any()
        supported = Cat(is_cmd[c] for c in SUPPORTED).any()
        length_ok = Cat(is_cmd[c] & fits[c] for c in Cmd).any()
        verdict = Signal(8)
        with m.If(~hdr.crc_ok):
            m.d.comb += verdict.eq(Err.BAD_CRC)
        with m.Elif(~known):
            m.d.comb += verdict.eq(Err.UNKNOWN_COMMAND)
        with m.Elif(~supported):
            m.d.comb += verdict.eq(Err.UNSUPPORTED)
        with m.Elif(~engine_ok):
            m.d.comb += verdict.eq(Err.BAD_ENGINE)
        with m.Elif(~length_ok):
            m.d.comb += verdict.eq(Err.BAD_LENGTH)
        with m.Else():
            m.d.comb += verdict.eq(Err.OK)
        judged = Signal(8)
        judged_ok = Signal()
        m.d.sync += [judged.eq(verdict), judged_ok.eq(verdict == Err.OK)]

        # --- Walking a payload a byte per clock (as hdl.link.chip_frontend: byte idx - 2 in
        # ``byte``) -----
        idx = Signal(range(MAX_COMMAND_PAYLOAD + 3))
        # j (idx - 2), idx >= 2 and idx == length + 1 are registers kept with idx, so that the
        # decisions on them (which square, which state, the next state) start at flip-flops,
        # not after a subtraction and compares
        j = Signal(range(MAX_COMMAND_PAYLOAD + 1), init=-2 % (MAX_COMMAND_PAYLOAD + 1))
        past2 = Signal()     # idx >= 2
        at_end = Signal()    # idx == hdr.length + 1
        byte = Signal(8)
        m.d.comb += [rcv.payload_addr.eq(idx), init_r.addr.eq(idx)]

        def idx_restart():
            m.d.sync += [idx.eq(0), j.eq(j.init), past2.eq(0), at_end.eq(0)]

        def idx_advance():
            m.d.sync += [idx.eq(idx + 1), j.eq(j + 1), past2.eq(idx >= 1),
                         at_end.eq(idx == hdr.length)]
        m.d.sync += byte.eq(rcv.payload_data)
        bad = Signal()
        pair_sq = Signal(6)
        valid_code = ((byte == square_code(2, 0))
                      | ((byte[:2] < 2) & (byte[2:5] != 0) & (byte[2:5] != 7) & (byte[5:] == 0)))

        def write_square(sq, code):
            m.d.sync += [wr_en.eq(1), wr_sq.eq(sq), wr_code.eq(code)]

        def set_state(first, which):
            if first:
                return [side.eq(which[0]), castle.eq(which[1:5])]
            return [ep_valid.eq(which[7]), ep_sq.eq(which[:6])]

        def reply(status, length=0):
            m.d.sync += [r_status.eq(status), r_length.eq(length)]
            m.next = "Reply"

        with m.FSM(name="command"):
            with m.State("Power-Up"):
                write_square(idx[:6], init_r.data)
                idx_advance()
                with m.If(idx == 63):
                    m.next = "Idle"

            with m.State("Idle"):
                # the generator idle: the last listing has gone, and board writes would be lost
                with m.If(~snd.busy):
                    m.d.sync += sending.eq(0)
                with m.If(rcv.frames.valid & ~snd.busy & ~gen.busy):
                    m.d.sync += bad.eq(0)
                    idx_restart()
                    m.next = "Judge"
            with m.State("Judge"):
                with m.If(~judged_ok):
                    reply(judged)
                with m.Else():
                    with m.If(is_cmd[Cmd.PING]):
                        ping = ping_payload(self.engines, self.threads, SelfTest.NONE)
                        m.d.sync += [shift.eq(Const(int.from_bytes(ping, "little"),
                                                    8 * PING_BYTES)),
                                     shift_left.eq(PING_BYTES), shift_any.eq(1)]
                        reply(Err.OK, PING_BYTES)
                    with m.If(is_cmd[Cmd.LOAD] | is_cmd[Cmd.UPDATE]):
                        m.next = "Check"
                    with m.If(is_cmd[Cmd.GENERATE]):
                        m.d.sync += [start.eq(1), counting.eq(1), listed.eq(0)]
                        m.next = "List-Count"

            # --- LOAD, UPDATE: every argument checked before anything changes ----------------
            with m.State("Check"):
                idx_advance()
                with m.If(past2):
                    with m.If(is_cmd[Cmd.LOAD]):
                        with m.If(j < 64):
                            m.d.sync += bad.eq(bad | ~valid_code)
                        with m.Elif(j == 64):
                            m.d.sync += bad.eq(bad | (byte[5:] != 0))
                        with m.Else():
                            m.d.sync += bad.eq(bad | byte[6])
                    with m.Else():
                        with m.If(j == 0):
                            m.d.sync += bad.eq(bad | (byte[5:] != 0))
                        with m.Elif(j == 1):
                            m.d.sync += bad.eq(bad | byte[6])
                        with m.Elif(~j[0]):
                            m.d.sync += bad.eq(bad | (byte[6:] != 0))
                        with m.Else():
                            m.d.sync += bad.eq(bad | ~valid_code)
                with m.If(at_end):
                    m.next = "Check-Done"
            with m.State("Check-Done"):
                idx_restart()
                with m.If(bad):
                    reply(Err.BAD_ARGUMENT)
                with m.Else():
                    m.next = "Write"
            with m.State("Write"):
                idx_advance()
                with m.If(past2):
                    with m.If(is_cmd[Cmd.LOAD]):
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
                with m.If(at_end):
                    reply(Err.OK)

            # --- GENERATE: count and time the moves, then list them -------------------------
            with m.State("List-Count"):
                with m.If(gen.done):
                    m.d.sync += [counting.eq(0), cycles.eq(gen.cycles)]
                    m.next = "List-Reply"
            with m.State("List-Reply"):
                # the second pass starts with the reply: its moves wait for the UART
                m.d.sync += [shift.eq(Cat(cycles, listed)), shift_left.eq(LISTING_HEADER),
                             shift_any.eq(1), sending.eq(1), start.eq(1)]
                reply(Err.OK, LISTING_HEADER + (listed << 1) + listed)

            with m.State("Reply"):
                m.d.comb += [snd.start.eq(1), rcv.frames.ready.eq(1)]
                m.next = "Idle"
        return m
