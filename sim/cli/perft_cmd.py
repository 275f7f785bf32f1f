"""posdata perft: count the legal move tree on the reference generator, on the simulated
gateware, or on both with a move-for-move comparison at every node."""

import os

from .common import (CliError, Progress, add_json_arg, add_position_args, clock_mhz,
                     int_in_range, load_board, print_json)

MAX_DEPTH = 12


def register(sub) -> None:
    p = sub.add_parser(
        "perft", help="count the nodes of the legal move tree (perft), in software or hardware",
        description="Count the leaf nodes of the legal move tree to a fixed depth. Moves come "
                    "from the posdata generator, in software (sw) or from the simulated "
                    "gateware (hw); legality from makemove on the host, as in TSCP. 'both' "
                    "holds the gateware to the reference at every node and reports the first "
                    "position where they differ.")
    add_position_args(p)
    p.add_argument("--depth", type=int_in_range(0, MAX_DEPTH, "--depth"), default=4,
                   help="plies to search (default: 4)")
    p.add_argument("--backend", choices=("sw", "hw", "both"), default="sw",
                   help="move generator: sw (reference, default), hw (gateware), both (compare)")
    p.add_argument("--sim", choices=("cxxrtl", "pysim"), default="cxxrtl",
                   help="gateware simulator for hw/both: cxxrtl (compiled, default) or pysim "
                        "(Amaranth's, slow)")
    p.add_argument("-j", "--jobs", type=int_in_range(1, 256, "--jobs"),
                   default=os.cpu_count() or 1,
                   help="worker processes, the root moves split among them (default: cores)")
    p.add_argument("--mhz", type=float, default=None,
                   help="clock for the projected hardware time (default: Fmax of the latest "
                        "synthesis report under build/, if any)")
    p.add_argument("--divide", action="store_true",
                   help="also print the count below each legal root move")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from posdata.sim.hwperft import run_perft

    board = load_board(args)
    mhz = clock_mhz(args.mhz)
    progress = Progress(args.quiet)
    try:
        report = run_perft(board, args.depth, args.backend, args.sim, args.jobs, progress)
    except RuntimeError as e:  # a missing toolchain for the compiled model, a stuck simulation
        raise CliError(str(e)) from None
    finally:
        progress.done()

    if args.json:
        out = report.as_dict(mhz)
        if args.divide:
            out["divide"] = report.divide
        print_json(out)
        return 1 if report.mismatch or report.match is False else 0

    if args.divide:
        for move, count in report.divide.items():
            print(f"{move}: {count}")
        print()
    nps = report.nodes / report.seconds if report.seconds > 0 else 0.0
    print(f"fen      {report.fen}")
    print(f"depth    {report.depth}")
    if args.backend == "sw":
        print("backend  sw (reference posdata walk)")
    else:
        print(f"backend  {args.backend} (gateware in {args.sim}), {args.jobs} job(s)")
    print(f"nodes    {report.nodes}")
    if args.backend == "both":
        print(f"sw nodes {report.sw_nodes}")
    if args.backend != "sw" and report.calls:
        print(f"calls    {report.calls} generations by the gateware")
        print(f"cycles   {report.cycles} ({report.cycles / report.calls:.2f} per generation, "
              f"{report.cycles / max(1, report.moves):.3f} per emitted move)")
    print(f"time     {report.seconds:.3f} s on the host ({nps:,.0f} nodes/s)")
    if args.backend != "sw" and mhz:
        print(f"hw time  {report.cycles / (mhz * 1e6):.6f} s projected at {mhz:g} MHz "
              "(the gateware's cycles alone)")
    if report.mismatch:
        print(f"MISMATCH {report.mismatch}")
        return 1
    if args.backend == "both":
        print("match    yes: same moves in the same order at every node")
    return 0
