"""Every projected hardware time is at the clock of a build that holds what ran (issue 40 item 1):
the perft chip's clocks at a build with as many perft engines (never the iCEBreaker's
generator-only Fmax, however new), the generator's cycles at the newest build holding a generator,
the search thread's at a search board's build with as many threads, each of the variant's ROM
geometry; none of these, no time and the `posdata synth` that would make one. The JSON names the
report (board, commit, build time) or --mhz. The demo's table is at the ULX3S-25F's clock, its
own build's once it has one. The runs themselves are stubbed: only the clock is under test."""

import json
import os
from pathlib import Path

import pytest

from posdata.sim.cli import main
from posdata.sim.cli.clock import Gateware, clock_for
from posdata.sim.drivers.targets import Target
from posdata.sim.runs.chip_perft import ChipReport
from posdata.sim.views.perft_report import PerftReport

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def plant(root, board: str, report: dict, mtime: int) -> str:
    d = root / "build" / "synth" / board
    d.mkdir(parents=True, exist_ok=True)
    (d / "report.json").write_text(json.dumps({"board": board, **report}))
    os.utime(d / "report.json", (mtime, mtime))
    return os.path.join("build", "synth", board, "report.json")


@pytest.fixture
def builds(tmp_path, monkeypatch):
    """A ULX3S-25F perft chip build, then a newer iCEBreaker build of the generator alone, then
    a newer search board build of one thread."""
    monkeypatch.chdir(tmp_path)
    chip = plant(tmp_path, "ulx3s-25f", {"fmax_mhz": 90.81, "engines": 1, "commit": "abc123",
                                         "built": "2026-01-02T03:04:05Z",
                                         "design": "perft chip", "variant": "chess"}, 1_000)
    gen = plant(tmp_path, "icebreaker", {"fmax_mhz": 41.97, "engines": 0,
                                         "design": "generator"}, 2_000)
    search = plant(tmp_path, "ulx3s-25f-search", {"fmax_mhz": 37.25, "engines": 0,
                                                 "design": "search thread", "threads": 1,
                                                 "variant": "chess"}, 3_000)
    return chip, gen, search


@pytest.fixture
def stub_runs(monkeypatch):
    def chip_perft(board, depth, backend, target, *args, **kwargs):
        return ChipReport(board.fen(), depth, backend, Target(), False, nodes=20,
                          clocks=9_081_000, counts=1, sw_nodes=20)

    def gen_perft(board, depth, backend, target, *args, **kwargs):
        return PerftReport(board.fen(), depth, backend, "cxxrtl", nodes=20, calls=1,
                           cycles=4_197_000, moves=20)
    monkeypatch.setattr("posdata.sim.runs.chip_perft.run_chip_perft", chip_perft)
    monkeypatch.setattr("posdata.sim.runs.gen_perft.run_perft", gen_perft)


@pytest.mark.parametrize("backend", ["hw", "both"])
def test_the_chip_runs_at_a_chip_builds_clock(builds, stub_runs, capsys, backend):
    assert main(["perft", "--depth", "1", "--backend", backend, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mhz"] == 90.81 and out["hw_seconds"] == pytest.approx(0.1)
    assert out["clock"] == {"mhz": 90.81, "source": "report", "report": builds[0],
                            "board": "ulx3s-25f", "commit": "abc123",
                            "built": "2026-01-02T03:04:05Z"}
    assert main(["perft", "--depth", "1", "--backend", backend]) == 0
    assert "at 90.81 MHz (ulx3s-25f's Fmax, build/synth/ulx3s-25f/report.json, commit " \
           "abc123" in capsys.readouterr().out


def test_the_generator_runs_at_the_newest_builds_clock(builds, stub_runs, capsys):
    assert main(["perft", "--depth", "1", "--backend", "gen", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mhz"] == 41.97 and out["clock"]["board"] == "icebreaker"
    assert out["clock"]["commit"] is None and out["clock"]["built"].endswith("Z")


def test_mhz_says_it_is_mhz(builds, stub_runs, capsys):
    assert main(["perft", "--depth", "1", "--backend", "hw", "--mhz", "50", "--json"]) == 0
    clock = json.loads(capsys.readouterr().out)["clock"]
    assert clock["mhz"] == 50 and clock["source"] == "--mhz" and clock["report"] is None


@pytest.mark.parametrize("backend, mhz", [("hw", 90.81), ("gen", 41.97)])
def test_compare_takes_the_clock_of_what_ran(builds, capsys, monkeypatch, backend, mhz):
    seen = []
    monkeypatch.setattr("posdata.sim.cli.compare_cmd.compare_table",
                        lambda depths, target, jobs, clock, **kw: seen.append(clock) or [])
    assert main(["compare", "--backend", backend, "-j", "1", "--json"]) == 0
    assert seen[0].mhz == mhz
    assert json.loads(capsys.readouterr().out)["clock"]["mhz"] == mhz


def test_only_a_chip_build_clocks_the_chip(tmp_path):
    plant(tmp_path, "icebreaker", {"fmax_mhz": 41.97, "engines": 0, "design": "generator"},
          2_000)
    build = str(tmp_path / "build")
    assert clock_for(Gateware("chip"), build_dir=build) is None
    assert clock_for(Gateware("generator"), build_dir=build).mhz == 41.97
    assert clock_for(Gateware("search"), build_dir=build) is None


@pytest.mark.parametrize("ran, mhz", [
    (Gateware("chip"), 90.81),
    (Gateware("chip", "chess960"), 90.81),  # Chess960's gateware is chess's
    (Gateware("chip", engines=2), None),
    (Gateware("chip", "amazon"), None),  # another ROM geometry
    (Gateware("chip", "almost"), 90.81),  # the same geometry, other memory contents
    (Gateware("generator"), 41.97),
    (Gateware("generator", "grasshopper"), None),
    (Gateware("search"), 37.25),
    (Gateware("search", threads=2), None),
])
def test_which_build_holds_what_ran(builds, ran, mhz):
    clock = clock_for(ran)
    assert (clock.mhz if clock else None) == mhz


@pytest.mark.parametrize("ran, command", [
    (Gateware("chip", engines=2), "posdata synth --board ulx3s-85f --engines 2"),
    (Gateware("chip", "amazon"), "posdata synth --board ulx3s-25f --variant amazon"),
    (Gateware("search", threads=4), "posdata synth --board ulx3s-85f --search --threads 4"),
    (Gateware("search"), "posdata synth --board ulx3s-25f --search"),
    (Gateware("generator", "grasshopper"),
     "posdata synth --board ulx3s-25f --variant grasshopper"),
])
def test_no_build_says_which_synth_makes_one(tmp_path, ran, command):
    """The command named is one `posdata synth` takes (parsed, not run)."""
    from posdata.sim.cli import build_parser
    assert clock_for(ran, build_dir=str(tmp_path)) is None
    line = ran.no_clock()
    assert line.startswith("none: no synthesis in build/synth holds ") and f"`{command}`" in line
    args = build_parser().parse_args(command.split()[1:])
    assert args.command == "synth"


def test_a_board_with_modes_clocks_every_chip_with_modes(tmp_path):
    """The variants with modes share one chip geometry (memory contents differ): a grasshopper
    board's build clocks pawnsideways' chip and Berolina's, not chess's chip nor pawnsideways'
    generator (its own geometry); with no build, Berolina's line names its own board's synth."""
    plant(tmp_path, "ulx3s-25f", {"fmax_mhz": 101.5, "engines": 1, "design": "perft chip",
                                  "variant": "grasshopper"}, 1_000)
    build = str(tmp_path / "build")
    for variant in ("grasshopper", "pawnsideways", "berolina"):
        assert clock_for(Gateware("chip", variant), build_dir=build).mhz == 101.5, variant
    assert clock_for(Gateware("chip"), build_dir=build) is None
    assert clock_for(Gateware("generator", "pawnsideways"), build_dir=build) is None
    line = Gateware("chip", "berolina").no_clock()
    assert line == ("none: no synthesis in build/synth holds the perft chip, berolina's ROM "
                    "geometry; `posdata synth --board ulx3s-25f --variant berolina` makes "
                    "one, or give --mhz")


@pytest.mark.parametrize("argv", [["--engines", "2"], ["--variant", "amazon"]])
def test_a_chip_count_with_no_build_quotes_no_time(builds, stub_runs, capsys, argv):
    assert main(["perft", "--depth", "1", "--backend", "hw", *argv]) == 0
    out = capsys.readouterr().out
    assert "hw time  none: no synthesis in build/synth holds the perft chip" in out
    assert " s (the chip's clocks)" not in out
    assert main(["perft", "--depth", "1", "--backend", "hw", "--json", *argv]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["clock"] is None and out.get("hw_seconds") is None
    assert "posdata synth" in out["no_clock"]


class FakeThread:
    """The compiled search thread stood in for by the reference, 1,000 clocks a node."""

    def __init__(self, *args, **kwargs):
        from posdata.engine.search.host_search import ReferenceLeaf
        self.leaf, self.jobs, self.load_clocks = ReferenceLeaf(), 0, 0

    def search(self, *args, **kwargs):
        import dataclasses
        r = self.leaf.search(*args, **kwargs)
        self.jobs += 1
        return dataclasses.replace(r, clocks=1_000 * r.nodes)

    def close(self):
        pass


@pytest.mark.parametrize("threads, mhz", [(1, 37.25), (2, None)])
def test_the_search_thread_runs_at_a_search_builds_clock(builds, capsys, monkeypatch, threads,
                                                        mhz):
    """Not at the perft chip's clock (the thread routes slower), and with two threads at none:
    no build holds two."""
    monkeypatch.setattr("posdata.sim.drivers.search_cxxrtl.SearchModel", FakeThread)
    argv = ["search", "--backend", "hw", "--depth", "2", "--threads", str(threads), "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mhz"] == mhz
    if mhz is None:
        assert out["hw_seconds"] is None and "with 2 threads" in out["no_clock"]
    else:
        assert out["clock"]["board"] == "ulx3s-25f-search" and out["hw_seconds"] > 0


def demo_stubs(monkeypatch, build: bool):
    """The demo's parts stubbed: its bitstream (a report at 77.7 MHz, newer than the others)
    and the table, which records its clock."""
    seen = []
    for part in ("software_perft", "cycle_simulation"):
        monkeypatch.setattr(f"posdata.sim.cli.demo_cmd.{part}", lambda: True)

    def bitstream():
        if build:
            plant(Path("."), "ulx3s-25f",
                  {"fmax_mhz": 77.7, "engines": 1}, 3_000)
        return True
    monkeypatch.setattr("posdata.sim.cli.demo_cmd.bitstream", bitstream)
    monkeypatch.setattr("posdata.sim.cli.compare_table.compare_table",
                        lambda depths, target, jobs, clock, **kw: seen.append(clock) or [])
    return seen


def test_the_demo_table_is_at_its_own_ulx3s_build_clock(builds, monkeypatch):
    seen = demo_stubs(monkeypatch, build=True)
    assert main(["demo"]) == 0
    assert seen[0].mhz == 77.7 and seen[0].board == "ulx3s-25f"


def test_the_demo_without_synthesis_takes_the_ulx3s_clock_or_mhz(builds, monkeypatch):
    seen = demo_stubs(monkeypatch, build=False)
    monkeypatch.setenv("SYNTH", "0")
    assert main(["demo"]) == 0
    assert main(["demo", "--mhz", "60"]) == 0
    assert [c.mhz for c in seen] == [90.81, 60]  # never the newer iCEBreaker's 41.97


@pytest.mark.parametrize("special", ["FIFO", "directory", "huge"])
def test_a_report_that_is_no_regular_file_is_passed_over_not_waited_on(builds, tmp_path,
                                                                       special):
    """A FIFO put at report.json (a shared working folder) blocked every hw run on open()."""
    import threading
    path = tmp_path / "build" / "synth" / "ulx3s-85f" / "report.json"
    path.parent.mkdir(parents=True)
    if special == "FIFO":
        os.mkfifo(path)
    elif special == "directory":
        path.mkdir()
    else:  # a valid report padded past what any report holds
        path.write_text(json.dumps({"board": "ulx3s-85f", "fmax_mhz": 50.0, "engines": 1,
                                    "pad": " " * (2 << 20)}))
    os.utime(path, (3_000, 3_000))  # the newest
    found = []
    worker = threading.Thread(target=lambda: found.append(clock_for(Gateware("chip"))),
                              daemon=True)
    worker.start()
    worker.join(5)  # a refusal takes milliseconds: the guard is far above it
    if worker.is_alive():
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # let it go
        worker.join()
        pytest.fail("clock_for waited on a FIFO")
    assert found[0].mhz == 90.81 and found[0].board == "ulx3s-25f"
