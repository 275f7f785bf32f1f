"""The search thread alone on an ECP5: its resources and the clock it routes at, out of context
(no pins, no board around it), beside the newest ULX3S-25F perft-chip build's Fmax.

    .venv/bin/python bench/search_area.py [--device 25k|85k] [--seed N | --seeds N,M,...]
                                          [--freq MHZ] [--keep DIR] [--part PART,...]
                                          [--json FILE]

``--part`` builds parts of the pipelined thread instead, one after another (docs/chip_search.md,
"The pipelined thread"): the attack map, the victim scan, the aggressor unit or the capture
pipe they make, the evaluation's stages, or today's capture finder or child evaluation beside
them, with a register on each port, so that the paths into and out of it are timed as between
registers; its own cells come from a synthesis without them. A part is elaborated for the ECP5
(its block RAM and multipliers as the primitives with their registers:
hdl/search/ecp5_cells.py).

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

from amaranth import Elaboratable, Module, Signal, Value
from amaranth.back import rtlil
from amaranth.lib import wiring

from posdata.hdl.boards.synth_targets import tool
from posdata.hdl.search.aggressor_unit import AggressorUnit
from posdata.hdl.search.attack_map import AttackMap
from posdata.hdl.search.capture_pipe import CapturePipe
from posdata.hdl.search.child_eval import ChildEval
from posdata.hdl.search.eval_pipe import EvalPipe
from posdata.hdl.search.finder import CaptureFinder
from posdata.hdl.search.search_thread import SearchThread
from posdata.hdl.search.victim_scan import VictimScan
from posdata.sim.cli.clock import Gateware, clock_for

from results import add_json_option, write_json

CELLS = ("TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW", "DP16KD", "MULT18X18D")

#: --part: the parts of the pipelined thread built alone
PARTS = {"attack_map": AttackMap, "victim_scan": VictimScan, "aggressor_unit": AggressorUnit,
         "capture_pipe": CapturePipe, "capture_finder": CaptureFinder, "eval_pipe": EvalPipe,
         "child_eval": ChildEval}


class ECP5:
    """What a part reads of its platform: the family (hdl/search/ecp5_cells.py)."""
    family = "ecp5"


class PortRegisters(Elaboratable):
    """A component with a register on each of its ports' bits: what drives it and what reads
    it in the thread are registers too."""

    def __init__(self, component: wiring.Component):
        self.component = component
        self.pins = []   # (top-level signal, the component's port, port is an input)
        for path, member, port in component.signature.flatten(component):
            port = Value.cast(port)
            name = "_".join(str(p) for p in path)
            self.pins.append((Signal(len(port), name=name), port, member.flow == wiring.In))

    def elaborate(self, platform):
        m = Module()
        m.submodules.part = self.component
        for pin, port, inward in self.pins:
            m.d.sync += (port.eq(pin) if inward else pin.eq(port))
        return m

    def ports(self):
        return [pin for pin, _, _ in self.pins]


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
    p.add_argument("--part", default=None,
                   help="parts of the pipelined thread, comma-separated, each alone with its "
                        f"ports registered: {', '.join(sorted(PARTS))}")
    add_json_option(p)
    args = p.parse_args(argv)
    try:
        seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else [args.seed]
    except ValueError:
        p.error(f"--seeds: comma-separated integers, not {args.seeds!r}")
    parts = args.part.split(",") if args.part else [None]
    unknown = [part for part in parts if part is not None and part not in PARTS]
    if unknown:
        p.error(f"--part: no part named {', '.join(unknown)}: choose from "
                f"{', '.join(sorted(PARTS))}")
    work = args.keep or tempfile.mkdtemp(prefix="posdata-search-area-")
    rows = []
    for part in parts:
        if part:
            print(f"== {part}", flush=True)
        rows.append(build(os.path.join(work, part or "thread"), part, args, seeds))
    write_json(args.json, {"device": args.device, "seeds": seeds, "target_mhz": args.freq,
                           "parts": rows})
    return 0


def build(work: str, name: str | None, args, seeds: list[int]) -> dict:
    """Synthesise, place and route the thread (``name`` None) or one part with its ports
    registered; print and return its cells, Fmax and critical path."""
    os.makedirs(work, exist_ok=True)
    shell = PortRegisters(PARTS[name]()) if name else None
    with open(os.path.join(work, "search.il"), "w") as f:
        f.write(rtlil.convert(shell, name="top", ports=shell.ports(), platform=ECP5()) if shell
                else rtlil.convert(SearchThread(), name="top", platform=ECP5()))
    if shell:  # the part without its ports' registers, for its own cells
        part = PARTS[name]()
        ports = [Value.cast(v) for _, _, v in part.signature.flatten(part)]
        with open(os.path.join(work, "part.il"), "w") as f:  # (an always-ready's ready is 1)
            f.write(rtlil.convert(part, name="top", platform=ECP5(),
                                  ports=[p for p in ports if isinstance(p, Signal)]))
        subprocess.run([tool("YOSYS"), "-q", "-p", "read_rtlil part.il; synth_ecp5 -top top "
                        "-abc9; tee -q -o part_stat.txt stat"], cwd=work, check=True)
    print(f"yosys: synth_ecp5 (in {work}) ...", flush=True)
    subprocess.run([tool("YOSYS"), "-q", "-p",
                    "read_rtlil search.il; synth_ecp5 -top top -abc9 -json search.json; "
                    "tee -q -o stat.txt stat"],
                   cwd=work, check=True)
    fmaxes = []
    for seed in seeds:
        report = place_and_route(work, args.device, args.freq, seed)
        fmaxes.append(min(c["achieved"] for c in report["fmax"].values()))
        if len(seeds) > 1:
            print(f"seed {seed:<9} {fmaxes[-1]:.2f} MHz", flush=True)
    used = report["utilization"]
    row = {"part": name or "thread", "fmax_mhz": round(statistics.median(fmaxes), 2),
           "lut4": cells(work, "stat.txt", "LUT4"),
           **{cell.lower(): used[cell]["used"] for cell in CELLS if cell in used}}
    for cell in CELLS:
        if cell in used:
            u = used[cell]
            print(f"{cell:<14} {u['used']:>6} / {u['available']:<6} "
                  f"{100 * u['used'] / u['available']:5.1f} %")
    print(f"{'LUT4':<14} {row['lut4']:>6} (Yosys; besides PFUMX and L6MUX)")
    if shell:
        row["alone_lut4"] = cells(work, "part_stat.txt", "LUT4")
        row["alone_ff"] = cells(work, "part_stat.txt", "TRELLIS_FF")
        print(f"the part alone, its ports not registered (Yosys): {row['alone_lut4']} LUT4, "
              f"{row['alone_ff']} TRELLIS_FF")
    fmax = row["fmax_mhz"]
    chip = clock_for(Gateware("chip"), board="ulx3s-25f")
    beside = (f"; the ULX3S-25F perft chip's: {chip.mhz:.2f} MHz ({fmax / chip.mhz:.2f}x)"
              if chip else "")
    what = f"median of {len(seeds)} seeds, " if len(seeds) > 1 else ""
    print(f"Fmax           {fmax:.2f} MHz ({what}target {args.freq:g}){beside}")
    if args.clocks_per_node:
        print(f"projected      {fmax / args.clocks_per_node:.2f} M nodes/s per thread at "
              f"{args.clocks_per_node} clocks per node")
    for path in report.get("critical_paths", [])[:1]:
        row["critical_path"] = describe_path(path["path"])
        print(f"critical path  {row['critical_path']}" + (
            f" (seed {seeds[-1]})" if len(seeds) > 1 else ""))
    return row


def cells(work: str, stat: str, cell: str) -> int:
    """Yosys' count of ``cell`` in a synthesised netlist's statistics."""
    with open(os.path.join(work, stat)) as f:
        counts = [line.split() for line in f if line.split()[-1:] == [cell]]
    return int(counts[-1][0]) if counts else 0


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
