"""posdata compare: hardware vs software perft of the standard positions, as one table."""

import os

from posdata.engine.board import Board
from posdata.engine.positions import STANDARD_POSITIONS

from .common import CliError, Progress, add_json_arg, clock_mhz, int_in_range, print_json


def register(sub) -> None:
    p = sub.add_parser(
        "compare", help="hardware vs software perft of the six standard positions",
        description="Run perft with the gateware held to the reference generator at every node "
                    "(perft --backend both) on the six standard positions, and print one table: "
                    "software and hardware node counts, the published count, whether they all "
                    "match, the gateware's cycles and the projected hardware time.")
    p.add_argument("--depth", type=int_in_range(1, 8, "--depth"), default=3,
                   help="perft depth for every position (default: 3)")
    p.add_argument("--sim", choices=("cxxrtl", "pysim"), default="cxxrtl",
                   help="gateware simulator (default: cxxrtl)")
    p.add_argument("-j", "--jobs", type=int_in_range(1, 256, "--jobs"),
                   default=os.cpu_count() or 1, help="worker processes (default: cores)")
    p.add_argument("--mhz", type=float, default=None,
                   help="clock for the projected hardware time (default: latest synthesis Fmax)")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    mhz = clock_mhz(args.mhz)
    rows = compare_table({p.name: args.depth for p in STANDARD_POSITIONS}, args.sim, args.jobs,
                         mhz, quiet=args.quiet, echo=not args.json)
    if args.json:
        print_json({"depth": args.depth, "sim": args.sim, "mhz": mhz, "positions": rows})
    return 0 if all(r["match"] for r in rows) else 1


def compare_table(depths: dict, sim: str, jobs: int, mhz: float | None, quiet=False,
                  echo=True) -> list[dict]:
    """Run the comparison for each named standard position at its depth; print the table as
    it fills when ``echo``. Returns one dict per position."""
    from posdata.sim.hwperft import run_perft

    header = (f"{'position':<10} {'depth':>5} {'sw nodes':>10} {'hw nodes':>10} "
              f"{'published':>10} {'match':>5} {'hw cycles':>11} {'cyc/move':>8} "
              f"{'hw time':>10} {'host s':>7}")
    if echo:
        print(header)
    rows = []
    for pos in STANDARD_POSITIONS:
        if pos.name not in depths:
            continue
        depth = depths[pos.name]
        progress = Progress(quiet)
        try:
            report = run_perft(Board(pos.fen), depth, "both", sim, jobs, progress)
        except RuntimeError as e:
            raise CliError(str(e)) from None
        finally:
            progress.done()
        published = pos.counts[depth - 1] if depth <= len(pos.counts) else None
        match = bool(report.match) and (published is None or report.nodes == published)
        hw_time = report.cycles / (mhz * 1e6) if mhz else None
        row = {"position": pos.name, "depth": depth, "sw_nodes": report.sw_nodes,
               "hw_nodes": report.nodes, "published": published, "match": match,
               "hw_cycles": report.cycles, "generator_calls": report.calls,
               "cycles_per_move": round(report.cycles / max(1, report.moves), 3),
               "projected_hw_seconds": hw_time, "host_seconds": round(report.seconds, 3),
               "mismatch": report.mismatch}
        rows.append(row)
        if echo:
            shown = f"{hw_time * 1e3:.3f} ms" if hw_time is not None else "n/a"
            print(f"{pos.name:<10} {depth:>5} {report.sw_nodes:>10} {report.nodes:>10} "
                  f"{published if published is not None else '-':>10} "
                  f"{'yes' if match else 'NO':>5} {report.cycles:>11} "
                  f"{row['cycles_per_move']:>8.3f} {shown:>10} {report.seconds:>7.2f}",
                  flush=True)
            if report.mismatch:
                print(f"  MISMATCH {report.mismatch}")
    if echo:
        clock = f"{mhz:g} MHz (latest synthesis Fmax or --mhz)" if mhz else \
            "no clock known: run `posdata synth` or pass --mhz"
        print(f"hw time: the gateware's cycles alone at {clock}")
    return rows
