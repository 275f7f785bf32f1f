"""The search thread's clocks per node on the compiled model: the host's search of the bench
positions (bench/search.py's eight) with the compiled thread below the split, held to the same
search over the reference, against the design note's estimate (docs/chip_search.md).

    .venv/bin/python bench/search_chip.py [--depth 4] [--chip-depth 2]

Clocks per node: the jobs' clocks from start to result over the jobs' nodes (the whole tree),
and the mean of the positions' figures; with the load of each job's 64 squares and the start
(the estimate counts 72 a job) and without.
"""

import argparse
import statistics
import sys
import time

from posdata.engine.board import Board
from posdata.engine.host_search import HostSearch, ReferenceLeaf
from posdata.sim.drivers.search_cxxrtl import SearchModel

from search import POSITIONS

ESTIMATE = 17.8  #: docs/chip_search.md, the whole tree at chip depth 2
LOAD = 72        #: clocks a job's load, start and result take (the estimate's count)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--chip-depth", type=int, default=2)
    args = p.parse_args(argv)
    model = SearchModel()
    print(f"{'position':<10} {'nodes':>8} {'jobs':>6} {'chip nodes':>10} {'clocks':>10} "
          f"{'c/node':>7} {'+load':>7} {'match':>5} {'seconds':>7}")
    totals = [0, 0, 0]
    per_position, ok = [], True
    for name, fen in POSITIONS:
        t = time.perf_counter()
        chip = HostSearch(Board(fen), model, args.chip_depth).search(args.depth)
        seconds = time.perf_counter() - t
        ref = HostSearch(Board(fen), ReferenceLeaf(), args.chip_depth).search(args.depth)
        match = (chip.score, chip.best_move, chip.pv, chip.nodes) == (
            ref.score, ref.best_move, ref.pv, ref.nodes)
        ok &= match
        cpn = chip.leaf_clocks / chip.leaf_nodes
        loaded = (chip.leaf_clocks + LOAD * chip.jobs) / chip.leaf_nodes
        per_position.append(loaded)
        totals[0] += chip.leaf_clocks
        totals[1] += chip.leaf_nodes
        totals[2] += chip.jobs
        print(f"{name:<10} {chip.nodes:>8} {chip.jobs:>6} {chip.leaf_nodes:>10} "
              f"{chip.leaf_clocks:>10} {cpn:>7.2f} {loaded:>7.2f} {str(match):>5} "
              f"{seconds:>7.1f}")
    clocks, nodes, jobs = totals
    print("clocks per node by state: " + ", ".join(
        f"{name} {n / nodes:.2f}" for name, n in model.phases.most_common()))
    print(f"whole tree: {clocks / nodes:.2f} clocks per node, {(clocks + LOAD * jobs) / nodes:.2f} "
          f"with the load; mean of positions {statistics.mean(per_position):.2f}; "
          f"estimate {ESTIMATE}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
