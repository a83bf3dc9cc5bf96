"""MPC's taxonomy of a run's shape, and the seeds' statistics."""

import math

import pytest

import numpy as np

from hybridperf.analysis.stats import agreement, difference, interval_text, ratio_interval, summarize
from hybridperf.analysis.taxonomy import classify


@pytest.mark.parametrize(
    "p,n,t,nodes,name,over",
    [
        (8, 8, 1, 4, "pure-mpi", False),
        (8, 16, 1, 1, "pure-mpi", True),
        (8, 1, 8, 1, "pure-openmp", False),
        (8, 1, 8, 4, "fully-hybrid", False),
        (8, 2, 4, 4, "simple-mixed", False),
        (8, 4, 4, 1, "oversubscribed-mixed", True),
        (8, 8, 8, 1, "fully-mixed", True),
    ],
)
def test_classify(p, n, t, nodes, name, over):
    mode = classify(p, n, t, nodes)
    assert (mode.name, mode.oversubscribed) == (name, over)


def test_summary_of_repeats():
    s = summarize([3.0, 1.0, 2.0])
    assert (s.n, s.mean, s.min, s.median, s.max) == (3, 2.0, 1.0, 2.0, 3.0)
    assert s.sem == pytest.approx(1.0 / math.sqrt(3))
    single = summarize([4.0])
    assert single.sem is None and single.error == pytest.approx(0.2)  # the thesis's 5% bar


def test_difference_combines_errors_by_summing():
    a, b = summarize([3.0, 1.0, 2.0]), summarize([1.0, 1.0, 1.0])
    gap, error = difference(a, b)
    assert gap == 1.0 and error == pytest.approx(a.sem + 0.0)


def _runs(centre: float, seed: int, n: int = 30) -> list[float]:
    """Run times with one-sided noise, like a shared machine's: a floor plus exponential delays."""
    return list(centre + np.random.default_rng(seed).exponential(0.1 * centre, n))


def test_ratio_interval_covers_the_true_ratio():
    low, high = ratio_interval(_runs(2.0, 1), _runs(1.0, 2))
    assert 1.6 < low < 2.0 < high < 2.4
    assert ratio_interval(_runs(1.0, 3), _runs(1.0, 4)) == ratio_interval(_runs(1.0, 3), _runs(1.0, 4))


def test_ratio_interval_is_unbounded_when_the_reference_reaches_zero():
    assert ratio_interval([0.01, 0.02, 0.015], [-0.01, 0.004, 0.02, -0.003]) == (-math.inf, math.inf)
    assert ratio_interval([1.0], [1.0, 2.0]) == (-math.inf, math.inf)
    assert interval_text((-math.inf, math.inf)) == "[unbounded]"
    assert interval_text((0.9312, 1.077)) == "[0.93,1.08]"


@pytest.mark.parametrize(
    "ours,reference,verdict",
    [
        (_runs(1.05, 5), _runs(1.0, 7), "ok"),        # 5% apart: inside a 20% band
        (_runs(2.0, 6), _runs(1.0, 7), "differ"),     # twice as long, far beyond the run-to-run spread
        # medians 0.9 and 1.2 (ratio 0.75), but five runs this scattered cannot place the ratio
        ([0.7, 1.3, 0.9, 1.2, 0.6], [1.2, 0.8, 1.25, 1.3, 0.75], "undecided"),
    ],
)
def test_agreement_verdicts(ours, reference, verdict):
    assert agreement(ours, reference, 0.2)[0] == verdict
