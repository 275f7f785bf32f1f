"""Perft with the move generator in the loop (``posdata perft --backend gen``).

Every node's move list comes from the simulated move generator; make/takeback and legality stay
on the host's reference board. With ``check``: a software perft for its own count, then the
generator-in-the-loop perft with the reference generator run beside the gateware at every node
(sim.runs.checked_movegen); the first node whose move sequences differ stops the run and is reported
as a FEN, the line of moves that leads there from the root, and the moves one generator has and
the other lacks. (The chip that counts by itself is sim.runs.chip_perft's.)

``jobs > 1`` (or a Dask scheduler) spreads the nodes of a ply below the root over workers
(sim.runs.pool); every figure is a sum over deterministic per-node work, so the results equal
those of ``jobs = 1``.
"""

import time

from posdata.engine.rules.board import Board
from posdata.engine.rules.movegen import bare_king_ended
from posdata.engine.rules.perft import perft

from ..drivers.interface import GatewareMoveGen
from ..drivers.worker import worker_driver
from ..views.perft_report import PerftReport, SubtreeResult
from .checked_movegen import CheckingMoveGen, GeneratorMismatch
from .pool import run_in_workers


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
    gen = game_rules(gen)
    try:
        result.nodes = perft(board, depth, gen, bulk=bulk)
    except GeneratorMismatch as e:
        result.mismatch = str(e)
    result.calls, result.cycles, result.moves = hw.calls, hw.cycles, hw.moves
    return result


def game_rules(gen):
    """``gen`` where no variant's rule has ended the game; where one has (shatranj's bare
    king), the node has no moves, as the reference has none: a rule about the whole position,
    the host's, as legality is, not the generator's (which walks pieces)."""
    def ruled(board) -> None:
        if board.data.bare_king and bare_king_ended(board):
            del board.gen_dat[board.first_move[board.ply]:]
            board.first_move[board.ply + 1] = len(board.gen_dat)
            return
        gen(board)
    return ruled


#: with workers, split until there are this many tasks per worker (or the leaves' parents)
TASKS_PER_WORKER = 16


def split_ply(board: Board, depth: int, workers: int) -> int:
    """The ply whose nodes become the jobs: 1 (the root's children) in one process; with
    workers, the first ply with ``TASKS_PER_WORKER`` jobs per worker (the initial position's 20
    root moves are too few and too unequal for two workers), at most depth - 1."""
    ply = 1
    while workers > 1 and ply < depth - 1 and \
            perft(board, ply, bulk=True) < TASKS_PER_WORKER * workers:
        ply += 1
    return ply


def frontier(board: Board, plies: int, gen=None, line: tuple = ()) -> list[tuple[tuple, str]]:
    """(the moves from the root, FEN) of every node ``plies`` below ``board``, in generation
    order; the interior nodes' moves from ``gen`` (the gateware's, when it is in the loop)."""
    if plies == 0:
        return [(line, board.fen())]
    out = []
    for m in board.legal_moves(gen):
        board.makemove(m)
        out.extend(frontier(board, plies - 1, gen, line + (board.uci(m),)))
        board.takeback()
    return out


def run_perft(board: Board, depth: int, backend: str = "sw", sim="cxxrtl",
              jobs: int = 1, progress=None, factory=None, check: bool = False,
              bulk: bool = False, scheduler: str | None = None) -> PerftReport:
    """Perft with divide, in software (``sw``) or with the generator in the loop (``gen``) on
    ``sim`` (a sim.drivers.targets target or its name). ``jobs`` local workers or the Dask cluster
    at ``scheduler`` count the nodes of a ply below the root (``split_ply``); ``factory`` (tests)
    builds the gateware driver instead, in this process."""
    from .pool import scheduler_address

    fen = board.fen()
    variant = board.variant.name
    report = PerftReport(fen, depth, backend, None if backend == "sw" else str(sim), check)
    driver = None
    if backend != "sw":  # the model first, timed apart: a first run compiles it
        begun = time.perf_counter()
        driver = worker_driver(sim, factory, variant)
        report.compile_seconds = time.perf_counter() - begun
    start = time.perf_counter()
    if depth == 0:
        report.nodes, report.sw_nodes = 1, (1 if check else None)
        report.seconds = time.perf_counter() - start
        return report

    remote = factory is None and (jobs > 1 or bool(scheduler_address(scheduler)))
    ply = split_ply(board, depth, max(jobs, 2) if remote else 1)
    gen = None
    if backend != "sw":  # the moves above the split from the gateware too (legality: makemove)
        hw = GatewareMoveGen(driver)
        gen = game_rules(CheckingMoveGen(hw, len(board.hist), []).gen if check else hw.gen)
    try:
        nodes = frontier(board, ply, gen)
    except GeneratorMismatch as e:
        report.mismatch = str(e)
    if gen is not None:
        report.calls, report.cycles, report.moves = hw.calls, hw.cycles, hw.moves
    if report.mismatch:
        report.seconds = time.perf_counter() - start
        return report

    job_list = [(child_fen, depth - ply, backend, sim, factory, line, check, bulk, variant)
                for line, child_fen in nodes]
    finished = [0, 0]  # jobs, nodes

    def done(i, r: SubtreeResult) -> None:
        finished[0] += 1
        finished[1] += r.nodes
        if progress:
            progress.update(f"perft {depth} [{backend}]: {finished[0]}/{len(job_list)} jobs "
                            f"(ply {ply}), {finished[1]:,} nodes")

    results = run_in_workers(subtree, job_list, jobs if remote else 1, scheduler if remote
                             else None, done)
    for (line, _), r in zip(nodes, results):
        report.add(line[0], r)
        if report.mismatch and not remote:
            break  # the first differing position is found; the rest would only repeat it
    if check and report.sw_nodes is None:
        report.sw_nodes = 0
    report.seconds = time.perf_counter() - start
    return report
