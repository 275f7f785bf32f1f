"""A perft suite (``posdata perft --epd FILE``): the EPD files chess programmers keep, one
position a line with its expected counts (``FEN ;D1 20 ;D2 400 ;D3 8902``), every count checked.

Each count is a job; with workers (``-j N``, a Dask scheduler) a count of depth 2 or more is
split at its root moves, so that one deep count does not leave the other workers idle. Results
are sums over deterministic jobs: the same with any number of workers.

On the perft chip (``hw``, ``both``) each count is a chip count of the position; with workers
(local ones only: sim.runs.chip_perft's rule) a count of depth 2 or more is split at its root
moves too (a suite has counts enough to balance them), and its clocks are the jobs' summed.
``both`` also counts each job in software; a count where the chip and the software differ is
localised afterwards, in this process, to the first position whose legal moves differ
(sim.runs.chip_perft.localise).
"""

import re
import time
from dataclasses import dataclass, field

from posdata.engine.rules.board import Board
from posdata.engine.rules.fen import FenError, shorten
from posdata.hdl.common.contract import MAX_DEPTH

from .gen_perft import frontier, subtree
from .pool import run_in_workers, scheduler_address

_OPCODE = re.compile(r"D\d")  # a depth opcode, then refused unless in ASCII digits:
_COUNT = re.compile(r"D([0-9]+)\s+([0-9]+)")  # \d also matches '٣', which int() reads as 3
#: every engine's perft counts in 64 bits; a count above is no count
MAX_NODES = 2**64 - 1


class SuiteError(ValueError):
    """A line of the suite that is not a position with counts; one line, naming it."""


@dataclass
class SuiteEntry:
    line: int                   #: 1-based line number in the file
    fen: str
    counts: dict[int, int]      #: depth -> expected nodes


@dataclass
class SuiteCount:
    line: int
    fen: str
    depth: int
    expected: int
    nodes: int = 0
    mismatch: str | None = None  #: the generator's first difference (--check), the chip's
    sw_nodes: int | None = None  #: both: the software's count
    clocks: int = 0              #: hw, both: the chip's clocks over the count's jobs

    @property
    def match(self) -> bool:
        return (self.mismatch is None and self.nodes == self.expected
                and self.sw_nodes in (None, self.nodes))


@dataclass
class SuiteReport:
    counts: list[SuiteCount] = field(default_factory=list)
    skipped: int = 0             #: counts deeper than --max-depth
    seconds: float = 0.0

    @property
    def failures(self) -> list[SuiteCount]:
        return [c for c in self.counts if not c.match]


def parse_suite(text: str, variant="chess", deeper: bool = False) -> list[SuiteEntry]:
    """The suite's positions; blank lines and ``#`` comments skipped, opcodes other than
    ``Dn`` (``id``, ...) ignored; a malformed FEN or ``Dn`` count, a depth given twice on a
    line or deeper than MAX_DEPTH (``--depth``'s limit) raises SuiteError. ``deeper``: let
    counts deeper than MAX_DEPTH through (the caller skips them: ``--max-depth``)."""
    entries = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fen, *fields = (part.strip() for part in line.split(";"))
        counts = {}
        for f in fields:
            if not _OPCODE.match(f):
                continue
            m = _COUNT.fullmatch(f)
            if not m or not _number(m[1], MAX_DEPTH + 1) >= 1:
                raise SuiteError(f"line {number}: {shorten(f)} is not a count (Dn NODES, "
                                 "n >= 1)")
            depth, nodes = _number(m[1], MAX_DEPTH + 1), _number(m[2], MAX_NODES + 1)
            if depth > MAX_DEPTH and not deeper:
                raise SuiteError(f"line {number}: D{_shown(m[1])} is deeper than "
                                 f"{MAX_DEPTH}, the limit of --depth (--max-depth skips the "
                                 "deeper counts)")
            if nodes > MAX_NODES:
                raise SuiteError(f"line {number}: D{depth}'s count {_shown(m[2])} is more "
                                 "than 2**64 - 1")
            if depth in counts:
                raise SuiteError(f"line {number}: D{depth} given twice ({counts[depth]} and "
                                 f"{nodes}); which is the count?")
            counts[depth] = nodes
        if not counts:
            raise SuiteError(f"line {number}: no counts (expected FEN ;D1 N ;D2 N ...)")
        try:
            Board(fen, variant)
        except FenError as e:
            raise SuiteError(f"line {number}: {e}") from None
        entries.append(SuiteEntry(number, fen, counts))
    if not entries:
        raise SuiteError("the suite has no positions")
    return entries


def _shown(digits: str) -> str:
    digits = digits.lstrip("0") or "0"
    return digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits)} digits)"


def _number(digits: str, above: int) -> int:
    """The value of ASCII ``digits``, or ``above`` for a number with more digits than it: no
    int() of a 5,000-digit number (Python refuses past 4,300)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= len(str(above)) else above


def run_suite(entries: list[SuiteEntry], backend: str = "sw", target="cxxrtl",
              max_depth: int | None = None, jobs: int = 1, scheduler: str | None = None,
              bulk: bool = False, check: bool = False, variant: str = "chess",
              progress=None, engines: int = 1) -> SuiteReport:
    """Count every (position, depth) of the suite up to ``max_depth`` on ``backend`` (sw or
    gen on ``target``; hw or both: the perft chip of ``engines`` engines on ``target``)."""
    from ..drivers.interface import GatewareMoveGen
    from ..drivers.worker import worker_driver

    chip = backend in ("hw", "both")
    report = SuiteReport()
    start = time.perf_counter()
    if chip:
        remote = jobs > 1
        fn, factory, board_chip = chip_jobs(target, engines, variant)
        scheduler = None
    else:
        remote = jobs > 1 or bool(scheduler_address(scheduler))
        fn, factory, board_chip = subtree, None, None
    gen = GatewareMoveGen(worker_driver(target, None, variant)).gen if backend == "gen" \
        else None
    job_list, owner = [], []  # owner[i]: the index in report.counts that job i adds to
    for entry in entries:
        for depth, expected in sorted(entry.counts.items()):
            if max_depth is not None and depth > max_depth:
                report.skipped += 1
                continue
            report.counts.append(SuiteCount(entry.line, entry.fen, depth, expected))
            if remote and depth >= 2:  # the root moves (from the gateware, for gen)
                nodes = frontier(Board(entry.fen, variant), 1, gen)
            else:
                nodes = [((), entry.fen)]
            for line, fen in nodes:
                if chip:
                    job_list.append((fen, depth - len(line), bulk, target, variant,
                                     backend == "both", factory, engines))
                else:
                    job_list.append((fen, depth - len(line), backend, target, None, line, check,
                                     bulk, variant))
                owner.append(len(report.counts) - 1)
    finished = [0, 0, 0]  # jobs, nodes, clocks

    def done(i, r) -> None:
        finished[0] += 1
        finished[1] += r.nodes
        finished[2] += r.cycles
        if progress:
            clocks = ""
            if chip:
                rate = finished[2] / max(1e-9, time.perf_counter() - start)
                clocks = f", {finished[2]:,} chip clocks ({rate:,.0f} clocks/s)"
            progress.update(f"perft suite [{backend}]: {finished[0]}/{len(job_list)} jobs, "
                            f"{finished[1]:,} nodes{clocks}")

    try:
        results = run_in_workers(fn, job_list, jobs if remote else 1,
                                 scheduler if remote else None, done, local=chip)
        for i, r in zip(owner, results):
            count = report.counts[i]
            count.nodes += r.nodes
            if chip:
                count.clocks += r.cycles
                if backend == "both":
                    count.sw_nodes = (count.sw_nodes or 0) + r.sw_nodes
            if r.mismatch and not count.mismatch:
                count.mismatch = r.mismatch
        if backend == "both":
            localise_failures(report, target, bulk, variant, factory, engines)
    finally:
        if board_chip is not None:
            board_chip.close()
    report.seconds = time.perf_counter() - start
    return report


def chip_jobs(target, engines: int, variant: str):
    """The chip's job function, the factory its jobs take (a board's one serial port, opened
    here) and that chip to close (or None); the model built here first, so that workers load
    it from the cache."""
    from ..drivers.targets import as_target, make_chip
    from .chip_perft import chip_subtree, worker_chip

    target = as_target(target)
    if target.name == "board":
        board_chip = make_chip(target)
        return chip_subtree, lambda: board_chip, board_chip
    worker_chip(target, None, engines, variant)
    if engines > 1:  # one chip of several engines, in this process (-j 1)
        return chip_subtree, lambda: worker_chip(target, None, engines, variant), None
    return chip_subtree, None, None


def localise_failures(report: SuiteReport, target, bulk: bool, variant: str, factory,
                      engines: int) -> None:
    """Each count where the chip and the software differ: where they part (one line)."""
    from .chip_perft import faulty_engines, localise, worker_chip

    for count in report.counts:
        if count.mismatch or count.nodes == count.sw_nodes:
            continue
        board = Board(count.fen, variant)
        chip = worker_chip(target, factory, engines, variant)
        count.mismatch = (faulty_engines(chip, board, count.depth, bulk, count.sw_nodes)
                          + localise(board, count.depth, bulk, target, factory))
