"""posdata match: games between two UCI engines (posdata's backends or any UCI engine), as
cutechess-cli plays them: an opening book, colours swapped, rules and a ply cap judged here, PGN,
score and Elo, an SPRT's early stop. The logic is engine.match's; this module reads the options,
prints and writes."""

import sys

from .common import CliError, float_in_range, int_in_range
from .outputs import Outputs

DEFAULT_PLY_CAP = 400
SPRT_KEYS = ("elo0", "elo1", "alpha", "beta")

DESCRIPTION = """\
Play games between two UCI engines as cutechess-cli does: each opening of the book twice,
either engine white; games judged by the rules (checkmate, stalemate, threefold repetition,
fifty moves, insufficient material) and, at the ply cap, on material (a minor piece ahead
wins). An engine that stalls, crashes or plays an illegal move loses that game (a stalled or
crashed one is restarted). Prints the first engine's score, W/D/L, the Elo difference with its
95 % error bar, draws and threefold repetitions; a line per game on stderr."""

EPILOG = """\
engine words (KEY=VALUE, as cutechess-cli's -engine):
  backend=tscp|gen|sw|hw  posdata's own engine (`posdata uci`, option Backend): tscp the
                          TSCP-style search, gen the same on the gateware generator, sw the
                          chip's search over the reference leaf search, hw over the compiled
                          search thread
  cmd=COMMAND             any UCI engine: its command line, split as a shell would
  name=NAME               its name in the PGN and the results (default: posdata BACKEND, or the
                          name the engine gives)
  dir=DIR                 its working directory
  option.NAME=VALUE       a UCI option, checked against those the engine offers
  chipdepth=D             posdata's ChipDepth (backend sw or hw)
  depth=N nodes=N movetime=MS
                          the limits of each move (one or more, all in one go)
  timeout=S               a move's deadline before the engine loses as stalled (default: twice
                          movetime plus 10 s, or 300 s without a movetime)

examples:
  posdata match --each depth=2 --engine backend=sw --engine backend=tscp --games 20
  posdata match --engine backend=sw depth=3 \\
      --engine cmd=stockfish option.UCI_LimitStrength=true option.UCI_Elo=1320 movetime=100 \\
      --games 200 --concurrency 2 --pgn games.pgn --sprt elo0=0 elo1=50
"""


def register(sub) -> None:
    import argparse
    p = sub.add_parser(
        "match", help="play games between two UCI engines (posdata's backends or others): "
                      "score, Elo, PGN, SPRT",
        description=DESCRIPTION,
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--engine", action="append", nargs="+", default=[], metavar="KEY=VALUE",
                   help="an engine and its settings (see below); give it twice, the first "
                        "engine's view is the one reported")
    p.add_argument("--each", nargs="+", action="extend", default=[], metavar="KEY=VALUE",
                   help="settings for both engines (an engine's own take precedence; "
                        "cmd= or backend= of its own replaces either of --each's)")
    p.add_argument("--games", type=int_in_range(1, 1_000_000, "--games"), default=None,
                   metavar="N", help="games to play (default: twice the book's lines)")
    p.add_argument("--book", metavar="FILE", default=None,
                   help="the opening book: a line of UCI moves from the initial position (or "
                        "'FEN moves ...') per opening, '# name' after it (default: posdata's "
                        "own, over 100 well-known openings)")
    p.add_argument("--ply-cap", type=int_in_range(1, 100_000, "--ply-cap"),
                   default=DEFAULT_PLY_CAP, metavar="P",
                   help=f"plies (the book's included) after which a game is adjudicated on "
                        f"material (default {DEFAULT_PLY_CAP})")
    p.add_argument("--concurrency", type=int_in_range(1, 64, "--concurrency"), default=1,
                   metavar="N", help="games played at once, each with its own engine "
                                     "processes (default 1)")
    p.add_argument("--sprt", nargs="*", default=None, metavar="KEY=VALUE",
                   help="stop when the sequential probability ratio test decides: elo0=E0 "
                        "elo1=E1 alpha=A beta=B (default 0, 10, 0.05, 0.05)")
    p.add_argument("--pgn", metavar="FILE", default=None, help="write the games as PGN")
    p.add_argument("--json", metavar="FILE", default=None,
                   help="also write the results, with every game, to FILE as JSON")
    p.add_argument("--quiet", action="store_true", help="no line per game on stderr")
    p.set_defaults(run=run)


def posdata_uci() -> list[str]:
    """The command line of posdata's UCI engine: this Python, this installation."""
    return [sys.executable, "-m", "posdata.sim", "uci"]


def read_sprt(words: list[str] | None):
    from posdata.engine.match.sprt import Sprt
    if words is None:
        return None
    values = {}
    for word in words:
        key, eq, text = word.partition("=")
        if not eq or key not in SPRT_KEYS:
            raise CliError(f"match: --sprt takes {', '.join(k + '=X' for k in SPRT_KEYS)}, not "
                           f"{word!r}")
        if key in values:
            raise CliError(f"match: --sprt: {key} given twice")
        low, high = (-2000, 2000) if key.startswith("elo") else (1e-9, 0.5)
        try:
            values[key] = float_in_range(low, high, f"--sprt {key}")(text)
        except Exception as e:  # argparse.ArgumentTypeError: the message names the key
            raise CliError(f"match: {e}") from None
    try:
        return Sprt(**values)
    except ValueError as e:
        raise CliError(f"match: --sprt: {e}") from None


def read_engines(args) -> tuple:
    from posdata.engine.match.spec import SpecError, parse_engine
    if len(args.engine) != 2:
        raise CliError(f"match: give --engine twice (two engines), not {len(args.engine)} "
                       "time(s)")
    try:
        return tuple(parse_engine(words, args.each, f"--engine {k + 1}")
                     for k, words in enumerate(args.engine))
    except SpecError as e:
        raise CliError(f"match: {e}") from None


def run(args) -> int:
    from posdata.engine.match.book import BOOK, BookError, read_book
    from posdata.engine.match.pgn import match_pgn
    from posdata.engine.match.runner import Match, MatchConfig, MatchError
    from posdata.engine.match.summary import progress_line, report, summarise

    engines = read_engines(args)
    sprt = read_sprt(args.sprt)
    book_path = args.book or BOOK
    try:
        book = read_book(book_path)
    except BookError as e:
        raise CliError(f"match: --book: {e}") from None
    games = args.games if args.games is not None else 2 * len(book)
    config = MatchConfig(engines, book, games, args.ply_cap, posdata_uci(), args.concurrency,
                         sprt)

    def on_game(record, match):
        if not args.quiet:
            print(progress_line(record, match), file=sys.stderr, flush=True)

    def on_note(text):
        print(f"posdata match: {text}", file=sys.stderr, flush=True)

    with Outputs() as outputs:
        for path, option in ((args.pgn, "--pgn"), (args.json, "--json")):
            if path is not None:
                outputs.add(path, option)
        match = Match(config, on_game, on_note)
        try:
            match.run()
        except MatchError as e:
            raise CliError(f"match: {e}") from None
        except KeyboardInterrupt:
            print(f"posdata match: interrupted after {len(match.records)} game(s); engines "
                  "stopped, nothing written", file=sys.stderr)
            return 130
        summary = summarise(match, book_path)
        if args.pgn is not None:
            _write(outputs.temp(args.pgn), match_pgn(match.records), args.pgn, "--pgn")
        if args.json is not None:
            import json
            _write(outputs.temp(args.json), json.dumps(summary, indent=1) + "\n", args.json,
                   "--json")
        outputs.commit()
    print("\n".join(report(summary)))
    if match.stopped:
        print(f"posdata match: stopped early: {match.stopped}", file=sys.stderr)
        return 1
    return 0


def _write(temp: str, text: str, path: str, option: str) -> None:
    try:
        with open(temp, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise CliError(f"cannot write {path} ({option}): {e.strerror or e}") from None
