"""make bench-sim: how fast the gateware simulates, compiled (CXXRTL) against Amaranth's own
simulator, on the same workload in the same run: back-to-back generations of a position.

Every row counts clocks the same way, as the gateware counts them: per generation, one clock
per board square written plus the generator's own busy count (``Generation.writes +
Generation.cycles``). Clocks a driver spends around that work (the start clock, an idle clock
between generations) are simulated but not counted, in every row alike; the drivers differ
there (Amaranth's testbench idles a clock between requests, the compiled loops do not), so
counting them would favour one simulator.

* native loop: the C entry point clocks the model with start held high (no Python per cycle);
  a generation of the loaded board is ``cycles`` clocks of work (nothing is written);
* per generation: Python calls generate() for each position of a perft tree (what hardware
  perft does), writes included;
* Amaranth's simulator on a short run of the same generations, for the ratio.

Usage: .venv/bin/python bench/sim_speed.py [--json FILE]
"""

import argparse
import sys
import time

from posdata.engine.rules.board import Board
from posdata.engine.rules.perft import tree_fens
from posdata.engine.rules.positions import BY_NAME
from posdata.sim.drivers.gen_cxxrtl import CxxrtlGenerator
from posdata.sim.drivers.gen_pysim import PysimGenerator

from results import add_json_option, write_json


def work(generations) -> int:
    """Clocks of work, as the gateware counts them (the one unit of every row)."""
    return sum(g.writes + g.cycles for g in generations)


def timed(generator, boards) -> float:
    """Clocks of work per second of wall time for ``boards`` generated in turn."""
    start = time.perf_counter()
    results = [generator.generate(b) for b in boards]
    return work(results) / (time.perf_counter() - start)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_json_option(parser)
    args = parser.parse_args(argv)
    print("command: make bench-sim  (python bench/sim_speed.py)")
    print("unit: clocks of work as the gateware counts them (squares written + busy cycles)")
    compiled = CxxrtlGenerator()
    rows = []
    for name in ("initial", "kiwipete"):
        board = Board(BY_NAME[name].fen)
        per_generation = compiled.generate(board).cycles  # the board stays loaded: no writes
        clocks = 3_000_000
        best = 0.0
        for _ in range(3):
            start = time.perf_counter()
            generations = compiled.spin(board, clocks)
            best = max(best, generations * per_generation / (time.perf_counter() - start))
        rows.append((f"native loop, {name}", best))

    boards = [Board(fen) for fen in tree_fens(BY_NAME["kiwipete"].fen, 3)]
    start = time.perf_counter()
    per_gen = timed(compiled, boards)
    seconds = time.perf_counter() - start
    rows.append((f"per generation from Python ({len(boards)} kiwipete tree nodes, "
                 f"{len(boards) / seconds:,.0f} generations/s)", per_gen))
    generations_per_s = len(boards) / seconds

    pysim_rate = timed(PysimGenerator(), boards[:60])
    rows.append(("Amaranth simulator, same generations (peer)", pysim_rate))

    for label, rate in rows:
        print(f"{rate / 1e6:10.3f} M clocks/s  {rate / pysim_rate:8.0f} x pysim  {label}")
    native = [rate for label, rate in rows if label.startswith("native")]
    write_json(args.json, {
        "native_clocks_per_s": [round(min(native)), round(max(native))],
        "native_x_pysim": [round(min(native) / pysim_rate), round(max(native) / pysim_rate)],
        "per_generation_clocks_per_s": round(per_gen),
        "per_generation_x_pysim": round(per_gen / pysim_rate),
        "generations_per_s": round(generations_per_s), "pysim_clocks_per_s": round(pysim_rate),
        "rows": [{"label": label, "clocks_per_s": round(rate)} for label, rate in rows]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
