"""The search thread alone on an ECP5: its resources and the clock it routes at, out of context
(no pins, no board around it), beside the newest ULX3S-25F perft-chip build's Fmax.

    .venv/bin/python bench/search_area.py [--device 25k|85k] [--seed N | --seeds N,M,...]
                                          [--freq MHZ] [--keep DIR]

Yosys `synth_ecp5 -abc9`, then `nextpnr-ecp5 --out-of-context` (the YoWASP tools the synthesis
flow uses). Prints the cells nextpnr placed against the device's, the routed Fmax and the critical
path (the registers it runs between, its logic stages, carry chains and multipliers), and the
projected nodes/s per thread at that Fmax for --clocks-per-node (bench/search_chip.py's figure).
With --seeds, one synthesis and a place and route per seed: each seed's Fmax and their median.
A few minutes a seed.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from amaranth.back import rtlil

from posdata.hdl.boards.synth_targets import tool
from posdata.hdl.search.search_thread import SearchThread
from posdata.sim.cli.clock import Gateware, clock_for

CELLS = ("TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW", "DP16KD", "MULT18X18D")


def describe_path(path: list) -> str:
    """The critical path: the registers it runs between (as Yosys named their nets), its logic
    levels, carry cells and multipliers, its delay."""
    def register(cell: str) -> str:
        return cell.split("_TRELLIS_FF")[0]
    cells = [seg.get("to", {}).get("cell", "") for seg in path if seg["type"] == "logic"]
    carries = len({c.split("$")[0] for c in cells if "CCU2C" in c})
    mults = len({c.split("_MULT18X18D")[0] for c in cells if "MULT18X18D" in c})
    delay = sum(seg["delay"] for seg in path)
    return (f"{register(path[0]['from']['cell'])} -> {register(path[-1]['to']['cell'])}: "
            f"{len(cells)} logic stages ({carries} carry cells, {mults} multipliers), "
            f"{delay:.1f} ns")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", choices=("25k", "85k"), default="25k")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seeds", default=None,
                   help="comma-separated seeds: place and route each, report the median Fmax")
    p.add_argument("--freq", type=float, default=100.0, help="nextpnr's target (MHz)")
    p.add_argument("--clocks-per-node", type=float, default=None,
                   help="for the projection (bench/search_chip.py's whole-tree figure)")
    p.add_argument("--keep", default=None, help="keep the build's files in DIR")
    args = p.parse_args(argv)
    try:
        seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else [args.seed]
    except ValueError:
        p.error(f"--seeds: comma-separated integers, not {args.seeds!r}")
    work = args.keep or tempfile.mkdtemp(prefix="posdata-search-area-")
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "search.il"), "w") as f:
        f.write(rtlil.convert(SearchThread(), name="top"))
    print(f"yosys: synth_ecp5 (in {work}) ...", flush=True)
    subprocess.run([tool("YOSYS"), "-q", "-p",
                    "read_rtlil search.il; synth_ecp5 -top top -abc9 -json search.json"],
                   cwd=work, check=True)
    fmaxes = []
    for seed in seeds:
        report = place_and_route(work, args.device, args.freq, seed)
        fmaxes.append(min(c["achieved"] for c in report["fmax"].values()))
        if len(seeds) > 1:
            print(f"seed {seed:<9} {fmaxes[-1]:.2f} MHz", flush=True)
    used = report["utilization"]
    for cell in CELLS:
        if cell in used:
            u = used[cell]
            print(f"{cell:<14} {u['used']:>6} / {u['available']:<6} "
                  f"{100 * u['used'] / u['available']:5.1f} %")
    fmax = statistics.median(fmaxes)
    chip = clock_for(Gateware("chip"), board="ulx3s-25f")
    beside = (f"; the ULX3S-25F perft chip's: {chip.mhz:.2f} MHz ({fmax / chip.mhz:.2f}x)"
              if chip else "")
    what = f"median of {len(seeds)} seeds, " if len(seeds) > 1 else ""
    print(f"Fmax           {fmax:.2f} MHz ({what}target {args.freq:g}){beside}")
    if args.clocks_per_node:
        print(f"projected      {fmax / args.clocks_per_node:.2f} M nodes/s per thread at "
              f"{args.clocks_per_node} clocks per node")
    for path in report.get("critical_paths", [])[:1]:
        print(f"critical path  {describe_path(path['path'])}" + (
            f" (seed {seeds[-1]})" if len(seeds) > 1 else ""))
    return 0


def place_and_route(work: str, device: str, freq: float, seed: int) -> dict:
    """nextpnr on the synthesised thread: its report (utilisation, Fmax, critical path)."""
    print(f"nextpnr-ecp5 --{device} --out-of-context, seed {seed} ...", flush=True)
    subprocess.run([tool("NEXTPNR_ECP5"), f"--{device}", "--package", "CABGA381",
                    "--json", "search.json", "--out-of-context", "--freq", str(freq),
                    "--report", "report.json", "--timing-allow-fail", "--seed", str(seed),
                    "--quiet"], cwd=work, check=True)
    with open(os.path.join(work, "report.json")) as f:
        return json.load(f)


if __name__ == "__main__":
    sys.exit(main())
