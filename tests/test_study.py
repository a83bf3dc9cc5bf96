"""Studies for real: run, resume after Ctrl-C, record failures, report the right numbers, export CSV."""

import csv
import json
import signal
import sqlite3
import statistics
import subprocess
import sys
import time

import pytest

from hybridperf.store.db import RunRecord, Store
from hybridperf.study import spec as specs
from hybridperf.study.run import run_study, Silent

pytestmark = pytest.mark.kernel

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]

TINY = """study: tiny
kernel: md
params: {{size: 6, steps: 20}}
configurations: [pure-mpi, hybrid-1]
cores: [1, 2]
repeats: 2
results: {results}
"""


def study(spec_path, *extra, timeout=600):
    return subprocess.run([*HYBRIDPERF, "study", str(spec_path), *map(str, extra)], capture_output=True, text=True,
                          timeout=timeout)


def rows(results, query="SELECT * FROM runs"):
    db = sqlite3.connect(results / "results.db")
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute(query)]
    finally:
        db.close()


@pytest.fixture
def tiny(tmp_path, md_binary):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(TINY.format(results=tmp_path / "res"))
    return spec, tmp_path / "res"


def test_study_stores_every_run_and_reports_their_numbers(tiny):
    spec, results = tiny
    out = study(spec)
    assert out.returncode == 0, out.stderr
    everything = rows(results)
    stored = [r for r in everything if not r["warmup"]]
    # repeats: 2 is two blocks per race; a race of two candidates (2 cores) begins with an uncounted warm-up run
    assert len(stored) == 6 and len(everything) == 7 and {r["status"] for r in everything} == {"ok"}
    assert [r["cores"] for r in everything if r["warmup"]] == [2]
    assert sorted((r["cores"], r["repeat"], r["position"]) for r in stored) == [
        (1, 0, 0), (1, 1, 0), (2, 0, 0), (2, 0, 1), (2, 1, 0), (2, 1, 1)]
    assert {(r["ranks"], r["threads"], r["mode"]) for r in stored} == {(1, 1, "pure-mpi"), (2, 1, "pure-mpi"),
                                                                       (1, 2, "pure-openmp")}
    profiles = {r["id"]: json.loads((results / r["profile_path"]).read_text()) for r in everything}
    assert all(p["schema"] == "hybridperf.profile/1" for p in profiles.values())
    # the store keeps each profile once, as its file, and the numbers queries need beside the run
    force = rows(results, "SELECT run_id, value FROM metrics WHERE name = 'region.force.avg'")
    assert {m["run_id"]: m["value"] for m in force} == {i: p["regions"]["force"]["time"]["avg"]
                                                          for i, p in profiles.items()}
    assert [r for r in stored if r["ranks"] == 1 and r["threads"] == 1][0]["configurations"] == "pure-mpi,hybrid-1"

    html = (results / "report.html").read_text()
    assert html.count("data:image/png;base64,") >= 8
    for shape in ((1, 1), (2, 1), (1, 2)):
        times = [r["loop_time"] for r in stored if (r["ranks"], r["threads"]) == shape]
        assert f"<td>{statistics.fmean(times):.4g}</td>" in html  # the mean
        assert f"<td>{min(times):.4g}</td>" in html  # the minimum
    assert "Verdict" in html and "Threading overhead" in html and "Table 4.5" in html
    assert "<h3>Models</h3>" in html and "overall (6.10), in-sample" in html and "Outlook" in html
    assert "loop time" in out.stdout and "verdict" in out.stdout
    points = html[html.index("Total time [s] per point"):html.index("Verdict")]
    assert "<td>pure-mpi = hybrid-1</td><td>1</td>" in points and "<td>pure-mpi</td><td>1</td>" not in points


def test_a_study_run_again_is_a_new_campaign_and_the_report_reads_the_latest(tiny):
    spec, results = tiny
    assert study(spec, "--no-report").returncode == 0
    first = rows(results)
    again = study(spec, "--no-report")
    assert again.returncode == 0 and "campaign 2" in again.stdout and "(campaign 1 is kept" in again.stdout
    both = rows(results)
    assert len(both) == 2 * len(first) and {r["run_key"] for r in first} < {r["run_key"] for r in both}
    assert [r["campaign"] for r in rows(results, "SELECT * FROM campaigns")] == [1, 2]
    for number in (None, 1):
        extra = ["--campaign", str(number)] if number else []
        out = subprocess.run([*HYBRIDPERF, "report", str(results), "--json", *extra], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        answer = json.loads(out.stdout)
        assert answer["campaign"]["number"] == (number or 2) and answer["campaign"]["ended"] == "decided"
        [scales] = [s["scales"] for s in answer["sections"]]
        assert [(s["cores"], s["outcome"], s["blocks"]) for s in scales][0] == (1, "only", 2)
        assert scales[1]["outcome"] in ("wins", "tie", "undecided") and scales[1]["blocks"] == 2
    missing = subprocess.run([*HYBRIDPERF, "report", str(results), "--campaign", "7"], capture_output=True, text=True)
    assert missing.returncode == 2 and "has no campaign 7 (it has 1, 2)" in missing.stderr
    assert missing.stderr.count("hybridperf: error:") == 1  # one line, not the exit code again

    # an interrupted campaign is resumed only under its own spec: after an edit the next one starts anew, and says so
    db = sqlite3.connect(results / "results.db")
    with db:
        db.execute("UPDATE campaigns SET ended = 'interrupted', finished = NULL WHERE campaign = 2")
    db.close()
    spec.write_text(spec.read_text().replace("steps: 20", "steps: 21"))
    edited = study(spec, "--no-report")
    assert edited.returncode == 0 and "campaign 3" in edited.stdout
    assert "campaigns 1–2 are kept: report --campaign N; campaign 2 was interrupted under another spec" in edited.stdout


RACE = """study: race
kernel: md
params: {{size: 6}}
configurations:
  - pure-mpi: {{steps: 40, seed: 1}}
  - 2x1: {{steps: {other}, seed: 2}}
cores: [2]
decide: {{tie_within: 95%, max_blocks: 20, interval: sign}}
results: {results}
"""


def test_a_race_stops_when_it_is_decided(tmp_path, md_binary):
    """Two candidates of one shape, one with ten times the steps: it loses before the blocks run out, and the
    JSON says so. A lead of ten times holds however loaded the machine (make test runs three workers on two
    cores); a tie of real runs does not — one run slowed several times over once left one undecided — so the
    tie's stopping is the next test's, on scripted times."""
    spec = tmp_path / "race.yaml"
    results = tmp_path / "res"
    spec.write_text(RACE.format(other=400, results=results))
    out = study(spec, "--no-report")
    assert out.returncode == 0, out.stderr
    verdict = json.loads(subprocess.run([*HYBRIDPERF, "report", str(results), "--json"], capture_output=True,
                                        text=True).stdout)["sections"][0]["scales"][0]
    assert verdict["outcome"] == "wins" and 4 <= verdict["blocks"] < 20
    assert verdict["winner"] == "pure-mpi" and verdict["lead"]["candidate"] == "2x1" and verdict["lead"]["low"] > 5
    _each_block_runs_both(rows(results), verdict["blocks"])


def _each_block_runs_both(runs: list[dict], blocks: int) -> None:
    counted = [r for r in runs if not r["warmup"]]
    assert len(counted) == 2 * blocks
    orders = {}
    for r in counted:
        orders.setdefault(r["repeat"], []).append((r["position"], r["configurations"]))
    assert all(sorted(p for p, _ in o) == [0, 1] for o in orders.values())  # each block runs both, in some order


class Scripted:
    """A backend whose runs take scripted times: pure MPI 1 s, 2x1 1 s ± 1% by block (a lead the ±95% band of
    RACE holds whatever the machine's load)."""

    name, exact = "local", False

    def launch_line(self, plan):
        return "scripted"

    def run(self, plans, done):
        for p in plans:
            seconds = 1.0 if p.configurations == ("pure-mpi",) else 1.0 + 0.01 * (-1) ** p.repeat
            done(RunRecord(p.key, p.study, p.kernel, p.params, p.configurations, p.nodes, p.ranks, p.ranks_per_node,
                           p.threads, p.mode.name, False, p.repeat, "ok", 0, seconds, "2026-12-05T00:00:00", 0.0,
                           self.name, "scripted", [], None, None, None, p.campaign, p.position, p.warmup))


def test_a_tie_stops_the_race_before_its_blocks_run_out(tmp_path):
    results = tmp_path / "res"
    study_spec = specs.parse(RACE.format(other=40, results=results), cores_per_node=2)
    with Store(results) as store:
        outcome = run_study(study_spec, store, Scripted(), Silent(), "race.yaml")
        runs = store.runs("race", warmups=True)
    [race] = outcome.races.values()
    assert race.outcome == "tie" and sorted(race.tied) == ["2x1", "pure-mpi"] and 4 <= race.blocks < 20
    _each_block_runs_both(runs, race.blocks)


def stored_so_far(results) -> int:
    """Runs stored by a study still running: none before its store exists and has its tables (the file appears
    a moment before the schema does)."""
    try:
        return len(rows(results)) if (results / "results.db").exists() else 0
    except sqlite3.OperationalError:
        return 0


def survivors(pattern: str, grace: float = 5.0) -> str:
    """The processes whose command line holds `pattern` still alive after `grace` seconds: an interrupted run's
    ranks get the launcher's signal when the study exits, and on a loaded machine take a moment to end (once seen
    beside the suite's other worker)."""
    deadline = time.time() + grace
    while True:
        alive = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout
        if not alive or time.time() > deadline:
            return alive
        time.sleep(0.2)


def test_interrupted_study_resumes_where_it_stopped(tmp_path, md_binary):
    spec = tmp_path / "long.yaml"
    results = tmp_path / "res"
    spec.write_text(TINY.format(results=results).replace("size: 6, steps: 20", "size: 10, steps: 200")
                    .replace("repeats: 2", "repeats: 3"))
    # a shell that runs the tests in the background hands them SIGINT ignored, and Python keeps it so: give the
    # study the default disposition, as a terminal would
    proc = subprocess.Popen([*HYBRIDPERF, "study", str(spec), "--no-report"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    while time.time() < deadline and stored_so_far(results) < 2:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "run the same command to resume" in stderr
    stored = rows(results)
    assert 2 <= len(stored) < 10
    assert all(r["status"] == "ok" and (results / r["profile_path"]).is_file() for r in stored)  # whole runs
    assert not survivors(str(results))  # no rank of the interrupted run is still alive

    again = study(spec, "--no-report")
    assert again.returncode == 0, again.stderr
    assert f"resuming tiny campaign 1: {len(stored)} runs already stored" in again.stdout
    final = rows(results)
    assert len(final) == 10 and len({r["run_key"] for r in final}) == 10  # 3 blocks of 3 runs, 1 warm-up
    assert {r["campaign"] for r in final} == {1}
    assert {r["run_key"] for r in stored} <= {r["run_key"] for r in final}


def one_core(directory, name: str, kernel: str, params: str, results, configurations: str = " [pure-mpi]"):
    """A one-block spec of `kernel` at one core, written to DIRECTORY/NAME.yaml."""
    path = directory / f"{name}.yaml"
    path.write_text(f"study: {name}\nkernel: {kernel}\nparams: {params}\nconfigurations:{configurations}\n"
                    f"cores: [1]\nrepeats: 1\nresults: {results}\n")
    return path


def test_failures_are_recorded_and_the_study_goes_on(tmp_path, md_binary):
    results = tmp_path / "res"
    spec = tmp_path / "bad.yaml"
    spec.write_text(f"""study: bad
kernel: md
params: {{size: 6, steps: 50, drift-tol: [1.0e-12, 0.5]}}
configurations: [pure-mpi]
cores: [1]
repeats: 1
results: {results}
""")
    out = study(spec, "--no-report")
    assert out.returncode == 0, out.stderr
    status = {json.loads(r["params"])["drift-tol"]: r for r in rows(results)}
    assert status[1e-12]["status"] == "check-failed" and status[1e-12]["profile_path"]
    assert status[0.5]["status"] == "ok"  # the study went on after the failed check

    refused = study(one_core(tmp_path, "missing", "md", "{read-data: /nonexistent/x.data}", results), "--no-report")  # the kernel's own check refuses it before anything runs
    assert refused.returncode == 2 and "cannot read data file /nonexistent/x.data" in refused.stderr
    assert rows(results, "SELECT * FROM runs WHERE study = 'missing'") == []

    # spmv's decomposition depends on the threads: asked point by point (its --plan), its refusal is the spec's error
    grid = one_core(tmp_path, "grid", "spmv", "{n: 4}", results, "\n  - hybrid-1: {mode: hybrid}")
    refused = study(grid, "--no-report")
    assert refused.returncode == 2 and "grid.yaml:5: hybrid-1 at 1 core with n=4: hybridperf-spmv refuses it: --mode " \
        "hybrid needs more than one thread per rank" in refused.stderr

    # mixbench is asked which rank counts its benchmarks need (its --check-decomposition), before anything runs
    refused = study(one_core(tmp_path, "pingpong", "mixbench", "{bench: pingpong}", results), "--no-report")
    assert refused.returncode == 2 and "pure-mpi at 1 core with bench=pingpong: --bench pingpong needs at least 2 " \
        "ranks, got 1" in refused.stderr

    # a refusal only the run itself finds (STREAM allocates its arrays when it starts) is a failed run, stored with
    # the kernel's own line as its reason (not the launcher's MPI_ABORT box), its output kept
    out = study(one_core(tmp_path, "huge", "stream", "{size: 100000000}", results), "--no-report")
    assert out.returncode == 0
    [failed] = rows(results, "SELECT * FROM runs WHERE study = 'huge' AND warmup = 0")
    assert failed["status"] == "failed" and failed["profile_path"] is None and failed["exit_code"] == 1
    assert failed["reason"] == "hybridperf-stream: error: cannot allocate 3 x 100000000000000 doubles"
    assert (results / failed["output"]).is_file() and failed["reason"] in " ".join(out.stdout.split())

    slow = tmp_path / "slow.yaml"
    slow.write_text(f"study: slow\nkernel: md\nparams: {{size: 20, steps: 100000}}\nconfigurations: [pure-mpi]\n"
                    f"cores: [1]\nrepeats: 1\ntimeout: 2\nresults: {results}\n")
    out = study(slow, "--no-report")
    assert out.returncode == 0
    timed_out = rows(results, "SELECT * FROM runs WHERE study = 'slow' AND warmup = 0")
    assert [r["status"] for r in timed_out] == ["timeout"]

    report = subprocess.run([*HYBRIDPERF, "report", str(results), "--study", "bad"], capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    assert "Failures" in (results / "report.html").read_text()


def test_export_csv_is_a_flat_table(tiny_study, tmp_path):
    results = tiny_study
    target = tmp_path / "runs.csv"
    out = subprocess.run([*HYBRIDPERF, "results", "export", str(results), "--csv", str(target)], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    table = list(csv.DictReader(target.open()))
    assert len(table) == 18
    for column in ("configurations", "ranks", "threads", "mode", "param.size", "fom.loop_time", "region.force.avg",
                   "comm.p2p.bytes", "check.energy_drift"):
        assert column in table[0]


def test_a_schema_1_store_is_migrated_to_profile_files(tiny_study):
    """Stores written before profiles were kept as files held them inside the database: opened, each profile
    is written out, the column dropped, and the report reads the same runs."""
    results = tiny_study
    back_to_schema_2(results)
    db = sqlite3.connect(results / "results.db")
    with db:
        db.execute("ALTER TABLE runs ADD COLUMN profile TEXT")
        for run_id, path in db.execute("SELECT id, profile_path FROM runs").fetchall():
            db.execute("UPDATE runs SET profile = ? WHERE id = ?", ((results / path).read_text(), run_id))
            (results / path).unlink()
        db.execute("ALTER TABLE runs DROP COLUMN profile_path")
        db.execute("DROP TABLE metrics")
        db.execute("PRAGMA user_version=1")
    db.close()
    report = subprocess.run([*HYBRIDPERF, "report", str(results)], capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    migrated = rows(results)
    assert len(migrated) == 18 and all((results / r["profile_path"]).is_file() for r in migrated)
    assert "profile" not in migrated[0]
    assert len(rows(results, "SELECT * FROM metrics WHERE name = 'fom.loop_time'")) == 18


def back_to_schema_2(results) -> None:
    """A store as schema 2 wrote it: no campaigns, no block positions or warm-ups (nor schema 4's columns)."""
    db = sqlite3.connect(results / "results.db")
    with db:
        for column in ("reason", "output"):
            db.execute(f"ALTER TABLE runs DROP COLUMN {column}")
        db.execute("DROP TABLE campaigns")
        db.execute("DROP INDEX runs_by_study")
        for column in ("campaign", "position", "warmup"):
            db.execute(f"ALTER TABLE runs DROP COLUMN {column}")
        db.execute("CREATE INDEX runs_by_study ON runs(study, status)")
        db.execute("PRAGMA user_version=2")
    db.close()


def test_a_schema_2_store_becomes_campaign_1_of_its_study(tiny_study):
    results = tiny_study
    before = subprocess.run([*HYBRIDPERF, "report", str(results), "--json"], capture_output=True, text=True).stdout
    back_to_schema_2(results)
    after = subprocess.run([*HYBRIDPERF, "report", str(results), "--json"], capture_output=True, text=True)
    assert after.returncode == 0, after.stderr
    assert {r["campaign"] for r in rows(results)} == {1} and len(rows(results, "SELECT * FROM campaigns")) == 1
    assert json.loads(after.stdout)["sections"] == json.loads(before)["sections"]


def test_a_file_that_is_not_a_store_is_one_clear_error(tmp_path):
    (tmp_path / "results.db").write_text("not a database\n" * 100)
    out = subprocess.run([*HYBRIDPERF, "report", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"{tmp_path / 'results.db'} is not a hybridperf results database" in out.stderr.replace("\n", "")


def test_dry_run_prints_every_launch_line_and_runs_nothing(tiny):
    spec, results = tiny
    out = study(spec, "--dry-run")
    assert out.returncode == 0
    assert out.stdout.count("hybridperf-md") == 3  # each race's candidates, once
    assert "# size=6, steps=20 at 2 cores" in out.stdout and "2 race(s)" in out.stdout
    assert not results.exists()


def test_bad_spec_exits_2_naming_the_line(tmp_path):
    spec = tmp_path / "x.yaml"
    spec.write_text(TINY.format(results=tmp_path / "r").replace("repeats", "repetitions"))
    out = study(spec)
    assert out.returncode == 2
    assert f"{spec}:6: unknown key 'repetitions' (did you mean 'repeats'?)" in out.stderr.replace("\n", "")
    assert not (tmp_path / "r").exists()


def test_budget_on_the_command_line_replaces_the_specs(tmp_path, md_binary):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(TINY.format(results=tmp_path / "res"))
    dry = study(spec, "--dry-run", "--budget", "1m30s")
    assert dry.returncode == 0 and "2 block(s) each, verdicts at 90% confidence, budget 90 s of runs" in dry.stdout
    bad = study(spec, "--budget", "soon")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--budget must be a duration" in bad.stderr
