"""A stand-in for the search thread with its ports (hdl.search.search_thread.SearchThread), for
the search board's protocol tests: a job "searches" for ``run_clocks(depth)`` clocks and answers
with numbers that say which job, which load and which past it was (``model_result``), at a
fraction of the real thread's simulation cost."""

from amaranth import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from posdata.engine.search.leaf_search import HASH_BITS, HASH_MASK
from posdata.hdl.chip.chessboard import SquareWrite
from posdata.hdl.search.evaluator import SCORE
from posdata.hdl.search.finder import MOVE
from posdata.hdl.search.records import HistoryWrite, Job, Past
from posdata.sim.drivers.search_job import history_hashes, past_values

ABORT_DRAIN = 7  #: clocks ``busy`` stays up after an abort, as the real thread's drain


def run_clocks(depth: int) -> int:
    """A job's clocks: 64 at depth 0, eight times more a depth (depth 6: about 17 million)."""
    return 64 << 3 * depth


def digest(hashes) -> int:
    """The model's sum over a job's history: each hash weighed by its place (1, 2, ...)."""
    return sum((i + 1) * h for i, h in enumerate(hashes)) & HASH_MASK


def model_result(board, alpha: int, beta: int, depth: int, ply: int,
                 extensions: int = 0) -> tuple[int, int, int]:
    """(score, best, nodes) of the model's job on ``board`` as the host sends it: the score
    alpha + ply + extensions, the best move word depth | side << 4, the nodes the pieces
    loaded (the squares written before the start that are not empty) | the history's length
    << 7 | the halfmove counter << 13 | the history's ``digest`` << 20."""
    pieces = sum(1 for sq in range(64) if board.piece[sq] != 0)
    past = past_values(board)
    return (alpha + ply + extensions, depth | board.side << 4,
            pieces | past["length"] << 7 | past["fifty"] << 13
            | digest(history_hashes(board)) << 20)


class ThreadModel(wiring.Component):
    load: In(SquareWrite)
    history: In(HistoryWrite)
    job: In(Job)
    past: In(Past)
    start: In(1)
    abort: In(1)
    busy: Out(1)
    done: Out(1)
    error: Out(1)
    score: Out(SCORE)
    best: Out(MOVE)
    best_valid: Out(1)
    nodes: Out(64)
    clocks: Out(64)

    def elaborate(self, platform):
        m = Module()
        pieces = Signal(7)
        left = Signal(32)
        draining = Signal(range(ABORT_DRAIN + 1))
        m.d.sync += self.done.eq(0)
        with m.If(self.load.en & ~self.busy):  # a load is all 64 squares, a1 first
            occupied = self.load.piece != 0
            m.d.sync += pieces.eq(Mux(self.load.sq == 0, 0, pieces) + occupied)
        # the history writes since the last start, summed as ``digest`` weighs them (a sum, not
        # the thread's table of entries: 32 registers would slow every simulation of the board); a
        # front end that writes each of the job's hashes once, to its thread alone, gives
        # digest(its history)
        kept = Signal(HASH_BITS)
        with m.If(self.history.en & ~self.busy):
            m.d.sync += kept.eq(kept + (self.history.index + 1) * self.history.hash)
        job, past = self.job, self.past
        with m.If(self.busy):
            m.d.sync += self.clocks.eq(self.clocks + 1)
            with m.If(draining != 0):
                m.d.sync += draining.eq(draining - 1)
                with m.If(draining == 1):
                    m.d.sync += self.busy.eq(0)
            with m.Elif(self.abort):
                m.d.sync += draining.eq(ABORT_DRAIN)
            with m.Elif(left == 1):
                m.d.sync += [self.busy.eq(0), self.done.eq(1)]
            with m.Else():
                m.d.sync += left.eq(left - 1)
        with m.Elif(self.start):
            m.d.sync += [self.busy.eq(1), self.clocks.eq(0),
                         self.nodes.eq(pieces | past.length << 7 | past.fifty << 13
                                       | kept << 20), kept.eq(0),
                         left.eq(64 << 3 * job.depth), self.error.eq(0),
                         self.score.eq(job.alpha + job.ply + job.ext),
                         self.best.eq(job.depth | job.side << 4), self.best_valid.eq(1)]
        return m
