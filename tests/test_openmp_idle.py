"""The kernels that time their threads in their loops' parallel regions (kernels/common/hp_omp_idle.h; docs/pop.md),
md and spmv: a real run's `openmp_idle` is consistent with its loop time, one thread has no imbalance, and POP's
OpenMP factors follow."""

from __future__ import annotations

import pytest

from conftest import run_kernel_in
from hybridperf.analysis import pop

pytestmark = pytest.mark.kernel

MD = ("-s", "6", "--steps", "20")
SPMV = ("-n", "10", "--calls", "20")
# each kernel's arguments at 1 and 2 threads per rank: spmv's hybrid mode needs 2; its serial mode computes the
# same brick (--node-threads 2) on one thread
RUNS = {
    "md": {1: MD, 2: MD},
    "spmv": {1: ("--mode", "serial", "--node-threads", "2", *SPMV), 2: ("--mode", "hybrid", *SPMV)},
}
assert set(RUNS) == set(pop.THREAD_TIMED)


def profile_of(tmp_path, kernel: str, threads: int, *extra: str) -> dict:
    run = run_kernel_in(tmp_path, kernel, ranks=1, threads=threads, args=(*RUNS[kernel][threads], *extra))
    assert run.returncode == 0, run.stderr
    return run.profile


@pytest.mark.parametrize("kernel", pop.THREAD_TIMED)
@pytest.mark.parametrize("threads", [1, 2])
def test_the_regions_fit_inside_the_loop_and_their_idle_time_inside_the_regions(tmp_path, kernel, threads):
    p = profile_of(tmp_path, kernel, threads)
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


@pytest.mark.parametrize("kernel", pop.THREAD_TIMED)
def test_without_thread_times_the_profile_has_no_openmp_idle_and_pop_says_why(tmp_path, kernel):
    p = profile_of(tmp_path, kernel, 2, "--no-thread-times")
    assert "openmp_idle" not in p and "rank_times" in p
    f = pop.of_profile(p)
    assert f.values["openmp_load_balance"] is None and "--no-thread-times" in f.why["openmp_load_balance"]
    assert "openmp_idle" not in profile_of(tmp_path, kernel, 2, "--no-timers")
