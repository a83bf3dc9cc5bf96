"""`hybridperf model ...`: the thesis's models on a stored study, the recommendation on a preset cluster and on
this machine calibrated by its microbenchmarks, and their errors."""

import json
import os
import subprocess
import sys

import pytest

from hybridperf.models import calibrate

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]


def cli(*args):
    return subprocess.run([*HYBRIDPERF, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200"})


def test_evaluate_fits_on_pure_mpi_and_predicts_the_hybrid_points(tmp_path, md_binary):
    spec = tmp_path / "s.yaml"
    spec.write_text(f"study: tiny\nkernel: md\nparams: {{size: 6, steps: 20}}\nconfigurations: [pure-mpi, hybrid-1]\n"
                    f"cores: [1, 2]\nrepeats: 1\nresults: {tmp_path / 'r'}\n")
    assert cli("study", spec, "--no-report").returncode == 0
    out = cli("model", "evaluate", tmp_path / "r")
    assert out.returncode == 0, out.stderr
    assert "overall (6.10)" in out.stdout and "phi =" in out.stdout and "mu =" in out.stdout
    # pure MPI at 1 core sends nothing, so one pure-MPI point with a communication time is too few to fit
    assert "total communication (6.6): not fitted (needs 2 pure-MPI points" in out.stdout
    assert "predicted" in out.stdout and "PMNF" in out.stdout
    pmnf = cli("model", "pmnf", tmp_path / "r", "--metric", "force")
    assert pmnf.returncode == 0 and "needs measurements at 3 or more parameter values, got 2" in pmnf.stdout
    assert cli("model", "pmnf", tmp_path / "r", "--metric", "nosuch").returncode != 0
    outlook = out.stdout[out.stdout.index("Outlook"):]
    assert [line.split("│")[1].strip() for line in outlook.splitlines() if line.startswith("│")][:5] == \
        ["1", "2", "4", "8", "16"]


def test_evaluate_without_a_study_fails_cleanly(tmp_path):
    out = cli("model", "evaluate", tmp_path)
    assert out.returncode != 0 and "has no results.db" in out.stderr


def test_recommend_on_merlin_finds_the_thesis_crossover_from_pure_mpi_to_hybrid():
    out = cli("model", "recommend", "--cluster", "merlin", "--nodes", "1,4,16,64", "--thread-loss", "0.02")
    assert out.returncode == 0, out.stderr
    rows = {line.split("│")[1].strip(): line for line in out.stdout.splitlines() if line.startswith("│")}
    assert "8r×1t" in rows["1"].split("│")[-4]  # pure MPI wins on one node
    assert "the winner changes at" in out.stdout and "8r×1t -> 1r×8t" in out.stdout


@pytest.mark.parametrize("args,message", [
    (["--cluster", "nosuch"], "unknown cluster 'nosuch'"),
    (["--nodes", "1,x"], "--nodes must be comma-separated integers"),
    (["--kernel", "clomp"], "--kernel must be md or spmv"),
    (["--size", "0"], "--size and --steps must be 1 or more"),
    (["--work-seconds", "-1"], "--work-seconds above 0"),
    (["--cluster", "stella", "--nodes", "32"], "Stella has 16 nodes"),
])
def test_recommend_rejects_bad_input(args, message):
    out = cli("model", "recommend", *args)
    assert out.returncode != 0 and message in out.stderr


@pytest.fixture(scope="module")
def calibration_dir(tmp_path_factory, md_binary):
    """What docs/models.md asks for: ping-pong, PARALLEL FOR, STREAM at 1 and 2 threads, a serial md run."""
    d = tmp_path_factory.mktemp("cal")
    for run in (["mixbench", "--ranks", 2, "--bench", "pingpong", "--sizes", "8,1K,64K"],
                ["ompbench", "--threads", 2, "-c", "PARALLEL_FOR", "--ref-sd-tol", 1],
                ["stream", "-s", 4], ["stream", "--threads", 2, "-s", 4],
                ["md", "-s", 8, "--steps", 20]):
        out = cli("run", *run, "--results", d)
        assert out.returncode == 0, out.stderr
    return d


def test_recommend_on_this_machine_uses_the_calibration_and_the_serial_run(calibration_dir):
    out = cli("model", "recommend", "--calibration", calibration_dir)
    assert out.returncode == 0, out.stderr
    assert "mixbench ping-pong: alpha" in out.stdout and "ompbench PARALLEL FOR at 2 threads" in out.stdout
    assert "STREAM triad: 1 thread(s)" in out.stdout
    assert "md 2048 atoms x 20 steps" in out.stdout


def test_a_rescaled_problem_grows_its_work_with_atoms_times_steps(calibration_dir):
    serial = next(json.loads(p.read_text()) for p in (calibration_dir / "runs").glob("md-*.json"))
    base = calibrate.problem_from(serial)
    bigger = calibrate.problem_from(serial, size=16, steps=50)
    assert base.name == "md 2048 atoms x 20 steps" and bigger.name == "md 16384 atoms x 50 steps"
    assert bigger.work_seconds == pytest.approx(base.work_seconds * 8 * 2.5, rel=1e-12)
    assert bigger.parallel_loops == 15 * 50


def test_a_calibration_directory_without_profiles_is_refused(tmp_path):
    out = cli("model", "recommend", "--calibration", tmp_path)
    assert out.returncode != 0 and "holds no profiles" in out.stderr
