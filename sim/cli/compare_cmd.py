"""posdata compare: hardware against software perft of the standard positions (a variant's
sample positions with --variant), as one table."""

from posdata.engine.rules.positions import STANDARD_POSITIONS, PerftPosition
from posdata.engine.rules.variants import CHESS

from .clock import Gateware, clock_for
from .common import (
    DEFAULT_DEPTH,
    CliError,
    add_count_args,
    add_json_arg,
    add_mhz_arg,
    add_variant_arg,
    count_mode,
    int_in_range,
    print_json,
    require_gateware,
)
from .compare_random import add_random_args, run_random
from .compare_table import compare_table
from .target_args import add_scheduler_arg, add_target_args, target_from_args


def register(sub) -> None:
    p = sub.add_parser(
        "compare", help="hardware vs software perft of the six standard positions",
        description="Count perft of the six standard positions in software and in hardware and "
                    "print one table: software and hardware node counts, the published count, "
                    "whether they all match, the hardware's clocks and time. hw (default): the "
                    "perft chip counts by itself (perft --backend both). gen: the move generator "
                    "in the loop, held to the reference at every node (perft --backend gen "
                    "--check). --variant NAME: the variant's sample positions "
                    "(sim.runs.variant_positions) instead, on the variant's gateware.")
    p.add_argument("--depth", type=int_in_range(1, 8, "--depth"), default=DEFAULT_DEPTH,
                   help=f"perft depth for every position (default: {DEFAULT_DEPTH})")
    p.add_argument("--backend", choices=("hw", "gen"), default="hw",
                   help="hw: the perft chip (default); gen: the generator in the loop")
    add_count_args(p)
    add_target_args(p, chip=True)
    p.add_argument("-j", "--jobs", type=int_in_range(1, 256, "--jobs"), default=1,
                   help="local Dask workers (default: 1, in this process; workers take seconds "
                        "to start: worth it for counts of more than a few seconds)")
    add_scheduler_arg(p)
    add_random_args(p)
    add_variant_arg(p)
    add_mhz_arg(p, "clock for the hardware time, MHz (default: Fmax of the newest synthesis "
                   "report of a build that holds what ran: the perft chip for hw, the "
                   "generator for gen)")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    count_mode(args)
    ran = Gateware("chip" if args.backend == "hw" else "generator", args.variant.name)
    clock = clock_for(ran, args.mhz)
    # -j 1 unless asked: Dask's start-up costs more than a small count (issue 30: 7.2 s
    # against 0.63 s for --backend gen --depth 2)
    jobs = args.jobs
    target = target_from_args(args, jobs, chip=args.backend == "hw")
    variant = args.variant
    if variant is not CHESS and args.random is not None:  # the campaign's games are chess
        raise CliError(f"--random plays orthodox chess; not with --variant {variant.name}")
    require_gateware(args, target.name, chip=args.backend == "hw")
    if args.random is not None:
        return run_random(args, target, jobs)
    if args.seed is not None:
        raise CliError("--seed goes with --random N")
    if args.scheduler:
        raise CliError("--scheduler goes with --random N (a campaign's positions)")
    positions = STANDARD_POSITIONS if variant is CHESS else variant_positions(variant.name)
    rows = compare_table({p.name: args.depth for p in positions}, target, jobs,
                         clock, quiet=args.quiet, echo=not args.json, backend=args.backend,
                         bulk=args.bulk, positions=positions, variant=variant.name,
                         no_clock=ran.no_clock())
    if args.json:
        print_json({"depth": args.depth, "backend": args.backend, "sim": str(target),
                    "variant": variant.name, "mode": "bulk" if args.bulk else "plain",
                    "mhz": clock.mhz if clock else None,
                    "clock": clock.as_dict() if clock else None,
                    **({} if clock else {"no_clock": ran.no_clock()}), "positions": rows})
    return 0 if all(r["match"] for r in rows) else 1


def variant_positions(name: str) -> tuple[PerftPosition, ...]:
    """A variant's sample positions, named ``start`` (the first: the variant's start position,
    or Chess960's number 0) and ``sample1``...; no published counts."""
    from posdata.sim.runs.variant_positions import sample_positions
    return tuple(PerftPosition("start" if i == 0 else f"sample{i}", fen, ())
                 for i, fen in enumerate(sample_positions(name)))
