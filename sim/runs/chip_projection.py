"""What a chip of several perft engines would count per second on a board: the makespan of one
shared count, simulated clock for clock on the chip's compiled model (every engine's threads
claiming nodes at the split ply; the last one to finish ends it, so unequal subtrees and idle
threads are in it), at a clock rate taken from a routed design. Labelled "projected": it is
the gateware's own clock count, but no board here has run it.

Every simulator counts the same clocks; which one runs is a matter of time alone. By default
the chip's (sim.drivers.targets.chip_default: Verilator for one engine, CXXRTL for more, whose
first compile is a quarter of Verilator's); a long count (the eight-engine perft(6): minutes)
repays Verilator's compile at any size, so its callers pass ``target`` (bench/chip.py does).
"""

from dataclasses import dataclass

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import BY_NAME

from ..drivers.targets import chip_default, make_chip


@dataclass
class Projection:
    engines: int
    position: str
    depth: int
    split: int
    leaves: int
    makespan_clocks: int
    idle_percent: float          #: of all threads' clocks in the makespan
    mhz: float | None
    overflow: bool
    sim: str = ""                #: the simulator that counted

    @property
    def clocks_per_leaf(self) -> float:
        return self.makespan_clocks / self.leaves

    @property
    def leaves_per_second(self) -> float | None:
        return self.mhz * 1e6 / self.clocks_per_leaf if self.mhz else None

    def as_dict(self) -> dict:
        return {"engines": self.engines, "position": self.position, "depth": self.depth,
                "split": self.split, "bulk": True, "leaves": self.leaves,
                "makespan_clocks": self.makespan_clocks,
                "clocks_per_leaf": round(self.clocks_per_leaf, 4),
                "idle_percent": round(self.idle_percent, 2), "mhz": self.mhz, "sim": self.sim,
                "projected_leaves_per_second": (round(self.leaves_per_second)
                                                if self.mhz else None)}


def project(engines: int, mhz: float | None, position: str = "initial", depth: int = 5,
            split: int | None = None, progress=None, chip=None,
            target: str | None = None) -> Projection:
    """Bulk perft(``depth``) of a standard position on a compiled chip of ``engines`` engines
    on ``target`` (default: chip_default's); ``progress(leaves, clocks)`` between native
    runs."""
    if chip is None:
        target = target or chip_default(engines)
        chip = make_chip(target, engines)
    count = chip.perft(Board(BY_NAME[position].fen), depth, bulk=True, split=split,
                       progress=progress)
    total = sum(sum(t.values()) for t in count.phases)
    idle = sum(t["idle"] for t in count.phases)
    return Projection(engines, position, depth, count.split, count.leaves, count.clocks,
                      100 * idle / total if total else 0.0, mhz, count.overflow, target or "")
