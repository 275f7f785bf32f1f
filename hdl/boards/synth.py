"""From gateware to bitstream with Amaranth's own build flow and the open-source tools from PyPI
(YoWASP builds of Yosys, nextpnr and the bitstream packer), and the numbers an FPGA engineer
asks for: resources against the device, Fmax of the generator's clock against its constraint,
tool versions and wall times.

The amaranth-boards platform writes the build (RTLIL, Yosys script, pin constraints, build
script) and runs it. This module picks the tools through the environment variables the build
script reads, asks for the extra outputs through the platform's documented overrides and reads
the report out of them.
"""

import contextlib
import dataclasses
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field

from ..common import children
from . import build_place
from .provenance import source_commit, utc_now
from .synth_report import (
    cell_counts,
    cell_utilization,
    clock_timing,
    clocking,
    read_json,
    utilization,
    yosys_seconds,
)
from .synth_targets import (
    BOARDS,
    DEFAULT_BOARD,
    SynthError,
    board_for,
    default_engines,
    platform_for,
    tool,
    tool_version,
)

__all__ = ["BOARDS", "DEFAULT_BOARD", "DEFAULT_MHZ", "SynthError", "SynthResult",
           "default_engines", "platform_for", "synthesize", "tool"]

DEFAULT_MHZ = 100.0
NAME = "posdata"
#: nextpnr's options for several engines. router2: router1 does not converge on six engines on
#: the 85F (a large share of the wires still unrouted after 100,000 iterations). The heap
#: placer's timing weight at eight times its default (10): eight engines fill 90 % of the 85F's
#: LUTs, and the default places single cells across the chip from the logic they feed
#: (docs/architecture.md, "Many engines: the chip"); at half that, a thread's counters still
#: sat across the die from its control
MULTI_ENGINE_PNR = "--router router2 --placer-heap-timingweight 80"
#: the search board (``synthesize(search=True)``): search threads behind the UART front end.
#: It aims at the perft chip's clock, the pipelined thread's goal (docs/chip_search.md,
#: "Timing"); ``posdata synth --search`` without --mhz builds a board that misses it again
#: at the highest clock below its Fmax that the PLL makes and the UART divides (sim/cli/
#: synth_cmd.py, ``refit``): so the build picks the clock it meets
SEARCH_DESIGN = "search thread"
SEARCH_MHZ = DEFAULT_MHZ
#: search threads on one search board: the protocol addresses them by the engine byte (below
#: ENGINE_ALL); one thread fills about half of the 25F's LUTs, so several want the 85F
MAX_SEARCH_THREADS = 16


@dataclass
class SynthResult:
    board: str
    device: str
    directory: str
    report: dict = field(default_factory=dict)


def synthesize(board: str = DEFAULT_BOARD, mhz: float | None = None, baud: int | None = None,
               build_dir: str = "build", seed: int = 1, progress=None,
               engines: int | None = None, directory: str | None = None,
               variant=None, search: bool = False,
               search_threads: int | None = None, status=None,
               verbose: bool = False) -> SynthResult:
    """Build the bitstream for ``board`` with ``engines`` perft engines (default: the board's,
    ``default_engines``) clocked at ``mhz``; returns the report (also written to
    ``report.json`` in ``directory``, by default ``<build_dir>/synth/<board>``); with ``search``
    the search board instead, ``search_threads`` threads (default 1) in
    ``<build_dir>/synth/<board>-search``. The build runs
    beside ``directory`` and moves in when complete (hdl.boards.build_place): a failed or
    interrupted one leaves the previous build there untouched."""
    from amaranth import __version__ as amaranth_version

    from ..link.protocol import DEFAULT_BAUD
    from .ecp5_top import BoardTop

    family = board_for(board).family
    if search:
        if family.name != "ecp5":
            raise SynthError(f"the search board is built for the ECP5 boards, not {board}")
        if engines:
            raise SynthError("the search board carries the search thread, not perft engines: "
                             "leave out --engines")
        family = dataclasses.replace(family, design=SEARCH_DESIGN, default_mhz=SEARCH_MHZ)
    elif search_threads is not None:
        raise SynthError("search threads go on the search board: add --search (the perft "
                         "chip's engines are --engines)")
    if variant is not None:  # before the tools are looked for: the build cannot hold it
        from posdata.engine.rules.capabilities import refusal
        problem = refusal(variant, "search-board" if search else family.name)
        if problem:
            raise SynthError(problem)
    search_threads = 1 if search_threads is None else search_threads
    if search and not 1 <= search_threads <= MAX_SEARCH_THREADS:
        raise SynthError(f"the search board holds 1 to {MAX_SEARCH_THREADS} threads, not "
                         f"{search_threads}")
    mhz = family.default_mhz if mhz is None else mhz
    tools = {variable: tool(variable) for variable in family.tools}  # fail early, in one line
    platform = platform_for(board)
    generator_only = family.design == "generator"  # the iCEBreaker's board: no perft chip
    if generator_only and engines:
        raise SynthError(f"{board} holds the move generator alone, no perft engines: "
                         "leave out --engines")
    engines = 0 if generator_only or search else \
        default_engines(board) if engines is None else engines
    if engines < 1 and not (generator_only or search):
        raise SynthError(f"--engines must be at least 1, not {engines}")
    directory = directory or os.path.join(build_dir, "synth", board + ("-search" if search
                                                                        else ""))
    refused = build_place.in_the_way(directory)  # before minutes of work, not after
    if refused:
        raise SynthError(refused)
    seconds: dict[str, float] = {}

    if progress:
        progress("elaborate")
    start = time.perf_counter()
    overrides = {
        **family.overrides,
        # Yosys's cell counts straight after synthesis, before nextpnr packs them
        "script_after_synth": f"tee -q -o {NAME}.stat.json stat -json",
        # repeatable placement; a report (Fmax, utilization) even when timing fails
        "nextpnr_opts": f"--seed {seed} --report {NAME}.nextpnr.json --timing-allow-fail"
                        + (f" {MULTI_ENGINE_PNR}" if engines > 1 or search_threads > 1
                           else ""),
    }
    try:
        if generator_only:
            from .ice40_top import ICEBreakerTop
            top = ICEBreakerTop(mhz, baud or DEFAULT_BAUD)
        else:
            top = BoardTop(mhz, baud or DEFAULT_BAUD, engines=engines, search=search,
                           search_threads=search_threads,
                           **({"variant": variant} if variant is not None else {}))
        plan = platform.build(top, name=NAME, do_build=False, **overrides)
    except ValueError as e:  # e.g. no PLL setting or baud divisor for this clock
        raise SynthError(str(e)) from None
    seconds["elaborate"] = round(time.perf_counter() - start, 2)

    if progress:
        progress("build: " + ", ".join(os.path.basename(path) for path in tools.values()))
    work = build_place.start(directory)
    try:
        start = time.perf_counter()
        products = run_build(plan, work, tools, progress, status, verbose)
        seconds["build"] = round(time.perf_counter() - start, 2)
        report = build_report(products, board, family, platform, top, engines, variant, seconds,
                              directory, seed, tools, amaranth_version)
        if search:
            report["threads"] = search_threads
        refused = build_place.in_the_way(directory)  # put there while the build ran
        if refused:
            raise SynthError(refused)
    except SynthError as e:
        kept = build_place.keep_failed(work, directory)
        raise SynthError(f"{e}: the tools' output is {os.path.join(kept, TOOLS_LOG)} (their "
                         f"logs {NAME}.rpt, Yosys, and {NAME}.tim, nextpnr, beside it); "
                         f"{build_place.previous(directory)}") from None
    except BaseException:  # Ctrl-C, a damaged product: nothing of it goes into place
        build_place.abandon(work)
        raise
    build_place.install(work, directory, report)
    return SynthResult(board, platform.device, directory, report)


def build_report(products, board, family, platform, top, engines, variant, seconds, directory,
                 seed, tools, amaranth_version) -> dict:
    """The report of a finished build, from its products (the bitstream's path: where it will
    be once in place, ``directory``)."""
    yosys = yosys_seconds(products.get(f"{NAME}.rpt", "t"))
    if yosys is not None:
        seconds["yosys (from its log)"] = yosys

    pnr = read_json(products, f"{NAME}.nextpnr.json")
    report = {
        "board": board,
        "device": family.device(platform),
        "design": family.design,
        "engines": engines,
        "variant": "chess" if variant is None else variant.name,
        **clock_timing(pnr),
        **clocking(top),
        "yosys_cells": cell_counts(read_json(products, f"{NAME}.stat.json"), family.cells),
        "utilization": utilization(pnr, family.resources),
        "seconds": seconds,
        "bitstream": os.path.join(directory, f"{NAME}.{family.bitstream}"),
        "seed": seed,
        "commit": source_commit(),
        "built": utc_now(),
        "tools": {"amaranth": amaranth_version,
                  "yosys": tool_version(tools["YOSYS"], "-V"),
                  f"nextpnr-{family.name}": tool_version(tools[family.nextpnr], "--version")},
    }
    report["utilization"].update(cell_utilization(read_json(products, f"{NAME}.stat.json"), pnr,
                                                  family.cell_resources))
    return report


#: (a file the build writes when a phase is over, the next phase): the script runs Yosys (its
#: cell counts written straight after synthesis), nextpnr (its report written once routed), then
#: the packer, all quiet; the files say which is running
PHASES = ((f"{NAME}.stat.json", "nextpnr: place and route"),
          (f"{NAME}.nextpnr.json", "pack the bitstream"))
FIRST_PHASE = "yosys: synthesis"
#: what the tools print (YoWASP's first-run notes, warnings), kept out of the terminal unless
#: --verbose; a failure names it
TOOLS_LOG = f"{NAME}.tools.log"
NEXTPNR_LOG = f"{NAME}.tim"  #: nextpnr's own log (--log), written as it goes


def nextpnr_status(text: str) -> str | None:
    """Where nextpnr is, from the end of its log: the placer's iteration, the arcs the router
    has left or its overused wires, the clock it estimates."""
    for line in reversed(text.splitlines()[-40:]):
        if m := re.search(r"at (?:initial placer )?iter(?:ation)? #?(\d+)\b.*wirelen", line):
            # the analytic placer's legalised length, else the one its line gives
            length = re.search(r"legal = (\d+)", line) or re.search(r"wirelen\D*(\d+)", line)
            return f"placing, iteration {m.group(1)}, wire length {int(length.group(1)):,}"
        if m := re.match(r"Info:\s+\d+ \|.*\|\s*(\d+)\|\s*[\d.]+\s+[\d.]+\|$", line):
            return f"routing, {int(m.group(1)):,} arcs left"
        if m := re.search(r"overused\D*(\d+)", line):
            return f"routing, {int(m.group(1)):,} overused wires"
        if m := re.search(r"Max frequency for clock .*: ([\d.]+) MHz", line):
            return f"{m.group(1)} MHz estimated"
    return None


def build_phase(directory: str) -> str:
    """The phase of the build running in ``directory``, from the files it has written."""
    phase = FIRST_PHASE
    for name, after in PHASES:
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            break
        if name.endswith("nextpnr.json"):  # written whole only at the end of routing
            try:
                with open(path) as f:
                    json.load(f)
            except (OSError, ValueError):
                break
        phase = after
    return phase


@contextlib.contextmanager
def watch_phases(directory: str, progress, interval: float = 0.25, status=None):
    """``progress(phase)`` each time the build in ``directory`` moves on and ``status(text)``
    each time nextpnr's log says something new of its progress (a thread polling the files):
    the tools themselves say nothing on the terminal."""
    if progress is None and status is None:
        yield
        return
    stop = threading.Event()
    log = os.path.join(directory, NEXTPNR_LOG)

    def watch():
        shown = said = None
        while True:
            phase = build_phase(directory)
            if phase != shown and progress is not None:
                progress(phase)
                shown = phase
            if status is not None:
                try:
                    with open(log, errors="replace") as f:
                        f.seek(max(0, os.fstat(f.fileno()).st_size - 8192))
                        now = nextpnr_status(f.read())
                except OSError:
                    now = None
                if now is not None and now != said:
                    status(now)
                    said = now
            if stop.wait(interval):
                return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def run_build(plan, directory: str, tools: dict[str, str], progress=None, status=None,
              verbose: bool = False):
    """Extract the build plan into ``directory`` and run its script (what
    ``BuildPlan.execute_local`` does, but with the tools in the script's environment instead of
    ours and no programmer required), the tools dying with posdata: a nextpnr left running by a
    Ctrl-C or a killed posdata would hold a core for minutes (hdl.common.children). What the
    tools print goes to TOOLS_LOG in the build's directory (``verbose``: to our terminal)."""
    from amaranth.build.run import LocalBuildProducts

    build_dir = plan.extract(directory)
    command = ["sh", f"{plan.script}.sh"] if verbose else \
        ["sh", "-c", f'exec sh "{plan.script}.sh" > {TOOLS_LOG} 2>&1']
    with watch_phases(str(build_dir), progress, status=status):
        done = children.run(command, cwd=str(build_dir), env={**os.environ, **tools})
    if done.returncode != 0:
        last = last_line(os.path.join(str(build_dir), TOOLS_LOG))
        raise SynthError(f"the build failed (exit status {done.returncode})"
                         + (f", its last words: {last}" if last else ""))
    return LocalBuildProducts(build_dir)


def last_line(path: str, limit: int = 200) -> str | None:
    """The last non-empty line of a log, cut to ``limit`` characters (None: no log)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - 4096))
            lines = [ln.strip() for ln in f.read().decode(errors="replace").splitlines()]
    except OSError:
        return None
    lines = [ln for ln in lines if ln]
    return lines[-1][:limit] if lines else None
