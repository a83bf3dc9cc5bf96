"""The results store: one SQLite file, `results.db`, per results directory, beside the run profiles it
points at. The only module that knows SQL.

A run's profile (the kernel's JSON document) is its record and is kept once, as the file
`profiles/<run key>.json`; the database holds what queries need (docs/results-store.md):
- `studies`: one row per study, with its latest validated spec as JSON;
- `campaigns`: one row per running of a study (`hybridperf study` again starts a new one; nothing is
  overwritten): its spec, stopping rule, seed, the machine check before it, and how it ended;
- `runs`: one row per run (a candidate split at a scale, in one block of one campaign): configuration
  columns, block and position in it, status, timings and the path of its profile;
- `metrics`: per run, the profile's figures, region times, communication and checks as named numbers
  (`store.flat`), so plain SQL can compare them across runs.
The database is in WAL mode and each run is stored in one transaction, so an interrupted study leaves
only whole runs behind, and a report can read while a study writes. A store of schema 1 (profiles
inside the database) is migrated on opening: its profiles are written out as files; a store of schema 2
(no campaigns) becomes campaign 1 of each of its studies, its repeats the blocks; a store of schema 3 gains
each run's failure reason and kept output (empty for its old runs).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hybridperf.store import flat

SCHEMA_VERSION = 5
METRICS = """
CREATE TABLE IF NOT EXISTS metrics (
    run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name    TEXT NOT NULL,                  -- fom.loop_time, region.force.avg, comm.p2p.bytes, check.energy ...
    value   REAL,
    PRIMARY KEY (run_id, name)
);
"""
SCHEMA = """
CREATE TABLE IF NOT EXISTS studies (
    name     TEXT PRIMARY KEY,
    kernel   TEXT NOT NULL,
    spec     TEXT NOT NULL,      -- the validated spec, JSON
    source   TEXT,               -- the spec file it came from
    created  TEXT NOT NULL,
    updated  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS campaigns (
    study     TEXT NOT NULL REFERENCES studies(name),
    campaign  INTEGER NOT NULL,       -- 1, 2, ... per study
    spec      TEXT NOT NULL,          -- the validated spec it ran, JSON
    seed      INTEGER NOT NULL,       -- draws every block's order
    machine   TEXT NOT NULL,          -- JSON: the machine check before it ran
    started   TEXT NOT NULL,
    finished  TEXT,                   -- NULL while running or interrupted (then it resumes)
    ended     TEXT,                   -- decided | budget | interrupted; NULL while running
    PRIMARY KEY (study, campaign)
);
CREATE TABLE IF NOT EXISTS runs (
    id              INTEGER PRIMARY KEY,
    run_key         TEXT NOT NULL UNIQUE,   -- identity used to resume: study, campaign, params, shape, block
    study           TEXT NOT NULL REFERENCES studies(name),
    campaign        INTEGER NOT NULL DEFAULT 1,
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
    repeat          INTEGER NOT NULL,       -- 0-based block index (the repeat)
    position        INTEGER,                -- 0-based place in its block's random order
    warmup          INTEGER NOT NULL DEFAULT 0,  -- 1: the uncounted warm-up run before a race's first block
    status          TEXT NOT NULL,          -- ok | check-failed | failed | timeout
    exit_code       INTEGER,
    loop_time       REAL,                   -- seconds: the profile's loop_time (max over ranks)
    started         TEXT NOT NULL,
    elapsed         REAL NOT NULL,          -- seconds, launch to exit, as the front end saw it
    backend         TEXT NOT NULL,
    launch          TEXT NOT NULL,          -- the exact command line
    warnings        TEXT NOT NULL,          -- JSON list: placement warnings
    stderr          TEXT,                   -- the end of stderr when the run did not succeed
    reason          TEXT,                   -- why it did not succeed, one line (NULL: it did)
    output          TEXT,                   -- its kept output file, relative to the results directory; NULL: none
    profile_path    TEXT,                   -- the profile file, relative to the results directory; NULL: none
    disturbance     TEXT,                   -- JSON: what other processes took from it (launch.disturbance); NULL: not measured
    superseded      INTEGER NOT NULL DEFAULT 0  -- 1: its block was run again (a run of it was disturbed); counted nowhere
);
CREATE INDEX IF NOT EXISTS runs_by_study ON runs(study, campaign, status);
""" + METRICS
STATUSES = ("ok", "check-failed", "failed", "timeout")
ENDINGS = ("decided", "budget", "interrupted")


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
    repeat: int  # the block
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
    profile_path: Path | None  # where the profile file is (None: the run wrote none)
    campaign: int = 1
    position: int | None = None
    warmup: bool = False
    reason: str | None = None  # why it did not succeed, one line
    output: Path | None = None  # its kept output (None: none kept)
    disturbance: dict[str, Any] | None = None  # launch.disturbance's, as a dict (None: not measured)


@dataclass(frozen=True)
class Campaign:
    study: str
    number: int
    spec: dict[str, Any]
    seed: int
    machine: dict[str, Any]
    started: str
    finished: str | None
    ended: str | None  # decided | budget | interrupted; None while running


def timestamp(at: float | None = None) -> str:
    """The store's time of day: local, with its offset (now, or the epoch seconds `at`)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(at))


class StoreError(ValueError):
    """A results directory whose store cannot be used; the message says why and what to do."""


DB = "results.db"  # a results directory's store, beside its profiles


def holds_store(directory: Path) -> bool:
    """Whether a results directory has a store yet (opening a Store makes one)."""
    return (Path(directory) / DB).exists()


class Store:
    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / DB
        try:
            self.db = sqlite3.connect(self.path, timeout=30)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute("PRAGMA journal_mode=WAL")
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, 1, 2, 3, 4, SCHEMA_VERSION):
                raise StoreError(f"{self.path} has schema version {version}; this hybridperf reads up to "
                                 f"{SCHEMA_VERSION}: use a newer hybridperf")
            with self.db:
                if version == 1:
                    self._migrate_from_1()
                if version in (1, 2):
                    self._migrate_from_2()
                if version in (1, 2, 3):
                    self._migrate_from_3()
                if version in (1, 2, 3, 4):
                    self._migrate_from_4()
                self.db.executescript(SCHEMA)
                self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as err:
            raise StoreError(f"{self.path} is not a hybridperf results database ({err}); move it away or give "
                             "another results directory") from None

    def _migrate_from_1(self) -> None:
        """Schema 1 kept every profile inside the database: write each out as its file, then drop the column."""
        self.db.execute("ALTER TABLE runs ADD COLUMN profile_path TEXT")
        self.db.executescript(METRICS)
        for row in self.db.execute("SELECT id, run_key, profile FROM runs WHERE profile IS NOT NULL").fetchall():
            path = self.directory / "profiles" / f"{row['run_key']}.json"
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(row["profile"])
            self.db.execute("UPDATE runs SET profile_path = ? WHERE id = ?", (self._relative(path), row["id"]))
            self._add_metrics(row["id"], json.loads(row["profile"]))
        self.db.execute("ALTER TABLE runs DROP COLUMN profile")

    def _migrate_from_2(self) -> None:
        """Schema 2 had no campaigns: each study's runs become its campaign 1, their repeats its blocks."""
        for column in ("campaign INTEGER NOT NULL DEFAULT 1", "position INTEGER", "warmup INTEGER NOT NULL DEFAULT 0"):
            self.db.execute(f"ALTER TABLE runs ADD COLUMN {column}")
        self.db.execute("DROP INDEX IF EXISTS runs_by_study")
        self.db.executescript(SCHEMA)
        self.db.execute("INSERT INTO campaigns(study, campaign, spec, seed, machine, started, finished, ended) "
                        "SELECT name, 1, spec, 0, '{}', created, updated, 'decided' FROM studies")

    def _migrate_from_3(self) -> None:
        """Schema 3 kept no failure reason or output path: old failures show their stderr's telling line instead."""
        for column in ("reason TEXT", "output TEXT"):
            self.db.execute(f"ALTER TABLE runs ADD COLUMN {column}")

    def _migrate_from_4(self) -> None:
        """Schema 4 measured no disturbance and ran no block again (a store migrated from 1 or 2 has the columns from
        today's schema already)."""
        have = {row["name"] for row in self.db.execute("PRAGMA table_info(runs)")}
        for column in ("disturbance TEXT", "superseded INTEGER NOT NULL DEFAULT 0"):
            if column.split()[0] not in have:
                self.db.execute(f"ALTER TABLE runs ADD COLUMN {column}")

    def _relative(self, path: Path) -> str:
        try:
            return str(path.resolve().relative_to(self.directory.resolve()))
        except ValueError:  # a profile kept outside the results directory
            return str(path.resolve())

    def _add_metrics(self, run_id: int, profile: dict[str, Any]) -> None:
        self.db.executemany("INSERT OR REPLACE INTO metrics(run_id, name, value) VALUES (?, ?, ?)",
                            [(run_id, name, value) for name, value in flat.metrics(profile).items()])

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

    def campaigns(self, study: str) -> list[Campaign]:
        rows = self.db.execute("SELECT * FROM campaigns WHERE study = ? ORDER BY campaign", (study,))
        return [Campaign(r["study"], r["campaign"], json.loads(r["spec"]), r["seed"], json.loads(r["machine"]),
                         r["started"], r["finished"], r["ended"]) for r in rows]

    def campaign(self, study: str, number: int | None = None) -> Campaign:
        """One campaign of a study: the latest unless a number is given."""
        found = self.campaigns(study)
        if not found:
            raise StoreError(f"{self.path}: study '{study}' has no campaign")
        if number is None:
            return found[-1]
        for c in found:
            if c.number == number:
                return c
        raise StoreError(f"{self.path}: study '{study}' has no campaign {number} (it has "
                         f"{', '.join(str(c.number) for c in found)})")

    def start_campaign(self, study: str, spec: dict[str, Any], seed: int, machine: dict[str, Any], now: str) -> Campaign:
        """A new campaign, numbered after the study's last."""
        with self.db:
            last = self.db.execute("SELECT max(campaign) FROM campaigns WHERE study = ?", (study,)).fetchone()[0]
            number = (last or 0) + 1
            self.db.execute("INSERT INTO campaigns(study, campaign, spec, seed, machine, started) "
                            "VALUES (?, ?, ?, ?, ?, ?)", (study, number, json.dumps(spec), seed, json.dumps(machine), now))
        return self.campaign(study, number)

    def end_campaign(self, study: str, number: int, ended: str, now: str | None) -> None:
        """How a campaign ended (decided, budget, or interrupted: then `now` is None and it may resume)."""
        if ended not in ENDINGS:
            raise ValueError(f"a campaign ends {', '.join(ENDINGS)}, not {ended}")
        with self.db:
            self.db.execute("UPDATE campaigns SET ended = ?, finished = ? WHERE study = ? AND campaign = ?",
                            (ended, now, study, number))

    def add_run(self, r: RunRecord) -> None:
        """Stores one run in one transaction (replacing an earlier attempt with the same key)."""
        with self.db:
            self.db.execute("DELETE FROM runs WHERE run_key = ?", (r.run_key,))  # and, cascading, its metrics
            cursor = self.db.execute(
                "INSERT INTO runs(run_key, study, campaign, kernel, params, configurations, nodes, ranks, "
                "ranks_per_node, threads, cores, mode, oversubscribed, repeat, position, warmup, status, exit_code, "
                "loop_time, started, elapsed, backend, launch, warnings, stderr, profile_path, reason, output, "
                "disturbance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?)",
                (
                    r.run_key, r.study, r.campaign, r.kernel, json.dumps(r.params, sort_keys=True), ",".join(r.configurations),
                    r.nodes, r.ranks, r.ranks_per_node, r.threads, r.ranks * r.threads, r.mode,
                    int(r.oversubscribed), r.repeat, r.position, int(r.warmup), r.status, r.exit_code, r.loop_time, r.started, r.elapsed,
                    r.backend, r.launch, json.dumps(r.warnings), r.stderr,
                    self._relative(r.profile_path) if r.profile_path else None, r.reason,
                    self._relative(r.output) if r.output else None,
                    json.dumps(r.disturbance) if r.disturbance is not None else None,
                ),
            )
            if r.profile is not None:
                self._add_metrics(cursor.lastrowid, r.profile)

    def supersede(self, run_keys: list[str]) -> None:
        """Marks runs whose block is run again (a run of it was disturbed): kept, counted in no statistic."""
        with self.db:
            self.db.executemany("UPDATE runs SET superseded = 1 WHERE run_key = ?", [(k,) for k in run_keys])

    def runs(self, study: str | None = None, campaign: int | None = None, warmups: bool = False) -> list[dict[str, Any]]:
        """Every run (of one study; of one of its campaigns), with params, warnings and disturbance decoded and its
        profile read from its file; warm-up runs and superseded ones (their block was run again) only when asked
        for (they count in no statistic)."""
        where, args = ([], []) if warmups else (["warmup = 0 AND superseded = 0"], [])
        for column, value in (("study", study), ("campaign", campaign)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        query = "SELECT * FROM runs" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id"
        out = []
        for row in self.db.execute(query, args):
            d = dict(row)
            d["params"] = json.loads(d["params"])
            d["warnings"] = json.loads(d["warnings"])
            d["configurations"] = d["configurations"].split(",")
            d["warmup"] = bool(d["warmup"])
            d["superseded"] = bool(d["superseded"])
            d["disturbance"] = json.loads(d["disturbance"]) if d["disturbance"] else None
            d["profile"] = self._profile(d["profile_path"]) if d["profile_path"] else None
            d["output"] = str(self.directory / d["output"]) if d["output"] else None  # as the user named the store
            out.append(d)
        return out

    def _profile(self, relative: str) -> dict[str, Any]:
        path = self.directory / relative
        try:
            return json.loads(path.read_text())
        except OSError as err:
            raise StoreError(f"{path}: the profile of a stored run cannot be read ({err.strerror}); the store "
                             "points at it, so restore it or run the study again into a new directory") from None
        except json.JSONDecodeError as err:
            raise StoreError(f"{path}: the profile of a stored run is not JSON ({err})") from None
