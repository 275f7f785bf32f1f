"""Walking a held command's payload a byte per clock (``hdl.link.link``'s ``payload``).

``addr`` addresses byte ``addr`` of the payload (and, in the front ends, square ``addr`` of a
64-square memory beside it). The payload's memory answers a clock later, late in the clock, so
its byte is registered first: payload byte ``addr - 2`` (``index``) is in ``byte``.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .link import PayloadRead
from .protocol import MAX_COMMAND_PAYLOAD

#: a payload byte's place: 0 .. MAX_COMMAND_PAYLOAD - 1
INDEX = range(MAX_COMMAND_PAYLOAD + 1)

#: the payload byte in hand and its place (the cursor's side)
PayloadByte = wiring.Signature({"byte": Out(8), "index": Out(INDEX)})


class PayloadCursor(wiring.Component):
    """Parameters
    ----------
    registered : bool
        For the iCE40: ``index``, ``started`` and ``last`` are registers kept with ``addr``, so
        that the decisions on them start at flip-flops, not after a subtraction and compares.
        The same values in the same clocks after ``restart``.

    Ports
    -----
    restart : In(1)
        Back to byte 0 (over ``advance``).
    advance : In(1)
        On to the next byte.
    length : In(8)
        The held payload's length.
    payload : In(PayloadRead)
        The held payload (``addr`` out, ``data`` in).
    addr : Out(range(MAX_COMMAND_PAYLOAD + 3))
        The byte asked for.
    current : Out(PayloadByte)
        ``byte``, payload byte number ``index`` (``addr - 2``).
    started : Out(1)
        ``addr >= 2``: ``byte`` is a byte of the payload.
    last : Out(1)
        ``addr == length + 1``: ``byte`` is the payload's last.
    """

    restart: In(1)
    advance: In(1)
    length: In(8)
    payload: In(PayloadRead)
    addr: Out(range(MAX_COMMAND_PAYLOAD + 3))
    current: Out(PayloadByte)
    started: Out(1)
    last: Out(1)

    def __init__(self, *, registered: bool = False):
        self._registered = registered
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        idx = Signal(range(MAX_COMMAND_PAYLOAD + 3))
        byte = Signal(8)
        m.d.comb += [self.addr.eq(idx), self.payload.addr.eq(idx), self.current.byte.eq(byte)]
        m.d.sync += byte.eq(self.payload.data)
        with m.If(self.advance):
            m.d.sync += idx.eq(idx + 1)
        with m.If(self.restart):
            m.d.sync += idx.eq(0)
        if not self._registered:
            m.d.comb += [self.current.index.eq(idx - 2), self.started.eq(idx >= 2),
                         self.last.eq(idx == self.length + 1)]
            return m

        j = Signal(INDEX, init=-2 % len(INDEX))
        past2 = Signal()
        at_end = Signal()
        m.d.comb += [self.current.index.eq(j), self.started.eq(past2), self.last.eq(at_end)]
        with m.If(self.advance):
            m.d.sync += [j.eq(j + 1), past2.eq(idx >= 1), at_end.eq(idx == self.length)]
        with m.If(self.restart):
            m.d.sync += [j.eq(j.init), past2.eq(0), at_end.eq(0)]
        return m
