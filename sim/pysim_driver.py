"""Drives the gateware in Amaranth's simulator (the golden model; optional VCD + GTKWave save
file). One ``generate(board)`` call loads what changed, starts the generator and collects the
moves and the cycle count, clock by clock."""

from collections import deque

from amaranth.sim import Simulator

from hdl.movegen import MoveGenerator

from .driver import Generation, ShadowBoard, position_inputs

CLOCK_PERIOD = 10e-9  # nominal 100 MHz, only for the VCD's time axis


class WatchdogError(RuntimeError):
    pass


class PysimGenerator:
    """``ready`` is an optional callable ``ready(cycle) -> bool`` for backpressure tests;
    ``watchdog`` bounds the cycles of one generation (a stuck FSM fails instead of hanging)."""

    def __init__(self, vcd=None, gtkw=None, ready=None, watchdog: int = 20_000, dut=None):
        self.dut = dut if dut is not None else MoveGenerator()
        self.ready = ready
        self.watchdog = watchdog
        self.shadow = ShadowBoard()
        self._requests: deque = deque()
        self._result = None
        self.sim = Simulator(self.dut)
        self.sim.add_clock(CLOCK_PERIOD)
        self.sim.add_testbench(self._bench)
        self._vcd = None
        if vcd is not None:
            d = self.dut
            traces = [d.start, d.busy, d.done, d.cycles, d.moves.valid, d.moves.ready,
                      d.moves.payload, d.wr_en, d.wr_sq]
            self._vcd = self.sim.write_vcd(vcd, gtkw, traces=traces)
            self._vcd.__enter__()

    def close(self) -> None:
        if self._vcd is not None:
            self._vcd.__exit__(None, None, None)
            self._vcd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def generate(self, board) -> Generation:
        writes = self.shadow.diff(board)
        self._requests.append((writes, position_inputs(board)))
        self._result = None
        while self._result is None:
            self.sim.advance()
        result, self._result = self._result, None
        if isinstance(result, BaseException):
            raise result
        return result

    async def _bench(self, ctx):
        dut = self.dut
        while True:
            if not self._requests:
                await ctx.tick()
                continue
            writes, inputs = self._requests.popleft()
            try:
                self._result = await self._one_generation(ctx, dut, writes, inputs)
            except WatchdogError as e:
                self._result = e

    async def _one_generation(self, ctx, dut, writes, inputs) -> Generation:
        for sq, color, piece in writes:
            ctx.set(dut.wr_en, 1)
            ctx.set(dut.wr_sq, sq)
            ctx.set(dut.wr_color, color)
            ctx.set(dut.wr_piece, piece)
            await ctx.tick()
        ctx.set(dut.wr_en, 0)
        for name, value in inputs.items():
            ctx.set(getattr(dut, name), value)
        ctx.set(dut.start, 1)
        ctx.set(dut.moves.ready, 1 if self.ready is None else int(self.ready(0)))
        await ctx.tick()
        ctx.set(dut.start, 0)
        moves = []
        payload = dut.moves.payload.as_value()
        for cycle in range(1, self.watchdog):
            _, _, valid, ready, word, done = await ctx.tick().sample(
                dut.moves.valid, dut.moves.ready, payload, dut.done)
            if valid and ready:
                moves.append(word)
            if done:
                return Generation(moves, ctx.get(dut.cycles), len(writes))
            if self.ready is not None:
                ctx.set(dut.moves.ready, int(self.ready(cycle)))
        raise WatchdogError(f"generation did not finish within {self.watchdog} cycles")
