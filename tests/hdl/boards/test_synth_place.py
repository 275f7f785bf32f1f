"""A board build moves into build/synth/BOARD only when complete, report.json last: a failed or
interrupted build leaves the previous complete build (its bitstream and report) untouched and
says so, so no hardware time is quoted at a clock the files beside it were not built for. The
tools are a stand-in script (the iCEBreaker's three: its elaboration takes a second)."""

import json
import os
import signal
import subprocess
import sys

import pytest

from posdata.hdl.boards.synth import SynthError, synthesize
from tests.hdl.common.test_children import read_pids, wait_for
from tests.signals import sigint_default

#: one stand-in for Yosys, nextpnr-ice40 and icepack, told apart by their first argument (the
#: build script's order); $FAIL names the step that fails after writing half its output, $PIDS
#: makes nextpnr wait to be interrupted
TOOL = """#!/bin/sh
case "$1" in
  -V|--version) echo "stand-in 1.0"; exit 0;;
  -q) echo "End of script. Logfile hash: 1, time: 1.00s" > posdata.rpt
      echo '{"design": {"num_cells_by_type": {"SB_LUT4": 7}}}' > posdata.stat.json;;
  --quiet)
      printf '{"fmax": {"clk": {"achieved": 55.5, "constraint": 33.0}}, "util' \
          > posdata.nextpnr.json
      if [ -n "$PIDS" ]; then echo $$ 0 > "$PIDS.tmp" && mv "$PIDS.tmp" "$PIDS"; sleep 60; fi
      echo 'ization": {}}' >> posdata.nextpnr.json;;
  *) echo bitstream > posdata.bin;;
esac
[ "$FAIL" = "$1" ] && exit 1
exit 0
"""


def install_stand_in(tmp_path, monkeypatch, script: str):
    """``script`` as the iCEBreaker flow's Yosys, nextpnr and icepack."""
    tool = tmp_path / "stand-in"
    tool.write_text(script)
    tool.chmod(0o755)
    for variable in ("YOSYS", "NEXTPNR_ICE40", "ICEPACK"):
        monkeypatch.setenv(variable, str(tool))
    monkeypatch.delenv("FAIL", raising=False)
    monkeypatch.delenv("PIDS", raising=False)
    return tmp_path


@pytest.fixture
def tools(tmp_path, monkeypatch):
    return install_stand_in(tmp_path, monkeypatch, TOOL)


def final(build_dir):
    return build_dir / "synth" / "icebreaker"


def plant_previous(build_dir) -> dict:
    """A previous complete build: its bitstream and the report that describes it."""
    d = final(build_dir)
    d.mkdir(parents=True)
    (d / "posdata.bin").write_text("old bitstream")
    report = {"board": "icebreaker", "fmax_mhz": 123.45, "engines": 0}
    (d / "report.json").write_text(json.dumps(report))
    return report


def test_a_complete_build_moves_into_place_with_its_report(tools):
    build_dir = tools / "build"
    plant_previous(build_dir)
    r = synthesize("icebreaker", build_dir=str(build_dir)).report
    d = final(build_dir)
    assert json.loads((d / "report.json").read_text())["fmax_mhz"] == r["fmax_mhz"] == 55.5
    assert (d / "posdata.bin").read_text() == "bitstream\n"
    assert r["bitstream"] == str(d / "posdata.bin") and "built" in r and "commit" in r
    assert sorted(os.listdir(d.parent)) == ["icebreaker"]  # no build directory left beside it


def test_a_failed_build_leaves_the_previous_one_untouched(tools, monkeypatch):
    build_dir = tools / "build"
    previous = plant_previous(build_dir)
    before = {p.name: p.read_bytes() for p in final(build_dir).iterdir()}
    monkeypatch.setenv("FAIL", "--quiet")  # nextpnr fails, its report half written
    with pytest.raises(SynthError, match=r"exit status 1\).*icebreaker\.failed.*previous build "
                                         r"in .*icebreaker is untouched"):
        synthesize("icebreaker", build_dir=str(build_dir))
    assert {p.name: p.read_bytes() for p in final(build_dir).iterdir()} == before
    assert json.loads((final(build_dir) / "report.json").read_text()) == previous
    failed = final(build_dir).parent / "icebreaker.failed"
    assert (failed / "posdata.rpt").exists()  # the logs kept for the user
    assert sorted(os.listdir(final(build_dir).parent)) == ["icebreaker", "icebreaker.failed"]


def test_a_failed_first_build_says_there_is_none(tools, monkeypatch):
    monkeypatch.setenv("FAIL", "-q")
    with pytest.raises(SynthError, match="holds no complete build"):
        synthesize("icebreaker", build_dir=str(tools / "build"))
    assert not (final(tools / "build") / "report.json").exists()


def test_an_interrupted_build_leaves_the_previous_one_and_says_so(tools):
    """SIGINT to posdata synth alone, with nextpnr half way through its report: one line, exit
    130, the previous build as it was, no build directory left behind."""
    build_dir = tools / "build"
    plant_previous(build_dir)
    before = {p.name: p.read_bytes() for p in final(build_dir).iterdir()}
    pids = tools / "pids"
    env = dict(os.environ, PIDS=str(pids))
    flow = subprocess.Popen([sys.executable, "-m", "posdata.sim", "synth", "--board",
                             "icebreaker", "--build-dir", str(build_dir)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_default)
    try:
        read_pids(pids)
        flow.send_signal(signal.SIGINT)
        out, err = flow.communicate(timeout=60)  # a hang guard: idle ~0.4 s
    finally:
        flow.kill()
    assert flow.returncode == 130, err
    assert err.splitlines()[-1] == (f"posdata synth: interrupted; the previous build in "
                                    f"{final(build_dir)} is untouched")
    assert {p.name: p.read_bytes() for p in final(build_dir).iterdir()} == before
    assert wait_for(lambda: sorted(os.listdir(final(build_dir).parent)) == ["icebreaker"], 5)
