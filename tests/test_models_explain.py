"""One question, one story: the closed form's parts add up to its prediction, and where it and the replay disagree
beyond their intervals the parts that differ are named (models.split.parts, simulate.recommend.Side)."""

from dataclasses import replace

import pytest

from hybridperf.models import presets
from hybridperf.models.split import md_problem, PARTS, parts, predict, Split, ThreadEfficiency
from hybridperf.simulate.recommend import REST, side_by_side


def test_the_closed_forms_parts_add_up_to_its_prediction_and_threading_is_what_threads_cost():
    stella = presets.PRESETS["stella"]
    problem = md_problem(2_000_000, 100, 300.0)
    lossy = replace(problem, thread_efficiency=ThreadEfficiency(((8, 0.8),), "x"))
    for split in (Split(4, 8, 1), Split(4, 1, 8), Split(4, 2, 4)):
        assert sum(parts(stella, lossy, split).values()) == pytest.approx(predict(stella, lossy, split), rel=1e-12)
    pure, threaded = parts(stella, lossy, Split(4, 8, 1)), parts(stella, lossy, Split(4, 1, 8))
    assert list(pure) == list(PARTS) and pure["threading"] == 0
    assert pure["compute"] == threaded["compute"]  # the work, shared by every core, whatever the split
    fork_join = lossy.parallel_loops * stella.par_overhead(8)
    assert threaded["threading"] == pytest.approx(threaded["compute"] * (1 / 0.8 - 1) + fork_join)
    assert threaded["collectives"] < pure["collectives"]  # 4 ranks sum faster than 32


def side(closed, simulated, sd=1.0, threads=1, noise=0.0):
    split = Split(1, 8 // threads, threads)
    return side_by_side({split: (dict(zip(PARTS, closed)), sd)}, {split: dict(zip((*PARTS, REST), simulated))},
                        noise)[0]


def test_totals_within_both_intervals_agree():
    agreeing = side((100, 0, 5, 1), (101, 0, 4, 1, 0.5), sd=1.0)
    assert not agreeing.disagree and agreeing.gap == pytest.approx(0.5)


def test_a_disagreement_names_the_parts_beyond_the_interval_largest_first():
    """Totals 20 s apart, two SDs of 1 s: threading (+15 s) and point-to-point (-6 s) each differ beyond the interval,
    compute (+1 s) does not; the waiting the closed form does not model counts as a part of its own."""
    apart = side((100, 2, 10, 1), (101, 17, 4, 1, 0), sd=1.0, threads=8)
    assert apart.disagree and apart.gap == pytest.approx(10)
    assert apart.differing() == ["threading", "point-to-point"]
    waits = side((100, 0, 5, 1), (100, 0, 5, 1, 30))
    assert waits.disagree and waits.differing() == [REST]


def test_parts_that_differ_only_together_name_the_largest():
    apart = side((100, 0, 5, 5), (101.5, 0, 6.2, 5.8, 0), sd=1.0)
    assert apart.disagree and apart.differing() == ["compute"]


def test_the_replays_interval_is_its_measured_e_mt_noise_on_threaded_compute():
    """A replay priced with an e_mt its runs measured to ±20% is good to that on a threaded split's compute, and
    exact on pure MPI's."""
    threaded = side((100, 10, 5, 1), (100, 30, 5, 1, 0), sd=1.0, threads=8, noise=0.2)
    assert threaded.simulated_sd == pytest.approx(0.2 * 130) and not threaded.disagree
    pure = side((100, 0, 5, 1), (130, 0, 5, 1, 0), sd=1.0, threads=1, noise=0.2)
    assert pure.simulated_sd == 0 and pure.disagree
