"""A tool run through hdl.common.children behaves as under subprocess.run, and it dies with
posdata, its own children too, however posdata ends: SIGKILL, SIGTERM, or a SIGINT sent to
posdata alone (not to its process group, as a terminal's Ctrl-C would)."""

import os
import signal
import subprocess
import sys
import time

import pytest

from posdata.hdl.common.children import run
from tests.signals import sigint_default


def alive(pid: int) -> bool:
    """Running (a zombie nobody reaped counts as gone: containers' init may not reap)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def wait_for(condition, seconds: float = 10.0) -> bool:
    """Until ``condition()``; False after ``seconds``, a hang guard (the conditions waited for
    here, a process gone or a file written, come within milliseconds idle)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def read_pids(path) -> list[int]:
    assert wait_for(lambda: os.path.exists(path)), "the tool never started"
    with open(path) as f:
        return [int(p) for p in f.read().split()]


#: a tool that starts a child of its own (as c++ starts cc1plus) and records both
TOOL = "sleep 60 & echo $$ $! > {pids}.tmp && mv {pids}.tmp {pids}; wait"


def test_like_subprocess_run(tmp_path):
    done = run(["sh", "-c", "echo out; echo err >&2; exit 3"], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")
    assert run(["sh", "-c", "kill -TERM $$"]).returncode == -signal.SIGTERM
    assert run(["pwd"], cwd=str(tmp_path), capture_output=True).stdout.strip() == \
        str(tmp_path).encode()
    assert run(["sh", "-c", "echo $X"], env={**os.environ, "X": "y"},
               capture_output=True, text=True).stdout == "y\n"
    with pytest.raises(FileNotFoundError):
        run(["no-such-tool-anywhere"])
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(PermissionError):
        run([str(script)])


def test_a_timeout_kills_the_tool_and_its_children(tmp_path):
    pids = tmp_path / "pids"
    # the run's timeout is what is tested: 1 s, far above the ~5 ms the tool takes idle to
    # record its pids, and far below its 60 s sleep
    with pytest.raises(subprocess.TimeoutExpired) as e:
        run(["sh", "-c", TOOL.format(pids=pids)], timeout=1)
    assert e.value.cmd[0] == "sh"  # named as the command, not as its supervisor
    tool, child = read_pids(pids)
    assert wait_for(lambda: not alive(tool) and not alive(child), 10)


def posdata_running_the_tool(pids, preexec_fn) -> subprocess.Popen:
    """A Python running TOOL through posdata's children.run (its pids written to ``pids``)."""
    code = ("from posdata.hdl.common.children import run\n"
            f"run(['sh', '-c', {TOOL.format(pids=pids)!r}])\n")
    return subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.DEVNULL,
                            preexec_fn=preexec_fn)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_the_tool_and_its_children_die_with_posdata(tmp_path, sig):
    pids = tmp_path / "pids"
    parent = posdata_running_the_tool(pids, sigint_default)
    try:
        tool, child = read_pids(pids)
        assert alive(tool) and alive(child)
        parent.send_signal(sig)  # to posdata alone
        parent.wait(timeout=60)  # a hang guard: idle posdata ends within ~0.3 s
        assert wait_for(lambda: not alive(tool) and not alive(child), 10), \
            f"{'tool' if alive(tool) else 'its child'} outlived posdata ({sig.name})"
    finally:
        parent.kill()
