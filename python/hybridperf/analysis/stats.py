"""Statistics of repeated measurements, in the seeds' conventions (thesis §3.2.1, seed-spec §C.3).

Each point is reported as mean with one standard error of the mean (sample standard deviation over
sqrt(n)), the minimum (Gropp & Lusk's "minimum of several runs", which the thesis's overall-timing
tables use), the median and n. The error of a difference is the sum of the two errors, as the thesis
combines them (Fig. 4.18). A single measurement has no SEM (None); the thesis gave such values a 5%
bar, which `Summary.error` applies. Judging a figure against a target is `analysis.verdicts`.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    sem: float | None
    min: float
    median: float
    max: float

    @property
    def sd(self) -> float | None:
        """The sample standard deviation (None for a single measurement)."""
        return None if self.sem is None else self.sem * math.sqrt(self.n)

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
