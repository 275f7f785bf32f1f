"""``posdata perft --epd FILE [--max-depth D]``: a perft suite, every count checked, as a table;
exit status 1 on any mismatch."""

import argparse

from .common import CliError, Progress, int_in_range, print_json
from .target_args import target_from_args

#: a suite is a few hundred lines; more than this is not one (and /dev/zero never ends)
MAX_SUITE_BYTES = 16 * 2**20


def add_suite_args(p: argparse.ArgumentParser, max_depth: int) -> None:
    p.add_argument("--epd", metavar="FILE", default=None,
                   help="run the perft suite in FILE (one position a line: FEN ;D1 20 ;D2 400 "
                        "...): every count checked (the file names the depths), a summary "
                        "table, exit status 1 on any mismatch; with --backend sw or gen")
    p.add_argument("--max-depth", type=int_in_range(1, max_depth, "--max-depth"), default=None,
                   metavar="D", help="with --epd: skip the counts deeper than D (default: all)")


def run_suite_cmd(args) -> int:
    from posdata.sim.runs.perft_suite import SuiteError, parse_suite, run_suite

    if args.backend not in ("sw", "gen"):
        raise CliError("--epd goes with --backend sw or gen")
    if args.fen or args.moves or args.divide:
        raise CliError("--epd takes its positions from the file: no --fen, --moves or --divide")
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
                              "--backend gen" if args.backend == "sw" else None)
    progress = Progress(args.quiet)
    try:
        entries = parse_suite(text, variant, deeper=args.max_depth is not None)
        report = run_suite(entries, args.backend, target, args.max_depth, args.jobs,
                           args.scheduler, args.bulk, args.check, variant, progress)
    except SuiteError as e:
        raise CliError(f"{args.epd}: {e}") from None
    except (RuntimeError, OSError) as e:  # a missing toolchain, an unreachable cluster
        raise CliError(str(e)) from None
    finally:
        progress.done()
    failures = report.failures
    nodes = sum(c.nodes for c in report.counts)
    if args.json:
        print_json({"epd": args.epd, "backend": args.backend, "bulk": args.bulk,
                    "max_depth": args.max_depth, "skipped": report.skipped,
                    "nodes": nodes, "seconds": round(report.seconds, 6),
                    "mismatches": len(failures),
                    "counts": [{"line": c.line, "fen": c.fen, "depth": c.depth,
                                "expected": c.expected, "nodes": c.nodes, "match": c.match,
                                "mismatch": c.mismatch} for c in report.counts]})
        return 1 if failures else 0

    print(f"{'line':>5} {'depth':>5} {'expected':>14} {'counted':>14} {'match':>5}  fen")
    last = None
    for c in report.counts:
        fen = c.fen if c.line != last else ""
        last = c.line
        print(f"{c.line:>5} {c.depth:>5} {c.expected:>14,} {c.nodes:>14,} "
              f"{'yes' if c.match else 'NO':>5}  {fen}")
    positions = len({c.line for c in report.counts})
    nps = nodes / report.seconds if report.seconds > 0 else 0.0
    skipped = f", {report.skipped} deeper than --max-depth skipped" if report.skipped else ""
    print(f"suite    {args.epd}: {positions} positions, {len(report.counts)} counts"
          f"{skipped}, {nodes:,} nodes in {report.seconds:.2f} s ({nps:,.0f} nodes/s), "
          f"backend {args.backend}" + (f" on {target}" if args.backend == "gen" else ""))
    for c in failures:
        why = f" ({c.mismatch})" if c.mismatch else ""
        print(f"MISMATCH line {c.line} D{c.depth}: expected {c.expected}, counted {c.nodes}"
              f"{why}: {c.fen}")
    if not failures:
        print("match    yes: every count is the suite's")
    return 1 if failures else 0
