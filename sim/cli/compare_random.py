"""``posdata compare --random N [--seed S]``: N seeded random positions through the chosen
backend (sim.runs.campaign), a one-line summary, and the first mismatch as ``compare`` reports
one."""

import argparse
import time

from .common import CliError, Progress, int_in_range, print_json


def add_random_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--random", type=int_in_range(1, 10_000_000, "--random"), default=None,
                   metavar="N", help="instead of the six standard positions: N random positions "
                                     "(random legal games from the start) at --depth, over the "
                                     "workers; the first mismatch reported, exit status 1")
    p.add_argument("--seed", type=int_in_range(0, 2**63 - 1, "--seed"), default=None,
                   help="with --random: the seed that fixes the positions (default: 1)")


def run_random(args, target, jobs: int) -> int:
    from posdata.sim.drivers.fpga_board import BoardError
    from posdata.sim.runs.campaign import random_positions, run_campaign
    from posdata.sim.runs.pool import scheduler_address

    seed = 1 if args.seed is None else args.seed
    fens = random_positions(args.random, seed)
    if not scheduler_address(args.scheduler):
        jobs = min(jobs, len(fens))  # no idle workers to start
    progress = Progress(args.quiet)
    start = time.perf_counter()
    try:
        results = run_campaign(fens, args.depth, args.backend, target, jobs, args.scheduler,
                               args.bulk, progress=progress)
    except (RuntimeError, ValueError, OSError, BoardError) as e:
        raise CliError(str(e)) from None
    finally:
        progress.done()
    seconds = time.perf_counter() - start
    bad = [i for i, r in enumerate(results) if not r.match]
    first = None
    if bad:
        i, r = bad[0], results[bad[0]]
        first = {"index": i, "fen": fens[i], "sw_nodes": r.sw_nodes, "hw_nodes": r.nodes,
                 "mismatch": r.mismatch}
    nodes = sum(r.sw_nodes for r in results)
    if args.json:
        print_json({"random": args.random, "seed": seed, "depth": args.depth,
                    "backend": args.backend, "sim": str(target),
                    "mode": "bulk" if args.bulk else "plain", "nodes": nodes,
                    "seconds": round(seconds, 3), "mismatches": len(bad), "first": first,
                    "positions": [{"fen": f, "sw_nodes": r.sw_nodes, "hw_nodes": r.nodes,
                                   "match": r.match} for f, r in zip(fens, results)]})
        return 1 if bad else 0
    what = "the perft chip" if args.backend == "hw" else "the generator in the loop"
    print(f"random   {len(fens)} positions (seed {seed}), depth {args.depth} "
          f"({'bulk' if args.bulk else 'plain'}), {what} on {target}")
    print(f"nodes    {nodes:,} in {seconds:.2f} s ({nodes / max(seconds, 1e-9):,.0f} nodes/s)")
    if not bad:
        print("match    yes: every position's count and moves are the reference's")
        return 0
    print(f"match    NO: {len(bad)} of {len(fens)} positions differ; the first, "
          f"position {first['index']}:")
    print(f"  FEN {first['fen']}: sw {first['sw_nodes']} nodes, hw {first['hw_nodes']}")
    if first["mismatch"]:
        print(f"  MISMATCH {first['mismatch']}")
    return 1
