"""make bench-scale: what -j 2 buys over -j 1, and the three simulators side by side, in one run.

* perft: ``posdata perft`` as a user runs it (a fresh process: imports, model load and the Dask
  cluster's start-up included), sw, gen and hw each with -j 1 and -j 2 on the same count, nodes
  per second of wall time and the speed-up. The counts are sized to take 30 s or more on one
  worker (the issue's goal: -j 2 >= 1.7x -j 1 there); ``--quick`` runs small ones.
* simulators: the same generations (the nodes of Kiwipete's perft(3) tree) through pysim,
  cxxrtl and verilator, gateware clocks (generation plus square writes) per second of wall time,
  model builds excluded (built or loaded before the clock starts).

The machine's load (os.getloadavg) is printed before and after, and each run's CPU seconds
(its own and its workers'): on a shared machine the wall-time speed-up is bounded by the CPU
the other jobs leave, and the CPU seconds tell the overhead of -j 2 apart from that.

Usage: .venv/bin/python bench/scale.py [--quick] [--json FILE]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

from posdata.engine.rules.board import Board
from posdata.engine.rules.perft import tree_fens
from posdata.engine.rules.positions import BY_NAME

from results import add_json_option, write_json

POSDATA = os.path.join(os.path.dirname(sys.executable), "posdata")
KIWIPETE = BY_NAME["kiwipete"].fen

#: backend -> (perft arguments, expected nodes): full and --quick
COUNTS = {
    "sw": (["--fen", BY_NAME["position3"].fen, "--depth", "6"], BY_NAME["position3"].counts[5]),
    # plain perft generates at interior nodes only: 206k generations for these 4.9M leaves
    "gen": (["--depth", "5"], BY_NAME["initial"].counts[4]),
    "hw": (["--fen", KIWIPETE, "--depth", "4", "--bulk"], BY_NAME["kiwipete"].counts[3]),
}
QUICK = {
    "sw": (["--depth", "4"], BY_NAME["initial"].counts[3]),
    "gen": (["--depth", "3"], BY_NAME["initial"].counts[2]),
    "hw": (["--fen", KIWIPETE, "--depth", "3", "--bulk"], BY_NAME["kiwipete"].counts[2]),
}
#: generations per simulator (pysim is ~1000x slower: a sample of the same nodes)
SAMPLE = {"pysim": 60, "cxxrtl": None, "verilator": None}


def perft_run(backend: str, argv: list[str], jobs: int, expected: int) -> dict:
    cmd = [POSDATA, "perft", "--backend", backend, *argv, "-j", str(jobs), "--json", "--quiet"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers too: each is waited for
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"bench-scale: {' '.join(cmd)} failed: {done.stderr.strip()}")
    nodes = json.loads(done.stdout)["nodes"]
    if nodes != expected:
        raise SystemExit(f"bench-scale: {backend} -j {jobs} counted {nodes}, not {expected}")
    return {"backend": backend, "jobs": jobs, "nodes": nodes, "seconds": round(wall, 3),
            "cpu_seconds": round(cpu, 3), "nps": round(nodes / wall)}


def simulator_rate(target: str, boards: list) -> dict:
    from posdata.sim.drivers.targets import make_driver
    driver = make_driver(target)
    driver.generate(boards[0])  # the model built or loaded before the clock starts
    sample = boards[:SAMPLE[target]] if SAMPLE[target] else boards
    clocks = 0
    start = time.perf_counter()
    for b in sample:
        r = driver.generate(b)
        clocks += r.cycles + r.writes
    seconds = time.perf_counter() - start
    driver.close()
    return {"target": target, "generations": len(sample), "clocks": clocks,
            "seconds": round(seconds, 3), "clocks_per_s": round(clocks / seconds)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small counts (a smoke run)")
    add_json_option(p)
    args = p.parse_args()
    counts = QUICK if args.quick else COUNTS
    load_before = os.getloadavg()
    print("command: make bench-scale  (python bench/scale.py)")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)} "
        f"on {os.cpu_count()} cores")

    for backend in ("gen", "hw"):  # compile the models now if the RTL changed: not start-up
        subprocess.run([POSDATA, "perft", "--backend", backend, "--depth", "1", "--quiet"],
                       capture_output=True)
    perft_rows = []
    print(f"{'backend':<8} {'nodes':>10} {'-j 1 s':>8} {'cpu s':>7} {'-j 1 n/s':>10} "
        f"{'-j 2 s':>8} {'cpu s':>7} {'-j 2 n/s':>10} {'speed-up':>8}")
    for backend, (argv, expected) in counts.items():
        one = perft_run(backend, argv, 1, expected)
        two = perft_run(backend, argv, 2, expected)
        speedup = one["seconds"] / two["seconds"]
        perft_rows.append({"backend": backend, "argv": argv, "j1": one, "j2": two,
                           "speedup": round(speedup, 3)})
        print(f"{backend:<8} {expected:>10,} {one['seconds']:>8.2f} {one['cpu_seconds']:>7.1f} "
            f"{one['nps']:>10,} {two['seconds']:>8.2f} {two['cpu_seconds']:>7.1f} "
            f"{two['nps']:>10,} {speedup:>7.2f}x", flush=True)
    print("(wall time of `posdata perft ... -j N`: start-up, model load and Dask included; cpu s:\n"
        " user+sys of the run and its workers: on a busy machine, -j 2's cpu s over -j 1's is\n"
        " its overhead, and cpu s / wall s the share of the cores the run got)")

    boards = [Board(fen) for fen in tree_fens(KIWIPETE, 3)]
    sims = [simulator_rate(t, boards) for t in SAMPLE]
    peer = next(s for s in sims if s["target"] == "pysim")["clocks_per_s"]
    print(f"\n{'simulator':<10} {'generations':>11} {'clocks':>10} {'M clocks/s':>10} "
        f"{'x pysim':>8}")
    for s in sims:
        print(f"{s['target']:<10} {s['generations']:>11} {s['clocks']:>10,} "
            f"{s['clocks_per_s'] / 1e6:>10.3f} {s['clocks_per_s'] / peer:>8.0f}")
    load_after = os.getloadavg()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load_after)}")
    write_json(args.json, {"quick": args.quick, "perft": perft_rows, "simulators": sims,
                           "cores": os.cpu_count(), "load_before": load_before,
                           "load_after": load_after})
    return 0


if __name__ == "__main__":
    sys.exit(main())
