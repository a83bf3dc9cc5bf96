"""The thesis's overall model fitted on a study: exact data give back the generating parameters, and the
outlook beyond the measured core counts finds the crossover the generating model has."""

import math

import pytest

from hybridperf.analysis.race import Rule
from hybridperf.analysis.sections import Point, Section, verdicts_of
from hybridperf.analysis.stats import summarize
from hybridperf.models import study_models, thesis

PHI, MU, ALPHA, ATOMS, NODE = 1e-6, 1e-6, 1e-6, 1_000_000, 8


def truth(configuration: str, cores: int) -> float:
    lay = thesis.layout(configuration, cores, NODE)
    return float(thesis.overall(PHI, MU if lay.n_omp > 1 else 0.0, ALPHA, ATOMS, lay.n_mpi, lay.n_omp, lay.n_ppn))


def section(cores_measured: list[int]) -> Section:
    points, runs = [], []
    for configuration in ("pure-mpi", "hybrid-1"):
        for cores in cores_measured:
            lay = thesis.layout(configuration, cores, NODE)
            t = truth(configuration, cores)
            run = {"loop_time": t, "status": "ok", "repeat": 0, "configurations": [configuration],
                   "nodes": cores // NODE, "ranks_per_node": lay.n_ppn, "threads": lay.n_omp, "backend": "local",
                   "profile": {"kernel": "md", "md": {"atoms": ATOMS},
                               "figures_of_merit": [{"name": "loop_time", "value": t}]}}
            points.append(Point(configuration, cores, cores, cores // NODE, lay.n_ppn, lay.n_omp, "",
                                summarize([t]), 0, [run]))
            runs.append(run)
    return Section({}, "cores", points, verdicts_of(points, runs, Rule(), stopped=True), [])


def test_exact_data_give_back_the_parameters():
    ev = study_models.evaluate(section([8, 16, 32, 64]), NODE, "overall (6.10)")
    values = {n: f.value(n) for f in ev.fits for n in f.names}
    assert values == pytest.approx({"phi": PHI, "alpha": ALPHA, "mu": MU}, rel=1e-6)
    assert all(abs(r.error) < 1e-4 for r in ev.rows)


def test_outlook_finds_the_crossover_beyond_the_measured_core_counts():
    # pure minus hybrid = alpha c (64 - 1/8) - 8 mu P / c: hybrid wins from c = 354 cores on
    ahead = study_models.outlook(section([8, 16, 32, 64]), NODE, doublings=3)
    assert [o.cores for o in ahead] == [8, 16, 32, 64, 128, 256, 512]
    assert [o.extrapolated for o in ahead] == [False] * 4 + [True] * 3
    assert [o.winner for o in ahead] == ["pure-mpi"] * 6 + ["hybrid-1"]
    # one run per point: the measured leader is named, but a race of one block cannot be decided
    assert [(o.measured_winner, o.measured_outcome) for o in ahead] == [("pure-mpi", "undecided")] * 4 + \
        [(None, None)] * 3
    for o in ahead:
        assert o.predicted == pytest.approx({c: truth(c, o.cores) for c in o.predicted}, rel=1e-6)


def test_an_exact_fit_has_no_error_no_band_and_no_outlook_beyond_the_data():
    """Two core counts: two pure-MPI points for phi and alpha, two hybrid points for mu, so stage 1 is exact: no
    standard errors, no band, and the outlook stays at the measured core counts."""
    ev = study_models.evaluate(section([8, 16]), NODE, "overall (6.10)")
    assert ev.exact and all(math.isnan(e) for e in ev.fits[0].errors)
    assert all(math.isnan(r.low) and math.isnan(r.high) and not r.inside for r in ev.rows)
    ahead = study_models.outlook(section([8, 16]), NODE)
    assert [o.cores for o in ahead] == [8, 16] and not any(o.extrapolated for o in ahead)


def test_held_out_predicts_each_configurations_largest_core_count():
    ev = study_models.evaluate(section([8, 16, 32, 64]), NODE, "overall (6.10)", held_out=True)
    assert {(r.configuration, r.scale) for r in ev.rows if not r.fitted} == {("pure-mpi", 64), ("hybrid-1", 64)}
    assert all(abs(r.error) < 1e-3 for r in ev.rows)  # exact data: the held-out points are predicted too
    too_few = study_models.evaluate(section([8, 16]), NODE, "overall (6.10)", held_out=True)
    assert not too_few.rows and "held out: needs 2 pure-MPI points" in too_few.note
