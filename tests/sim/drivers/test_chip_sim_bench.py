"""`make bench-sim`'s chip half (bench/chip_sim.py): both simulators count the same clocks, the
ratios are against CXXRTL's model of the same run, a model that counts other clocks stops the
bench, and its figures are a section of docs/measurements.md once `make measurements` ran it."""

import copy
import json
import shutil

import pytest

from tests.scripts import load_bench

pytestmark = pytest.mark.skipif(
    not any(shutil.which(c) for c in ("c++", "g++", "clang++")),
    reason="no C++ compiler: the chip's models cannot be built")


load = load_bench


def test_both_simulators_on_the_same_clocks(monkeypatch, tmp_path, capsys):
    chip_sim = load("chip_sim", monkeypatch)
    path = tmp_path / "sim.json"
    assert chip_sim.main(["--warm", "--rounds", "2", "--depth", "2", "--json", str(path)]) == 0
    data = json.loads(path.read_text())
    assert [row["label"].split()[0] for row in data["rows"]] == ["cxxrtl", "verilator"]
    first, second = data["rows"]
    assert first["bulk_x_cxxrtl"] == first["plain_x_cxxrtl"] == 1.0
    assert second["plain_x_cxxrtl"] == pytest.approx(
        second["plain_clocks_per_s"] / first["plain_clocks_per_s"], abs=0.01)
    assert data["clocks"]["plain"] > data["clocks"]["bulk"] > 0
    assert first["compile_seconds"] is None  # --warm: the cached models
    assert "load average before" in capsys.readouterr().out

    report = load("report", monkeypatch)
    measured = copy.deepcopy(report.load())
    assert "the perft chip under CXXRTL and Verilator" not in report.markdown(measured)
    measured["runs"]["bench-sim-chip"] = {"command": "make bench-sim", "commit": "abc1234",
                                          "date": "2026-11-26", "results": data}
    shown = report.markdown(measured)
    assert "the perft chip under CXXRTL and Verilator" in shown
    assert f"| {second['label']} | cached |" in shown


def test_other_clocks_stop_the_bench(monkeypatch, capsys):
    chip_sim = load("chip_sim", monkeypatch)
    made = []

    class OffByOne(chip_sim.ChipModel):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

        def perft(self, *args, **kwargs):
            count = super().perft(*args, **kwargs)
            count.clocks += self is made[-1]  # the second simulator's clocks are one more
            return count
    monkeypatch.setattr(chip_sim, "ChipModel", OffByOne)
    assert chip_sim.main(["--warm", "--rounds", "1", "--depth", "1"]) == 1
    assert "error: verilator" in capsys.readouterr().err
