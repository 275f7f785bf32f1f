"""The search thread's clocks per node on the compiled model: the host's search of the bench
positions (bench/search.py's eight) with the compiled thread below the split, held to the same
search over the reference, against the design note's estimate (docs/chip_search.md).

    .venv/bin/python bench/search_chip.py [--depth 4] [--chip-depth 2] [--mhz F] [--threads N]
                                          [--gnuchess-depth 8] [--json FILE]

Clocks per node: the jobs' clocks from start to result over the jobs' nodes (the whole tree),
and the mean of the positions' figures; with each job's load of its 64 squares and its start,
as the model counted them, and without. Projected nodes/s per thread: at --mhz, else at the
newest ULX3S-25F search-board build's Fmax (none without one). With
--threads N, the same search with N compiled threads taking a node's sibling jobs at once
(engine/search/host_parallel.py) is held to the serial result (score, best move, PV) and its clocks
with each batch's jobs at once are set against the serial clocks: the speed-up N threads give.

Beside the chip's projected nodes/s, GNU Chess's measured in the same run when `gnuchess` is
installed (UCI, `go depth`, one search per position from a new game, its own node counter and
time). What each counts as a node: ours, every node the thread enters (the job's root and
each child of a legal move, quiescence included, settled children too), at chip depth 2 under
the host's depth 4; GNU Chess, every node its search and quiescence search enter (its own
counter, with its hash table, null move and the rest of its pruning, so its tree differs).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

from posdata.engine.rules.board import Board
from posdata.engine.search.host_search import HostSearch, ReferenceLeaf
from posdata.sim.cli.clock import Gateware, clock_for
from posdata.sim.drivers.search_cxxrtl import SearchModel

from results import add_json_option, write_json
from search import POSITIONS

ESTIMATE = 18.2  #: docs/chip_search.md ("Checks, evasions, draws"), the whole tree at chip depth 2
ESTIMATED_LOAD = 72  #: the estimate's clocks a job's load, start and result take
GNUCHESS_DEPTH = 8  #: deep enough that each position's search takes a measurable time


def gnuchess_path() -> str | None:
    """The `gnuchess` binary (Debian installs it under /usr/games), or None."""
    return shutil.which("gnuchess") or shutil.which("gnuchess", path="/usr/games")


def gnuchess_search(binary: str, fen: str, depth: int) -> tuple[int, float]:
    """GNU Chess's nodes and seconds (its own figures) for a fixed-depth search of ``fen``."""
    # no opening book: the initial position would be answered from it, searching nothing
    commands = (f"uci\nsetoption name OwnBook value false\nucinewgame\nposition fen {fen}\n"
                f"go depth {depth}\n")
    proc = subprocess.Popen([binary, "--uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        proc.stdin.write(commands)
        proc.stdin.flush()
        nodes, ms = None, None
        for line in proc.stdout:
            found = re.search(r"\btime (\d+) nodes (\d+)", line)
            if found:
                ms, nodes = int(found[1]), int(found[2])
            if line.startswith("bestmove"):
                break
        proc.stdin.write("quit\n")
        proc.stdin.flush()
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    if nodes is None:
        raise RuntimeError(f"gnuchess gave no node count for {fen}")
    return nodes, max(ms, 1) / 1000


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--chip-depth", type=int, default=2)
    p.add_argument("--threads", type=int, default=1, help="also search with N threads at once")
    p.add_argument("--mhz", type=float, default=None,
                   help="clock of the projection (default: the newest ULX3S-25F search "
                        "board's report)")
    p.add_argument("--gnuchess-depth", type=int, default=GNUCHESS_DEPTH,
                   help="GNU Chess's fixed depth for its nodes/s (when installed)")
    add_json_option(p)
    args = p.parse_args(argv)
    # the search board's clock, not the perft chip's: the thread routes slower
    clock = clock_for(Gateware("search"), args.mhz, board="ulx3s-25f-search")
    gnuchess = gnuchess_path()
    model = SearchModel()
    print(f"{'position':<10} {'nodes':>8} {'jobs':>6} {'chip nodes':>10} {'clocks':>10} "
          f"{'c/node':>7} {'+load':>7} {'match':>5} {'seconds':>7} {'chip n/s':>9} "
          f"{'gnuchess n/s':>13}")
    totals = [0, 0, 0, 0]
    per_position, ok, rows = [], True, []
    theirs = [0, 0.0]  # GNU Chess's nodes and seconds over the positions
    for name, fen in POSITIONS:
        t = time.perf_counter()
        loaded_before = model.load_clocks
        chip = HostSearch(Board(fen), model, args.chip_depth).search(args.depth)
        seconds = time.perf_counter() - t
        load = model.load_clocks - loaded_before
        ref = HostSearch(Board(fen), ReferenceLeaf(), args.chip_depth).search(args.depth)
        match = (chip.score, chip.best_move, chip.pv, chip.nodes) == (
            ref.score, ref.best_move, ref.pv, ref.nodes)
        ok &= match
        cpn = chip.leaf_clocks / chip.leaf_nodes
        loaded = (chip.leaf_clocks + load) / chip.leaf_nodes
        per_position.append(loaded)
        for i, n in enumerate((chip.leaf_clocks, chip.leaf_nodes, chip.jobs, load)):
            totals[i] += n
        projected = f"{clock.mhz * 1e6 / loaded / 1e6:.2f} M" if clock else "-"
        if gnuchess:
            n, s = gnuchess_search(gnuchess, fen, args.gnuchess_depth)
            theirs[0] += n
            theirs[1] += s
            measured = f"{n / s / 1e6:.2f} M"
        else:
            n, s, measured = None, None, "not installed"
        rows.append({"position": name, "nodes": chip.nodes, "jobs": chip.jobs,
                     "chip_nodes": chip.leaf_nodes, "clocks": chip.leaf_clocks,
                     "load_clocks": load, "match": match, "seconds": round(seconds, 2),
                     "gnuchess_nodes": n, "gnuchess_seconds": s})
        print(f"{name:<10} {chip.nodes:>8} {chip.jobs:>6} {chip.leaf_nodes:>10} "
              f"{chip.leaf_clocks:>10} {cpn:>7.2f} {loaded:>7.2f} {str(match):>5} "
              f"{seconds:>7.1f} {projected:>9} {measured:>13}", flush=True)
    if args.threads > 1:
        ok &= threads_row(args, [SearchModel(verbose=False) for _ in range(args.threads)])
    clocks, nodes, jobs, load = totals
    with_load = (clocks + load) / nodes
    mean = statistics.mean(per_position)
    print("clocks per node by state: " + ", ".join(
        f"{name} {n / nodes:.2f}" for name, n in model.phases.most_common()))
    print(f"load and start: {load / jobs:.2f} clocks a job, measured (the estimate counted "
          f"{ESTIMATED_LOAD})")
    print(f"whole tree: {clocks / nodes:.2f} clocks per node, {with_load:.2f} with the load; "
          f"mean of positions {mean:.2f}; estimate {ESTIMATE} ({(mean / ESTIMATE - 1):+.0%})")
    if clock is None:
        print("projected nodes/s per thread: no ULX3S-25F search board report under build/ "
              "(run `posdata synth --search --board ulx3s-25f`, or pass --mhz)")
    else:
        print(f"projected nodes/s per thread: {clock.mhz * 1e6 / mean / 1e6:.2f} M (mean of "
              f"positions, with the load) at {clock.describe()}")
    if gnuchess:
        print(f"GNU Chess ({gnuchess_version(gnuchess)}, one thread, depth "
              f"{args.gnuchess_depth}, this machine): {theirs[0] / theirs[1] / 1e6:.2f} M "
              f"nodes/s ({theirs[0]} nodes in {theirs[1]:.2f} s, its own counter: search and "
              f"quiescence nodes)")
    else:
        print("GNU Chess: not installed (apt-get install gnuchess for its nodes/s beside the "
              "chip's)")
    write_json(args.json, {
        "depth": args.depth, "chip_depth": args.chip_depth, "rows": rows,
        "clocks_per_node": round(clocks / nodes, 3), "with_load": round(with_load, 3),
        "mean_of_positions": round(mean, 3), "estimate": ESTIMATE,
        # the jobs' clocks by state, over the chip's nodes: bench/search_pipeline.py's kept states
        "clocks_by_state": dict(model.phases),
        "mhz": clock.mhz if clock else None, "clock": clock.describe() if clock else None,
        "gnuchess": ({"version": gnuchess_version(gnuchess), "depth": args.gnuchess_depth,
                      "nodes": theirs[0], "seconds": round(theirs[1], 3)}
                     if gnuchess else None)})
    return 0 if ok else 1


def gnuchess_version(binary: str) -> str:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    return (out.stdout.splitlines() or [os.path.basename(binary)])[0].strip()


def threads_row(args, models) -> bool:
    """Each position with the threads at once against the serial search: clocks, speed-up."""
    from posdata.engine.search.host_parallel import ParallelHostSearch
    print(f"with {args.threads} threads: {'position':<10} {'nodes':>8} {'serial clocks':>13} "
          f"{'at once':>10} {'speed-up':>8} {'match':>5}")
    ok, serial_sum, parallel_sum = True, 0, 0
    for name, fen in POSITIONS:
        serial = HostSearch(Board(fen), models[0], args.chip_depth).search(args.depth)
        search = ParallelHostSearch(Board(fen), models, args.chip_depth)
        try:
            got = search.search(args.depth)
        finally:
            search.close()
        match = (got.score, got.best_move, got.pv) == (serial.score, serial.best_move, serial.pv)
        ok &= match
        serial_sum += serial.leaf_clocks
        parallel_sum += search.parallel_clocks
        print(f"{'':<14}{name:<10} {got.nodes:>8} {serial.leaf_clocks:>13} "
              f"{search.parallel_clocks:>10} {serial.leaf_clocks / search.parallel_clocks:>7.2f}x "
              f"{str(match):>5}")
    print(f"{args.threads} threads: {serial_sum / parallel_sum:.2f}x the serial search's speed "
          f"(clocks of the jobs, each batch at once; the host's own time not counted)")
    return ok


if __name__ == "__main__":
    sys.exit(main())
