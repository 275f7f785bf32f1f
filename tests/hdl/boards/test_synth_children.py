"""A SIGINT to posdata alone during a board build (not to its process group, as a terminal's
Ctrl-C would be) leaves no tool running: the build script's tools (a stand-in Yosys with a child
of its own, as the script's nextpnr is its shell's) die with the flow."""

import os
import signal
import subprocess
import sys

from tests.hdl.common.test_children import alive, read_pids, wait_for
from tests.signals import sigint_default

TOOL = """#!/bin/sh
sleep 60 &
echo $$ $! > "$PIDS.tmp" && mv "$PIDS.tmp" "$PIDS"
wait
"""


def test_interrupted_build_leaves_no_tool_running(tmp_path):
    tool = tmp_path / "fake-yosys"
    tool.write_text(TOOL)
    tool.chmod(0o755)
    pids = tmp_path / "pids"
    env = dict(os.environ, YOSYS=str(tool), NEXTPNR_ICE40=str(tool), ICEPACK=str(tool),
               PIDS=str(pids))
    code = ("from posdata.hdl.boards.synth import synthesize\n"
            f"synthesize('icebreaker', build_dir={str(tmp_path / 'build')!r})\n")
    flow = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.DEVNULL,
                            preexec_fn=sigint_default)
    try:
        shell, child = read_pids(pids)
        flow.send_signal(signal.SIGINT)
        flow.wait(timeout=60)  # a hang guard: idle the build ends within ~0.4 s
        assert wait_for(lambda: not alive(shell) and not alive(child), 10), \
            f"{'the tool' if alive(shell) else 'its child'} outlived the interrupted build"
    finally:
        flow.kill()
