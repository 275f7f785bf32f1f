"""UART loopback (hdl.link.uart) with a small divisor: every byte the transmitter takes arrives at
the receiver unchanged, and nothing else arrives.

The transmitter's input is free (any byte, offered at any time); the line goes straight to the
receiver; the receiver's output is always taken. The harness remembers the byte of the frame on
the line and checks the receiver's byte against it.
"""

from amaranth import Elaboratable, Module, Signal
from amaranth.asserts import AnySeq, Initial
from amaranth.hdl import Assert, Assume, Cover, ResetSignal

from posdata.hdl.link.uart import UartRx, UartTx

DIVISOR = 4


class UartLoopback(Elaboratable):
    def __init__(self, divisor: int = DIVISOR):
        self.divisor = divisor

    def elaborate(self, platform):
        m = Module()
        m.submodules.tx = tx = UartTx(self.divisor)
        m.submodules.rx = rx = UartRx(self.divisor)
        m.d.comb += Assume(ResetSignal() == Initial())
        m.d.comb += [tx.i_stream.valid.eq(AnySeq(1)), tx.i_stream.payload.eq(AnySeq(8)),
                     rx.rx.eq(tx.tx), rx.o_stream.ready.eq(1)]

        # Frames in flight, oldest first: the transmitter may take the next byte before the
        # receiver (two synchroniser stages and half a bit behind) has delivered the last one.
        sent = [Signal(8, name=f"sent{i}") for i in range(2)]
        count = Signal(range(3))
        take = tx.i_stream.valid & tx.i_stream.ready
        got = rx.o_stream.valid
        m.d.sync += count.eq(count + take - got)
        with m.If(got):
            m.d.comb += [Assert(count != 0, "a byte arrives only after one was sent"),
                         Assert(rx.o_stream.payload == sent[0], "the byte arrives unchanged")]
            m.d.sync += sent[0].eq(sent[1])
        with m.If(take):
            with m.If(count - got == 0):
                m.d.sync += sent[0].eq(tx.i_stream.payload)
            with m.Else():
                m.d.sync += sent[1].eq(tx.i_stream.payload)
        m.d.comb += Assert(count <= 2, "at most two frames in flight")
        m.d.comb += [Assert(~rx.framing_error, "no framing error on a clean line"),
                     Assert(~rx.overrun, "no overrun when the receiver is always read")]
        m.d.comb += Cover(rx.o_stream.valid & (rx.o_stream.payload == 0xA5))
        return m
