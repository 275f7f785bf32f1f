"""What a hardware perft reports: the totals of one subtree, the whole run's report, and its
JSON form (the keys of ``posdata perft --json``, which scripts read: keep them stable)."""

from dataclasses import dataclass, field


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
    backend: str                 #: "sw" or "gen"
    sim: str | None
    check: bool = False          #: the reference generator ran beside the gateware
    nodes: int = 0               #: the backend's count
    sw_nodes: int | None = None
    calls: int = 0               #: generator calls answered by the gateware
    cycles: int = 0              #: gateware clock cycles over all calls
    moves: int = 0               #: moves the gateware emitted over all calls
    seconds: float = 0.0          #: the count's, the model's build not included
    compile_seconds: float = 0.0  #: building (or loading) this process's model, before the count
    divide: dict = field(default_factory=dict)
    mismatch: str | None = None

    @property
    def match(self) -> bool | None:
        if not self.check:
            return None
        return self.mismatch is None and self.nodes == self.sw_nodes

    def add(self, move: str, r: SubtreeResult) -> None:
        """Account for the subtree below root move ``move``: every figure is a sum."""
        self.divide[move] = self.divide.get(move, 0) + r.nodes  # a move's jobs add up
        self.nodes += r.nodes
        if r.sw_nodes is not None:
            self.sw_nodes = (self.sw_nodes or 0) + r.sw_nodes
        self.calls += r.calls
        self.cycles += r.cycles
        self.moves += r.moves
        if r.mismatch and not self.mismatch:
            self.mismatch = r.mismatch

    def as_dict(self, mhz: float | None) -> dict:
        out = {"fen": self.fen, "depth": self.depth, "backend": self.backend,
               "nodes": self.nodes, "seconds": round(self.seconds, 6),
               "nps": round(self.nodes / self.seconds) if self.seconds > 0 else 0}
        if self.backend != "sw":
            out.update({
                "compile_seconds": round(self.compile_seconds, 6),
                "sim": self.sim, "hw_nodes": self.nodes, "generator_calls": self.calls,
                "hw_cycles": self.cycles, "hw_moves": self.moves,
                "cycles_per_call": round(self.cycles / self.calls, 3) if self.calls else None,
                "cycles_per_move": round(self.cycles / self.moves, 3) if self.moves else None,
            })
            if mhz:
                out["mhz"] = mhz
                out["projected_hw_seconds"] = self.cycles / (mhz * 1e6)
        if self.check:
            out["check"] = True
            out["sw_nodes"] = self.sw_nodes
            out["match"] = self.match
            out["mismatch"] = self.mismatch
        return out
