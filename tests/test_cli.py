"""The hybridperf command: info, run (dry and real), compare, and its errors."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hybridperf.store.db import Store

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]


def cli(*args, cwd=None):
    return subprocess.run([*HYBRIDPERF, *map(str, args)], capture_output=True, text=True, cwd=cwd)


@pytest.mark.kernel
def test_info_json_describes_machine_and_kernel(md_binary):
    out = cli("info", "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["machine"]["cores"] >= 1
    assert "Open MPI" in info["kernels"]["md"]["build"]["mpi_library"] or "MPICH" in info["kernels"]["md"]["build"]["mpi_library"]


@pytest.mark.kernel
def test_run_dry_run_prints_the_launch_line(md_binary, tmp_path):
    out = cli("run", "md", "--ranks", 1, "--threads", 2, "--dry-run", "-s", 30, "--results", tmp_path)
    assert out.returncode == 0, out.stderr
    assert "OMP_NUM_THREADS=2" in out.stdout and "OMP_PROC_BIND=close" in out.stdout
    assert str(md_binary) in out.stdout and "-s 30" in out.stdout
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


@pytest.mark.kernel
@pytest.mark.parametrize("args,message", [
    (["-s", 30, "--bogus-flag"], "hybridperf-md would refuse this run: unknown option '--bogus-flag'"),
    (["-s", "many"], "hybridperf-md would refuse this run: --size needs an integer, got 'many'"),
    (["-s", 3], "hybridperf-md would refuse this run: subdomain is 2.519 wide in x"),  # 2 ranks on a 3-cell box
])
def test_a_dry_run_prints_no_line_the_kernel_would_refuse(md_binary, tmp_path, args, message):
    out = cli("run", "md", "--ranks", 2, "--dry-run", *args, "--results", tmp_path)
    assert out.returncode == 2 and message in out.stderr.replace("\n", "") and out.stdout == ""


@pytest.mark.external
def test_info_says_when_slurm_has_no_controller(tmp_path):
    """srun answers even --version only with a configuration; without one, info says so in its own words."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([*HYBRIDPERF, "info", "--json"], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    slurm = json.loads(out.stdout)["launchers"]["slurm"]
    if shutil.which("srun"):
        assert slurm.startswith("srun:") or slurm.startswith("Slurm installed, no controller reachable")
        assert "error" not in slurm and "DNS" not in slurm
    else:
        assert slurm == "not found"


@pytest.mark.kernel
def test_run_keeps_the_profile_and_shows_the_summary(md_binary, tmp_path):
    out = cli("run", "md", "--ranks", 2, "--threads", 1, "-s", 6, "--steps", 20, "--results", tmp_path)
    assert out.returncode == 0, out.stderr
    profiles = list((tmp_path / "runs").glob("md-*-1n2r1t.json"))
    assert len(profiles) == 1
    assert "Regions" in out.stdout and "Correctness checks" in out.stdout
    assert str(profiles[0]) in out.stdout.replace("\n", "")


@pytest.mark.kernel
@pytest.mark.parametrize(
    "args,message",
    [
        (["run", "md", "--ranks", 0], "--ranks 0 must be a positive multiple"),
        (["run", "md", "--ranks", 3, "--nodes", 2], "--ranks 3 must be a positive multiple of --nodes 2"),
        (["run", "md", "--launcher", "pbs"], "--launcher must be one of"),
        (["run", "lammps"], "unknown kernel 'lammps'"),
        (["compare", "md", "--splits", "2y1"], "'2y1' is not RANKSxTHREADS"),
    ],
)
def test_user_errors_are_one_line(args, message, tmp_path):
    out = cli(*args, "--results", tmp_path)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr


@pytest.mark.kernel
def test_failed_run_reports_the_kernel_error_and_keeps_nothing(md_binary, tmp_path):
    out = cli("run", "md", "--ranks", 2, "-s", 2, "--results", tmp_path)
    assert out.returncode == 2
    assert "hybridperf-md: error: subdomain" in out.stderr
    assert not list(Path(tmp_path).rglob("*.json"))


@pytest.mark.kernel
def test_compare_runs_each_split(md_binary, tmp_path):
    """compare is a study without a file: its runs are stored as a study's (a warm-up first, then the blocks), and
    `report` reads them."""
    out = cli("compare", "md", "--splits", "1x1,2x1,1x2", "-s", 6, "--steps", 20, "--results", tmp_path,
              "--max-blocks", 2)
    assert out.returncode == 0, out.stderr
    for split in ("1x1", "2x1", "1x2"):
        assert split in out.stdout
    with Store(tmp_path) as store:
        counted, every = store.runs("compare-md"), store.runs("compare-md", warmups=True)
    assert len(counted) == 6 and len(every) == 7  # two blocks of the three splits, and one warm-up
    assert {(r["ranks_per_node"], r["threads"]) for r in counted} == {(1, 1), (2, 1), (1, 2)}
    assert "md -s 6 --steps 20: undecided after 2 blocks" in out.stdout  # the study's rule: 2 blocks cannot bound
    assert "compared (undecided, " in out.stdout and "fastest" not in out.stdout  # no winner named from 2 blocks
    assert "different sizes" not in out.stdout  # md's -s is the whole box, whatever the split
    report = cli("report", tmp_path, "--json")
    assert json.loads(report.stdout)["study"] == "compare-md"


@pytest.mark.kernel
def test_compare_takes_the_study_rule_and_refuses_what_the_kernel_does_not_take(tmp_path):
    out = cli("compare", "md", "--splits", "2x1", "--sise", 6, "--results", tmp_path)
    assert out.returncode == 2 and "md has no option '--sise' (did you mean 'size'?)" in out.stderr
    assert not (tmp_path / "results.db").exists()


@pytest.mark.kernel
def test_compare_says_when_the_splits_solve_different_problems(tmp_path):
    out = cli("compare", "spmv", "--splits", "1x1,2x1", "--n", 8, "--results", tmp_path, "--max-blocks", 1)
    assert out.returncode == 0, out.stderr
    assert "the splits solved problems of different sizes (1x1: 512, 2x1: 1,024)" in " ".join(out.stdout.split())
