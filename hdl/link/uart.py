"""A UART for the board's USB serial port: 8 data bits, no parity, one stop bit (8N1).

Both directions are parameterised by ``divisor``, the number of clock cycles per bit
(``round(clock_hz / baud)``, at least 4). Bytes enter and leave as ``lib.stream``\\ s whose
payload is the byte.

Line format (idle high, least significant bit first)::

    idle ... 1 | 0 (start) | d0 d1 d2 d3 d4 d5 d6 d7 | 1 (stop) | idle ...

Tolerances: the receiver samples each bit in its middle, so the far end's bit clock may differ
by up to about half a bit over the ten bits of a frame (~4 %); the transmitter's bits are exactly
``divisor`` cycles long (its stop bit one cycle longer).
"""

from amaranth import Cat, Const, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.wiring import In, Out

FRAME_BITS = 10  #: start + 8 data + stop


def _check_divisor(divisor):
    if not isinstance(divisor, int) or isinstance(divisor, bool) or divisor < 4:
        raise TypeError(f"divisor must be an integer of at least 4, not {divisor!r}")


class UartTx(wiring.Component):
    """Serialises bytes.

    Ports
    -----
    i_stream : In(stream.Signature(8))
        Bytes to send. ``ready`` is high while the line is idle; a byte is taken in the cycle
        ``valid`` and ``ready`` are both high.
    tx : Out(1)
        The serial line (a register output, so it never glitches); high when idle.
    busy : Out(1)
        A frame is on the line.
    """

    i_stream: In(stream.Signature(8))
    tx: Out(1, init=1)
    busy: Out(1)

    def __init__(self, divisor: int):
        _check_divisor(divisor)
        self._divisor = divisor
        super().__init__()

    @property
    def divisor(self) -> int:
        return self._divisor

    def elaborate(self, platform):
        m = Module()
        # The frame is shifted out of bit 0; ones shift in behind it, so after the stop bit the
        # line stays high with no extra logic.
        frame = Signal(FRAME_BITS, init=(1 << FRAME_BITS) - 1)
        bits_left = Signal(range(FRAME_BITS + 1))
        timer = Signal(range(self._divisor))

        m.d.comb += [
            self.tx.eq(frame[0]),
            self.busy.eq(bits_left != 0),
            self.i_stream.ready.eq(bits_left == 0),
        ]
        with m.If(bits_left == 0):
            with m.If(self.i_stream.valid):
                m.d.sync += [
                    frame.eq(Cat(Const(0, 1), self.i_stream.payload, Const(1, 1))),
                    bits_left.eq(FRAME_BITS),
                    timer.eq(self._divisor - 1),
                ]
        with m.Elif(timer == 0):  # the current bit has lasted `divisor` cycles: next bit
            m.d.sync += [
                frame.eq(Cat(frame[1:], Const(1, 1))),
                bits_left.eq(bits_left - 1),
                timer.eq(self._divisor - 1),
            ]
        with m.Else():
            m.d.sync += timer.eq(timer - 1)
        return m


class UartRx(wiring.Component):
    """Deserialises bytes.

    ``rx`` passes through two flip-flops (it is asynchronous to the clock). A falling edge starts
    a frame; the start bit is checked again half a bit later (a shorter glitch is ignored), then
    each data bit and the stop bit are sampled in their middle, one bit period apart.

    Ports
    -----
    rx : In(1)
        The serial line.
    o_stream : Out(stream.Signature(8))
        Received bytes. The receiver holds one byte: a byte that completes while the previous
        one has not been taken is dropped (overrun), the held one is kept.
    overrun, framing_error : Out(1)
        One-cycle pulses when a byte is dropped for either reason (a framing error is a stop
        bit that reads 0; the receiver then waits for the line to go high before the next
        frame).
    """

    rx: In(1, init=1)
    o_stream: Out(stream.Signature(8))
    overrun: Out(1)
    framing_error: Out(1)

    def __init__(self, divisor: int):
        _check_divisor(divisor)
        self._divisor = divisor
        super().__init__()

    @property
    def divisor(self) -> int:
        return self._divisor

    def elaborate(self, platform):
        m = Module()
        divisor = self._divisor
        rx = Signal(init=1)
        m.submodules.rx_sync = FFSynchronizer(self.rx, rx, init=1, stages=2)

        timer = Signal(range(divisor))
        data = Signal(8)
        bits_left = Signal(range(9))

        valid = Signal()
        m.d.comb += self.o_stream.valid.eq(valid)
        with m.If(self.o_stream.ready):
            m.d.sync += valid.eq(0)

        m.d.sync += [self.overrun.eq(0), self.framing_error.eq(0)]
        with m.If(timer != 0):
            m.d.sync += timer.eq(timer - 1)

        with m.FSM(name="rx_fsm"):
            with m.State("Idle"):
                with m.If(~rx):
                    m.d.sync += timer.eq(divisor // 2 - 1)
                    m.next = "Start-Bit"
            with m.State("Start-Bit"):
                with m.If(timer == 0):
                    with m.If(~rx):  # still low in the middle of the bit: a real start bit
                        m.d.sync += [timer.eq(divisor - 1), bits_left.eq(8)]
                        m.next = "Data-Bits"
                    with m.Else():
                        m.next = "Idle"
            with m.State("Data-Bits"):
                with m.If(timer == 0):
                    m.d.sync += [data.eq(Cat(data[1:], rx)),  # LSB first
                                 bits_left.eq(bits_left - 1),
                                 timer.eq(divisor - 1)]
                    with m.If(bits_left == 1):
                        m.next = "Stop-Bit"
            with m.State("Stop-Bit"):
                with m.If(timer == 0):
                    with m.If(~rx):
                        m.d.sync += self.framing_error.eq(1)
                        m.next = "Wait-Idle"
                    with m.Else():
                        with m.If(valid & ~self.o_stream.ready):
                            m.d.sync += self.overrun.eq(1)
                        with m.Else():
                            m.d.sync += [valid.eq(1), self.o_stream.payload.eq(data)]
                        m.next = "Idle"
            with m.State("Wait-Idle"):
                with m.If(rx):
                    m.next = "Idle"
        return m
