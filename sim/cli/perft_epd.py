"""``posdata perft --epd FILE [--max-depth D]``: a perft suite, every count checked, as a table;
exit status 1 on any mismatch."""

import argparse

from .common import CliError, Progress, int_in_range, print_json, require_gateware
from .target_args import target_from_args

#: a suite is a few hundred lines; more than this is not one (and /dev/zero never ends)
MAX_SUITE_BYTES = 16 * 2**20


def add_suite_args(p: argparse.ArgumentParser, max_depth: int) -> None:
    p.add_argument("--epd", metavar="FILE", default=None,
                   help="run the perft suite in FILE (one position a line: FEN ;D1 20 ;D2 400 "
                        "...): every count checked (the file names the depths), a summary "
                        "table, exit status 1 on any mismatch; with --backend sw, gen, hw (the "
                        "perft chip) or both (the chip against the suite and the software)")
    p.add_argument("--max-depth", type=int_in_range(1, max_depth, "--max-depth"), default=None,
                   metavar="D", help="with --epd: skip the counts deeper than D (default: all)")


def run_suite_cmd(args) -> int:
    from posdata.sim.runs.perft_suite import SuiteError, parse_suite, run_suite

    chip = args.backend in ("hw", "both")
    if args.fen or args.moves or args.divide:
        raise CliError("--epd takes its positions from the file: no --fen, --moves or --divide")
    if args.check and args.backend != "gen":
        raise CliError("--check goes with --backend gen (both already compares)")
    if args.engines > 1 and not chip:
        raise CliError("--engines goes with --backend hw or both (the perft chip)")
    if args.engines > 1 and args.jobs > 1:
        raise CliError("--engines N is one chip model, in this process: -j 1 (or --engines 1 "
                       "with -j N, N chip models)")
    if chip and args.scheduler:
        raise CliError("--scheduler goes with --backend sw or gen")
    try:
        with open(args.epd, "rb") as f:
            data = f.read(MAX_SUITE_BYTES + 1)
    except OSError as e:
        raise CliError(f"cannot read {args.epd}: {e.strerror or e}") from None
    if len(data) > MAX_SUITE_BYTES:
        raise CliError(f"{args.epd}: larger than {MAX_SUITE_BYTES // 2**20} MiB: not a perft "
                       "suite")
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark from a Windows editor is fine
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise CliError(f"{args.epd}: line {line}: not UTF-8 text ({e.reason})") from None
    variant = args.variant.name
    target = target_from_args(args, args.jobs,
                              "--backend gen, hw or both" if args.backend == "sw" else None,
                              chip=chip)
    if args.backend != "sw":
        require_gateware(args, target.name, chip)
    progress = Progress(args.quiet)
    try:
        entries = parse_suite(text, variant, deeper=args.max_depth is not None)
        report = run_suite(entries, args.backend, target, args.max_depth, args.jobs,
                           args.scheduler, args.bulk, args.check, variant, progress,
                           engines=args.engines)
    except SuiteError as e:
        raise CliError(f"{args.epd}: {e}") from None
    except (RuntimeError, OSError, ValueError) as e:  # a missing toolchain, an unreachable
        raise CliError(str(e)) from None  # cluster, a stuck simulation
    finally:
        progress.done()
    failures = report.failures
    nodes = sum(c.nodes for c in report.counts)
    clocks = sum(c.clocks for c in report.counts)
    if args.json:
        out = {"epd": args.epd, "backend": args.backend, "bulk": args.bulk,
               "max_depth": args.max_depth, "skipped": report.skipped,
               "nodes": nodes, "seconds": round(report.seconds, 6),
               "mismatches": len(failures)}
        if chip:
            out.update({"sim": target.name, "jobs": args.jobs, "hw_cycles": clocks})
        out["counts"] = [count_json(c, chip) for c in report.counts]
        print_json(out)
        return 1 if failures else 0

    sw = args.backend == "both"
    print(f"{'line':>5} {'depth':>5} {'expected':>14} {'counted':>14} "
          + (f"{'sw':>14} " if sw else "") + (f"{'clocks':>14} " if chip else "")
          + f"{'match':>5}  fen")
    last = None
    for c in report.counts:
        fen = c.fen if c.line != last else ""
        last = c.line
        print(f"{c.line:>5} {c.depth:>5} {c.expected:>14,} {c.nodes:>14,} "
              + (f"{c.sw_nodes:>14,} " if sw else "") + (f"{c.clocks:>14,} " if chip else "")
              + f"{'yes' if c.match else 'NO':>5}  {fen}")
    positions = len({c.line for c in report.counts})
    nps = nodes / report.seconds if report.seconds > 0 else 0.0
    skipped = f", {report.skipped} deeper than --max-depth skipped" if report.skipped else ""
    on = f" on {target}" if args.backend != "sw" else ""
    print(f"suite    {args.epd}: {positions} positions, {len(report.counts)} counts"
          f"{skipped}, {nodes:,} nodes in {report.seconds:.2f} s ({nps:,.0f} nodes/s), "
          f"backend {args.backend}{on}")
    if chip:
        print(f"clocks   {clocks:,} on the chip" + (f", over {args.jobs} chip models"
                                                     if args.jobs > 1 else ""))
    for c in failures:
        what = f"expected {c.expected}, counted {c.nodes}"
        if c.sw_nodes is not None:
            what += f", software {c.sw_nodes}"
        why = f" ({c.mismatch})" if c.mismatch else ""
        print(f"MISMATCH line {c.line} D{c.depth}: {what}{why}: {c.fen}")
    if not failures:
        print("match    yes: every count is the suite's"
              + (" and the software's" if sw else ""))
    return 1 if failures else 0


def count_json(c, chip: bool) -> dict:
    out = {"line": c.line, "fen": c.fen, "depth": c.depth, "expected": c.expected,
           "nodes": c.nodes, "match": c.match, "mismatch": c.mismatch}
    if chip:
        out["hw_cycles"] = c.clocks
        if c.sw_nodes is not None:
            out["sw_nodes"] = c.sw_nodes
    return out
