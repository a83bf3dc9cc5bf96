"""The hybridperf command: info, run (dry and real), compare, and its errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]


def cli(*args, cwd=None):
    return subprocess.run([*HYBRIDPERF, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def test_info_json_describes_machine_and_kernel(md_binary):
    out = cli("info", "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["machine"]["cores"] >= 1
    assert "Open MPI" in info["kernels"]["md"]["build"]["mpi_library"] or "MPICH" in info["kernels"]["md"]["build"]["mpi_library"]


def test_run_dry_run_prints_the_launch_line(md_binary, tmp_path):
    out = cli("run", "md", "--ranks", 1, "--threads", 2, "--dry-run", "-s", 30, "--results", tmp_path)
    assert out.returncode == 0, out.stderr
    assert "OMP_NUM_THREADS=2" in out.stdout and "OMP_PROC_BIND=close" in out.stdout
    assert str(md_binary) in out.stdout and "-s 30" in out.stdout
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_run_keeps_the_profile_and_shows_the_summary(md_binary, tmp_path):
    out = cli("run", "md", "--ranks", 2, "--threads", 1, "-s", 6, "--steps", 20, "--results", tmp_path)
    assert out.returncode == 0, out.stderr
    profiles = list((tmp_path / "runs").glob("md-*-1n2r1t.json"))
    assert len(profiles) == 1
    assert "Regions" in out.stdout and "Correctness checks" in out.stdout
    assert str(profiles[0]) in out.stdout.replace("\n", "")


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


def test_failed_run_reports_the_kernel_error_and_keeps_nothing(md_binary, tmp_path):
    out = cli("run", "md", "--ranks", 2, "-s", 2, "--results", tmp_path)
    assert out.returncode == 2
    assert "hybridperf-md: error: subdomain" in out.stderr
    assert not list(Path(tmp_path).rglob("*.json"))


def test_compare_runs_each_split(md_binary, tmp_path):
    out = cli("compare", "md", "--splits", "1x1,2x1,1x2", "-s", 6, "--steps", 20, "--results", tmp_path)
    assert out.returncode == 0, out.stderr
    for split in ("1x1", "2x1", "1x2"):
        assert split in out.stdout
    assert len(list((tmp_path / "runs").glob("*.json"))) == 3
