"""Statistics of repeated measurements, in the seeds' conventions (thesis §3.2.1, seed-spec §C.3).

Each point is reported as mean with one standard error of the mean (sample standard deviation over
sqrt(n)), the minimum (Gropp & Lusk's "minimum of several runs", which the thesis's overall-timing
tables use), the median and n. The error of a difference is the sum of the two errors, as the thesis
combines them (Fig. 4.18). A single measurement has no SEM (None); the thesis gave such values a 5%
bar, which `Summary.error` applies.

Comparing two codes run alternately on a noisy machine (the benchmarks against reference suites)
uses a bootstrap interval of the ratio of their medians: `agreement` says whether the medians agree
within a tolerance, differ by more than it (the whole interval outside), or whether the noise leaves
it undecided (the medians are outside but the interval reaches into the tolerance band).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    sem: float | None
    min: float
    median: float
    max: float

    @property
    def error(self) -> float:
        """The error bar: 1 SEM, or 5% of the mean for a single measurement."""
        return self.sem if self.sem is not None else 0.05 * abs(self.mean)


def summarize(values: list[float]) -> Summary:
    if not values:
        raise ValueError("no values to summarize")
    n = len(values)
    sem = statistics.stdev(values) / math.sqrt(n) if n > 1 else None
    return Summary(n, statistics.fmean(values), sem, min(values), statistics.median(values), max(values))


def difference(a: Summary, b: Summary) -> tuple[float, float]:
    """a - b on means, with the combined error (sum of the errors)."""
    return a.mean - b.mean, a.error + b.error


def ratio_interval(ours: list[float], reference: list[float], confidence: float = 0.9,
                   resamples: int = 4000, seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap interval of median(ours) / median(reference), resampling each set of
    independent runs on its own. Fixed seed: the same runs always give the same interval. An
    interval whose reference median can reach zero is unbounded (-inf, inf)."""
    if len(ours) < 2 or len(reference) < 2:
        return -math.inf, math.inf
    rng = np.random.default_rng(seed)
    a, b = np.asarray(ours, dtype=float), np.asarray(reference, dtype=float)
    num = np.median(rng.choice(a, (resamples, a.size)), axis=1)
    den = np.median(rng.choice(b, (resamples, b.size)), axis=1)
    if den.min() <= 0 <= den.max():
        return -math.inf, math.inf
    tail = 50 * (1 - confidence)
    low, high = np.percentile(num / den, [tail, 100 - tail])
    return float(low), float(high)


def agreement(ours: list[float], reference: list[float], tolerance: float,
              confidence: float = 0.9) -> tuple[str, float, tuple[float, float]]:
    """("ok" | "differ" | "undecided", ratio of medians, its bootstrap interval) for a target of
    |median(ours) / median(reference) - 1| <= tolerance."""
    ref = statistics.median(reference)
    ratio = statistics.median(ours) / ref if ref else math.nan
    interval = ratio_interval(ours, reference, confidence)
    if ref and abs(ratio - 1) <= tolerance:
        return "ok", ratio, interval
    low, high = interval
    outside = high < 1 - tolerance or low > 1 + tolerance
    return ("differ" if outside else "undecided"), ratio, interval


def interval_text(interval: tuple[float, float]) -> str:
    """The interval as printed: "[0.93,1.08]", or "[unbounded]" when the data could not bound it."""
    low, high = interval
    return f"[{low:.2f},{high:.2f}]" if math.isfinite(low) and math.isfinite(high) else "[unbounded]"
