"""libhybridperf-mpi.so (kernels/pmpi, docs/pmpi.md): an unmodified MPI program, run with the library preloaded,
gets its communication counted by class exactly as our kernels count theirs.

Small C and Fortran programs (tests/pmpi/) are compiled here with each MPI's own compiler wrappers and run with
2 ranks through hybridperf's launcher; every count they make is known in advance and asserted exactly, with Open
MPI and with MPICH. hybridperf-md, under HYBRIDPERF_MPI_PCONTROL=1, must count exactly what its own profile says.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import CORES
from hybridperf import profile
from hybridperf.app import launch as app_launch
from hybridperf.launch import kernels, pmpi
from hybridperf.launch.lines import Configuration, build_launch

REPO = Path(__file__).resolve().parents[1]
PROGRAMS = Path(__file__).parent / "pmpi"
LIB_DIR = pmpi.default_lib_dir()
FLAVORS = ("openmpi", "mpich")
COMPILERS = {"openmpi": ("mpicc.openmpi", "mpif90.openmpi"), "mpich": ("mpicc.mpich", "mpif90.mpich")}


def _libomp() -> Path | None:
    """LLVM's libomp as `openmp_runtime: libomp` finds it, or None where it is not installed."""
    try:
        return app_launch.llvm_libomp()
    except app_launch.AppError:
        return None


LIBOMP = _libomp()
RANKS = 2
_counter = itertools.count()


def require(flavor: str) -> tuple[str, str]:
    """The flavour's C and Fortran compilers; skips when that MPI is not installed or its library not built."""
    cc, fc = COMPILERS[flavor]
    if not (shutil.which(cc) and shutil.which(fc) and kernels.launcher_for(flavor)):
        pytest.skip(f"{flavor} is not installed with its compilers ({cc}, {fc}): scripts/bootstrap.sh installs it")
    if not pmpi.library_path(flavor, LIB_DIR).is_file():
        pytest.fail(f"{pmpi.library_path(flavor, LIB_DIR)} is not built although {flavor} is installed")
    return cc, fc


def compile_program(out: Path, compiler: str, source: str, *flags: str) -> Path:
    proc = subprocess.run([compiler, "-O1", *flags, str(PROGRAMS / source), "-o", str(out)], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="session", params=FLAVORS)
def built(request, tmp_path_factory) -> dict[str, Any]:
    """Every test program compiled for one MPI: {"flavor": ..., name: path}."""
    flavor = request.param
    cc, fc = require(flavor)
    out = tmp_path_factory.mktemp(f"pmpi-{flavor}")
    programs: dict[str, Any] = {"flavor": flavor}
    for name in ("halo", "waits", "one_sided"):
        programs[name] = compile_program(out / name, cc, f"{name}.c")
    for name in ("threads", "regions"):
        programs[name] = compile_program(out / name, cc, f"{name}.c", "-fopenmp")
    programs["halo_f"] = compile_program(out / "halo_f", fc, "halo.f90")
    programs["halo_f08"] = compile_program(out / "halo_f08", fc, "halo_f08.f90")
    return programs


def libomp_program(flavor: str, work: Path) -> Path:
    """tests/pmpi/regions.c linked with LLVM's libomp (GCC's code runs on it through its GOMP_ entry points);
    skips when libomp is not installed."""
    if LIBOMP is None:
        pytest.skip("LLVM's libomp is not installed (apt-get install libomp-dev)")
    cc = COMPILERS[flavor][0]
    obj = work / "regions.o"
    compile_program(obj, cc, "regions.c", "-fopenmp", "-c")
    binary = work / "regions-libomp"
    link = subprocess.run([cc, str(obj), "-o", str(binary), f"-L{LIBOMP.parent}", "-l:libomp.so.5",
                           f"-Wl,-rpath,{LIBOMP.parent}"], capture_output=True, text=True)
    assert link.returncode == 0, link.stderr
    return binary


def counted(flavor: str, argv: list[str], work: Path, threads: int = 1, env: dict[str, str] | None = None,
            profile_path: Path | None = None) -> dict[str, Any] | None:
    """Runs argv on RANKS ranks with the library preloaded; its profile (None when it wrote none)."""
    return counted_run(flavor, argv, work, threads, env, profile_path)[0]


def counted_run(flavor: str, argv: list[str], work: Path, threads: int = 1, env: dict[str, str] | None = None,
                profile_path: Path | None = None, ranks: int = RANKS) -> tuple[dict[str, Any] | None, str]:
    """counted's profile on `ranks` ranks, and what the program printed."""
    path = profile_path or work / f"counts-{next(_counter)}.json"
    config = Configuration(1, ranks, threads, CORES, oversubscribe=True)
    extra = {"LD_PRELOAD": str(pmpi.library_path(flavor, LIB_DIR)), "HYBRIDPERF_MPI_PROFILE": str(path), **(env or {})}
    launch = build_launch(config, flavor, argv, as_root=os.geteuid() == 0,  # type: ignore[arg-type]
                          launcher=kernels.launcher_for(flavor), extra_env=extra)
    proc = subprocess.run(launch.command, env={**os.environ, **launch.env}, capture_output=True, text=True,
                          timeout=120, cwd=work)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return (json.loads(path.read_text()) if path.exists() else None), proc.stdout


def counts(document: dict[str, Any], cls: str) -> tuple[int, int, int]:
    section = document["one_sided"] if cls == "one_sided" else document["comm"][cls]
    return section["calls"], section["messages"], section["bytes"]


def check_contract(document: dict[str, Any]) -> None:
    """The documented keys, and "comm" valid as a kernel profile's "comm" (the profile schema's own definition)."""
    assert document["schema"] == "hybridperf-mpi/1"
    assert set(document) >= {"mpi_library", "ranks", "thread_level", "counting", "comm", "one_sided", "openmp_tool",
                             "regions"}
    assert document["ranks"] == RANKS
    elapsed, mpi = document["rank_times"]["elapsed"], document["rank_times"]["mpi"]  # the counting window, per rank
    assert len(elapsed) == len(mpi) == RANKS and all(0 <= m <= e for m, e in zip(mpi, elapsed))
    schema = profile.schema()
    comm_schema = {"$defs": schema["$defs"], **schema["properties"]["comm"]}
    jsonschema.validate(document["comm"], comm_schema)
    jsonschema.validate(document["one_sided"], {"$defs": schema["$defs"], "$ref": "#/$defs/comm_class"})
    for cls in ("p2p", "collective", "barrier"):
        section = document["comm"][cls]
        assert sum(b["count"] for b in section["size_histogram"]) == section["messages"]
        assert section["bytes_per_rank"]["avg"] * RANKS == pytest.approx(section["bytes"])
    for section in (*document["comm"].values(), document["one_sided"]):  # every counted call timed once
        assert section.get("per_call", {"count": 0})["count"] == section["calls"]


# ---------------------------------------------------------------- (a) C halo exchange, every form


@pytest.mark.kernel
def test_c_halo_exchange_is_counted_exactly(built, tmp_path):
    """Per rank, per step: a Sendrecv (1 message of N doubles), 2 Irecv + 2 Isend + 1 Waitall (2 messages), an
    Allreduce of 1 double. Then Recv_init + Send_init, K x (Startall + Waitall) (1 message of 7 ints each), an
    in-place Allgather (its 2 ints, read from the receive arguments), an Alltoall (1 int to each of 2 peers), an
    Iallreduce of 3 doubles and its Wait (collective), and one Barrier."""
    steps, n, rounds = 3, 100, 4
    doc = counted(built["flavor"], [str(built["halo"]), str(steps), str(n), str(rounds)], tmp_path)
    check_contract(doc)
    assert doc["counting"] == "init-to-finalize"
    assert doc["thread_level"] == {"requested": "MPI_THREAD_FUNNELED", "provided": "MPI_THREAD_FUNNELED"}
    assert doc["mpi_library"].lower().startswith("open mpi" if built["flavor"] == "openmpi" else "mpich")
    p2p_calls = steps * (1 + 5) + 2 + 2 * rounds
    p2p_messages = 3 * steps + rounds
    assert counts(doc, "p2p") == (RANKS * p2p_calls, RANKS * p2p_messages, RANKS * (3 * steps * 8 * n + rounds * 28))
    assert counts(doc, "collective") == (RANKS * (steps + 4), RANKS * (steps + 3),
                                         RANKS * (steps * 8 + 8 + RANKS * 4 + 24))
    assert counts(doc, "barrier") == (RANKS, 0, 0)
    assert counts(doc, "one_sided") == (0, 0, 0)
    sizes = {b["min_bytes"]: b["count"] for b in doc["comm"]["p2p"]["size_histogram"]}
    assert sizes == {512: RANKS * 3 * steps, 16: RANKS * rounds}  # 800 B in [512, 1024), 28 B in [16, 32)


@pytest.mark.kernel
def test_nothing_is_written_without_hybridperf_mpi_profile(built, tmp_path):
    config = Configuration(1, RANKS, 1, CORES, oversubscribe=True)
    launch = build_launch(config, built["flavor"], [str(built["halo"]), "1", "10", "1"], as_root=os.geteuid() == 0,
                          launcher=kernels.launcher_for(built["flavor"]),
                          extra_env={"LD_PRELOAD": str(pmpi.library_path(built["flavor"], LIB_DIR))})
    env = {k: v for k, v in {**os.environ, **launch.env}.items() if k != "HYBRIDPERF_MPI_PROFILE"}
    proc = subprocess.run(launch.command, env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.kernel
def test_pcontrol_mode_counts_nothing_until_the_program_says_so(built, tmp_path):
    """halo never calls MPI_Pcontrol: under HYBRIDPERF_MPI_PCONTROL=1 nothing is counted, and the file says why."""
    doc = counted(built["flavor"], [str(built["halo"]), "2", "10", "1"], tmp_path,
                  env={"HYBRIDPERF_MPI_PCONTROL": "1"})
    assert doc["counting"] == "pcontrol"
    assert all(counts(doc, cls) == (0, 0, 0) for cls in ("p2p", "collective", "barrier", "one_sided"))


# ---------------------------------------------------------------- (b) Fortran


@pytest.mark.kernel
@pytest.mark.parametrize("binding", ["halo_f", "halo_f08"])
def test_fortran_halo_exchange_is_counted_exactly(built, tmp_path, binding):
    """mpif.h / `use mpi` and mpi_f08: per step a Sendrecv, 2 Irecv + 2 Isend + Waitall, an Allreduce of 1 double;
    then an in-place Allgather (Fortran's MPI_IN_PLACE: 2 integers) and a Barrier. Open MPI's Fortran routines
    call PMPI_ directly (the library wraps them); MPICH's call the C MPI_ routines (which count them)."""
    if binding == "halo_f08" and built["flavor"] == "mpich":
        pytest.skip("MPICH's mpi_f08 routines call PMPI_Wait*, PMPI_Barrier, PMPI_Init directly; not wrapped "
                    "(docs/pmpi.md): mpif.h and `use mpi` are")
    steps, n = 3, 100
    doc = counted(built["flavor"], [str(built[binding]), str(steps), str(n)], tmp_path)
    check_contract(doc)
    assert doc["thread_level"]["requested"] == "MPI_THREAD_SINGLE"
    assert counts(doc, "p2p") == (RANKS * 6 * steps, RANKS * 3 * steps, RANKS * 3 * steps * 8 * n)
    assert counts(doc, "collective") == (RANKS * (steps + 1), RANKS * (steps + 1), RANKS * (steps * 8 + 8))
    assert counts(doc, "barrier") == (RANKS, 0, 0)


# ---------------------------------------------------------------- (c) waits go to their request's class


@pytest.mark.kernel
def test_waits_are_counted_in_the_class_of_their_request(built, tmp_path):
    """Ibarrier + Wait: 2 barrier calls, and the Wait holds rank 0's late arrival (PAUSE seconds) on the other rank;
    Iallreduce + Waitany and Ibcast + Waitsome: 4 collective calls, 2 messages of 8 bytes; Irecv + Isend + 2 Waitany:
    4 point-to-point calls, 1 message of 4 bytes. The pause is the barrier class's: of the three classes of the
    same run, it holds the longest call (no bound on a time, which a loaded machine could stretch)."""
    pause = 0.3
    doc = counted(built["flavor"], [str(built["waits"]), str(pause)], tmp_path)
    check_contract(doc)
    assert counts(doc, "barrier") == (RANKS * 2, 0, 0)
    assert counts(doc, "collective") == (RANKS * 4, RANKS * 2, RANKS * 16)
    assert counts(doc, "p2p") == (RANKS * 4, RANKS, RANKS * 4)
    longest = {cls: doc["comm"][cls]["time"]["max"] for cls in ("barrier", "collective", "p2p")}
    assert max(longest, key=longest.get) == "barrier", longest


# ---------------------------------------------------------------- threads, one-sided, OpenMP regions


@pytest.mark.kernel
def test_concurrent_threads_counts_add_up_exactly(built, tmp_path):
    """MPI_THREAD_MULTIPLE, 2 threads per rank each making ROUNDS Sendrecvs of 16 doubles at once."""
    rounds = 50
    doc = counted(built["flavor"], [str(built["threads"]), str(rounds)], tmp_path, threads=2)
    assert doc["thread_level"] == {"requested": "MPI_THREAD_MULTIPLE", "provided": "MPI_THREAD_MULTIPLE"}
    assert counts(doc, "p2p") == (RANKS * 2 * rounds, RANKS * 2 * rounds, RANKS * 2 * rounds * 128)
    assert doc["comm"]["p2p"]["per_call"]["count"] == RANKS * 2 * rounds  # the threads' histograms added


@pytest.mark.kernel
def test_one_sided_calls_have_a_class_of_their_own(built, tmp_path):
    """2 fences, a put of 8 ints, a get of 4, an accumulate of 2, a lock, a put of 1, an unlock: 8 calls, 4 messages
    of the origin buffers (60 bytes) per rank; nothing in "comm"."""
    doc = counted(built["flavor"], [str(built["one_sided"])], tmp_path)
    check_contract(doc)
    assert counts(doc, "one_sided") == (RANKS * 8, RANKS * 4, RANKS * 60)
    assert all(counts(doc, cls) == (0, 0, 0) for cls in ("p2p", "collective", "barrier"))


@pytest.mark.kernel
def test_openmp_regions_are_unavailable_with_libgomp(built, tmp_path):
    doc = counted(built["flavor"], [str(built["regions"]), "3"], tmp_path, threads=2)
    assert doc["openmp_tool"] == "unavailable" and doc["regions"] == {} and "openmp_idle" not in doc
    assert counts(doc, "collective") == (RANKS * 3, RANKS * 3, RANKS * 3 * 8)


@pytest.mark.kernel
def test_openmp_regions_through_ompt_with_libomp(built, tmp_path):
    """The same program linked with LLVM's libomp (GCC's code runs on it through its GOMP_ entry points): region A
    5 times, region B once, 2 threads each, named the same on both ranks."""
    binary = libomp_program(built["flavor"], tmp_path)
    doc = counted(built["flavor"], [str(binary), "5"], tmp_path, threads=2)
    assert doc["openmp_tool"] == "ompt"
    regions = sorted(doc["regions"].values(), key=lambda r: -r["calls"])
    assert [(r["calls"], r["threads"]) for r in regions] == [(5, 2), (1, 2)]
    assert all(r["time"]["min"] > 0 and r["time"]["max_rank"] in (0, 1) for r in regions)
    # the threads' idle time, per rank (POP's OpenMP factors): the same regions' seconds, split
    idle = doc["openmp_idle"]
    assert idle["unsplit_regions"] == [0] * RANKS
    assert sum(idle["regions"]) == pytest.approx(RANKS * sum(r["time"]["avg"] for r in regions), rel=1e-9)
    assert all(0 <= lb and 0 <= s and lb + s <= t for lb, s, t in zip(idle["load_imbalance"], idle["scheduling"],
                                                                      idle["regions"]))


# ---------------------------------------------------------------- (d) hybridperf-md against its own profile


@pytest.fixture(scope="session")
def md_for(tmp_path_factory):
    """hybridperf-md built with each MPI: this checkout's own build for the MPI it uses, another build of the
    same sources (CMake, MPI_C_COMPILER) for the other."""
    binary = kernels.kernel_path("md")
    own = kernels.mpi_flavor(kernels.build_info(binary)["build"]["mpi_library"])

    def build(flavor: str) -> Path:
        if flavor == own:
            return binary
        cc, _ = require(flavor)
        where = tmp_path_factory.mktemp(f"md-{flavor}")
        for step in (["cmake", "-S", str(REPO), "-B", str(where), f"-DMPI_C_COMPILER={cc}", "-DHYBRIDPERF_NATIVE=OFF"],
                     ["cmake", "--build", str(where), "--target", "hybridperf-md", "-j", "2"]):
            proc = subprocess.run(step, capture_output=True, text=True)
            assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        return where / "bin" / "hybridperf-md"

    return build


@pytest.mark.kernel
@pytest.mark.parametrize("flavor", FLAVORS)
def test_md_counts_equal_the_kernels_own_profile(md_for, tmp_path, flavor):
    """hp_comm_count calls MPI_Pcontrol, so under HYBRIDPERF_MPI_PCONTROL=1 the library counts the kernel's measured
    loop: calls, messages, bytes, per-rank spread and size histogram equal the kernel's own "comm" exactly (the
    rebuild's halo exchanges included: four calls each, isend, probe, recv, wait, in both).

    Times: the kernel's clock is read outside the library's, so the library's time of the same calls lies within the
    kernel's. By how much (what the library costs per call, about 0.1 us here) is a timing, so bench/pmpi_overhead.py
    measures it, not this test: here 5% of a few microsecond collectives came and went with the machine's load."""
    binary = md_for(flavor)
    kernel_profile = tmp_path / "md.json"
    doc = counted(flavor, [str(binary), "-s", "8", "--steps", "20", "--profile", str(kernel_profile)], tmp_path,
                  env={"HYBRIDPERF_MPI_PCONTROL": "1"})
    own = profile.load(kernel_profile)
    check_contract(doc)
    assert doc["counting"] == "pcontrol"
    assert doc["thread_level"] == own["run"]["mpi_thread_level"]
    assert own["comm"]["p2p"]["calls"] > own["comm"]["p2p"]["messages"] > 0  # a rebuild happened in the loop
    for cls in ("p2p", "collective", "barrier"):
        ours, theirs = doc["comm"][cls], own["comm"][cls]
        for key in ("calls", "messages", "bytes", "size_histogram", "bytes_per_rank", "messages_per_rank"):
            assert ours[key] == theirs[key], (cls, key)
        assert ours["time"]["avg"] <= theirs["time"]["avg"], cls


# ---------------------------------------------------------------- the library and its chooser


@pytest.mark.kernel
def test_library_exports_only_mpi_and_ompt(built):
    """Its own functions and its copy of common/ stay local: a program's symbols (our kernels link common/ too) are
    never interposed on."""
    nm = subprocess.run(["nm", "-D", "--defined-only", str(pmpi.library_path(built["flavor"], LIB_DIR))],
                        capture_output=True, text=True, check=True)
    names = [line.split()[-1] for line in nm.stdout.splitlines()]
    assert "MPI_Send" in names and "ompt_start_tool" in names
    assert all(n.startswith(("MPI_", "mpi_")) or n == "ompt_start_tool" for n in names)
    fortran = {"mpi_send_", "mpi_send_f08_", "MPI_SEND"}
    assert fortran <= set(names) if built["flavor"] == "openmpi" else not fortran & set(names)


@pytest.mark.kernel
def test_library_for_a_binary_follows_its_mpi(built):
    found = pmpi.library_for(built["halo"])
    assert found.flavor == built["flavor"] and found.path == pmpi.library_path(built["flavor"], LIB_DIR)
    assert found.path.is_file() and found.reason == ""


OPENMPI_LDD = "\tlibmpi.so.40 => /lib/x86_64-linux-gnu/libmpi.so.40 (0x00007f)\n\tlibc.so.6 => /lib/libc.so.6\n"
MPICH_LDD = "\tlibmpich.so.12 => /lib/x86_64-linux-gnu/libmpich.so.12 (0x00007f)\n"


@pytest.mark.parametrize("ldd, flavor", [(OPENMPI_LDD, "openmpi"), (MPICH_LDD, "mpich"),
                                         ("\tlibmpi.so.12 => /opt/mpich/lib/libmpi.so.12\n", "mpich"),
                                         ("\tlibc.so.6 => /lib/libc.so.6\n", None)])
def test_mpi_flavor_from_ldd(ldd, flavor):
    assert pmpi.mpi_flavor(ldd) == flavor


def test_choose_says_why_there_is_no_library(tmp_path):
    assert pmpi.choose(OPENMPI_LDD, tmp_path, {"openmpi"}).path == tmp_path / "openmpi" / "libhybridperf-mpi.so"
    missing = pmpi.choose(MPICH_LDD, tmp_path, {"openmpi"})
    assert missing.path is None and missing.flavor == "mpich" and "not built" in missing.reason
    assert "not linked with an MPI" in pmpi.choose("\tlibc.so.6\n", tmp_path, {"openmpi"}).reason
    assert "statically linked" in pmpi.choose(None, tmp_path, {"openmpi"}).reason
