"""make bench-sim, the perft chip: its simulators side by side in one run, CXXRTL's model (built
unit by unit: sim.models.cxxrtl's UNIT_BY_UNIT) and Verilator's, on perft(4) of the initial
position, bulk and plain: each one's first compile (into an empty model cache) and its clocks per
second of wall time, with the ratio to CXXRTL's.

Every model counts the same clocks (the chip's own ``clocks`` output): the bench checks that it
does and stops otherwise. The counts alternate between the models, round after round (each
round in another order), and each figure is the median of its rounds, so a load that comes and
goes on a shared machine falls on every model alike; the load average before and after is
printed with the figures. Python's part is one ctypes call per million clocks: the figures are
the simulators'.

Usage: .venv/bin/python bench/chip_sim.py [--rounds N] [--depth D] [--engines N] [--warm]
       [--variants] [--threads N] [--json FILE]

``--warm`` takes the models already in the cache (no compile times); ``--variants`` also
measures other Verilator settings (sim.models.verilator.build_flags): the C++ compiler's
level for the per-clock code and the once-run code (-O2/-O0 is what ``--target verilator``
builds; -O2/-O2 and -O1/-O0 beside it); ``--threads N`` Verilator's model with N threads
(slow: its threads meet every clock, and spin while they wait; minutes on a busy machine).
"""

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager

from posdata.engine.rules.board import Board
from posdata.engine.rules.positions import BY_NAME
from posdata.sim.drivers.chip_cxxrtl import ChipModel, chip_params
from posdata.sim.models import cxxrtl, verilator

from results import add_json_option, write_json


def simulators(variants: bool, threads: int = 1) -> list[tuple[str, object]]:
    """(label, build(params) -> library path); the first is the reference of the ratios."""
    def verilator_build(**settings):
        flags = verilator.build_flags(**settings)  # no settings: FLAGS, what --target runs
        return lambda params: verilator.build_library(design="chip", params=params, flags=flags)
    out = [("cxxrtl (unit by unit, C++ -O2)",
            lambda params: cxxrtl.build_library(design="chip", params=params)),
           ("verilator (-O3, C++ -O2/-O0, 1 thread)", verilator_build())]
    if variants:
        out += [("verilator (-O3, C++ -O2/-O2, 1 thread)", verilator_build(slow="-O2")),
                ("verilator (-O3, C++ -O1/-O0, 1 thread)", verilator_build(fast="-O1"))]
    if threads > 1:
        out.append((f"verilator (-O3, C++ -O2/-O0, {threads} threads)",
                    verilator_build(threads=threads)))
    return out


@contextmanager
def model_cache(cold: bool):
    """An empty model cache for the block (a first compile is timed), or the user's own."""
    if not cold:
        yield
        return
    before = os.environ.get("POSDATA_CACHE")
    with tempfile.TemporaryDirectory(prefix="posdata-bench-") as tmp:
        os.environ["POSDATA_CACHE"] = tmp
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("POSDATA_CACHE", None)
            else:
                os.environ["POSDATA_CACHE"] = before


def cpu_seconds() -> float:
    """CPU time of this process and of the children it waited for (Yosys, Verilator, make, the
    C++ compiler): a compile's cost, which another user's load does not inflate as it does the
    wall time."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="counts per model and mode (5)")
    parser.add_argument("--depth", type=int, default=4, help="perft depth (4)")
    parser.add_argument("--engines", type=int, default=1, help="the chip's engines (1)")
    parser.add_argument("--warm", action="store_true",
                        help="the cached models: no compile times")
    parser.add_argument("--variants", action="store_true",
                        help="also Verilator's model with other C++ levels")
    parser.add_argument("--threads", type=int, default=1,
                        help="also Verilator's model with this many threads (when above 1)")
    add_json_option(parser)
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.depth < 1 or args.engines < 1:
        parser.error("--rounds, --depth and --engines are at least 1")
    print("command: make bench-sim  (python bench/chip_sim.py)")
    load_before = load_average()
    print(f"load average before: {' '.join(map(str, load_before))} "
          f"({os.cpu_count()} cores)")
    params = chip_params(args.engines)
    board = Board(BY_NAME["initial"].fen)
    modes = {"bulk": True, "plain": False}
    with model_cache(cold=not args.warm):
        chips, compiles = [], []
        models = simulators(args.variants, args.threads)
        for label, build in models:
            start, cpu = time.perf_counter(), cpu_seconds()
            library = build(params)
            compiles.append(None if args.warm else
                            (time.perf_counter() - start, cpu_seconds() - cpu))
            chips.append(ChipModel(args.engines, library=library, verbose=False))
            print(f"  {label}: " + ("cached" if args.warm else
                                    "first compile {:.1f} s ({:.1f} s of CPU)".format(
                                        *compiles[-1])), flush=True)
        labels = [label for label, _ in models]
        rates = {(i, mode): [] for i in range(len(chips)) for mode in modes}
        clocks = {}
        for r in range(args.rounds):
            for mode, bulk in modes.items():
                order = list(range(len(chips)))
                order = order[r % len(order):] + order[:r % len(order)]  # each round another
                for i in order:
                    start = time.perf_counter()
                    count = chips[i].perft(board, args.depth, bulk)
                    seconds = time.perf_counter() - start
                    seen = clocks.setdefault(mode, (count.leaves, count.clocks))
                    if (count.leaves, count.clocks) != seen:
                        print(f"error: {labels[i]} counted {count.leaves} leaves in "
                              f"{count.clocks} clocks, {labels[0]} {seen[0]} in {seen[1]}",
                              file=sys.stderr)
                        return 1
                    rates[i, mode].append(count.clocks / seconds)
        for chip in chips:
            chip.close()
    load_after = load_average()
    median = {key: statistics.median(v) for key, v in rates.items()}
    print(f"perft({args.depth}) of the initial position, {args.engines} engine(s): "
          + ", ".join(f"{mode} {clocks[mode][1]:,} clocks" for mode in modes)
          + f"; median of {args.rounds} rounds")
    print(f"{'simulator':40} {'compile (CPU)':>15} {'bulk clocks/s':>14} "
          f"{'plain clocks/s':>15} {'x cxxrtl':>12}")
    rows = []
    for i, label in enumerate(labels):
        ratio = {mode: median[i, mode] / median[0, mode] for mode in modes}
        took = compiles[i]
        print(f"{label:40} {'-' if took is None else '{:.1f} s ({:.1f})'.format(*took):>15} "
              f"{median[i, 'bulk']:>14,.0f} {median[i, 'plain']:>15,.0f} "
              f"{ratio['bulk']:>5.2f} {ratio['plain']:>5.2f}")
        rows.append({"label": label,
                     "compile_seconds": None if took is None else round(took[0], 1),
                     "compile_cpu_seconds": None if took is None else round(took[1], 1),
                     **{f"{mode}_clocks_per_s": round(median[i, mode]) for mode in modes},
                     **{f"{mode}_x_cxxrtl": round(ratio[mode], 2) for mode in modes}})
    print(f"load average after: {' '.join(map(str, load_after))}")
    write_json(args.json, {
        "depth": args.depth, "engines": args.engines, "rounds": args.rounds,
        "clocks": {mode: clocks[mode][1] for mode in modes},
        "load_before": load_before, "load_after": load_after, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
