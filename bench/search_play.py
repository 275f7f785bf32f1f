"""Playing strength: the chip's search against the full software search, in games and on a
tactical suite, at a fixed depth.

The match: the host's search over the chip's evaluation (HostSearch over the reference leaf
search, or over the compiled search thread with ``--leaf hw``: the same moves) against the
software search (Searcher, eval.py), both to ``--depth``, from each line of a fixed opening book
(bench/data/openings.txt) with either side white: 100 games. Games are judged by python-chess
(mate, stalemate, insufficient material, threefold, fifty moves) and a ply cap adjudicated on
material (bench/play_games.py). Printed: the chip's W/D/L, its score, the Elo difference with
its 95 % error bar (bench/elo.py states the formula) and games per second. The games' digest (a
hash of every game's moves) is the same with either leaf.

The suite: Win At Chess (bench/data/wac.epd, 300 positions) to ``--depth``: a position is solved
when the searcher's move is one of its bm and none of its am. Solved counts and time for the
chip's search over the reference, over the compiled thread (``--leaf hw``: they must agree
position by position, move, score and nodes; a difference is printed and the exit status is 1),
and for the software search.

Games and positions are independent: ``--jobs`` processes (default 2) share them, progress on
stderr. Usage::

    .venv/bin/python bench/search_play.py [--depth 3] [--chip-depth 2] [--leaf ref|hw]
        [--games N] [--positions N] [--ply-cap P] [--jobs J] [--json FILE]
"""

import argparse
import hashlib
import multiprocessing
import sys
import time
from collections import Counter

from posdata.engine.leaf_search import MAX_JOB_DEPTH

import elo
import play_data
import play_games
import play_suite
from results import add_json_option, write_json

DEPTH = 3
CHIP_DEPTH = 2
PLY_CAP = 200  #: plies from the initial position, the opening included
NAME = "bench/search_play.py"

_worker: dict = {}  # per process: the players, the compiled model


class BenchError(Exception):
    """Bad input, said in one line."""


# ---- the work of one process ---------------------------------------------------------------

def setup(depth: int, chip_depth: int, library: str | None) -> None:
    from posdata.engine.host_search import ReferenceLeaf
    model = None
    if library is not None:
        from posdata.sim.drivers.search_cxxrtl import SearchModel
        model = SearchModel(library, verbose=False)
    _worker.update(
        depth=depth, chip_depth=chip_depth, model=model,
        chip=play_games.ChipPlayer(model or ReferenceLeaf(), depth, chip_depth),
        software=play_games.SoftwarePlayer(depth))


def game_task(task):
    """Game ``index``: opening index // 2, the chip white in the even games."""
    index, opening, ply_cap = task
    chip, software = _worker["chip"], _worker["software"]
    white, black = (chip, software) if index % 2 == 0 else (software, chip)
    return index, play_games.play(opening, white, black, ply_cap)


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

def match(args, book, init) -> dict:
    tasks = [(i, book[i // 2], args.ply_cap) for i in range(args.games)]
    start = time.perf_counter()

    def progress(done, index, g):
        chip_white = g.white == play_games.CHIP
        print(f"game {done}/{len(tasks)}: {g.opening}, chip {'white' if chip_white else 'black'}"
              f": {g.result} ({g.reason}, {len(g.moves)} plies)", file=sys.stderr, flush=True)

    games = run_tasks(game_task, tasks, args.jobs, init, progress)
    seconds = time.perf_counter() - start
    return summarise(games, seconds, args)


def tally(games) -> dict:
    points = Counter(g.points(play_games.CHIP) for g in games)
    return {"wins": points[1.0], "draws": points[0.5], "losses": points[0.0]}


def summarise(games, seconds: float, args) -> dict:
    """The match's figures from the chip's side, JSON-ready (an infinite Elo is None)."""
    t = tally(games)
    w, d, l_ = t["wins"], t["draws"], t["losses"]
    difference, margin = elo.elo_difference(elo.score(w, d, l_)), elo.error_margin(w, d, l_)
    digest = hashlib.sha256("\n".join(" ".join(g.moves) for g in games).encode()).hexdigest()
    per_move = {}
    for player in (play_games.CHIP, play_games.SOFTWARE):
        moves = sum(g.searched[player] for g in games)
        per_move[player] = sum(g.seconds[player] for g in games) / moves if moves else None
    return {
        "games": len(games), "openings": len({g.opening for g in games}),
        "ply_cap": args.ply_cap, **t, "score": elo.score(w, d, l_),
        "elo": difference if abs(difference) != float("inf") else None,
        "elo_margin": margin if margin != float("inf") else None,
        "as_white": tally([g for g in games if g.white == play_games.CHIP]),
        "as_black": tally([g for g in games if g.white != play_games.CHIP]),
        "endings": dict(Counter(g.reason for g in games).most_common()),
        "plies": sum(len(g.moves) for g in games),
        "seconds": round(seconds, 2), "games_per_s": len(games) / seconds,
        "seconds_per_move": per_move, "digest": digest[:16],
    }


def print_match(m: dict, args) -> None:
    print(f"match: the chip (host search, depth {args.depth}, chip depth {args.chip_depth}, "
          f"leaf {args.leaf}) against the software search (Searcher, eval.py, depth "
          f"{args.depth}): {m['games']} games from {m['openings']} openings, both colours, "
          f"ply cap {m['ply_cap']} (material adjudication)")
    w, d, l_ = m["wins"], m["draws"], m["losses"]
    print(f"chip: +{w} ={d} -{l_}, score {m['score']:.1%} ({w + d / 2:g}/{m['games']}); "
          f"as white +{m['as_white']['wins']} ={m['as_white']['draws']} "
          f"-{m['as_white']['losses']}, as black +{m['as_black']['wins']} "
          f"={m['as_black']['draws']} -{m['as_black']['losses']}")
    difference = elo.shown(m["elo"] if m["elo"] is not None else
                           (float("inf") if m["score"] > 0.5 else -float("inf")))
    margin = f"{m['elo_margin']:.0f}" if m["elo_margin"] is not None else "inf"
    print(f"Elo difference (chip - software): {difference} +- {margin} (95 %; "
          "D(p) = -400 log10(1/p - 1), error bar from the games' score variance, bench/elo.py)")
    print("endings: " + ", ".join(f"{k} {v}" for k, v in m["endings"].items()))
    spm = m["seconds_per_move"]
    print(f"{m['games']} games, {m['plies']} plies in {m['seconds']:.1f} s: "
          f"{m['games_per_s']:.3f} games/s with {args.jobs} process(es); seconds per move: "
          + ", ".join(f"{k} {v:.3f}" for k, v in spm.items() if v is not None)
          + f"; games digest {m['digest']}")


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
    p.add_argument("--games", type=int, default=None,
                   help="games of the match (default: every book line with either colour; 0 "
                        "skips the match)")
    p.add_argument("--positions", type=int, default=None,
                   help="the suite's first N positions (default all; 0 skips the suite)")
    p.add_argument("--ply-cap", type=int, default=PLY_CAP,
                   help=f"a game's plies before material adjudication ({PLY_CAP})")
    p.add_argument("--jobs", type=int, default=2, help="processes sharing the work (2)")
    p.add_argument("--book", default=play_data.BOOK, help="opening book (bench/data/...)")
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
    book = play_data.read_book(args.book) if args.games != 0 else []
    games = 2 * len(book) if args.games is None else args.games
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
        book, problems = read_inputs(args)
    except (BenchError, ValueError) as e:
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
            out["match"] = match(args, book, init)
            print_match(out["match"], args)
        if args.positions:
            out["suite"] = suite(args, problems, init)
            print_suite(out["suite"])
    except KeyboardInterrupt:
        print(f"{NAME}: interrupted; nothing written", file=sys.stderr)
        return 130
    write_json(args.json, out)
    return 0 if out.get("suite", {}).get("agree") is not False else 1


if __name__ == "__main__":
    sys.exit(main())
