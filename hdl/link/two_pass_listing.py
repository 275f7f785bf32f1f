"""The generator-only board's listing (GENERATE), generated twice instead of buffered (a 1,024-move
buffer would take six of the UP5K's 30 block RAMs): the first pass, with the move stream always
ready, counts the moves and gives the cycle count the reply reports (the generator's clocks for
the position, as on the perft chip's board); the second pass, stalled move by move by the UART,
sends them. The generator is deterministic, so both passes give the same moves.
"""

from amaranth import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..common.layouts import MoveLayout
from .protocol import MOVE_BYTES


class TwoPassListing(wiring.Component):
    """Ports
    -----
    count : In(1)
        Start the first pass: the generator's ``start`` in the next clock, its moves counted.
    capture : In(1)
        The first pass is over (the generator's ``done``): keep its cycle count.
    send : In(1)
        Start the second pass: the generator's ``start`` in the next clock, its moves sent.
    stop : In(1)
        The reply has gone: a move still held is dropped.
    start : Out(1)
        The generator's start.
    moves : In(stream.Signature(MoveLayout))
        The generator's moves.
    gen_cycles : In(32)
        The generator's cycle count.
    listed : Out(16); cycles : Out(32)
        The first pass's moves and clocks.
    payload_empty : In(1)
        The reply's payload has sent every byte it holds.
    word_load : Out(1); word : Out(8 * MOVE_BYTES)
        A move word for the reply's payload.
    """

    count: In(1)
    capture: In(1)
    send: In(1)
    stop: In(1)
    start: Out(1)
    moves: In(stream.Signature(MoveLayout))
    gen_cycles: In(32)
    listed: Out(16)
    cycles: Out(32)
    payload_empty: In(1)
    word_load: Out(1)
    word: Out(8 * MOVE_BYTES)

    def elaborate(self, platform):
        m = Module()
        counting = Signal()     # pass 1: every move counted at once
        sending = Signal()      # pass 2 runs (else a held move is dropped: nothing is asked)
        # The generator's ready is a register's output (a one-move holding register, never
        # full while counting): on the iCE40 the merger's own path into its FIFOs' read
        # enables is long, and any logic behind ready would lengthen it.
        held = Signal()         # pass 2: a move taken from the generator, not yet sent on
        held_word = Signal(8 * MOVE_BYTES)
        moves, listed = self.moves, self.listed
        m.d.comb += [moves.ready.eq(~held), self.word.eq(held_word)]
        m.d.sync += self.start.eq(0)
        with m.If(moves.valid & ~held):
            with m.If(counting):
                m.d.sync += listed.eq(listed + 1)
            with m.Elif(sending):
                m.d.sync += [held.eq(1), held_word.eq(moves.payload)]
        with m.If(held & ~sending):
            m.d.sync += held.eq(0)
        with m.Elif(held & self.payload_empty):
            m.d.comb += self.word_load.eq(1)
            m.d.sync += held.eq(0)

        with m.If(self.count):
            m.d.sync += [self.start.eq(1), counting.eq(1), listed.eq(0)]
        with m.If(self.capture):
            m.d.sync += [counting.eq(0), self.cycles.eq(self.gen_cycles)]
        with m.If(self.send):
            m.d.sync += [sending.eq(1), self.start.eq(1)]
        with m.If(self.stop):
            m.d.sync += sending.eq(0)
        return m
