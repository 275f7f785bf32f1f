"""Progress on long steps (issue 30, 8): the synthesis phases (Yosys, nextpnr, the packer) named
as the build reaches them, and on a terminal each one's elapsed time; nothing of it under --json
or in a log. The tools are test_synth_place's stand-in, each taking a second."""

import io
import re
import sys

import pytest

from posdata.hdl.boards.synth import build_phase, synthesize
from posdata.sim.cli import main
from posdata.sim.models.ticker import Ticker

from .test_synth_place import TOOL, install_stand_in

#: the stand-in, a second a tool: long enough for the build's watcher to see each phase
SLOW_TOOL = TOOL.replace('[ "$FAIL" = "$1" ]', 'sleep 1\n[ "$FAIL" = "$1" ]')
PHASES = ["yosys: synthesis", "nextpnr: place and route", "pack the bitstream"]


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def slow_tools(tmp_path, monkeypatch):
    assert SLOW_TOOL != TOOL
    return install_stand_in(tmp_path, monkeypatch, SLOW_TOOL)


def test_the_build_names_its_phases_in_order(slow_tools):
    seen = []
    synthesize("icebreaker", build_dir=str(slow_tools / "build"), progress=seen.append)
    assert [step for step in seen if step in PHASES] == PHASES, seen


def test_a_phase_from_the_files(tmp_path):
    assert build_phase(str(tmp_path)) == PHASES[0]
    (tmp_path / "posdata.stat.json").write_text("{}")
    assert build_phase(str(tmp_path)) == PHASES[1]
    (tmp_path / "posdata.nextpnr.json").write_text('{"fmax": ')  # nextpnr still writing
    assert build_phase(str(tmp_path)) == PHASES[1]
    (tmp_path / "posdata.nextpnr.json").write_text("{}")
    assert build_phase(str(tmp_path)) == PHASES[2]


def test_synth_shows_each_phase_with_its_time_on_a_terminal(slow_tools, monkeypatch, capsys):
    from posdata.sim.cli import synth_cmd
    shown = []  # the stand-in's report is too thin to print: the report is not at issue here
    monkeypatch.setattr(synth_cmd, "print_report", shown.append)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["synth", "--board", "icebreaker", "--build-dir",
                 str(slow_tools / "build")]) == 0
    err = terminal.getvalue()
    for phase in PHASES:  # each phase's line once it is over: its time
        assert f"\r\x1b[K{phase}: " in err, err
    assert "yosys: synthesis ... 0 s" in err  # the live line while it runs
    assert shown and shown[0]["fmax_mhz"] == 55.5


def test_synth_json_is_quiet(slow_tools, monkeypatch, capsys):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["synth", "--board", "icebreaker", "--json", "--build-dir",
                 str(slow_tools / "build")]) == 0
    assert terminal.getvalue() == ""


def test_the_ticker_on_a_terminal_only():
    terminal = Terminal()
    with Ticker(stream=terminal, interval=0.01) as ticker:
        ticker.step("compiling")
        ticker.step("linking")
    text = terminal.getvalue()
    assert "compiling ... 0 s" in text and "\r\x1b[Kcompiling: 0.0 s\n" in text
    assert text.endswith("\r\x1b[Klinking: 0.0 s\n")
    for stream, quiet in ((io.StringIO(), False), (Terminal(), True)):
        with Ticker(quiet=quiet, stream=stream) as ticker:
            ticker.step("compiling")
        assert stream.getvalue() == ""


#: the stand-in as YoWASP's first run and nextpnr behave: a banner on stderr from every tool, and
#: nextpnr writing its log (--log posdata.tim) as it places and routes
BANNER = 'echo "Preparing to run stand-in. This might take a while..." >&2\n'
PLACED = ("Info:     at iteration #$i, type ALL: wirelen solved = 1, spread = 2, "
          "legal = ${i}000; time = 0.1s")
ROUTED = "Info:       1000 |      160        839 |  160   839 |     63889|       1.36       1.36|"
CHATTY_TOOL = TOOL.replace('case "$1" in', BANNER + 'case "$1" in').replace("  --quiet)\n", f"""\
  --quiet)
      for i in 1 2 3; do
          echo "{PLACED}" >> posdata.tim
          sleep 0.4
      done
      echo "{ROUTED}" >> posdata.tim
      sleep 0.4
""")


@pytest.fixture
def chatty_tools(tmp_path, monkeypatch):
    assert CHATTY_TOOL != TOOL
    return install_stand_in(tmp_path, monkeypatch, CHATTY_TOOL)


@pytest.fixture
def banner_tools(tmp_path, monkeypatch):
    """The banner alone, no waiting: where nextpnr's progress is not at issue."""
    return install_stand_in(tmp_path, monkeypatch, TOOL.replace('case "$1" in',
                                                                BANNER + 'case "$1" in'))


def test_the_tools_chatter_goes_to_a_log_and_their_progress_to_the_line(chatty_tools, capfd):
    """Issue 40 item 3: nothing of the tools on the terminal; nextpnr's iterations and the arcs
    its router has left as the build's status."""
    statuses = []
    result = synthesize("icebreaker", build_dir=str(chatty_tools / "build"),
                        status=statuses.append)
    out, err = capfd.readouterr()
    assert "Preparing to run" not in out + err
    log = (chatty_tools / "build" / "synth" / "icebreaker" / "posdata.tools.log").read_text()
    assert log.count("Preparing to run stand-in") == 3  # Yosys, nextpnr, the packer
    assert "placing, iteration 1, wire length 1,000" in statuses
    assert statuses[-1] == "routing, 63,889 arcs left" and result.report["fmax_mhz"] == 55.5


def test_verbose_streams_the_tools(banner_tools, capfd):
    synthesize("icebreaker", build_dir=str(banner_tools / "build"), verbose=True)
    assert "Preparing to run stand-in" in capfd.readouterr().err


def test_a_failed_build_names_the_log_and_its_last_words(banner_tools, monkeypatch):
    from posdata.hdl.boards.synth import SynthError
    monkeypatch.setenv("FAIL", "--quiet")
    with pytest.raises(SynthError) as e:
        synthesize("icebreaker", build_dir=str(banner_tools / "build"))
    text = str(e.value)
    assert "\n" not in text and "posdata.tools.log" in text
    assert "its last words: Preparing to run stand-in" in text


def test_synth_shows_nextpnr_on_the_line_and_now_and_then_off_it(chatty_tools, monkeypatch):
    from posdata.sim.cli import synth_cmd
    monkeypatch.setattr(synth_cmd, "print_report", lambda report: None)
    for stream in (Terminal(), io.StringIO()):
        monkeypatch.setattr(sys, "stderr", stream)
        monkeypatch.setattr(synth_cmd, "STATUS_EVERY_S", 0)
        assert main(["synth", "--board", "icebreaker", "--build-dir",
                     str(chatty_tools / "build")]) == 0
        err = stream.getvalue()
        if isinstance(stream, Terminal):
            assert "nextpnr: place and route ... 0 s: placing, iteration 1" in err, err
        else:
            assert re.search(r"\.\.\. nextpnr: place and route, \d+ s: routing, 63,889 arcs "
                             r"left\n", err), err
            assert "\r" not in err
