"""Runs jobs on the search thread in Amaranth's simulator: load a board, start, read the result."""

from amaranth.sim import Simulator

from posdata.engine.board import Board
from posdata.engine.defs import EMPTY, NO_PIECE
from posdata.engine.leaf_search import LeafResult
from posdata.hdl.search.search_thread import SearchThread


def run_jobs(jobs, max_clocks=2_000_000):
    """``jobs``: (fen, alpha, beta, depth, ply) each; returns a LeafResult per job (clocks set)."""
    dut = SearchThread()
    out = []

    async def bench(ctx):
        for fen, alpha, beta, depth, ply in jobs:
            board = Board(fen)
            for sq in range(64):
                c = board.color[sq]
                ctx.set(dut.load.en, 1)
                ctx.set(dut.load.sq, sq)
                ctx.set(dut.load.color, c)
                ctx.set(dut.load.piece, board.piece[sq] if c != EMPTY else NO_PIECE)
                await ctx.tick()
            ctx.set(dut.load.en, 0)
            await ctx.tick().repeat(3)
            ctx.set(dut.job, {"side": board.side, "castle": board.castle,
                              "ep_valid": board.ep >= 0, "ep_sq": max(board.ep, 0),
                              "alpha": alpha, "beta": beta, "depth": depth, "ply": ply})
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            for _ in range(max_clocks):
                await ctx.tick()
                if ctx.get(dut.done):
                    break
            else:
                raise TimeoutError(f"{fen} ({alpha}, {beta}) depth {depth}: no result")
            best = ctx.get(dut.best) if ctx.get(dut.best_valid) else None
            out.append(LeafResult(ctx.get(dut.score), best, ctx.get(dut.nodes),
                                  ctx.get(dut.clocks)))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return out
