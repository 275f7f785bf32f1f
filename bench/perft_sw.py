"""Software perft speed: our engine against python-chess, in one run, on the same positions.

Two kinds of perft, each for both peers:

* plain: every move down to the leaves is played and taken back (ours: makemove/takeback,
  python-chess: push/pop);
* bulk:  the last ply only counts the legal moves (ours: ``perft(..., bulk=True)``,
  python-chess: ``board.legal_moves.count()``).

Then the whole process, as a user meets it: ``posdata perft --depth 5 --plain -j 1`` of the
initial position against a Python running python-chess's plain perft(5) of it, each timed from
its start to its exit (imports and start-up included), and each one's start-up alone (the same
command at depth 1).

The runs of the two peers alternate (ours, theirs, ours, theirs, ...) so that drift of the
machine hits both alike; each figure is the median of ``--repeat`` runs. Node counts are checked
against the published ones. Usage::

    .venv/bin/python bench/perft_sw.py [--repeat 5] [--quick] [--mode plain|bulk|both] [--json F]
"""

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time

import chess

from posdata.engine.rules.board import Board
from posdata.engine.rules.perft import perft
from posdata.engine.rules.positions import STANDARD_POSITIONS

from results import add_json_option, write_json

#: per position, the depth of each mode: roughly 0.1-0.5 M nodes, a second or so per run
DEPTHS = {"plain": {"initial": 4, "kiwipete": 3, "position3": 4, "position4": 4,
                    "position5": 3, "position6": 3},
          "bulk": {"initial": 4, "kiwipete": 3, "position3": 5, "position4": 4,
                   "position5": 3, "position6": 3}}
QUICK_DEPTHS = {"plain": {"initial": 3, "kiwipete": 2, "position3": 3, "position4": 3,
                          "position5": 2, "position6": 2},
                "bulk": {"initial": 4, "kiwipete": 3, "position3": 4, "position4": 3,
                         "position5": 3, "position6": 3}}


#: the whole-process row: depth (--quick) of the initial position, plain, one process
WHOLE_DEPTH, WHOLE_QUICK_DEPTH = 5, 4
POSDATA = os.path.join(os.path.dirname(sys.executable), "posdata")
#: python-chess's whole process: chess_perft below, and nothing else imported
CHESS_SCRIPT = """import sys
import chess
def perft(board, depth):
    if depth == 0:
        return 1
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += perft(board, depth - 1)
        board.pop()
    return nodes
print(perft(chess.Board(sys.argv[1]), int(sys.argv[2])))
"""


def chess_perft(board: chess.Board, depth: int) -> int:
    """python-chess, plain: push/pop to the leaves."""
    if depth == 0:
        return 1
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += chess_perft(board, depth - 1)
        board.pop()
    return nodes


def chess_perft_bulk(board: chess.Board, depth: int) -> int:
    """python-chess, bulk: count the legal moves at depth 1 (as its own perft test does)."""
    if depth <= 1:
        return board.legal_moves.count() if depth == 1 else 1
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += chess_perft_bulk(board, depth - 1)
        board.pop()
    return nodes


def time_ours(fen: str, depth: int, bulk: bool) -> tuple[int, float]:
    board = Board(fen)
    start = time.perf_counter()
    nodes = perft(board, depth, bulk=bulk)
    return nodes, time.perf_counter() - start


def time_theirs(fen: str, depth: int, bulk: bool) -> tuple[int, float]:
    board = chess.Board(fen)
    start = time.perf_counter()
    nodes = (chess_perft_bulk if bulk else chess_perft)(board, depth)
    return nodes, time.perf_counter() - start


def whole_commands(fen: str, depth: int) -> tuple[list[str], list[str]]:
    """(ours, theirs): the two processes that count plain perft(``depth``) of ``fen``."""
    return ([POSDATA, "perft", "--backend", "sw", "--fen", fen, "--depth", str(depth),
             "--plain", "-j", "1", "--json"],
            [sys.executable, "-c", CHESS_SCRIPT, fen, str(depth)])


def time_process(argv: list[str]) -> tuple[int, float]:
    """(the nodes it printed, seconds from its start to its exit)."""
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    out = done.stdout.strip()
    return (json.loads(out)["nodes"] if out.startswith("{") else int(out)), seconds


def whole_process(depth: int, repeat: int) -> dict:
    """The whole-process row: both peers' processes at ``depth`` and at depth 1 (start-up),
    alternating."""
    fen = STANDARD_POSITIONS[0].fen
    ours, theirs = whole_commands(fen, depth)
    times = {"ours": [], "theirs": [], "ours_start": [], "theirs_start": []}
    counts = set()
    for _ in range(repeat):
        for key, argv in (("ours", ours), ("theirs", theirs)):
            nodes, seconds = time_process(argv)
            counts.add(nodes)
            times[key].append(seconds)
        for key, argv in zip(("ours_start", "theirs_start"), whole_commands(fen, 1)):
            times[key].append(time_process(argv)[1])
    median = {key: statistics.median(values) for key, values in times.items()}
    want = STANDARD_POSITIONS[0].counts[depth - 1]
    return {"position": STANDARD_POSITIONS[0].name, "depth": depth, "nodes": want,
            "ok": counts == {want}, "seconds": round(median["ours"], 3),
            "peer_seconds": round(median["theirs"], 3),
            "startup_seconds": round(median["ours_start"], 3),
            "peer_startup_seconds": round(median["theirs_start"], 3),
            "ratio": round(median["theirs"] / median["ours"], 3),
            "command": shlex.join(["posdata", *ours[1:]]),
            "peer_command": "python -c SCRIPT FEN DEPTH (bench/perft_sw.py's CHESS_SCRIPT)"}


def print_whole(w: dict) -> None:
    print(f"whole process, {w['position']} perft({w['depth']}) plain, {w['nodes']:,} nodes: "
          f"start to exit, start-up alone (depth 1)")
    print(f"  ours    {w['seconds']:8.2f} s  start-up {w['startup_seconds']:.2f} s  "
          f"{w['command']}")
    print(f"  theirs  {w['peer_seconds']:8.2f} s  start-up {w['peer_startup_seconds']:.2f} s  "
          f"{w['peer_command']}")
    print(f"  ratio   {w['ratio']:8.2f}" + ("" if w["ok"] else "  COUNT MISMATCH"))
    print()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per peer (median; default 3)")
    parser.add_argument("--quick", action="store_true", help="shallower depths (a smoke run)")
    parser.add_argument("--mode", choices=("plain", "bulk", "both"), default="both")
    parser.add_argument("--positions", nargs="+", metavar="NAME",
                        choices=[p.name for p in STANDARD_POSITIONS],
                        help="a subset of the standard positions")
    add_json_option(parser)
    args = parser.parse_args(argv)
    depths = QUICK_DEPTHS if args.quick else DEPTHS
    modes = ("plain", "bulk") if args.mode == "both" else (args.mode,)
    positions = [p for p in STANDARD_POSITIONS if not args.positions or p.name in args.positions]

    print(f"command  {sys.executable} {' '.join(sys.argv)}")
    print(f"python   {platform.python_implementation()} {platform.python_version()} "
          f"({platform.machine()}, {platform.system()})")
    print(f"peer     python-chess {chess.__version__}")
    print(f"method   medians of {args.repeat} runs per peer, runs alternate ours/theirs")
    print()
    ok = True
    results = {"peer": f"python-chess {chess.__version__}", "repeat": args.repeat,
               "python": f"{platform.python_implementation()} {platform.python_version()}"}
    for mode in modes:
        bulk = mode == "bulk"
        print(f"{mode:<5} {'position':<10} {'depth':>5} {'nodes':>9} "
              f"{'ours n/s':>10} {'chess n/s':>10} {'ratio':>6}")
        total_nodes, total_ours, total_theirs = 0, 0.0, 0.0
        rows = []
        for pos in positions:
            depth = depths[mode][pos.name]
            ours, theirs = [], []
            for _ in range(args.repeat):
                n_ours, t = time_ours(pos.fen, depth, bulk)
                ours.append(t)
                n_theirs, t = time_theirs(pos.fen, depth, bulk)
                theirs.append(t)
            want = pos.counts[depth - 1]
            if not n_ours == n_theirs == want:
                print(f"  COUNT MISMATCH {pos.name} depth {depth}: ours {n_ours}, "
                      f"python-chess {n_theirs}, published {want}")
                ok = False
            t_ours, t_theirs = statistics.median(ours), statistics.median(theirs)
            total_nodes += want
            total_ours += t_ours
            total_theirs += t_theirs
            print(f"{'':<5} {pos.name:<10} {depth:>5} {want:>9} {want / t_ours:>10,.0f} "
                  f"{want / t_theirs:>10,.0f} {t_theirs / t_ours:>6.2f}")
            rows.append({"position": pos.name, "depth": depth, "nodes": want,
                         "nps": round(want / t_ours), "peer_nps": round(want / t_theirs),
                         "ratio": round(t_theirs / t_ours, 3)})
        print(f"{'':<5} {'all':<10} {'':>5} {total_nodes:>9} {total_nodes / total_ours:>10,.0f} "
              f"{total_nodes / total_theirs:>10,.0f} {total_theirs / total_ours:>6.2f}")
        print()
        results[mode] = {"nodes": total_nodes, "nps": round(total_nodes / total_ours),
                         "peer_nps": round(total_nodes / total_theirs),
                         "ratio": round(total_theirs / total_ours, 3), "positions": rows}
    if "plain" in modes and not args.positions:
        w = whole_process(WHOLE_QUICK_DEPTH if args.quick else WHOLE_DEPTH, args.repeat)
        print_whole(w)
        results["whole_process"] = w
        ok = ok and w["ok"]
    results["ok"] = ok
    write_json(args.json, results)
    print("ratio = python-chess time / our time on the same tree (> 1: we are faster)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
