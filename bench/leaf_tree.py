"""The chip search's tree and its clock estimate, before the gateware exists.

Runs the host search over the reference leaf search (engine/search/host_search.py) on the search
bench's positions (bench/search.py) and sums what the jobs' trees ask of a search thread: nodes by
kind, stand-pat settlements, finder work, walks. Each full generator walk of the tree (stage 2 of a
full-width node) is then timed on the compiled perft chip: the generate and drain clocks of one
thread generating that position (bulk perft(1), the root not split), which is the walk and legality
test the search thread reuses. The estimate multiplies the counts by the per-event clocks of
docs/chip_search.md ("The estimate"), and prints the arithmetic.

Usage::

    .venv/bin/python bench/leaf_tree.py [--depth N] [--chip-depth D] [--no-chip] [--json FILE]
"""

import argparse
import statistics
import sys
import time

from posdata.engine.rules import movegen
from posdata.engine.rules.board import Board
from posdata.engine.rules.defs import move_uci
from posdata.engine.search.host_search import DEFAULT_CHIP_DEPTH, HostSearch, ReferenceLeaf
from posdata.engine.search.leaf_search import LeafStats

from results import add_json_option, write_json
from search import DEPTH, POSITIONS

#: per-event clocks of a search thread (docs/chip_search.md, "The estimate", where each is argued)
COSTS = {
    "job": 72,            # load 64 squares a clock, the window and depth; start; read the result
    "finder_nodes": 1,    # the push-promotion plane, the scan's cursor reset
    "victim_queries": 1,  # one attack-unit query a clock
    "scan_starts": 10,    # the unit's latency (hdl/chip/attack.py LATENCY = 5), the LVA pick,
                          # the eval pipeline's latency
    "tried": 1,           # a stage-1 candidate through the pin test and the eval pipeline
    "queried": 2,         # ... whose legality needs the unit: a query slot, a clock more latency
    "read": 1,            # a stage-2 legal move off the stack into the eval pipeline
    "refills": 4,         # the eval pipeline's latency again, after a made child or a walk
    "made": 7,            # make 3 + unmake 3 (the perft thread's measured phases) + return 1
}
#: a walk's clocks when the compiled chip is not used (--no-chip): the mean measured on the
#: bench tree at depth 4, chip depth 2 (docs/chip_search.md)
WALK_CLOCKS_DEFAULT = 86.0


class RecordingWalk:
    """The reference walk, noting the position of every walk (as FEN, counted)."""

    def __init__(self):
        self.fens: dict[str, int] = {}

    def gen(self, board) -> None:
        fen = board.fen()
        self.fens[fen] = self.fens.get(fen, 0) + 1
        movegen.gen(board)


def walk_clocks(fens: dict[str, int]) -> list[tuple[int, int]]:
    """(clocks, times walked) per position: generate + drain on the compiled perft chip."""
    from posdata.sim.drivers.chip_cxxrtl import ChipModel
    chip = ChipModel(verbose=False)
    out = []
    for fen, times in fens.items():
        count = chip.perft(Board(fen), 1, bulk=True, split=0)
        clocks = sum(p["generate"] + p["drain"] for p in count.phases)
        out.append((clocks, times))
    return out


def estimate(stats: LeafStats, jobs: int, walk_total: float) -> dict:
    """The clock estimate of a tree: per term, count x clocks, and the total."""
    counts = {name: getattr(stats, name) for name in COSTS if hasattr(stats, name)}
    counts["job"] = jobs
    terms = {name: counts[name] * COSTS[name] for name in COSTS}
    terms["walks"] = walk_total
    total = sum(terms.values())
    return {"counts": counts, "terms": terms, "clocks": total,
            "clocks_per_node": total / stats.nodes if stats.nodes else 0.0}


def fractions(s: LeafStats) -> dict:
    q = s.quiesce + s.limit
    return {
        "quiescence": q / s.nodes, "stand_pat_of_quiescence": s.stand_pat / max(s.quiesce, 1),
        "settled": s.settled / s.nodes, "made": s.made / s.nodes,
        "finder_nodes": s.finder_nodes / s.nodes, "walks": s.walks / s.nodes,
        "moves_per_walk": s.walk_moves / max(s.walks, 1),
        "victim_queries_per_finder_node": s.victim_queries / max(s.finder_nodes, 1),
        "scan_starts_per_finder_node": s.scan_starts / max(s.finder_nodes, 1),
        "first_move_cutoffs": s.legal_first_cut / max(s.cutoffs, 1),
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--depth", type=int, default=DEPTH)
    p.add_argument("--chip-depth", type=int, default=DEFAULT_CHIP_DEPTH)
    p.add_argument("--no-chip", action="store_true",
                   help=f"walks at {WALK_CLOCKS_DEFAULT} clocks each, not timed on the chip")
    add_json_option(p)
    args = p.parse_args(argv)
    print("command  " + " ".join([sys.executable, *sys.argv]))
    print(f"host depth {args.depth}, chip depth {args.chip_depth}\n")
    print(f"{'position':<10} {'score':>6} {'best':<6} {'nodes':>8} {'chip':>8} {'jobs':>5} "
          f"{'walks':>5} {'clk/node':>8}")
    total, jobs_total, walk_sum, walks_timed, rows = LeafStats(), 0, 0.0, [], []
    start = time.monotonic()
    for name, fen in POSITIONS:
        walk = RecordingWalk()
        leaf = ReferenceLeaf(walk)
        r = HostSearch(Board(fen), leaf, args.chip_depth).search(args.depth)
        if args.no_chip:
            w = WALK_CLOCKS_DEFAULT * leaf.stats.walks
        else:
            timed = walk_clocks(walk.fens)
            w = float(sum(c * n for c, n in timed))
            walks_timed += [c for c, n in timed for _ in range(n)]
        e = estimate(leaf.stats, r.jobs, w)
        total.add(leaf.stats)
        jobs_total += r.jobs
        walk_sum += w
        rows.append({"position": name, "score": r.score, "best": move_uci(r.best_move),
                     "nodes": r.nodes, "chip_nodes": r.leaf_nodes, "jobs": r.jobs,
                     "walks": leaf.stats.walks, "clocks_per_node": round(e["clocks_per_node"], 2)})
        print(f"{name:<10} {r.score:>6} {move_uci(r.best_move):<6} {r.nodes:>8} "
              f"{r.leaf_nodes:>8} {r.jobs:>5} {leaf.stats.walks:>5} "
              f"{e['clocks_per_node']:>8.2f}", flush=True)
    e = estimate(total, jobs_total, walk_sum)
    mean = statistics.mean(row["clocks_per_node"] for row in rows)
    walk_mean = walk_sum / max(total.walks, 1)
    print(f"\n{total.nodes} chip nodes in {jobs_total} jobs ({time.monotonic() - start:.0f} s)")
    for name, value in fractions(total).items():
        print(f"  {name:<32} {value:.3f}")
    print(f"\nwalk clocks: mean {walk_mean:.1f} over {total.walks} walks"
          + (f" (median {statistics.median(walks_timed):.0f}, timed on the compiled perft chip)"
             if walks_timed else " (--no-chip)"))
    print(f"\n{'term':<16} {'count':>10} {'clocks':>6} {'total':>11} {'per node':>8}")
    for name, clocks in COSTS.items():
        n = e["counts"][name]
        print(f"{name:<16} {n:>10} {clocks:>6} {n * clocks:>11} {n * clocks / total.nodes:>8.2f}")
    print(f"{'walks':<16} {total.walks:>10} {walk_mean:>6.1f} {walk_sum:>11.0f} "
          f"{walk_sum / total.nodes:>8.2f}")
    print(f"\nestimate: {e['clocks_per_node']:.2f} clocks per node over the whole tree; "
          f"mean over the positions {mean:.2f}")
    write_json(args.json, {"depth": args.depth, "chip_depth": args.chip_depth,
                           "nodes": total.nodes, "jobs": jobs_total, "stats": vars(total),
                           "fractions": fractions(total), "costs": COSTS,
                           "walk_clocks_mean": walk_mean, "estimate": e,
                           "mean_clocks_per_node": mean, "positions": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
