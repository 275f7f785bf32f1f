"""The move generator (hdl.gen.movegen: board, core, ROM) with its ROMs abstracted, reset free at
any clock: what its protocol documents about idle, reset and the board.

* a reset returns the generator to idle: nothing busy, nothing on the stream, no ``done``;
* the colour planes change only by a write the generator accepted: a write while busy is
  ignored, and a reset keeps the board (its registers are not reset);
* a start while busy is ignored: ``done`` comes once per accepted start (a reset abandons the
  generation), ``busy`` spans exactly the generation.
"""

from amaranth import Cat, Const, Elaboratable, Module, Signal
from amaranth.asserts import AnySeq
from amaranth.hdl import Assert, ResetSignal
from amaranth.lib.fifo import SyncFIFO

from posdata.hdl.gen.chessboard import BoardMemory
from posdata.hdl.gen.movegen import MoveGenerator

from .abstract import Inside, abstract_roms, past
from .harness_core import CoreHarness


class MoveGenHarness(Elaboratable):
    def elaborate(self, platform):
        m = Module()
        gen = MoveGenerator()
        with abstract_roms():
            inside = Inside(gen, platform, watch=(BoardMemory, SyncFIFO))
        m.submodules.gen = inside.fragment
        ((board, _),) = inside.made[BoardMemory]
        for port in (gen.wr_en, gen.wr_sq, gen.wr_color, gen.wr_piece, gen.side, gen.castle,
                     gen.ep_valid, gen.ep_sq, gen.start, gen.moves.ready):
            m.d.comb += port.eq(AnySeq(len(port)))
        rst = ResetSignal()  # a top-level input: free in every clock

        reset_before = past(m, rst, "reset_before")
        later = past(m, Const(1), "later")  # not the first clock (no previous one to compare with)
        with m.If(later & reset_before):
            m.d.comb += [Assert(~gen.busy & ~gen.moves.valid & ~gen.done & (gen.cycles == 0),
                                "a reset returns the generator to idle")]

        planes = Cat(board.planes.empty, board.planes.black)
        planes_before = past(m, planes, "planes_before")
        written = past(m, gen.wr_en & ~gen.busy, "write_seen")
        with m.If(later & ~written):
            m.d.comb += Assert(planes == planes_before,
                               "the board changes only by an accepted write (reset keeps it)")

        pending = Signal(reset_less=True)  # an accepted generation has not been done
        begin = gen.start & ~gen.busy
        with m.If(rst):
            m.d.sync += pending.eq(0)
        with m.Else():
            m.d.sync += pending.eq((pending & ~gen.done) | begin)
        m.d.comb += [Assert(~gen.done | (pending & ~gen.busy), "done only ends a generation"),
                     Assert(gen.busy == (pending & ~gen.done), "busy spans the generation")]
        CoreHarness.invariants(m, gen, inside, at="core.")
        return m
