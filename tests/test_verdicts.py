"""The verdict engine: within / differs / undecided by the whole 90% interval, symmetric, and an interval
that covers what it claims to."""

import math

import numpy as np
import pytest

from hybridperf.analysis.verdicts import (Band, Judgement, judge_difference, judge_interval, judge_ratio,
                                          judge_ratio_of_medians, judge_samples, judge_value, median_interval,
                                          per_round, tally)

TARGET = Band(0.8, 1.2)


def _runs(centre: float, seed: int, n: int = 30) -> list[float]:
    """Run times with one-sided noise, like a shared machine's: a floor plus exponential delays."""
    return list(centre + np.random.default_rng(seed).exponential(0.1 * centre, n))


@pytest.mark.parametrize(
    "low,high,word",
    [
        (0.85, 1.10, "within"),
        (0.80, 1.20, "within"),  # touching the edges is inside
        (0.67, 0.86, "undecided"),  # the estimate may be inside or outside: the interval decides, not it
        (0.60, 0.79, "differs"),
        (1.21, 1.50, "differs"),
        (0.70, 1.30, "undecided"),  # wider than the band on both sides
        (-math.inf, math.inf, "undecided"),
    ],
)
def test_the_whole_interval_decides(low, high, word):
    for estimate in (low, (low + high) / 2 if math.isfinite(low) else 1.0, high):
        assert judge_interval(estimate, low, high, TARGET).word == word


def test_noise_cannot_turn_a_miss_into_a_hit():
    """The old rule called a figure ok whenever its median ratio sat inside the band; noisier runs with the same
    medians can now only become undecided, never within."""
    tight = judge_ratio([1.15, 1.16, 1.14, 1.15, 1.15], [1.0, 1.0, 1.01, 0.99, 1.0], TARGET)
    noisy = judge_ratio([1.15, 0.7, 1.6, 1.15, 1.3, 0.9, 1.15], [1.0, 1.4, 0.6, 1.0, 1.0, 0.8, 1.2], TARGET)
    assert tight.word == "within" and tight.estimate == pytest.approx(1.15)
    assert noisy.word == "undecided" and noisy.estimate == pytest.approx(1.15)


def test_clearly_apart_differs_and_clearly_close_is_within():
    assert judge_ratio(_runs(2.0, 6), _runs(1.0, 7), TARGET).word == "differs"
    assert judge_ratio(_runs(1.02, 5), _runs(1.0, 7), TARGET).word == "within"


def test_the_interval_covers_the_true_ratio_about_as_often_as_it_claims():
    """Over many synthetic sets of 30 rounds with true median ratio 2, the 90% interval holds 2 in at least 80%
    of the cases (a percentile bootstrap of a median is a little narrow, never badly so)."""
    covered = 0
    for k in range(200):
        rng = np.random.default_rng(k)
        ours = 2.0 * rng.lognormal(0.0, 0.1, 30)
        reference = 1.0 * rng.lognormal(0.0, 0.1, 30)
        low, high = median_interval(per_round(ours, reference), resamples=1000)
        covered += low <= 2.0 <= high
    assert covered >= 160


def test_pairing_by_round_cancels_what_the_round_shares():
    """A process lands in a fast or a slow mode, twice apart, and both codes of a round share it: the ratio of
    the sides' medians jumps between modes, the median of the per-round ratios does not."""
    rng = np.random.default_rng(3)
    mode = rng.choice([1.0, 2.0], 30)
    ours, reference = mode * rng.lognormal(0, 0.03, 30), mode * rng.lognormal(0, 0.03, 30)
    j = judge_ratio(ours, reference, Band(0.95, 1.05))
    assert j.word == "within" and j.n == 30
    assert median_interval(ours)[1] / median_interval(reference)[0] > 1.5  # unpaired, the modes would swamp it


def test_swapping_the_sides_inverts_the_interval():
    a, b = _runs(1.3, 11), _runs(1.0, 12)
    low, high = median_interval(per_round(a, b))
    inverse_low, inverse_high = median_interval(per_round(b, a))
    assert inverse_low == pytest.approx(1 / high, rel=0.03) and inverse_high == pytest.approx(1 / low, rel=0.03)


def test_unbounded_when_the_data_cannot_bound_it():
    # an overhead measured at or below zero in some round is one the measurement cannot resolve: no ratio of it
    assert per_round([0.01, 0.02, 0.015], [-0.01, 0.004, 0.02]) is None
    assert per_round([-0.013, 0.012, 0.015], [0.02, 0.03, 0.025]) is None
    assert median_interval([1.0]) == (-math.inf, math.inf)
    for j in (judge_ratio([1.0], [2.0], TARGET), judge_ratio([0.013, 0.012], [-0.02, -0.03], TARGET)):
        assert j.word == "undecided" and j.interval_text() == "[unbounded]"
    with pytest.raises(ValueError, match="one value per round"):
        judge_ratio([1.0, 1.1], [1.0], TARGET)


def test_exact_values_and_single_sided_targets():
    assert judge_value(688.0, Band(high=1024)).word == "within"
    assert judge_value(1100.0, Band(high=1024)).word == "differs"
    assert judge_samples([1.07, 0.98, 1.02, 1.10, 0.95], Band(low=0.85)).word == "within"
    assert judge_samples([0.70, 0.98, 0.72, 1.05, 0.75], Band(low=0.85)).word == "undecided"
    with pytest.raises(ValueError):
        Band(1.2, 0.8)


def test_text_and_tally_use_the_verdict_words():
    j = judge_interval(0.777, 0.67, 0.86, TARGET)
    assert j.text() == "0.777 [0.67, 0.86] undecided (target 0.8–1.2)"
    assert tally([j, judge_value(1.0, TARGET)]) == {"within": 1, "differs": 0, "undecided": 1}


def test_each_judgement_states_its_n():
    assert judge_ratio([1.0, 1.1, 0.9], [1.0, 1.0, 1.02], TARGET).n == 3  # the rounds
    assert judge_ratio([1.0], [2.0], TARGET).n == 1
    assert judge_samples([1.07, 0.98, 1.02, 1.10], TARGET).n == 4
    assert judge_value(688.0, Band(high=1024)).n is None
    assert judge_value(688.0, Band(high=1024), n=1).n == 1
    assert judge_interval(1.0, 0.9, 1.1, TARGET).n is None and judge_interval(1.0, 0.9, 1.1, TARGET, n=7).n == 7
    assert Judgement("within", 1.0, 0.9, 1.1, TARGET).n is None  # the field is optional


@pytest.mark.parametrize(
    "estimate,low,high,band,n,rounds",
    [
        (1.0, 0.8, 1.2, Band(0.9, 1.1), 9, 36),  # half-width 0.2 must come down to 0.1: 9 x (0.2/0.1)^2
        (0.8, 0.7, 0.9, Band(low=0.85), 4, 16),  # one-sided target: its only finite edge
        (1.3, 1.1, 1.5, TARGET, 5, 20),  # outside the band: to lie wholly outside it
        (1.1, 0.9, 1.2, Band(0.85, 1.15), 10, 90),  # the nearest edge (1.15, 0.05 away), not the farther one
        (0.835, 0.829, 0.856, Band(0.85, 1.15), 9, 10),  # skewed: 9 x (0.0135/0.015)^2 = 7.3, but 9 was not enough
    ],
)
def test_runs_to_decide_an_undecided_figure(estimate, low, high, band, n, rounds):
    j = judge_interval(estimate, low, high, band, n=n)
    assert j.word == "undecided" and j.runs_to_decide() == rounds


def test_runs_to_decide_only_for_an_undecided_bounded_figure_with_n_off_the_edge():
    assert judge_interval(1.0, 0.9, 1.1, TARGET, n=9).runs_to_decide() is None  # within
    assert judge_interval(1.5, 1.3, 1.7, TARGET, n=9).runs_to_decide() is None  # differs
    assert judge_ratio([1.0], [2.0], TARGET).runs_to_decide() is None  # unbounded
    assert judge_interval(1.0, 0.7, 1.3, TARGET).runs_to_decide() is None  # n not known
    assert judge_interval(1.2, 1.1, 1.3, TARGET, n=9).runs_to_decide() is None  # on the edge: no n decides
    # a tenth of the half-width from the edge or nearer: over 100 x n, out of reach (the calibrated model's md -s 20
    # pick, 0.9796 [0.96, 1.0] against >= 0.98 at n=150, was asked 12.6 million rounds)
    assert judge_interval(0.9796, 0.9596, 0.9996, Band(low=0.98), n=150).runs_to_decide() is None
    assert judge_interval(0.9779, 0.9579, 0.9979, Band(low=0.98), n=150).runs_to_decide() == 13_606  # 150 x (0.02/0.0021)^2
    assert judge_interval(1.0, 0.5, 1.5, Band(), n=9).word == "within"  # an open band always holds


def test_noise_text_is_the_half_width_relative_to_the_estimate():
    assert judge_interval(1.0, 0.88, 1.12, TARGET).noise_text() == "±12%"
    assert judge_interval(2.0, 1.93, 2.07, TARGET).noise_text() == "±3.5%"
    assert judge_interval(-0.5, -0.6, -0.4, TARGET).noise_text() == "±20%"  # relative to |estimate|
    assert judge_interval(0.05, 0.049, 0.051, TARGET).noise() == pytest.approx(0.02)
    assert judge_value(688.0, Band(high=1024)).noise_text() == "±0%"
    assert judge_ratio([1.0], [2.0], TARGET).noise_text() == "unbounded"
    assert judge_interval(0.0, -0.1, 0.1, TARGET).noise() is None
    assert judge_interval(0.0, -0.1, 0.1, TARGET).noise_text() == "±0.1"  # no relative noise around zero


def test_a_difference_near_zero_is_judged_in_its_own_unit():
    ours, theirs = [0.010, 0.012, 0.011, 0.013, 0.012], [-0.020, -0.018, -0.021, -0.019, -0.020]
    j = judge_difference(ours, theirs, Band(-0.05, 0.05))
    assert j.estimate == pytest.approx(0.032) and j.n == 5 and 0.02 < j.low <= j.estimate <= j.high < 0.05
    assert j.word == "within"
    assert judge_difference(ours, theirs, Band(-0.01, 0.01)).word == "differs"
    assert judge_difference([0.01], [-0.02], Band(-0.05, 0.05)).word == "undecided"  # one round: no interval


def test_an_overhead_whose_rounds_cross_zero_is_judged_by_its_medians():
    """CLOMP's overheads (a variant's time less the best case's) fall below zero in a noisy round: the per-round
    ratio is unbounded, the ratio of the medians is not, and its interval holds the true ratio (1.5 here)."""
    rng = np.random.default_rng(7)
    theirs = 0.8 + rng.normal(0, 0.4, 60)
    ours = 1.2 + rng.normal(0, 0.4, 60)
    assert min(theirs) < 0 and judge_ratio(ours, theirs, TARGET).interval_text() == "[unbounded]"
    j = judge_ratio_of_medians(ours, theirs, Band(1.2, 2.0))
    assert j.estimate == pytest.approx(np.median(ours) / np.median(theirs)) and j.n == 60
    assert 1.2 < j.low <= j.estimate <= j.high < 2.0 and j.word == "within"
    assert judge_ratio_of_medians(ours, theirs, Band(0.8, 1.1)).word == "differs"


def test_the_ratio_of_medians_is_unbounded_when_the_reference_can_reach_zero():
    for ours, theirs in (([1.0, 1.1, 0.9], [0.1, -0.1, 0.05]), ([1.0], [2.0])):
        assert judge_ratio_of_medians(ours, theirs, TARGET).interval_text() == "[unbounded]"
    with pytest.raises(ValueError, match="one value per round"):
        judge_ratio_of_medians([1.0, 1.1], [1.0], TARGET)
