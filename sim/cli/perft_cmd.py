"""posdata perft: count the legal move tree, with divide and JSON."""

import time

from engine.defs import move_uci
from engine.perft import perft

from .common import Progress, add_json_arg, add_position_args, int_in_range, load_board, print_json

MAX_DEPTH = 12


def register(sub) -> None:
    p = sub.add_parser(
        "perft", help="count the nodes of the legal move tree (perft), optionally per root move",
        description="Count the leaf nodes of the legal move tree to a fixed depth. Moves come "
                    "from the posdata generator; legality from makemove, as in TSCP.")
    add_position_args(p)
    p.add_argument("--depth", type=int_in_range(0, MAX_DEPTH, "--depth"), default=4,
                   help="plies to search (default: 4)")
    p.add_argument("--divide", action="store_true",
                   help="also print the count below each legal root move")
    p.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    add_json_arg(p)
    p.set_defaults(run=run)


def run(args) -> int:
    board = load_board(args)
    fen = board.fen()
    progress = Progress(args.quiet)
    start = time.perf_counter()
    divide = {}
    if args.depth == 0:
        nodes = 1
    else:
        roots = board.legal_moves()
        for i, m in enumerate(roots):
            progress.update(f"perft {args.depth}: root move {i + 1}/{len(roots)} {move_uci(m)}")
            board.makemove(m)
            divide[move_uci(m)] = perft(board, args.depth - 1)
            board.takeback()
        nodes = sum(divide.values())
    seconds = time.perf_counter() - start
    progress.done()
    nps = nodes / seconds if seconds > 0 else 0.0

    if args.json:
        out = {"fen": fen, "depth": args.depth, "nodes": nodes, "seconds": round(seconds, 6),
               "nps": round(nps)}
        if args.divide:
            out["divide"] = divide
        print_json(out)
        return 0
    if args.divide:
        for move, count in divide.items():
            print(f"{move}: {count}")
        print()
    print(f"fen    {fen}")
    print(f"depth  {args.depth}")
    print(f"nodes  {nodes}")
    print(f"time   {seconds:.3f} s ({nps:,.0f} nodes/s)")
    return 0
