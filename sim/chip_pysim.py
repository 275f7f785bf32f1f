"""The perft chip (hdl.perft_chip) in Amaranth's simulator: the golden reference of the compiled
model (sim.chip_driver), with the same interface; slow (about a thousand clocks per second), so
for small counts, fault injection and waveforms (``vcd``)."""

from amaranth.sim import Simulator

from .chip_driver import PHASES, ChipCount, default_split, pack_root
from .driver import Generation, WatchdogError

CLOCK_PERIOD = 10e-9  # nominal 100 MHz, only for the VCD's time axis


class ChipSimulation:
    """``perft`` and ``list_moves`` as sim.chip_driver.ChipModel's; ``dut`` (tests: fault
    injection) simulates another instance of hdl.perft_chip.PerftChip."""

    def __init__(self, engines: int = 1, dut=None, vcd: str | None = None,
                 gtkw: str | None = None):
        from posdata.hdl.perft_chip import PerftChip
        self.dut = dut if dut is not None else PerftChip(engines)
        self.threads = len(self.dut.phases)
        self.vcd, self.gtkw = vcd, gtkw

    def _run(self, bench):
        sim = Simulator(self.dut)
        sim.add_clock(CLOCK_PERIOD)
        sim.add_testbench(bench)
        if self.vcd:
            d = self.dut
            traces = [d.start, d.busy, d.leaves, d.clocks, d.overflow, *d.phases]
            with sim.write_vcd(self.vcd, self.gtkw, traces=traces):
                sim.run()
        else:
            sim.run()

    async def _load(self, ctx, board):
        dut = self.dut
        for sq in range(64):
            ctx.set(dut.wr_en, 1)
            ctx.set(dut.wr_sq, sq)
            ctx.set(dut.wr_color, board.color[sq])
            ctx.set(dut.wr_piece, board.piece[sq])
            await ctx.tick()
        ctx.set(dut.wr_en, 0)
        ctx.set(dut.root.as_value(), pack_root(board))

    def perft(self, board, depth: int, bulk: bool = True, split: int | None = None,
              progress=None, watchdog: int | None = 10_000_000) -> ChipCount:
        if split is None:
            split = default_split(depth)
        dut = self.dut
        out = {}

        async def bench(ctx):
            await self._load(ctx, board)
            ctx.set(dut.depth, depth)
            ctx.set(dut.bulk, int(bulk))
            ctx.set(dut.split, split)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            counts = [[0] * len(PHASES) for _ in range(self.threads)]
            clock = 0
            while True:
                phases = [ctx.get(p) for p in dut.phases]
                for t, phase in enumerate(phases):
                    counts[t][int(phase)] += 1
                await ctx.tick()
                clock += 1
                if not ctx.get(dut.busy):
                    break
                if watchdog is not None and clock > watchdog:
                    raise WatchdogError(f"the perft chip did not finish within {watchdog} clocks")
                if progress and clock % 100_000 == 0:
                    progress(ctx.get(dut.leaves), clock)
            out["count"] = ChipCount(
                ctx.get(dut.leaves), ctx.get(dut.clocks), bool(ctx.get(dut.overflow)), depth,
                bulk, split, [dict(zip(PHASES, row)) for row in counts])

        self._run(bench)
        return out["count"]

    def list_moves(self, board, legal: bool = True, watchdog: int = 100_000) -> Generation:
        dut = self.dut
        out = {}

        async def bench(ctx):
            await self._load(ctx, board)
            ctx.set(dut.gen_start, 1)
            ctx.set(dut.gen_legal, int(legal))
            ctx.set(dut.moves.ready, 1)
            await ctx.tick()
            ctx.set(dut.gen_start, 0)
            moves = []
            payload = dut.moves.payload.as_value()
            for clock in range(1, watchdog):
                _, _, valid, word, busy = await ctx.tick().sample(dut.moves.valid, payload,
                                                                   dut.busy)
                if valid:
                    moves.append(word)
                if not busy and clock > 1:
                    out["generation"] = Generation(moves, clock, 64)
                    return
            raise WatchdogError(f"the perft chip did not list its moves within {watchdog} clocks")

        self._run(bench)
        return out["generation"]
