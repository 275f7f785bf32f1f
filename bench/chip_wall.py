"""The wall time of ``posdata perft --backend hw`` as a user runs it: perft(5) of the initial
position, plain and bulk, with -j 1 (one chip model counting the whole tree) and -j 2 (the tree
split at the chip's split ply over two chip models on local Dask workers), each a process of its
own, its start-up and its workers' included (the model already in the cache: compiles are timed
by bench/chip_sim.py), against the issue's goals on two cores (30 s plain, 10 s bulk). The load
average before and after is printed with the figures: the machine may be shared.

Usage: .venv/bin/python bench/chip_wall.py [--target cxxrtl|verilator] [--depth D] [--json FILE]
(bench/chip.py prints the same rows after its table.)
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

from posdata.engine.rules.positions import BY_NAME

from results import add_json_option, write_json

#: the issue's goals for perft(5) of the initial position on two cores, wall seconds
GOALS = {"plain": 30.0, "bulk": 10.0}
JOBS = (1, 2)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def cpu_seconds() -> float:
    """User and system CPU of the finished child processes (the run and its workers)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wall_times(target: str, depth: int = 5) -> dict:
    """Each (mode, jobs) run once, in a process of its own: wall seconds, clocks, clocks/s."""
    from posdata.sim.drivers.targets import make_chip
    make_chip(target)  # into the cache first: a compile is no part of these figures
    posdata = os.path.join(os.path.dirname(sys.executable), "posdata")
    want = BY_NAME["initial"].counts[depth - 1]
    before = load()
    print(f"\nposdata perft --backend hw --depth {depth} --target {target}, wall time of the "
          f"process (start-up and workers included), load before {before}; "
          f"{os.cpu_count()} cores")
    print(f"{'mode':<6} {'-j':>3} {'wall s':>8} {'CPU s':>7} {'chip clocks':>13} {'counts':>7} "
          f"{'clocks/s of wall':>16} {'goal s':>7}")
    rows = []
    ok = True
    for mode in ("plain", "bulk"):
        for jobs in JOBS:
            argv = [posdata, "perft", "--backend", "hw", "--depth", str(depth), "--target",
                    target, "--json", "--quiet", "-j", str(jobs)] + (["--bulk"] if mode ==
                                                                      "bulk" else [])
            used = cpu_seconds()
            start = time.perf_counter()
            proc = subprocess.run(argv, capture_output=True, text=True)
            wall = time.perf_counter() - start
            cpu = cpu_seconds() - used
            if proc.returncode:
                raise SystemExit(f"{' '.join(argv[1:])}: {proc.stderr.strip()}")
            out = json.loads(proc.stdout)
            ok &= out["nodes"] == want
            goal = GOALS[mode] if depth == 5 else None
            print(f"{mode:<6} {jobs:>3} {wall:>8.1f} {cpu:>7.1f} {out['hw_cycles']:>13,} "
                  f"{out['chip_counts']:>7} {out['hw_cycles'] / wall:>16,.0f} "
                  f"{goal if goal else '-':>7}", flush=True)
            rows.append({"mode": mode, "jobs": jobs, "wall_seconds": round(wall, 2),
                         "cpu_seconds": round(cpu, 2),
                         "clocks": out["hw_cycles"], "chip_counts": out["chip_counts"],
                         "goal_seconds": goal, "met": None if goal is None else wall <= goal})
    print(f"load after {load()}")
    if not ok:
        print("MISMATCH: a count is not the published one")
    return {"target": target, "depth": depth, "rows": rows, "load_before": before,
            "load_after": load(), "ok": ok}


def main() -> int:
    from posdata.sim.drivers.targets import chip_default
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", choices=("cxxrtl", "verilator"), default=None,
                        help="the chip's simulator (default: verilator where installed)")
    parser.add_argument("--depth", type=int, choices=range(1, 7), default=5)
    add_json_option(parser)
    args = parser.parse_args()
    result = wall_times(args.target or chip_default(), args.depth)
    write_json(args.json, result)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
