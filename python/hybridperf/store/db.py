"""The results store: one SQLite file, `results.db`, per results directory. The only module that knows SQL.

Two tables, documented in docs/results-store.md so plain SQL is enough:
- `studies`: one row per study, with its validated spec as JSON;
- `runs`: one row per run (a configuration at a scale, one repeat), with the configuration columns,
  the status and timings, and the kernel's full profile JSON.
The database is in WAL mode and each run is stored in one transaction, so an interrupted study leaves
only whole runs behind, and a report can read while a study writes.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS studies (
    name     TEXT PRIMARY KEY,
    kernel   TEXT NOT NULL,
    spec     TEXT NOT NULL,      -- the validated spec, JSON
    source   TEXT,               -- the spec file it came from
    created  TEXT NOT NULL,
    updated  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id              INTEGER PRIMARY KEY,
    run_key         TEXT NOT NULL UNIQUE,   -- identity used to resume: study, params, shape, repeat
    study           TEXT NOT NULL REFERENCES studies(name),
    kernel          TEXT NOT NULL,
    params          TEXT NOT NULL,          -- JSON: the kernel options that vary or are set by the spec
    configurations  TEXT NOT NULL,          -- spec configurations with this shape, comma-separated
    nodes           INTEGER NOT NULL,
    ranks           INTEGER NOT NULL,
    ranks_per_node  INTEGER NOT NULL,
    threads         INTEGER NOT NULL,
    cores           INTEGER NOT NULL,       -- ranks x threads
    mode            TEXT NOT NULL,          -- MPC taxonomy class
    oversubscribed  INTEGER NOT NULL,       -- 0 or 1
    repeat          INTEGER NOT NULL,       -- 0-based repeat index
    status          TEXT NOT NULL,          -- ok | check-failed | failed | timeout
    exit_code       INTEGER,
    loop_time       REAL,                   -- seconds: the profile's loop_time (max over ranks)
    started         TEXT NOT NULL,
    elapsed         REAL NOT NULL,          -- seconds, launch to exit, as the front end saw it
    backend         TEXT NOT NULL,
    launch          TEXT NOT NULL,          -- the exact command line
    warnings        TEXT NOT NULL,          -- JSON list: placement warnings
    stderr          TEXT,                   -- the end of stderr when the run did not succeed
    profile         TEXT                    -- the full profile JSON; NULL when none was written
);
CREATE INDEX IF NOT EXISTS runs_by_study ON runs(study, status);
"""
STATUSES = ("ok", "check-failed", "failed", "timeout")


@dataclass
class RunRecord:
    run_key: str
    study: str
    kernel: str
    params: dict[str, Any]
    configurations: tuple[str, ...]
    nodes: int
    ranks: int
    ranks_per_node: int
    threads: int
    mode: str
    oversubscribed: bool
    repeat: int
    status: str
    exit_code: int | None
    loop_time: float | None
    started: str
    elapsed: float
    backend: str
    launch: str
    warnings: list[str]
    stderr: str | None
    profile: dict[str, Any] | None


class Store:
    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "results.db"
        self.db = sqlite3.connect(self.path, timeout=30)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise ValueError(f"{self.path} has schema version {version}; this hybridperf reads {SCHEMA_VERSION}")
        with self.db:
            self.db.executescript(SCHEMA)
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def save_study(self, name: str, kernel: str, spec: dict[str, Any], source: str, now: str) -> None:
        with self.db:
            self.db.execute(
                "INSERT INTO studies(name, kernel, spec, source, created, updated) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET kernel=excluded.kernel, spec=excluded.spec, "
                "source=excluded.source, updated=excluded.updated",
                (name, kernel, json.dumps(spec), source, now, now),
            )

    def study_spec(self, name: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT spec FROM studies WHERE name = ?", (name,)).fetchone()
        return json.loads(row["spec"]) if row else None

    def studies(self) -> list[str]:
        return [r["name"] for r in self.db.execute("SELECT name FROM studies ORDER BY created")]

    def recorded_keys(self, study: str, statuses: Iterable[str] = STATUSES) -> set[str]:
        marks = ",".join("?" * len(tuple(statuses)))
        rows = self.db.execute(f"SELECT run_key FROM runs WHERE study = ? AND status IN ({marks})",
                               (study, *statuses))
        return {r["run_key"] for r in rows}

    def add_run(self, r: RunRecord) -> None:
        """Stores one run in one transaction (replacing an earlier attempt with the same key)."""
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO runs(run_key, study, kernel, params, configurations, nodes, ranks, "
                "ranks_per_node, threads, cores, mode, oversubscribed, repeat, status, exit_code, loop_time, "
                "started, elapsed, backend, launch, warnings, stderr, profile) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    r.run_key, r.study, r.kernel, json.dumps(r.params, sort_keys=True), ",".join(r.configurations),
                    r.nodes, r.ranks, r.ranks_per_node, r.threads, r.ranks * r.threads, r.mode,
                    int(r.oversubscribed), r.repeat, r.status, r.exit_code, r.loop_time, r.started, r.elapsed,
                    r.backend, r.launch, json.dumps(r.warnings), r.stderr,
                    json.dumps(r.profile) if r.profile is not None else None,
                ),
            )

    def runs(self, study: str | None = None) -> list[dict[str, Any]]:
        """Every run (of one study), with params, warnings and profile decoded."""
        query = "SELECT * FROM runs" + (" WHERE study = ?" if study else "") + " ORDER BY id"
        out = []
        for row in self.db.execute(query, (study,) if study else ()):
            d = dict(row)
            d["params"] = json.loads(d["params"])
            d["warnings"] = json.loads(d["warnings"])
            d["configurations"] = d["configurations"].split(",")
            d["profile"] = json.loads(d["profile"]) if d["profile"] else None
            out.append(d)
        return out


FLAT_RUN_COLUMNS = ("study", "kernel", "configurations", "nodes", "ranks", "ranks_per_node", "threads", "cores",
                    "mode", "oversubscribed", "repeat", "status", "exit_code", "loop_time", "started", "elapsed",
                    "backend")


def flatten(run: dict[str, Any]) -> dict[str, Any]:
    """One flat row: run columns, params as param.*, figures, region times and communication."""
    row = {k: run[k] for k in FLAT_RUN_COLUMNS}
    row["configurations"] = ",".join(run["configurations"])
    row.update({f"param.{k}": v for k, v in run["params"].items()})
    p = run["profile"]
    if p:
        row.update({f"fom.{f['name']}": f["value"] for f in p["figures_of_merit"]})
        for name, r in p["regions"].items():
            for stat in ("min", "avg", "max"):
                row[f"region.{name}.{stat}"] = r["time"][stat]
            row[f"region.{name}.imbalance"] = r["imbalance"]
        for cls, c in p["comm"].items():
            for key in ("calls", "messages", "bytes"):
                row[f"comm.{cls}.{key}"] = c[key]
            row[f"comm.{cls}.time.max"] = c["time"]["max"]
            row[f"comm.{cls}.bytes_per_rank.avg"] = c["bytes_per_rank"]["avg"]
        row.update({f"check.{name}": c["pass"] for name, c in p["checks"].items()})
    return row


def export_csv(runs: list[dict[str, Any]], path: Path) -> int:
    """Writes the flat table (atomically); returns the number of rows."""
    rows = [flatten(r) for r in runs]
    columns = list(dict.fromkeys(k for row in rows for k in row))
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)
    return len(rows)
