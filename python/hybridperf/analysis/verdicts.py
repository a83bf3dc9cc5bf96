"""The verdict engine: one symmetric rule for every figure judged against a target.

A figure is a ratio — ours over a reference: a peer's time, a published value, a measurement the model
predicted — a difference (for quantities near zero, whose ratio means nothing), or a value with no
reference at all. Ours and the reference are measured in the same rounds (each round runs every case
once, back to back, in random order), so a figure is the median over the rounds of the per-round ratio
(or difference): what a typical round says, the pairing cancelling what the round shares (the machine's
state, a fast or slow placement that hits both). Its uncertainty is a 90% percentile-bootstrap interval
of that median, rounds resampled, with a fixed seed so that the same runs always give the same interval.
Against a target band [low, high]:

- `within`: the whole interval lies inside the band;
- `differs`: the whole interval lies outside it;
- `undecided`: the interval reaches across an edge of the band.

The estimate alone never decides: more noise widens the interval and can only move a figure to
`undecided`, from either side. An interval is unbounded when the data cannot bound it (fewer than two
rounds, or a side at or below zero in some round, where a ratio has no meaning); such a figure is undecided.

A judgement states n, the rounds behind it, and for an undecided figure the
rounds that would likely decide it: with the interval shrinking as 1/sqrt(n), the n at which its half-width
would fit between the estimate and the band's nearest edge. Pure functions.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

import numpy as np

CONFIDENCE = 0.90
WORDS = ("within", "differs", "undecided")
# An undecided estimate nearer a band's edge than this share of its interval's half-width is on the edge: no number
# of rounds within reach (over 100 times those run) would decide it (Judgement.runs_to_decide).
ON_EDGE = 0.1


@dataclass(frozen=True)
class Band:
    """A target: the values a figure may take, [low, high]; either side may be open."""

    low: float = -math.inf
    high: float = math.inf

    def __post_init__(self) -> None:
        if not self.low <= self.high:
            raise ValueError(f"a target band needs low <= high, got [{self.low}, {self.high}]")

    def text(self) -> str:
        if math.isinf(self.low):
            return f"<= {self.high:g}"
        if math.isinf(self.high):
            return f">= {self.low:g}"
        return f"{self.low:g}–{self.high:g}"


@dataclass(frozen=True)
class Judgement:
    word: str  # within | differs | undecided
    estimate: float
    low: float
    high: float
    band: Band
    n: int | None = None  # samples behind the figure (a ratio: the smaller side's); None when not known

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)

    @property
    def half_width(self) -> float:
        """Half the interval's width (infinite when unbounded)."""
        return (self.high - self.low) / 2 if self.bounded else math.inf

    def noise(self) -> float | None:
        """The interval's half-width relative to the estimate (0.12 for ±12%); None when unbounded or the
        estimate is zero or not finite."""
        if not self.bounded or not math.isfinite(self.estimate) or self.estimate == 0:
            return None
        return self.half_width / abs(self.estimate)

    def noise_text(self) -> str:
        """The noise floor as text: '±12%', '±3.4%'; the absolute half-width ('±0.1') around an estimate of zero;
        'unbounded' for an unbounded interval."""
        if not self.bounded:
            return "unbounded"
        noise = self.noise()
        if noise is None:
            return f"±{self.half_width:.2g}"
        percent = 100 * noise
        return f"±{percent:.0f}%" if percent >= 9.95 else f"±{percent:.2g}%"

    def runs_to_decide(self) -> int | None:
        """For an undecided figure, the rounds (n in all, not more) after which its interval would likely lie
        wholly inside or wholly outside the band: the interval's half-width is taken to shrink as 1/sqrt(n), and
        must come down to the distance from the estimate to the band's nearest finite edge, so
        ceil(n * (half-width / distance)**2), and at least n + 1. None when the figure is not undecided, its
        interval is unbounded, n is not known, or the estimate sits on an edge: closer to it than ON_EDGE of the
        half-width, where the rounds would be over 100 times those run (an estimate of 0.9796 against 0.98, ±2.1%
        at 150 rounds, asked for 12.6 million) and the next rounds as likely move it across the edge as away."""
        if self.word != "undecided" or not self.bounded or not self.n or not math.isfinite(self.estimate):
            return None
        edges = [e for e in (self.band.low, self.band.high) if math.isfinite(e)]
        if not edges:
            return None
        distance = min(abs(self.estimate - e) for e in edges)
        if distance <= ON_EDGE * self.half_width:
            return None
        needed = self.n * (self.half_width / distance) ** 2
        return max(self.n + 1, math.ceil(needed - 1e-9))

    def interval_text(self, digits: int = 3) -> str:
        if not self.bounded:
            return "[unbounded]"
        return f"[{self.low:.{digits}g}, {self.high:.{digits}g}]"

    def text(self, digits: int = 3) -> str:
        """'0.777 [0.67, 0.86] differs (target 0.8–1.2)': the figure, its interval, its verdict, its target."""
        return f"{self.estimate:.{digits}g} {self.interval_text(digits)} {self.word} (target {self.band.text()})"


def judge_interval(estimate: float, low: float, high: float, band: Band, n: int | None = None) -> Judgement:
    """The verdict of a figure whose interval is [low, high] (n: the samples behind it, when known)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        word = "undecided"
    elif band.low <= low and high <= band.high:
        word = "within"
    elif high < band.low or low > band.high:
        word = "differs"
    else:
        word = "undecided"
    return Judgement(word, estimate, low, high, band, n)


def judge_value(value: float, band: Band, n: int | None = None) -> Judgement:
    """A figure measured exactly (a byte count, an instruction count): its interval is the value itself."""
    return judge_interval(value, value, value, band, n)


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE, resamples: int = 4000,
                    seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap interval of the median of per-round values, the rounds resampled."""
    if len(values) < 2:
        return -math.inf, math.inf
    rng = np.random.default_rng(seed)
    a = np.asarray(values, dtype=float)
    medians = np.median(rng.choice(a, (resamples, a.size)), axis=1)
    tail = 50 * (1 - confidence)
    low, high = np.percentile(medians, [tail, 100 - tail])
    return float(low), float(high)


def per_round(ours: Sequence[float], reference: Sequence[float], difference: bool = False) -> list[float] | None:
    """Each round's ours / reference (or ours − reference); None when a ratio has no meaning (a side at or below
    zero). The two lists are one value per round, in the order run."""
    if len(ours) != len(reference):
        raise ValueError(f"ours and the reference need one value per round each, got {len(ours)} and {len(reference)}")
    if difference:
        return [a - b for a, b in zip(ours, reference)]
    if min(ours, default=1.0) <= 0 or min(reference, default=1.0) <= 0:
        return None
    return [a / b for a, b in zip(ours, reference)]


def _judge_rounds(values: list[float] | None, rounds: int, band: Band, confidence: float) -> Judgement:
    if not values:
        return judge_interval(math.nan, -math.inf, math.inf, band, n=rounds)
    return judge_interval(statistics.median(values), *median_interval(values, confidence), band, n=rounds)


def judge_ratio(ours: Sequence[float], reference: Sequence[float], band: Band,
                confidence: float = CONFIDENCE) -> Judgement:
    """The median over the rounds of ours / reference, each pair measured in the same round, against a band."""
    return _judge_rounds(per_round(ours, reference), len(ours), band, confidence)


def judge_difference(ours: Sequence[float], reference: Sequence[float], band: Band,
                     confidence: float = CONFIDENCE) -> Judgement:
    """The median over the rounds of ours − reference, in the figures' own unit: for quantities near zero (an
    overhead below what the method resolves), whose ratio has no meaning."""
    return _judge_rounds(per_round(ours, reference, difference=True), len(ours), band, confidence)


def judge_ratio_of_medians(ours: Sequence[float], reference: Sequence[float], band: Band,
                           confidence: float = CONFIDENCE, resamples: int = 4000, seed: int = 0) -> Judgement:
    """median(ours) / median(reference) over the rounds, its interval from the rounds resampled in pairs: for a
    difference of two noisy times (an overhead: a variant's time less the best case's) whose single rounds may fall
    at or below zero, where the per-round ratio means nothing but the medians are well clear of it. Unbounded when
    the reference's median itself reaches zero in a resample."""
    if len(ours) != len(reference):
        raise ValueError(f"ours and the reference need one value per round each, got {len(ours)} and {len(reference)}")
    a, b = np.asarray(ours, dtype=float), np.asarray(reference, dtype=float)
    if a.size < 2 or np.median(b) <= 0:
        return judge_interval(math.nan, -math.inf, math.inf, band, n=a.size)
    picks = np.random.default_rng(seed).integers(0, a.size, (resamples, a.size))
    below = np.median(b[picks], axis=1)
    if below.min() <= 0:
        return judge_interval(float(np.median(a) / np.median(b)), -math.inf, math.inf, band, n=a.size)
    tail = 50 * (1 - confidence)
    low, high = np.percentile(np.median(a[picks], axis=1) / below, [tail, 100 - tail])
    return judge_interval(float(np.median(a) / np.median(b)), float(low), float(high), band, n=a.size)


def judge_samples(values: Sequence[float], band: Band, confidence: float = CONFIDENCE) -> Judgement:
    """The median of repeated values of a figure that is already a ratio (one per round), against a band."""
    return _judge_rounds(list(values), len(values), band, confidence)


def bonferroni(confidence: float, family: int) -> float:
    """The confidence each of `family` intervals needs for all of them to hold together at `confidence`: the error
    1 − confidence shared equally among them (Bonferroni)."""
    return 1 - (1 - confidence) / max(1, family)


def tally(judgements: Sequence[Judgement]) -> dict[str, int]:
    """How many figures got each verdict, every word present."""
    return {word: sum(j.word == word for j in judgements) for word in WORDS}
