"""Hardware vs software perft.

``hw``: every node's move list comes from the simulated gateware; make/takeback and legality
stay on the host's reference board. ``both``: a software perft for its own count, then the
hardware perft with the reference generator run beside the gateware at every node; the first
node whose move sequences differ (not just counts: same moves, same order, same flags) stops the
run and is reported as a FEN, the line of moves that leads there from the root, and the moves
one generator has and the other lacks.

``jobs > 1`` splits the root moves over worker processes; every figure is a sum over
deterministic per-node work, so the results equal those of ``jobs = 1``.
"""

import multiprocessing
import time
from dataclasses import dataclass, field

from posdata.engine.board import Board
from posdata.engine.defs import move_uci
from posdata.engine.movegen import gen as reference_gen
from posdata.engine.perft import perft

from .compare import describe_difference
from .driver import GatewareMoveGen


class GeneratorMismatch(Exception):
    def __init__(self, fen: str, line: list[str], hw: list[int], sw: list[int]):
        self.fen, self.line, self.hw, self.sw = fen, line, hw, sw
        path = " ".join(line) if line else "(root)"
        super().__init__(f"generators differ after {path}: " + describe_difference(fen, hw, sw))


class CheckingMoveGen:
    """Runs the gateware and the reference generator at every node and insists they agree."""

    def __init__(self, hw: GatewareMoveGen, root_hist: int, prefix: list[str]):
        self.hw = hw
        self.root_hist = root_hist  # moves in board.hist before this subtree's root
        self.prefix = prefix        # the moves from the user's position to this subtree's root

    def gen(self, board) -> None:
        reference_gen(board)
        start, end = board.first_move[board.ply], board.first_move[board.ply + 1]
        sw = board.gen_dat[start:end]
        self.hw.gen(board)
        hw = board.gen_dat[start:board.first_move[board.ply + 1]]
        if hw != sw:
            line = self.prefix + [move_uci(h[0]) for h in board.hist[self.root_hist:]]
            raise GeneratorMismatch(board.fen(), line, hw, sw)


@dataclass
class SubtreeResult:
    nodes: int = 0
    sw_nodes: int | None = None
    calls: int = 0
    cycles: int = 0
    moves: int = 0
    mismatch: str | None = None


@dataclass
class PerftReport:
    fen: str
    depth: int
    backend: str
    sim: str | None
    nodes: int = 0               #: hw nodes for hw/both, sw nodes for sw
    sw_nodes: int | None = None
    calls: int = 0               #: generator calls answered by the gateware
    cycles: int = 0              #: gateware clock cycles over all calls
    moves: int = 0               #: moves the gateware emitted over all calls
    seconds: float = 0.0
    divide: dict = field(default_factory=dict)
    mismatch: str | None = None

    @property
    def match(self) -> bool | None:
        if self.backend != "both":
            return None
        return self.mismatch is None and self.nodes == self.sw_nodes

    def as_dict(self, mhz: float | None) -> dict:
        out = {"fen": self.fen, "depth": self.depth, "backend": self.backend,
               "nodes": self.nodes, "seconds": round(self.seconds, 6),
               "nps": round(self.nodes / self.seconds) if self.seconds > 0 else 0}
        if self.backend != "sw":
            out.update({
                "sim": self.sim, "hw_nodes": self.nodes, "generator_calls": self.calls,
                "hw_cycles": self.cycles, "hw_moves": self.moves,
                "cycles_per_call": round(self.cycles / self.calls, 3) if self.calls else None,
                "cycles_per_move": round(self.cycles / self.moves, 3) if self.moves else None,
            })
            if mhz:
                out["mhz"] = mhz
                out["projected_hw_seconds"] = self.cycles / (mhz * 1e6)
        if self.backend == "both":
            out["sw_nodes"] = self.sw_nodes
            out["match"] = self.match
            out["mismatch"] = self.mismatch
        return out


# Worker state: one gateware driver per process, built on first use.
_driver = None
_driver_key = None


def _get_driver(sim: str, factory):
    global _driver, _driver_key
    if factory is not None:
        return factory()
    if _driver is None or _driver_key != sim:
        from .backends import make_driver
        _driver, _driver_key = make_driver(sim), sim
    return _driver


def subtree(fen: str, depth: int, backend: str, sim: str, factory=None,
            prefix: tuple = ()) -> SubtreeResult:
    """perft of one position (a root move's subtree, reached by ``prefix``) on a backend."""
    board = Board(fen)
    result = SubtreeResult()
    if backend == "sw":
        result.nodes = perft(board, depth)
        return result
    hw = GatewareMoveGen(_get_driver(sim, factory))
    if backend == "both":
        result.sw_nodes = perft(board, depth)
        gen = CheckingMoveGen(hw, len(board.hist), list(prefix)).gen
    else:
        gen = hw.gen
    try:
        result.nodes = perft(board, depth, gen)
    except GeneratorMismatch as e:
        result.mismatch = str(e)
    result.calls, result.cycles, result.moves = hw.calls, hw.cycles, hw.moves
    return result


def _subtree_job(job):
    return subtree(*job)


def run_perft(board: Board, depth: int, backend: str = "sw", sim: str = "cxxrtl",
              jobs: int = 1, progress=None, factory=None) -> PerftReport:
    """Perft with divide. ``factory`` (tests) builds the gateware driver instead of ``sim``."""
    fen = board.fen()
    report = PerftReport(fen, depth, backend, None if backend == "sw" else sim)
    start = time.perf_counter()
    if depth == 0:
        report.nodes, report.sw_nodes = 1, (1 if backend == "both" else None)
        report.seconds = time.perf_counter() - start
        return report

    if backend != "sw":  # the root node's own generation, on the chosen backend
        hw = GatewareMoveGen(_get_driver(sim, factory))
        gen = CheckingMoveGen(hw, len(board.hist), []).gen if backend == "both" else hw.gen
        try:
            gen(board)
        except GeneratorMismatch as e:
            report.mismatch = str(e)
        report.calls, report.cycles, report.moves = hw.calls, hw.cycles, hw.moves
        if report.mismatch:
            report.seconds = time.perf_counter() - start
            return report

    roots = board.legal_moves()
    children = []
    for m in roots:
        board.makemove(m)
        children.append((move_uci(m), board.fen()))
        board.takeback()
    job_list = [(child_fen, depth - 1, backend, sim, factory, (name,))
                for name, child_fen in children]

    def account(i, r: SubtreeResult) -> None:
        report.divide[children[i][0]] = r.nodes
        report.nodes += r.nodes
        if r.sw_nodes is not None:
            report.sw_nodes = (report.sw_nodes or 0) + r.sw_nodes
        report.calls += r.calls
        report.cycles += r.cycles
        report.moves += r.moves
        if r.mismatch and not report.mismatch:
            report.mismatch = r.mismatch
        if progress:
            progress.update(f"perft {depth} [{backend}]: {len(report.divide)}/{len(children)} "
                            f"root moves, {report.nodes:,} nodes")

    if jobs > 1 and len(job_list) > 1 and factory is None:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(min(jobs, len(job_list))) as pool:
            for i, r in enumerate(pool.imap(_subtree_job, job_list, chunksize=1)):
                account(i, r)
    else:
        for i, job in enumerate(job_list):
            account(i, subtree(*job))
            if report.mismatch:
                break  # the first differing position is found; the rest would only repeat it
    if backend == "both" and report.sw_nodes is None:
        report.sw_nodes = 0
    report.seconds = time.perf_counter() - start
    return report
