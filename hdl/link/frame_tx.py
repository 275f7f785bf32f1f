"""Reply frames onto the UART (``hdl.link.protocol``): ``status cmd length_lo length_hi payload
crc``.

The executor gives the header and ``start``; the sender sends the header, then pulls ``length``
payload bytes from the ``payload`` stream, then the CRC of everything it sent.
"""

from amaranth import Cat, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .crc8 import crc8_next
from .protocol import REPLY_HEADER


class ReplySender(wiring.Component):
    """Ports
    -----
    start : In(1)
        Send a reply with ``status``, ``cmd`` and ``length`` (taken in this clock; ignored while
        ``busy``).
    status, cmd : In(8); length : In(16)
    payload : In(stream.Signature(8))
        The payload's bytes, as many as ``length``.
    o_stream : Out(stream.Signature(8))
        To the UART.
    busy : Out(1)
        A reply is going out (from the clock after ``start``).

    Parameters
    ----------
    registered_crc : bool
        The CRC takes each sent byte a clock later, from a register (for the iCE40: the
        payload's multiplexers then no longer lie before the CRC's XORs in one clock); the CRC
        byte then waits, if need be, for the clock after the last byte's. Behind a consumer
        that is never ready in the clock after it takes a byte (``hdl.link.link.HostLink``'s
        one-byte buffer) the bytes and clocks are the same.
    """

    start: In(1)
    status: In(8)
    cmd: In(8)
    length: In(16)
    payload: In(stream.Signature(8))
    o_stream: Out(stream.Signature(8))
    busy: Out(1)

    def __init__(self, registered_crc: bool = False):
        self._registered_crc = registered_crc
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        header = Signal(8 * REPLY_HEADER)
        header_left = Signal(range(REPLY_HEADER + 1))
        left = Signal(16)  # payload bytes still to send
        crc = Signal(8)
        sent = Signal()
        m.d.comb += sent.eq(self.o_stream.valid & self.o_stream.ready)
        crc_ready = 1  # the CRC has taken every byte sent
        if self._registered_crc:
            last = Signal(8)       # the byte sent in the previous clock ...
            pending = Signal()     # ... if one was
            m.d.sync += [last.eq(self.o_stream.payload), pending.eq(sent)]
            crc_ready = ~pending
            with m.If(pending):
                m.d.sync += crc.eq(crc8_next(crc, last))
        else:
            with m.If(sent):
                m.d.sync += crc.eq(crc8_next(crc, self.o_stream.payload))

        with m.FSM(name="tx_frame"):
            with m.State("Idle"):
                with m.If(self.start):
                    m.d.sync += [header.eq(Cat(self.status, self.cmd, self.length)),
                                 header_left.eq(REPLY_HEADER), left.eq(self.length),
                                 crc.eq(0)]
                    m.next = "Header"
            with m.State("Header"):
                m.d.comb += [self.busy.eq(1), self.o_stream.valid.eq(1),
                             self.o_stream.payload.eq(header[:8])]
                with m.If(sent):
                    m.d.sync += [header.eq(header >> 8), header_left.eq(header_left - 1)]
                    with m.If(header_left == 1):
                        with m.If(left == 0):
                            m.next = "Crc"
                        with m.Else():
                            m.next = "Payload"
            with m.State("Payload"):
                m.d.comb += [self.busy.eq(1), self.o_stream.valid.eq(self.payload.valid),
                             self.o_stream.payload.eq(self.payload.payload),
                             self.payload.ready.eq(self.o_stream.ready)]
                with m.If(sent):
                    m.d.sync += left.eq(left - 1)
                    with m.If(left == 1):
                        m.next = "Crc"
            with m.State("Crc"):
                m.d.comb += [self.busy.eq(1), self.o_stream.valid.eq(crc_ready),
                             self.o_stream.payload.eq(crc)]
                with m.If(sent):
                    m.next = "Idle"
        return m
