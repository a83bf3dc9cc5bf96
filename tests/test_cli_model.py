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


def test_evaluate_leads_with_held_out_and_says_what_the_data_cannot_carry(tiny_study):
    """Two core counts: held out, too few points remain to fit; in-sample, the fit is exact (no error, no band) and
    the outlook stays at the measured core counts."""
    out = cli("model", "evaluate", tiny_study)
    assert out.returncode == 0, out.stderr
    text = out.stdout.replace("\n", " ")
    held, in_sample = text.index("overall (6.10), held out"), text.index("overall (6.10), in-sample")
    assert held < in_sample
    assert "held out: needs 2 pure-MPI points with a non-zero time to fit on, has 1" in text
    assert "exact: as many points as parameters, so no error and no band" in text
    # pure MPI at 1 core sends nothing, so one pure-MPI point with a communication time is too few to fit
    assert "total communication (6.6), in-sample" in text and "needs 2 pure-MPI points" in text
    assert "not extrapolated" in text and "(extrapolated)" not in text
    pmnf = cli("model", "pmnf", tiny_study, "--metric", "force")
    assert pmnf.returncode == 0 and "needs measurements at 3 or more parameter values, got 2" in pmnf.stdout
    assert cli("model", "pmnf", tiny_study, "--metric", "nosuch").returncode != 0


def test_evaluate_without_a_study_fails_cleanly(tmp_path):
    out = cli("model", "evaluate", tmp_path)
    assert out.returncode != 0 and "has no results.db" in out.stderr


def table_rows(text: str) -> dict[str, list[str]]:
    return {cells[0]: cells[1:] for cells in ([c.strip() for c in line.split("│")[1:-1]]
                                              for line in text.splitlines() if line.startswith("│")) if cells}


def test_recommend_on_merlin_from_the_thesis_inputs():
    """No knob is set: the work rate, threading losses and fork/join come from the thesis's tables, and pure MPI wins
    at every node count, the thesis's Infiniband finding; every input's distance to another answer is printed."""
    out = cli("model", "recommend", "--cluster", "merlin", "--nodes", "1,8,64")
    assert out.returncode == 0, out.stderr
    rows = table_rows(out.stdout)
    assert all(rows[n][4] == "8r×1t" for n in ("1", "8", "64"))
    assert "the winner changes" not in out.stdout
    assert "What would change the answer" in out.stdout
    for source in ("thesis Table 4.8", "thesis Tables 4.6/4.7", "2.5 GB/s; measured or published",
                   "4 GB/s; assumed", "1.92 us at 8 threads"):
        assert source in out.stdout.replace("\n", " ")


def test_recommend_with_a_given_thread_loss_says_so():
    """An override is possible and is named as such; a large enough loss-free assumption changes the answer."""
    out = cli("model", "recommend", "--cluster", "merlin", "--nodes", "1,64", "--thread-loss", "0")
    assert out.returncode == 0, out.stderr
    assert "given: --thread-loss 0" in out.stdout
    assert table_rows(out.stdout)["64"][4] != "8r×1t"  # threads that lose nothing win at 64 nodes


@pytest.mark.parametrize("args,message", [
    (["--cluster", "nosuch"], "unknown cluster 'nosuch'"),
    (["--nodes", "1,x"], "--nodes must be comma-separated integers"),
    (["--kernel", "clomp"], "--kernel must be md, spmv or app"),
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
                ["ompbench", "--threads", 2, "-c", "PARALLEL_FOR", "--ref-sd-tol", "1e6"],
                ["stream", "-s", 4], ["stream", "--threads", 2, "-s", 4],
                ["md", "-s", 8, "--steps", 20], ["md", "--ranks", 2, "-s", 8, "--steps", 20],
                ["md", "--threads", 2, "-s", 8, "--steps", 20]):
        out = cli("run", *run, "--results", d)
        assert out.returncode == 0, out.stderr
    return d


def test_recommend_on_this_machine_uses_the_calibration_and_the_serial_run(calibration_dir):
    out = cli("model", "recommend", "--calibration", calibration_dir)
    assert out.returncode == 0, out.stderr
    assert "mixbench ping-pong: alpha" in out.stdout and "ompbench PARALLEL FOR at 2 threads" in out.stdout
    assert "STREAM triad: 1 thread(s)" in out.stdout
    assert "md 2048 atoms x 20 steps" in out.stdout
    assert "measured: computation time of T ranks over T threads, 2 threads" in out.stdout.replace("\n", " ")
    assert "measured: the serial run's loop time" in out.stdout.replace("\n", " ")


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
