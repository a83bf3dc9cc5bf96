"""Launch lines are exactly what an expert would type, for each MPI flavour and Slurm; copies launched at once do
not share a session directory."""

from pathlib import Path

import pytest

from hybridperf.launch import runner
from hybridperf.launch.lines import build_launch, Configuration, Launch, LaunchError

PROGRAM = ["hybridperf-md", "-s", "20"]


def line(config, flavor, **kw):
    return build_launch(config, flavor, PROGRAM, **kw)


def test_open_mpi_hybrid_gives_each_rank_its_own_cores():
    launch = line(Configuration(1, 1, 2, cores_per_node=2), "openmpi", as_root=True)
    assert launch.command == [
        "mpirun", "--allow-run-as-root", "-np", "1", "--map-by", "ppr:1:node:PE=2", "--bind-to", "core",
        "-x", "OMP_NUM_THREADS", "-x", "OMP_PLACES", "-x", "OMP_PROC_BIND", *PROGRAM,
    ]
    assert launch.env == {"OMP_NUM_THREADS": "2", "OMP_PLACES": "cores", "OMP_PROC_BIND": "close"}
    assert launch.warnings == []


def test_open_mpi_as_user_has_no_root_flag_and_multinode_uses_the_hostfile():
    launch = line(Configuration(4, 2, 4, cores_per_node=8), "openmpi", hostfile="hosts")
    assert "--allow-run-as-root" not in launch.command
    assert launch.command[:5] == ["mpirun", "-np", "8", "--hostfile", "hosts"]
    assert "ppr:2:node:PE=4" in launch.command


def test_mpich_binds_each_rank_to_threads_cores():
    launch = line(Configuration(1, 2, 4, cores_per_node=8), "mpich", launcher="mpiexec.mpich")
    assert launch.command[:10] == ["mpiexec.mpich", "-n", "2", "-ppn", "2", "-bind-to", "core:4", "-map-by",
                                   "core:4", "-genv"]
    assert launch.command[-len(PROGRAM):] == PROGRAM
    assert ["-genv", "OMP_NUM_THREADS", "4"] == launch.command[9:12]


def test_slurm_gives_the_step_its_cpus_explicitly():
    launch = line(Configuration(8, 2, 4, cores_per_node=8), "slurm")
    assert launch.command[:7] == ["srun", "--nodes=8", "--ntasks=16", "--ntasks-per-node=2", "--cpus-per-task=4",
                                  "--cpu-bind=cores",
                                  "--export=ALL,OMP_NUM_THREADS=4,OMP_PLACES=cores,OMP_PROC_BIND=close"]


def test_oversubscription_is_refused_unless_allowed_then_unbound_with_a_warning():
    config = Configuration(1, 2, 2, cores_per_node=2)
    with pytest.raises(LaunchError, match="exceeds the 2 cores"):
        line(config, "openmpi")
    allowed = Configuration(1, 2, 2, cores_per_node=2, oversubscribe=True)
    launch = line(allowed, "openmpi")
    assert ["--oversubscribe", "--map-by", "ppr:2:node", "--bind-to", "none"] == launch.command[3:8]
    assert launch.env["OMP_PROC_BIND"] == "false" and launch.env["OMP_WAIT_POLICY"] == "passive"
    assert "OMP_PLACES" not in launch.env
    assert any("oversubscribed" in w for w in launch.warnings)
    assert "-bind-to" in line(allowed, "mpich").command and "none" in line(allowed, "mpich").command
    assert "--overcommit" in line(allowed, "slurm").command


def test_explicit_wait_policy_is_kept():
    launch = line(Configuration(1, 1, 2, cores_per_node=2, wait_policy="active"), "openmpi")
    assert launch.env["OMP_WAIT_POLICY"] == "active"


@pytest.mark.parametrize(
    "config,flavor,message",
    [
        (Configuration(0, 1, 1, 2), "openmpi", "nodes must be at least 1"),
        (Configuration(1, 1, 0, 2), "openmpi", "threads must be at least 1"),
        (Configuration(2, 1, 1, 2), "openmpi", "2 nodes need a hostfile"),
        (Configuration(1, 1, 1, 2), "pbs", "unknown launcher 'pbs'"),
    ],
)
def test_impossible_configurations_are_refused(config, flavor, message):
    with pytest.raises(LaunchError, match=message):
        line(config, flavor)


def test_shell_line_can_be_pasted():
    launch = line(Configuration(1, 1, 2, cores_per_node=2), "openmpi")
    assert launch.shell().startswith("OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=close mpirun -np 1")


def test_copies_run_each_with_a_tmpdir_of_its_own(monkeypatch, tmp_path):
    """Launchers started at one instant must not share a session directory (Open MPI 4 races to create it): each
    copy's environment has its own existing TMPDIR, and the launch's own variables stay."""
    seen = []

    def execute(launch, path, timeout=None, alone=True):
        assert not alone  # copies at once share the counters a disturbance is measured from
        seen.append((launch.env["TMPDIR"], Path(launch.env["TMPDIR"]).is_dir(), launch.env["OMP_NUM_THREADS"]))
        return runner.RunOutcome(0, None, None, "")

    monkeypatch.setattr(runner, "execute", execute)
    launches = [(Launch(["true"], {"OMP_NUM_THREADS": "1"}), tmp_path / f"copy{k}.json") for k in range(3)]
    runner.execute_copies(launches)
    assert len({tmpdir for tmpdir, _, _ in seen}) == 3 and all(exists for _, exists, _ in seen)
    assert {threads for _, _, threads in seen} == {"1"} and launches[0][0].env == {"OMP_NUM_THREADS": "1"}
