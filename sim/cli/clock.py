"""The clock of projected hardware times: --mhz, or the Fmax of the newest complete synthesis
report of a design that holds what ran. The perft chip's clocks go at the clock of a build with
perft engines (not the iCEBreaker's, which holds the generator alone and closes timing higher);
the generator's cycles at any build's, since every board holds the generator. A clock says where
it came from (the report, its board, commit and build time), so no figure is quoted bare."""

import glob
import json
import os
import time
from dataclasses import dataclass

from posdata.hdl.common.regular_files import read_regular

from .common import MHZ_RANGE, CliError

#: what ran: a projected time is at the clock of a build that holds it
DESIGNS = ("chip", "generator", "search")
#: a synthesis report is a few kilobytes; anything far larger is not one
REPORT_LIMIT = 1 << 20


@dataclass(frozen=True)
class Clock:
    mhz: float
    report: str | None = None  #: the report.json it came from; None: --mhz
    board: str | None = None
    commit: str | None = None  #: the source's commit at build time, when the report says
    built: str | None = None   #: UTC build time (the report's, else its file's)

    def describe(self) -> str:
        """For the text outputs: the MHz, then the report, its board, commit and build time."""
        if self.report is None:
            return f"{self.mhz:g} MHz (--mhz)"
        commit = f", commit {self.commit}" if self.commit else ""
        return (f"{self.mhz:g} MHz ({self.board}'s Fmax, {self.report}{commit}, built "
                f"{self.built})")

    def as_dict(self) -> dict:
        return {"mhz": self.mhz, "source": "--mhz" if self.report is None else "report",
                "report": self.report, "board": self.board, "commit": self.commit,
                "built": self.built}


def latest_clock(build_dir: str = "build", board: str = "*",
                 design: str = "generator") -> Clock | None:
    """The clock of the newest complete synthesis report of ``board`` (a glob) under
    ``build_dir`` whose build holds ``design`` (DESIGNS), if one exists."""
    if design not in DESIGNS:
        raise ValueError(f"design is one of {DESIGNS}, not {design!r}")
    newest = None
    # `synth` writes report.json last, and only into a complete build: a build under way or
    # failed (in a directory of its own beside this one) has none here
    for path in glob.glob(os.path.join(build_dir, "synth", board, "report.json")):
        try:  # a FIFO or device put there (a shared folder) is passed over, not waited on
            report = json.loads(read_regular(path, REPORT_LIMIT))
            fmax = float(report["fmax_mhz"])
            mtime = os.path.getmtime(path)
        except (OSError, ValueError, KeyError, TypeError, RecursionError, AttributeError):
            continue
        if not MHZ_RANGE[0] <= fmax <= MHZ_RANGE[1]:  # a damaged report (nan, 0): no clock
            continue
        if design == "chip" and not report.get("engines"):
            continue
        # a search board's build holds neither the perft chip nor the move generator's board
        if (design == "search") != (report.get("design") == "search thread"):
            continue
        if newest is None or mtime > newest[0]:
            built = report.get("built") if isinstance(report.get("built"), str) else \
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime))
            commit = report.get("commit") if isinstance(report.get("commit"), str) else None
            name = report.get("board")
            newest = (mtime, Clock(fmax, path, name if isinstance(name, str) else
                                   os.path.basename(os.path.dirname(path)), commit, built))
    return newest[1] if newest else None


def latest_fmax(build_dir: str = "build", board: str = "*",
                perft_chip: bool = False) -> float | None:
    """Fmax (MHz) of the newest report of ``board`` (with ``perft_chip``: of a build with perft
    engines), if one exists."""
    clock = latest_clock(build_dir, board, "chip" if perft_chip else "generator")
    return clock.mhz if clock else None


def clock_mhz(mhz: float | None, design: str, build_dir: str = "build",
              board: str = "*") -> Clock | None:
    """The clock for projected hardware times of ``design``: --mhz when given, else the newest
    report's of a build that holds it."""
    if mhz is None:
        return latest_clock(build_dir, board, design)
    if not MHZ_RANGE[0] <= mhz <= MHZ_RANGE[1]:  # also nan
        raise CliError(f"--mhz must be between {MHZ_RANGE[0]:g} and {MHZ_RANGE[1]:g}, not {mhz}")
    return Clock(mhz)
