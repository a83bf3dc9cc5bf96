"""The md kernel's threads timed in its parallel regions (kernels/common/hp_omp_idle.h; docs/pop.md): a real run's
`openmp_idle` is consistent with its loop time, one thread has no imbalance, and POP's OpenMP factors follow."""

from __future__ import annotations

import pytest

from conftest import run_kernel_in
from hybridperf.analysis import pop

ARGS = ("-s", "6", "--steps", "20")


def idle_of(tmp_path, threads: int, *extra: str) -> dict:
    run = run_kernel_in(tmp_path, "md", ranks=1, threads=threads, args=(*ARGS, *extra))
    assert run.returncode == 0, run.stderr
    return run.profile


@pytest.mark.parametrize("threads", [1, 2])
def test_the_regions_fit_inside_the_loop_and_their_idle_time_inside_the_regions(tmp_path, threads):
    p = idle_of(tmp_path, threads)
    idle, times = p["openmp_idle"], p["rank_times"]
    assert set(idle) == {"regions", "load_imbalance", "scheduling", "unsplit_regions"}
    assert all(len(v) == 1 for v in idle.values()) and idle["unsplit_regions"] == [0]
    (regions,), (imbalance,), (scheduling,) = idle["regions"], idle["load_imbalance"], idle["scheduling"]
    # the master calls MPI outside parallel regions: they fit in the loop's time outside MPI
    assert 0 < regions <= times["elapsed"][0] - times["mpi"][0]
    assert imbalance >= 0 and scheduling >= 0
    assert imbalance + scheduling <= regions * (1 + 1e-12)  # per execution, their sum is region - mean busy
    if threads == 1:
        assert imbalance == 0  # one thread: its busy time is the max and the mean
    factors = pop.of_profile(p).values
    for name in pop.OMP_FACTORS:
        value = factors[name]
        assert value is not None and (value == 1.0 if threads == 1 else 0 < value <= 1), (name, value)


def test_without_thread_times_the_profile_has_no_openmp_idle_and_pop_says_why(tmp_path):
    p = idle_of(tmp_path, 2, "--no-thread-times")
    assert "openmp_idle" not in p and "rank_times" in p
    f = pop.of_profile(p)
    assert f.values["openmp_load_balance"] is None and "--no-thread-times" in f.why["openmp_load_balance"]
    assert "openmp_idle" not in idle_of(tmp_path, 2, "--no-timers")
