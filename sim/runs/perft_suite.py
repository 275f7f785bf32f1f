"""A perft suite (``posdata perft --epd FILE``): the EPD files chess programmers keep, one
position a line with its expected counts (``FEN ;D1 20 ;D2 400 ;D3 8902``), every count checked.

Each count is a job; with workers (``-j N``, a Dask scheduler) a count of depth 2 or more is
split at its root moves, so that one deep count does not leave the other workers idle. Results
are sums over deterministic jobs: the same with any number of workers.
"""

import re
import time
from dataclasses import dataclass, field

from posdata.engine.board import Board
from posdata.engine.fen import FenError

from .gen_perft import frontier, subtree
from .pool import run_in_workers, scheduler_address

_COUNT = re.compile(r"D(\d+)\s+(\d+)")


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
    mismatch: str | None = None  #: with --check: the generator's first difference

    @property
    def match(self) -> bool:
        return self.mismatch is None and self.nodes == self.expected


@dataclass
class SuiteReport:
    counts: list[SuiteCount] = field(default_factory=list)
    skipped: int = 0             #: counts deeper than --max-depth
    seconds: float = 0.0

    @property
    def failures(self) -> list[SuiteCount]:
        return [c for c in self.counts if not c.match]


def parse_suite(text: str, variant="chess") -> list[SuiteEntry]:
    """The suite's positions; blank lines and ``#`` comments skipped, opcodes other than
    ``Dn`` (``id``, ...) ignored; a malformed FEN or ``Dn`` count raises SuiteError."""
    entries = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fen, *fields = (part.strip() for part in line.split(";"))
        counts = {}
        for f in fields:
            if not re.match(r"D\d", f):
                continue
            m = _COUNT.fullmatch(f)
            if not m or int(m[1]) < 1:
                raise SuiteError(f"line {number}: {f!r} is not a count (Dn NODES, n >= 1)")
            counts[int(m[1])] = int(m[2])
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


def run_suite(entries: list[SuiteEntry], backend: str = "sw", target="cxxrtl",
              max_depth: int | None = None, jobs: int = 1, scheduler: str | None = None,
              bulk: bool = False, check: bool = False, variant: str = "chess",
              progress=None) -> SuiteReport:
    """Count every (position, depth) of the suite up to ``max_depth`` on ``backend`` (sw or
    gen on ``target``)."""
    from ..drivers.interface import GatewareMoveGen
    from ..drivers.worker import worker_driver

    report = SuiteReport()
    start = time.perf_counter()
    remote = jobs > 1 or bool(scheduler_address(scheduler))
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
                job_list.append((fen, depth - len(line), backend, target, None, line, check,
                                 bulk, variant))
                owner.append(len(report.counts) - 1)
    finished = [0, 0]

    def done(i, r) -> None:
        finished[0] += 1
        finished[1] += r.nodes
        if progress:
            progress.update(f"perft suite [{backend}]: {finished[0]}/{len(job_list)} jobs, "
                            f"{finished[1]:,} nodes")

    results = run_in_workers(subtree, job_list, jobs if remote else 1,
                             scheduler if remote else None, done)
    for i, r in zip(owner, results):
        count = report.counts[i]
        count.nodes += r.nodes
        if r.mismatch and not count.mismatch:
            count.mismatch = r.mismatch
    report.seconds = time.perf_counter() - start
    return report
