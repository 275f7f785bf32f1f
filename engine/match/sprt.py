"""The sequential probability ratio test of a match: stop as soon as the games say, with the error
rates asked for, whether the first engine is ``elo0`` or ``elo1`` Elo stronger than the second.

The model is the trinomial GSPRT in logistic Elo, with the log-likelihood ratio's normal
approximation of Michel Van den Bergh's note "A simple approximation of the GSPRT"
(http://hardy.uhasselt.be/Toga/GSPRT_approximation.pdf), as fishtest's LLRcalc.LLR_alt2 and
c-chess-cli's sprt.c compute it (cutechess-cli's sprt.cpp, as of 2018, tests the same bounds in
the BayesElo model instead, whose LLR differs a little). From W wins, D draws and L losses in N
games:

    s = (W + D/2) / N                    the score per game
    var = (W + D/4) / N - s^2            the variance of one game's score (1, 1/2 or 0)
    s0, s1 = 1 / (1 + 10^(-elo/400))     the scores that elo0 and elo1 expect
    LLR = (s1 - s0) (2 s - s0 - s1) / (2 var / N)

The test stops when LLR reaches log((1 - beta) / alpha) (H1, "elo1", accepted) or falls to
log(beta / (1 - alpha)) (H0, "elo0", accepted): Wald's bounds. With fewer than two of the three
results seen the variance is 0 and the LLR is taken as 0 (no decision), as c-chess-cli does.
"""

import math
from dataclasses import dataclass

from .elo import expected_score

H0, H1 = "H0", "H1"


@dataclass(frozen=True)
class Sprt:
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self):
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError(f"alpha and beta must be between 0 and 1 (not {self.alpha:g}, "
                             f"{self.beta:g})")
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be less than elo1 (not {self.elo0:g}, {self.elo1:g})")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def decision(self, wins: int, draws: int, losses: int) -> str | None:
        """H0, H1, or None to go on."""
        value = llr(wins, draws, losses, self.elo0, self.elo1)
        if value >= self.upper:
            return H1
        if value <= self.lower:
            return H0
        return None


def llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The approximate GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0)."""
    games = wins + draws + losses
    if sum(1 for n in (wins, draws, losses) if n) < 2:
        return 0.0
    s = (wins + draws / 2) / games
    var = (wins + draws / 4) / games - s * s
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return (s1 - s0) * (2 * s - s0 - s1) / (2 * var / games)
