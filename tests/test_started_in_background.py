"""The suite, and posdata, started as a background job is (a non-interactive shell's ``cmd &``,
``nohup make test &`` from a script): with SIGINT ignored, which Python keeps ignored and every
child inherits.

The suite's signal tests start their children with SIGINT at its default (tests.signals), so
they pass however the suite was started; posdata started so keeps ignoring SIGINT (as any
background job does), and SIGTERM still ends it with its tools."""

import os
import signal
import subprocess
import sys

from tests.hdl.common.test_children import alive, posdata_running_the_tool, read_pids, wait_for
from tests.signals import ignores, sigint_ignored

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_a_signal_test_passes_when_the_suite_ignores_sigint():
    """A test that sends posdata SIGINT, run by a pytest that was started with SIGINT ignored
    (it hung for its 10 s timeout before its child was started with SIGINT at its default)."""
    test = "tests/hdl/common/test_children.py::test_the_tool_and_its_children_die_with_posdata"
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA",
                          f"{test}[{signal.SIGINT:d}]"], cwd=REPO, capture_output=True,
                         text=True, preexec_fn=sigint_ignored,
                         timeout=120)  # a hang guard: idle the inner run takes ~1.5 s
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"PASSED {test}[{signal.SIGINT:d}]" in run.stdout, run.stdout


def test_posdata_started_with_sigint_ignored_ignores_it_and_sigterm_ends_it(tmp_path):
    pids = tmp_path / "pids"
    posdata = posdata_running_the_tool(pids, sigint_ignored)
    try:
        tool, child = read_pids(pids)
        assert ignores(posdata.pid, signal.SIGINT)
        posdata.send_signal(signal.SIGINT)  # an ignored signal is discarded as it is sent
        assert posdata.poll() is None and alive(tool) and alive(child)
        posdata.send_signal(signal.SIGTERM)
        assert posdata.wait(timeout=10) == -signal.SIGTERM  # a hang guard: idle at once
        assert wait_for(lambda: not alive(tool) and not alive(child), 10), \
            f"{'the tool' if alive(tool) else 'its child'} outlived posdata"
    finally:
        posdata.kill()
