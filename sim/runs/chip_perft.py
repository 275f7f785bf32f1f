"""Hardware perft on the perft chip: the gateware counts the whole tree by itself; the host loads
the root and reads the result.

``hw``: one count of the root (or, with ``divide``, one count per legal root move, of depth - 1:
the host makes each root move and loads the child). With ``jobs > 1`` the tree is split at the
chip's own split ply (``split_ply``: where its threads share the work, 2 for depth 3 and more):
every node there is one count, of what is left of the depth (split at ``job_split``), spread
in batches over ``jobs`` chip models (local Dask workers over mutual TLS, sim.runs.pool_local;
never a scheduler from the environment). The jobs depend on the tree alone, so counts and
summed clocks are the same for any number of workers; the sum is a little more than one chip
counting the whole tree (each job loads its root and starts anew).

``both``: the software's count beside the chip's; on a difference, ``localise`` descends by
divide (loading each child of the differing node, comparing counts, recursing) to the first
position whose legal move list differs, and reports the line of moves from the root, its FEN
and the missing/extra moves.

The caller's board is the one counted: children are reached by making a move on it and taking
it back, so it is as it was when a run returns. Only a worker process gets a position as text
(its FEN): a board carries its variant's tables, hundreds of kilobytes to send per job.
"""

import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import FLAGS_SHIFT, PROMO_SHIFT, move_uci
from posdata.engine.rules.perft import perft
from posdata.hdl.common.contract import PHASE_NAMES, default_split

from ..drivers.targets import Target, as_target, make_chip
from ..views.perft_report import SubtreeResult
from .gen_perft import frontier
from .pool import run_in_workers

_chip = None
_chip_key = None


def worker_chip(target: Target, factory=None, engines: int = 1, variant: str = "chess"):
    """This process's chip on ``target``, built on first use and kept (a forked worker inherits
    it); ``factory`` (tests, a board's open port) builds or hands over one instead."""
    global _chip, _chip_key
    if factory is not None:
        return factory()
    key = (target, engines, variant)
    if _chip is None or _chip_key != key:
        _chip, _chip_key = make_chip(target, engines, variant), key
    return _chip


@contextmanager
def made(board: Board, move: int):
    """``board`` after ``move`` (a legal move) for the length of the block, then as before."""
    board.makemove(move)
    try:
        yield board
    finally:
        board.takeback()


@dataclass
class ChipReport:
    fen: str
    depth: int
    backend: str                 #: "hw" or "both"
    target: Target
    bulk: bool
    nodes: int = 0               #: the chip's count
    sw_nodes: int | None = None  #: the software's (both)
    clocks: int = 0              #: the chip's clocks over its counts
    counts: int = 0              #: chip counts run (1, one per root move, or per split node)
    split: int | None = None     #: with jobs: the ply whose nodes were the jobs
    overflow: bool = False
    seconds: float = 0.0         #: the count's, the model's build not included
    compile_seconds: float = 0.0  #: building (or loading) this process's model, before the count
    divide: dict = field(default_factory=dict)
    phases: dict = field(default_factory=lambda: dict.fromkeys(PHASE_NAMES, 0))
    mismatch: str | None = None

    @property
    def match(self) -> bool | None:
        if self.backend != "both":
            return None
        return self.mismatch is None and self.nodes == self.sw_nodes

    def add(self, count) -> None:
        self.nodes += count.leaves
        self.clocks += count.clocks
        self.counts += 1
        self.overflow |= count.overflow
        for thread in count.phases:
            for name, clocks in thread.items():
                self.phases[name] += clocks

    def as_dict(self, mhz: float | None) -> dict:
        out = {"fen": self.fen, "depth": self.depth, "backend": self.backend,
               "nodes": self.nodes, "seconds": round(self.seconds, 6),
               "nps": round(self.nodes / self.seconds) if self.seconds > 0 else 0,
               "compile_seconds": round(self.compile_seconds, 6), "sim": self.target.name,
               "mode": "bulk" if self.bulk else "plain",
               "hw_nodes": self.nodes, "hw_cycles": self.clocks, "chip_counts": self.counts,
               "cycles_per_node": round(self.clocks / self.nodes, 4) if self.nodes else None,
               "phases": self.phases, "overflow": self.overflow}
        if self.split is not None:
            out["split_ply"] = self.split
        if mhz:
            out["mhz"] = mhz
            out["hw_seconds"] = self.clocks / (mhz * 1e6)
        if self.backend == "both":
            out.update({"sw_nodes": self.sw_nodes, "match": self.match,
                        "mismatch": self.mismatch})
        return out


def chip_count(fen: str, depth: int, bulk: bool, target: Target, variant: str = "chess",
               split: int | None = None):
    """One chip count of the position ``fen``, in a worker process (a module-level function:
    workers call it by name)."""
    return worker_chip(target, variant=variant).perft(Board(fen, variant), depth, bulk, split)


OVERFLOW = ("the chip's move stack overflowed: its count is not to be trusted (the position "
            "holds more moves per ply than it is sized for)")


def chip_subtree(fen: str, depth: int, bulk: bool, target: Target, variant: str = "chess",
                 software: bool = False, factory=None, engines: int = 1) -> SubtreeResult:
    """One chip count of ``fen`` as a suite's job (a module-level function: workers call it by
    name): the leaves, the clocks (``cycles``) and, with ``software``, the software's count of
    the same position beside it."""
    count = worker_chip(target, factory, engines, variant).perft(Board(fen, variant), depth, bulk)
    result = SubtreeResult(nodes=count.leaves, cycles=count.clocks)
    if software:
        result.sw_nodes = perft(Board(fen, variant), depth, bulk=bulk)
    if count.overflow:
        result.mismatch = OVERFLOW
    return result


#: with workers, the split nodes go in this many batches per worker (the last batch to finish
#: ends the run: many small ones balance it, few large ones spare the round trips)
BATCHES_PER_WORKER = 16


def chip_batch(fens: list[str], depth: int, bulk: bool, target: Target,
               variant: str = "chess", software: bool = False) -> list[tuple]:
    """(chip count, software count or None) of several positions, in order, in a worker (by
    name, as chip_count), each chip count split at ``job_split(depth)``."""
    return [(chip_count(fen, depth, bulk, target, variant, job_split(depth)),
             perft(Board(fen, variant), depth, bulk=bulk) if software else None)
            for fen in fens]


def child_count(chip, board: Board, move: int, depth: int, bulk: bool):
    """The chip's count below one legal move of ``board``."""
    with made(board, move):
        return chip.perft(board, depth, bulk)


def split_ply(depth: int) -> int:
    """The ply whose nodes are the jobs of a count spread over chip models: the chip's own split
    ply (its threads share the nodes there: 400 of the initial position's), at least 1."""
    return max(1, default_split(depth))


def job_split(depth: int) -> int:
    """The split ply of a job of ``depth`` (a node at split_ply): the chip's default, but 1 for
    a job of depth 3, whose two threads would otherwise both generate the 20-odd nodes above
    ply 2, a tenth of a bulk perft(3)'s clocks (40 of the initial position's ply-2 nodes: 743 k
    clocks split at 1, 830 k at 2; at depth 4, 2 is the better by 2 %)."""
    return 1 if depth == 3 else default_split(depth)


def run_chip_perft(board: Board, depth: int, backend: str = "hw", target=Target(),
                   bulk: bool = True, jobs: int = 1, divide: bool = False, progress=None,
                   factory=None, engines: int = 1) -> ChipReport:
    """Count perft(``depth``) of ``board`` on the chip on ``target`` (a Target, or its name);
    ``jobs > 1`` splits the tree at ``split_ply`` over that many workers, each a chip model;
    ``factory`` (tests, a board's open port) hands over the chip instead, in this process (the
    split jobs too, one after another)."""
    target = as_target(target)
    variant = board.variant.name
    report = ChipReport(board.fen(), depth, backend, target, bulk)
    spread = jobs > 1 and depth >= 1
    workers = spread and factory is None and engines == 1
    if factory is None and (not workers or target.name in ("cxxrtl", "verilator")):
        # the model first, timed apart: a first run compiles it (tens of seconds), which is no
        # part of the count; workers then load it from the cache
        begun = time.perf_counter()
        worker_chip(target, None, engines, variant)
        report.compile_seconds = time.perf_counter() - begun
    if engines > 1 and factory is None:  # one chip of several engines: this process's
        factory = lambda: worker_chip(target, None, engines, variant)  # noqa: E731
    start = time.perf_counter()
    if backend == "both" and not workers:  # with workers, they count the jobs in software
        report.sw_nodes = perft(board, depth, bulk=bulk)
    if spread:
        count_split(report, board, depth, bulk, target, jobs if workers else 1, factory,
                    progress, software=backend == "both" and workers)
    elif depth < 1 or not divide:
        chip = worker_chip(target, factory, variant=variant)
        show = None
        if progress:
            def show(leaves, clocks):
                rate = clocks / max(1e-9, time.perf_counter() - start)
                progress.update(f"perft {depth} on the chip: {leaves:,} leaves, "
                                f"{clocks:,} clocks ({rate:,.0f} clocks/s)")
        report.add(chip.perft(board, depth, bulk, progress=show))
    else:
        moves = board.legal_moves()
        chip = worker_chip(target, factory, variant=variant)
        for m in moves:
            count = child_count(chip, board, m, depth - 1, bulk)
            report.add(count)
            report.divide[move_uci(m)] = count.leaves
            if progress:
                progress.update(f"perft {depth} on the chip: {len(report.divide)}/{len(moves)} "
                                f"root moves, {report.nodes:,} leaves")
    if report.overflow:
        report.mismatch = OVERFLOW
    elif backend == "both" and report.nodes != report.sw_nodes:
        chip = worker_chip(target, factory, variant=variant)
        report.mismatch = (faulty_engines(chip, board, depth, bulk, report.sw_nodes)
                           + localise(board, depth, bulk, target, factory))
    report.seconds = time.perf_counter() - start
    return report


def count_split(report: ChipReport, board: Board, depth: int, bulk: bool, target: Target,
                workers: int, factory, progress, software: bool = False) -> None:
    """Add to ``report`` the counts of every node at ``split_ply(depth)`` (in the order the
    software generates them), on ``workers`` chip models (1: this process's, or ``factory``'s),
    and the divide (the jobs below each root move, summed); ``software``: the workers also
    count each job in software, summed into ``report.sw_nodes``."""
    variant = board.variant.name
    report.split = ply = split_ply(depth)
    nodes = frontier(board, ply)
    root = {board.uci(m): move_uci(m) for m in board.legal_moves()}  # the frontier's names
    report.divide = dict.fromkeys(root.values(), 0)
    begun = time.perf_counter()
    tally = [0, 0]  # nodes counted, clocks

    def done(i, count) -> None:
        tally[0] += 1
        tally[1] += count.clocks
        if progress:
            rate = tally[1] / max(1e-9, time.perf_counter() - begun)
            progress.update(f"perft {depth} on {workers} chip model(s): {tally[0]}/"
                            f"{len(nodes)} positions at ply {ply}, {tally[1]:,} clocks "
                            f"({rate:,.0f} clocks/s)")
    if factory is None:
        # a few batches a worker, each every so many-th node (neighbours, children of one root
        # move, are alike in size): a job may take a millisecond, as long as a round trip
        batches = min(len(nodes), BATCHES_PER_WORKER * workers)
        fens = [fen for _, fen in nodes]
        tasks = [(fens[b::batches], depth - ply, bulk, target, variant, software)
                 for b in range(batches)]
        counts = [None] * len(nodes)
        sw = [0]

        def batch_done(b, batch) -> None:
            for k, (count, sw_count) in enumerate(batch):
                counts[b + k * batches] = count
                sw[0] += sw_count or 0
                done(b + k * batches, count)
        for _ in run_in_workers(chip_batch, tasks, workers, local=True, done=batch_done):
            pass
        results = counts
        if software:
            report.sw_nodes = sw[0]
    else:  # tests and a board's port: the same jobs here, one after another
        chip = worker_chip(target, factory, variant=variant)

        def counted():
            for i, (_, fen) in enumerate(nodes):
                count = chip.perft(Board(fen, variant), depth - ply, bulk,
                                   job_split(depth - ply))
                done(i, count)
                yield count
        results = counted()
    for (line, _), count in zip(nodes, results):
        report.add(count)
        report.divide[root[line[0]]] += count.leaves


def faulty_engines(chip, board: Board, depth: int, bulk: bool, sw_nodes: int) -> str:
    """On a chip of several engines, each counts alone: the engines whose counts differ from
    the software's are named (a prefix for the mismatch report; empty for one engine)."""
    if getattr(chip, "engines", 1) < 2:
        return ""
    wrong = {}
    for engine in range(chip.engines):
        leaves = chip.perft(board, depth, bulk, engine=engine).leaves
        if leaves != sw_nodes:
            wrong[engine] = leaves
    if not wrong:
        return (f"every one of the {chip.engines} engines counts {sw_nodes} alone: the engines "
                "go wrong together (sharing the count); ")
    named = ", ".join(f"engine {e} ({n})" for e, n in wrong.items())
    return f"counting alone, {named} differ from the software's {sw_nodes}; "


def listed(moves) -> list[int]:
    """Move words as the chip lists them, sorted: from, to and the promoted piece (no flags)."""
    return sorted(m & ((1 << FLAGS_SHIFT) - 1) | m >> PROMO_SHIFT << PROMO_SHIFT for m in moves)


def localise(board: Board, depth: int, bulk: bool, target=Target(), factory=None,
             line: tuple = ()) -> str:
    """Descend from a node whose counts differ to the first position whose legal move list
    differs (or, if every child agrees, to the node itself): a one-line report."""
    from ..views.difference import describe_difference

    chip = worker_chip(as_target(target), factory, variant=board.variant.name)
    path = " ".join(line) if line else "(root)"
    sw_legal = board.legal_moves()
    hw_legal = chip.list_moves(board, legal=True).moves
    if listed(hw_legal) != listed(sw_legal):
        return (f"legal moves differ after {path}: "
                + describe_difference(board.fen(), listed(hw_legal), listed(sw_legal), "chip",
                                      "sw"))
    if depth > 1:
        for m in sw_legal:
            with made(board, m):
                sw = perft(board, depth - 1, bulk=bulk)
                hw = chip.perft(board, depth - 1, bulk)
                if hw.leaves != sw:
                    return localise(board, depth - 1, bulk, target, factory,
                                    line + (move_uci(m),))
    return (f"counts differ after {path} although every child agrees (chip "
            f"{chip.perft(board, depth, bulk).leaves}, sw {perft(board, depth, bulk=bulk)} at "
            f"depth {depth}): the chip goes wrong between children, in make or unmake; "
            f"FEN {board.fen()}")
