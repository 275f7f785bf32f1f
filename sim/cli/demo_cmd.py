"""posdata demo: the main job of `make demo`, a tour of what the project does."""

import time

from engine.board import Board
from engine.perft import perft
from engine.positions import STANDARD_POSITIONS

#: software perft depth per standard position: a few seconds in all
DEMO_DEPTHS = {"initial": 4, "kiwipete": 3, "position3": 4, "position4": 3, "position5": 3,
               "position6": 3}


def register(sub) -> None:
    p = sub.add_parser("demo", help="run the demonstration (what `make demo` runs)",
                       description="Software perft of the six standard positions against their "
                                   "published counts.")
    p.set_defaults(run=run)


def run(args) -> int:
    print("Software perft (posdata walk + TSCP makemove) against the published counts")
    print(f"{'position':<10} {'depth':>5} {'nodes':>10} {'published':>10} {'match':>5} "
          f"{'seconds':>8} {'nodes/s':>9}")
    ok = True
    for pos in STANDARD_POSITIONS:
        depth = DEMO_DEPTHS[pos.name]
        board = Board(pos.fen)
        start = time.perf_counter()
        nodes = perft(board, depth)
        seconds = time.perf_counter() - start
        match = nodes == pos.counts[depth - 1]
        ok &= match
        print(f"{pos.name:<10} {depth:>5} {nodes:>10} {pos.counts[depth - 1]:>10} "
              f"{'yes' if match else 'NO':>5} {seconds:>8.2f} {nodes / seconds:>9,.0f}")
    return 0 if ok else 1
