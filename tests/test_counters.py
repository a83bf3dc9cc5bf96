"""perf_event counters of the useful computation (kernels/common/hp_counters.h; docs/pop.md#hardware-counters).

This project's machines expose no hardware events (no PMU in their virtual machines), so what is checked with
numbers is the switching, through the software events HYBRIDPERF_COUNTERS=software counts instead: task-clock is
CPU nanoseconds, so a rank's count is bounded by its seconds outside MPI and its threads'. The default, hardware
events, is checked for what it must be on any machine: instructions and cycles, or the reason there are none.
A rank waiting in MPI is checked on a program under the MPI library (tests/test_pop_known.py); the threads'
counts against their own CPU clocks in tests/c/test_counters.c."""

from __future__ import annotations

import pytest

from conftest import run_kernel_in
from hybridperf.analysis import pop

pytestmark = pytest.mark.kernel

MD = ("-s", "6", "--steps", "100")
NS = 1e-9  # task-clock counts nanoseconds


def md_counters(tmp_path, threads: int = 1) -> tuple[dict, dict]:
    run = run_kernel_in(tmp_path, "md", ranks=1, threads=threads, args=MD)
    assert run.returncode == 0, run.stderr
    return run.profile["rank_times"], run.profile


def test_a_run_counts_instructions_and_cycles_or_says_why(tmp_path, monkeypatch):
    monkeypatch.delenv("HYBRIDPERF_COUNTERS", raising=False)
    times, profile = md_counters(tmp_path)
    counters = times["counters"]
    ipc, why = pop.counts(profile).ipc()
    if "unavailable" in counters:  # this project's machines: no PMU
        assert counters["unavailable"].startswith("perf_event_open(instructions) failed: ")
        assert ipc is None and counters["unavailable"] in why
    else:
        assert set(counters) == {"instructions", "cycles"} and min(counters["instructions"]) > 0
        assert ipc is not None and 0.05 < ipc < 10, ipc


@pytest.mark.parametrize("asked, reason", [("off", "switched off (HYBRIDPERF_COUNTERS=off)"),
                                           ("perf", "HYBRIDPERF_COUNTERS=perf is not one of hardware, software, off")])
def test_switched_off_or_misspelt_the_profile_says_so(tmp_path, monkeypatch, asked, reason):
    monkeypatch.setenv("HYBRIDPERF_COUNTERS", asked)
    times, profile = md_counters(tmp_path)
    assert times["counters"] == {"unavailable": reason}
    assert reason in pop.of_profile(profile).why["ipc"]


def test_software_counts_of_two_threads_stay_within_their_window(tmp_path, monkeypatch):
    """1 rank x 2 threads: the master counts its time outside MPI, the other thread (inherited) at most its whole
    window, its waits in the OpenMP runtime included (hp_counters.h): CPU time at most O + E. That the second thread
    is counted at all is checked against the threads' own CPU clocks (tests/c/test_counters.c): here it may have
    had no core (another test beside this one)."""
    monkeypatch.setenv("HYBRIDPERF_COUNTERS", "software")
    times, profile = md_counters(tmp_path, threads=2)
    (elapsed,), (mpi,), counters = times["elapsed"], times["mpi"], times["counters"]
    assert set(counters) == {"task-clock", "cpu-clock"}
    outside, cpu = elapsed - mpi, counters["task-clock"][0] * NS
    assert 0 < cpu <= (outside + elapsed) * 1.05 + 0.005, (cpu, outside, elapsed)
    ipc, why = pop.counts(profile).ipc()
    assert ipc is None and "HYBRIDPERF_COUNTERS=software" in why

