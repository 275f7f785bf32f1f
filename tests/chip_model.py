"""A stand-in for hdl.chip.perft_chip.PerftChip with its ports and a tiny behaviour, so that the
front end's protocol (hdl.link.chip_frontend) can be tested in Amaranth's simulator at speed; the
real chip is held to the reference through the compiled board model
(tests/hdl/link/test_board_protocol.py).

* The board is a 64-entry memory written through ``load.write``.
* A listing (``listing.start``) shows the board back: one move word per occupied square, from =
  the square, to = its square code (a legal listing: white's squares only), then one word with
  bit 20 set holding the root (with modes, en passant's victim above its Position).
  ``listing.cycles`` is 64 (legal: 65).
* A count (``start``) lasts ``count_clocks`` clocks and counts one leaf per clock; a count of
  depth ``overflow_depth`` overflows.
* ``abort`` resets everything but the board.
"""

from amaranth import Module, ResetInserter, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory

from posdata.engine.rules.defs import TO_SHIFT, WHITE
from posdata.engine.rules.variants import CHESS
from posdata.hdl.chip.perft_chip import chip_signature
from posdata.hdl.common.contract import CODE_BITS, COLOR_BITS, EMPTY_CODE, SQUARES

ROOT_FLAG = 1 << 20


class FakeChip(wiring.Component):
    def __init__(self, engines: int = 1, count_clocks: int = 300, overflow_depth: int = 11,
                 variant=CHESS):
        self.engines = engines
        self.count_clocks = count_clocks
        self.overflow_depth = overflow_depth
        super().__init__(chip_signature(engines, variant))  # with modes, the root has the victim

    def elaborate(self, platform):
        m = Module()
        m.submodules.board = board = Memory(shape=CODE_BITS, depth=SQUARES,
                                            init=[EMPTY_CODE] * SQUARES)
        w = board.write_port()
        r = board.read_port(domain="comb")
        write, count, listing = self.load.write, self.count, self.listing
        moves, root = listing.moves, self.load.position.root
        m.d.comb += [w.en.eq(write.en & ~self.busy), w.addr.eq(write.sq),
                     w.data.eq(write.color | write.piece << COLOR_BITS)]

        left = Signal(range(self.count_clocks + 1))
        sq = Signal(7)
        legal = Signal()
        with m.FSM(name="fake"):
            with m.State("Idle"):
                with m.If(count.start):
                    m.d.sync += [self.busy.eq(1), self.leaves.eq(0), self.clocks.eq(0),
                                 self.overflow.eq(count.depth == self.overflow_depth),
                                 left.eq(self.count_clocks)]
                    m.next = "Count"
                with m.Elif(listing.start):
                    m.d.sync += [self.busy.eq(1), sq.eq(0), legal.eq(listing.legal),
                                 listing.cycles.eq(SQUARES + listing.legal)]
                    m.next = "List"
            with m.State("Count"):
                m.d.sync += [self.leaves.eq(self.leaves + 1), self.clocks.eq(self.clocks + 1),
                             left.eq(left - 1)]
                with m.If(left == 1):
                    m.d.sync += self.busy.eq(0)
                    m.next = "Idle"
            with m.State("List"):
                code = r.data
                m.d.comb += r.addr.eq(sq)
                with m.If(sq == SQUARES):
                    m.d.comb += [moves.valid.eq(1),
                                 moves.payload.as_value().eq(ROOT_FLAG | root.as_value())]
                    with m.If(moves.ready):
                        m.d.sync += self.busy.eq(0)
                        m.next = "Idle"
                with m.Else():
                    shown = (code != EMPTY_CODE) & (~legal | (code[:COLOR_BITS] == WHITE))
                    m.d.comb += [moves.valid.eq(shown),
                                 moves.payload.as_value().eq(sq[:6] | code << TO_SHIFT)]
                    with m.If(~shown | moves.ready):
                        m.d.sync += sq.eq(sq + 1)
        return ResetInserter({"sync": count.abort})(m)
