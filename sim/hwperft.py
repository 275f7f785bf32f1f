"""Perft with the move generator in the loop (``posdata perft --backend gen``).

Every node's move list comes from the simulated move generator; make/takeback and legality stay
on the host's reference board. With ``check``: a software perft for its own count, then the
generator-in-the-loop perft with the reference generator run beside the gateware at every node
(sim.checked_movegen); the first node whose move sequences differ stops the run and is reported
as a FEN, the line of moves that leads there from the root, and the moves one generator has and
the other lacks. (The chip that counts by itself is sim.chip_perft's.)

``jobs > 1`` splits the root moves over worker processes (sim.perft_pool); every figure is a
sum over deterministic per-node work, so the results equal those of ``jobs = 1``.
"""

import time

from posdata.engine.board import Board
from posdata.engine.perft import perft

from .checked_movegen import CheckingMoveGen, GeneratorMismatch
from .driver import GatewareMoveGen
from .perft_pool import run_in_workers
from .perft_report import PerftReport, SubtreeResult
from .worker_driver import worker_driver


def subtree(fen: str, depth: int, backend: str, sim: str, factory=None,
            prefix: tuple = (), check: bool = False, bulk: bool = False,
            variant: str = "chess") -> SubtreeResult:
    """perft of one position (a root move's subtree, reached by ``prefix``) on a backend."""
    board = Board(fen, variant)
    result = SubtreeResult()
    if backend == "sw":
        result.nodes = perft(board, depth, bulk=bulk)
        return result
    hw = GatewareMoveGen(worker_driver(sim, factory, variant))
    if check:
        result.sw_nodes = perft(board, depth, bulk=bulk)
        gen = CheckingMoveGen(hw, len(board.hist), list(prefix)).gen
    else:
        gen = hw.gen
    try:
        result.nodes = perft(board, depth, gen, bulk=bulk)
    except GeneratorMismatch as e:
        result.mismatch = str(e)
    result.calls, result.cycles, result.moves = hw.calls, hw.cycles, hw.moves
    return result


def run_perft(board: Board, depth: int, backend: str = "sw", sim: str = "cxxrtl",
              jobs: int = 1, progress=None, factory=None, check: bool = False,
              bulk: bool = False) -> PerftReport:
    """Perft with divide, in software (``sw``) or with the generator in the loop (``gen``).
    ``factory`` (tests) builds the gateware driver instead of ``sim``."""
    fen = board.fen()
    variant = board.variant.name
    report = PerftReport(fen, depth, backend, None if backend == "sw" else sim, check)
    start = time.perf_counter()
    if depth == 0:
        report.nodes, report.sw_nodes = 1, (1 if check else None)
        report.seconds = time.perf_counter() - start
        return report

    roots = board.legal_moves()
    if backend != "sw":  # the root's moves from the gateware too (legality: makemove)
        hw = GatewareMoveGen(worker_driver(sim, factory, variant))
        gen = CheckingMoveGen(hw, len(board.hist), []).gen if check else hw.gen
        try:
            roots = board.legal_moves(gen)
        except GeneratorMismatch as e:
            report.mismatch = str(e)
        report.calls, report.cycles, report.moves = hw.calls, hw.cycles, hw.moves
        if report.mismatch:
            report.seconds = time.perf_counter() - start
            return report

    children = []
    for m in roots:
        board.makemove(m)
        children.append((board.uci(m), board.fen()))
        board.takeback()
    job_list = [(child_fen, depth - 1, backend, sim, factory, (name,), check, bulk, variant)
                for name, child_fen in children]

    def account(i, r: SubtreeResult) -> None:
        report.add(children[i][0], r)
        if progress:
            progress.update(f"perft {depth} [{backend}]: {len(report.divide)}/{len(children)} "
                            f"root moves, {report.nodes:,} nodes")

    # a test's factory is a closure, which cannot be sent to a worker
    if jobs > 1 and len(job_list) > 1 and factory is None:
        for i, r in enumerate(run_in_workers(subtree, job_list, jobs)):
            account(i, r)
    else:
        for i, job in enumerate(job_list):
            account(i, subtree(*job))
            if report.mismatch:
                break  # the first differing position is found; the rest would only repeat it
    if check and report.sw_nodes is None:
        report.sw_nodes = 0
    report.seconds = time.perf_counter() - start
    return report
