"""A synchronous FIFO whose head is a register: Amaranth's ``SyncFIFO`` for a device without
distributed RAM.

``SyncFIFO`` keeps its entries in a memory read asynchronously at the read pointer. On the ECP5
that is LUT RAM; on the iCE40 (no LUT RAM) it becomes flip-flops and a 16:1 multiplexer per bit,
four LUT levels on the path from the head to whatever decides to read it. Here the entries shift
towards the head on every read, so ``r_data`` comes straight from a flip-flop. The ports, the
level and the timing are ``SyncFIFO``'s, clock for clock (tests/hdl/common/test_shift_fifo.py holds
them equal): a write while full is ignored, a read and a write may happen in the same clock.
"""

from amaranth import Elaboratable, Module, Mux, Signal
from amaranth.lib.fifo import FIFOInterface


class ShiftFIFO(Elaboratable, FIFOInterface):
    """``SyncFIFO(width=, depth=)`` with a registered head (``fwft`` only)."""

    def __init__(self, *, width: int, depth: int):
        if depth < 1:
            raise TypeError(f"depth must be at least 1, not {depth!r}")
        super().__init__(width=width, depth=depth)
        self.level = Signal(range(depth + 1))

    def elaborate(self, platform):
        m = Module()
        depth = self.depth
        # ``tail`` is ``level`` one-hot, kept beside it so that full, empty and whether an entry
        # takes the new word are flip-flops or one LUT, not compares on the level
        tail = Signal(depth + 1, init=1)
        m.d.comb += [self.w_rdy.eq(~tail[depth]), self.r_rdy.eq(~tail[0]),
                     self.w_level.eq(self.level), self.r_level.eq(self.level)]
        do_read = self.r_rdy & self.r_en
        do_write = self.w_rdy & self.w_en
        # ``do_read`` (the reader's decision, the latest signal here) selects last: every
        # register's next value is one LUT after it, the alternatives ready beside it
        m.d.sync += tail.eq(Mux(do_read, Mux(do_write, tail, tail >> 1),
                                Mux(do_write, tail << 1, tail)))
        entries = [Signal(self.width, name=f"entry{i}") for i in range(depth)]
        m.d.comb += self.r_data.eq(entries[0])
        for i, entry in enumerate(entries):
            after = entries[i + 1] if i + 1 < depth else entry
            # the new entry goes behind the last one: at ``level``, or one lower when the head
            # leaves in the same clock (never into a full FIFO: ``tail[depth]`` is full). The
            # word an entry takes depends on neither the read nor the write: an entry at or
            # just below ``level`` takes the new word (were none written, or none read, it is
            # past the end afterwards), the others their successor's. So the read and the write
            # only enable (a read moves every entry, a write alone the one at ``level``).
            behind = tail[i + 1] if i + 1 < depth else 0
            with m.If(do_read | (self.w_en & tail[i])):
                m.d.sync += entry.eq(Mux(tail[i] | behind, self.w_data, after))
        with m.If(do_write & ~do_read):
            m.d.sync += self.level.eq(self.level + 1)
        with m.If(do_read & ~do_write):
            m.d.sync += self.level.eq(self.level - 1)
        return m
