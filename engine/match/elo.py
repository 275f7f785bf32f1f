"""The Elo arithmetic of a match (``posdata match``, bench/search_play.py), as cutechess-cli and
most engine testers state it.

The score is p = (W + D/2) / N. The Elo difference is the logistic model's inverse,
D(p) = -400 log10(1/p - 1). Its 95 % error bar: each game scores 1, 1/2 or 0, so the standard
error of p is sigma = sqrt((W (1-p)^2 + D (1/2-p)^2 + L p^2) / N) / sqrt(N); the interval
p +- 1.95996 sigma mapped through D, halved: (D(p + 1.96 sigma) - D(p - 1.96 sigma)) / 2.
A score of 0 or 1 (or an interval reaching it) has no finite difference: +-inf.
"""

import math

Z95 = 1.959963984540054  #: the normal distribution's two-sided 95 % quantile


def score(wins: int, draws: int, losses: int) -> float:
    games = wins + draws + losses
    if games <= 0:
        raise ValueError("no games")
    return (wins + draws / 2) / games


def elo_difference(p: float) -> float:
    """The Elo difference that makes ``p`` the expected score (0 < p < 1; +-inf at the ends)."""
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return -400 * math.log10(1 / p - 1)


def expected_score(elo: float) -> float:
    """The score a player ``elo`` points stronger expects: elo_difference's inverse."""
    return 1 / (1 + 10 ** (-elo / 400))


def error_margin(wins: int, draws: int, losses: int) -> float:
    """Half the 95 % interval of the Elo difference, in Elo (inf when it reaches 0 or 1)."""
    games = wins + draws + losses
    p = score(wins, draws, losses)
    deviation = (wins * (1 - p) ** 2 + draws * (0.5 - p) ** 2 + losses * p ** 2) / games
    sigma = math.sqrt(deviation / games)
    low, high = p - Z95 * sigma, p + Z95 * sigma
    if low <= 0 or high >= 1:
        return math.inf
    return (elo_difference(high) - elo_difference(low)) / 2


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """LOS, the probability that the first player is the stronger, from wins and losses alone
    (draws say nothing about it): Phi((W - L) / sqrt(W + L)), cutechess-cli's figure. 0.5 with
    no decisive game."""
    decisive = wins + losses
    if decisive == 0:
        return 0.5
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * decisive)))


def shown(elo: float) -> str:
    """An Elo figure to print: signed, whole points (never -0), or +-inf."""
    return f"{round(elo) or 0:+d}" if math.isfinite(elo) else ("+inf" if elo > 0 else "-inf")


def finite(x: float) -> float | None:
    """A figure for JSON: None where it is infinite (a score of 0 or 1)."""
    return x + 0.0 if math.isfinite(x) else None  # + 0.0: never -0.0


def text(m: dict) -> str:
    """``-88 +- 45`` from a match's ``score``, ``elo`` and ``elo_margin`` (None: infinite);
    ``none`` before any game."""
    if m["score"] is None:
        return "none"
    if m["elo"] is None:
        return "+inf" if m["score"] > 0.5 else "-inf"
    margin = "inf" if m["elo_margin"] is None else shown(m["elo_margin"]).lstrip("+")
    return f"{shown(m['elo'])} +- {margin}"
