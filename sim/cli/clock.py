"""The clock of projected hardware times: --mhz, or the Fmax of the newest complete synthesis
report of a build that holds what ran: the same design (the generator, the perft chip, the
search thread), a variant of the same ROM geometry (the RTL differs only in memory contents),
the same number of perft engines or search threads. Every board holds the generator; the perft
chip's builds are those with its engines; the search board's, the thread. No such build: no
time, and ``Gateware.synth_command`` says which ``posdata synth`` would make one. ``clock_for``
is the one choice, for the CLI and the benches. A clock says where it came from (the report,
its board, commit and build time), so no figure is quoted bare."""

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
#: the designs each build's report names (hdl.boards.synth_targets, hdl.boards.synth)
HOLDS = {"perft chip": {"chip", "generator"}, "generator": {"generator"},
         "search thread": {"search"}}
NAMES = {"chip": "the perft chip", "generator": "the move generator",
         "search": "the search thread"}


@dataclass(frozen=True)
class Gateware:
    """What ran, as far as a build's clock goes."""
    design: str            #: DESIGNS
    variant: str = "chess"  #: a variant's name: its ROM geometry must be the build's
    engines: int = 1       #: the perft chip's engines
    threads: int = 1       #: the search board's threads

    def __post_init__(self):
        if self.design not in DESIGNS:
            raise ValueError(f"design is one of {DESIGNS}, not {self.design!r}")

    def held_by(self, report: dict) -> bool:
        """Whether the build of ``report`` (a synthesis report.json) holds what ran."""
        if self.design not in HOLDS.get(report.get("design", "perft chip"), ()):
            return False
        if self.design == "chip" and report.get("engines") != self.engines:
            return False
        if self.design == "search" and report.get("threads", 1) != self.threads:
            return False
        built = report.get("variant", "chess")
        return isinstance(built, str) and same_geometry(built, self.variant, self.design)

    def describe(self) -> str:
        """``the perft chip with 2 engines, makruk's ROM geometry``."""
        what = NAMES[self.design]
        if self.design == "chip" and self.engines != 1:
            what += f" with {self.engines} engines"
        if self.design == "search" and self.threads != 1:
            what += f" with {self.threads} threads"
        return what + ("" if same_geometry("chess", self.variant, self.design)
                       else f", {self.variant}'s ROM geometry")

    def synth_command(self) -> str:
        """The ``posdata synth`` that builds it (one ULX3S-25F holds one engine or thread)."""
        many = self.engines > 1 if self.design == "chip" else \
            self.threads > 1 if self.design == "search" else False
        words = ["posdata synth", "--board ulx3s-85f" if many else "--board ulx3s-25f"]
        if self.design == "search":
            words += ["--search"] + ([f"--threads {self.threads}"] if self.threads > 1 else [])
        if self.design == "chip" and self.engines > 1:
            words.append(f"--engines {self.engines}")
        variant = self.board_variant()
        if variant != "chess":
            words.append(f"--variant {variant}")
        return " ".join(words)

    def board_variant(self) -> str | None:
        """The variant whose board holds what ran: its own, else (a perft chip an ECP5 board
        refuses) one of the same geometry a board takes, as every chip with modes is
        grasshopper's but for memory contents; None when no board builds it."""
        if self.design != "chip" or same_geometry("chess", self.variant, self.design):
            return self.variant
        from posdata.engine.rules.capabilities import runs_on
        from posdata.engine.rules.variants import VARIANT_NAMES
        return next((v for v in (self.variant, *VARIANT_NAMES) if "ecp5" in runs_on(v)
                     and same_geometry(v, self.variant, self.design)), None)

    def no_clock(self, build_dir: str = "build") -> str:
        """The line in place of a time when no build holds what ran (nor can: a chip of a
        geometry no ECP5 board builds)."""
        if self.board_variant() is None:
            return f"none: no board builds {self.describe()}; give --mhz"
        return (f"none: no synthesis in {build_dir}/synth holds {self.describe()}; "
                f"`{self.synth_command()}` makes one, or give --mhz")


def same_geometry(a: str, b: str, design: str = "generator") -> bool:
    """Two variants' gateware share a ROM geometry (unknown names do not): the perft chip's
    (``hdl.chip.modes.chip_geometry``: one for every variant with modes) for ``design`` chip,
    else the generator's."""
    if a == b:
        return True
    from posdata.hdl.image.variant import geometry_of
    if design == "chip":
        from posdata.hdl.chip.modes import chip_geometry as geometry_of
    try:
        return geometry_of(a) == geometry_of(b)
    except (KeyError, ValueError):  # engine.rules.variants.VariantError is a ValueError
        return False


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


def clock_for(ran: Gateware, mhz: float | None = None, build_dir: str = "build",
              board: str = "*") -> Clock | None:
    """The clock for projected hardware times of what ran: --mhz when given, else the Fmax of
    the newest complete synthesis report of ``board`` (a glob) under ``build_dir`` whose build
    holds it; None when there is none (``ran.no_clock()`` says so)."""
    if mhz is not None:
        if not MHZ_RANGE[0] <= mhz <= MHZ_RANGE[1]:  # also nan
            raise CliError(f"--mhz must be between {MHZ_RANGE[0]:g} and {MHZ_RANGE[1]:g}, "
                           f"not {mhz}")
        return Clock(mhz)
    newest = None
    # `synth` writes report.json last, and only into a complete build: a build under way or
    # failed (in a directory of its own beside this one) has none here
    for path in glob.glob(os.path.join(build_dir, "synth", board, "report.json")):
        try:  # a FIFO or device put there (a shared folder) is passed over, not waited on
            report = json.loads(read_regular(path, REPORT_LIMIT))
            fmax = float(report["fmax_mhz"])
            mtime = os.path.getmtime(path)
            held = ran.held_by(report)
        except (OSError, ValueError, KeyError, TypeError, RecursionError, AttributeError):
            continue
        if not held or not MHZ_RANGE[0] <= fmax <= MHZ_RANGE[1]:  # damaged (nan, 0): no clock
            continue
        if newest is None or mtime > newest[0]:
            built = report.get("built") if isinstance(report.get("built"), str) else \
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(mtime))
            commit = report.get("commit") if isinstance(report.get("commit"), str) else None
            name = report.get("board")
            newest = (mtime, Clock(fmax, path, name if isinstance(name, str) else
                                   os.path.basename(os.path.dirname(path)), commit, built))
    return newest[1] if newest else None
