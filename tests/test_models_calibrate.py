"""The calibrated model's inputs carry their runs' noise and stay within physical bounds; what a calibration store
measured and refused is found (models.calibrate, models.measured). Synthetic profiles: fast and exact."""

import pytest

from hybridperf.app.profile import ignored_threads
from hybridperf.models import calibrate, measured
from hybridperf.models.split import Split


def profile(ranks, threads, computation, name, params=None, loop_time=None):
    """The least of an md profile the calibration reads: shape, problem, loop time and computation regions."""
    return {"kernel": "md", "params": params or {"size": 8, "steps": 20}, calibrate.FILE: name,
            "run": {"ranks": ranks, "threads_per_rank": threads, "ranks_per_node": ranks, "nodes": 1,
                    "start_time": "2026-11-25T00:00:00Z"},
            "figures_of_merit": [{"name": "loop_time", "value": loop_time or computation * 1.1}],
            "regions": {"force": {"time": {"avg": computation}}}, "region_groups": {"computation": ["force"]}}


def test_a_figure_of_one_run_carries_an_assumed_spread_and_of_repeats_their_own():
    one = calibrate.spread([2.0])
    assert (one.median, one.noise, one.runs) == (2.0, calibrate.ONE_RUN_NOISE, 1) and "assumed" in one.describe()
    three = calibrate.spread([1.0, 1.1, 1.2])
    assert three.median == 1.1 and three.noise == pytest.approx(0.0910, abs=1e-3) and "3 runs" in three.describe()


def test_thread_efficiency_is_the_ratio_of_medians_with_both_sides_spread():
    runs = [profile(2, 1, c, f"r{i}.json") for i, c in enumerate((1.0, 1.02, 0.98))] + \
           [profile(1, 2, c, f"t{i}.json") for i, c in enumerate((1.25, 1.3, 1.2))] + [profile(1, 1, 2.0, "s.json")]
    eff = calibrate.thread_efficiency(runs, "md", runs[-1])
    assert eff.points == ((2, pytest.approx(1.0 / 1.25)),) and not eff.warnings
    ranks, threads = calibrate.spread([1.0, 1.02, 0.98]).noise, calibrate.spread([1.25, 1.3, 1.2]).noise
    assert eff.noise == pytest.approx((ranks**2 + threads**2) ** 0.5)
    assert "2x1: median of 3 runs" in eff.source and "1x2: median of 3 runs" in eff.source


def test_a_negative_threading_loss_is_clamped_naming_the_runs_it_came_from():
    """One 2x1 run slowed by another job made the threads look 34% better than ranks: e_mt is taken as 1 (no loss),
    and the warning names the runs; the latest run alone no longer decides."""
    runs = [profile(2, 1, 1.342, "runs/md-2x1.json"), profile(1, 2, 1.0, "runs/md-1x2.json"),
            profile(1, 1, 2.0, "runs/md-1x1.json")]
    eff = calibrate.thread_efficiency(runs, "md", runs[-1])
    assert eff.points == ((2, 1.0),)
    [warning] = eff.warnings
    assert "-34.2%" in warning and "runs/md-2x1.json" in warning and "runs/md-1x2.json" in warning
    assert "taken as 0" in warning and "\n" not in warning


def test_other_figures_out_of_bounds_are_clamped_with_a_warning():
    stream = lambda threads, triad, name: {"kernel": "stream", calibrate.FILE: name,  # noqa: E731
                                           "run": {"ranks": 1, "threads_per_rank": threads},
                                           "stream": {"bandwidth_GBps": {"triad": triad, "copy": 10.0}}}
    omp = {"kernel": "ompbench", calibrate.FILE: "runs/omp.json", "run": {"ranks": 1, "threads_per_rank": 2},
           "figures_of_merit": [{"name": "overhead.PARALLEL_FOR", "value": -0.3}]}
    mix = {"kernel": "mixbench", calibrate.FILE: "runs/mix.json", "run": {"ranks": 2, "threads_per_rank": 1},
           "mixbench": {"hockney": {"pingpong": {"alpha_s": -2e-7, "beta_s_per_byte": 1e-10}}}}
    cal = calibrate.calibration(mix, omp, [stream(1, 10.0, "runs/s1.json"), stream(2, 25.0, "runs/s2.json")])
    assert cal.alpha == 0 and cal.par_overhead_s == 0 and cal.triad[2] == 20.0
    assert len(cal.warnings) == 3
    assert any("runs/mix.json" in w for w in cal.warnings) and any("runs/omp.json" in w for w in cal.warnings)
    assert any("runs/s2.json" in w and "node efficiency 1.250 > 1" in w for w in cal.warnings)
    machine = calibrate.this_machine(cal, 2, bandwidth_bound=True)
    assert machine.node_efficiency(2) == 1.0


def copy(k, of, loop_time, params=None):
    made = profile(1, 1, loop_time, f"copy{k}.json", params, loop_time)
    made["run"]["copy"] = {"index": k, "of": of}
    return made


def test_copies_at_once_give_the_nodes_efficiency_and_it_prices_every_split():
    """Two serial runs of 3.0 and 3.2 s alone, two copies at once of 3.3 and 3.5 s: n(2) = 3.1 / 3.4, for md too
    (whose node efficiency is 1 without copies); copies of another problem count for nothing; a copy faster than
    the run alone is clamped to 1, naming the run."""
    serial = [profile(1, 1, 3.0, "s0.json", loop_time=3.0), profile(1, 1, 3.2, "s1.json", loop_time=3.2)]
    together = [copy(0, 2, 3.3), copy(1, 2, 3.5), copy(0, 2, 9.0, {"size": 12, "steps": 20})]
    copies = calibrate.copies_efficiency(serial, together, serial[-1])
    assert copies.efficiency == {2: pytest.approx(3.1 / 3.4)} and not copies.warnings
    assert "2 cores 0.912" in copies.source
    cal = calibrate.calibration(None, None, [])
    assert calibrate.this_machine(cal, 2, bandwidth_bound=False).node_efficiency(2) == 1.0
    machine = calibrate.this_machine(cal, 2, bandwidth_bound=False, copies=copies)
    assert machine.node_efficiency(2) == pytest.approx(3.1 / 3.4) and copies.source in machine.source
    slowed = calibrate.copies_efficiency(serial, [copy(0, 2, 2.0), copy(1, 2, 2.0)], serial[-1])
    assert slowed.efficiency == {2: 1.0} and "copy0.json" in slowed.warnings[0]
    assert calibrate.copies_efficiency(serial, [], serial[-1]).efficiency == {}


def test_the_work_is_the_serial_runs_median_and_their_spread_its_error():
    serial = {"kernel": "spmv", "params": {"n": 20}, "figures_of_merit": [{"name": "loop_time", "value": 3.0}],
              "run": {"ranks": 1, "threads_per_rank": 1}, "spmv": {"n": 20, "calls": 10, "rows_per_node": 8000}}
    repeats = [{**serial, "figures_of_merit": [{"name": "loop_time", "value": v}]} for v in (1.0, 1.1)]
    work = calibrate.serial_work([*repeats, serial], serial)
    problem = calibrate.problem_from(serial, work_runs=work)
    assert problem.work_seconds == 1.1 and problem.work_error == work.noise > 0.2
    assert "median of 3 runs" in problem.work_source
    alone = calibrate.problem_from(serial)
    assert alone.work_error == calibrate.ONE_RUN_NOISE and "spread not measured" in alone.work_source


def test_measured_runs_of_the_same_problem_and_split_are_gathered():
    serial = profile(1, 1, 2.0, "s.json")
    runs = [profile(2, 1, 1.0, "a.json", loop_time=1.0), profile(2, 1, 1.0, "b.json", loop_time=1.2),
            profile(1, 2, 1.0, "c.json", params={"size": 12, "steps": 20}, loop_time=0.5)]  # another problem
    found = measured.runs_of(runs, serial, [Split(1, 1, 2), Split(1, 2, 1)])
    assert list(found) == [Split(1, 2, 1)] and found[Split(1, 2, 1)].median == pytest.approx(1.1)


def test_a_run_that_ignored_its_threads_refuses_that_many_and_more():
    def stored(threads, status, reason):
        return {"kernel": "app", "status": status, "threads": threads, "ranks": 1, "run_key": f"k{threads}",
                "study": "lmp", "stderr": f"{reason}\nMPI_ABORT was invoked" if reason else None}

    why = ignored_threads({"min": 1, "max": 1}, 4, "at MPI_Finalize")
    runs = [stored(1, "ok", None), stored(4, "failed", why), stored(2, "failed", "Segmentation fault"),
            stored(8, "failed", ignored_threads({"min": 1, "max": 1}, 8, "at MPI_Finalize"))]
    threads, text = measured.refusal(runs, "app")
    assert threads == 4 and "run k4 of study lmp (1x4)" in text and "ignored the thread count" in text
    assert "\n" not in text and "MPI_ABORT" not in text
    assert measured.refusal(runs, "md") is None and measured.refusal(runs[:3][:1], "app") is None
