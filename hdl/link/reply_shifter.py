"""A reply's payload a byte at a time: the bytes loaded into a shift register (a whole short
payload, or a listing's header), then move words, one at a time.

Behind ``hdl.link.link.HostLink``'s one-byte buffer, which is never ready in the clock after it
takes a byte, the shift registers may move on a clock late: the byte they still show then is
not taken twice.
"""

from amaranth import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .protocol import MOVE_BYTES


class ReplyShifter(wiring.Component):
    """Parameters
    ----------
    shift_bytes : int
        The longest payload (or header) loaded at once.
    registered : bool
        For the iCE40: whether bytes are left is a register kept with each count, so the
        payload's valid and its byte select (and the reply sender's CRC and state behind them)
        start at flip-flops; the registers move in the clock a byte is taken. Otherwise (the
        ECP5) they move in the clock after, their enable, fanned out to every bit, from a
        flip-flop rather than the sender's handshake.

    Ports
    -----
    payload : Out(stream.Signature(8))
        The bytes: the loaded ones first, then the words'.
    load : In(1); load_data : In(8 * shift_bytes); load_bytes : In(range(shift_bytes + 1))
        Take ``load_bytes`` bytes (at least one with ``registered``) of ``load_data``, least
        significant first.
    word_load : In(1); word_data : In(8 * MOVE_BYTES)
        Take a move word (only while ``word_empty``).
    word_empty : Out(1)
        No byte of a word is left.
    empty : Out(1)
        No byte is left.
    """

    def __init__(self, shift_bytes: int, *, registered: bool = False):
        self._shift_bytes = shift_bytes
        self._registered = registered
        super().__init__({
            "payload": Out(stream.Signature(8)),
            "load": In(1), "load_data": In(8 * shift_bytes),
            "load_bytes": In(range(shift_bytes + 1)),
            "word_load": In(1), "word_data": In(8 * MOVE_BYTES),
            "word_empty": Out(1), "empty": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        shift = Signal(8 * self._shift_bytes)
        shift_left = Signal(range(self._shift_bytes + 1))
        word = Signal(8 * MOVE_BYTES)
        word_left = Signal(range(MOVE_BYTES + 1))
        pl = self.payload
        if self._registered:
            # shift_left != 0 and word_left != 0, kept with the counts
            shift_any = Signal()
            word_any = Signal()
            took = pl.valid & pl.ready
        else:
            shift_any = shift_left != 0
            word_any = word_left != 0
            took = Signal()
            m.d.sync += took.eq(pl.valid & pl.ready)
        m.d.comb += [pl.valid.eq(shift_any | word_any),
                     pl.payload.eq(Mux(shift_any, shift[:8], word[:8])),
                     self.word_empty.eq(~word_any), self.empty.eq(~pl.valid)]
        with m.If(took):
            with m.If(shift_any):
                m.d.sync += [shift.eq(shift >> 8), shift_left.eq(shift_left - 1)]
                if self._registered:
                    m.d.sync += shift_any.eq(shift_left != 1)
            with m.Else():
                m.d.sync += [word.eq(word >> 8), word_left.eq(word_left - 1)]
                if self._registered:
                    m.d.sync += word_any.eq(word_left != 1)
        with m.If(self.load):
            m.d.sync += [shift.eq(self.load_data), shift_left.eq(self.load_bytes)]
            if self._registered:
                m.d.sync += shift_any.eq(1)
        with m.If(self.word_load):
            m.d.sync += [word.eq(self.word_data), word_left.eq(MOVE_BYTES)]
            if self._registered:
                m.d.sync += word_any.eq(1)
        return m
