"""make bench-chip: the perft chip against software perft and Stockfish, in one run.

For perft(5) of the initial position and perft(4) of the other five standard positions: the
chip's clocks per leaf, plain and bulk, measured on its compiled model (the gateware's own clock
counter), with where each thread's clocks went; leaves per second at the synthesised Fmax
(latest `posdata synth` report, or --mhz); our software perft's nodes/s; and, when a `stockfish`
binary is on PATH, Stockfish's `go perft` nodes/s (bulk counting, one thread, one persistent
process) on the same positions, at depth >= 6 where it would finish in milliseconds otherwise.

Usage: .venv/bin/python bench/chip.py [--mhz F] [--quick]
"""

import argparse
import shutil
import subprocess
import sys
import time

from posdata.engine.board import Board
from posdata.engine.perft import perft
from posdata.engine.positions import STANDARD_POSITIONS
from posdata.sim.chip_driver import PHASES, ChipModel
from posdata.sim.cli.common import latest_fmax

DEPTHS = {"initial": 5, "kiwipete": 4, "position3": 4, "position4": 4, "position5": 4,
          "position6": 4}
SOFTWARE_SECONDS = 2.0   #: software perft is timed on the deepest depth that fits in this
STOCKFISH_MIN_DEPTH = 6


def software_nps(fen: str, bulk: bool) -> float:
    """Our software perft's nodes/s: the deepest depth that runs within SOFTWARE_SECONDS."""
    best = 0.0
    for depth in range(1, 8):
        start = time.perf_counter()
        nodes = perft(Board(fen), depth, bulk=bulk)
        seconds = time.perf_counter() - start
        best = nodes / seconds
        if seconds > SOFTWARE_SECONDS / 4:
            break
    return best


class Stockfish:
    """One persistent `stockfish` process, one thread; `go perft N` counts in bulk."""

    def __init__(self, path: str):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.version = "stockfish"  # until its `id name` line says more
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name Threads value 1")
        self.send("isready")
        self.wait("readyok")

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, prefix: str) -> str:
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("stockfish exited")
            if line.startswith("id name"):
                self.version = line[len("id name "):].strip()
            if line.startswith(prefix):
                return line

    def perft_nps(self, fen: str, depth: int) -> tuple[int, float]:
        self.send(f"position fen {fen}")
        start = time.perf_counter()
        self.send(f"go perft {depth}")
        nodes = int(self.wait("Nodes searched").split(":")[1])
        return nodes, nodes / (time.perf_counter() - start)

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mhz", type=float, default=None,
                        help="clock for leaves/s (default: the latest synthesis Fmax)")
    parser.add_argument("--quick", action="store_true", help="one ply shallower everywhere")
    args = parser.parse_args()
    mhz = args.mhz or latest_fmax()
    depths = {k: d - args.quick for k, d in DEPTHS.items()}
    print("command: make bench-chip  (python bench/chip.py"
          + (" --quick" if args.quick else "") + ")")
    print(f"clock: {mhz:g} MHz ({'--mhz' if args.mhz else 'latest posdata synth report'})"
          if mhz else "clock: unknown (run `posdata synth` or pass --mhz): leaves/s omitted")
    path = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
    fish = Stockfish(path) if path else None
    print(f"stockfish: {fish.version if fish else 'not on PATH: column skipped'}")

    chip = ChipModel()
    header = (f"{'position':<10} {'d':>2} {'leaves':>10} {'bulk clk/leaf':>13} "
              f"{'plain clk/leaf':>14} {'chip bulk Mleaves/s':>19} {'sw bulk Mnps':>12} "
              f"{'stockfish Mnps':>14}")
    print(header)
    totals = {"bulk": [0, 0], "plain": [0, 0]}
    phases = {"bulk": dict.fromkeys(PHASES, 0), "plain": dict.fromkeys(PHASES, 0)}
    ok = True
    for pos in STANDARD_POSITIONS:
        depth = depths[pos.name]
        per = {}
        for mode in ("bulk", "plain"):
            count = chip.perft(Board(pos.fen), depth, bulk=mode == "bulk")
            ok &= count.leaves == pos.counts[depth - 1] and not count.overflow
            per[mode] = count.clocks / count.leaves
            totals[mode][0] += count.clocks
            totals[mode][1] += count.leaves
            for thread in count.phases:
                for name, clocks in thread.items():
                    phases[mode][name] += clocks
        chip_rate = f"{mhz / per['bulk']:.1f}" if mhz else "-"
        sw = software_nps(pos.fen, bulk=True) / 1e6
        fish_rate = "-"
        if fish:
            n, rate = fish.perft_nps(pos.fen, max(STOCKFISH_MIN_DEPTH, depth))
            fish_rate = f"{rate / 1e6:.1f}"
        print(f"{pos.name:<10} {depth:>2} {pos.counts[depth - 1]:>10} {per['bulk']:>13.3f} "
              f"{per['plain']:>14.3f} {chip_rate:>19} {sw:>12.3f} {fish_rate:>14}", flush=True)
    for mode in ("bulk", "plain"):
        clocks, leaves = totals[mode]
        thread_clocks = sum(phases[mode].values())
        split = ", ".join(f"{name} {100 * c / thread_clocks:.1f} %"
                          for name, c in phases[mode].items() if c)
        print(f"{mode}: {clocks / leaves:.3f} clocks per leaf over all six; thread clocks: "
              f"{split}")
    if fish:
        fish.close()
    if not ok:
        print("MISMATCH: the chip's count is not the published one")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
