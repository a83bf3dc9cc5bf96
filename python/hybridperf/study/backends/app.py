"""The runs of the user's program (kernel: app; I/O), locally or as Slurm jobs: launched, its output kept whole
beside the study's profiles (`outputs/<run>.out`), its figures and timing table read, the MPI library's counts
taken in, and its profile written atomically. With `trace: true` the MPI library writes the run's traces into its
own directory, `runs/<run>/trace/` beside the profiles, and the profile's `trace` names that folder relative to the
results directory (docs/apps.md#traces). A run that fails to start, crashes, times out, ignores its thread
count or does not print a required figure is returned without a profile and with the reason, so the study
stores it as failed and goes on."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
import socket
import time
from pathlib import Path

from hybridperf import profile as profiles
from hybridperf.app import launch as app_launch
from hybridperf.app.launch import AppLaunch
from hybridperf.app.profile import FigureMissing, build, check_failure, ignored_threads
from hybridperf.files import write_atomic
from hybridperf.launch import runner
from hybridperf.launch.busy import BusyThreads
from hybridperf.launch.lines import Configuration, Launch
from hybridperf.launch.runner import RunOutcome
from hybridperf.study.expand import RunPlan
from hybridperf.study.spec import Study


def output_path(profile_path: Path) -> Path:
    """Where the run's output is kept: beside the profiles, in outputs/."""
    return profile_path.parent.parent / "outputs" / f"{profile_path.stem}.out"


def counts_path(profile_path: Path) -> Path:
    """Where the counting library writes the run's MPI counts (read, then removed)."""
    return profile_path.with_suffix(".mpi.json")


def run_directory(profile_path: Path) -> Path:
    """The run's own directory, `runs/<run key>/` beside the profiles: what only this run writes (its traces)."""
    return profile_path.parent.parent / "runs" / profile_path.stem


def trace_path(profile_path: Path) -> Path:
    """Where the MPI library writes the run's traces (trace: true): `runs/<run key>/trace/`."""
    return run_directory(profile_path) / "trace"


def prepare(study: Study, plan: RunPlan, config: Configuration, profile_path: Path,
            slurm: bool = False) -> AppLaunch:
    """The run's launch (an srun step when `slurm`), with what the program was found linked with."""
    return app_launch.launch_of(study.app_spec, config, plan.params, counts_path(profile_path),
                                srun_mpi=study.slurm.get("mpi") if slurm else None, under_slurm=slurm,
                                trace=trace_path(profile_path))


def clear(study: Study, plan: RunPlan, profile_path: Path) -> None:
    """Before a run: no counts, output, log or trace files of an earlier one, to be mistaken for its own; the run's
    directory made for its traces."""
    output_path(profile_path).parent.mkdir(parents=True, exist_ok=True)
    output_path(profile_path).unlink(missing_ok=True)
    counts_path(profile_path).unlink(missing_ok=True)
    shutil.rmtree(trace_path(profile_path), ignore_errors=True)
    if study.app_spec.trace:
        run_directory(profile_path).mkdir(parents=True, exist_ok=True)
    for log in _logs(study, plan):
        log.unlink(missing_ok=True)


def run(study: Study, plan: RunPlan, config: Configuration, profile_path: Path) -> tuple[Launch, RunOutcome]:
    """One run on this machine."""
    how = prepare(study, plan, config, profile_path)
    clear(study, plan, profile_path)
    started = time.time()
    watch = BusyThreads() if study.app_spec.launch == "self" else None  # no counting library to read them back
    outcome = runner.execute(how.launch, profile_path, timeout=study.timeout, output=output_path(profile_path),
                             watch=watch)
    return how.launch, finish(study, plan, how, outcome, profile_path, started, busy_threads=watch and watch.count)


def finish(study: Study, plan: RunPlan, how: AppLaunch, outcome: RunOutcome, profile_path: Path, started: float,
           host: str | None = None, busy_threads: int | None = None) -> RunOutcome:
    """What an ended run left (its output already in output_path), made into its profile; `host`: where it ran
    (default: here); `busy_threads`: a self-launched program's threads seen working, all processes together."""
    app = study.app_spec
    counts, output = counts_path(profile_path), output_path(profile_path)
    mpi = json.loads(counts.read_text()) if counts.exists() else None
    counts.unlink(missing_ok=True)
    keep(output, outcome.stderr, _logs(study, plan))
    outcome = replace(outcome, output=output)
    if outcome.timed_out or outcome.returncode != 0:
        return outcome
    if app.profile_mpi and mpi is None:
        return _failed(outcome, "the MPI counting library wrote no counts (did the program call MPI_Finalize?)")
    if app.trace and mpi is not None:
        if "trace" not in mpi:
            return _failed(outcome, f"the MPI library wrote no trace into {trace_path(profile_path)}")
        # relative to the results directory (simulate.app_replay reads it so), which can move whole
        mpi["trace"]["dir"] = str(trace_path(profile_path).relative_to(profile_path.parent.parent))
    if mpi is not None:
        ignored = ignored_threads((mpi.get("threads") or {}).get("busy"), plan.threads, "at MPI_Finalize")
    else:
        seen = None if busy_threads is None else {"min": busy_threads, "max": busy_threads}
        ignored = ignored_threads(seen, plan.threads, "from /proc while it ran, all its processes together")
    if ignored:
        return _failed(outcome, ignored)
    try:
        text = output.read_text(errors="replace")
        made = build(app, text=text, source=str(output), program=how.program,
                     command=how.launch.command, start_time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
                     host=host or socket.gethostname(), ranks=plan.ranks, threads=plan.threads,
                     ranks_per_node=plan.ranks_per_node, nodes=plan.nodes, environment=how.launch.env,
                     params=plan.params, mpi=mpi, mpi_library=how.mpi, openmp_runtime=how.openmp_runtime,
                     busy_threads=busy_threads)
    except FigureMissing as err:
        return _failed(outcome, str(err))
    profiles.validate(made)
    write_atomic(profile_path, json.dumps(made, indent=1))
    why = check_failure(app, made, text, str(output)) if made["status"] == "check-failed" else None
    return replace(outcome, profile_path=profile_path, profile=made, reason=why)


def _logs(study: Study, plan: RunPlan) -> list[Path]:
    return [Path(name) for name in app_launch.logs_of(study.app_spec, plan, plan.params)]


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
    return replace(outcome, profile_path=None, profile=None, stderr=f"{reason}\n{outcome.stderr}", timed_out=False,
                   reason=reason)
