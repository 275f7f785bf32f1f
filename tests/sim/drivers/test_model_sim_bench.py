"""`make bench-sim`'s board and search half (bench/model_sim.py): its arguments, and (slow: both
simulators' models of both designs) a run whose figures are read back from its JSON."""

import json
import shutil

import pytest

from tests.scripts import load_bench


def load(monkeypatch):
    return load_bench("model_sim", monkeypatch)


@pytest.mark.parametrize("argv", [["--designs", "chip"], ["--designs", ","], ["--rounds", "0"],
                                  ["--chip-depth", "-1"]])
def test_bad_arguments_are_refused(monkeypatch, capsys, argv):
    with pytest.raises(SystemExit) as exit_:
        load(monkeypatch).main(argv)
    assert exit_.value.code == 2 and "error:" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(not any(shutil.which(c) for c in ("c++", "g++", "clang++")),
                    reason="no C++ compiler: the models cannot be built")
def test_both_simulators_agree_and_are_timed(monkeypatch, tmp_path):
    path = tmp_path / "models.json"
    assert load(monkeypatch).main(["--warm", "--rounds", "2", "--depth", "2", "--search-depth",
                                   "2", "--chip-depth", "1", "--json", str(path)]) == 0
    data = json.loads(path.read_text())
    assert [d["design"] for d in data["designs"]] == ["board", "search"]
    for design in data["designs"]:
        assert [row["simulator"] for row in design["rows"]] == ["cxxrtl", "verilator"]
        assert design["amount"] > 0
        for row in design["rows"]:
            assert row["compile_seconds"] is None and row["run_seconds"] > 0  # --warm
