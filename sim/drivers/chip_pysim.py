"""The perft chip (hdl.chip.perft_chip) in Amaranth's simulator: the golden reference of the
compiled model (sim.drivers.chip_cxxrtl), with the same interface; slow (about a thousand clocks per
second), so for small counts, fault injection and waveforms (``vcd``).

One simulation lives as long as the object (sim.drivers.pysim_runner), so the design is elaborated
once."""

from posdata.hdl.common.contract import PHASE_NAMES, SQUARES, default_split, root_word

from .chip_cxxrtl import ChipCount, check_engine, pack_castling
from .interface import Generation, WatchdogError
from .pysim_runner import PysimRunner


class ChipSimulation(PysimRunner):
    """``perft`` and ``list_moves`` as sim.drivers.chip_cxxrtl.ChipModel's; ``dut`` (tests: fault
    injection) simulates another instance of hdl.chip.perft_chip.PerftChip."""

    def __init__(self, engines: int = 1, dut=None, vcd: str | None = None,
                 gtkw: str | None = None, variant: str = "chess"):
        from posdata.hdl.chip.perft_chip import PerftChip
        self.variant = variant if isinstance(variant, str) else variant.name
        dut = dut if dut is not None else PerftChip(engines, variant=self.variant)
        self.engines = dut.engines
        self.threads = len(dut.phases)
        traces = [dut.count.start, dut.busy, dut.count.depth, dut.leaves, dut.clocks,
                  dut.overflow, *dut.phases]
        super().__init__(dut, vcd or None, gtkw, traces)

    async def _load(self, ctx, board):
        dut = self.dut
        write, position = dut.load.write, dut.load.position
        for sq in range(SQUARES):
            ctx.set(write.en, 1)
            ctx.set(write.sq, sq)
            ctx.set(write.color, board.color[sq])
            ctx.set(write.piece, board.piece[sq])
            await ctx.tick()
        ctx.set(write.en, 0)
        modes = "ep_victim" in position.root.shape().members  # a chip with modes
        ctx.set(position.root.as_value(), root_word(board, modes))
        if "castling" in position.signature.members:
            castling, rooks = pack_castling(board)
            ctx.set(position.castling.as_value(), castling)
            ctx.set(position.rooks.as_value(), rooks)

    def perft(self, board, depth: int, bulk: bool = True, split: int | None = None,
              progress=None, watchdog: int | None = 10_000_000,
              engine: int | None = None) -> ChipCount:
        if split is None:
            split = default_split(depth)
        check_engine(engine, self.engines)
        return self.ask(self._perft, board, depth, bulk, split, progress, watchdog, engine)

    async def _perft(self, ctx, board, depth, bulk, split, progress, watchdog, engine):
        dut = self.dut
        await self._load(ctx, board)
        ctx.set(dut.solo, int(engine is not None))
        ctx.set(dut.solo_engine, engine or 0)
        ctx.set(dut.count.depth, depth)
        ctx.set(dut.count.bulk, int(bulk))
        ctx.set(dut.count.split, split)
        ctx.set(dut.count.start, 1)
        await ctx.tick()
        ctx.set(dut.count.start, 0)
        counts = [[0] * len(PHASE_NAMES) for _ in range(self.threads)]
        clock = 0
        while True:
            for t, phase in enumerate(ctx.get(p) for p in dut.phases):
                counts[t][int(phase)] += 1
            await ctx.tick()
            clock += 1
            if not ctx.get(dut.busy):
                break
            if watchdog is not None and clock > watchdog:
                ctx.set(dut.count.abort, 1)
                await ctx.tick()
                ctx.set(dut.count.abort, 0)
                await ctx.tick()  # the chip takes ABORT from registers
                raise WatchdogError(f"the perft chip did not finish within {watchdog} clocks")
            if progress and clock % 100_000 == 0:
                progress(ctx.get(dut.leaves), clock)
        return ChipCount(ctx.get(dut.leaves), ctx.get(dut.clocks), bool(ctx.get(dut.overflow)),
                         depth, bulk, split, [dict(zip(PHASE_NAMES, row)) for row in counts])

    def list_moves(self, board, legal: bool = True, watchdog: int = 100_000) -> Generation:
        return self.ask(self._list, board, legal, watchdog)

    async def _list(self, ctx, board, legal, watchdog):
        dut = self.dut
        await self._load(ctx, board)
        listing = dut.listing
        ctx.set(listing.start, 1)
        ctx.set(listing.legal, int(legal))
        ctx.set(listing.moves.ready, 1)
        await ctx.tick()
        ctx.set(listing.start, 0)
        moves = []
        payload = listing.moves.payload.as_value()
        for clock in range(1, watchdog):
            _, _, valid, word, busy = await ctx.tick().sample(listing.moves.valid, payload,
                                                              dut.busy)
            if valid:
                moves.append(word)
            if not busy and clock > 1:
                return Generation(moves, clock, SQUARES)
        raise WatchdogError(f"the perft chip did not list its moves within {watchdog} clocks")
