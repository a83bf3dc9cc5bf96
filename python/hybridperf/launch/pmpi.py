"""Which libhybridperf-mpi.so a program needs (docs/pmpi.md).

The counting library is built once per MPI library (their ABIs differ), as build/lib/<flavour>/libhybridperf-mpi.so,
and a program must be run with the one built for the MPI it is linked with. That is read from the dynamic libraries
the program loads (ldd), never guessed from the mpirun on PATH: Open MPI's libmpi.so.40 (every release since 3.0)
means openmpi; MPICH's libmpich.so.12, or the libmpi.so.12 some distributions name it, means mpich.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hybridperf.launch import kernels

LIBRARY = "libhybridperf-mpi.so"


@dataclass(frozen=True)
class Counting:
    """The library for one program: `path` when it can be used, else None and `reason` says why."""

    path: Path | None
    flavor: str | None
    reason: str = ""


def mpi_flavor(ldd_output: str) -> str | None:
    """openmpi or mpich, from ldd's listing of a program; None: the program loads no MPI library."""
    if re.search(r"\blibmpich\.so\b|\blibmpi\.so\.12\b", ldd_output):
        return "mpich"
    if re.search(r"\blibmpi\.so\.\d+", ldd_output):
        return "openmpi"
    return None


def library_path(flavor: str, lib_dir: Path) -> Path:
    """Where the build puts the library for a flavour: lib_dir/<flavour>/libhybridperf-mpi.so."""
    return lib_dir / flavor / LIBRARY


def choose(ldd_output: str | None, lib_dir: Path, built: set[str]) -> Counting:
    """The library for a program with this ldd output (None: ldd failed), given the flavours `built` in lib_dir."""
    if ldd_output is None:
        return Counting(None, None, "ldd cannot read the program (not a dynamic executable?): a statically linked "
                                    "program cannot be profiled by an interposed library")
    flavor = mpi_flavor(ldd_output)
    if flavor is None:
        return Counting(None, None, "the program is not linked with an MPI library (ldd shows no libmpi or libmpich)")
    if flavor not in built:
        return Counting(None, flavor, f"{LIBRARY} for {flavor} is not built in {lib_dir}: install {flavor}'s "
                                      "development files (scripts/bootstrap.sh) and run `make build`")
    return Counting(library_path(flavor, lib_dir), flavor)


def default_lib_dir() -> Path:
    """lib beside the kernels' bin folder (kernels.bin_dir: $HYBRIDPERF_BIN_DIR, PATH's, the checkout's build/bin);
    the checkout's build/lib when no kernel is found."""
    directory = kernels.bin_dir()
    return directory.parent / "lib" if directory else (kernels.checkout_build() or Path("build")) / "lib"


def linked(binary: Path, env: dict[str, str] | None = None) -> str | None:
    """ldd's listing of a program's libraries, found with `env` added to this environment (the program's own
    LD_LIBRARY_PATH); None when ldd cannot read it."""
    try:
        result = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=False,
                                env={**os.environ, **(env or {})})
    except OSError:
        return None
    return result.stdout if result.returncode == 0 else None


def library_for(binary: Path, lib_dir: Path | None = None, ldd_output: str | None = None) -> Counting:
    """The counting library for a program binary, from its ldd listing (read here unless given) and what is built."""
    lib_dir = lib_dir or default_lib_dir()
    output = ldd_output if ldd_output is not None else linked(binary)
    built = {flavor for flavor in ("openmpi", "mpich") if library_path(flavor, lib_dir).is_file()}
    return choose(output, lib_dir, built)
