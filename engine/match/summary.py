"""A match's figures, from the first engine's side: JSON-ready (``summarise``) and as lines of
text (``report``), and the one line shown as each game ends (``progress_line``)."""

import hashlib
from collections import Counter

from . import elo
from .game import FORFEITS, GameRecord
from .judge import THREEFOLD
from .sprt import H1, llr


def tally(records: list[GameRecord], name: str) -> dict:
    points = Counter(r.points(name) for r in records)
    return {"wins": points[1.0], "draws": points[0.5], "losses": points[0.0]}


def summarise(match, book_path: str) -> dict:
    """Everything about a finished ``match`` (engine.match.runner.Match): the engines, the
    figures, the SPRT, and every game counted in round order."""
    config, names = match.config, match.names
    records = sorted(match.records, key=lambda r: r.index)
    first = names[0]
    t = tally(records, first)
    w, d, l_ = t["wins"], t["draws"], t["losses"]
    games = len(records)
    score = elo.score(w, d, l_) if games else None
    moves = {n: sum(r.searched.get(n, 0) for r in records) for n in names}
    thought = {n: sum(r.seconds.get(n, 0.0) for r in records) for n in names}
    endings = Counter(r.reason for r in records)
    digest = hashlib.sha256("\n".join(" ".join(r.moves) for r in records).encode()).hexdigest()
    out = {
        "engines": [{**spec.to_json(), "name": names[k]}
                    for k, spec in enumerate(config.engines)],
        "book": book_path, "book_lines": len(config.book),
        "openings": len({(r.opening.fen, r.opening.moves) for r in records}),
        "games_planned": config.games, "ply_cap": config.ply_cap,
        "concurrency": config.concurrency,
        "games": games, **t, "score": score,
        "elo": elo.finite(elo.elo_difference(score)) if games else None,
        "elo_margin": elo.finite(elo.error_margin(w, d, l_)) if games else None,
        "los": elo.likelihood_of_superiority(w, l_),
        "as_white": tally([r for r in records if r.white == first], first),
        "as_black": tally([r for r in records if r.black == first], first),
        "threefold": endings[THREEFOLD],
        "endings": dict(endings.most_common()),
        "forfeits": {n: sum(1 for r in records if r.loser == n) for n in names},
        "plies": sum(len(r.moves) for r in records),
        "seconds": round(match.seconds, 2),
        "games_per_s": games / match.seconds if match.seconds > 0 else None,
        "seconds_per_move": {n: thought[n] / moves[n] if moves[n] else None for n in names},
        "digest": digest[:16],
        "sprt": None, "abandoned": match.abandoned, "stopped": match.stopped,
        "game_list": [game_json(r) for r in records],
    }
    if config.sprt is not None:
        s = config.sprt
        out["sprt"] = {"elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta,
                       "llr": llr(w, d, l_, s.elo0, s.elo1), "lower": s.lower,
                       "upper": s.upper, "decision": match.decision}
    return out


def game_json(r: GameRecord) -> dict:
    return {"round": r.index + 1, "white": r.white, "black": r.black,
            "opening": r.opening.name, "fen": r.start_fen, "result": r.result,
            "reason": r.reason, "detail": r.detail, "plies": len(r.moves),
            "book_plies": r.book_plies, "moves": " ".join(r.moves),
            "seconds": {k: round(v, 3) for k, v in r.seconds.items()}}


def wdl(t: dict) -> str:
    return f"+{t['wins']} ={t['draws']} -{t['losses']}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def report(s: dict) -> list[str]:
    """The match's result as lines of text."""
    a, b = (e["name"] for e in s["engines"])
    limits = [", ".join(f"{k} {v}" for k, v in e["limits"].items() if v is not None)
              for e in s["engines"]]
    out = [f"match: {a} ({limits[0]}) against {b} ({limits[1]}): {_count(s['games'], 'game')} "
           f"from {_count(s['openings'], 'opening')}, either engine white, ply cap "
           f"{s['ply_cap']}"]
    if not s["games"]:
        return out + ["no game was finished"]
    points = s["wins"] + s["draws"] / 2
    out.append(f"score of {a}: {wdl(s)}, {s['score']:.1%} ({points:g}/{s['games']}); as white "
               f"{wdl(s['as_white'])}, as black {wdl(s['as_black'])}")
    out.append(f"Elo difference ({a} - {b}): {elo.text(s)} (95 %), LOS {s['los']:.1%}")
    out.append(f"draws: {s['draws']}, by threefold repetition {s['threefold']}")
    out.append("endings: " + ", ".join(f"{k} {v}" for k, v in s["endings"].items()))
    forfeits = {n: k for n, k in s["forfeits"].items() if k}
    if forfeits:
        reasons = Counter(g["reason"] for g in s["game_list"] if g["reason"] in FORFEITS)
        out.append("forfeits: " + ", ".join(f"{n} {k}" for n, k in forfeits.items())
                   + " (" + ", ".join(f"{k} {v}" for k, v in reasons.items()) + ")")
    if s["sprt"] is not None:
        p = s["sprt"]
        verdict = ("H1 accepted (elo1)" if p["decision"] == H1 else "H0 accepted (elo0)"
                   if p["decision"] else "no decision")
        out.append(f"SPRT elo0 {p['elo0']:g} elo1 {p['elo1']:g} alpha {p['alpha']:g} beta "
                   f"{p['beta']:g}: LLR {p['llr']:.2f} [{p['lower']:.2f}, {p['upper']:.2f}]: "
                   f"{verdict} after {s['games']} games"
                   + (f"; {s['abandoned']} game(s) in progress abandoned" if s["abandoned"]
                      else ""))
    if s["stopped"]:
        out.append(f"stopped early after {s['games']} of {s['games_planned']} games: "
                   f"{s['stopped']}")
    spm = ", ".join(f"{n} {v:.3f}" for n, v in s["seconds_per_move"].items() if v is not None)
    rate = f"{s['games_per_s']:.3f} games/s" if s["games_per_s"] else ""
    out.append(f"{s['plies']} plies in {s['seconds']:.1f} s, {rate} at concurrency "
               f"{s['concurrency']}; seconds per move: {spm}; games digest {s['digest']}")
    return out


def progress_line(record: GameRecord, match) -> str:
    """``game 3/200 (round 3): A - B 1-0 checkmate, 87 plies; A +2 =0 -1``."""
    w, d, l_ = match.tally()
    line = (f"game {len(match.records)}/{match.config.games} (round {record.index + 1}): "
            f"{record.white} - {record.black} {record.result} {record.reason}, "
            f"{len(record.moves)} plies [{record.opening.name}]; {match.names[0]} "
            f"+{w} ={d} -{l_}")
    if match.config.sprt is not None:
        s = match.config.sprt
        line += f", LLR {llr(w, d, l_, s.elo0, s.elo1):.2f}"
    return line
