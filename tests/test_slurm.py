"""The slurm backend for real, on the one-node cluster of scripts/slurm-local.sh (started here and
stopped at the end): the same study run through Slurm and locally must give the same structure."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import slurm_cluster
from test_pmpi_trace import actions, messages
from test_study import TINY
from hybridperf.study import spec
from hybridperf.study.expand import expand
from hybridperf.study.backends.slurm import SlurmBackend

pytestmark = pytest.mark.external

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]
REPO = Path(__file__).resolve().parents[1]
# test_study's tiny study, once, through srun's PMIx
SPEC = TINY.replace("study: tiny", "study: both").replace("repeats: 2", "repeats: 1") + "slurm: {{mpi: pmix}}\n"


@pytest.fixture(scope="module")
def cluster():
    if not slurm_cluster.available():
        pytest.skip("Slurm is not installed (scripts/slurm-local.sh install; `make test` does it)")
    with slurm_cluster.in_use():  # a docs block or another worker would stop it under our jobs
        env = slurm_cluster.start()
        yield {**os.environ, **env}
        slurm_cluster.stop()


def stored(results):
    db = sqlite3.connect(results / "results.db")
    db.row_factory = sqlite3.Row
    try:
        return {r["run_key"]: dict(r) for r in db.execute("SELECT * FROM runs WHERE warmup = 0")}
    finally:
        db.close()


def test_slurm_study_has_the_structure_of_the_local_one(cluster, tmp_path, md_binary):
    runs = {}
    for backend in ("local", "slurm"):
        path = tmp_path / f"{backend}.yaml"
        results = tmp_path / backend
        path.write_text(SPEC.format(results=results))
        out = subprocess.run([*HYBRIDPERF, "study", str(path), "--backend", backend, "--no-report"], env=cluster,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        runs[backend] = stored(results)
    local, slurm = runs["local"], runs["slurm"]
    assert set(local) == set(slurm) and len(slurm) == 3
    for key, run in slurm.items():
        assert run["status"] == "ok", run["stderr"]
        assert run["launch"].startswith("sbatch ") and run["backend"] == "slurm"
        for column in ("nodes", "ranks", "ranks_per_node", "threads", "mode"):
            assert run[column] == local[key][column]
        ours = json.loads((tmp_path / "slurm" / run["profile_path"]).read_text())
        theirs = json.loads((tmp_path / "local" / local[key]["profile_path"]).read_text())
        assert ours.keys() == theirs.keys() and ours["regions"].keys() == theirs["regions"].keys()
        assert (ours["run"]["ranks"], ours["run"]["threads_per_rank"]) == (run["ranks"], run["threads"])
        assert "SLURM_JOB_ID" in ours["run"]["environment"]
        assert ours["md"]["thermo"][0] == theirs["md"]["thermo"][0]  # the same initial state
        cpus = [t["allowed"] for rank in ours["run"]["affinity"] for t in rank["threads"]]
        assert len(cpus) == run["cores"] and len({tuple(c) for c in cpus}) == run["cores"]  # one core each


def test_batch_scripts_request_the_shape_and_give_srun_its_cpus(tmp_path):
    """Pure: the script of each run (no cluster needed)."""
    study = spec.parse(SPEC.format(results=tmp_path) + "oversubscribe: true\n", "s.yaml", cores_per_node=2)
    backend = SlurmBackend(spec.Study(**{**study.__dict__, "configurations": ("hybrid-1", "2x2"), "cores": (4,)}),
                           tmp_path)
    plans = {(p.ranks_per_node, p.threads): p for p in expand(backend.study)}
    hybrid = backend.script_text(plans[(1, 2)], backend.launch(plans[(1, 2)]))
    assert "#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=2\n" in hybrid
    assert "srun --mpi=pmix --nodes=2 --ntasks=2 --ntasks-per-node=1 --cpus-per-task=2 --cpu-bind=cores" in hybrid
    assert "export OMP_NUM_THREADS=2" in hybrid and "--profile" in hybrid
    over = backend.script_text(plans[(2, 2)], backend.launch(plans[(2, 2)]))
    assert "#SBATCH --exclusive" in over and "--ntasks-per-node" not in over.split("srun")[0]
    assert "--overcommit --cpu-bind=none" in over


APP_SPEC = """study: app
kernel: app
app:
{app}
params: {{cells: 1, steps: 40}}
configurations: [{configurations}]
cores: [2]
repeats: 1
backend: slurm
slurm: {{mpi: pmix}}
results: {results}
"""


@pytest.mark.skipif(shutil.which("lmp") is None, reason="LAMMPS (lmp) not installed: apt-get install lammps")
def test_an_app_study_runs_through_slurm_counted_and_read_as_locally(cluster, tmp_path):
    """kernel: app through Slurm: LAMMPS as an srun step with the counting library preloaded, tracing, its output
    (the job's) kept and read into figures, regions and MPI classes, its traces where a local run's go; a program
    that starts its own ranks is one task holding all the configuration's CPUs."""
    results = tmp_path / "res"
    lammps = (f"  command: [lmp, -in, {REPO / 'studies' / 'inputs' / 'lj-melt.lmp'}, -var, cells, '{{cells}}', "
              "-var, steps, '{steps}', -log, none]\n  parser: lammps\n  trace: true")
    path = tmp_path / "lj.yaml"
    path.write_text(APP_SPEC.format(app=lammps, configurations="pure-mpi", results=results))
    out = subprocess.run([*HYBRIDPERF, "study", str(path), "--no-report"], env=cluster, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    (run,) = stored(results).values()
    assert run["status"] == "ok" and run["backend"] == "slurm", run["stderr"]
    script = (results / "slurm" / f"{run['run_key']}.sbatch").read_text()
    assert "srun --mpi=pmix" in script and "export LD_PRELOAD=" in script and "export HYBRIDPERF_MPI_TRACE=" in script
    profile = json.loads((results / run["profile_path"]).read_text())
    assert profile["comm"]["p2p"]["messages"] > 0 and {"pair", "comm"} <= set(profile["regions"])
    traces = results / profile["trace"]["dir"]
    sent = [messages(actions(traces, r)) for r in (0, 1)]  # every message traced, byte for byte
    assert not profile["trace"]["truncated"] and profile["trace"]["untraced_calls"] == 0
    assert (sum(c for c, _ in sent), sum(b for _, b in sent)) == (profile["comm"]["p2p"]["messages"],
                                                                  profile["comm"]["p2p"]["bytes"])
    output = (results / "outputs" / f"{run['run_key']}.out").read_text()
    assert f"Loop time of {run['loop_time']:g} on 2 procs for 40 steps" in output

    self_results = tmp_path / "self"
    shell = ("  command: [sh, -c, 'echo cpus=$(nproc) threads=$OMP_NUM_THREADS; echo took 0.5 s']\n  launch: self\n"
             "  figures:\n    loop_time: {regex: 'took (?P<value>\\S+) s', unit: s}")
    path.write_text(APP_SPEC.format(app=shell, configurations="hybrid-1", results=self_results))
    out = subprocess.run([*HYBRIDPERF, "study", str(path), "--no-report"], env=cluster, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    (run,) = stored(self_results).values()
    assert (run["status"], run["loop_time"]) == ("ok", 0.5), run["stderr"]
    script = (self_results / "slurm" / f"{run['run_key']}.sbatch").read_text()
    assert "#SBATCH --ntasks-per-node=1\n#SBATCH --cpus-per-task=2\n" in script and "taskset" not in script
    assert "cpus=2 threads=2" in (self_results / "outputs" / f"{run['run_key']}.out").read_text()
