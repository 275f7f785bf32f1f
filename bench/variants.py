"""Per variant: software perft speed of its start position and the size of its posdata tables.

Table size: the *reachable entries*, those a walk can read: per table in use and from-square,
every square of the walk on an empty board (both threads for pawns), plus one start entry
``posdata[t][f][f]`` (64 per table); every other entry holds the from-square and is never read.
The orthodox figure, 3,992 walk entries + 448 start entries, is what the gateware's dense
layout stores. Usage::

    .venv/bin/python bench/variants.py [--repeat 3] [--plain-depth 3] [--bulk-depth 4]
"""

import argparse
import statistics
import time

from posdata.engine.board import Board
from posdata.engine.perft import perft
from posdata.engine.variants import VARIANTS


def reachable_entries(variant) -> tuple[int, int]:
    """(tables in use, walk entries) of the variant's tables; start entries: 64 per table."""
    nextpos, nextdir = variant.tables()
    used = [t for t, what in enumerate(variant.layout) if what is not None]
    entries = 0
    for t in used:
        for frm in range(64):
            seen = {frm}
            for table in (nextpos, nextdir):
                u = int(table[t, frm, frm])
                while u != frm:
                    seen.add(u)
                    u = int(table[t, frm, u])
            entries += len(seen) - 1
    return len(used), entries


def timed(variant, depth: int, bulk: bool) -> tuple[int, float]:
    board = Board(variant=variant)
    start = time.perf_counter()
    nodes = perft(board, depth, bulk=bulk)
    return nodes, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--plain-depth", type=int, default=3)
    parser.add_argument("--bulk-depth", type=int, default=4)
    args = parser.parse_args()
    print(f"{'variant':<11} {'tables':>6} {'walk':>8} {'plain d':>7} {'nodes':>8} "
          f"{'n/s':>9} {'bulk d':>6} {'nodes':>8} {'n/s':>9}")
    for variant in VARIANTS:
        tables, entries = reachable_entries(variant)
        row = [f"{variant.name:<11} {tables:>6} {entries:>8}"]
        for depth, bulk in ((args.plain_depth, False), (args.bulk_depth, True)):
            runs = [timed(variant, depth, bulk) for _ in range(args.repeat)]
            nodes = runs[0][0]
            nps = nodes / statistics.median(t for _, t in runs)
            row.append(f"{depth:>7} {nodes:>8} {nps:>9,.0f}")
        print(" ".join(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
