"""Search speed and the search signature.

Searches each position of a fixed set to a fixed depth and reports nodes, time, nodes/s, score and
best move, then the totals. The **signature** is the total node count: it depends only on what the
search does (move generator output and order, ordering, pruning, evaluation), never on the machine,
so it changes exactly when search behaviour changes. Any change to engine/search/searcher.py or
engine/search/eval.py that is meant to be behaviour-neutral must leave it unchanged; one that is not
should say the new signature in its commit message (Stockfish's ``bench`` habit).

With ``--movegen hw`` the same searches run on the hardware generator: the signature must be
the same as with ``sw`` (that is the equivalence the search promises).

Usage::

    .venv/bin/python bench/search.py [--depth N] [--movegen sw|hw] [--repeat R] [--quick]
                                     [--json FILE]
"""

import argparse
import platform
import statistics
import sys
import time

from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.rules.positions import STANDARD_POSITIONS
from posdata.engine.search.searcher import Limits, MoveGenUnavailable, Searcher, uci_score
from posdata.sim.drivers.movegens import make_movegen

from results import add_json_option, write_json

#: the six standard perft positions and two quieter ones, a middlegame and an endgame
POSITIONS = [(p.name, p.fen) for p in STANDARD_POSITIONS] + [
    ("italian", "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQK2R b KQkq - 0 5"),
    ("rook-end", "8/5pk1/6p1/3R4/r7/6P1/5PK1/8 w - - 0 40"),
]
DEPTH = 4
QUICK_DEPTH = 3


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--depth", type=int, default=None,
                   help=f"search depth for every position (default {DEPTH}, --quick "
                        f"{QUICK_DEPTH})")
    p.add_argument("--movegen", choices=("sw", "hw"), default="sw")
    p.add_argument("--repeat", type=int, default=1,
                   help="runs per position; the time is the median (nodes never vary)")
    p.add_argument("--quick", action="store_true", help=f"depth {QUICK_DEPTH}: a few seconds")
    add_json_option(p)
    args = p.parse_args(argv)
    depth = args.depth or (QUICK_DEPTH if args.quick else DEPTH)
    try:
        movegen = make_movegen(args.movegen)
    except MoveGenUnavailable as e:
        print(f"bench/search.py: error: {e}", file=sys.stderr)
        return 2

    print("command  " + " ".join([sys.executable, *sys.argv]))
    print(f"python   {platform.python_version()} ({platform.machine()})")
    print(f"movegen  {args.movegen}, depth {depth}, repeat {args.repeat}")
    print()
    print(f"{'position':<10} {'depth':>5} {'nodes':>9} {'seconds':>8} {'nodes/s':>8} "
          f"{'score':>9}  best")
    total_nodes, total_seconds = 0, 0.0
    rows = []
    for name, fen in POSITIONS:
        times, result = [], None
        for _ in range(args.repeat):
            board = Board(fen)
            start = time.perf_counter()
            run = Searcher(movegen).think(board, Limits(depth=depth))
            times.append(time.perf_counter() - start)
            if result is not None and run.nodes != result.nodes:
                print(f"bench/search.py: error: {name}: node count changed between runs "
                      f"({result.nodes} then {run.nodes}): the search is not deterministic",
                      file=sys.stderr)
                return 1
            result = run
        seconds = statistics.median(times)
        total_nodes += result.nodes
        total_seconds += seconds
        rows.append({"position": name, "nodes": result.nodes, "seconds": round(seconds, 3),
                     "score": uci_score(result.score), "best": move_uci(result.best_move)})
        print(f"{name:<10} {result.depth:>5} {result.nodes:>9} {seconds:>8.2f} "
              f"{result.nodes / seconds:>8.0f} {uci_score(result.score):>9}  "
              f"{move_uci(result.best_move)}", flush=True)
    print()
    print(f"total    {total_nodes} nodes in {total_seconds:.2f} s: "
          f"{total_nodes / total_seconds:,.0f} nodes/s")
    print(f"signature {total_nodes}")
    write_json(args.json, {"movegen": args.movegen, "depth": depth, "nodes": total_nodes,
                           "seconds": round(total_seconds, 3),
                           "nps": round(total_nodes / total_seconds), "signature": total_nodes,
                           "positions": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
