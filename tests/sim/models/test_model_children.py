"""Killing posdata while it compiles a model: no compiler left running (nor the compiler's own
child, as cc1plus is c++'s), and what the compile left in the cache (the half-written library,
the compiler's temporaries) gone by the next run. The compiler is a stand-in (CXX), so the test
takes a second, not a compile; the rest of the path is build_library's own."""

import os
import signal
import subprocess
import sys

import pytest

from posdata.sim.models.cache import ModelCache
from tests.hdl.common.test_children import alive, read_pids, wait_for
from tests.signals import sigint_default

#: a compiler that writes half its output, keeps a temporary where $TMPDIR says, starts a child
#: of its own and works until it is stopped
COMPILER = """#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
printf 'half a library' > "$out"
echo 'assembly' > "$TMPDIR/cc0.s"
sleep 60 &
echo $$ $! > "$PIDS.tmp" && mv "$PIDS.tmp" "$PIDS"
wait
"""

#: posdata asked for the generator's model; the C++ is a stand-in too (Yosys's seconds saved)
BUILD = ("import posdata.sim.models.cxxrtl as cxxrtl\n"
         "cxxrtl.generate_cxx = lambda *args, **options: '// the model\\n'\n"
         "cxxrtl.build_library()\n")


def temporaries(root) -> list[str]:
    """Everything under a temporary's name, and inside one."""
    paths = (os.path.relpath(os.path.join(d, n), root) for d, dirs, files in os.walk(root)
             for n in dirs + files)
    return sorted(p for p in paths if any(part.startswith(".tmp-") for part in p.split(os.sep)))


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_during_a_compile(tmp_path, sig):
    compiler = tmp_path / "fake-c++"
    compiler.write_text(COMPILER)
    compiler.chmod(0o755)
    root, pids = tmp_path / "cache", tmp_path / "pids"
    env = dict(os.environ, POSDATA_CACHE=str(root), CXX=str(compiler), PIDS=str(pids))
    posdata = subprocess.Popen([sys.executable, "-c", BUILD], env=env,
                               stderr=subprocess.DEVNULL, preexec_fn=sigint_default)
    try:
        tool, child = read_pids(pids)
        left = temporaries(root)
        assert any(n.endswith("-libposdata_model.so") for n in left), left  # the half library
        assert any(n.endswith("/cc0.s") for n in left), left  # the compiler's, not in /tmp
        posdata.send_signal(sig)  # to posdata alone: the compiler is not signalled by anyone
        posdata.wait(timeout=60)  # a hang guard: idle posdata ends within ~0.3 s
        assert wait_for(lambda: not alive(tool) and not alive(child), 10), \
            f"{'the compiler' if alive(tool) else 'its child'} outlived posdata ({sig.name})"
    finally:
        posdata.kill()
    if sig == signal.SIGKILL:  # no chance to clean up: the next run's opening of the cache does
        assert temporaries(root)
        ModelCache("cxxrtl", str(root))
    assert temporaries(root) == []
