"""What `posdata synth` (and `make demo`) print of a build: its report from the tools, plus the
speeds measured on the gateware in simulation (the generator's cycles per move, the perft
chip's clocks per leaf) turned into rates at the routed Fmax."""

import sys

from posdata.hdl.boards.synth import SEARCH_DESIGN


def add_speed(report: dict, progress=None) -> dict:
    """Add the generator's cycles per move and the perft chip's clocks per leaf, and their rates
    at Fmax, to a synthesis report (both measured on the gateware in simulation). With several
    engines, the chip's rate is the projected one: a shared count's simulated makespan."""
    variant = report.get("variant", "chess")
    if report.get("design") == SEARCH_DESIGN:  # make bench-search measures the thread
        return report
    report["cycles_per_move"] = round(cycles_per_move(variant), 3)
    report["moves_per_second_at_fmax"] = round(report["fmax_mhz"] * 1e6
                                               / report["cycles_per_move"])
    if report.get("design") == "generator":  # no perft chip on this board
        return report
    engines = report.get("engines", 1)
    per_leaf = chip_clocks_per_leaf(engines, progress, variant)
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


def chip_clocks_per_leaf(engines: int = 1, progress=None,
                         variant: str = "chess") -> float | None:
    """The perft chip's clocks per leaf (makespan over leaves) on a bulk count of the initial
    position (another variant: its start position), from its compiled model (None, with a note,
    when no C++ compiler is at hand)."""
    from posdata.sim.models.toolchain import ToolchainError
    from posdata.sim.runs.chip_projection import project
    name, depth = chip_speed_count(engines)
    if progress:
        what = f"the {name}" if variant == "chess" else f"{variant}'s start"
        progress(f"bulk perft({depth}) of {what} position on a compiled chip of "
                 f"{engines} engine(s)")
    try:
        if variant != "chess":  # the variant's start position, on its own chip
            from posdata.engine.rules.board import Board
            from posdata.engine.rules.variants import get_variant
            from posdata.sim.drivers.chip_cxxrtl import ChipModel
            v = get_variant(variant)
            count = ChipModel(engines, variant=variant).perft(Board(v.start_fen, v), depth)
            return count.clocks / count.leaves
        return project(engines, None, name, depth).clocks_per_leaf
    except ToolchainError as e:
        print(f"posdata: note: chip speed not measured ({e})", file=sys.stderr)
        return None


def cycles_per_move(variant: str = "chess") -> float:
    """Clock cycles per emitted move over the six standard positions (another variant: its
    sample positions), measured on the gateware in Amaranth's simulator (as `make bench-hw`
    does)."""
    from posdata.engine.rules.board import Board
    from posdata.engine.rules.positions import STANDARD_POSITIONS
    from posdata.engine.rules.variants import get_variant
    from posdata.sim.drivers.gen_pysim import PysimGenerator
    from posdata.sim.runs.variant_positions import sample_positions
    v = get_variant(variant)
    fens = ([pos.fen for pos in STANDARD_POSITIONS] if variant == "chess"
            else sample_positions(variant))
    hw = PysimGenerator(variant=variant)
    cycles = moves = 0
    for fen in fens:
        result = hw.generate(Board(fen, v))
        cycles += result.cycles
        moves += len(result.moves)
    return cycles / moves


def print_report(r: dict) -> None:
    pll, uart = r["pll"], r["uart"]
    threads = r.get("threads", 1)
    carries = ((f"{threads} search threads" if threads > 1 else "the search thread")
               if r.get("design") == SEARCH_DESIGN
               else f"{r.get('engines', 1)} perft engine(s)")
    print(f"board      {r['board']} ({r['device']}), {carries}")
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
    if r.get("design") == SEARCH_DESIGN:
        print("design     the search thread behind the UART (the protocol's SEARCH and RESULT); "
              "its clocks per node: make bench-search")
    error = 100 * (uart["actual_baud"] - uart["baud"]) / uart["baud"]
    print(f"uart       {uart['baud']} baud (divisor {uart['divisor']}, {error:+.1f}%)")
    print(f"{'resource':<20} {'used':>6} {'available':>9} {'%':>6}")
    for name, u in r["utilization"].items():
        print(f"{name:<20} {u['used']:>6} {u['available']:>9} {u['percent']:>6}")
    if "refitted" in r:
        f = r["refitted"]
        print(f"refitted   not met at {f['first_mhz']:g} MHz (Fmax {f['first_fmax_mhz']:.2f} MHz): "
              f"built again at a clock below it ({f.get('builds', 2)} builds)")
    verdict = "met" if r["timing_met"] else "NOT met"
    print(f"Fmax       {r['fmax_mhz']:.2f} MHz against {r['constraint_mhz']:g} MHz: {verdict} "
          f"(nextpnr, seed {r['seed']})")
    if "cycles_per_move" in r:
        variant = r.get("variant", "chess")
        where = ("six standard positions" if variant == "chess"
                 else f"{variant}'s sample positions")
        print(f"speed      {r['cycles_per_move']} cycles per move ({where}) -> "
              f"{r['moves_per_second_at_fmax'] / 1e6:.1f} M moves/s at Fmax")
    if "chip_clocks_per_leaf" in r:
        engines = r.get("engines", 1)
        name, depth = chip_speed_count(engines)
        shared = "" if engines == 1 else f", makespan of {engines} engines sharing it"
        label = "" if engines == 1 else "projected "
        if r.get("variant", "chess") != "chess":  # counted from its own start position
            name = f"{r['variant']}'s start"
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
