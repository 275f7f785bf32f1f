"""Command frames off the UART (``hdl.link.protocol``): ``SYNC cmd engine length payload crc``.

The receiver hunts for SYNC, takes the header, stores the payload in a small memory and checks
the CRC. It then holds the frame (its header on ``frames``, its payload behind ``payload_addr``
/ ``payload_data``) until the executor releases it with ``frames.ready``; bytes that arrive
meanwhile wait in the UART receiver. A frame whose bytes stop coming for ``timeout`` clocks is
dropped without a word: the protocol's resync rule.
"""

from amaranth import Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .crc8 import crc8_next
from .protocol import MAX_COMMAND_PAYLOAD, SYNC

#: a received command's header; ``crc_ok`` says whether its CRC matched
FrameHeader = data.StructLayout({"cmd": 8, "engine": 8, "length": 8, "crc_ok": 1})


class FrameReceiver(wiring.Component):
    """Parameters
    ----------
    timeout : int
        Clocks without a byte after which a half-received frame is dropped.
    registered_flags : bool (keyword)
        For the iCE40 (``hdl.link.link.HostLink``): "this payload byte is the last" and "the frame
        timed out" are registers kept beside the byte count and the idle count (same frames,
        same clocks), not compares on them before the state machine's next state.

    Ports
    -----
    i_stream : In(stream.Signature(8))
        Bytes from the UART.
    frames : Out(stream.Signature(FrameHeader))
        A whole frame, held until ``ready`` (the executor is done with its payload).
    payload_addr : In(8); payload_data : Out(8)
        The held frame's payload, a byte a clock, one clock after its address.
    dropped : Out(1)
        Pulses when a half-received frame times out (for tests).
    """

    i_stream: In(stream.Signature(8))
    frames: Out(stream.Signature(FrameHeader))
    payload_addr: In(8)
    payload_data: Out(8)
    dropped: Out(1)

    def __init__(self, timeout: int, *, registered_flags: bool = False):
        if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout < 1:
            raise TypeError(f"timeout must be a positive integer, not {timeout!r}")
        self._timeout = timeout
        self._registered_flags = registered_flags
        super().__init__()

    @property
    def timeout(self) -> int:
        return self._timeout

    def elaborate(self, platform):
        m = Module()
        m.submodules.buffer = buffer = Memory(shape=8, depth=MAX_COMMAND_PAYLOAD + 1, init=[])
        wr = buffer.write_port()
        rd = buffer.read_port()
        m.d.comb += [rd.addr.eq(self.payload_addr), self.payload_data.eq(rd.data)]

        header = Signal(FrameHeader)
        crc = Signal(8)
        count = Signal(8)                     # payload bytes so far
        idle = Signal(range(self._timeout + 1))  # clocks since the last byte, inside a frame
        byte = self.i_stream.payload
        got = Signal()
        m.d.comb += [got.eq(self.i_stream.valid & self.i_stream.ready),
                     self.frames.payload.eq(header),
                     wr.addr.eq(count), wr.data.eq(byte)]
        # ``expired`` is always ``idle == timeout`` and ``last`` always ``count + 1 ==
        # header.length`` (in "Payload"), each kept with its count (registered_flags)
        if self._registered_flags:
            expired = Signal()
            last = Signal()
            togo = Signal(8)  # header.length - count - 1: the bytes after this one
            counting = ~expired
        else:
            expired = idle == self._timeout
            last = count + 1 == header.length
            counting = idle != self._timeout
        with m.If(got):
            m.d.sync += [crc.eq(crc8_next(crc, byte)), idle.eq(0)]
            if self._registered_flags:
                m.d.sync += expired.eq(0)  # timeout >= 1
        with m.Elif(counting):
            m.d.sync += idle.eq(idle + 1)
            if self._registered_flags:
                m.d.sync += expired.eq(idle == self._timeout - 1)

        def expire():
            with m.If(expired):
                m.d.comb += self.dropped.eq(1)
                m.next = "Hunt"

        with m.FSM(name="rx_frame"):
            with m.State("Hunt"):
                m.d.comb += self.i_stream.ready.eq(1)
                with m.If(got & (byte == SYNC)):
                    m.d.sync += crc.eq(0)  # the CRC starts after SYNC
                    m.next = "Command"
            with m.State("Command"):
                m.d.comb += self.i_stream.ready.eq(1)
                with m.If(got):
                    m.d.sync += header.cmd.eq(byte)
                    m.next = "Engine"
                expire()
            with m.State("Engine"):
                m.d.comb += self.i_stream.ready.eq(1)
                with m.If(got):
                    m.d.sync += header.engine.eq(byte)
                    m.next = "Length"
                expire()
            with m.State("Length"):
                m.d.comb += self.i_stream.ready.eq(1)
                with m.If(got):
                    m.d.sync += [header.length.eq(byte), count.eq(0)]
                    if self._registered_flags:
                        m.d.sync += [last.eq(byte == 1), togo.eq(byte - 1)]
                    with m.If(byte == 0):
                        m.next = "Crc"
                    with m.Else():
                        m.next = "Payload"
                expire()
            with m.State("Payload"):
                m.d.comb += [self.i_stream.ready.eq(1), wr.en.eq(got)]
                with m.If(got):
                    m.d.sync += count.eq(count + 1)
                    if self._registered_flags:
                        m.d.sync += [last.eq(togo == 1), togo.eq(togo - 1)]
                    with m.If(last):
                        m.next = "Crc"
                expire()
            with m.State("Crc"):
                m.d.comb += self.i_stream.ready.eq(1)
                with m.If(got):
                    m.d.sync += header.crc_ok.eq(byte == crc)
                    m.next = "Held"
                expire()
            with m.State("Held"):
                m.d.comb += self.frames.valid.eq(1)
                with m.If(self.frames.ready):
                    m.next = "Hunt"
        return m
