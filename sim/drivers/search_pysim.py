"""The search thread (hdl.search.search_thread) in Amaranth's simulator: a
``host_search.LeafSearcher`` like sim.drivers.search_cxxrtl.SearchModel, slow (a few thousand
clocks a second) but elaborated in seconds, so a faulty thread (fault injection) runs without a
compile. One simulation lives as long as the object (sim.drivers.pysim_runner), so the design is
elaborated once."""

from posdata.engine.rules.defs import EMPTY, NO_PIECE
from posdata.engine.search.leaf_search import LeafResult, check_job

from .interface import WatchdogError
from .pysim_runner import PysimRunner
from .search_job import history_hashes, job_values, past_values

SETTLE_CLOCKS = 3  #: between the last square written and the start, as the compiled model


async def load_position(ctx, dut, board) -> None:
    """Write ``board``'s 64 squares into the thread, a1 first, and the hashes of its earlier
    positions; then let the sums and the hash settle."""
    for i, h in enumerate(history_hashes(board)):
        ctx.set(dut.history, {"en": 1, "index": i, "hash": h})
        await ctx.tick()
    ctx.set(dut.history, {"en": 0, "index": 0, "hash": 0})
    for sq in range(64):
        c = board.color[sq]
        ctx.set(dut.load.en, 1)
        ctx.set(dut.load.sq, sq)
        ctx.set(dut.load.color, c)
        ctx.set(dut.load.piece, board.piece[sq] if c != EMPTY else NO_PIECE)
        await ctx.tick()
    ctx.set(dut.load.en, 0)
    await ctx.tick().repeat(SETTLE_CLOCKS)


async def start_job(ctx, dut, board, alpha: int, beta: int, depth: int, ply: int = 0,
                    extensions: int = 0) -> None:
    """Pulse ``start`` with the job's word and its past: the loaded position searched in
    (alpha, beta)."""
    ctx.set(dut.job, job_values(board, alpha, beta, depth, ply, extensions))
    ctx.set(dut.past, past_values(board))
    ctx.set(dut.start, 1)
    await ctx.tick()
    ctx.set(dut.start, 0)


class SearchSimulation(PysimRunner):
    """``search`` as SearchModel's; ``dut`` (tests: fault injection) simulates another
    instance of hdl.search.search_thread.SearchThread, elaborated here."""

    refusals = (WatchdogError, ValueError)  # a refused job is the thread's answer too

    def __init__(self, dut=None):
        from posdata.hdl.search.search_thread import SearchThread
        super().__init__(dut if dut is not None else SearchThread())

    def search(self, board, alpha: int, beta: int, depth: int, ply: int = 0,
               extensions: int = 0, watchdog: int = 2_000_000) -> LeafResult:
        check_job(board, alpha, beta, depth, ply, extensions)
        return self.ask(self._job, board, alpha, beta, depth, ply, extensions, watchdog)

    async def _job(self, ctx, board, alpha, beta, depth, ply, extensions, watchdog):
        dut = self.dut
        await load_position(ctx, dut, board)
        await start_job(ctx, dut, board, alpha, beta, depth, ply, extensions)
        for _ in range(watchdog):
            await ctx.tick()
            if ctx.get(dut.done):
                break
        else:
            ctx.set(dut.abort, 1)
            await ctx.tick()
            ctx.set(dut.abort, 0)
            while ctx.get(dut.busy):
                await ctx.tick()
            raise WatchdogError(f"the search thread did not finish within {watchdog} clocks")
        if ctx.get(dut.error):
            raise ValueError(f"the search thread refused the job ({alpha}, {beta}) depth {depth}")
        best = ctx.get(dut.best) if ctx.get(dut.best_valid) else None
        return LeafResult(ctx.get(dut.score), best, ctx.get(dut.nodes), ctx.get(dut.clocks))
