"""make bench-sim: how fast the gateware simulates, compiled (CXXRTL) against Amaranth's own
simulator, on the same workload in the same run: back-to-back generations of a position.

* native loop: the C entry point clocks the model with start held high (no Python per cycle);
* per generation: Python calls generate() for each position of a perft tree (what hardware
  perft does), cycles of the gateware per second of wall time, writes included;
* Amaranth's simulator on a short run of the same generations, for the ratio.
"""

import sys
import time

from posdata.engine.board import Board
from posdata.engine.perft import tree_fens
from posdata.engine.positions import BY_NAME
from posdata.sim.cxxrtl_driver import CxxrtlGenerator
from posdata.sim.pysim_driver import PysimGenerator


def main() -> int:
    print("command: make bench-sim  (python bench/sim_speed.py)")
    compiled = CxxrtlGenerator()
    rows = []
    for name in ("initial", "kiwipete"):
        board = Board(BY_NAME[name].fen)
        clocks = 3_000_000
        best = 0.0
        for _ in range(3):
            start = time.perf_counter()
            compiled.spin(board, clocks)
            best = max(best, clocks / (time.perf_counter() - start))
        rows.append((f"native loop, {name}", best))

    boards = [Board(fen) for fen in tree_fens(BY_NAME["kiwipete"].fen, 3)]
    start_clocks = compiled.clocks
    start = time.perf_counter()
    for b in boards:
        compiled.generate(b)
    seconds = time.perf_counter() - start
    per_gen = (compiled.clocks - start_clocks) / seconds
    rows.append((f"per generation from Python ({len(boards)} kiwipete tree nodes, "
                 f"{len(boards) / seconds:,.0f} generations/s)", per_gen))

    golden = PysimGenerator()
    sample = boards[:60]
    cycles = 0
    start = time.perf_counter()
    for b in sample:
        r = golden.generate(b)
        cycles += r.cycles + r.writes
    pysim_rate = cycles / (time.perf_counter() - start)
    rows.append(("Amaranth simulator, same generations (peer)", pysim_rate))

    for label, rate in rows:
        print(f"{rate / 1e6:10.3f} M cycles/s  {rate / pysim_rate:8.0f} x pysim  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
