"""The CLI fuzzer of test_cli_fuzz.py: command lines built from the parser itself (every
subcommand, every option, its type's bounds and choices: a new option is fuzzed without editing
this file), mangled FENs and EPD suites, each run in process through ``main(argv)`` and held to
the CLI's contract: exit status 0, 1 or 2; on 2 exactly one line on stderr,
``posdata: error: ...``; never a traceback; no output file half written, no temporary left.

What a valid command line would start that is slow or touches hardware is replaced by a stub
that raises ``Reached`` (the command line got past every check: a valid outcome):

* a board (``open_board``, ``SerialTransport``) and openFPGALoader (``program_tool.run``):
  hardware;
* the perft chip and the board in Amaranth's simulator (``ChipSimulation``,
  ``SimulatedTransport``): about a thousand clocks a second, a minute for a count of depth 2;
* Dask (``open_client``): ``-j N`` and ``--scheduler`` start workers or reach the network;
* ``synthesize``: minutes of Yosys and nextpnr;
* the demo's four parts: a minute of work;
* the Verilog/RTLIL of ``export`` is a short fixed text (elaboration and Yosys take seconds):
  the files are still written, whole, for real;
* in make test's fuzz (``light``) also the gateware's drivers (``make_driver``, ``make_chip``),
  ``board``'s transports (the board's compiled model) and Amaranth's simulator under ``sim``:
  compiling a model takes minutes the first time and a simulation seconds. The slow fuzz runs
  them.

Work that grows with a number is bounded by ``CAPS``: valid values above the cap (``--depth
12``: hours) are not generated; invalid ones beyond the option's range are.
"""

import argparse
import contextlib
import importlib
import io
import json
import os
import pkgutil
import random
import sys
from dataclasses import dataclass, field

import posdata.hdl
import posdata.sim
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.rules.variants import VARIANT_NAMES
from posdata.sim.cli import build_parser, main
from posdata.sim.runs.variant_positions import sample_positions

#: the largest valid value generated for an option that sizes the work (by dest)
CAPS = {"depth": 2, "max_depth": 2, "movetime": 30, "random": 2}
#: options naming output files or directories, and input files (by dest)
OUTPUTS = {"vcd", "svg", "verilog", "rtlil", "build_dir"}
INPUTS = {"epd"}


class Reached(Exception):
    """A stub's: the command line passed every check and reached slow or hardware work."""


def stubs(light: bool) -> list[tuple[str, str, object]]:
    """(module, attribute, replacement). ``light`` (make test): also the simulators and
    compiled models; otherwise (the slow fuzz) those run, and only Dask, synthesis, serial
    ports, the demo and the export's Yosys are stubbed."""
    def reach(what):
        def stub(*args, **kwargs):
            raise Reached(what)
        return stub

    def text(design="generator", params=None, dut=None):
        return f"// {design} {params}\nmodule posdata_movegen; endmodule\n"

    out = [("posdata.sim.drivers.targets", "open_board", reach("a board")),
           ("posdata.sim.drivers.chip_pysim", "ChipSimulation", reach("the chip in pysim")),
           ("posdata.sim.drivers.fpga_board_sim", "SimulatedTransport",
            reach("the board in pysim")),
           ("posdata.sim.drivers.fpga_board", "SerialTransport", reach("a serial port")),
           ("posdata.sim.cli.program_tool", "run", reach("openFPGALoader")),
           ("posdata.sim.runs.pool", "open_client", reach("Dask")),
           ("posdata.hdl.boards.synth", "synthesize", reach("synthesis")),
           ("posdata.sim.models.verilog_export", "verilog_text", text),
           ("posdata.sim.models.verilog_export", "rtlil_text", text)]
    out += [("posdata.sim.cli.demo_cmd", part, reach("the demo"))
            for part in ("software_perft", "cycle_simulation", "hardware_perft", "bitstream")]
    if light:
        out += [("posdata.sim.drivers.targets", "make_driver", reach("a gateware driver")),
                ("posdata.sim.drivers.targets", "make_chip", reach("the perft chip")),
                ("posdata.sim.cli.board_cmd", "open_transport", reach("a board's transport")),
                ("posdata.sim.drivers.gen_pysim", "PysimGenerator", reach("pysim"))]
    return out


def install_stubs(monkeypatch, light: bool) -> None:
    """Every binding of a stubbed function replaced (``from .targets import make_chip`` at a
    module's top binds its own name): every module of posdata.sim and posdata.hdl imported
    first, so that none binds a stub for good during the fuzz."""
    for package in (posdata.sim, posdata.hdl):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)
    for module, name, replacement in stubs(light):
        original = getattr(importlib.import_module(module), name)
        for loaded in list(sys.modules.values()):
            if getattr(loaded, "__name__", "").startswith("posdata.") and \
                    loaded.__name__ not in KEEP_REAL and vars(loaded).get(name) is original:
                monkeypatch.setattr(loaded, name, replacement)


#: modules whose bindings stay real: the Verilator model is built from the real Verilog (only
#: the export command's Yosys is stubbed); a stub there would put a broken model in the cache
KEEP_REAL = {"posdata.sim.models.verilator"}


# -- values -------------------------------------------------------------------------------

JUNK = ["", " ", "-", "--", "-1", "0", "x", "nan", "inf", "-inf", "1e-320", "1e309", "2.5",
        "0x10", "1_0", "\u0663", "\u00b2", "\u00e9t\u00e9", "a\nb", "9" * 5000, "-" + "9" * 5000,
        "--help", "-h", "*", "%s", "{}", "x" * 3000]
FEN_CHARS = "pnbrqkPNBRQK12345678/ wb-KQkqacfh0369"
COUNTERS = ["-1", "0", "1", "9999", "10000", "99999", "9" * 5000, "\u0663", "1e3", "0x1",
            "00001", "+1", ""]


def base_fens() -> list[str]:
    fens = [p.fen for p in STANDARD_POSITIONS]
    for name in ("chess960", "amazon", "nightrider"):
        fens += sample_positions(name)[:3]
    return fens


#: positions no game reaches: three checks, two from both sides of the king along a line, two
#: after a double step, a check that the double step cannot have given
IMPOSSIBLE_FENS = ["4k3/8/8/8/1b5b/8/3n4/r3K2r w - - 0 1", "4k3/8/8/8/8/8/8/r3K2r w - - 0 1",
                   "8/8/8/2k5/3P4/8/8/2R1K3 b - d3 0 1", "8/8/8/k7/3P4/8/8/R3K3 b - d3 0 1"]
FENS = base_fens() + IMPOSSIBLE_FENS
#: walk --moves: piece definitions, good and bad (a range limit past int()'s 4,300 digits)
DEFINITIONS = ["QN", "R4", "W07", "mRcpR", "gQ", "fmWfcF", "nN", "RW", "R8", "R" + "9" * 5000,
               "R" + "0" * 5000 + "3", "W\u00b2", "N\u0663", "1" * 5000, "m" * 3000, "x"]


def mangle_fen(rng: random.Random, fen: str) -> str:
    for _ in range(rng.randint(1, 3)):
        fields = fen.split()
        kind = rng.randrange(10)
        if kind == 0 and fen:
            i = rng.randrange(len(fen))
            fen = fen[:i] + rng.choice(FEN_CHARS + "\u212a\u0663\t") + fen[i + 1:]
        elif kind == 1 and fen:
            i = rng.randrange(len(fen))
            fen = fen[:i] + fen[i + 1:]
        elif kind == 2 and fields:
            i = rng.randrange(len(fields))
            fields[i:i + 1] = rng.choice([[], [fields[i], fields[i]]])
            fen = " ".join(fields)
        elif kind == 3 and len(fields) >= 5:
            fields[rng.choice((4, 5)) if len(fields) == 6 else 4] = rng.choice(COUNTERS)
            fen = " ".join(fields)
        elif kind == 4 and len(fields) >= 2:
            i, j = rng.sample(range(len(fields)), 2)
            fields[i], fields[j] = fields[j], fields[i]
            fen = " ".join(fields)
        elif kind == 5 and len(fields) >= 3:
            fields[2] = "".join(rng.choice("KQkqABCDEFGHabcdefgh-")
                                for _ in range(rng.randint(0, 5)))
            fen = " ".join(fields)
        elif kind == 6 and len(fields) >= 4:
            fields[3] = rng.choice("abcdefgh-") + rng.choice("123456789")
            fen = " ".join(fields)
        elif kind == 7:
            fen = fen[:rng.randrange(len(fen) + 1)]
        elif kind == 8:
            fen = rng.choice(["  ", "\t", " \n "]).join(fields)
        elif kind == 9 and fields:
            ranks = fields[0].split("/")
            ranks[rng.randrange(len(ranks))] = "".join(
                rng.choice("pnbrqkPNBRQK12345678") for _ in range(rng.randint(0, 9)))
            fields[0] = "/".join(ranks)
            fen = " ".join(fields)
    return fen


def a_fen(rng: random.Random) -> str:
    fen = rng.choice(FENS)
    return mangle_fen(rng, fen) if rng.random() < 0.6 else fen


def epd_bytes(rng: random.Random) -> bytes:
    """A perft suite, mostly well formed (counts of depth 1 and 2, usually wrong: exit 1),
    with the faults of hand-made files."""
    lines = []
    for _ in range(rng.choice((0, 1, 2, 2, 3, 4))):
        fen = a_fen(rng) if rng.random() < 0.15 else rng.choice(FENS[:6])
        if rng.random() < 0.5:
            fen = " ".join(fen.split()[:4])
        counts = [f"D{d} {rng.choice([20, 400, 0, 1])}" for d in range(1, rng.randint(2, 3))]
        fault = rng.randrange(32)
        if fault == 0:
            counts.append(counts[0] if counts else "D1 20")  # a depth twice
        elif fault == 1:
            counts.append(rng.choice(["D0 1", "D13 1", "D99 1", "D" + "9" * 5000 + " 1",
                                      "D00013 5", "D\u0663 5"]))
        elif fault == 2:
            counts.append(rng.choice(["D1 " + "9" * 5000, "D1 -5", "D1 twenty", "D1", "D1 1e3",
                                      "D1 18446744073709551616", "D1  20  x"]))
        elif fault == 3:
            counts = []
        sep = rng.choice([" ;", ";", " ; ", ";;"])
        line = fen + (sep + sep.join(counts) if counts else "")
        if fault == 4:
            line = "# " + line
        elif fault == 5:
            line += " ;id \"x\" ;c0 y"
        lines.append(line)
        if rng.random() < 0.2:
            lines.append("")
    text = rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["\n", ""])
    data = text.encode()
    fault = rng.randrange(20)
    if fault == 0:
        data = b"\xef\xbb\xbf" + data  # a byte-order mark
    elif fault == 1:
        data += b"\xff\xfe bad bytes\n"
    elif fault == 2:
        data = data.replace(b" ", b"\x00", 1)
    return data


@dataclass
class Pools:
    """Files the values name, in the fuzz's working directory (a fresh tmp_path)."""
    epds: list[str] = field(default_factory=list)

    def make(self, rng: random.Random) -> None:
        open("afile", "w").close()
        os.makedirs("adir", exist_ok=True)
        for i in range(12):
            name = f"suite{i}.epd"
            with open(name, "wb") as f:
                f.write(epd_bytes(rng))
            self.epds.append(name)
        self.epds += ["nosuch.epd", "adir", "afile", "/dev/null", "/proc/self/status"]
        for board, uart in BUILDS.items():
            plant_build(board, uart)


#: the complete builds under build/synth that ``program`` (and the clock) read, by board: the
#: report's ``uart``, one a baud rate, the others damaged
BUILDS = {"ulx3s-12f": {"baud": 115200}, "ulx3s-25f": {"baud": "fast"},
          "ulx3s-45f": {"baud": True}, "ulx3s-85f": {"baud": [115200]},
          "ecpix5-45": {"baud": -5}, "ecpix5-85": {"baud": None}, "colorlight-5a75b": "fast"}


def plant_build(board: str, uart) -> None:
    """A build as `posdata synth` leaves it: the bitstream, then its report."""
    directory = os.path.join("build", "synth", board)
    os.makedirs(directory, exist_ok=True)
    bitstream = os.path.join(directory, "posdata.bit")
    with open(bitstream, "wb") as f:
        f.write(b"\xff\x00bitstream")
    os.utime(bitstream, (1e9, 1e9))  # older than its report
    with open(os.path.join(directory, "report.json"), "w") as f:
        json.dump({"board": board, "design": "perft chip", "engines": 1, "fmax_mhz": 107.5,
                   "uart": uart, "bitstream": bitstream}, f)


PATHS = ["out.v", "out.vcd", "out.svg", "out.gtkw", "adir", "adir/", "adir/x.v", "afile",
         "afile/x.v", "nosuch/x.v", "/proc/posdata-fuzz.v", "", ".", "a\nb.v", "x" * 300]


def value(rng: random.Random, action: argparse.Action, pools: Pools) -> str:
    """One value for ``action``: mostly plausible, sometimes junk."""
    if rng.random() < 0.05:
        return rng.choice(JUNK)
    dest = action.dest
    if action.choices is not None:
        choice = str(rng.choice(list(action.choices)))
        return choice if rng.random() < 0.85 else rng.choice([choice.upper(), choice + "x", ""])
    lo, hi = getattr(action.type, "lo", None), getattr(action.type, "hi", None)
    if lo is not None:
        top = min(hi, CAPS[dest]) if dest in CAPS else hi
        if rng.random() < 0.6:
            return str(rng.randint(lo, top) if isinstance(lo, int) else rng.uniform(lo, top))
        picks = [lo, top, lo - 1, hi + 1, -hi]
        if isinstance(lo, int):
            picks = [int(p) for p in picks] + [10 ** 30]
        else:
            picks += [1e-320, 1e309, float("nan"), float("inf"), 0.0]
        return str(rng.choice(picks))
    if action.type in (int, float):  # unbounded (test_every_numeric_option_is_range_checked)
        return rng.choice(["0", "1", "2", "-1", "nan", "inf", "1e-320", "1e309", "9" * 5000])
    if dest == "fen":
        return a_fen(rng)
    if dest == "variant":  # a type that parses names: no choices to read
        return rng.choice(VARIANT_NAMES + ("fischerandom", "Chess", "crazyhouse", ""))
    if dest == "moves" and action.nargs is None:  # walk's: one piece definition
        return rng.choice(DEFINITIONS)
    if dest == "moves":
        return rng.choice(["e2e4", "e7e5", "g1f3", "e1g1", "e7e8q", "a1a1", "zz", "e2e4e5",
                           "0000", "E2E4", "b1c3 g8f6"])
    if dest in OUTPUTS:
        return rng.choice(PATHS)
    if dest in INPUTS:
        return rng.choice(pools.epds)
    if dest == "piece":
        return rng.choice("KQRBNPkqrbnpACax")
    if dest == "square":
        return rng.choice(["a1", "d4", "h8", "i9", "A1", "d", "d44"])
    return rng.choice(["/dev/null", "nosuch", "tcp://127.0.0.1:1", "x", "1"])


def argv_for(rng: random.Random, name: str, sub: argparse.ArgumentParser,
             pools: Pools) -> list[str]:
    actions = [a for a in sub._actions if not isinstance(a, argparse._HelpAction)
               or rng.random() < 0.02]
    argv = [name]
    for action in actions:  # a default that would be deep work: capped first (a fuzzed value
        # later overrides it: argparse keeps the last)
        if action.dest in CAPS and action.option_strings and \
                (action.default or 0) > CAPS[action.dest]:
            lo = getattr(action.type, "lo", 0)
            argv += [action.option_strings[0], str(rng.randint(lo, CAPS[action.dest]))]
    if name == "perft" and rng.random() < 0.25:  # the suite: half of what perft reads
        argv += ["--epd", rng.choice(pools.epds)]
    chosen = rng.sample(actions, min(len(actions), rng.choice((0, 1, 1, 2, 2, 3, 4, 6))))
    for group in sub._mutually_exclusive_groups:  # one of a required group, mostly
        if group.required and rng.random() < 0.9:
            chosen.append(rng.choice(group._group_actions))
    chosen += [a for a in actions if a.required and a.option_strings and rng.random() < 0.9]
    for action in chosen:
        if not action.option_strings:
            continue
        option = rng.choice(action.option_strings)
        if option.startswith("--") and rng.random() < 0.05:
            option = option[:rng.randint(3, len(option))]  # argparse's abbreviations
        argv.append(option)
        argv += values(rng, action, pools)
    for action in actions:  # positionals, in order; sometimes missing or extra
        if not action.option_strings and rng.random() < 0.9:
            argv += values(rng, action, pools)
    if rng.random() < 0.05:
        argv.insert(rng.randrange(1, len(argv) + 1), rng.choice(["--frobnicate", "stray", "--"]))
    if rng.random() < 0.03 and len(argv) > 1:
        del argv[rng.randrange(1, len(argv))]  # a value or an option gone
    return argv


def values(rng, action, pools) -> list[str]:
    nargs = action.nargs
    if nargs == 0:
        return []
    if nargs == "+":
        return [value(rng, action, pools) for _ in range(rng.randint(1, 3))]
    if nargs == "?":
        return [value(rng, action, pools)] if rng.random() < 0.8 else []
    return [value(rng, action, pools)]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def command_lines(seed: int, n: int, pools: Pools):
    rng = random.Random(seed)
    subs = subcommands()
    names = sorted(subs)
    for _ in range(n):
        r = rng.random()
        if r < 0.01:
            yield rng.choice([[], ["--help"], ["frobnicate"], [rng.choice(JUNK)]])
        else:
            name = rng.choice(names)
            yield argv_for(rng, name, subs[name], pools)


# -- running and judging ------------------------------------------------------------------

@dataclass
class Outcome:
    argv: list[str]
    status: object  #: exit status, "reached" (a stub), or the exception's type name
    err: str = ""
    new_files: list[str] = field(default_factory=list)

    def problem(self) -> str | None:
        """What breaks the contract, or None."""
        if "Traceback" in self.err:
            return "a traceback on stderr"
        if isinstance(self.status, str) and self.status != "reached":
            return f"an uncaught {self.status}"
        if self.status not in (0, 1, 2, "reached"):
            return f"exit status {self.status}"
        if self.status == 2:
            lines = self.err.splitlines()
            if len(lines) != 1 or not lines[0].startswith("posdata: error: "):
                return f"{len(lines)} stderr lines, not one 'posdata: error:' line"
        temps = [f for f in self.new_files if f.endswith(".posdata-tmp")]
        if temps:
            return f"temporaries left: {temps}"
        if self.status == 2 and self.new_files:
            return f"files written by a failed command: {self.new_files}"
        return None


def files_under(top: str) -> set[str]:
    return {os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs}


def run_one(argv: list[str], stdin: bytes = b"uci\nisready\nquit\n") -> Outcome:
    """``main(argv)`` in process, its stdout and stderr captured; the UCI engine gets a short
    session on stdin."""
    out, err = io.StringIO(), io.StringIO()
    before = files_under(".")
    old_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(argv))
    except Reached:
        status = "reached"
    except SystemExit as e:  # --help
        status = e.code if isinstance(e.code, int) else 2
    except Exception as e:  # what the fuzz is looking for
        status = type(e).__name__
        err.write(f"{type(e).__name__}: {e}")
    finally:
        sys.stdin = old_stdin
    new = sorted(files_under(".") - before)
    return Outcome(list(argv), status, err.getvalue(), new)
