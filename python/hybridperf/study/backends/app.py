"""The local backend's runs of the user's program (kernel: app; I/O): launched, its output kept whole beside the study's profiles
(`outputs/<run>.out`), its figures and timing table read, the MPI library's counts taken in, and its profile
written atomically. A run that fails to start, crashes, times out or does not print a required figure is
returned without a profile and with the reason, so the study stores it as failed and goes on."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

from hybridperf import profile as profiles
from hybridperf.app import launch as app_launch
from hybridperf.app.profile import FigureMissing, build
from hybridperf.files import write_atomic
from hybridperf.launch import runner
from hybridperf.launch.lines import Configuration, Launch
from hybridperf.launch.runner import RunOutcome
from hybridperf.study.expand import RunPlan
from hybridperf.study.spec import Study


def output_path(profile_path: Path) -> Path:
    """Where the run's output is kept: beside the profiles, in outputs/."""
    return profile_path.parent.parent / "outputs" / f"{profile_path.stem}.out"


def prepare(study: Study, plan: RunPlan, config: Configuration, profile_path: Path) -> Launch:
    return app_launch.launch_of(study.app_spec, config, plan.params, profile_path.with_suffix(".mpi.json")).launch


def run(study: Study, plan: RunPlan, config: Configuration, profile_path: Path) -> tuple[Launch, RunOutcome]:
    app = study.app_spec
    counts = profile_path.with_suffix(".mpi.json")
    how = app_launch.launch_of(app, config, plan.params, counts)
    launch = how.launch
    output = output_path(profile_path)
    output.parent.mkdir(parents=True, exist_ok=True)
    counts.unlink(missing_ok=True)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    logs = [Path(name) for name in app_launch.logs_of(app, config, plan.params)]
    for log in logs:
        log.unlink(missing_ok=True)  # this run's, not an earlier one's
    outcome = runner.execute(launch, profile_path, timeout=study.timeout, output=output)
    mpi = json.loads(counts.read_text()) if counts.exists() else None
    counts.unlink(missing_ok=True)
    keep(output, outcome.stderr, logs)
    if outcome.timed_out or outcome.returncode != 0:
        return launch, outcome
    if app.profile_mpi and mpi is None:
        return launch, _failed(outcome, "the MPI counting library wrote no counts (did the program call "
                                        "MPI_Finalize?)")
    try:
        made = build(app, text=output.read_text(errors="replace"), source=str(output), program=how.program,
                     command=launch.command,
                     start_time=started, host=socket.gethostname(), ranks=plan.ranks, threads=plan.threads,
                     ranks_per_node=plan.ranks_per_node, nodes=plan.nodes, environment=launch.env,
                     params=plan.params, mpi=mpi, mpi_library=how.mpi, openmp_runtime=how.openmp_runtime)
    except FigureMissing as err:
        return launch, _failed(outcome, str(err))
    profiles.validate(made)
    write_atomic(profile_path, json.dumps(made, indent=1))
    return launch, RunOutcome(outcome.returncode, profile_path, made, outcome.stderr, False, outcome.elapsed)


def keep(output: Path, stderr: str, logs: list[Path]) -> None:
    """The run's standard error and the log files it wrote appended to its kept output (which the figures and
    regions are read from); the logs are moved there, so none is left behind or mistaken for the next run's."""
    with output.open("a") as out:
        for title, text in [("standard error", stderr)] + [(str(log), _take(log)) for log in logs]:
            if text:
                out.write(f"\n===== hybridperf: {title} =====\n{text}")


def _take(log: Path) -> str:
    if not log.is_file():
        return ""
    text = log.read_text(errors="replace")
    log.unlink()
    return text


def _failed(outcome: RunOutcome, reason: str) -> RunOutcome:
    return RunOutcome(outcome.returncode, None, None, f"{reason}\n{outcome.stderr}", False, outcome.elapsed)
