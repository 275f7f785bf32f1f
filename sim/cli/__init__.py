"""``posdata``: the one console script; each subcommand lives in its own module."""

import os
import sys

from posdata.engine.fen import FenError
from posdata.sim.models.toolchain import ToolchainError

from . import (
    board_cmd,
    compare_cmd,
    demo_cmd,
    export_cmd,
    moves_cmd,
    perft_cmd,
    perftree_cmd,
    search_cmd,
    sim_cmd,
    synth_cmd,
    uci_cmd,
    walk_cmd,
)
from .common import CliError, Parser

#: in the order `posdata --help` lists them
COMMANDS = (perft_cmd, perftree_cmd, moves_cmd, sim_cmd, compare_cmd, search_cmd, uci_cmd,
            synth_cmd, board_cmd, demo_cmd, walk_cmd, export_cmd)


def build_parser() -> Parser:
    parser = Parser(
        prog="posdata",
        description="Sandström's posdata move generator, in software and as simulated hardware.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            names = ", ".join(m.__name__.rsplit(".", 1)[1][:-4] for m in COMMANDS)
            raise CliError(f"no command: give one of {names} (see 'posdata --help')")
        return args.run(args) or 0
    except (CliError, FenError, ToolchainError) as e:
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
