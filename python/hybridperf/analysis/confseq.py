"""Confidence sequences for the centre of a pair's log ratios d = log t_a − log t_b, block by block: intervals valid
at every look at once (Ville's inequality), so a race may stop after any block it likes. Three, declared by the
study's rule (`decide: {interval: both | huber | sign}`); each is robust: one run slowed by another job moves it by
a bounded amount, not by its size.

`both` (the default) runs the two below side by side on the same ratios, the Huber sequence with 9/10 of the error
allowed and the sign sequence with 1/10 (SIGN_SHARE), and keeps the interval both keep. The two estimate the same
centre wherever the ratios are symmetric — two equal splits always give symmetric ratios, so a tie or a win
between equal splits is bounded by the declared confidence whatever the noise — and each is the better one in a
regime the other is poor in: the Huber sequence where the noise is about the tie band (it ties equal splits at 3%
noise within ±3% in nine races of ten, the sign sequence in six), the sign sequence where the noise is well below
the band (a bet on a clipped ratio gains at most log(1 + BET_CAP · w / B) a block against a centre w away, so the
Huber sequence alone needs a dozen blocks for any tie, however quiet the machine; the sign sequence's order
statistics close in on quiet ratios in seven). Each alone is valid whatever the distribution, for its own centre
(the median; the Huber location); where the ratios are skewed the two centres differ, and the intersection is
about where they meet: declare `huber` or `sign` for an interval valid for one named centre whatever the ratios.

`huber` is a betting confidence sequence (Waudby-Smith & Ramdas, JRSS-B 2023) for a Huber-type
location: a candidate centre m is tested on x_i(m) = clip(d_i − m, ±B), B = CLIP_BANDS × τ. The centre it estimates is the m at
which E[x(m)] = 0: the median and the mean when d is symmetric — as the paired ratios of two equal splits always
are, whatever the noise — and a centre that a few far runs cannot drag when it is not. For each m two gamblers
bet that E[x(m)] is above and below 0, with capital K±(m) = Π (1 ± λ±_i(m) x_i(m)); with each λ fixed before d_i
is seen and 0 ≤ λ < 1 / B, each capital is a nonnegative martingale where m is the centre, whatever d's
distribution, and their average crosses 1/α with chance at most α. So m is rejected once either crosses 2/α
(hedged, θ = ½), for good, and the interval reaches from the nearest rejected grid point below every centre kept
to the nearest above: it holds the true centre whenever that centre was never rejected. The bet is tuned to the
declared tie band τ: λ = τ / (σ̂² + τ²), the growth-optimal bet against a centre τ away (σ̂² the clipped ratios'
variance so far), capped at BET_CAP / B, so the sequence spends its confidence where the decisions are made —
telling ±τ and 0 from the centre; against a centre that the values so far have all lain far beyond, it bets
FAR_BET / B, so that a clear difference takes a few blocks.

`sign` is the sign (quantile) confidence sequence of the median (Robbins 1970; Howard & Ramdas 2022): whatever
the distribution, each d falls below the median with chance ½; the Beta(1, 1) mixture of the likelihood ratio
against that, M_n(k) = 2^n / ((n + 1) C(n, k)) after k of n below, is a martingale, and the medians it keeps
lie between two order statistics. Exact and assumption-free, but at small n its interval is the sample's range:
it needs 7 values before it bounds anything at 90%.

Each keeps the running intersection of its intervals (still valid; decisions never flip back). Each also says
how wide it is expected to be after n values of a given spread, from which a race says how many blocks would
decide it. Pure (numpy)."""

from __future__ import annotations

import functools
import math
import statistics
from typing import Protocol

import numpy as np

CLIP_BANDS = 1.7  # B: the Huber sequence clips each ratio this many tie bands from a candidate centre (5% at ±3%)
BET_CAP = 0.5  # the largest bet, as a share of 1 / B: a capital never falls below half in one block
FAR_BET, FAR_AFTER, FAR_MEAN = 0.9, 2, 0.9  # the bet against a centre at least FAR_AFTER values have all but
# all (FAR_MEAN of the clip, on average) lain beyond
KINDS = ("both", "huber", "sign")
SIGN_SHARE = 0.1  # of the error a `both` sequence allows, the sign sequence's; the Huber sequence has the rest


def _grid() -> np.ndarray:
    """Candidate centres (log ratios): every 0.05% within ±25%, where decisions are made, then geometric out to
    a factor of e^5 (150x) either way."""
    fine = np.linspace(-0.25, 0.25, 1001)
    coarse = np.geomspace(0.25, 5.0, 141)[1:]
    return np.concatenate([-coarse[::-1], fine, coarse])


GRID = _grid()


class Sequence(Protocol):
    low: float
    high: float
    centre: float  # the point estimate (nan before any value)
    values: list[float]

    def add(self, d: float) -> None: ...


class HuberSequence:
    """The betting sequence for the Huber location, fed one paired log ratio at a time."""

    def __init__(self, alpha: float, band: float):
        self.alpha, self.band, self.clip = alpha, band, CLIP_BANDS * band
        self.threshold = math.log(2 / alpha)
        self.log_up = np.zeros(GRID.size)  # log K+(m)
        self.log_down = np.zeros(GRID.size)  # log K-(m)
        self.rejected = np.zeros(GRID.size, dtype=bool)  # ever, at any look
        self.score = np.zeros(GRID.size)  # Σ x_i(m): nonincreasing in m, zero at the estimate
        self.values: list[float] = []
        self.low, self.high, self.centre = -math.inf, math.inf, math.nan

    def add(self, d: float) -> None:
        bet = huber_bet(self.values, self.band)
        n, clip = len(self.values), self.clip
        far = FAR_BET / clip
        # a centre every value so far has lain a clip's width beyond: bet (almost) all on it, so that a clear
        # difference is told in a few blocks, not log(2/α) / log(1 + BET_CAP) of them
        sure = n >= FAR_AFTER
        up = np.where(sure & (self.score >= FAR_MEAN * clip * n), far, bet) if sure else bet
        down = np.where(sure & (self.score <= -FAR_MEAN * clip * n), far, bet) if sure else bet
        x = np.clip(d - GRID, -clip, clip)
        self.log_up += np.log1p(up * x)
        self.log_down += np.log1p(-down * x)
        self.score += x
        self.rejected |= (self.log_up >= self.threshold) | (self.log_down >= self.threshold)
        self.values.append(d)
        self.centre = self._estimate()
        kept = np.flatnonzero(~self.rejected)
        if kept.size:
            first, last = kept[0], kept[-1]
            self.low = -math.inf if first == 0 else float(GRID[first - 1])
            self.high = math.inf if last == GRID.size - 1 else float(GRID[last + 1])
        elif not GRID[0] <= self.centre <= GRID[-1]:  # the centre lies beyond the grid: so does the interval
            self.low, self.high = (float(GRID[-1]), math.inf) if self.centre > 0 else (-math.inf, float(GRID[0]))
        # (otherwise none is kept by the rare miss the confidence allows, and the last interval stands)

    def _estimate(self) -> float:
        """The Huber M-estimate: where Σ clip(d_i − m, ±B) crosses zero, interpolated between grid points."""
        k = int(np.count_nonzero(self.score > 0))
        if k == 0 or k == GRID.size:
            return statistics.median(self.values)  # beyond the grid
        s0, s1 = self.score[k - 1], self.score[k]
        return float(GRID[k - 1] + (GRID[k] - GRID[k - 1]) * s0 / (s0 - s1))


def huber_bet(past: list[float], band: float) -> float:
    """λ for the next value, from the values before it only: growth-optimal against a centre τ away, capped. The
    first bets assume a spread of half the clip, weighted as one value."""
    clip = CLIP_BANDS * band
    squares = 0.0
    if past:
        centre = statistics.median(past)
        squares = sum(min(abs(v - centre), clip) ** 2 for v in past)
    variance = ((clip / 2) ** 2 + squares) / (len(past) + 1)
    return min(band / (variance + band * band), BET_CAP / clip)


def huber_halfwidth(n: int, spread: float, alpha: float, band: float) -> float:
    """About how far from the centre the Huber sequence rejects after n values of this spread (normal, clipping
    neglected): the distance w at which n bets of size λ grow the capital to 2/α, n (λw − λ²(σ² + w²)/2) = log(2/α).
    Infinite when no distance is reached."""
    clip = CLIP_BANDS * band
    clipped = min(spread, clip)
    bet = min(band / (clipped ** 2 + band * band), BET_CAP / clip)
    root = 1 - (bet * clipped) ** 2 - 2 * math.log(2 / alpha) / n
    if n < 1 or root < 0:
        return math.inf
    return (1 - math.sqrt(root)) / bet


class SignSequence:
    """The sign confidence sequence for the median, fed one value at a time."""

    def __init__(self, alpha: float):
        self.alpha = alpha
        self.low, self.high = -math.inf, math.inf
        self.values: list[float] = []
        self.centre = math.nan

    def add(self, d: float) -> None:
        self.values.append(d)
        low, high = sign_interval(self.values, self.alpha)
        self.low, self.high = max(self.low, low), min(self.high, high)
        self.centre = statistics.median(self.values)


@functools.lru_cache(maxsize=4096)
def ranks(n: int, alpha: float) -> tuple[int, int]:
    """The sign sequence after n values is [x_(lo), x_(hi)], 1-based order statistics with x_(0) = −∞ and
    x_(n+1) = +∞: a candidate median m below which k values lie is kept while M_n(k) < 1/α; k runs over a range
    [j, J], and m with k(m) = j lies in (x_(j), x_(j+1)]."""
    limit = math.log(1 / alpha)
    kept = [k for k in range(n + 1)
            if n * math.log(2) - math.log(n + 1) - (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1))
            < limit]
    return kept[0], kept[-1] + 1


def sign_interval(values: list[float], alpha: float) -> tuple[float, float]:
    """The sign sequence's interval for the median of these values (infinite ends while too few)."""
    lo, hi = ranks(len(values), alpha)
    ordered = sorted(values)
    return (-math.inf if lo == 0 else ordered[lo - 1]), (math.inf if hi > len(values) else ordered[hi - 1])


def sign_halfwidth(n: int, spread: float, alpha: float) -> float:
    """The half-width the sign interval has after n values from a normal distribution of this spread: its ends
    are order statistics, expected near the normal quantiles of their ranks."""
    lo, hi = ranks(n, alpha)
    if lo == 0 or hi > n:
        return math.inf
    z = statistics.NormalDist()
    return spread * (z.inv_cdf(hi / (n + 1)) - z.inv_cdf(lo / (n + 1))) / 2


class BothSequence:
    """The Huber and the sign sequences side by side, sharing the error (SIGN_SHARE), and the interval both keep."""

    def __init__(self, alpha: float, band: float):
        self.huber = HuberSequence((1 - SIGN_SHARE) * alpha, band)
        self.sign = SignSequence(SIGN_SHARE * alpha)
        self.values = self.huber.values
        self.low, self.high, self.centre = -math.inf, math.inf, math.nan

    def add(self, d: float) -> None:
        self.huber.add(d)
        self.sign.add(d)
        self.low, self.high = max(self.huber.low, self.sign.low), min(self.huber.high, self.sign.high)
        narrower = min((self.huber, self.sign), key=lambda s: s.high - s.low)
        self.centre = min(max(narrower.centre, self.low), self.high)


def sequence(kind: str, alpha: float, band: float) -> Sequence:
    """A new, empty sequence of the declared kind."""
    if kind == "both":
        return BothSequence(alpha, band)
    if kind == "huber":
        return HuberSequence(alpha, band)
    if kind == "sign":
        return SignSequence(alpha)
    raise ValueError(f"interval must be one of {', '.join(KINDS)}, got {kind!r}")


def halfwidth(kind: str, n: int, spread: float, alpha: float, band: float) -> float:
    """The half-width a sequence of this kind is expected to have after n values of this spread."""
    if kind == "both":
        return min(huber_halfwidth(n, spread, (1 - SIGN_SHARE) * alpha, band),
                   sign_halfwidth(n, spread, SIGN_SHARE * alpha))
    return huber_halfwidth(n, spread, alpha, band) if kind == "huber" else sign_halfwidth(n, spread, alpha)
