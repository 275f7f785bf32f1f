"""The host's side of a front end (``hdl.link.command_shell``): command frames in, held and
judged; replies out.

::

    rx -> UartRx -> FIFO -> FrameReceiver -> FrameJudge -> frame (header, verdict), payload
    tx <- UartTx <- one-byte buffer <- ReplySender <- reply (status, length), reply_payload

The front end takes one held frame at a time: it reads the verdict in the clock after
``frame.valid`` rises, reads the payload through ``payload`` if it acts on it, and starts the
reply (``reply.start``), which echoes the frame's command and releases it.
"""

from amaranth import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from .frame_rx import FrameHeader, FrameReceiver
from .frame_tx import ReplySender
from .judge import FrameJudge, command_flags
from .protocol import FRAME_TIMEOUT_BYTES, UART_FRAME_BITS, Cmd
from .uart import UartRx, UartTx

#: bytes received while a command is in hand: a command sent right behind another (the protocol
#: allows one) arrives while the first is checked, written or listed; 32 byte times are 1,280
#: clocks at the smallest divisor, more than any command takes before its reply starts
RX_FIFO_DEPTH = 32


def frame_signature(supported=frozenset(Cmd)) -> wiring.Signature:
    """The held frame, the link's side."""
    return wiring.Signature({"valid": Out(1), "header": Out(FrameHeader), "verdict": Out(8),
                             "ok": Out(1), "is_cmd": Out(command_flags(supported))})


#: the held frame's payload, a byte a clock, a clock after its address (the link's side)
PayloadRead = wiring.Signature({"addr": In(8), "data": Out(8)})

#: a reply to the held frame, the front end's side: ``start`` (a clock's pulse) with its
#: ``status`` and payload ``length``; ``busy`` while it goes out
Reply = wiring.Signature({"start": Out(1), "status": Out(8), "length": Out(16), "busy": In(1)})


class HostLink(wiring.Component):
    """Parameters
    ----------
    divisor : int
        Clock cycles per UART bit, ``round(clock_hz / baud)``; at least 4.
    frame_timeout : int or None
        Clocks without a byte after which a half-received command is dropped (default:
        ``FRAME_TIMEOUT_BYTES`` byte times).
    engines, supported :
        What the judge accepts (``hdl.link.judge.FrameJudge``).
    registered : bool
        For the iCE40: a register between the FIFO and the receiver (its CRC and state logic
        start at a flip-flop, not at the block RAM's late output; a byte a clock still), the
        receiver's flags, the sender's CRC and the judge's decoding from registers. Each is the
        same frames and replies in the same clocks, but for the byte's register: a received
        byte reaches the receiver a clock later.
    rx_bytes : int
        Received bytes held while a command is in hand (default ``RX_FIFO_DEPTH``; the search
        board's ``SEARCH_RX_BYTES`` holds a batch of jobs written at once).

    Ports
    -----
    rx : In(1)
        Serial data from the host (idle high).
    tx : Out(1)
        Serial data to the host (idle high).
    frame : Out(frame_signature(supported))
        The held frame: ``valid``, its ``header``, its ``verdict`` (an ``Err``, ``ok`` when
        OK) from the clock after ``valid`` rises, and ``is_cmd``, which supported command it
        is.
    payload : Out(PayloadRead)
        The held frame's payload: ``addr`` in, ``data`` out a clock later.
    reply : In(Reply)
        The front end's reply to the held frame: ``start``, ``status``, ``length`` in;
        ``busy`` out (from the clock after ``start`` until its CRC has gone to the UART).
    reply_payload : In(stream.Signature(8))
        The reply's payload bytes, ``length`` of them.
    counting, self_testing : In(1)
        What the board is doing, for the BUSY check (``FrameJudge``).
    """

    def __init__(self, divisor: int, frame_timeout: int | None = None, *, engines: int = 1,
                 supported=frozenset(Cmd), registered: bool = False,
                 rx_bytes: int = RX_FIFO_DEPTH):
        if not isinstance(rx_bytes, int) or rx_bytes < RX_FIFO_DEPTH:
            raise ValueError(f"rx_bytes must be an integer of at least {RX_FIFO_DEPTH}, "
                             f"not {rx_bytes!r}")
        self.uart_rx = UartRx(divisor)  # checks divisor
        self.uart_tx = UartTx(divisor)
        if frame_timeout is None:
            frame_timeout = FRAME_TIMEOUT_BYTES * UART_FRAME_BITS * divisor
        self.receiver = FrameReceiver(frame_timeout, registered_flags=registered)  # checks it
        self.sender = ReplySender(registered_crc=registered)
        self.judge = FrameJudge(engines, supported=supported, registered=registered)
        self._divisor = divisor
        self._registered = registered
        self._rx_bytes = rx_bytes
        super().__init__({
            "rx": In(1, init=1), "tx": Out(1, init=1), "frame": Out(frame_signature(supported)),
            "payload": Out(PayloadRead), "reply": In(Reply),
            "reply_payload": In(stream.Signature(8)), "counting": In(1), "self_testing": In(1),
        })

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
        m.submodules.judge = judge = self.judge
        m.d.comb += [urx.rx.eq(self.rx), self.tx.eq(utx.tx)]
        self._receive_path(m, urx, rcv)
        self._reply_path(m, snd, utx)

        hdr = rcv.frames.payload
        m.d.comb += [judge.header.eq(hdr), judge.counting.eq(self.counting),
                     judge.self_testing.eq(self.self_testing),
                     self.frame.valid.eq(rcv.frames.valid), self.frame.header.eq(hdr),
                     self.frame.verdict.eq(judge.verdict), self.frame.ok.eq(judge.ok),
                     self.frame.is_cmd.eq(judge.is_cmd),
                     rcv.payload_addr.eq(self.payload.addr),
                     self.payload.data.eq(rcv.payload_data)]
        # a reply answers the held frame: it echoes its command and releases it
        m.d.comb += [snd.start.eq(self.reply.start), snd.status.eq(self.reply.status),
                     snd.cmd.eq(hdr.cmd), snd.length.eq(self.reply.length),
                     self.reply.busy.eq(snd.busy), rcv.frames.ready.eq(self.reply.start)]
        wiring.connect(m, wiring.flipped(self.reply_payload), snd.payload)
        return m

    def _receive_path(self, m, urx, rcv):
        # a few received bytes wait here while the front end still holds the previous command
        m.submodules.rx_fifo = rx_fifo = SyncFIFOBuffered(width=8, depth=self._rx_bytes)
        m.d.comb += [rx_fifo.w_data.eq(urx.o_stream.payload), rx_fifo.w_en.eq(urx.o_stream.valid),
                     urx.o_stream.ready.eq(rx_fifo.w_rdy)]
        if not self._registered:
            m.d.comb += [rcv.i_stream.payload.eq(rx_fifo.r_data),
                         rcv.i_stream.valid.eq(rx_fifo.r_rdy), rx_fifo.r_en.eq(rcv.i_stream.ready)]
            return
        rx_valid = Signal()
        rx_byte = Signal(8)
        m.d.comb += [rcv.i_stream.payload.eq(rx_byte), rcv.i_stream.valid.eq(rx_valid),
                     rx_fifo.r_en.eq(~rx_valid | rcv.i_stream.ready)]
        with m.If(rx_fifo.r_en):
            m.d.sync += [rx_valid.eq(rx_fifo.r_rdy), rx_byte.eq(rx_fifo.r_data)]

    def _reply_path(self, m, snd, utx):
        # a one-byte buffer between the reply sender and the transmitter: the sender's (and the
        # payload's) readiness is then a register, not the UART's bit counter; it is never
        # ready in the clock after it takes a byte (the reply payloads rely on that)
        out_valid = Signal()
        out_byte = Signal(8)
        m.d.comb += [snd.o_stream.ready.eq(~out_valid), utx.i_stream.valid.eq(out_valid),
                     utx.i_stream.payload.eq(out_byte)]
        with m.If(snd.o_stream.valid & ~out_valid):
            m.d.sync += [out_valid.eq(1), out_byte.eq(snd.o_stream.payload)]
        with m.Elif(utx.i_stream.ready):
            m.d.sync += out_valid.eq(0)
