"""`hybridperf info`'s table, read from the data `info --json` prints: this machine as hwloc sees it, each MPI
launcher's version and each kernel's build. Pure."""

from __future__ import annotations

from typing import Any

from hybridperf.report.tables import Table


def _cache_size(size_bytes: int) -> str:
    return f"{size_bytes / 1024:.0f} KiB" if size_bytes < 1 << 20 else f"{size_bytes / (1 << 20):.0f} MiB"


def table(machine: dict[str, Any], launchers: dict[str, str], kernels: dict[str, dict[str, Any]]) -> Table:
    """Property and value, without headers: the machine's packages, cores, hardware threads, NUMA nodes and caches,
    each launcher's version, and per kernel its path and build (MPI library, OpenMP runtime, compiler) or why it was
    not found. `machine`: `info --json`'s, with the machine's cores_per_package and threads_per_core."""
    m = machine
    rows = [["packages", str(m["packages"])],
            ["cores", f"{m['cores']} ({m['cores_per_package']} per package)"],
            ["hardware threads", f"{m['pus']} ({m['threads_per_core']} per core)"],
            ["NUMA nodes", str(m["numa_nodes"])]]
    rows += [[f"L{c['level']} {c['kind']}", f"{_cache_size(c['size_bytes'])} x {c['count']} "
              f"(shared by {c['cores_sharing']} core(s))"] for c in m["caches"]]
    rows += [[f"launcher {flavor}", version] for flavor, version in launchers.items()]
    for k, d in kernels.items():
        if "error" in d:
            rows.append([f"kernel {k}", d["error"]])
            continue
        b = d["build"]
        rows += [[f"kernel {k}", d["path"]],
                 ["  MPI library", f"{b['mpi_library']} (MPI {b['mpi_standard']})"],
                 ["  OpenMP", f"{b['openmp_runtime']}, OpenMP {b['openmp_version']}"],
                 ["  compiler", f"{b['compiler']}: {b['flags']}"]]
    return f"Machine {m['hostname']} (from {m['source']})", ["", ""], rows
