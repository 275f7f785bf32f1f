"""posdata perft: count the legal move tree in software, with the simulated move generator in the
loop, or on the simulated perft chip, which counts by itself."""

from posdata.hdl.common.contract import MAX_DEPTH

from .clock import Gateware, clock_for
from .common import (
    DEFAULT_DEPTH,
    CliError,
    Progress,
    add_count_args,
    add_json_arg,
    add_mhz_arg,
    add_position_args,
    add_variant_arg,
    count_mode,
    int_in_range,
    load_board,
    print_json,
    raised_class,
    require_gateware,
)
from .perft_epd import add_suite_args, run_suite_cmd
from .target_args import add_scheduler_arg, add_target_args, target_from_args

BACKENDS = ("sw", "gen", "hw", "both")


def register(sub) -> None:
    p = sub.add_parser(
        "perft", help="count the nodes of the legal move tree (perft), in software or hardware",
        description="Count the leaf nodes of the legal move tree to a fixed depth. sw: the "
                    "reference posdata walk in Python. hw: the perft chip counts the whole tree "
                    "by itself (generation, legality, make/unmake, counting in gateware); the "
                    "host loads the root and reads the result. gen: the move generator in the "
                    "loop, legality and make/unmake on the host (--check: the reference "
                    "generator beside it at every node). both: the software count against the "
                    "chip's; on a difference, the first position whose legal moves differ.")
    add_position_args(p)
    add_variant_arg(p)
    p.add_argument("--depth", type=int_in_range(0, MAX_DEPTH, "--depth"), default=None,
                   help=f"plies to search (default: {DEFAULT_DEPTH}; not with --epd)")
    p.add_argument("--backend", choices=BACKENDS, default="sw",
                   help="sw (reference, default), hw (the chip), gen (generator in the loop), "
                        "both (sw against hw)")
    add_count_args(p)
    p.add_argument("--check", action="store_true",
                   help="with --backend gen: hold the generator to the reference at every node")
    add_target_args(p, chip=True)
    p.add_argument("-j", "--jobs", type=int_in_range(1, 256, "--jobs"), default=1,
                   help="local Dask workers sharing the nodes of a ply below the root (default: "
                        "1, in this process; workers take a few seconds to start: worth it for "
                        "counts of more than a few seconds); hw/both: N chip models sharing "
                        "the nodes of the chip's split ply, their clocks summed")
    add_scheduler_arg(p)
    p.add_argument("--engines", type=int_in_range(1, 64, "--engines"), default=1,
                   help="hw/both: perft engines on the simulated chip, sharing the count "
                        "(default: 1); on a mismatch each engine also counts alone, naming a "
                        "faulty one")
    add_mhz_arg(p, "clock for the hardware time, MHz (default: Fmax of the newest synthesis "
                   "report under build/ of a build that holds what ran: the perft chip with as "
                   "many engines for hw and both, the generator for gen, of the variant's ROM "
                   "geometry)")
    p.add_argument("--divide", action="store_true",
                   help="also print the count below each legal root move")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    add_suite_args(p, MAX_DEPTH)
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    count_mode(args)
    if args.mhz is not None and args.backend == "sw":
        raise CliError("--mhz goes with --backend gen, hw or both (a hardware time)")
    if args.epd:
        if args.depth is not None:
            raise CliError("--depth goes without --epd (the suite names its depths; "
                           "--max-depth D skips the deeper ones)")
        return run_suite_cmd(args)
    if args.depth is None:
        args.depth = DEFAULT_DEPTH
    if args.max_depth is not None:
        raise CliError("--max-depth goes with --epd (a suite's counts)")
    if args.engines > 1 and args.backend not in ("hw", "both"):
        raise CliError("--engines goes with --backend hw or both (the perft chip)")
    if args.engines > 1 and args.jobs > 1:
        raise CliError("--engines N is one chip model, in this process: -j 1 (or --engines 1 "
                       "with -j N, N chip models)")
    if args.check and args.backend != "gen":
        raise CliError("--check goes with --backend gen (both already compares)")
    board = load_board(args)
    ran = Gateware("chip" if args.backend in ("hw", "both") else "generator",
                   args.variant.name, engines=args.engines)
    clock = clock_for(ran, args.mhz)
    mhz = clock.mhz if clock else None
    target = target_from_args(args, args.jobs,
                              "--backend gen, hw or both" if args.backend == "sw" else None,
                              chip=args.backend in ("hw", "both"))
    if args.backend != "sw":
        require_gateware(args, target.name, chip=args.backend in ("hw", "both"))
    progress = Progress(args.quiet)
    try:
        if args.backend in ("hw", "both"):
            from posdata.sim.runs.chip_perft import run_chip_perft
            factory = None
            if target.name == "board":  # the board's own PERFT counts the tree
                from posdata.sim.drivers.targets import make_chip
                chip = make_chip(target)
                factory = lambda: chip  # noqa: E731
            elif args.scheduler:
                raise CliError("--scheduler goes with --backend sw or gen")
            report = run_chip_perft(board, args.depth, args.backend, target, args.bulk,
                                    args.jobs, args.divide, progress, factory=factory,
                                    engines=args.engines)
        else:
            from posdata.sim.runs.gen_perft import run_perft
            report = run_perft(board, args.depth, args.backend, target, args.jobs, progress,
                               check=args.check, bulk=args.bulk, scheduler=args.scheduler)
    except (RuntimeError, ValueError, OSError,  # a missing toolchain or
            raised_class("posdata.sim.drivers.fpga_board", "BoardError")) as e:
        raise CliError(str(e)) from None  # cluster, a stuck simulation, an unreachable board
    finally:
        progress.done()
    failed = bool(report.mismatch) or report.match is False

    if args.json:
        out = report.as_dict(mhz)
        out["bulk"] = args.bulk
        if args.backend != "sw":
            out["clock"] = clock.as_dict() if clock else None
            if clock is None:
                out["no_clock"] = ran.no_clock()
        if args.divide:
            out["divide"] = report.divide
        print_json(out)
        return 1 if failed else 0

    if args.divide:
        for move, count in report.divide.items():
            print(f"{move}: {count}")
        print()
    nps = report.nodes / report.seconds if report.seconds > 0 else 0.0
    mode = "bulk" if args.bulk else "plain"
    print(f"fen      {report.fen}")
    print(f"depth    {report.depth} ({mode})")
    if args.backend == "sw":
        print("backend  sw (reference posdata walk)")
    elif args.backend == "gen":
        check = ", checked against the reference at every node" if args.check else ""
        print(f"backend  gen (move generator in {args.target}, host legality{check}), "
              f"{args.jobs} job(s)")
    elif report.split is not None:
        print(f"backend  {args.backend} (the perft chip in {args.target} counts by itself), "
              f"{args.jobs} chip models sharing the nodes at ply {report.split}")
    else:
        print(f"backend  {args.backend} (the perft chip in {args.target} counts by itself)")
    print(f"nodes    {report.nodes}")
    if report.sw_nodes is not None:
        print(f"sw nodes {report.sw_nodes}")
    if args.backend == "gen" and report.calls:
        print(f"calls    {report.calls} generations by the gateware")
        print(f"cycles   {report.cycles} ({report.cycles / report.calls:.2f} per generation, "
              f"{report.cycles / max(1, report.moves):.3f} per emitted move)")
    if args.backend in ("hw", "both"):
        per = f" ({report.clocks / report.nodes:.3f} per leaf)" if report.nodes else ""
        runs = f", over {report.counts} chip counts" if report.counts > 1 else ""
        print(f"clocks   {report.clocks}{per}{runs}")
    if args.backend != "sw":
        print(f"compile  {report.compile_seconds:.3f} s to build or load the model (not in the "
              "time below)")
    print(f"time     {report.seconds:.3f} s on the host ({nps:,.0f} nodes/s)")
    hw_clocks = report.clocks if args.backend in ("hw", "both") else report.cycles
    if args.backend != "sw" and mhz:
        what = "the chip's clocks" if args.backend in ("hw", "both") else \
            "the generator's cycles alone"
        print(f"hw time  {hw_clocks / (mhz * 1e6):.6f} s ({what}) at {clock.describe()}")
    elif args.backend != "sw":
        print(f"hw time  {ran.no_clock()}")
    if report.mismatch:
        print(f"MISMATCH {report.mismatch}")
        return 1
    if args.backend == "both" or args.check:
        print("match    yes" + (": same moves in the same order at every node" if args.check
                                else ": the chip's count is the software's"))
    return 0
