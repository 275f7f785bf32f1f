"""One persistent Amaranth simulation per driver object: the design is elaborated once, and each
call hands a testbench a piece of work (a coroutine function taking the simulator's context) and
advances the simulation until its answer is out. The drivers of Amaranth's simulator
(sim.drivers.gen_pysim, chip_pysim, search_pysim) are this loop and their own work."""

from collections import deque

from amaranth.sim import Simulator

from .interface import WatchdogError

CLOCK_PERIOD = 10e-9  # nominal 100 MHz, only for a VCD's time axis (in fs: Amaranth's unit)

_PENDING = object()  # no answer yet (an answer may be any value)


class PysimRunner:
    """``ask(work, *args)`` runs ``await work(ctx, *args)`` in the testbench and returns its
    answer; an exception of the ``refusals`` types raised there (the design's failures: a
    watchdog, a refused job) is raised from ``ask`` and the testbench serves on; any other ends
    the simulation. ``vcd`` (a path): the ``traces`` dumped there, with Amaranth's save file
    ``gtkw`` if given, until ``close``."""

    refusals: tuple[type[BaseException], ...] = (WatchdogError,)

    def __init__(self, dut, vcd: str | None = None, gtkw: str | None = None, traces=()):
        self.dut = dut
        self._requests: deque = deque()
        self._answer = _PENDING
        self.sim = Simulator(dut)
        self.sim.add_clock(CLOCK_PERIOD)
        self.sim.add_testbench(self._serve)
        self._vcd = None
        if vcd is not None:
            self._vcd = self.sim.write_vcd(vcd, gtkw, traces=traces)
            self._vcd.__enter__()

    def ask(self, work, *args):
        self._requests.append((work, args))
        while self._answer is _PENDING:
            self.sim.advance()
        answer, self._answer = self._answer, _PENDING
        if isinstance(answer, BaseException):
            raise answer
        return answer

    async def _serve(self, ctx):
        while True:
            if not self._requests:
                await ctx.tick()
                continue
            work, args = self._requests.popleft()
            try:
                self._answer = await work(ctx, *args)
            except self.refusals as e:
                self._answer = e

    def close(self, tail_clocks: int = 0) -> bool:
        """Finish the VCD after ``tail_clocks`` idle clocks; whether there was one to finish."""
        if self._vcd is None:
            return False
        for _ in range(2 * tail_clocks):  # an advance is half a clock (one edge)
            self.sim.advance()
        self._vcd.__exit__(None, None, None)
        self._vcd = None
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
