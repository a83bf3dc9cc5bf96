"""Where a study's runs execute: `local` (the launcher on this machine) or `slurm` (sbatch / srun).

A backend takes the list of planned runs and calls `done(record)` for each run as it finishes; it
builds launch lines only through hybridperf.launch.
"""

from __future__ import annotations

from pathlib import Path

from hybridperf.analysis import failure
from hybridperf.analysis.affinity import binding_warnings, placement_warnings
from hybridperf.launch import placement
from hybridperf.launch.lines import Configuration
from hybridperf.launch.machine import Machine
from hybridperf.launch.runner import RunOutcome
from hybridperf.profile import figure, simulated
from hybridperf.store.db import RunRecord, timestamp
from hybridperf.study.expand import expand, RunPlan
from hybridperf.study.spec import Study

STDERR_KEPT = 4000  # characters of stderr kept for a run that did not succeed
OUTPUT_READ = 20000  # characters read from the end of a failed run's kept output for its reason


def status_of(outcome: RunOutcome) -> str:
    if outcome.timed_out:
        return "timeout"
    if outcome.profile is None:
        return "failed"
    if outcome.profile["status"] == "check-failed":
        return "check-failed"
    return "ok" if outcome.returncode == 0 else "failed"


def reason_of(status: str, outcome: RunOutcome, timeout: float | None) -> str | None:
    """Why a run did not succeed, in one line (None: it did)."""
    if status == "ok":
        return None
    if status == "timeout":
        return f"stopped at the study's timeout ({timeout:g} s)" if timeout else "stopped at its time limit"
    if outcome.reason:
        return outcome.reason
    output = _tail(outcome.output) if outcome.output else ""
    found = failure.reason(outcome.stderr, output)
    if status == "check-failed":
        return found or "a correctness check failed (the profile's checks say which)"
    return found or f"exit status {outcome.returncode}, nothing said"


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as f:
            f.seek(max(0, path.stat().st_size - OUTPUT_READ))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def configuration(study: Study, plan: RunPlan, node: Machine | None = None) -> Configuration:
    """How a planned run is placed: its shape, the study's oversubscription and wait policy, and with a placement
    policy the cores of `node` (a node's topology) it chooses for each rank."""
    binding = None
    if plan.placement:
        if node is None:
            raise placement.PlacementError(f"{plan.placement} placement needs the node's topology")
        binding = placement.bind(node, plan.placement, plan.ranks_per_node, plan.threads)
    return Configuration(plan.nodes, plan.ranks_per_node, plan.threads, study.cores_per_node,
                         oversubscribe=study.oversubscribe or plan.placement == "oversubscribe",
                         wait_policy=study.wait_policy, binding=binding)


def placement_notes(study: Study, node: Machine | None) -> list[str]:
    """One line per shape whose compact and spread placements bind the same cores on this node (a 2-core virtual
    machine has one package and one shared cache: there, the two are the same run)."""
    if node is None or not {"compact", "spread"} <= study.placements:
        return []
    shapes = dict.fromkeys((p.ranks_per_node, p.threads) for p in expand(study) if p.placement == "spread")
    return [line for line in (placement.coincide(node, r, t) for r, t in shapes) if line]


def record(plan: RunPlan, study: Study, backend: str, launch: str, outcome: RunOutcome, started: float,
           config: Configuration | None = None) -> RunRecord:
    """The stored record of a run; `config` (how it was placed) adds a warning for each rank not bound to the cores
    its placement chose."""
    status = status_of(outcome)
    p = outcome.profile
    oversubscribed = plan.mode.oversubscribed or plan.placement == "oversubscribe"  # threads share cores on purpose
    # a replay's ranks were placed by the simulator: no thread of it ran on a core here
    checked = p and not oversubscribed and not simulated(p)
    warnings = placement_warnings(p["run"], study.cores_per_node) if checked else []
    if p and config is not None and config.binding is not None:
        warnings += binding_warnings(p["run"], config.binding.cpus())
    return RunRecord(
        run_key=plan.key, study=plan.study, kernel=plan.kernel, params=plan.params,
        configurations=plan.configurations, nodes=plan.nodes, ranks=plan.ranks, ranks_per_node=plan.ranks_per_node,
        threads=plan.threads, mode=plan.mode.name, oversubscribed=plan.mode.oversubscribed, repeat=plan.repeat,
        status=status, exit_code=outcome.returncode, loop_time=figure(p, "loop_time") if p else None,
        started=timestamp(started), elapsed=outcome.elapsed,
        backend=backend, launch=launch,
        warnings=warnings,
        stderr=None if status == "ok" else outcome.stderr[-STDERR_KEPT:], profile=p, profile_path=outcome.profile_path,
        campaign=plan.campaign, position=plan.position, warmup=plan.warmup,
        reason=reason_of(status, outcome, study.timeout), output=outcome.output,
        disturbance=outcome.disturbance.as_dict() if outcome.disturbance else None,
    )


def profile_path(results: Path, plan: RunPlan) -> Path:
    return results / "profiles" / f"{plan.key}.json"
