"""The search on the gateware (compiled model) walks the very same tree as on the reference
generator: same node counts, PV and score at every iteration."""

import json

import pytest

import posdata.engine.rules.movegen
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.sim.cli import main as cli_main
from posdata.sim.drivers.movegens import make_movegen
from tests.engine.search.test_search import run_search
from tests.engine.uci.test_uci import POSDATA_UCI_CMD, UciProcess


@pytest.fixture(scope="module")
def hw():
    return make_movegen("hw")


@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_same_tree_on_hardware(hw, pos):
    calls = hw.calls
    assert run_search(pos.fen, 3, hw) == run_search(pos.fen, 3, posdata.engine.rules.movegen)
    assert hw.calls > calls  # the gateware really answered


@pytest.mark.slow
@pytest.mark.parametrize("pos", STANDARD_POSITIONS, ids=lambda p: p.name)
def test_same_tree_on_hardware_depth4(hw, pos):
    assert run_search(pos.fen, 4, hw) == run_search(pos.fen, 4, posdata.engine.rules.movegen)


def test_cli_search_hw_matches_sw(capsys):
    fen = STANDARD_POSITIONS[1].fen
    results = {}
    for movegen in ("sw", "hw"):
        assert cli_main(["search", "--fen", fen, "--depth", "3", "--movegen", movegen,
                         "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        results[movegen] = (out["nodes"], out["score"], out["pv"], out["bestmove"])
    assert results["sw"] == results["hw"]


def test_uci_movegen_hw():
    """A GUI selects the gateware with the MoveGen option; the game goes on identically."""
    outcome = {}
    for name in ("sw", "hw"):
        uci = UciProcess(POSDATA_UCI_CMD)
        try:
            uci.send("uci")
            uci.expect("uciok")
            uci.send(f"setoption name MoveGen value {name}")
            uci.ready(timeout=60)  # a hang guard: loading the compiled model takes ~0.5 s
            uci.send("position startpos moves e2e4 e7e5 g1f3")
            uci.send("go depth 3")
            best = uci.expect("bestmove", timeout=60)  # a hang guard: idle ~0.5 s
            infos = [line for line in uci.log if line.startswith("info depth")]
            assert not any("hardware move generator" in line for line in uci.log), uci.log
            nodes = [line.split(" nodes ")[1].split()[0] for line in infos]
            pvs = [line.split(" pv ")[1] for line in infos]
            outcome[name] = (best, nodes, pvs)
        finally:
            uci.close()
    assert outcome["sw"] == outcome["hw"]
