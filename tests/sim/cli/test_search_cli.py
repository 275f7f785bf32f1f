"""posdata search --backend sw|gen|hw|both (sim/cli/search_cmd.py), in process."""

import json

import pytest

from posdata.engine.search.host_search import ReferenceLeaf
from posdata.engine.search.leaf_search import LeafResult
from posdata.sim.cli import main
from posdata.sim.drivers import search_cxxrtl

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def run_json(capsys, *argv):
    code = main(["search", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_hw_and_sw_agree_and_both_matches(capsys):
    common = ["--fen", KIWIPETE, "--depth", "3", "--chip-depth", "1", "--mhz", "100"]
    _, sw = run_json(capsys, "--backend", "sw", *common[:-2])
    _, hw = run_json(capsys, "--backend", "hw", *common)
    code, both = run_json(capsys, "--backend", "both", *common)
    assert code == 0 and both["match"] is True and both["difference"] is None
    for key in ("score", "bestmove", "pv", "nodes"):
        assert sw[key] == hw[key] == both[key], key
    assert sw["hw_cycles"] is None and sw["match"] is None
    assert hw["hw_nodes"] == both["hw_nodes"] == sw["nodes"] - hw["nodes"] + hw["hw_nodes"]
    assert hw["clocks_per_node"] == pytest.approx(hw["hw_cycles"] / hw["hw_nodes"], abs=1e-3)
    assert hw["hw_load_cycles"] > 0
    assert hw["mhz"] == 100 and hw["hw_seconds"] == pytest.approx(
        (hw["hw_cycles"] + hw["hw_load_cycles"]) / 100e6)


def test_threads_give_the_serial_result(capsys):
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    common = ["--fen", fen, "--depth", "3", "--chip-depth", "1"]
    _, serial = run_json(capsys, "--backend", "sw", *common)
    _, sw = run_json(capsys, "--backend", "sw", "--threads", "3", *common)
    _, hw = run_json(capsys, "--backend", "hw", "--threads", "3", "--mhz", "100", *common)
    for key in ("score", "bestmove", "pv"):
        assert serial[key] == sw[key] == hw[key], key
    assert (serial["threads"], sw["threads"], hw["threads"]) == (1, 3, 3)
    assert hw["nodes"] == sw["nodes"]  # the same batches, each job the reference's
    assert 0 < hw["hw_parallel_cycles"] <= hw["hw_cycles"]
    assert hw["hw_seconds"] < (hw["hw_cycles"] + hw["hw_load_cycles"]) / 100e6


class _Faulty:
    """The reference, one node too many on every job: 'both' descends to a quiescence job."""

    def __init__(self, *args, **kwargs):
        self.reference = ReferenceLeaf()

    def search(self, board, alpha, beta, depth, ply=0, extensions=0):
        r = self.reference.search(board, alpha, beta, depth, ply, extensions)
        return LeafResult(r.score, r.best_move, r.nodes + 1, 1)

    def close(self):
        pass


def test_both_names_the_first_differing_node(capsys, monkeypatch):
    monkeypatch.setattr(search_cxxrtl, "SearchModel", _Faulty)
    code = main(["search", "--backend", "both", "--depth", "2", "--chip-depth", "1"])
    out = capsys.readouterr().out
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith("MISMATCH"))
    assert " w " in line or " b " in line  # a FEN
    assert "window (" in line and "depth 0" in line


@pytest.mark.parametrize("argv, said", [
    (["--backend", "hw", "--depth", "2", "--chip-depth", "9"], "--chip-depth must be between"),
    (["--backend", "sw", "--movetime", "100"], "not for a --movetime"),
    (["--depth", "2", "--chip-depth", "1"], "--chip-depth goes with"),
    (["--backend", "sw", "--movegen", "hw", "--depth", "1"], "contradicts"),
    (["--backend", "sw", "--variant", "amazon", "--depth", "1"], "orthodox chess only"),
    (["--backend", "hw", "--target", "pysim", "--depth", "1"], "not --target pysim"),
    (["--backend", "sw", "--mhz", "100", "--depth", "1"], "--mhz goes with"),
    (["--backend", "gen", "--mhz", "100", "--depth", "1"], "--mhz goes with"),
    (["--target", "pysim", "--depth", "1"], "--target goes with --backend gen"),
    (["--backend", "both", "--threads", "2", "--depth", "2"], "--threads goes with"),
    (["--backend", "sw", "--threads", "9", "--depth", "2"], "--threads must be between"),
    (["--movegen", "sw", "--port", "/dev/null", "--depth", "1"], "--port goes with --backend gen"),
    (["--threads", "2", "--depth", "1"], "--threads goes with --backend sw or hw"),
    (["--backend", "gen", "--threads", "1", "--depth", "1"], "--threads goes with"),
    (["--backend", "hw", "--baud", "9600", "--depth", "1"], "--baud goes with --target board"),
    (["--backend", "sw", "--baud", "9600", "--depth", "1"], "--baud goes with --backend gen"),
])
def test_bad_values_are_one_line(capsys, argv, said):
    assert main(["search", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and "\n" not in err


def test_old_spelling_is_gen(capsys):
    _, old = run_json(capsys, "--movegen", "hw", "--depth", "2")
    _, new = run_json(capsys, "--backend", "gen", "--depth", "2")
    assert old["backend"] == new["backend"] == "gen"
    assert (old["nodes"], old["pv"]) == (new["nodes"], new["pv"])
