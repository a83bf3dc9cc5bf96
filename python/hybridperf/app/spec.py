"""The `app:` block of a study spec (`kernel: app`), validated into an AppSpec. Pure.

    app:
      command: [lmp, -in, in.lj, -var, x, "{size}", -sf, omp, -pk, omp, "{threads}"]
      launch: mpi          # mpi: hybridperf's launch line; self: the program starts its own ranks/threads
      parser: lammps       # ready-made figures and regions: lammps | gromacs | npb-mz (optional)
      figures:             # the program's own figures of merit, each read by a regular expression
        atoms: {regex: 'with (?P<value>\\d+) atoms', unit: atoms, better: higher}
      regions:             # the program's own timing breakdown, each region read by a regular expression
        force: {regex: 'force (?P<min>[0-9.]+) (?P<avg>[0-9.]+) (?P<max>[0-9.]+)'}
        halo: {regex: 'halo took (?P<value>[0-9.]+) s', communication: true}
      loop_time: loop_time # which figure is the run's time (default: the parser's)
      check: 'Total wall time'   # a pattern a correct run prints (default: the parser's; none: exit status)
      profile_mpi: true    # count MPI by class with libhybridperf-mpi.so (launch: mpi only; default true)
      trace: false         # each run also writes SimGrid traces and a Perfetto file into its trace/ (default false)
      logs: [md.log]       # files the program writes that hold figures or its timing table (read, then kept)
      env:                 # variables the program needs (its libraries: ldd reads them with these too)
        LD_LIBRARY_PATH: /opt/lammps/lib
      launcher: /opt/mpich/bin/mpiexec   # launch: mpi, the launcher to use (default: the one of the program's MPI)
      openmp_runtime: libomp   # run a program built with GCC's libgomp on LLVM's libomp, which has OMPT (default:
                               # the runtime it is linked with)

Placeholders in the command, logs and env values: {ranks}, {threads}, {ranks_per_node}, {nodes}, and every study
parameter by its name. `error(path, message)` raises the spec's own error with the line of `path` under `app`."""

from __future__ import annotations

import difflib
import re
import string
from dataclasses import dataclass
from typing import Any, Callable

from hybridperf.app.parsers import PARSERS, FigureRule, RegionRule

KEYS = {"command", "launch", "parser", "figures", "regions", "loop_time", "check", "profile_mpi", "trace", "logs",
        "env", "launcher", "openmp_runtime"}
RUNTIMES = ("libomp",)  # what openmp_runtime may name: LLVM's, whose GOMP_ entry points run GCC's code
FIGURE_KEYS = {"regex", "unit", "better", "scale"}
REGION_KEYS = {"regex", "communication", "scale"}
LAUNCHES = ("mpi", "self")
PLACEHOLDERS = {"ranks", "threads", "ranks_per_node", "nodes"}


@dataclass(frozen=True)
class AppSpec:
    command: tuple[str, ...]
    launch: str
    parser: str | None
    figures: tuple[FigureRule, ...]  # the parser's, then the spec's own (which replace a parser's of the same name)
    loop_time: str
    check: str | None
    profile_mpi: bool
    required: frozenset[str]  # figures a run must print: its time and every figure the spec names itself
    logs: tuple[str, ...] = ()  # files the program writes, read with its output (placeholders allowed)
    env: tuple[tuple[str, str], ...] = ()  # variables set for the program (placeholders allowed)
    launcher: str | None = None  # launch: mpi, the launcher in place of its MPI's own
    regions: tuple[RegionRule, ...] = ()  # the spec's own regions (beside, or replacing, the parser's)
    trace: bool = False  # the MPI library writes each run's traces (docs/pmpi.md#traces)
    openmp_runtime: str | None = None  # libomp: a libgomp program run on LLVM's libomp (its OMPT); None: as linked


Error = Callable[[tuple, str], Exception]


def fields(command: tuple[str, ...]) -> set[str]:
    """The placeholder names a command uses."""
    names = set()
    for word in command:
        names |= {name for _, name, _, _ in string.Formatter().parse(word) if name is not None}
    return names


def _fields(words: tuple[str, ...], path: tuple, error: Error) -> set[str]:
    """fields(words), a stray brace as the spec's error at `path`."""
    try:
        return fields(words)
    except ValueError as err:
        raise error(path, f"bad placeholder: {err} ({{{{ for a literal brace)") from None


def _regex(value: Any, path: tuple, error: Error, named: bool, groups: tuple[str, ...] = ("value",)) -> str:
    if not isinstance(value, str) or not value:
        raise error(path, "a regular expression (a non-empty string) is needed")
    try:
        compiled = re.compile(value, re.MULTILINE)
    except re.error as err:
        raise error(path, f"not a valid regular expression: {err}") from None
    if named and not set(groups) & set(compiled.groupindex):
        raise error(path, f"the expression needs a named group {' or '.join(f'(?P<{g}>...)' for g in groups)} "
                          "holding the number")
    return value


def _figure(name: str, raw: Any, error: Error) -> FigureRule:
    path = ("figures", name)
    raw = _named(name, raw, path, FIGURE_KEYS, error)
    better = raw.get("better", "lower")
    if better not in ("lower", "higher"):
        raise error(path + ("better",), f"better must be lower or higher, got {better!r}")
    return FigureRule(name, _regex(raw.get("regex"), path + ("regex",), error, True), str(raw.get("unit", "")),
                      better, float(raw.get("scale", 1.0)))


def _named(name: Any, raw: Any, path: tuple, keys: set[str], error: Error) -> dict:
    """A figure's or region's entry: its name checked, a bare string as its regex, its keys known."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", str(name)):
        raise error(path, f"name '{name}' must be lower case letters, digits and '_'")
    if isinstance(raw, str):
        raw = {"regex": raw}
    if not isinstance(raw, dict):
        raise error(path, f"an entry is {{{', '.join(sorted(keys))}}}")
    unknown = sorted(set(raw) - keys)
    if unknown:
        raise error(path + (unknown[0],), f"unknown key '{unknown[0]}': use {', '.join(sorted(keys))}")
    scale = raw.get("scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
        raise error(path + ("scale",), f"scale must be a number above 0, got {scale!r}")
    return raw


def _region(name: str, raw: Any, error: Error) -> RegionRule:
    path = ("regions", name)
    if name == "total" or name.startswith("omp_"):
        raise error(path, f"region name '{name}' is hybridperf's own (total: the run's time; omp_*: OpenMP's "
                          "parallel regions): choose another")
    raw = _named(name, raw, path, REGION_KEYS, error)
    communication = raw.get("communication", False)
    if not isinstance(communication, bool):
        raise error(path + ("communication",), "communication must be true or false")
    return RegionRule(name, _regex(raw.get("regex"), path + ("regex",), error, True, ("value", "avg")),
                      communication, float(raw.get("scale", 1.0)))


def _did_you_mean(word: str, choices, before: str = "'", after: str = "'") -> str:
    close = difflib.get_close_matches(word, sorted(choices), n=1)
    return f" (did you mean {before}{close[0]}{after}?)" if close else ""


def parse_app(raw: Any, params: set[str], error: Error) -> AppSpec:
    """The validated block; `params` are the study's parameter names (the placeholders they fill)."""
    if not isinstance(raw, dict):
        raise error((), "kernel: app needs an app: block (command, launch, figures ...; see docs/apps.md)")
    for key in raw:
        if key not in KEYS:
            raise error((key,), f"unknown app key '{key}': use {', '.join(sorted(KEYS))}")
    command = raw.get("command")
    if not isinstance(command, list) or not command or not all(isinstance(w, (str, int, float)) for w in command):
        raise error(("command",), "command is the program and its arguments as a YAML list (never one shell "
                                  "string): [lmp, -in, in.lj]")
    command = tuple(str(w) for w in command)
    used = _fields(command, ("command",), error)
    unknown = sorted(used - PLACEHOLDERS - params)
    if unknown:
        raise error(("command",), f"placeholder {{{unknown[0]}}} is neither one of {', '.join(sorted(PLACEHOLDERS))} "
                                  f"nor a study parameter{_did_you_mean(unknown[0], PLACEHOLDERS | params, '{', '}')}")
    launch = raw.get("launch", "mpi")
    if launch not in LAUNCHES:
        raise error(("launch",), f"launch must be mpi or self, got {launch!r}")
    parser = raw.get("parser")
    if parser is not None and parser not in PARSERS:
        raise error(("parser",), f"unknown parser '{parser}': ready-made are {', '.join(PARSERS)}"
                                 f"{_did_you_mean(str(parser), PARSERS)}")
    own = raw.get("figures", {}) or {}
    if not isinstance(own, dict):
        raise error(("figures",), "figures is a mapping of names to {regex, unit, better}")
    rules = {f.name: f for f in PARSERS[parser].figures} if parser else {}
    rules.update({name: _figure(str(name), value, error) for name, value in own.items()})
    if not rules:
        raise error(("figures",), "no figures: give a parser, or figures with at least the run's time")
    loop_time = raw.get("loop_time", PARSERS[parser].loop_time if parser else None)
    if loop_time is None and len(rules) == 1:
        loop_time = next(iter(rules))
    if loop_time not in rules:
        raise error(("loop_time",), f"loop_time names the figure that is the run's time: one of {', '.join(rules)}")
    if loop_time != "loop_time" and "loop_time" in rules:
        raise error(("loop_time",), f"a figure is named loop_time, so it is the run's time; loop_time: {loop_time} "
                                    "names another")
    check = raw.get("check", PARSERS[parser].check if parser else None)
    if check is not None:
        check = _regex(check, ("check",), error, False)
    profile_mpi = raw.get("profile_mpi", launch == "mpi")
    if not isinstance(profile_mpi, bool):
        raise error(("profile_mpi",), "profile_mpi must be true or false")
    if profile_mpi and launch != "mpi":
        raise error(("profile_mpi",), "profile_mpi needs launch: mpi (a program that starts its own ranks is not "
                                      "launched through MPI's launcher)")
    trace = _trace(raw.get("trace", False), launch, profile_mpi, error)
    logs = raw.get("logs", []) or []
    if not isinstance(logs, list) or not all(isinstance(name, str) and name for name in logs):
        raise error(("logs",), "logs is a list of the files the program writes: [md.log]")
    unknown = sorted(_fields(tuple(logs), ("logs",), error) - PLACEHOLDERS - params)
    if unknown:
        raise error(("logs",), f"placeholder {{{unknown[0]}}} is neither a shape nor a study parameter")
    env = _env(raw.get("env", {}) or {}, params, error)
    own_regions = raw.get("regions", {}) or {}
    if not isinstance(own_regions, dict):
        raise error(("regions",), "regions is a mapping of names to {regex, communication, scale}")
    regions = tuple(_region(str(name), value, error) for name, value in own_regions.items())
    launcher = raw.get("launcher")
    if launcher is not None and (launch != "mpi" or not isinstance(launcher, str) or not launcher):
        raise error(("launcher",), "launcher is the MPI launcher's name or path (mpiexec), with launch: mpi only")
    runtime = raw.get("openmp_runtime")
    if runtime is not None and runtime not in RUNTIMES:
        raise error(("openmp_runtime",), f"openmp_runtime must be {' or '.join(RUNTIMES)} (LLVM's OpenMP runtime, "
                                         f"which has OMPT), got {runtime!r}; leave it out to keep the program's own")
    if runtime is not None and not profile_mpi:
        raise error(("openmp_runtime",), "openmp_runtime needs profile_mpi: true (the OMPT tool that times the "
                                         "threads is the MPI library hybridperf preloads; without it the swap "
                                         "gains nothing)")
    return AppSpec(command, launch, parser, tuple(rules.values()), loop_time, check, profile_mpi,
                   frozenset({loop_time, *map(str, own)}), tuple(logs), env, launcher, regions, trace, runtime)


def _trace(trace: Any, launch: str, profile_mpi: bool, error: Error) -> bool:
    if not isinstance(trace, bool):
        raise error(("trace",), "trace must be true or false")
    if trace and launch != "mpi":
        raise error(("trace",), "trace: true needs launch: mpi (the traces are written by the MPI library hybridperf "
                                "preloads through MPI's launcher; a program that starts its own ranks has none)")
    if trace and not profile_mpi:
        raise error(("trace",), "trace: true needs profile_mpi: true (the MPI library that counts the calls is the one "
                                "that writes the traces)")
    return trace


def _env(raw: Any, params: set[str], error: Error) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, dict):
        raise error(("env",), "env is a mapping of variable names to values: {LD_LIBRARY_PATH: /opt/app/lib}")
    pairs = []
    for name, value in raw.items():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise error(("env", name), f"'{name}' is not an environment variable name")
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise error(("env", name), f"the value of {name} must be a string or a number")
        pairs.append((name, str(value)))
    unknown = sorted(_fields(tuple(v for _, v in pairs), ("env",), error) - PLACEHOLDERS - params)
    if unknown:
        raise error(("env",), f"placeholder {{{unknown[0]}}} is neither a shape nor a study parameter")
    return tuple(pairs)
