"""The move generator behind the board's command protocol (``hdl.protocol``) on a UART.

::

    rx -> UartRx -> command FSM --(writes, position, start)--> MoveGenerator
                        |                                          | moves
                        |                                    move FIFO (block RAM)
                        v                                          |
    tx <- UartTx <- reply shifter (up to 4 bytes) <----------------+

The command FSM reads one command byte and its arguments at a time and executes it. Replies go
through a shifter that hands its bytes to the transmitter one by one; the FSM reads the next
command only when the shifter is empty, so replies never overlap.

Moves leave the generator into a FIFO deep enough for any position (``fifo_depth`` words; 256
by default, one ECP5 block RAM), so the generator normally runs at full speed and ``cycles``
(READ_CYCLES) counts its own clocks, not the UART's; the FIFO drains three bytes per move. When
the FIFO is full (or ``fifo_depth=0``) the generator stalls until the transmitter catches up:
nothing is lost, but the stalled clocks count in ``cycles``.
"""

from amaranth import Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from .layouts import MoveLayout
from .movegen import MoveGenerator
from .protocol import (CYCLES_BYTES, END_COUNT_BITS, END_FLAG, EP_VALID, MOVE_RECORD_BYTES,
                       PING_REPLY, Cmd)
from .uart import UartRx, UartTx

REPLY_BYTES = 4  #: the widest reply word (PING, READ_CYCLES)
assert len(PING_REPLY) <= REPLY_BYTES and CYCLES_BYTES <= REPLY_BYTES


class UartFrontEnd(wiring.Component):
    """Parameters
    ----------
    divisor : int
        Clock cycles per UART bit, ``round(clock_hz / baud)``; at least 4.
    fifo_depth : int
        Moves buffered between the generator and the UART (0: none, the generator stalls on
        every move).

    Ports
    -----
    rx : In(1)
        Serial data from the host (idle high).
    tx : Out(1)
        Serial data to the host (idle high).
    busy : Out(1)
        The generator is generating (for an LED).

    Attributes
    ----------
    generator : MoveGenerator
        The generator inside (simulation tests observe it).
    """

    rx: In(1, init=1)
    tx: Out(1, init=1)
    busy: Out(1)

    def __init__(self, divisor: int, *, fifo_depth: int = 256):
        if not isinstance(fifo_depth, int) or fifo_depth < 0:
            raise TypeError(f"fifo_depth must be a non-negative integer, not {fifo_depth!r}")
        self.uart_rx = UartRx(divisor)  # checks divisor
        self.uart_tx = UartTx(divisor)
        self.generator = MoveGenerator()
        self._divisor = divisor
        self._fifo_depth = fifo_depth
        super().__init__()

    @property
    def divisor(self) -> int:
        return self._divisor

    @property
    def fifo_depth(self) -> int:
        return self._fifo_depth

    def elaborate(self, platform):
        m = Module()
        m.submodules.uart_rx = urx = self.uart_rx
        m.submodules.uart_tx = utx = self.uart_tx
        m.submodules.generator = gen = self.generator
        m.d.comb += [urx.rx.eq(self.rx), self.tx.eq(utx.tx), self.busy.eq(gen.busy)]
        cmd = urx.o_stream

        # --- Moves: generator -> FIFO -> (src_valid, src_word, src_take) ------------------------
        src_valid = Signal()
        src_word = Signal(MoveLayout.size)
        src_take = Signal()
        moves_pending = Signal()  # a move is between the generator and the reply shifter
        if self._fifo_depth:
            depth = self._fifo_depth
            m.submodules.fifo = fifo = SyncFIFOBuffered(width=MoveLayout.size, depth=depth)
            # The generator's ready stalls all of it: give it a register, not the FIFO's
            # level compare. `room` lags the level by a cycle, so it promises one entry less:
            # level <= depth - 3 last cycle, at most one write since, so a write now fits.
            room = Signal()
            if depth >= 4:
                m.d.sync += room.eq(fifo.level <= depth - 3)
            else:
                m.d.comb += room.eq(fifo.w_rdy)
            # The FIFO's block RAM output comes late in the cycle: it goes into a register of
            # its own before it meets the reply shifter's multiplexers.
            word = Signal(MoveLayout.size)
            word_valid = Signal()
            m.d.comb += [
                fifo.w_data.eq(gen.moves.payload),
                fifo.w_en.eq(gen.moves.valid & room),
                gen.moves.ready.eq(room),
                fifo.r_en.eq(fifo.r_rdy & (~word_valid | src_take)),
                src_valid.eq(word_valid),
                src_word.eq(word),
                moves_pending.eq((fifo.level != 0) | word_valid),
            ]
            with m.If(fifo.r_en):
                m.d.sync += [word.eq(fifo.r_data), word_valid.eq(1)]
            with m.Elif(src_take):
                m.d.sync += word_valid.eq(0)
        else:
            m.d.comb += [
                src_valid.eq(gen.moves.valid),
                src_word.eq(gen.moves.payload),
                gen.moves.ready.eq(src_take),
                moves_pending.eq(gen.moves.valid),
            ]

        # --- Reply shifter -> UartTx, least significant byte first -----------------------------
        reply = Signal(8 * REPLY_BYTES)
        reply_left = Signal(range(REPLY_BYTES + 1))
        sending = Signal()
        m.d.comb += [
            sending.eq(reply_left != 0),
            utx.i_stream.valid.eq(sending),
            utx.i_stream.payload.eq(reply[:8]),
        ]
        with m.If(utx.i_stream.valid & utx.i_stream.ready):
            m.d.sync += [reply.eq(reply >> 8), reply_left.eq(reply_left - 1)]

        # --- Position registers, fed to the generator (it latches them at start) ---------------
        sq = Signal(6)
        side = Signal()
        castle = Signal(4)
        ep_valid = Signal()
        ep_sq = Signal(6)
        m.d.comb += [gen.side.eq(side), gen.castle.eq(castle),
                     gen.ep_valid.eq(ep_valid), gen.ep_sq.eq(ep_sq),
                     gen.wr_sq.eq(sq),
                     gen.wr_color.eq(cmd.payload[0:2]), gen.wr_piece.eq(cmd.payload[2:5])]

        move_count = Signal(END_COUNT_BITS)

        # --- Command FSM ------------------------------------------------------------------------
        with m.FSM(name="cmd_fsm"):
            with m.State("Read-Command"):
                # Wait until the previous reply has gone, so that a new one never overlaps it.
                m.d.comb += cmd.ready.eq(~sending)
                with m.If(cmd.valid & ~sending):
                    with m.Switch(cmd.payload):
                        with m.Case(Cmd.PING):
                            m.d.sync += [reply.eq(int.from_bytes(PING_REPLY, "little")),
                                         reply_left.eq(len(PING_REPLY))]
                        with m.Case(Cmd.WRITE_SQUARE):
                            m.next = "Write-Square"
                        with m.Case(Cmd.SET_POSITION):
                            m.next = "Set-Side-Castle"
                        with m.Case(Cmd.GENERATE):
                            m.next = "Start-Generator"
                        with m.Case(Cmd.READ_CYCLES):
                            m.d.sync += [reply.eq(gen.cycles), reply_left.eq(CYCLES_BYTES)]
                        # Any other byte is ignored.

            with m.State("Write-Square"):
                m.d.comb += cmd.ready.eq(1)
                with m.If(cmd.valid):
                    m.d.sync += sq.eq(cmd.payload[0:6])
                    m.next = "Write-Colour-Piece"
            with m.State("Write-Colour-Piece"):
                m.d.comb += cmd.ready.eq(1)
                with m.If(cmd.valid):
                    m.d.comb += gen.wr_en.eq(1)  # wr_color/wr_piece come from the byte itself
                    m.next = "Read-Command"

            with m.State("Set-Side-Castle"):
                m.d.comb += cmd.ready.eq(1)
                with m.If(cmd.valid):
                    m.d.sync += [side.eq(cmd.payload[0]), castle.eq(cmd.payload[1:5])]
                    m.next = "Set-Ep"
            with m.State("Set-Ep"):
                m.d.comb += cmd.ready.eq(1)
                with m.If(cmd.valid):
                    m.d.sync += [ep_valid.eq((cmd.payload & EP_VALID) != 0),
                                 ep_sq.eq(cmd.payload[0:6])]
                    m.next = "Read-Command"

            with m.State("Start-Generator"):
                m.d.comb += gen.start.eq(1)  # the generator is idle: the FSM waited for it
                m.d.sync += move_count.eq(0)
                m.next = "Send-Moves"
            with m.State("Send-Moves"):
                # One move per reply; the end record once the generator is idle and every move
                # it produced has been sent.
                with m.If(~sending):
                    with m.If(src_valid):
                        m.d.comb += src_take.eq(1)
                        m.d.sync += [reply.eq(src_word), reply_left.eq(MOVE_RECORD_BYTES),
                                     move_count.eq(move_count + 1)]
                    with m.Elif(~gen.busy & ~moves_pending):
                        m.d.sync += [reply.eq(Const(END_FLAG, 24) | move_count),
                                     reply_left.eq(MOVE_RECORD_BYTES)]
                        m.next = "Read-Command"
        return m
