"""NAS BT-MZ as an application (docs/bt-mz.md): its summary read by the npb-mz parser from output kept from real
runs (tests/fixtures/bt-mz/: NPB 3.3.1-MZ built with gfortran 12 and Open MPI 4.1), an UNSUCCESSFUL verification a
failed run with its one-line reason, the study's one-line error without $HYBRIDPERF_NPB_MZ, and, where NPB-MZ is
built (HYBRIDPERF_NPB_MZ names its bin/), the class S study run end to end."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import runs
from hybridperf.app.parsers import PARSERS
from hybridperf.app.profile import build, check_failure
from hybridperf.study import spec

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]
REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "bt-mz"
STUDY = REPO / "studies" / "bt-mz.yaml"
NPB = os.environ.get("HYBRIDPERF_NPB_MZ")


def output(name: str) -> str:
    return (FIXTURES / f"{name}.out").read_text()


def profile_of(name: str, ranks: int, threads: int) -> dict:
    """The profile a run of `ranks` x `threads` whose output is the fixture `name` gets."""
    app = spec.parse(STUDY.read_text(), "bt-mz.yaml", cores_per_node=2).app_spec
    return build(app, text=output(name), source=f"{name}.out", program="bt-mz", command=["bt-mz"],
                 start_time="2026-11-26T09:00:00Z", host="here", ranks=ranks, threads=threads, ranks_per_node=ranks,
                 nodes=1, environment={}, params={"class": "S"}, mpi=None, mpi_library="openmpi",
                 openmp_runtime="libgomp")


@pytest.mark.parametrize("name, figures, facts", [
    ("S-2x1", (0.06, 6100.97, 3050.49), ("S", 2, 2, 60, 2, 2)),
    ("W-1x2", (1.50, 9551.25, 4775.63), ("W", 4, 4, 200, 1, 2)),
    ("S-2x1-unsuccessful", (0.04, 5293.66, 2646.83), ("S", 2, 2, 30, 2, 2)),
])
def test_the_summary_is_read_as_printed(name, figures, facts):
    parser, text = PARSERS["npb-mz"], output(name)
    assert tuple(rule.read(text) for rule in parser.figures) == figures
    assert [rule.name for rule in parser.figures] == ["loop_time", "mops_total", "mops_per_thread"]
    assert tuple(fact.read(text) for fact in parser.facts) == facts
    assert [fact.name for fact in parser.facts] == ["class", "zones_x", "zones_y", "iterations", "processes",
                                                    "threads"]
    assert parser.verdict is not None and parser.verdict.passes(text) == (name != "S-2x1-unsuccessful")


def test_a_verified_run_passes_every_check_and_keeps_what_it_reported():
    profile = profile_of("W-1x2", ranks=1, threads=2)
    assert profile["status"] == "ok"
    assert {name: (c["value"], c["expected"]) for name, c in profile["checks"].items()} == {
        "output_check": (1.0, 1.0), "verification": (1.0, 1.0), "reported_processes": (1, 1),
        "reported_threads": (2, 2)}
    assert profile["app"] == {"reported": {"class": "W", "zones_x": 4, "zones_y": 4, "iterations": 200,
                                           "processes": 1, "threads": 2}}
    assert [(f["name"], f["value"]) for f in profile["figures_of_merit"]] == [
        ("loop_time", 1.5), ("mops_total", 9551.25), ("mops_per_thread", 4775.63)]
    assert profile["regions"]["total"]["time"]["avg"] == 1.5 and "comm" not in profile


def test_an_unsuccessful_verification_fails_the_run_in_one_line():
    profile = profile_of("S-2x1-unsuccessful", ranks=2, threads=1)
    assert profile["status"] == "check-failed"
    assert [name for name, c in profile["checks"].items() if not c["pass"]] == ["verification"]
    app = spec.parse(STUDY.read_text(), "bt-mz.yaml", cores_per_node=2).app_spec
    assert check_failure(app, profile, output("S-2x1-unsuccessful"), "x.out") == \
        "the program's own verification failed: it printed 'Verification = UNSUCCESSFUL' (in x.out)"


def test_a_run_whose_shape_is_not_the_one_the_program_reports_fails():
    """The 2-process output read as a run of 1 rank x 2 threads: processes 2 against 1; threads 2 = 1 x 2."""
    profile = profile_of("S-2x1", ranks=1, threads=2)
    failed = {name: (c["value"], c["expected"]) for name, c in profile["checks"].items() if not c["pass"]}
    assert profile["status"] == "check-failed" and failed == {"reported_processes": (2, 1)}
    app = spec.parse(STUDY.read_text(), "bt-mz.yaml", cores_per_node=2).app_spec
    assert check_failure(app, profile, output("S-2x1"), "x.out") == \
        "check reported_processes failed: the program reports 2, the run's shape gives 1"


@pytest.mark.kernel
def test_the_study_stores_an_unsuccessful_verification_as_a_failed_run_with_its_reason(tmp_path):
    """Through a study (no NPB needed): a program that prints the UNSUCCESSFUL summary, on 2 ranks."""
    results = tmp_path / "res"
    path = tmp_path / "unsuccessful.yaml"
    path.write_text(f"study: unsuccessful\nkernel: app\napp:\n  command: [cat, {FIXTURES / 'S-2x1-unsuccessful.out'}]"
                    "\n  parser: npb-mz\n  profile_mpi: false\nconfigurations: [pure-mpi]\ncores: [2]\nrepeats: 1\n"
                    f"results: {results}\n")
    out = subprocess.run([*HYBRIDPERF, "study", str(path), "--no-report"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    (run,) = runs(results)
    assert (run["ranks"], run["status"], run["loop_time"]) == (2, "check-failed", 0.04)
    assert run["reason"] == ("the program's own verification failed: it printed 'Verification = UNSUCCESSFUL' "
                             f"(in {results / 'outputs' / run['run_key']}.out)")


@pytest.mark.kernel
@pytest.mark.parametrize("npb, message", [
    (None, "program not found: $HYBRIDPERF_NPB_MZ/bt-mz.S.1 needs $HYBRIDPERF_NPB_MZ, which is not set: set it to "
           "the folder that holds the program"),
    ("/no/npb/bin", "program not found: /no/npb/bin/bt-mz.S.1"),
])
def test_without_npb_the_study_stops_in_one_line_before_anything_runs(tmp_path, npb, message):
    env = {k: v for k, v in os.environ.items() if k != "HYBRIDPERF_NPB_MZ"} | ({"HYBRIDPERF_NPB_MZ": npb} if npb else {})
    out = subprocess.run([*HYBRIDPERF, "study", str(STUDY), "--results", str(tmp_path / "res")], capture_output=True,
                         text=True, env=env, timeout=60)
    assert (out.returncode, out.stderr) == (2, f"hybridperf: error: {message}\n")
    assert not (tmp_path / "res").exists()


@pytest.mark.kernel
def test_every_program_a_study_would_start_is_found_before_anything_runs(tmp_path):
    """A program per rank count, as NPB-MZ's: the 1-rank one exists, the 2-rank one does not."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "prog.1").write_text("#!/bin/sh\necho took 1 s\n")
    (tmp_path / "bin" / "prog.1").chmod(0o755)
    path = tmp_path / "s.yaml"
    path.write_text("study: s\nkernel: app\napp:\n  command: ['$PROGRAMS_HERE/prog.{ranks}']\n  profile_mpi: false\n"
                    "  figures:\n    loop_time: 'took (?P<value>\\S+) s'\nconfigurations: [pure-mpi]\ncores: [1, 2]\n"
                    f"repeats: 1\nresults: {tmp_path / 'res'}\n")
    out = subprocess.run([*HYBRIDPERF, "study", str(path)], capture_output=True, text=True, timeout=60,
                         env=os.environ | {"PROGRAMS_HERE": str(tmp_path / "bin")})
    assert (out.returncode, out.stderr) == (2, f"hybridperf: error: program not found: {tmp_path}/bin/prog.2\n")
    assert not (tmp_path / "res").exists()


@pytest.mark.skipif(not NPB or not all((Path(NPB) / f"bt-mz.S.{n}").is_file() for n in (1, 2)),
                    reason="NPB-MZ's bt-mz.S.1 and bt-mz.S.2 are not built: HYBRIDPERF_NPB_MZ names no bin/ that holds "
                           "them (docs/bt-mz.md says how to build them)")
def test_the_class_s_study_runs_end_to_end(tmp_path):
    """studies/bt-mz.yaml, one block: 1 x 1 at 1 core; 2 x 1 and 1 x 2 at 2. Every run verified, its reported
    shape its own, and BT-MZ's zone boundary exchange counted exactly: 61 exchanges (one in the untimed step before
    the 60), in each of which a rank of 2 sends its one neighbour one message (mpi_isend, mpi_irecv, mpi_waitall:
    3 calls); one rank sends none."""
    results = tmp_path / "res"
    path = tmp_path / "bt-mz.yaml"
    path.write_text(STUDY.read_text().replace("results: results/bt-mz", f"results: {results}") + "repeats: 1\n")
    out = subprocess.run([*HYBRIDPERF, "study", str(path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    stored = runs(results)
    assert [(r["ranks"], r["threads"], r["status"]) for r in stored] == [(1, 1, "ok"), (1, 2, "ok"), (2, 1, "ok")]
    for r in stored:
        profile = json.loads((results / r["profile_path"]).read_text())
        assert profile["app"]["reported"] == {"class": "S", "zones_x": 2, "zones_y": 2, "iterations": 60,
                                              "processes": r["ranks"], "threads": r["ranks"] * r["threads"]}
        assert all(check["pass"] for check in profile["checks"].values())
        p2p = profile["comm"]["p2p"]
        assert (p2p["messages"], p2p["calls"]) == ((61 * 2, 3 * 61 * 2) if r["ranks"] == 2 else (0, 0))
    assert (results / "report.html").exists()
