"""The backends a study runs on, by name — the one place a backend is chosen. Each is a plugin: a `Kind` named
in the package's entry points (group `hybridperf.backends`, pyproject.toml), loaded on first use, so that study/
never imports simulate/ and another package may add one. A kind declares what it is: whether its runs are exact
(replays: one block decides, nothing warms up), whether it starts processes here (then a quiet machine matters),
what a node is, how many cores one has where a spec does not say, and how many nodes it has."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Callable, TYPE_CHECKING

from hybridperf.launch.machine import local_machine

if TYPE_CHECKING:
    from hybridperf.study.run import Backend
    from hybridperf.study.spec import Study

GROUP = "hybridperf.backends"
Say = Callable[[str], None]


@dataclass(frozen=True)
class Kind:
    name: str
    make: Callable[["Study", Path, Say], "Backend"]
    exact: bool  # its runs are replays, exact under their inputs: one block decides a race
    launches: bool  # it starts the runs on this machine: whether the machine is quiet matters
    node: str  # what a node is, in words
    cores: Callable[[], int]  # cores per node where a spec does not say
    nodes: int | None = None  # the most nodes it has (the local machine: one); None: as many as a study asks


@cache
def kinds() -> dict[str, Kind]:
    """Every registered backend, by name (the entry points read once)."""
    found = {}
    for point in entry_points(group=GROUP):
        kind = point.load()
        if not isinstance(kind, Kind) or kind.name != point.name:
            raise TypeError(f"entry point {point.name} = {point.value} is not a backend Kind of that name")
        found[kind.name] = kind
    return found


def kind_of(name: str) -> Kind:
    known = kinds()
    if name not in known:
        raise ValueError(f"unknown backend '{name}': one of {', '.join(sorted(known))}")
    return known[name]


def backend_for(study: "Study", results: Path, say: Say = lambda line: None) -> "Backend":
    """The study's backend, made for its results directory."""
    return kind_of(study.backend).make(study, results, say)


def cores_per_node(backend: str) -> int:
    """Cores per node when a spec does not say: the backend's node's."""
    return kind_of(backend).cores()


def this_machine_cores() -> int:
    return local_machine().cores
