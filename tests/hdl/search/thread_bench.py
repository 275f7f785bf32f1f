"""Runs jobs on the search thread in Amaranth's simulator (sim.drivers.search_pysim)."""

from posdata.engine.rules.board import Board
from posdata.sim.drivers.search_pysim import SearchSimulation


def run_jobs(jobs, max_clocks=2_000_000, dut=None):
    """``jobs``: (fen, alpha, beta, depth, ply) each; returns a LeafResult per job (clocks set),
    all on one simulated thread (``dut``: a SearchThread built otherwise)."""
    thread = SearchSimulation(dut)
    return [thread.search(Board(fen), alpha, beta, depth, ply, watchdog=max_clocks)
            for fen, alpha, beta, depth, ply in jobs]
