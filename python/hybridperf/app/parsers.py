"""Reading a program's figures of merit and timing breakdown from its text output. Pure.

A figure is a regular expression with a named group `value`: the first match's value, times the rule's
scale, is the figure. Ready-made rule sets exist for LAMMPS (the "Loop time" and "Performance" lines and the
"MPI task timing breakdown" table), GROMACS (ns/day and the "cycle and time accounting" table) and the NAS
multi-zone benchmarks (BT-MZ, SP-MZ, LU-MZ: the summary's time and Mop/s, its verification line as a check,
and what it says of the run, which must agree with the run's shape), so that a study of any names only its
command. A table's rows become regions shaped as a kernel profile's: calls,
time (min, avg, max over ranks; ranks unknown, so 0), imbalance (max / avg - 1)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from hybridperf.profile import imbalance

NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


@dataclass(frozen=True)
class FigureRule:
    name: str
    pattern: str  # with a named group `value`
    unit: str
    better: str  # lower | higher
    scale: float = 1.0

    def read(self, text: str) -> float | None:
        """The value, None where the pattern matches nothing; NotANumber where it matches something else."""
        match = re.search(self.pattern, text, re.MULTILINE)
        return number(match, "value", self.name) * self.scale if match and match["value"] is not None else None


class NotANumber(ValueError):
    """A pattern matched, but what its group holds is not a number."""


def number(match: re.Match, group: str, name: str) -> float:
    try:
        return float(match[group])
    except ValueError:
        raise NotANumber(f"{name}: its pattern matched {match[0]!r}, whose {group} {match[group]!r} is not a "
                         "number") from None


Regions = dict[str, dict]
RegionReader = Callable[[str], Regions]


def region(minimum: float, average: float, maximum: float, calls: int = 1) -> dict:
    stat = {"min": minimum, "min_rank": 0, "avg": average, "max": maximum, "max_rank": 0}
    return {"calls": calls, "time": stat, "imbalance": imbalance(maximum, average)}


TIMES = ("min", "avg", "max", "value")  # a region rule's groups that hold seconds


@dataclass(frozen=True)
class RegionRule:
    """One region of a program's own timing output: a regular expression whose named group `value` (seconds, as
    on every rank) or groups `min`, `avg`, `max` (over ranks; `avg` alone will do), and optionally `calls`, give
    the region; the times are multiplied by `scale`."""

    name: str
    pattern: str
    communication: bool = False
    scale: float = 1.0

    def read(self, text: str) -> dict | None:
        """The region, None where the pattern (or its time) matches nothing; NotANumber where a group holds
        something else."""
        match = re.search(self.pattern, text, re.MULTILINE)
        groups = match.groupdict() if match else {}
        found = {k: number(match, k, self.name) * self.scale for k in TIMES if groups.get(k) is not None}
        if "avg" not in found and "value" not in found:
            return None
        average = found.get("avg", found.get("value"))
        calls = int(number(match, "calls", self.name)) if groups.get("calls") is not None else 1
        return region(found.get("min", average), average, found.get("max", average), calls)


def lammps_regions(text: str) -> Regions:
    """LAMMPS's "MPI task timing breakdown": Pair, Bond, Kspace, Neigh, Comm, Output, Modify, Other, each min /
    avg / max seconds over the ranks (Other has only the average). The last table printed (the last run)."""
    tables = text.split("MPI task timing breakdown:")
    if len(tables) < 2:
        return {}
    regions: Regions = {}
    row = re.compile(rf"^(\w+)\s*\|\s*({NUMBER})?\s*\|\s*({NUMBER})\s*\|\s*({NUMBER})?\s*\|", re.MULTILINE)
    for match in row.finditer(tables[-1].split("\n\n")[0]):
        name, low, avg, high = match.groups()
        average = float(avg)
        regions[name.lower()] = region(float(low) if low else average, average, float(high) if high else average)
    return regions


def gromacs_regions(text: str) -> Regions:
    """GROMACS's "R E A L   C Y C L E   A N D   T I M E   A C C O U N T I N G" table: each activity's wall time
    (seconds, summed over its ranks and threads as GROMACS reports it; no per-rank spread), named in lower case
    with underscores."""
    start = text.find("R E A L   C Y C L E   A N D   T I M E   A C C O U N T I N G")
    if start < 0:
        return {}
    regions: Regions = {}
    row = re.compile(rf"^ ([A-Za-z][A-Za-z .()/+-]*?)\s+(\d+)\s+(\d+)\s+({NUMBER}|-)\s+({NUMBER})\s+({NUMBER})\s+"
                     rf"({NUMBER})\s*$", re.MULTILINE)
    body = text[start:].split("Total", 1)[0]
    for match in row.finditer(body):
        name = re.sub(r"[^a-z0-9]+", "_", match[1].strip().lower()).strip("_")
        seconds = float(match[5])
        regions[name] = region(seconds, seconds, seconds, calls=int(match[4]) if match[4].isdigit() else 1)
    return regions


@dataclass(frozen=True)
class SelfCheck:
    """The line in which a program judges its own result (NPB's `Verification = SUCCESSFUL`): its named group
    `value` reads `passed` on a good run."""

    name: str
    pattern: str
    passed: str

    def line(self, text: str) -> str | None:
        """The verdict's line as printed, None where the program printed none."""
        match = re.search(self.pattern, text, re.MULTILINE)
        return " ".join(match[0].split()) if match else None

    def passes(self, text: str) -> bool:
        match = re.search(self.pattern, text, re.MULTILINE)
        return match is not None and match["value"] == self.passed


@dataclass(frozen=True)
class Fact:
    """Something a program says of its own run (its class, zones, processes): the first match's group `value`,
    a whole number where it is one."""

    name: str
    pattern: str

    def read(self, text: str) -> int | str | None:
        match = re.search(self.pattern, text, re.MULTILINE)
        if not match:
            return None
        return int(match["value"]) if match["value"].isdigit() else match["value"]


@dataclass(frozen=True)
class Parser:
    figures: tuple[FigureRule, ...]
    loop_time: str  # the figure that is the run's time
    regions: RegionReader
    communication: tuple[str, ...]  # regions that are communication (the rest: computation)
    check: str  # a pattern a finished run prints
    verdict: SelfCheck | None = None  # the program's own judgement of its result, a check the run must pass
    facts: tuple[Fact, ...] = ()  # what the program says of its run, kept in the profile
    processes: str | None = None  # the fact that counts its processes: checked against the run's ranks
    threads: str | None = None  # the fact that counts its threads in all: checked against ranks x threads


def no_regions(text: str) -> Regions:
    """A program that prints no timing table."""
    return {}


def npb_mz() -> Parser:
    """The NAS multi-zone benchmarks' summary (BT-MZ, SP-MZ, LU-MZ of NPB 3.x-MZ-MPI): `Time in seconds`, `Mop/s
    total`, `Mop/s/thread`, the `Verification` line, and the class, zones, iterations, processes and threads it
    reports. Its `Time in seconds` has two decimals (10 ms at class S's 0.06 s is a sixth of the run)."""
    summary = r"^\s*{} += +(?P<value>{})\s*$"
    return Parser(
        (FigureRule("loop_time", summary.format(r"Time in seconds", NUMBER), "s", "lower"),
         FigureRule("mops_total", summary.format(r"Mop/s total", NUMBER), "Mop/s", "higher"),
         FigureRule("mops_per_thread", summary.format(r"Mop/s/thread", NUMBER), "Mop/s", "higher")),
        "loop_time", no_regions, (), r"^ \S+ Benchmark Completed\.",
        SelfCheck("verification", summary.format("Verification", r"\w+"), "SUCCESSFUL"),
        (Fact("class", summary.format("Class", r"\w+")),
         Fact("zones_x", r"^\s*Number of zones: +(?P<value>\d+) x +\d+\s*$"),
         Fact("zones_y", r"^\s*Number of zones: +\d+ x +(?P<value>\d+)\s*$"),
         Fact("iterations", summary.format("Iterations", r"\d+")),
         Fact("processes", summary.format("Total processes", r"\d+")),
         Fact("threads", summary.format("Total threads", r"\d+"))),
        "processes", "threads")


PARSERS = {
    "lammps": Parser(
        (FigureRule("loop_time", rf"^Loop time of (?P<value>{NUMBER}) on", "s", "lower"),
         FigureRule("timesteps_per_second", rf"^Performance:.*?(?P<value>{NUMBER}) timesteps/s", "1/s", "higher"),
         FigureRule("katom_steps_per_second", rf"^Performance:.*?(?P<value>{NUMBER}) katom-step/s", "1000/s",
                    "higher")),
        "loop_time", lammps_regions, ("comm",), r"^Total wall time:"),
    "gromacs": Parser(
        (FigureRule("ns_per_day", rf"^Performance:\s+(?P<value>{NUMBER})", "ns/day", "higher"),
         FigureRule("loop_time", rf"^\s+Time:\s+{NUMBER}\s+(?P<value>{NUMBER})", "s", "lower")),
        "loop_time", gromacs_regions, ("comm_coord", "comm_energies", "pp_domain_decomp", "wait_comm_f",
                                       "wait_comm_coord", "comm_f"), r"^Performance:"),
    "npb-mz": npb_mz(),
}
