"""MPC's taxonomy of a run's shape, and the seeds' statistics (the verdict engine: test_verdicts.py)."""

import math

import pytest

from hybridperf.analysis.stats import difference, summarize
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


