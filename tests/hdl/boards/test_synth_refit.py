"""posdata synth --search without --mhz picks its clock (issue 39, item 4): built first at the
perft chip's clock (SEARCH_MHZ), a build that misses it is built again (at most twice) at the
highest clock below its Fmax that the ECP5's PLL makes from the board's 25 MHz and the UART
divides into the baud rate; a build that meets it, or one given --mhz, is built once. The tools
do not run here: ``synthesize`` is a stand-in that routes at a given Fmax."""

import json

import pytest

from posdata.hdl.boards.ecp5_pll import pll_settings
from posdata.hdl.boards.ecp5_top import fitting_mhz, uart_divisor
from posdata.hdl.boards.synth import SEARCH_MHZ
from posdata.sim.cli import main


@pytest.mark.parametrize("fmax, baud, want", [
    (35.59, 3_000_000, 25 * 4 / 3),    # 33.33 MHz: divisor 11, 1.0 % fast
    (33.0, 3_000_000, 30.0),           # 33.33 is above it; 30 MHz: divisor 10, exact
    (29.73, 3_000_000, 25 * 5 / 6),    # 20.83 MHz: divisor 7; 25 MHz (8.33) is 4 % off
    (100.2, 3_000_000, 100.0),
    (12.0, 3_000_000, None),           # nothing from 12 down keeps 2 % at divisor 4 or more
    (29.73, 115_200, 25 * 7 / 6),      # a slow link: nearly any clock
])
def test_the_fitting_clock(fmax, baud, want):
    got = fitting_mhz(fmax, baud, 25.0)
    assert got == pytest.approx(want) if want else got is None
    if got:  # what the board's top would build at it
        assert pll_settings(25.0, got).output_mhz == pytest.approx(got)
        uart_divisor(got * 1e6, baud)


class Builds:
    """``synthesize``'s stand-in: routes at ``fmax`` (one a call), says what it was asked."""

    def __init__(self, *fmax):
        self.fmax, self.asked = list(fmax), []

    def __call__(self, board, mhz, baud, build_dir, seed, progress, **kwargs):
        from posdata.hdl.boards.synth import SynthResult
        self.asked.append(mhz)
        fmax, constraint = self.fmax.pop(0), SEARCH_MHZ if mhz is None else mhz
        report = {"board": board, "device": "LFE5U-25F-6BG381", "design": "search thread",
                  "threads": 1, "fmax_mhz": fmax, "constraint_mhz": constraint,
                  "timing_met": fmax >= constraint, "seed": seed,
                  "pll": {"input_mhz": 25.0, "output_mhz": constraint}}
        return SynthResult(board, "LFE5U-25F-6BG381", build_dir, report)


@pytest.mark.parametrize("argv, fmax, asked", [
    ([], [29.73, 21.5], [None, pytest.approx(25 * 5 / 6)]),  # missed: once more
    ([], [62.17, 61.5], [None, pytest.approx(25 * 17 / 7)]),  # 60.71 MHz: divisor 20, 1.2 % slow
    # missed again just under the first Fmax: once more below the second's, then as it is
    ([], [72.3, 70.96, 70.9], [None, pytest.approx(71.875), pytest.approx(25 * 17 / 6)]),
    ([], [72.3, 70.96, 69.0], [None, pytest.approx(71.875), pytest.approx(25 * 17 / 6)]),
    ([], [SEARCH_MHZ + 0.5], [None]),                         # met: once
    (["--mhz", "30"], [29.73], [30.0]),                       # asked for: as asked
    ([], [11.0], [None]),                                     # nothing fits: as it is
])
def test_a_missed_search_build_is_built_again_at_most_twice(tmp_path, capsys, monkeypatch,
                                                            argv, fmax, asked):
    builds = Builds(*fmax)
    monkeypatch.setattr("posdata.hdl.boards.synth.synthesize", builds)
    assert main(["synth", "--search", "--build-dir", str(tmp_path), "--json", *argv]) == 0
    assert builds.asked == asked
    report = json.loads(capsys.readouterr().out)
    if len(asked) > 1:
        assert report["refitted"] == {"first_mhz": SEARCH_MHZ, "first_fmax_mhz": fmax[0],
                                      "builds": len(asked)}
        assert report["fmax_mhz"] == fmax[-1]
        assert report["timing_met"] == (fmax[-1] >= builds.asked[-1])
    else:
        assert "refitted" not in report
