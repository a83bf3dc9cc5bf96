"""The slurm backend: one batch script per run, submitted with sbatch, followed until it ends.

A script asks for whole nodes shaped like the configuration (`--nodes`, `--ntasks-per-node`,
`--cpus-per-task`) and runs one `srun` step whose line comes from hybridperf.launch, with the CPUs per
task given to the step explicitly (srun does not inherit them from sbatch since Slurm 22.05). An
oversubscribed configuration cannot be requested as tasks x CPUs (Slurm rejects more CPUs per node
than exist, --overcommit or not), so its script asks for `--exclusive` nodes and the step
oversubscribes inside them. A run with a placement asks for `--exclusive` nodes too (its CPU numbers are a whole
node's), chosen from the topology of `slurm: {topology: FILE}` (a compute node's `lstopo --of xml`), or of this
machine when none is given. Jobs are followed with squeue, their end state and exit code read with
scontrol (sacct when the job has left the controller's memory); profiles are read from the shared
results directory. Ctrl-C cancels every job this invocation submitted.
"""

from __future__ import annotations

import math
import re
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple

from hybridperf import profile
from hybridperf.app.launch import AppLaunch
from hybridperf.files import write_atomic
from hybridperf.launch import runner
from hybridperf.launch.lines import Launch
from hybridperf.launch.machine import local_machine, Machine, parse_topology
from hybridperf.launch.runner import RunOutcome
from hybridperf.store.db import RunRecord
from hybridperf.study.backends import app as app_run, configuration, profile_path, record
from hybridperf.study.registry import Kind
from hybridperf.study.expand import RunPlan
from hybridperf.study.spec import Study

POLL_SECONDS = 1.0
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL",
         "DEADLINE"}


class SlurmError(RuntimeError):
    pass


def _slurm(*args: str) -> str:
    result = subprocess.run(list(args), capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SlurmError(f"{' '.join(args[:2])} failed: {(result.stderr or result.stdout).strip()}")
    return result.stdout


def node_cores() -> int:
    """CPUs per node as Slurm reports them (the smallest, when nodes differ)."""
    counts = [int(re.sub(r"\D", "", c)) for c in _slurm("sinfo", "-h", "-o", "%c").split() if re.sub(r"\D", "", c)]
    if not counts:
        raise SlurmError("sinfo reports no nodes: is the cluster up (and SLURM_CONF set)?")
    return min(counts)


def _topology(path: str | None) -> Machine:
    """A compute node's topology: the hwloc XML the spec names, else this machine's (the one-node test cluster)."""
    if not path:
        return local_machine()
    try:
        return parse_topology(Path(path).read_text())
    except (OSError, ValueError, SyntaxError, StopIteration) as err:  # ElementTree.ParseError is a SyntaxError
        raise SlurmError(f"slurm topology {path}: not an lstopo --of xml file ({err})") from None


def _walltime(seconds: float) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


def _seconds(runtime: str) -> float:
    """Slurm's [D-]HH:MM:SS."""
    days, _, clock = runtime.rpartition("-")
    parts = [int(p) for p in clock.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    return (int(days) if days else 0) * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]


class Accounted(NamedTuple):
    """A job as Slurm accounts for it (its fields as Slurm writes them; None where unknown)."""

    state: str | None
    code: str | None  # exit status:signal
    elapsed: str | None
    nodes: str | None
    start: str | None  # YYYY-MM-DDTHH:MM:SS, local time


def _started(start: str | None, otherwise: float) -> float:
    """The job's start as seconds since the epoch; `otherwise` (its submission) when Slurm does not say."""
    try:
        return time.mktime(time.strptime(start or "", "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return otherwise


@dataclass
class Job:
    plan: RunPlan
    launch: Launch
    script: Path
    submitted: float
    app: AppLaunch | None = None  # kernel: app, what its profile is made with when the job ends


class SlurmBackend:
    name = "slurm"
    exact = False

    def __init__(self, study: Study, results: Path, node: Machine | None = None):
        self.study, self.results = study, results
        self.scripts = results / "slurm"
        self.node = node or (_topology(study.slurm.get("topology")) if study.placements else None)

    def launch(self, plan: RunPlan) -> Launch:
        return self._prepared(plan)[0]

    def _prepared(self, plan: RunPlan) -> tuple[Launch, AppLaunch | None]:
        config = configuration(self.study, plan, self.node)
        path = profile_path(self.results, plan)
        if self.study.app is not None:
            how = app_run.prepare(self.study, plan, config, path, slurm=True)
            return how.launch, how
        return runner.prepare(plan.kernel, config, plan.kernel_args(), path, flavor="slurm",
                              srun_mpi=self.study.slurm.get("mpi")), None

    def _tasks(self, plan: RunPlan) -> tuple[int, int]:
        """Tasks per node and CPUs per task: the configuration's; for a program that starts its own ranks (app
        launch: self), one task holding all of them."""
        if self.study.app is not None and self.study.app_spec.launch == "self":
            return 1, plan.ranks_per_node * plan.threads
        return plan.ranks_per_node, plan.threads

    def script_text(self, plan: RunPlan, launch: Launch) -> str:
        s = self.study.slurm
        out = self.scripts / plan.key
        lines = ["#!/bin/bash", f"#SBATCH --job-name=hp-{plan.study}-{plan.key[:8]}", f"#SBATCH --nodes={plan.nodes}"]
        if plan.mode.oversubscribed or s.get("exclusive") or plan.placement:
            lines.append("#SBATCH --exclusive")
        if not plan.mode.oversubscribed:
            tasks, cpus = self._tasks(plan)
            lines += [f"#SBATCH --ntasks-per-node={tasks}", f"#SBATCH --cpus-per-task={cpus}"]
        lines += [f"#SBATCH --time={s.get('time') or _walltime(self.study.timeout)}",
                  f"#SBATCH --output={out}.out", f"#SBATCH --error={out}.err"]
        lines += [f"#SBATCH --{k}={s[k]}" for k in ("partition", "account") if s.get(k)]
        lines += [f"#SBATCH {extra}" for extra in s.get("extra", [])]
        lines += [f"# hybridperf study {plan.study}: {plan.label()} ({plan.mode.name})",
                  *[f"export {k}={shlex.quote(v)}" for k, v in launch.env.items()], shlex.join(launch.command)]
        return "\n".join(lines) + "\n"

    def write_script(self, plan: RunPlan) -> tuple[Path, Launch, AppLaunch | None]:
        launch, app = self._prepared(plan)
        self.scripts.mkdir(parents=True, exist_ok=True)
        profile_path(self.results, plan).parent.mkdir(parents=True, exist_ok=True)
        path = self.scripts / f"{plan.key}.sbatch"
        write_atomic(path, self.script_text(plan, launch))
        return path, launch, app

    def launch_line(self, plan: RunPlan) -> str:
        path, launch, _ = self.write_script(plan)
        return f"sbatch {path}   # {launch.command[0]} step: {' '.join(launch.command[1:8])} ..."

    def run(self, plans: list[RunPlan], done: Callable[[RunRecord], None]) -> None:
        """Every run submitted at once and followed to its end; an app that writes log files under fixed names
        (`logs`) one job at a time, since jobs running together would write the same files."""
        one_by_one = self.study.app is not None and bool(self.study.app_spec.logs)
        for batch in ([[plan] for plan in plans] if one_by_one else [plans]):
            self._run_batch(batch, done)

    def _run_batch(self, plans: list[RunPlan], done: Callable[[RunRecord], None]) -> None:
        jobs: dict[str, Job] = {}
        try:
            for plan in plans:
                path, launch, app = self.write_script(plan)
                profile_path(self.results, plan).unlink(missing_ok=True)
                if app:
                    app_run.clear(self.study, plan, profile_path(self.results, plan))
                job_id = _slurm("sbatch", "--parsable", str(path)).strip().split(";")[0]
                jobs[job_id] = Job(plan, launch, path, time.time(), app)
            while jobs:
                for job_id, state in self._states(list(jobs)).items():
                    if state in ENDED:
                        job = jobs.pop(job_id)
                        done(self._record(job_id, job, state))
                if jobs:
                    time.sleep(POLL_SECONDS)
        except BaseException:
            if jobs:
                subprocess.run(["scancel", *jobs], capture_output=True, check=False)
            raise

    def _states(self, ids: list[str]) -> dict[str, str]:
        out = _slurm("squeue", "-h", "-t", "all", "-o", "%i %T", "-j", ",".join(ids))
        states = dict(line.split() for line in out.splitlines() if line.strip())
        for job_id in ids:  # jobs the controller has forgotten: ask the accounting
            if job_id not in states:
                states[job_id] = self._accounted(job_id).state or "PENDING"
        return states

    @staticmethod
    def _accounted(job_id: str) -> Accounted:
        """The job's end as scontrol knows it, else sacct; Nones when neither knows the job."""
        shown = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True)
        if shown.returncode == 0 and "JobState=" in shown.stdout:
            fields = dict(f.split("=", 1) for f in shown.stdout.split() if "=" in f)
            return Accounted(fields.get("JobState"), fields.get("ExitCode"), fields.get("RunTime"),
                             fields.get("NodeList"), fields.get("StartTime"))
        acct = subprocess.run(["sacct", "-n", "-P", "-X", "-j", job_id, "-o", "State,ExitCode,Elapsed,NodeList,Start"],
                              capture_output=True, text=True)
        if acct.returncode == 0 and acct.stdout.strip():
            state, code, elapsed, nodes, start = acct.stdout.strip().splitlines()[0].split("|")
            return Accounted(state.split()[0], code, elapsed, nodes, start)
        return Accounted(None, None, None, None, None)

    def _record(self, job_id: str, job: Job, state: str) -> RunRecord:
        ended_as = self._accounted(job_id)
        code, runtime, nodes = ended_as.code, ended_as.elapsed, ended_as.nodes
        path = profile_path(self.results, job.plan)
        err = self.scripts / f"{job.plan.key}.err"
        stderr = err.read_text(errors="replace") if err.exists() else ""
        elapsed = _seconds(runtime) if runtime else time.time() - job.submitted
        if job.app is not None:  # the program's output is the job's: kept, and its profile made from it
            out = self.scripts / f"{job.plan.key}.out"
            if out.exists():
                shutil.copyfile(out, app_run.output_path(path))
            # a job that did not complete (cancelled, out of memory, a node lost: exit code 0:<signal>) failed
            exit_code = int(code.split(":")[0]) if code else 1
            exit_code = exit_code or (0 if state == "COMPLETED" else 1)
            ended = RunOutcome(exit_code, None, None, f"slurm job {job_id}: {state}\n{stderr}", state == "TIMEOUT",
                               elapsed)
            outcome = app_run.finish(self.study, job.plan, job.app, ended, path, _started(ended_as.start, job.submitted),
                                     host=nodes)
        else:
            loaded = profile.load(path) if path.exists() and state != "TIMEOUT" else None
            exit_code = int(code.split(":")[0]) if code else (0 if loaded else 1)
            outcome = RunOutcome(exit_code, path if loaded else None, loaded,
                                 f"slurm job {job_id}: {state}\n{stderr}", state == "TIMEOUT", elapsed,
                                 self.scripts / f"{job.plan.key}.out")
        return record(job.plan, self.study, self.name, f"sbatch {job.script}", outcome, job.submitted,
                      configuration(self.study, job.plan, self.node))


KIND = Kind("slurm", lambda study, results, say: SlurmBackend(study, results), exact=False, launches=False,
            node="a node Slurm allocates", cores=node_cores)  # pyproject's entry point
