"""The machine a run happens on, as hwloc sees it: packages, cores, hardware threads, NUMA nodes, caches,
and where each core sits (`Site`: its package and the first cache it shares), which placement chooses from.

`parse_topology` is pure (hwloc XML in, `Machine` out); `local_machine` runs hwloc's `lstopo`.
Without hwloc the core count falls back to the operating system's CPU count, and says so.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Cache:
    level: int
    kind: str  # "data", "instruction" or "unified"
    size_bytes: int
    count: int  # instances in the machine
    cores_sharing: int  # cores under one instance


@dataclass(frozen=True)
class Site:
    """One core: hwloc's logical index (what Open MPI's rankfile counts), the operating system's number of its
    first hardware thread (what taskset, MPICH and Slurm count), its package, and the first cache it shares with
    other cores (its own index when it shares none): cores with the same `shared` compete for that cache."""

    logical: int
    cpu: int
    package: int
    shared: int


@dataclass(frozen=True)
class Machine:
    hostname: str
    packages: int
    cores: int
    pus: int
    numa_nodes: int
    caches: tuple[Cache, ...] = field(default_factory=tuple)
    source: str = "hwloc"
    sites: tuple[Site, ...] = field(default_factory=tuple)  # every core in hwloc's logical order

    @property
    def threads_per_core(self) -> int:
        return max(1, self.pus // max(1, self.cores))

    @property
    def cores_per_package(self) -> int:
        return max(1, self.cores // max(1, self.packages))


_CACHE_KINDS = {"0": "unified", "1": "data", "2": "instruction"}


def _count(node: ET.Element, kind: str) -> int:
    return sum(1 for o in node.iter("object") if o.get("type") == kind)


def _sites(machine: ET.Element) -> tuple[Site, ...]:
    """Each core with its package and the smallest cache above it that holds more than one core, numbered in order
    of first appearance (a core that shares no cache gets a number of its own)."""
    found: list[tuple[int, int, int]] = []  # (OS number, package, the shared cache's id(), or minus the core's place)

    def walk(node: ET.Element, package: int, shared: ET.Element | None) -> None:
        kind = node.get("type", "")
        if kind == "Package":
            package = int(node.get("os_index", "0"))
        if kind.endswith("Cache") and shared is None and _count(node, "Core") > 1:
            shared = node
        if kind == "Core":
            pu = next((o for o in node.iter("object") if o.get("type") == "PU"), node)
            found.append((int(pu.get("os_index", "0")), package, id(shared) if shared is not None else -1 - len(found)))
            return
        for child in node.findall("object"):
            walk(child, package, shared)

    walk(machine, 0, None)
    groups: dict[int, int] = {}
    return tuple(Site(i, cpu, package, groups.setdefault(key, len(groups)))
                 for i, (cpu, package, key) in enumerate(found))


def parse_topology(xml_text: str, hostname: str = "") -> Machine:
    """Builds a Machine from `lstopo --of xml` output (hwloc 2.x)."""
    root = ET.fromstring(xml_text)
    machine = next(o for o in root.iter("object") if o.get("type") == "Machine")
    caches: dict[tuple[int, str], list[tuple[int, int]]] = {}
    for obj in machine.iter("object"):
        kind = obj.get("type", "")
        if kind.endswith("Cache"):
            key = (int(obj.get("depth", "0")), _CACHE_KINDS.get(obj.get("cache_type", "0"), "unified"))
            caches.setdefault(key, []).append((int(obj.get("cache_size", "0")), _count(obj, "Core")))
    summary = [
        Cache(level, kind, instances[0][0], len(instances), max(1, instances[0][1]))
        for (level, kind), instances in sorted(caches.items())
    ]
    return Machine(
        hostname=hostname or machine.get("name", "") or socket.gethostname(),
        packages=max(1, _count(machine, "Package")),
        cores=max(1, _count(machine, "Core")),
        pus=max(1, _count(machine, "PU")),
        numa_nodes=max(1, _count(machine, "NUMANode")),
        caches=tuple(summary),
        sites=_sites(machine),
    )


def local_machine() -> Machine:
    """This machine, from hwloc's lstopo when it is installed."""
    lstopo = shutil.which("lstopo-no-graphics") or shutil.which("lstopo")
    hostname = socket.gethostname()
    if lstopo:
        result = subprocess.run([lstopo, "--of", "xml"], capture_output=True, text=True, check=False)
        if result.returncode == 0:
            return parse_topology(result.stdout, hostname)
    cpus = len(os.sched_getaffinity(0))
    cores = tuple(Site(i, cpu, 0, i) for i, cpu in enumerate(sorted(os.sched_getaffinity(0))))
    return Machine(hostname, 1, cpus, cpus, 1, (), source="os (hwloc not found: install hwloc)", sites=cores)
