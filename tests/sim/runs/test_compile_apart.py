"""A first run's host time is the count's alone: building (or loading) the model comes first,
timed apart as compile_seconds, so "13 s on the host" for a perft(3) that compiled the model
for 12 of them cannot recur. The model is a stand-in that takes an hour to build, on the run's
clock (BuildClock): no wait, and no count, however busy the machine, takes that long."""

import time

from posdata.engine.rules.board import Board
from posdata.sim.drivers.interface import Generation
from posdata.sim.runs import chip_perft, gen_perft
from posdata.sim.runs.chip_perft import run_chip_perft
from posdata.sim.runs.gen_perft import run_perft

BUILD = 3600.0  # seconds the stand-in model takes to build, on the run's clock


class BuildClock:
    """The ``time`` module as a run sees it: the real clock, plus the builds' hours (``build``
    moves it on, at once)."""

    def __init__(self):
        self.built = 0.0

    def build(self) -> None:
        self.built += BUILD

    def perf_counter(self) -> float:
        return time.perf_counter() + self.built

    def __getattr__(self, name):
        return getattr(time, name)


class Generator:
    """The reference generator's moves, one cycle each, as a driver would give them."""

    def generate(self, board):
        moves = board.moves()
        return Generation(moves, len(moves))

    def close(self):
        pass


def test_the_generators_build_is_timed_apart(monkeypatch):
    from posdata.sim.drivers import worker
    clock = BuildClock()

    def make_driver(target, **options):
        clock.build()
        return Generator()
    monkeypatch.setattr(gen_perft, "time", clock)
    monkeypatch.setattr("posdata.sim.drivers.targets.make_driver", make_driver)
    monkeypatch.setattr(worker, "_driver", None)  # both restored after: no stand-in kept
    monkeypatch.setattr(worker, "_driver_key", None)
    report = run_perft(Board(), 2, "gen", "pysim")
    assert report.nodes == 400
    assert report.compile_seconds >= BUILD > report.seconds
    assert report.as_dict(None)["compile_seconds"] >= BUILD


def test_the_chips_build_is_timed_apart(monkeypatch):
    from tests.sim.runs.test_chip_perft import HidingChip
    clock = BuildClock()

    def make_chip(target, engines=1, variant="chess"):
        clock.build()
        return HidingChip()
    monkeypatch.setattr(chip_perft, "time", clock)
    monkeypatch.setattr(chip_perft, "make_chip", make_chip)
    monkeypatch.setattr(chip_perft, "_chip", None)
    monkeypatch.setattr(chip_perft, "_chip_key", None)
    report = run_chip_perft(Board(), 2, "hw", "cxxrtl")
    assert report.nodes == 400
    assert report.compile_seconds >= BUILD > report.seconds
    assert report.as_dict(None)["compile_seconds"] >= BUILD
