"""The match's statistics (engine.match.elo, engine.match.sprt) on values worked out by hand or
by an independent route: the Elo difference and its error bar, LOS, and the SPRT's
log-likelihood ratio against the exact generalized likelihood ratio computed here."""

import math

import pytest

from posdata.engine.match import elo
from posdata.engine.match.sprt import H0, H1, Sprt, llr

# ---- Elo -----------------------------------------------------------------------------------


def test_elo_of_known_scores():
    # +60 =20 -20: p = 0.7, D = 400 log10(0.7 / 0.3)
    assert elo.score(60, 20, 20) == pytest.approx(0.7)
    assert elo.elo_difference(0.7) == pytest.approx(147.19, abs=0.01)
    # the games' scores around 0.7: variance 0.6 * 0.3^2 + 0.2 * 0.2^2 + 0.2 * 0.7^2 = 0.16, so
    # sigma = 0.4 / sqrt(100) = 0.04; p in 0.7 +- 0.0784: D(0.7784) = 218.24, D(0.6216) = 86.22
    assert elo.error_margin(60, 20, 20) == pytest.approx((218.24 - 86.22) / 2, abs=0.02)
    # +50 -50: even, sigma 0.05; D(0.598) = 400 log10(0.598 / 0.402) = 68.99
    assert elo.elo_difference(elo.score(50, 0, 50)) == 0
    assert elo.error_margin(50, 0, 50) == pytest.approx(68.99, abs=0.01)
    # draws narrow the bar: +30 =40 -30 has variance 0.15, sigma 0.0387, D(0.5759) = 53.16
    assert elo.error_margin(30, 40, 30) == pytest.approx(53.16, abs=0.01)
    assert elo.error_margin(0, 100, 0) == 0


def test_elo_is_the_logistic_inverse_and_infinite_at_the_ends():
    assert elo.expected_score(100) == pytest.approx(1 / (1 + 10 ** -0.25))  # 0.64006
    for d in (-400, -35.5, 0, 120):
        assert elo.elo_difference(elo.expected_score(d)) == pytest.approx(d)
    assert elo.elo_difference(1.0) == math.inf and elo.elo_difference(0.0) == -math.inf
    assert elo.error_margin(3, 0, 0) == math.inf  # the interval reaches a score of 1
    assert (elo.shown(-math.inf), elo.shown(147.2), elo.shown(-3.4)) == ("-inf", "+147", "-3")
    assert elo.shown(-0.4) == "+0"  # never "-0"
    assert elo.text({"score": 0.45, "elo": -34.9, "elo_margin": 61.2}) == "-35 +- 61"
    assert elo.text({"score": 1.0, "elo": None, "elo_margin": None}) == "+inf"
    assert elo.text({"score": 0.5, "elo": 0.0, "elo_margin": None}) == "+0 +- inf"
    assert elo.text({"score": None, "elo": None, "elo_margin": None}) == "none"
    with pytest.raises(ValueError):
        elo.score(0, 0, 0)


def test_likelihood_of_superiority():
    # +60 -40: Phi(20 / 10) = Phi(2) = 0.97725
    assert elo.likelihood_of_superiority(60, 40) == pytest.approx(0.977250, abs=1e-6)
    assert elo.likelihood_of_superiority(40, 60) == pytest.approx(1 - 0.977250, abs=1e-6)
    assert elo.likelihood_of_superiority(0, 0) == 0.5
    assert elo.likelihood_of_superiority(7, 7) == 0.5


# ---- SPRT ----------------------------------------------------------------------------------

def exact_llr(wins, draws, losses, elo0, elo1):
    """The generalized log-likelihood ratio itself (fishtest's LLRcalc.LLR, by another road):
    under each hypothesis the maximum-likelihood trinomial whose mean is that hypothesis's
    score, p_i = q_i / (1 + lam (a_i - s)) with lam found by bisection, then
    N sum q_i log(p1_i / p0_i)."""
    n = wins + draws + losses
    pdf = [(1.0, wins / n), (0.5, draws / n), (0.0, losses / n)]

    def most_likely(s):
        lo, hi = -1 / (1 - s) + 1e-12, 1 / s - 1e-12
        for _ in range(200):
            lam = (lo + hi) / 2
            if sum(q * (a - s) / (1 + lam * (a - s)) for a, q in pdf) > 0:
                lo = lam
            else:
                hi = lam
        return [q / (1 + lam * (a - s)) for a, q in pdf]

    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    p0, p1 = most_likely(s0), most_likely(s1)
    return n * sum(q * math.log(b / a) for (_, q), a, b in zip(pdf, p0, p1) if q)


def test_llr_by_hand():
    # +60 =20 -20, elo0 0, elo1 10: s = 0.7, var = 0.6 + 0.05 - 0.49 = 0.16,
    # s1 = 1 / (1 + 10^-0.025) = 0.514387; LLR = 0.014387 (1.4 - 1.014387) / (2 * 0.0016)
    s1 = 1 / (1 + 10 ** -0.025)
    assert llr(60, 20, 20, 0, 10) == pytest.approx((s1 - 0.5) * (1.4 - 0.5 - s1) / 0.0032)
    assert llr(60, 20, 20, 0, 10) == pytest.approx(1.7337, abs=1e-4)


@pytest.mark.parametrize("wins, draws, losses, elo0, elo1", [
    (4307, 8620, 4063, 0, 3), (30, 40, 30, 0, 10), (120, 80, 100, -5, 5),
    (500, 300, 450, 0, 10), (2100, 4000, 2000, 0, 5), (14, 0, 16, -20, 20),
])
def test_llr_is_close_to_the_exact_ratio_near_the_hypotheses(wins, draws, losses, elo0, elo1):
    """The approximation is the exact GSPRT's to second order where the score lies near s0 and
    s1: a few per cent here (it drifts away from it for scores far outside them)."""
    assert llr(wins, draws, losses, elo0, elo1) == pytest.approx(
        exact_llr(wins, draws, losses, elo0, elo1), rel=0.04, abs=0.01)


def test_a_published_example():
    """+4307 =8620 -4063 for elo0 0, elo1 3: LLR 2.99, as a public SPRT calculator's README
    gives its GSPRT for this example (the exact ratio above is 2.9913)."""
    assert llr(4307, 8620, 4063, 0, 3) == pytest.approx(2.992, abs=0.001)


def test_bounds_and_decisions():
    sprt = Sprt(0, 10, 0.05, 0.05)
    assert sprt.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944, abs=1e-3)
    assert sprt.lower == pytest.approx(-2.944, abs=1e-3)
    assert sprt.decision(4307, 8620, 4063) is None  # elo1 10 is far from this +5 Elo result
    assert Sprt(0, 3).decision(4307, 8620, 4063) == H1
    assert Sprt(5, 10).decision(4063, 8620, 4307) == H0
    # one kind of result only: no variance, no decision (as c-chess-cli)
    assert llr(50, 0, 0, 0, 10) == 0 and sprt.decision(50, 0, 0) is None
    uneven = Sprt(0, 10, alpha=0.01, beta=0.2)
    assert (uneven.lower, uneven.upper) == pytest.approx((math.log(0.2 / 0.99), math.log(80)))


@pytest.mark.parametrize("kwargs", [dict(elo0=10, elo1=0), dict(alpha=0), dict(beta=1.5)])
def test_bad_sprt_parameters(kwargs):
    with pytest.raises(ValueError):
        Sprt(**kwargs)
