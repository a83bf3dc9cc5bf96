"""The slurm backend for real, on the one-node cluster of scripts/slurm-local.sh (started here and
stopped at the end): the same study run through Slurm and locally must give the same structure."""

import json
import os
import sqlite3
import subprocess
import sys

import pytest

import slurm_cluster
from hybridperf.study import spec
from hybridperf.study.expand import expand
from hybridperf.study.backends.slurm import SlurmBackend

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]
SPEC = """study: both
kernel: md
params: {{size: 6, steps: 20}}
configurations: [pure-mpi, hybrid-1]
cores: [1, 2]
repeats: 1
slurm: {{mpi: pmix}}
results: {results}
"""


@pytest.fixture(scope="module")
def cluster():
    if not slurm_cluster.available():
        pytest.skip("Slurm is not installed (scripts/slurm-local.sh install; `make test` does it)")
    env = slurm_cluster.start()
    yield {**os.environ, **env}
    slurm_cluster.stop()


def stored(results):
    db = sqlite3.connect(results / "results.db")
    db.row_factory = sqlite3.Row
    try:
        return {r["run_key"]: dict(r) for r in db.execute("SELECT * FROM runs")}
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
