"""posdata perftree: the entry the perftree debugger (github.com/agausmann/perftree) calls, so
it can bisect our counts against Stockfish's: ``posdata perftree DEPTH FEN [MOVES]``."""

from posdata.engine.rules.board import Board
from posdata.engine.rules.fen import FenError
from posdata.engine.rules.perft import divide

from .common import CliError, int_in_range

MAX_DEPTH = 12


def register(sub) -> None:
    p = sub.add_parser(
        "perftree", help="perft divide in the perftree debugger's format",
        description="For the perftree debugger: play MOVES (one argument, UCI moves separated "
                    "by spaces) from FEN, then print each legal move and the leaf count below "
                    "it ('e2e4 20'), an empty line, and the total. Point perftree at a script "
                    "that runs: posdata perftree \"$@\"")
    p.add_argument("depth", type=int_in_range(1, MAX_DEPTH, "DEPTH"), help="plies to count")
    p.add_argument("fen", help="the position (6-field FEN)")
    p.add_argument("moves", nargs="?", default="", help="moves to play first, space-separated")
    p.set_defaults(run=run)


def run(args) -> int:
    try:
        board = Board(args.fen)
    except FenError as e:
        raise CliError(str(e)) from None
    for text in args.moves.split():
        try:
            board.push_uci(text)
        except ValueError as e:
            raise CliError(str(e)) from None
    counts = divide(board, args.depth, bulk=True)
    for m, n in counts.items():
        print(f"{board.uci(m)} {n}")
    print()
    print(sum(counts.values()))
    return 0
