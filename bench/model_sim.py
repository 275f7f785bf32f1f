"""make bench-sim, the board design and the search thread: each design's CXXRTL model against its
Verilator model, end to end: the first compile (into an empty model cache), then the work a user
waits on, and the two added up (what a first run costs; later runs find the model cached).

* board: a fresh ``posdata board --sim`` board (sim.drivers.fpga_board_sim.CompiledBoard, UART
  divisor 4): its power-up self-test, then perft(--depth) of the initial position over the line,
  bulk and plain, with STATUS polls, as BoardClient runs it;
* search: the host's search of bench/search.py's positions to --search-depth with the compiled
  thread below ply --chip-depth (sim.drivers.search_cxxrtl.SearchModel): the thread's nodes per
  second of wall time, the host's share included.

Every model must give the same result to the clock (the board's clocks and counts; the search's
score, best move, nodes and the thread's clocks): the bench stops otherwise. Rounds alternate
between the simulators (each round in another order) and each figure is the median of its
rounds, as in bench/chip_sim.py; the load average before and after is printed with the figures.

Usage: .venv/bin/python bench/model_sim.py [--designs board,search] [--rounds N] [--depth D]
       [--search-depth D] [--chip-depth D] [--warm] [--json FILE]
"""

import argparse
import statistics
import sys
import time

from posdata.engine.rules.board import Board
from posdata.engine.search.host_search import HostSearch
from posdata.hdl.link.protocol import SELF_TEST_DEPTH
from posdata.sim.drivers.fpga_board import BoardClient
from posdata.sim.drivers.fpga_board_sim import CompiledBoard
from posdata.sim.drivers.search_cxxrtl import SearchModel
from posdata.sim.models.library import SIMULATORS, build_model

from chip_sim import cpu_seconds, load_average, model_cache
from results import add_json_option, write_json
from search import POSITIONS

BOARD_PARAMS = {"divisor": 4, "engines": 1, "self_test_depth": SELF_TEST_DEPTH}


def board_run(library: str, args) -> tuple[tuple, int]:
    """A board session from power-up: (what it counted, to compare), clocks simulated."""
    board = CompiledBoard(library=library, verbose=False)
    with BoardClient(board) as client:
        client.wait_self_test(limit=600)
        counts = [client.perft(Board(), args.depth, bulk) for bulk in (True, False)]
        return tuple((c.leaves, c.clocks) for c in counts) + (board.cycle,), board.cycle


def search_run(library: str, args) -> tuple[tuple, int]:
    """The positions' searches: (what they found, to compare), the thread's nodes."""
    found, nodes = [], 0
    with SearchModel(library, verbose=False) as model:
        for _, fen in POSITIONS:
            r = HostSearch(Board(fen), model, args.chip_depth).search(args.search_depth)
            found.append((r.score, r.best_move, r.nodes, r.leaf_nodes, r.leaf_clocks))
            nodes += r.leaf_nodes
    return tuple(found), nodes


#: design -> (its build parameters, one run, what a run's figure counts)
DESIGNS = {"board": (BOARD_PARAMS, board_run, "clocks"),
           "search": (None, search_run, "thread nodes")}


def measure(design: str, args) -> dict:
    params, run, unit = DESIGNS[design]
    libraries, compiles = {}, {}
    for sim in SIMULATORS:
        start, cpu = time.perf_counter(), cpu_seconds()
        libraries[sim] = build_model(sim, design, params)
        compiles[sim] = None if args.warm else (time.perf_counter() - start, cpu_seconds() - cpu)
        print(f"  {design} on {sim}: " + ("cached" if args.warm else
                                          "first compile {:.1f} s ({:.1f} s of CPU)".format(
                                              *compiles[sim])), flush=True)
    seconds = {sim: [] for sim in SIMULATORS}
    seen, amount = None, 0
    for r in range(args.rounds):
        order = SIMULATORS[r % 2:] + SIMULATORS[:r % 2]
        for sim in order:
            start = time.perf_counter()
            result, amount = run(libraries[sim], args)
            seconds[sim].append(time.perf_counter() - start)
            seen = seen or (sim, result)
            if result != seen[1]:
                raise SystemExit(f"error: {design} on {sim} gave {result}, on {seen[0]} "
                                 f"{seen[1]}")
    rows = []
    for sim in SIMULATORS:
        took, median = compiles[sim], statistics.median(seconds[sim])
        rows.append({"simulator": sim,
                     "compile_seconds": None if took is None else round(took[0], 1),
                     "compile_cpu_seconds": None if took is None else round(took[1], 1),
                     "run_seconds": round(median, 2), f"{unit.replace(' ', '_')}_per_s":
                     round(amount / median),
                     "end_to_end_seconds": None if took is None else round(took[0] + median, 1)})
    return {"design": design, "unit": unit, "amount": amount, "rows": rows}


def show(result: dict, args) -> None:
    what = (f"power-up self-test and perft({args.depth}) bulk and plain over the line"
            if result["design"] == "board" else
            f"{len(POSITIONS)} positions to depth {args.search_depth}, the thread below ply "
            f"{args.chip_depth}")
    unit = result["unit"]
    print(f"{result['design']}: {what}: {result['amount']:,} {unit}; median of "
          f"{args.rounds} rounds")
    print(f"{'simulator':10} {'compile (CPU)':>15} {'run s':>8} {unit + '/s':>16} "
          f"{'compile + run':>14}")
    for row in result["rows"]:
        took = "-" if row["compile_seconds"] is None else \
            f"{row['compile_seconds']:.1f} s ({row['compile_cpu_seconds']:.1f})"
        rate = row[f"{unit.replace(' ', '_')}_per_s"]
        total = "-" if row["end_to_end_seconds"] is None else f"{row['end_to_end_seconds']} s"
        print(f"{row['simulator']:10} {took:>15} {row['run_seconds']:>8} {rate:>16,} "
              f"{total:>14}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--designs", default="board,search",
                        help="which designs, comma-separated (board,search)")
    parser.add_argument("--rounds", type=int, default=3, help="runs per simulator (3)")
    parser.add_argument("--depth", type=int, default=4, help="the board's perft depth (4)")
    parser.add_argument("--search-depth", type=int, default=3, help="the search's depth (3)")
    parser.add_argument("--chip-depth", type=int, default=2,
                        help="plies the thread searches of each job (2)")
    parser.add_argument("--warm", action="store_true",
                        help="the cached models: no compile times")
    add_json_option(parser)
    args = parser.parse_args(argv)
    designs = [d for d in args.designs.split(",") if d]
    unknown = [d for d in designs if d not in DESIGNS]
    if unknown or not designs:
        parser.error(f"--designs takes {', '.join(DESIGNS)}, not {args.designs!r}")
    if args.rounds < 1 or args.depth < 1 or args.search_depth < 1 or args.chip_depth < 0:
        parser.error("--rounds and the depths are at least 1 (--chip-depth at least 0)")
    print("command: make bench-sim  (python bench/model_sim.py)")
    load_before = load_average()
    print(f"load average before: {' '.join(map(str, load_before))}")
    results = []
    for design in designs:
        with model_cache(cold=not args.warm):
            results.append(measure(design, args))
        show(results[-1], args)
    load_after = load_average()
    print(f"load average after: {' '.join(map(str, load_after))}")
    write_json(args.json, {"depth": args.depth, "search_depth": args.search_depth,
                           "chip_depth": args.chip_depth, "rounds": args.rounds,
                           "load_before": load_before, "load_after": load_after,
                           "designs": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
