"""A UCI engine for the match's tests: it plays a random legal move at once (python-chess knows
the moves), or misbehaves when asked, so the client, the hang guard and the forfeits are tested
without a search.

    python tests/engine/match/fake_uci_engine.py [--seed N] [--name NAME] [--options]
        [--illegal-at K] [--illegal-every K] [--silent-at K] [--crash-at K] [--no-uciok]
        [--refuse-options] [--delay S] [--log FILE] [--pid-file FILE]

``--*-at K``: at this process's K-th ``go`` (from 1) answer an illegal move, answer nothing, or
exit with status 3 after a line on stderr; ``--illegal-every K``: an illegal move at every K-th.
``--options`` offers a few options of each type; ``--refuse-options`` answers every setoption
with an info string, as posdata does when it refuses one. ``--log`` appends every line
received; ``--pid-file`` writes the process id.
"""

import argparse
import os
import random
import sys
import time

import chess

OPTIONS = [
    "option name Hash type spin default 16 min 1 max 1024",
    "option name Style type combo default Normal var Solid var Normal var Risky",
    "option name Ponder type check default false",
    "option name Clear Hash type button",
    "option name Skill Level type spin default 20 min 0 max 20",
    "option name Book File type string default <empty>",
]


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--name", default="fake")
    p.add_argument("--options", action="store_true")
    p.add_argument("--illegal-at", type=int, default=0)
    p.add_argument("--illegal-every", type=int, default=0)
    p.add_argument("--silent-at", type=int, default=0)
    p.add_argument("--crash-at", type=int, default=0)
    p.add_argument("--no-uciok", action="store_true")
    p.add_argument("--refuse-options", action="store_true")
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--log", default=None)
    p.add_argument("--pid-file", default=None)
    args = p.parse_args()
    if args.pid_file:
        with open(args.pid_file, "w") as f:
            f.write(str(os.getpid()))
    rng = random.Random(args.seed)
    board = chess.Board()
    goes = 0

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        line = line.strip()
        if args.log:
            with open(args.log, "a") as f:
                f.write(line + "\n")
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            return 0
        if words[0] == "uci":
            if args.no_uciok:
                continue
            say(f"id name {args.name}")
            say("id author the posdata tests")
            for option in OPTIONS if args.options else []:
                say(option)
            say("uciok")
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "setoption" and args.refuse_options:
            say("info string setoption refused: " + " ".join(words[1:]))
        elif words[0] == "position":
            moves_at = words.index("moves") if "moves" in words else len(words)
            board = chess.Board() if words[1] == "startpos" else \
                chess.Board(" ".join(words[2:moves_at]))
            for word in words[moves_at + 1:]:
                board.push_uci(word)
        elif words[0] == "go":
            goes += 1
            if goes == args.crash_at:
                sys.stderr.write("fake engine: crashing as asked\n")
                sys.stderr.flush()
                return 3
            if goes == args.silent_at:
                continue
            if args.delay:
                time.sleep(args.delay)
            if goes == args.illegal_at or args.illegal_every and goes % args.illegal_every == 0:
                say("bestmove a1a1")
                continue
            moves = sorted(board.legal_moves, key=lambda m: m.uci())
            say(f"info depth 1 score cp {rng.randint(-50, 50)} nodes {len(moves)}")
            say(f"bestmove {rng.choice(moves).uci() if moves else '0000'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
