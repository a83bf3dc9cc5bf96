"""Reading a program's figures of merit and timing breakdown from its text output. Pure.

A figure is a regular expression with a named group `value`: the first match's value, times the rule's
scale, is the figure. Ready-made rule sets exist for LAMMPS (the "Loop time" and "Performance" lines and the
"MPI task timing breakdown" table) and GROMACS (ns/day and the "cycle and time accounting" table), so that a
study of either names only its command. A table's rows become regions shaped as a kernel profile's: calls,
time (min, avg, max over ranks; ranks unknown, so 0), imbalance (max / avg - 1)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

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
    return {"calls": calls, "time": stat, "imbalance": maximum / average - 1.0 if average > 0 else 0.0}


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
class Parser:
    figures: tuple[FigureRule, ...]
    loop_time: str  # the figure that is the run's time
    regions: RegionReader
    communication: tuple[str, ...]  # regions that are communication (the rest: computation)
    check: str  # a pattern a finished run prints


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
}
