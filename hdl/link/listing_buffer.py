"""The perft chip's listing of the root's moves (GENERATE, LEGAL), buffered in block RAM for the
reply: the chip lists at its own pace, the UART sends at its own.
"""

from amaranth import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..common.layouts import MoveLayout


class ListingBuffer(wiring.Component):
    """Parameters
    ----------
    capacity : int
        Moves it holds; one more is an overflow.

    Ports
    -----
    begin : In(1); legal : In(1)
        List the root's moves (``legal``: the legal ones): the chip's ``gen_start`` in the next
        clock, the buffer emptied.
    gen_start, gen_legal : Out(1)
        The chip's listing controls.
    moves : In(stream.Signature(MoveLayout))
        The chip's moves (always ready: each goes through a register into the buffer).
    listed : Out(range(capacity + 1))
        Moves buffered.
    overflow : Out(1)
        A move did not fit.
    send : In(1)
        Send the ``listed`` moves: a word at a time on ``word_load`` whenever ``word_empty``.
    word_empty : In(1)
        The reply's payload has room for a word.
    word_load : Out(1); word : Out(MoveLayout.size)
        The next word, for the reply's payload to take.
    """

    def __init__(self, capacity: int):
        self._capacity = capacity
        super().__init__({
            "begin": In(1), "legal": In(1), "gen_start": Out(1), "gen_legal": Out(1),
            "moves": In(stream.Signature(MoveLayout)),
            "listed": Out(range(capacity + 1)), "overflow": Out(1),
            "send": In(1), "word_empty": In(1), "word_load": Out(1), "word": Out(MoveLayout.size),
        })

    def elaborate(self, platform):
        m = Module()
        capacity = self._capacity
        m.submodules.listing = listing = Memory(shape=MoveLayout.size, depth=capacity, init=[])
        list_w = listing.write_port()
        list_r = listing.read_port()
        listed = self.listed
        # the chip's moves, registered, into the block RAM
        mv_valid = Signal()
        mv_word = Signal(MoveLayout.size)
        m.d.comb += self.moves.ready.eq(1)
        m.d.sync += [mv_valid.eq(self.moves.valid), mv_word.eq(self.moves.payload),
                     self.gen_start.eq(0)]
        m.d.comb += [list_w.addr.eq(listed), list_w.data.eq(mv_word),
                     list_w.en.eq(mv_valid & (listed != capacity))]
        with m.If(mv_valid):
            with m.If(listed == capacity):
                m.d.sync += self.overflow.eq(1)
            with m.Else():
                m.d.sync += listed.eq(listed + 1)

        # the buffered words out: the block RAM's word goes into a register (the reply's)
        # before the payload's multiplexer
        words = Signal(range(capacity + 1))     # words still to fetch
        word_addr = Signal(range(capacity + 1))
        fetching = Signal()
        m.d.comb += [list_r.addr.eq(word_addr), self.word_load.eq(fetching),
                     self.word.eq(list_r.data)]
        with m.If(fetching):
            m.d.sync += [fetching.eq(0), word_addr.eq(word_addr + 1), words.eq(words - 1)]
        with m.Elif(self.word_empty & (words != 0)):
            m.d.sync += fetching.eq(1)

        with m.If(self.begin):
            m.d.sync += [self.gen_start.eq(1), self.gen_legal.eq(self.legal), listed.eq(0),
                         self.overflow.eq(0)]
        with m.If(self.send):
            m.d.sync += [words.eq(listed), word_addr.eq(0)]
        return m
