"""Hardware perft on the perft chip: the gateware counts the whole tree by itself; the host loads
the root and reads the result.

``hw``: one count of the root (or, with ``divide`` or ``jobs > 1``, one count per legal root
move, of depth - 1: the host makes each root move and loads the child). ``both``: the software's
count beside the chip's; on a difference, ``localise`` descends by divide (loading each child of
the differing node, comparing counts, recursing) to the first position whose legal move list
differs, and reports the line of moves from the root, its FEN and the missing/extra moves.
"""

import time
from dataclasses import dataclass, field

from posdata.engine.board import Board
from posdata.engine.defs import move_uci
from posdata.engine.perft import perft

from ..drivers.chip_cxxrtl import PHASES
from .pool import run_in_workers

SIMULATORS = ("cxxrtl", "pysim")

_chip = None
_chip_key = None


def make_chip(sim: str = "cxxrtl", engines: int = 1, variant: str = "chess"):
    """The perft chip in a simulator: ``cxxrtl`` (compiled, fast) or ``pysim`` (Amaranth's,
    the golden reference, slow), playing ``variant``."""
    if sim == "cxxrtl":
        from ..drivers.chip_cxxrtl import ChipModel
        return ChipModel(engines, variant=variant)
    if sim == "pysim":
        from ..drivers.chip_pysim import ChipSimulation
        return ChipSimulation(engines, variant=variant)
    raise ValueError(f"unknown simulator {sim!r}: choose from {', '.join(SIMULATORS)}")


def worker_chip(sim: str, factory=None, engines: int = 1, variant: str = "chess"):
    """This process's chip, built on first use and kept (a forked worker inherits it);
    ``factory`` (tests) builds a fresh one instead."""
    global _chip, _chip_key
    if factory is not None:
        return factory()
    if _chip is None or _chip_key != (sim, engines, variant):
        _chip, _chip_key = make_chip(sim, engines, variant), (sim, engines, variant)
    return _chip


@dataclass
class ChipReport:
    fen: str
    depth: int
    backend: str                 #: "hw" or "both"
    sim: str
    bulk: bool
    nodes: int = 0               #: the chip's count
    sw_nodes: int | None = None  #: the software's (both)
    clocks: int = 0              #: the chip's clocks over its counts
    counts: int = 0              #: chip counts run (1, or one per root move)
    overflow: bool = False
    seconds: float = 0.0
    divide: dict = field(default_factory=dict)
    phases: dict = field(default_factory=lambda: {name: 0 for name in PHASES})
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
               "sim": self.sim, "mode": "bulk" if self.bulk else "plain",
               "hw_nodes": self.nodes, "hw_cycles": self.clocks, "chip_counts": self.counts,
               "cycles_per_node": round(self.clocks / self.nodes, 4) if self.nodes else None,
               "phases": self.phases, "overflow": self.overflow}
        if mhz:
            out["mhz"] = mhz
            out["hw_seconds"] = self.clocks / (mhz * 1e6)
        if self.backend == "both":
            out.update({"sw_nodes": self.sw_nodes, "match": self.match,
                        "mismatch": self.mismatch})
        return out


def chip_count(fen: str, depth: int, bulk: bool, sim: str, factory=None,
               variant: str = "chess"):
    """One chip count of ``fen`` (a module-level function: workers call it by name)."""
    chip = worker_chip(sim, factory, variant=variant)
    return chip.perft(Board(fen, variant), depth, bulk)


def children(board) -> list[tuple[str, str]]:
    """(UCI move, FEN) of every legal child, in generation order."""
    out = []
    for m in board.legal_moves():
        board.makemove(m)
        out.append((move_uci(m), board.fen()))
        board.takeback()
    return out


def run_chip_perft(board: Board, depth: int, backend: str = "hw", sim: str = "cxxrtl",
                   bulk: bool = True, jobs: int = 1, divide: bool = False, progress=None,
                   factory=None, engines: int = 1) -> ChipReport:
    fen, variant = board.fen(), board.variant.name
    report = ChipReport(fen, depth, backend, sim, bulk)
    if engines > 1 and factory is None:  # one chip of several engines: this process's
        factory = lambda: worker_chip(sim, None, engines, variant)  # noqa: E731
    start = time.perf_counter()
    if backend == "both":
        report.sw_nodes = perft(Board(fen, variant), depth, bulk=bulk)
    split = depth >= 1 and (divide or (jobs > 1 and factory is None))
    if not split:
        chip = worker_chip(sim, factory, variant=variant)
        show = None
        if progress:
            def show(leaves, clocks):
                progress.update(f"perft {depth} on the chip: {leaves:,} leaves, "
                                f"{clocks:,} clocks")
        report.add(chip.perft(Board(fen, variant), depth, bulk, progress=show))
    else:
        kids = children(Board(fen, variant))
        jobs_list = [(child, depth - 1, bulk, sim, factory, variant) for _, child in kids]
        results = (run_in_workers(chip_count, jobs_list, jobs) if jobs > 1 and factory is None
                   else (chip_count(*job) for job in jobs_list))
        for (move, _), count in zip(kids, results):
            report.add(count)
            report.divide[move] = count.leaves
            if progress:
                progress.update(f"perft {depth} on the chip: {len(report.divide)}/{len(kids)} "
                                f"root moves, {report.nodes:,} leaves")
    if report.overflow:
        report.mismatch = ("the chip's move stack overflowed: its count is not to be trusted "
                           "(the position holds more moves per ply than it is sized for)")
    elif backend == "both" and report.nodes != report.sw_nodes:
        chip = worker_chip(sim, factory, variant=variant)
        report.mismatch = (faulty_engines(chip, Board(fen, variant), depth, bulk, report.sw_nodes)
                           + localise(Board(fen, variant), depth, bulk, sim, factory))
    report.seconds = time.perf_counter() - start
    return report


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


def localise(board: Board, depth: int, bulk: bool, sim: str, factory=None,
             line: tuple = ()) -> str:
    """Descend from a node whose counts differ to the first position whose legal move list
    differs (or, if every child agrees, to the node itself): a one-line report."""
    from ..views.difference import describe_difference

    variant = board.variant.name
    chip = worker_chip(sim, factory, variant=variant)
    fen = board.fen()
    path = " ".join(line) if line else "(root)"
    sw_legal = board.legal_moves()
    hw_legal = chip.list_moves(board, legal=True).moves
    # the chip lists from, to and the promoted piece: compare those
    plain = lambda moves: sorted(m & 0xFFF | (m >> 18) << 18 for m in moves)  # noqa: E731
    if plain(hw_legal) != plain(sw_legal):
        return (f"legal moves differ after {path}: "
                + describe_difference(fen, plain(hw_legal), plain(sw_legal), "chip", "sw"))
    if depth > 1:
        for move, child in children(board):
            sw = perft(Board(child, variant), depth - 1, bulk=bulk)
            hw = chip.perft(Board(child, variant), depth - 1, bulk)
            if hw.leaves != sw:
                return localise(Board(child, variant), depth - 1, bulk, sim, factory,
                                line + (move,))
    return (f"counts differ after {path} although every child agrees (chip "
            f"{chip.perft(board, depth, bulk).leaves}, sw {perft(board, depth, bulk=bulk)} at "
            f"depth {depth}): the chip goes wrong between children, in make or unmake; FEN {fen}")
