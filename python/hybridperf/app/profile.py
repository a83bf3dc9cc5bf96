"""The profile of one run of the user's program, made by hybridperf from what the run left: its output (figures,
the output check, its own timing table), the MPI library's counts (libhybridperf-mpi.so's file, when it was
loaded) and what hybridperf knows of the launch. Shaped as a kernel's profile (profile-1.schema.json), so the
store, the report and the models take it unchanged; what cannot be known is said ("unknown"), never invented.
Without the MPI library's counts the profile has no `comm` member. Pure."""

from __future__ import annotations

import re
from typing import Any

from hybridperf.app.parsers import NotANumber, PARSERS, Parser, region
from hybridperf.app.spec import AppSpec

SCHEMA = "hybridperf.profile/1"


class FigureMissing(ValueError):
    """A figure or region the spec names (or the run's time) that the run's output does not show."""


def _read(rule: Any, text: str, source: str) -> Any:
    """A figure's or region's rule applied; FigureMissing (the run fails, saying why) where it matched no number."""
    try:
        return rule.read(text)
    except NotANumber as err:
        raise FigureMissing(f"{err} (in {source})") from None


def figures(app: AppSpec, text: str, source: str) -> list[dict[str, Any]]:
    """Every figure's value (None where an optional one is absent); FigureMissing for a required one."""
    found = []
    for rule in app.figures:
        value = _read(rule, text, source)
        if value is None and rule.name in app.required:
            raise FigureMissing(f"figure {rule.name} not found in {source}: its pattern {rule.pattern!r} matches "
                                "nothing there")
        found.append({"name": rule.name, "value": value, "unit": rule.unit, "better": rule.better})
    return found


def as_loop_time(values: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The figures with the run's time first and named `loop_time`, as every profile has it (the store, the verdict
    and the models read that name); a time figure of another name is kept under its own name too."""
    time = next(f for f in values if f["name"] == name)
    rest = [f for f in values if f["name"] != "loop_time"]
    return [{**time, "name": "loop_time"}, *rest]


def regions(app: AppSpec, text: str, source: str, loop_time: float) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The program's own timing table (the parser's, and the spec's regions) as regions, with `total` the run's
    time; and their groups. FigureMissing for a region the spec names that the output does not show."""
    own = PARSERS[app.parser].regions(text) if app.parser else {}
    communication = {name for name in own if app.parser and name in PARSERS[app.parser].communication}
    for rule in app.regions:
        found = _read(rule, text, source)
        if found is None:
            raise FigureMissing(f"region {rule.name} not found in {source}: its pattern {rule.pattern!r} matches "
                                "nothing there")
        own[rule.name] = found
        communication = communication - {rule.name} | ({rule.name} if rule.communication else set())
    groups = {"computation": [name for name in own if name not in communication],
              "communication": [name for name in own if name in communication]}
    return {**own, "total": region(loop_time, loop_time, loop_time)}, groups


def build(app: AppSpec, *, text: str, source: str, program: str, command: list[str], start_time: str, host: str,
          ranks: int,
          threads: int, ranks_per_node: int, nodes: int, environment: dict[str, str], params: dict[str, Any],
          mpi: dict[str, Any] | None, mpi_library: str, openmp_runtime: str,
          busy_threads: int | None = None) -> dict[str, Any]:
    """The run's profile; FigureMissing when its output lacks a required figure. `busy_threads`: the threads of a
    program that starts its own seen doing work, in all (None: not read, or too short a run)."""
    values = as_loop_time(figures(app, text, source), app.loop_time)
    loop_time = values[0]["value"]
    own_regions, groups = regions(app, text, source, loop_time)
    checks = {}
    if app.check:
        passed = re.search(app.check, text, re.MULTILINE) is not None
        checks["output_check"] = {"value": float(passed), "expected": 1.0, "tolerance": 0.0, "pass": passed}
    parser = PARSERS[app.parser] if app.parser else None
    reported = {fact.name: fact.read(text) for fact in parser.facts} if parser else {}
    if parser and parser.verdict:
        passed = parser.verdict.passes(text)
        checks[parser.verdict.name] = {"value": float(passed), "expected": 1.0, "tolerance": 0.0, "pass": passed}
    checks |= shape_checks(parser, reported, ranks, ranks * threads)
    level = (mpi or {}).get("thread_level", {"requested": "unknown", "provided": "unknown"})
    profile: dict[str, Any] = {
        "schema": SCHEMA, "kernel": "app", "kernel_version": program,
        "build": {"compiler": "unknown", "flags": "", "mpi_library": (mpi or {}).get("mpi_library", mpi_library),
                  "mpi_standard": "unknown", "openmp_version": 0, "openmp_runtime": openmp_runtime,
                  "git_revision": "unknown"},
        "run": {"command": command, "start_time": start_time, "hosts": [host], "ranks": ranks,
                "threads_per_rank": threads, "ranks_per_node": ranks_per_node, "nodes": nodes,
                "mpi_thread_level": level, "environment": environment, "affinity": []},
        "params": params, "status": "ok" if all(c["pass"] for c in checks.values()) else "check-failed",
        "checks": checks, "figures_of_merit": values, "regions": own_regions, "region_groups": groups,
    }
    if busy_threads is not None:
        profile["app"] = {"counting": None, "openmp_tool": "unavailable",
                          "threads": {"busy_in_all": busy_threads}}
    if mpi is not None:
        profile["comm"] = mpi["comm"]
        for taken in ("rank_times", "openmp_idle", "trace"):  # POP's inputs (analysis.pop) and the traces' summary
            if taken in mpi:
                profile[taken] = mpi[taken]
        profile["app"] = {"counting": mpi.get("counting"), "openmp_tool": mpi.get("openmp_tool", "unavailable"),
                          "threads": mpi.get("threads")}
        parallel = {f"omp_{name}": r for name, r in mpi.get("regions", {}).items()}  # OMPT's parallel regions
        profile["regions"].update(parallel)
        groups["computation"] += list(parallel)
    if reported:
        profile.setdefault("app", {})["reported"] = reported
    return profile


def shape_checks(parser: Parser | None, reported: dict[str, Any], ranks: int, threads_in_all: int) -> dict[str, Any]:
    """The processes and threads in all the program says it ran with against the run's shape (a program built for
    another process count, or one that never saw OMP_NUM_THREADS, fails them); none where its parser reads none."""
    checks = {}
    for fact, expected in ((parser and parser.processes, ranks), (parser and parser.threads, threads_in_all)):
        if fact:
            value = reported.get(fact)
            checks[f"reported_{fact}"] = {"value": value if isinstance(value, int) else None, "expected": expected,
                                          "tolerance": 0, "pass": value == expected}
    return checks


def check_failure(app: AppSpec, profile: dict[str, Any], text: str, source: str) -> str:
    """Why a run's checks failed, in one line: the program's own verdict where it judged its result a failure
    (BT-MZ's "Verification = UNSUCCESSFUL"), else the first check that failed."""
    parser = PARSERS[app.parser] if app.parser else None
    failed = [name for name, check in profile["checks"].items() if not check["pass"]]
    if parser and parser.verdict and parser.verdict.name in failed:
        line = parser.verdict.line(text)
        said = f"it printed '{line}'" if line else f"it printed no {parser.verdict.name} line"
        return f"the program's own {parser.verdict.name} failed: {said} (in {source})"
    name = failed[0]
    if name == "output_check":
        return f"the output check failed: {app.check!r} matches nothing in {source}"
    check = profile["checks"][name]
    said = "nothing" if check["value"] is None else check["value"]
    return f"check {name} failed: the program reports {said}, the run's shape gives {check['expected']}"


def ignored_threads(busy: dict[str, int] | None, threads: int, where: str) -> str | None:
    """Why a run asked for `threads` threads per rank ignored them, from the threads that did work (`busy`: min and
    max over ranks, -1 unknown; read `where`); None when it did not, or when that cannot be told."""
    busy = busy or {}
    if threads < 2 or busy.get("min", -1) < 0 or busy.get("max", 0) > 1:
        return None
    return (f"the program ignored the thread count: asked for {threads} threads per rank (OMP_NUM_THREADS={threads})"
            f", it ran no more than one busy thread (CPU time per thread read {where}); a program that sets its own "
            "thread count needs {threads} in its command")  # a placeholder of the spec, written as the user writes it
