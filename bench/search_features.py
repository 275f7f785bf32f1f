"""What each feature of the chip's search buys (issue 38): the reference's tree with the features
added one at a time, in nodes and in the clock estimate, and, with ``--games N``, in games.

The features are engine.search.leaf_search.Rules: the check extension (at most MAX_EXTENSIONS on a
line), evasions in the first QS_CHECK_PLIES quiescence plies, repetition and fifty-move draws,
leaf_structure's terms in the evaluation, the draws' contempt, and two killers a ply (the
jobs' and the host's). Each row adds one to the row above; the last is CHIP_RULES, what
the search thread builds.

Nodes: the host's search (depth ``--depth``, chip depth ``--chip-depth``) over the reference leaf
search on the search bench's positions (bench/search.py). The estimate: bench/leaf_tree.py's
per-event clocks (walks at its measured mean) with the new events: a wait for an in-check answer
before a quiescence node's kind is known (the attack unit's latency), and a repetition test (two
clocks, then one a position compared). The compiled thread's measured clocks per node are
bench/search_chip.py's.

Games (``--games N``): each row's search (the host's, depth ``--match-depth``, over the reference
with that row's rules) against the software search (engine.search.searcher.Searcher, eval.py, the
same depth), from the match book (engine/match/openings.txt) with either colour, judged by
engine.match.judge (ply cap 200, then material): score, Elo with its 95 % error bar, and how many
games ended in threefold repetition. The games run in ``--jobs`` processes.

Usage::

    .venv/bin/python bench/search_features.py [--depth 4] [--games 100] [--json FILE]
"""

import argparse
import multiprocessing
import sys
import time
from collections import Counter
from dataclasses import asdict

from leaf_tree import COSTS, WALK_CLOCKS_DEFAULT
from posdata.engine.match import elo
from posdata.engine.match.book import read_book
from posdata.engine.match.judge import DRAW, THREEFOLD, WHITE_WINS, Judge
from posdata.engine.rules.board import Board
from posdata.engine.search.host_search import DEFAULT_CHIP_DEPTH, HostSearch, ReferenceLeaf
from posdata.engine.search.leaf_search import CHIP_RULES, MAX_JOB_DEPTH, LeafStats, Rules
from posdata.engine.search.searcher import Limits, Searcher
from posdata.hdl.chip.attack import LATENCY as ATTACK_LATENCY

from results import add_json_option, write_json
from search import DEPTH, POSITIONS

#: each row adds one feature to the row above
ROWS = (
    ("none", Rules(max_extensions=0, qs_check_plies=0, draws=False, structure=False,
                   killers=False)),
    ("+ check extension", Rules(qs_check_plies=0, draws=False, structure=False, killers=False)),
    ("+ evasions", Rules(draws=False, structure=False, killers=False)),
    ("+ draws", Rules(structure=False, contempt=0, killers=False)),
    ("+ structure", Rules(contempt=0, killers=False)),
    ("+ contempt", Rules(killers=False)),
    ("+ killers", CHIP_RULES),
)
assert ROWS[-1][1] == CHIP_RULES
#: the new events' clocks: an in-check answer (hdl/chip/attack.py LATENCY), a repetition test
NEW_COSTS = {"check_waits": ATTACK_LATENCY, "draw_tests": 2, "draw_reads": 1}
MATCH_DEPTH = 3
MAX_DEPTH = 8  #: the host's depth: deeper takes hours in Python
PLY_CAP = 200


def tree(rules: Rules, depth: int, chip_depth: int) -> tuple[int, LeafStats]:
    leaf = ReferenceLeaf(rules=rules)
    nodes = 0
    for _, fen in POSITIONS:
        nodes += HostSearch(Board(fen), leaf, chip_depth, rules).search(depth).nodes
    return nodes, leaf.stats


def iterations(depth: int, chip_depth: int, pv_first: bool) -> int:
    """Nodes of iterative deepening 1 .. ``depth`` over the bench positions (CHIP_RULES), each
    iteration with or without the previous one's PV move first at the host's plies."""
    total = 0
    for _, fen in POSITIONS:
        host = HostSearch(Board(fen), ReferenceLeaf(), chip_depth)
        result = None
        for d in range(1, depth + 1):
            result = host.search(d, prev_pv=result.pv if result and pv_first else ())
            total += result.nodes
    return total


def estimate(stats: LeafStats) -> float:
    """Clocks per node of the jobs' trees (bench/leaf_tree.py's model, walks at its mean)."""
    clocks = sum(getattr(stats, name) * c for name, c in COSTS.items() if hasattr(stats, name))
    clocks += sum(getattr(stats, name) * c for name, c in NEW_COSTS.items())
    clocks += stats.walks * WALK_CLOCKS_DEFAULT
    return clocks / stats.nodes


# ---- the games ----------------------------------------------------------------------------

_players: dict = {}


def _setup(rules: Rules, depth: int, chip_depth: int) -> None:
    _players.update(rules=rules, depth=depth, chip_depth=chip_depth)


def _chip_move(board) -> int:
    p = _players
    return HostSearch(board, ReferenceLeaf(rules=p["rules"]), p["chip_depth"],
                      p["rules"]).search(p["depth"]).best_move


def _software_move(board) -> int:
    return Searcher().think(board, Limits(depth=_players["depth"])).best_move


def _game(task) -> tuple[float, str]:
    """Game ``index`` of the book: the chip white in the even games. (The chip's points, the
    ending.)"""
    index, opening = task
    board = opening.board()
    judge = Judge(board, PLY_CAP)
    for word in opening.moves:
        judge.push(board.parse_uci(word))
    chip_white = index % 2 == 0
    while (verdict := judge.verdict()) is None:
        chip_to_move = (board.side == 0) == chip_white
        judge.push((_chip_move if chip_to_move else _software_move)(board))
    result, reason = verdict
    points = 0.5 if result == DRAW else float((result == WHITE_WINS) == chip_white)
    return points, reason


def match(rules: Rules, games: int, depth: int, chip_depth: int, jobs: int) -> dict:
    book = read_book()
    tasks = [(i, book[i // 2]) for i in range(games)]
    with multiprocessing.Pool(jobs, _setup, (rules, depth, chip_depth)) as pool:
        results = pool.map(_game, tasks)
    points = Counter(p for p, _ in results)
    w, d, l_ = points[1.0], points[0.5], points[0.0]
    p = elo.score(w, d, l_)
    return {"wins": w, "draws": d, "losses": l_, "score": p,
            "elo": elo.finite(elo.elo_difference(p)),
            "elo_margin": elo.finite(elo.error_margin(w, d, l_)),
            "threefold": sum(reason == THREEFOLD for _, reason in results)}


# ---- the command ----------------------------------------------------------------------------

def bad_arguments(args) -> str | None:
    """What is wrong with the command line, in a few words (None: nothing)."""
    openings = len(read_book())
    if not 1 <= args.depth <= MAX_DEPTH:
        return f"--depth must be 1 .. {MAX_DEPTH}"
    if not 0 <= args.chip_depth <= MAX_JOB_DEPTH:
        return f"--chip-depth must be 0 .. {MAX_JOB_DEPTH}"
    if not 1 <= args.match_depth <= MAX_DEPTH:
        return f"--match-depth must be 1 .. {MAX_DEPTH}"
    if args.games < 0 or args.games % 2 or args.games > 2 * openings:
        return (f"--games must be even and 0 .. {2 * openings} (each of the book's "
                f"{openings} openings is played with either colour)")
    if args.jobs < 1:
        return "--jobs must be at least 1"
    return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--depth", type=int, default=DEPTH, help=f"the host's depth ({DEPTH})")
    p.add_argument("--chip-depth", type=int, default=DEFAULT_CHIP_DEPTH)
    p.add_argument("--games", type=int, default=0,
                   help="games per row against the software search (0: none)")
    p.add_argument("--match-depth", type=int, default=MATCH_DEPTH)
    p.add_argument("--jobs", type=int, default=2, help="processes for the games (2)")
    add_json_option(p)
    args = p.parse_args(argv)
    problem = bad_arguments(args)
    if problem:
        print(f"bench/search_features.py: error: {problem}", file=sys.stderr)
        return 2
    print("command  " + " ".join([sys.executable, *sys.argv]))
    print(f"host depth {args.depth}, chip depth {args.chip_depth}, the search bench's "
          f"{len(POSITIONS)} positions\n")
    print(f"{'features':<20} {'nodes':>10} {'change':>7} {'extended':>8} {'evasion':>7} "
          f"{'waits':>7} {'draws':>5} {'walks':>6} {'est. clk/node':>13}"
          + ("   match (chip's score, Elo, threefold)" if args.games else ""))
    out, previous = [], None
    for name, rules in ROWS:
        start = time.monotonic()
        nodes, s = tree(rules, args.depth, args.chip_depth)
        row = {"features": name, "rules": asdict(rules), "nodes": nodes, "stats": asdict(s),
               "estimate": round(estimate(s), 2)}
        change = f"{(nodes / previous - 1) * 100:+.1f}%" if previous else ""
        line = (f"{name:<20} {nodes:>10,} {change:>7} {s.extended:>8} {s.evasion:>7} "
                f"{s.check_waits:>7} {s.draws:>5} {s.walks:>6} {row['estimate']:>13.2f}")
        if args.games:
            row["match"] = m = match(rules, args.games, args.match_depth, args.chip_depth,
                                     args.jobs)
            line += (f"   {m['wins']}/{m['draws']}/{m['losses']} {m['score']:.1%}, "
                     f"{elo.text(m)}, "
                     f"{m['threefold']} threefold")
        print(line + f"  ({time.monotonic() - start:.0f} s)", flush=True)
        out.append(row)
        previous = nodes
    if args.games:
        print(f"\ngames: {args.games} per row, depth {args.match_depth} both, against "
              "engine.search.searcher.Searcher; W/D/L from the chip's side")
    plain, pv = (iterations(args.depth, args.chip_depth, first) for first in (False, True))
    print(f"\nthe host's move order, iterations 1 .. {args.depth}: {plain:,} nodes each "
          f"iteration on its own, {pv:,} with the previous PV's move first at the host's plies "
          f"({(pv / plain - 1) * 100:+.1f}%)")
    write_json(args.json, {"depth": args.depth, "chip_depth": args.chip_depth,
                           "games": args.games, "match_depth": args.match_depth, "rows": out,
                           "iterations": {"plain": plain, "pv_first": pv}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
