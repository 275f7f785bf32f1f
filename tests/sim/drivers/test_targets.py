"""--target on moves, compare, search and uci: each command runs the gateware on the target it
names (the driver sim.drivers.targets makes is recorded) and gives the reference's results: moves in
the reference's order with the same cycles on pysim and Verilator, compare's table on pysim, the
search's tree on Verilator, UCI go perft on pysim against python-chess."""

import io
import json
import sys
import time

import chess
import pytest

from posdata.engine.rules.positions import BY_NAME
from posdata.sim.cli import main
from posdata.sim.drivers import targets as backends

KIWIPETE = BY_NAME["kiwipete"].fen


@pytest.fixture
def targets_made(monkeypatch):
    """The target name of every driver made through sim.drivers.targets."""
    made, real = [], backends.make_driver

    def spy(target="cxxrtl", **options):
        made.append(backends.as_target(target).name)
        return real(target, **options)
    monkeypatch.setattr(backends, "make_driver", spy)
    return made


def run_json(argv, capsys):
    status = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


def test_moves_on_pysim_and_verilator(capsys, targets_made):
    sw = run_json(["moves", "--fen", KIWIPETE], capsys)
    on = {t: run_json(["moves", "--fen", KIWIPETE, "--backend", "hw", "--target", t], capsys)
          for t in ("pysim", "verilator")}
    assert targets_made == ["pysim", "verilator"]
    for t, out in on.items():
        assert out["moves"] == sw["moves"] and out["target"] == t
    assert on["pysim"]["cycles"] == on["verilator"]["cycles"] > 0


def test_compare_on_pysim(capsys, targets_made):
    out = run_json(["compare", "--backend", "gen", "--depth", "1", "--target", "pysim",
                    "-j", "1", "--quiet"], capsys)
    assert out["sim"] == "pysim" and set(targets_made) == {"pysim"}
    assert [r["hw_nodes"] for r in out["positions"]] == \
        [r["published"] for r in out["positions"]] and all(r["match"] for r in out["positions"])


def test_search_on_verilator(capsys, targets_made):
    argv = ["search", "--fen", KIWIPETE, "--depth", "2"]
    sw = run_json(argv, capsys)
    hw = run_json(argv + ["--movegen", "hw", "--target", "verilator"], capsys)
    assert targets_made == ["verilator"] and hw["target"] == "verilator"
    for key in ("bestmove", "score", "pv", "nodes"):
        assert hw[key] == sw[key], key


class HeldStdin(io.BytesIO):
    """stdin whose end is held back until ``done()``: the end of input (as quit) stops a go
    perft still counting on the engine's worker thread."""

    def __init__(self, data: bytes, done):
        super().__init__(data)
        self.buffer, self.done = self, done

    def readline(self, size=-1):
        line = super().readline(size)
        deadline = time.monotonic() + 300  # a hang guard: idle the count ends in ~1 s
        while not line and not self.done() and time.monotonic() < deadline:
            time.sleep(0.01)
        return line


def test_uci_go_perft_on_pysim(capsys, monkeypatch, targets_made):
    commands = "setoption name MoveGen value hw\nposition startpos moves e2e4\ngo perft 2\n"
    monkeypatch.setattr(sys, "stdin", HeldStdin(commands.encode(),
                                                lambda: "Nodes searched" in sys.stdout.getvalue()))
    assert main(["uci", "--target", "pysim"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert targets_made == ["pysim"]
    board = chess.Board()
    board.push_uci("e2e4")
    want = 0
    for m in list(board.legal_moves):
        board.push(m)
        want += board.legal_moves.count()
        board.pop()
    assert f"Nodes searched: {want}" in out, out
