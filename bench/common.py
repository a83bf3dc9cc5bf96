"""What every benchmark shares: its declared targets, the rounds in random order, and the run file.

A bench measures ours and its peers in rounds; each round runs every case once, in an order drawn from
a seeded generator (the seed is kept), so that drift in the machine's state falls on all of them alike.
The number of rounds is fixed before the first one (bench/references.yaml, or --repeats), and a run file
is written only when every declared round is done: `bench/runs/<bench>-<UTC time>.json`, holding what
was declared, the machine's state before and after (CPU model, load, frequency governor where readable,
library versions), the order the cases ran in, and every raw sample. Tables and verdicts are made from
run files alone (bench/tables.py), never typed.

Runs may be pooled only when they were declared as one series before the first of them ran:
`--series NAME --series-size K` on each of the K invocations. bench/tables.py pools a series when all K
of its files are present; anything else is judged run by run.
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import os
import platform
import random
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

from hybridperf.analysis.verdicts import Band, Judgement, judge_samples, judge_value
from hybridperf.files import write_atomic

REPO = Path(__file__).resolve().parents[1]

RUNS = Path(os.environ.get("HYBRIDPERF_BENCH_RUNS") or REPO / "bench" / "runs")  # another folder: smoke runs
REFERENCES = REPO / "bench" / "references.yaml"
FORMAT = "hybridperf.bench-run/1"


# ---------------------------------------------------------------- the declared targets


def machine_names() -> tuple[str, str]:
    """(CPU model, host name): what a system entry of references.yaml may match."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return model or platform.processor(), platform.node()


def _band(low: float | None, high: float | None) -> Band:
    return Band(float("-inf") if low is None else low, float("inf") if high is None else high)


def references(bench: str, path: Path = REFERENCES, names: tuple[str, str] | None = None) -> dict[str, Any]:
    """The bench's entry for this machine: {"repeats": N, "figures": {name: Band}}."""
    data = yaml.safe_load(path.read_text())
    names = names or machine_names()
    for pattern, benches in data["systems"].items():
        if any(fnmatch.fnmatch(n, pattern) for n in names) and bench in benches:
            entry = benches[bench]
            bands = {name: _band(low, high) for name, (low, high) in entry["figures"].items()}
            return {"repeats": entry["repeats"], "figures": bands, "confidence": data["confidence"]}
    raise KeyError(f"{path} declares no targets for {bench} on this machine")


# ---------------------------------------------------------------- machine state


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _first_line(command: list[str]) -> str | None:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = [line for line in (out.stdout + out.stderr).splitlines() if line.strip()]
    return lines[0].strip() if lines else None


def machine_state(libraries: dict[str, str | None] | None = None) -> dict[str, Any]:
    """What could make two runs of the same bench differ: the CPU, its load and governor, the software."""
    model, host = machine_names()
    git = _first_line(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    dirty = _first_line(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"])
    return {
        "cpu_model": model,
        "host": host,
        "cpus": os.cpu_count(),
        "load_average": list(os.getloadavg()),
        "governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        "kernel": platform.release(),
        "hybridperf": f"{git}{' (uncommitted changes)' if dirty else ''}" if git else None,
        "python": platform.python_version(),
        "compiler": _first_line(["gcc", "--version"]),
        "libraries": libraries or {},
    }


# ---------------------------------------------------------------- rounds and the run file


@dataclass
class Run:
    """One invocation of a bench: what was declared, and what it measured."""

    bench: str
    repeats: int
    arguments: list[str]
    series: str | None = None
    series_size: int | None = None
    seed: int = field(default_factory=lambda: random.SystemRandom().randrange(1 << 31))
    started: str = field(default_factory=lambda: datetime.datetime.now(datetime.timezone.utc).isoformat())
    machine_before: dict[str, Any] = field(default_factory=dict)
    order: list[list[str]] = field(default_factory=list)  # per round, the cases in the order they ran
    samples: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def rounds(self, cases: list[str]) -> Iterable[tuple[int, list[str]]]:
        """Each round's cases, shuffled by the run's seed; yields (round, order) and records the order."""
        rng = random.Random(self.seed)
        for k in range(self.repeats):
            order = list(cases)
            rng.shuffle(order)
            self.order.append(order)
            print(f"round {k + 1}/{self.repeats}: {', '.join(order)}", flush=True)
            yield k, order

    def add(self, key: str, value: Any) -> None:
        """One raw sample under a case's key (a list per key, one entry per round)."""
        self.samples.setdefault(key, []).append(value)

    def save(self, libraries: dict[str, str | None] | None = None, directory: Path = RUNS) -> Path:
        """The run file, written whole (temporary file, then rename) once every round is done."""
        directory.mkdir(parents=True, exist_ok=True)
        stamp = self.started[:19].replace(":", "").replace("-", "")
        path = directory / f"{self.bench}-{stamp}.json"
        document = {
            "format": FORMAT, "bench": self.bench,
            "declared": {"repeats": self.repeats, "series": self.series, "series_size": self.series_size,
                         "arguments": self.arguments, "seed": self.seed},
            "started": self.started, "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "machine": {"before": self.machine_before, "after": machine_state(libraries)},
            "order": self.order, "samples": self.samples, "notes": self.notes,
        }
        write_atomic(path, json.dumps(document, indent=1))
        print(f"run file: {path.relative_to(REPO) if path.is_relative_to(REPO) else path}")
        return path


def arguments(parser: argparse.ArgumentParser, bench: str) -> argparse.Namespace:
    """Adds the options every bench has (--repeats, --series, --series-size) and parses the command line."""
    declared = references(bench)["repeats"]
    parser.add_argument("--repeats", type=int, default=declared,
                        help=f"rounds, fixed before the first (default: {declared}, from bench/references.yaml)")
    parser.add_argument("--series", metavar="NAME", help="this run is one of a series declared in advance, whose "
                                                          "runs bench/tables.py pools")
    parser.add_argument("--series-size", type=int, metavar="K", help="how many runs the series has (with --series)")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if (args.series is None) != (args.series_size is None) or (args.series_size is not None and args.series_size < 2):
        parser.error("--series NAME and --series-size K (2 or more) go together")
    return args


def start(bench: str, args: argparse.Namespace) -> Run:
    return Run(bench, args.repeats, sys.argv[1:], args.series, args.series_size, machine_before=machine_state())


# ---------------------------------------------------------------- reading run files


def load_runs(bench: str, directory: Path = RUNS) -> list[dict[str, Any]]:
    """Every complete run file of a bench, oldest first."""
    out = []
    for path in sorted(directory.glob(f"{bench}-*.json")):
        document = json.loads(path.read_text())
        if document.get("format") != FORMAT or document.get("bench") != bench:
            raise ValueError(f"{path}: not a {FORMAT} file of {bench}")
        document["path"] = str(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
        out.append(document)
    return sorted(out, key=lambda d: d["started"])


def judged_sets(runs: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(label, runs) to judge: each declared series whose runs are all present, pooled; every other run alone."""
    series: dict[str, list[dict[str, Any]]] = {}
    out = []
    for run in runs:
        name, size = run["declared"]["series"], run["declared"]["series_size"]
        if name:
            series.setdefault(name, []).append(run)
            if len(series[name]) == size:
                out.append((f"series {name} ({size} runs, declared in advance)", series[name]))
        else:
            out.append((run["path"], [run]))
    for name, members in series.items():
        size = members[0]["declared"]["series_size"]
        if len(members) < size:
            out += [(f"{m['path']} (series {name}: {len(members)} of {size} runs present, judged alone)", [m])
                    for m in members]
    return out


def pooled(runs: list[dict[str, Any]], key: str) -> list[Any]:
    """The samples of one key over the pooled runs."""
    return [v for run in runs for v in run["samples"].get(key, [])]


def overhead_rows(runs: list[dict[str, Any]], bands: dict[str, Band], timed: str, counted: str) -> list[Row]:
    """An overhead bench's rows: its loop seconds `with` over `without` the instrumentation per round, judged against
    `overhead`, and the last run's callgrind `instructions` ({with, without}), judged against `instructions`."""
    plain, kept = pooled(runs, "without"), pooled(runs, "with")
    if not plain or not kept:
        return []
    ratios = [w / p for w, p in zip(kept, plain)]
    rows = [Row(timed, f"{statistics.median(kept):.4f} s", f"{statistics.median(plain):.4f} s",
                judge_samples(ratios, bands["overhead"]))]
    instructions = pooled(runs, "instructions")
    if instructions:
        c = instructions[-1]
        rows.append(Row(counted, f"{c['with']:,}", f"{c['without']:,}",
                        judge_value(c["with"] / c["without"], bands["instructions"])))
    return rows


def require(value: str | None, what: str, how: str) -> str | None:
    """A peer given by an environment variable, or None after saying how to provide it."""
    if not value:
        print(f"{what} not available: skipped. {how}")
    return value or None


def run_checked(command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
                what: str | None = None) -> str:
    """Runs a peer's command; its stdout, or exit with the end of its output."""
    proc = subprocess.run(command, env={**os.environ, **(env or {})}, capture_output=True, text=True, cwd=cwd)
    if proc.returncode:
        sys.exit(f"{what or command[0]} failed ({proc.returncode}):\n{(proc.stdout + proc.stderr)[-2000:]}")
    return proc.stdout



@dataclass
class Row:
    """One line of a bench's table: a figure, what was measured on each side, and its verdict (None for a
    figure shown for information, with no target)."""

    figure: str
    ours: str
    reference: str
    judgement: Judgement | None = None
