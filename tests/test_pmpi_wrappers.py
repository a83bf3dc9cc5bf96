"""The counting library's wrappers come from one table (kernels/pmpi/routines.py), written out for the C binding
and Open MPI's Fortran one by kernels/pmpi/wrappers.py at build time (issue 43): the table's rules, and the built
libraries' exports, which must name every routine of it."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from hybridperf.launch import pmpi

PMPI = Path(__file__).resolve().parents[1] / "kernels" / "pmpi"
LIB_DIR = pmpi.default_lib_dir()


def _module(name: str) -> ModuleType:
    """routines.py or wrappers.py, as CMake runs them (wrappers.py imports routines by its bare name)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, PMPI / f"{name}.py")
        assert spec and spec.loader
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


routines, wrappers = _module("routines"), _module("wrappers")


def test_the_table_names_each_routine_once_in_a_known_class_and_form():
    names = [r.name for r in routines.ROUTINES]
    counts = [len(routines.POINT_TO_POINT), len(routines.COLLECTIVES), len(routines.ONE_SIDED)]
    assert counts == [19, 34, 22] and len(names) == len(set(names)) == 75
    assert {r.cls for r in routines.ROUTINES} == {"HP_P2P", "HP_COLLECTIVE", "HP_BARRIER", "HP_ONE_SIDED"}
    assert {r.form for r in routines.ROUTINES} == {"blocking", "started", "persistent"}
    assert all(r.params.endswith("MPI_Request *req") for r in routines.ROUTINES if r.form != "blocking")


def test_every_collective_has_its_non_blocking_form_traced_as_posted():
    collectives = {r.name: r for r in routines.COLLECTIVES}
    blocking = [r for r in collectives.values() if r.form == "blocking"]
    assert blocking
    for r in blocking:
        posted = collectives["I" + r.name.lower()]
        assert posted.bytes == r.bytes and posted.trace == (r.trace and f"hp_trace_posted({r.trace})")


def test_a_c_expression_becomes_the_fortran_bindings_reading_of_its_pointers():
    [gather] = [r for r in routines.ROUTINES if r.name == "Gather"]
    assert wrappers.fortran_expression(gather, gather.bytes) == \
        "hp_bytes_gather(hp_f_in_place(sbuf), *scount, hp_f_type(stype), *rcount, hp_f_type(rtype))"
    # a name inside a string is not a parameter
    odd = routines.Routine("Scan", "HP_COLLECTIVE", "int scan, MPI_Comm comm", trace='f(&c_, "scan", scan, comm)')
    assert wrappers.fortran_expression(odd, odd.trace) == 'f(&c_, "scan", *scan, hp_f_comm(comm))'


def test_an_expression_the_fortran_binding_cannot_read_stops_the_build_naming_the_routine():
    win = routines.Routine("Win_thing", "HP_ONE_SIDED", "MPI_Win win", bytes="hp_win_bytes(win)")
    with pytest.raises(ValueError, match="MPI_Win_thing.*win"):
        wrappers.fortran_wrapper(win)


def test_a_status_the_trace_reads_is_supplied_when_ignored_in_both_bindings():
    [recv] = [r for r in routines.ROUTINES if r.name == "Recv"]
    c, fortran = wrappers.c_wrapper(recv), wrappers.fortran_wrapper(recv)
    assert "hp_trace_status(status, &own)" in c and "PMPI_Recv(buf, count, type, src, tag, comm, st)" in c
    assert "hp_f_status_for(status, own)" in fortran and "hp_f_status(st, &c_status)" in fortran


@pytest.mark.kernel
@pytest.mark.parametrize("flavor", ["openmpi", "mpich"])
def test_the_built_library_exports_every_routine_of_the_table(flavor: str):
    library = pmpi.library_path(flavor, LIB_DIR)
    if not library.exists():
        pytest.skip(f"no {flavor} library built (docs/pmpi.md)")
    nm = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True)
    names = {line.split()[-1] for line in nm.stdout.splitlines()}
    assert {f"MPI_{r.name}" for r in routines.ROUTINES} <= names
    fortran = {alias for r in routines.ROUTINES
               for alias in (f"mpi_{r.name.lower()}_", f"mpi_{r.name.lower()}_f08_", f"MPI_{r.name.upper()}")}
    assert fortran <= names if flavor == "openmpi" else not fortran & names
    assert not [n for n in names if re.fullmatch(r"pmpi_\w+", n)]  # Open MPI's Fortran PMPI routines are called, not ours
