"""Placement check: warnings for stacked threads, none for a correct binding; and on real runs."""

import os
import subprocess

import pytest

from hybridperf.analysis.affinity import placement_warnings
from hybridperf.launch import runner
from hybridperf.launch.lines import Configuration

from conftest import CORES


def run_info(threads):
    return {
        "threads_per_rank": len(threads[0]),
        "affinity": [{"rank": r, "host": "n1", "threads": [{"thread": t, "cpu": cpu, "allowed": allowed}
                                                           for t, (cpu, allowed) in enumerate(ts)]}
                     for r, ts in enumerate(threads)],
    }


def test_one_thread_per_core_is_fine():
    assert placement_warnings(run_info([[(0, [0]), (1, [1])], [(2, [2]), (3, [3])]]), 4) == []


def test_threads_stacked_on_one_core_are_reported():
    warnings = placement_warnings(run_info([[(0, [0]), (0, [0])]]), 2)
    assert any("pinned to CPU 0" in w for w in warnings)
    assert any("2 threads on 1 CPU(s)" in w for w in warnings)


def test_unbound_threads_seen_on_one_cpu_are_reported():
    warnings = placement_warnings(run_info([[(1, [0, 1]), (1, [0, 1])]]), 2)
    assert warnings and "requested cores stayed idle" in warnings[0]


@pytest.mark.kernel
def test_our_launch_line_really_gives_threads_distinct_cores(run_md):
    if CORES < 2:
        pytest.skip("needs 2 cores")
    run = run_md(1, 2, ["-s", 6, "--steps", 10])
    threads = run.profile["run"]["affinity"][0]["threads"]
    assert [t["allowed"] for t in threads] == [[0], [1]] or len({tuple(t["allowed"]) for t in threads}) == 2
    assert placement_warnings(run.profile["run"], CORES) == []
    ranks = run_md(2, 1, ["-s", 6, "--steps", 10]).profile["run"]["affinity"]
    assert ranks[0]["threads"][0]["allowed"] != ranks[1]["threads"][0]["allowed"]


@pytest.mark.kernel
def test_plain_mpirun_stacks_threads_and_the_check_says_so(md_binary, tmp_path):
    """The trap the launcher avoids: Open MPI binds a lone rank to one core, so both threads share it."""
    launch = runner.prepare("md", Configuration(1, 1, 2, CORES), ["-s", "6", "--steps", "5"], tmp_path / "p.json")
    if CORES < 2 or "mpirun" not in launch.command[0]:
        pytest.skip("needs 2 cores and an Open MPI build (the trap is Open MPI's default binding)")
    plain = [launch.command[0], "--allow-run-as-root", "-np", "1", str(md_binary), "-s", "6", "--steps", "5",
             "--profile", str(tmp_path / "plain.json")]
    subprocess.run(plain, env={**os.environ, "OMP_NUM_THREADS": "2"}, check=True, capture_output=True)
    from hybridperf.profile import load

    warnings = placement_warnings(load(tmp_path / "plain.json")["run"], CORES)
    assert any("share cores" in w or "pinned" in w for w in warnings)
