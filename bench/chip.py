"""make bench-chip: the perft chip against software perft and Stockfish, in one run.

For perft(5) of the initial position and perft(4) of the other five standard positions: the
chip's clocks per leaf, plain and bulk, measured on its compiled model (the gateware's own clock
counter), with where each thread's clocks went; leaves per second at the synthesised Fmax
(latest `posdata synth` report, or --mhz); our software perft's nodes/s; and, when a `stockfish`
binary is on PATH, Stockfish's `go perft` nodes/s (bulk counting, one thread, one persistent
process) on the same positions, at depth >= 6 where it would finish in milliseconds otherwise.

Then the many-engine chip of the ULX3S-85F: bulk perft(6) of the initial position shared by
all its engines on the compiled model, the makespan's clocks per leaf and idle share, the
aggregate leaves/s projected at the 85F build's routed Fmax (build/synth/ulx3s-85f, or
--mhz-85f), against Stockfish's perft(6) measured above; and the posdata ROMs' DP16KD per
engine in each layout (Yosys's synth_ecp5 on the two ROMs alone).

``--many-only`` runs the many-engine section alone (what `make measurements-long` needs).

Every simulator of the chip counts the same clocks: the fastest runs them. The one-engine table
on the chip's default (Verilator where installed: faster than CXXRTL); the many-engine count on
Verilator too, where installed: its first compile of eight engines takes several times CXXRTL's
CPU, but the count runs for minutes at several times CXXRTL's clocks/s (docs/measurements.md).
``--target`` chooses.

``--positions NAME ...`` counts a subset of the six standard positions.

Last, `posdata perft --backend hw` of perft(5) as a user runs it, wall time with -j 1 and -j 2
(bench/chip_wall.py; ``--wall-only`` that alone).

Usage: .venv/bin/python bench/chip.py [--mhz F] [--mhz-85f F] [--engines N] [--quick]
                                      [--positions NAME ...] [--many-only]
                                      [--wall-only] [--target cxxrtl|verilator] [--json FILE]
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

from chip_wall import wall_times
from posdata.engine.rules.board import Board
from posdata.engine.rules.perft import perft
from posdata.engine.rules.positions import BY_NAME, STANDARD_POSITIONS
from posdata.hdl.common.contract import PHASE_NAMES
from posdata.sim.cli.clock import Gateware, clock_for
from posdata.sim.drivers.targets import chip_default, make_chip
from posdata.sim.runs.chip_projection import project

from results import add_json_option, write_json

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
    parser.add_argument("--mhz-85f", type=float, default=None,
                        help="clock of the 85F chip (default: its latest synthesis Fmax)")
    parser.add_argument("--engines", type=int, default=None,
                        help="engines of the 85F chip (default: the 85F build's; 0 skips that "
                             "section, whose compiled model takes minutes to build)")
    parser.add_argument("--positions", nargs="+", metavar="NAME",
                        choices=[p.name for p in STANDARD_POSITIONS],
                        help="a subset of the standard positions (default: all six)")
    parser.add_argument("--many-only", action="store_true",
                        help="the many-engine chip alone (no one-engine table, no ROM blocks)")
    parser.add_argument("--target", choices=("cxxrtl", "verilator"), default=None,
                        help="the chip's simulator (default: verilator where installed, else "
                             "cxxrtl: the same clocks)")
    parser.add_argument("--wall-only", action="store_true",
                        help="only the wall time of `posdata perft --backend hw` (-j 1, -j 2)")
    add_json_option(parser)
    args = parser.parse_args()
    args.target = args.target or chip_default()
    if args.wall_only:
        wall = wall_times(args.target, 5 - args.quick)
        write_json(args.json, {"wall": wall, "ok": wall["ok"]})
        return 0 if wall["ok"] else 1
    if args.many_only:
        if args.engines == 0:
            parser.error("--many-only needs the many-engine section: leave out --engines 0")
        many = many_engines(args, None)
        write_json(args.json, {"many_engines": many, "ok": many["ok"]})
        return 0 if many["ok"] else 1
    built = clock_for(Gateware("chip"), board="ulx3s-25f")
    mhz = args.mhz or (built.mhz if built else None)
    depths = {k: d - args.quick for k, d in DEPTHS.items()}
    print("command: make bench-chip  (python bench/chip.py"
          + (" --quick" if args.quick else "") + ")")
    print(f"clock: {mhz:g} MHz ({'--mhz' if args.mhz else 'latest ULX3S-25F perft chip build'})"
          if mhz else "clock: unknown (run `posdata synth` for the ULX3S-25F or pass --mhz): "
                      "leaves/s omitted")
    path = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
    fish = Stockfish(path) if path else None
    print(f"stockfish: {fish.version if fish else 'not on PATH: column skipped'}")

    begun = time.perf_counter()
    chip = make_chip(args.target)
    print(f"simulator: {args.target} (built or loaded in {time.perf_counter() - begun:.1f} s)")
    header = (f"{'position':<10} {'d':>2} {'leaves':>10} {'bulk clk/leaf':>13} "
              f"{'plain clk/leaf':>14} {'chip bulk Mleaves/s':>19} {'sw bulk Mnps':>12} "
              f"{'stockfish Mnps':>14}")
    print(header)
    totals = {"bulk": [0, 0], "plain": [0, 0]}
    phases = {"bulk": dict.fromkeys(PHASE_NAMES, 0), "plain": dict.fromkeys(PHASE_NAMES, 0)}
    ok = True
    fish_rates = {}
    rows = []
    positions = [p for p in STANDARD_POSITIONS if not args.positions or p.name in args.positions]
    for pos in positions:
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
            fish_rates[pos.name] = (max(STOCKFISH_MIN_DEPTH, depth), rate)
            fish_rate = f"{rate / 1e6:.1f}"
        print(f"{pos.name:<10} {depth:>2} {pos.counts[depth - 1]:>10} {per['bulk']:>13.3f} "
              f"{per['plain']:>14.3f} {chip_rate:>19} {sw:>12.3f} {fish_rate:>14}", flush=True)
        rows.append({"position": pos.name, "depth": depth, "leaves": pos.counts[depth - 1],
                     "bulk_clocks_per_leaf": round(per["bulk"], 4),
                     "plain_clocks_per_leaf": round(per["plain"], 4),
                     "chip_bulk_leaves_per_s": round(mhz * 1e6 / per["bulk"]) if mhz else None,
                     "sw_bulk_nps": round(sw * 1e6),
                     "stockfish": ({"depth": fish_rates[pos.name][0],
                                    "nps": round(fish_rates[pos.name][1])}
                                   if pos.name in fish_rates else None)})
    results = {"mhz": mhz, "mhz_from": "--mhz" if args.mhz else "latest ULX3S-25F build",
               "sim": args.target,
               "stockfish": fish.version if fish else None, "positions": rows}
    for mode in ("bulk", "plain"):
        clocks, leaves = totals[mode]
        thread_clocks = sum(phases[mode].values())
        split = ", ".join(f"{name} {100 * c / thread_clocks:.1f} %"
                          for name, c in phases[mode].items() if c)
        print(f"{mode}: {clocks / leaves:.3f} clocks per leaf over "
              f"{'all six' if len(positions) == 6 else ', '.join(p.name for p in positions)}; "
              f"thread clocks: {split}")
        results[mode] = {"clocks_per_leaf": round(clocks / leaves, 4),
                         "phases_percent": {name: round(100 * c / thread_clocks, 1)
                                            for name, c in phases[mode].items() if c}}
    if args.engines != 0:
        many = many_engines(args, fish_rates.get("initial"))
        ok &= many["ok"]
        results["many_engines"] = many
    results["rom_blocks"] = rom_blocks()
    results["wall"] = wall_times(args.target, 5 - args.quick)
    ok &= results["wall"]["ok"]
    if fish:
        fish.close()
    if not ok:
        print("MISMATCH: the chip's count is not the published one")
    results["ok"] = bool(ok)
    write_json(args.json, results)
    return 0 if ok else 1


def many_engines(args, fish) -> dict:
    """The 85F's chip: a shared count's makespan, projected at its routed Fmax."""
    import json

    from posdata.hdl.boards.synth_targets import default_engines
    from posdata.hdl.common.regular_files import read_regular
    from posdata.sim.cli.clock import REPORT_LIMIT
    engines = args.engines or default_engines("ulx3s-85f")
    ran = Gateware("chip", engines=engines)
    built = clock_for(ran, board="ulx3s-85f")
    mhz = args.mhz_85f or (built.mhz if built else None)
    report = json.loads(read_regular(built.report, REPORT_LIMIT)) if built else {}
    depth = 6 - args.quick
    print(f"\nULX3S-85F: {engines} engines, clock "
          + ("--mhz-85f " + f"{mhz:g} MHz" if args.mhz_85f else built.describe() if built else
             ran.no_clock() + " (--mhz-85f)"), flush=True)
    begun = time.perf_counter()
    chip = make_chip(args.target, engines)
    built = time.perf_counter() - begun
    begun = time.perf_counter()
    p = project(engines, mhz, "initial", depth, chip=chip, target=args.target,
                progress=lambda leaves, clocks: print(f"  ... {leaves:,} leaves, {clocks:,} "
                                                      "clocks", file=sys.stderr, flush=True))
    counted = time.perf_counter() - begun
    print(f"on {args.target}: model built or loaded in {built:.0f} s, counted in {counted:.0f} s "
          f"({p.makespan_clocks / counted:,.0f} clocks/s)")
    ok = p.leaves == BY_NAME["initial"].counts[depth - 1] and not p.overflow
    print(f"bulk perft({depth}) initial shared by {engines} engines ({2 * engines} threads, split "
          f"ply {p.split}): {p.leaves:,} leaves in a makespan of {p.makespan_clocks:,} clocks = "
          f"{p.clocks_per_leaf:.4f} clocks per leaf; threads idle {p.idle_percent:.1f} % of it")
    out = {"ok": ok, "engines": engines, "mhz": mhz, "depth": depth, "split": p.split,
           "sim": args.target, "build_seconds": round(built, 1),
           "count_seconds": round(counted, 1),
           "leaves": p.leaves, "makespan_clocks": p.makespan_clocks,
           "clocks_per_leaf": round(p.clocks_per_leaf, 4),
           "idle_percent": round(p.idle_percent, 1)}
    if mhz:
        rate = p.leaves_per_second
        line = f"projected aggregate at {mhz:g} MHz: {rate / 1e6:.1f} M leaves/s"
        out["leaves_per_s"] = round(rate)
        if fish and fish[0] == depth:
            line += f" = {rate / fish[1]:.2f}x Stockfish's perft({depth}) ({fish[1] / 1e6:.1f} M/s)"
            out["stockfish_nps"] = round(fish[1])
        blocks = report.get("utilization", {}).get("DP16KD (EBR)", {}).get("used")
        if blocks:
            line += f"; {rate / blocks / 1e6:.2f} M leaves/s per DP16KD ({blocks} used)"
        print(line)
    return out


def rom_blocks() -> dict:
    """DP16KD of one engine's posdata ROMs (walk and start entries) in each layout."""
    import json
    import subprocess
    import tempfile

    from amaranth.back import rtlil

    from posdata.hdl.boards.synth_targets import platform_for, tool
    from posdata.hdl.gen.rom import PosdataRom, StartRom
    out = {}
    for layout in ("dense", "sparse"):
        blocks = 0
        for rom in (PosdataRom(layout), StartRom(layout, split=True)):  # as an engine has them
            with tempfile.TemporaryDirectory() as tmp:
                with open(os.path.join(tmp, "rom.il"), "w") as f:
                    f.write(rtlil.convert(rom, name="rom", platform=platform_for("ulx3s-25f")))
                subprocess.run([tool("YOSYS"), "-q", "-p", "read_rtlil rom.il; synth_ecp5 -top "
                                "rom; tee -q -o stat.json stat -json"], cwd=tmp, check=True)
                with open(os.path.join(tmp, "stat.json")) as f:
                    blocks += json.load(f)["design"]["num_cells_by_type"].get("DP16KD", 0)
        print(f"posdata ROMs per engine, {layout} layout: {blocks} DP16KD")
        out[layout] = blocks
    return out


if __name__ == "__main__":
    sys.exit(main())
