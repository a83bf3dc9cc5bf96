"""The verdict engine: one symmetric rule for every figure judged against a target.

A figure is a ratio — ours over a reference: a peer's time, a published value, a measurement the model
predicted — or a value with no reference at all. Its uncertainty is a 90% percentile-bootstrap interval
of the ratio of the two medians, each side's runs resampled on their own (independent runs), with a
fixed seed so that the same runs always give the same interval. Against a target band [low, high]:

- `within`: the whole interval lies inside the band;
- `differs`: the whole interval lies outside it;
- `undecided`: the interval reaches across an edge of the band.

The estimate alone never decides: more noise widens the interval and can only move a figure to
`undecided`, from either side. An interval is unbounded when the data cannot bound it (fewer than two
runs on a side, or a reference whose resampled median can be zero); such a figure is undecided.
Pure functions.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

import numpy as np

CONFIDENCE = 0.90
WORDS = ("within", "differs", "undecided")


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

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)

    def interval_text(self, digits: int = 3) -> str:
        if not self.bounded:
            return "[unbounded]"
        return f"[{self.low:.{digits}g}, {self.high:.{digits}g}]"

    def text(self, digits: int = 3) -> str:
        """'0.777 [0.67, 0.86] differs (target 0.8–1.2)': the figure, its interval, its verdict, its target."""
        return f"{self.estimate:.{digits}g} {self.interval_text(digits)} {self.word} (target {self.band.text()})"


def judge_interval(estimate: float, low: float, high: float, band: Band) -> Judgement:
    """The verdict of a figure whose interval is [low, high]."""
    if not (math.isfinite(low) and math.isfinite(high)):
        word = "undecided"
    elif band.low <= low and high <= band.high:
        word = "within"
    elif high < band.low or low > band.high:
        word = "differs"
    else:
        word = "undecided"
    return Judgement(word, estimate, low, high, band)


def judge_value(value: float, band: Band) -> Judgement:
    """A figure measured exactly (a byte count, an instruction count): its interval is the value itself."""
    return judge_interval(value, value, value, band)


def ratio_interval(ours: Sequence[float], reference: Sequence[float] | None = None,
                   confidence: float = CONFIDENCE, resamples: int = 4000, seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap interval of median(ours) / median(reference), each side resampled on its own;
    without a reference, of median(ours)."""
    if len(ours) < 2 or (reference is not None and len(reference) < 2):
        return -math.inf, math.inf
    rng = np.random.default_rng(seed)
    a = np.asarray(ours, dtype=float)
    ratios = np.median(rng.choice(a, (resamples, a.size)), axis=1)
    if reference is not None:
        b = np.asarray(reference, dtype=float)
        den = np.median(rng.choice(b, (resamples, b.size)), axis=1)
        if ratios.min() <= 0 or den.min() <= 0:
            return -math.inf, math.inf
        ratios = ratios / den
    tail = 50 * (1 - confidence)
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return float(low), float(high)


def judge_ratio(ours: Sequence[float], reference: Sequence[float], band: Band,
                confidence: float = CONFIDENCE) -> Judgement:
    """median(ours) / median(reference) against a band, with its bootstrap interval."""
    ref = statistics.median(reference)
    estimate = statistics.median(ours) / ref if ref else math.nan
    return judge_interval(estimate, *ratio_interval(ours, reference, confidence), band)


def judge_samples(values: Sequence[float], band: Band, confidence: float = CONFIDENCE) -> Judgement:
    """The median of repeated values of a figure that is already a ratio (one per round), against a band."""
    return judge_interval(statistics.median(values), *ratio_interval(values, None, confidence), band)


def tally(judgements: Sequence[Judgement]) -> dict[str, int]:
    """How many figures got each verdict, every word present."""
    return {word: sum(j.word == word for j in judgements) for word in WORDS}
