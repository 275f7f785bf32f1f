"""Playing strength: the chip's search against the full software search, in games and on a
tactical suite, at a fixed depth.

The match is ``posdata match`` (engine/match): posdata's UCI engine with Backend sw (the host's
search over the chip's evaluation, the reference leaf search below ``--chip-depth``; Backend hw
with ``--leaf hw``: the compiled search thread, the same moves) against Backend tscp (the
software search, Searcher and eval.py), both to ``--depth``, ``--games`` games (default 200)
from posdata's opening book with either side white, ``--jobs`` games at once. Games are judged
by the rules (mate, stalemate, insufficient material, threefold, fifty moves) and a ply cap
adjudicated on material (engine/match/judge.py). Printed: the chip's W/D/L, its score, the Elo
difference with its 95 % error bar (engine/match/elo.py states the formula), draws and
threefold repetitions, games per second. The games' digest (a hash of every game's moves) is
the same with either leaf.

The suite: Win At Chess (bench/data/wac.epd, 300 positions) to ``--depth``: a position is solved
when the searcher's move is one of its bm and none of its am. Solved counts and time for the
chip's search over the reference, over the compiled thread (``--leaf hw``: they must agree
position by position, move, score and nodes; a difference is printed and the exit status is 1),
and for the software search.

Games and positions are independent: ``--jobs`` processes (default 2) share them, progress on
stderr. Usage::

    .venv/bin/python bench/search_play.py [--depth 3] [--chip-depth 2] [--leaf ref|hw]
        [--games N] [--positions N] [--ply-cap P] [--jobs J] [--book FILE] [--json FILE]
"""

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time

from posdata.engine.match.book import BOOK, read_book
from posdata.engine.search.leaf_search import MAX_JOB_DEPTH

import play_data
import play_suite
from results import add_json_option, write_json

DEPTH = 3
CHIP_DEPTH = 2
GAMES = 200
PLY_CAP = 200  #: plies from the initial position, the opening included
NAME = "bench/search_play.py"
CHIP, SOFTWARE = "chip", "software"  #: the engines' names in the match

_worker: dict = {}  # per process: the players, the compiled model


class BenchError(Exception):
    """Bad input, said in one line."""


# ---- the work of one process ---------------------------------------------------------------

def setup(depth: int, chip_depth: int, library: str | None) -> None:
    model = None
    if library is not None:
        from posdata.sim.drivers.search_cxxrtl import SearchModel
        model = SearchModel(library, verbose=False)
    _worker.update(depth=depth, chip_depth=chip_depth, model=model)


def problem_task(task):
    index, problem = task
    return index, play_suite.answers(problem.fen, _worker["depth"], _worker["chip_depth"],
                                     _worker["model"])


def run_tasks(function, tasks: list, jobs: int, init: tuple, progress):
    """``function`` over ``tasks`` in ``jobs`` processes (in this one when 1); ``progress(i,
    result)`` as each ends. The results in the tasks' order."""
    results = [None] * len(tasks)
    if jobs == 1 or len(tasks) <= 1:
        setup(*init)
        outputs = map(function, tasks)
        for done, (index, out) in enumerate(outputs, 1):
            results[index] = out
            progress(done, index, out)
        return results
    with multiprocessing.Pool(jobs, setup, init) as pool:
        for done, (index, out) in enumerate(pool.imap_unordered(function, tasks), 1):
            results[index] = out
            progress(done, index, out)
    return results


# ---- the match ----------------------------------------------------------------------------

def match_argv(args, json_path: str) -> list[str]:
    """The ``posdata match`` that plays the bench's match."""
    backend = "hw" if args.leaf == "hw" else "sw"
    return ["match", "--engine", f"name={CHIP}", f"backend={backend}",
            f"chipdepth={args.chip_depth}", "--engine", f"name={SOFTWARE}", "backend=tscp",
            "--each", f"depth={args.depth}", "--games", str(args.games), "--book", args.book,
            "--ply-cap", str(args.ply_cap), "--concurrency", str(args.jobs),
            "--json", json_path]


def match(args) -> dict:
    """Play the match through ``posdata match`` (its text printed as it ends, a line per game
    on stderr) and return its figures, without the games' moves (the digest stands for
    them)."""
    from posdata.sim.cli import main as posdata
    print(f"match: the chip (Backend {'hw' if args.leaf == 'hw' else 'sw'}: the host search, "
          f"depth {args.depth}, chip depth {args.chip_depth}, leaf {args.leaf}) against the "
          f"software search (Backend tscp: Searcher, eval.py, depth {args.depth}), "
          f"{args.jobs} game(s) at once", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "match.json")
        argv = match_argv(args, path)
        print("posdata " + " ".join(argv[:-2]), flush=True)
        status = posdata(argv)
        if status == 130:
            raise KeyboardInterrupt
        if status != 0:
            raise BenchError(f"posdata match ended with status {status}")
        with open(path) as f:
            m = json.load(f)
    m.pop("game_list")
    return m


# ---- the suite ----------------------------------------------------------------------------

def suite(args, problems, init) -> dict:
    problems = problems[:args.positions]
    tasks = list(enumerate(problems))

    def progress(done, index, out):
        p = problems[index]
        marks = " ".join(f"{k} {a.move}{'+' if p.solved_by(a.move) else '-'}"
                         for k, a in out.items())
        print(f"position {done}/{len(tasks)}: {p.id}: {marks}", file=sys.stderr, flush=True)

    start = time.perf_counter()
    found = run_tasks(problem_task, tasks, args.jobs, init, progress)
    wall = time.perf_counter() - start
    searchers = list(found[0])
    solved = {k: sum(p.solved_by(a[k].move) for p, a in zip(problems, found)) for k in searchers}
    seconds = {k: round(sum(a[k].seconds for a in found), 2) for k in searchers}
    nodes = {k: sum(a[k].nodes for a in found) for k in searchers}
    differences = []
    if play_suite.HW in searchers:
        for p, a in zip(problems, found):
            ref, hw = a[play_suite.REF], a[play_suite.HW]
            if play_suite.differs(ref, hw):
                differences.append({"id": p.id, "fen": p.fen,
                                    "ref": [ref.move, ref.score, ref.nodes],
                                    "hw": [hw.move, hw.score, hw.nodes]})
    return {"name": "WAC" if args.suite == play_data.WAC else args.suite,
            "positions": len(problems), "depth": args.depth, "solved": solved,
            "seconds": seconds, "nodes": nodes, "wall_seconds": round(wall, 2),
            "agree": None if play_suite.HW not in searchers else not differences,
            "differences": differences,
            "solved_ids": {k: [p.id for p, a in zip(problems, found)
                               if p.solved_by(a[k].move)] for k in searchers}}


def print_suite(s: dict) -> None:
    print(f"suite: {s['name']}, {s['positions']} positions, depth {s['depth']} "
          f"(solved: the move is in bm and not in am)")
    print(f"{'searcher':<10} {'solved':>7} {'nodes':>11} {'seconds':>9}")
    for k, n in s["solved"].items():
        print(f"{k:<10} {n:>7} {s['nodes'][k]:>11,} {s['seconds'][k]:>9.1f}")
    if s["agree"] is not None:
        if s["agree"]:
            print(f"chip-ref and chip-hw agree at every position ({s['positions']}): move, "
                  "score and nodes")
        for d in s["differences"]:
            print(f"DIFFERENCE {d['id']} {d['fen']}: ref {d['ref']} hw {d['hw']}")
    print(f"wall time {s['wall_seconds']:.1f} s")


# ---- the command --------------------------------------------------------------------------

def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--depth", type=int, default=DEPTH, help=f"both searches' depth ({DEPTH})")
    p.add_argument("--chip-depth", type=int, default=CHIP_DEPTH,
                   help=f"plies below which the host hands a job to the leaf ({CHIP_DEPTH})")
    p.add_argument("--leaf", choices=("ref", "hw"), default="ref",
                   help="the chip's leaf search: the reference, or the compiled search thread")
    p.add_argument("--games", type=int, default=GAMES,
                   help=f"games of the match ({GAMES}; at most two per book line; 0 skips the "
                        "match)")
    p.add_argument("--positions", type=int, default=None,
                   help="the suite's first N positions (default all; 0 skips the suite)")
    p.add_argument("--ply-cap", type=int, default=PLY_CAP,
                   help=f"a game's plies before material adjudication ({PLY_CAP})")
    p.add_argument("--jobs", type=int, default=2,
                   help="games at once (posdata match --concurrency), processes sharing the "
                        "suite (2)")
    p.add_argument("--book", default=BOOK, help="opening book (default: posdata's, "
                                               "engine/match/openings.txt)")
    p.add_argument("--suite", default=play_data.WAC, help="EPD suite (bench/data/wac.epd)")
    add_json_option(p)
    return p.parse_args(argv)


def check(args) -> None:
    """The options that need no file."""
    if args.depth < 1:
        raise BenchError(f"--depth {args.depth}: at least 1")
    if not 0 <= args.chip_depth <= MAX_JOB_DEPTH:
        raise BenchError(f"--chip-depth {args.chip_depth}: 0 to {MAX_JOB_DEPTH}")
    if not 1 <= args.jobs <= 64:
        raise BenchError(f"--jobs {args.jobs}: 1 to 64")
    if args.ply_cap < 1:
        raise BenchError(f"--ply-cap {args.ply_cap}: at least 1")


def read_inputs(args) -> tuple[list, list]:
    """The book and the suite (each only when used), with --games and --positions checked."""
    book = read_book(args.book) if args.games != 0 else []
    games = args.games
    if not 0 <= games <= 2 * len(book):
        raise BenchError(f"--games {games}: 0 to {2 * len(book)} (two per book line)")
    problems = play_data.read_suite(args.suite) if args.positions != 0 else []
    positions = len(problems) if args.positions is None else args.positions
    if not 0 <= positions <= len(problems):
        raise BenchError(f"--positions {positions}: 0 to {len(problems)}")
    args.games, args.positions = games, positions
    return book, problems


def main(argv=None) -> int:
    args = parse(argv)
    try:
        check(args)
        _, problems = read_inputs(args)
    except (BenchError, ValueError) as e:  # engine.match.book.BookError is a ValueError
        print(f"{NAME}: error: {e}", file=sys.stderr)
        return 2
    library = None
    if args.leaf == "hw":  # compiled here once (cached), loaded by every process
        from posdata.sim.models.cxxrtl import build_library
        library = build_library(verbose=True, design="search")
    init = (args.depth, args.chip_depth, library)
    print("command  " + " ".join([sys.executable, *sys.argv]))
    out = {"depth": args.depth, "chip_depth": args.chip_depth, "leaf": args.leaf,
           "jobs": args.jobs}
    try:
        if args.games:
            out["match"] = match(args)
        if args.positions:
            out["suite"] = suite(args, problems, init)
            print_suite(out["suite"])
    except KeyboardInterrupt:
        print(f"{NAME}: interrupted; nothing written", file=sys.stderr)
        return 130
    except BenchError as e:
        print(f"{NAME}: error: {e}", file=sys.stderr)
        return 2
    write_json(args.json, out)
    return 0 if out.get("suite", {}).get("agree") is not False else 1


if __name__ == "__main__":
    sys.exit(main())
