"""The search board's threads (``hdl.link.search_frontend``): N search threads, a job to one of
them, each thread's result kept beside it until its next job.

::

    load (square writes) --------> every thread (a thread that runs a job ignores them)
    history (hash writes) -------> thread ``target`` (its job's earlier positions)
    job, past, start, target ----> thread ``target`` takes the job
    abort (one bit a thread) ----> those threads stop (their state ABORTED)
    select ----------------------> result: that thread's RESULT payload

A thread's slot holds its job's state (``State``), flags, score, best move, nodes and clocks,
what RESULT sends: while the job runs its nodes and clocks so far, once done the result, after
an abort the counts as they stood.
"""

from amaranth import Array, Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..chip.chessboard import SquareWrite
from ..search.records import HistoryWrite, Job, Past
from ..search.search_thread import SearchThread
from .protocol import FLAG_BEST, FLAG_REFUSED, RESULT_BYTES, State


class SearchThreads(wiring.Component):
    """Parameters
    ----------
    count : int
        Search threads, at least 1.
    make_thread : callable
        Makes one thread (default ``SearchThread``); tests may pass a model with its ports.

    Ports
    -----
    load : In(SquareWrite)
        Square writes, to every thread (taken by the idle ones: a job's load, the power-up
        copy).
    history : In(HistoryWrite)
        The hashes of the next job's earlier positions, to thread ``target`` alone (each job
        has its own), before its start.
    job : In(Job); past : In(Past); start : In(1); target : In(range(count))
        ``start`` hands ``job`` and ``past`` to thread ``target``, which must not be running.
    abort : In(count)
        A clock's pulse per thread: its job stops.
    running : Out(count)
        A thread's job runs (from its start to its result or abort).
    busy : Out(count)
        The threads' own ``busy``: an aborted thread is quiet once it falls.
    select : In(range(count)); result : Out(8 * RESULT_BYTES)
        The selected thread's RESULT payload.
    """

    def __init__(self, count: int = 1, make_thread=SearchThread):
        if count < 1:
            raise ValueError(f"a search board needs at least one thread, not {count}")
        self.count = count
        self.threads = [make_thread() for _ in range(count)]
        super().__init__({
            "load": In(SquareWrite), "history": In(HistoryWrite), "job": In(Job),
            "past": In(Past), "start": In(1), "target": In(range(count)),
            "abort": In(count), "running": Out(count), "busy": Out(count),
            "select": In(range(count)), "result": Out(8 * RESULT_BYTES),
        })

    def elaborate(self, platform):
        m = Module()
        for i, thread in enumerate(self.threads):
            m.submodules[f"thread{i}"] = thread
        # one writer and one job for all: only the thread started takes the job
        wiring.connect(m, wiring.flipped(self.load), *(t.load for t in self.threads))
        m.d.comb += [t.job.eq(self.job) for t in self.threads]
        m.d.comb += [t.past.eq(self.past) for t in self.threads]
        # the history to the target alone: it is that job's (the other idle threads would
        # take writes into their tables that no job of theirs reads)
        for i, t in enumerate(self.threads):
            m.d.comb += [t.history.eq(self.history),
                         t.history.en.eq(self.history.en & (self.target == i))]
        results = [self._slot(m, i, thread) for i, thread in enumerate(self.threads)]
        m.d.comb += self.result.eq(Array(results)[self.select] if self.count > 1 else results[0])
        return m

    def _slot(self, m, i, thread):
        """Thread ``i``'s start, abort and result registers; returns its RESULT payload."""
        running = self.running[i]
        state = Signal(8, init=State.IDLE, name=f"state{i}")
        flags = Signal(8, name=f"flags{i}")
        score, best = Signal(16, name=f"score{i}"), Signal(24, name=f"best{i}")
        nodes, clocks = Signal(64, name=f"nodes{i}"), Signal(64, name=f"clocks{i}")
        start = self.start & (self.target == i)
        m.d.comb += [thread.start.eq(start), thread.abort.eq(self.abort[i]),
                     self.busy[i].eq(thread.busy)]
        running_q = Signal(name=f"running{i}")
        m.d.comb += running.eq(running_q)
        with m.If(running_q):  # RESULT while it runs: the nodes and clocks so far
            m.d.sync += [nodes.eq(thread.nodes), clocks.eq(thread.clocks)]
        with m.If(thread.done & running_q):
            m.d.sync += [running_q.eq(0), state.eq(State.DONE), score.eq(thread.score),
                         best.eq(thread.best), nodes.eq(thread.nodes), clocks.eq(thread.clocks),
                         flags.eq(Mux(thread.best_valid, FLAG_BEST, 0)
                                  | Mux(thread.error, FLAG_REFUSED, 0))]
        with m.If(start):
            m.d.sync += [running_q.eq(1), state.eq(State.RUNNING)]
        with m.If(self.abort[i] & running_q):  # last: it wins over a result in the same clock
            m.d.sync += [running_q.eq(0), state.eq(State.ABORTED)]
        return Cat(state, flags, score, best, nodes, clocks)
