"""What every subcommand shares: one-line errors, board setup from --fen/--moves, JSON output,
progress on stderr, the range of --mhz (the clock itself: sim.cli.clock)."""

import argparse
import json
import math
import re
import sys
import time

from posdata.engine.rules.board import Board
from posdata.engine.rules.capabilities import refusal
from posdata.engine.rules.defs import FLAGS_SHIFT, Flag
from posdata.engine.rules.fen import FenError
from posdata.engine.rules.variants import CHESS, VARIANT_NAMES, VariantError, get_variant


class CliError(Exception):
    """A problem with the user's input or environment: printed as one line, exit status 2."""


class _NeverRaised(Exception):
    pass


def raised_class(module: str, name: str) -> type:
    """``module.name``, an exception class, for an ``except`` clause (evaluated only when an
    exception reaches it): the class if its module is loaded, else one nothing raises. A module
    never imported cannot have raised its class, and importing it only to name the class would
    cost every short command its start-up."""
    loaded = sys.modules.get(module)
    return getattr(loaded, name) if loaded is not None else _NeverRaised


#: argparse's ``argument --depth: `` before a message of ours that names the option already
_ARGUMENT = re.compile(r"argument ([^:]+): (.*)", re.DOTALL)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        # main() prints "posdata: error: ": say the subcommand, and the option, once each
        match = _ARGUMENT.fullmatch(message)
        if match and any(match[2].startswith(name) for name in match[1].split("/")):
            message = match[2]
        command = self.prog.removeprefix("posdata").strip()
        raise CliError(f"{command + ': ' if command else ''}{message} (see '{self.prog} --help')")


class Renamed(argparse.Action):
    """An option's older spelling, hidden from --help: one line naming the new one, not a
    second vocabulary. ``new``: what to say instead (``--target``, ``--target cxxrtl``)."""

    def __init__(self, option_strings, dest, new: str, nargs=0, **kwargs):
        super().__init__(option_strings, argparse.SUPPRESS, nargs=nargs, default=argparse.SUPPRESS,
                         help=argparse.SUPPRESS)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} is now {self.new}")


def add_position_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--fen", default=None, metavar="FEN",
                   help="the position (6-field FEN or 4-field EPD; default: the initial position "
                        "of the variant)")
    p.add_argument("--moves", nargs="+", default=[], metavar="UCI",
                   help="moves to play from FEN first, in UCI notation (e2e4 e7e5 ...)")


def add_json_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def _variant(text: str):
    try:
        return get_variant(text)
    except VariantError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_variant_arg(p: argparse.ArgumentParser) -> None:
    """``--variant NAME`` (engine.rules.variants; Fairy-Stockfish's names too); ``args.variant``
    is a Variant. ``load_board`` reads it."""
    p.add_argument("--variant", type=_variant, default=CHESS, metavar="NAME",
                   help=f"the variant: {', '.join(VARIANT_NAMES)} (default: chess)")


def require_san(args) -> None:
    """``--san`` only where the notation holds (engine.rules.san.SAN_VARIANTS)."""
    from posdata.engine.rules.san import SAN_VARIANTS
    if args.san and args.variant.name not in SAN_VARIANTS:
        raise CliError(f"--san writes orthodox chess's notation; not with --variant "
                       f"{args.variant.name}")


def require_runs(args, key: str, subject: str | None = None) -> None:
    """Refuse ``args.variant`` where it does not run: ``key`` is a place of
    engine.capabilities (``hw``, ``search``, ...), ``subject`` who refuses (default its name)."""
    problem = refusal(getattr(args, "variant", CHESS), key, subject)
    if problem:
        raise CliError(problem)


def gateware_place(target_name: str, chip: bool) -> str:
    """The engine.rules.capabilities place of the gateware on a target: the perft chip or the
    generator (its Verilator model, built for chess's tables, apart)."""
    if chip:
        return "hw"
    return "gen-verilator" if target_name == "verilator" else "gen"


def require_gateware(args, target_name: str, chip: bool) -> None:
    """Refuse a variant the gateware on ``target_name`` cannot play, and any variant but chess
    on a board (the host does not check a board's variant yet)."""
    require_runs(args, gateware_place(target_name, chip))
    if target_name == "board":
        require_runs(args, "target-board")


def load_board(args) -> Board:
    try:
        board = Board(args.fen, getattr(args, "variant", CHESS))
    except FenError as e:
        raise CliError(str(e)) from None
    for text in args.moves:
        try:
            board.push_uci(text)
        except ValueError as e:
            raise CliError(str(e)) from None
    return board


def describe(board: Board, m: int) -> str:
    """A move word for humans in the board's notation: ``e7e8q capture|pawn|promotion``."""
    flags = "|".join(f.name.lower() for f in Flag if m & int(f) << FLAGS_SHIFT)
    return board.uci(m) + (" " + flags if flags else "")


def shorten(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut short: an error line quotes the input, not a megabyte of it."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} chars)"


_INTEGER = re.compile(r"[+-]?[0-9]+")


def int_in_range(lo: int, hi: int, name: str):
    """An argparse type: an integer in [lo, hi] (ASCII digits), with an error that names the
    option. The bounds are on the function (``lo``, ``hi``) for the tests to find."""
    def parse(text: str) -> int:
        digits = text.strip()
        if not _INTEGER.fullmatch(digits):
            raise argparse.ArgumentTypeError(f"{name} must be an integer, not {shorten(text)}")
        # no int() of a 5000-digit number (Python refuses over 4300): it is out of range anyway
        value = int(digits) if len(digits) <= 30 else None
        if value is None or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{name} must be between {lo} and {hi}, not "
                                             f"{shorten(digits)}")
        return value
    parse.lo, parse.hi = lo, hi
    return parse


def float_in_range(lo: float, hi: float, name: str):
    """An argparse type: a finite number in [lo, hi] (not nan, not inf), with an error that
    names the option; ``lo``, ``hi`` on the function as for int_in_range."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, not {shorten(text)}") \
                from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{name} must be a finite number, not "
                                             f"{shorten(text)}")
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{name} must be between {lo:g} and {hi:g}, not "
                                             f"{shorten(text)}")
        return value
    parse.lo, parse.hi = lo, hi
    return parse


#: --depth when not given, for perft, compare and board perft alike: seconds in software and on
#: the compiled models on a small machine (perft 4 of Kiwipete is 4 M nodes: minutes in Python)
DEFAULT_DEPTH = 3


def add_count_args(p: argparse.ArgumentParser, bulk_help: str = "") -> None:
    """``--bulk``/``--plain``, the counting mode; plain, every leaf made and unmade (TSCP), unless
    asked. ``args.bulk`` is None when neither is given (``count_mode`` reads it): an option
    that does not apply can then be refused."""
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--bulk", dest="bulk", action="store_const", const=True, default=None,
                      help="count the last ply's legal moves without making them" + bulk_help)
    kind.add_argument("--plain", dest="bulk", action="store_const", const=False,
                      help="make, test and unmake every leaf (TSCP; the default)")


def count_mode(args) -> bool:
    """``args.bulk`` filled in: True for bulk counting."""
    args.bulk = bool(args.bulk)
    return args.bulk


#: --mhz of the projected hardware times: 1 kHz to 10 GHz
MHZ_RANGE = (0.001, 10_000.0)


def add_mhz_arg(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--mhz", type=float_in_range(*MHZ_RANGE, "--mhz"), default=None,
                   metavar="F", help=help)


def print_json(obj) -> None:
    json.dump(obj, sys.stdout, indent=None, separators=(", ", ": "))
    sys.stdout.write("\n")


class Progress:
    """A single self-rewriting status line on stderr, only when stderr is a terminal, only once
    a run has taken longer than ``after`` seconds, and never with --quiet."""

    def __init__(self, quiet: bool = False, after: float = 2.0):
        self.enabled = not quiet and sys.stderr.isatty()
        self.start = time.monotonic()
        self.after = after
        self.shown = False

    def update(self, text: str) -> None:
        if self.enabled and time.monotonic() - self.start >= self.after:
            sys.stderr.write(f"\r\x1b[K{text}")
            sys.stderr.flush()
            self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
