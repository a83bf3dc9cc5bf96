"""POP's factors (analysis.pop, docs/pop.md) measured on programs whose answers are known in closed form.

Two small MPI(+OpenMP) programs in tests/pmpi/ run under the MPI library: a rank-imbalanced loop at 2 ranks
(rank_imbalance.c: MPI load balance (N + 1) / (2N)), and OpenMP work on LLVM's libomp, whose OMPT interface the
library uses (team_work.c), as a serial section on the master between parallel regions (OpenMP serialization
(S / M + P) / (S + P), at 1 and 2 ranks x 2 threads) or as a parallel region with thread imbalance (OpenMP load
balance (M + 1) / (2M), at 1 rank x 2 threads). The library's file becomes a `kernel: app` profile exactly as an
app's run does (app.profile.build), and analysis.pop's factor of that profile must equal the closed form.

The tolerance. Every busy section spins to a wall-clock deadline (tests/pmpi/spin.h): the tools measure wall-clock
seconds, so a section lasts what the program asks however busy the machine, and a factor that is a ratio of such
sections holds. What the program does not control is D, its seconds outside MPI beyond the work it asked: a thread
descheduled as its deadline passes (this 2-core machine is shared), a thread that starts its part of a region late,
the code between. A factor (a + x) / (b + y) whose closed form is a / b <= 1, with 0 <= x, y <= D and b the
busiest rank's seconds of work, is off by at most D / b. Each program reads the clock around its MPI calls and
prints D (`late`, the most of any rank), so each check allows SLACK + late / b; SLACK = 0.01 covers the difference
between the program's clock readings and the tools' (microseconds: in 15 runs of each check on 2026-11-26 no
factor was further from its closed form than late / b). A fixed tolerance would fail a correct tool on
a busy machine: in one run another process held a core for a quarter of a second, `late` was 0.26 s and the
factor moved by 0.04.

Oversubscription: 2 ranks x 2 threads spinning on 2 cores are oversubscribed by design, so about every other
deadline passes while its thread waits for a core; the closed form still holds (the deadlines are wall-clock), but
`late` reached 0.12 s in one series of runs and the check loosens with it. So every OpenMP factor is checked at 1 rank x 2 threads, where
each thread has a core, and serialization also at 2 x 2, for the OpenMP factors' sum over ranks.

A wrong factor misses by far more: a library that counted the Allreduce's wait as work makes the ranks' times
equal (MPI load balance 1, not 0.75); a tool that timed no serial section gives serialization 1, not 2/3; one that
saw only the slowest thread gives OpenMP load balance 1, not 0.75.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from hybridperf.analysis import pop
from hybridperf.app import profile as app_profile
from hybridperf.app.spec import parse_app
from hybridperf.launch import kernels, pmpi
from test_pmpi import COMPILERS, FLAVORS, LIB_DIR, LIBOMP, compile_program, counted_run

pytestmark = pytest.mark.kernel

SLACK = 0.01
THREADS = 2


@pytest.fixture(scope="module")
def flavor() -> str:
    """The MPI the kernels are built with (one MPI is enough here; tests/test_pmpi.py runs the library on both)."""
    own = kernels.mpi_flavor(kernels.build_info(kernels.kernel_path("md"))["build"]["mpi_library"])
    assert own in FLAVORS and pmpi.library_path(own, LIB_DIR).is_file(), own
    return own


@pytest.fixture(scope="module")
def team_work(flavor, tmp_path_factory) -> Path:
    """team_work.c compiled by GCC and linked with LLVM's libomp (GCC's code runs on it through its GOMP_ entry
    points), whose OMPT interface the MPI library uses."""
    if LIBOMP is None:
        pytest.skip("LLVM's libomp is not installed (apt-get install libomp-dev)")
    cc, out = COMPILERS[flavor][0], tmp_path_factory.mktemp("known") / "team_work"
    obj = compile_program(out.with_suffix(".o"), cc, "team_work.c", "-fopenmp", "-c")
    link = subprocess.run([cc, str(obj), "-o", str(out), f"-L{LIBOMP.parent}", "-l:libomp.so.5",
                           f"-Wl,-rpath,{LIBOMP.parent}"], capture_output=True, text=True)
    assert link.returncode == 0, link.stderr
    return out


def measured(flavor: str, binary: Path, args: list[str], work: Path, ranks: int,
             threads: int = 1) -> tuple[dict[str, float | None], float]:
    """The program run under the MPI library: POP's factors of the `kernel: app` profile made of the library's
    file and the program's output, and the seconds the program says its work ran late."""
    doc, out = counted_run(flavor, [str(binary), *args], work, threads, ranks=ranks)
    assert doc is not None
    spec = parse_app({"command": [str(binary)], "figures": {"loop_time": {"regex": r"time (?P<value>[0-9.]+)"}}},
                     set(), lambda path, message: ValueError(message))
    profile = app_profile.build(
        spec, text=out, source="stdout", program=binary.name, command=[str(binary), *args], start_time="",
        host="localhost", ranks=ranks, threads=threads, ranks_per_node=ranks, nodes=1, environment={}, params={},
        mpi=doc, mpi_library=doc["mpi_library"], openmp_runtime="libomp" if threads > 1 else "none")
    late = re.search(r"late (?P<seconds>[0-9.]+)", out)
    assert late, out
    return pop.of_profile(profile).values, float(late["seconds"])


def test_rank_imbalanced_loop_gives_mpi_load_balance_n_plus_1_over_2n(flavor, tmp_path):
    """Rank r works (r + 1) x 0.25 s in each of 4 rounds: at N = 2 ranks, mean / max = 1.5 / 2 = 0.75 (b = 2 s)."""
    binary = compile_program(tmp_path / "rank_imbalance", COMPILERS[flavor][0], "rank_imbalance.c")
    ranks, rounds, unit = 2, 4, 0.25
    f, late = measured(flavor, binary, [str(rounds), str(unit)], tmp_path, ranks)
    tolerance = SLACK + late / (ranks * unit * rounds)
    assert f["mpi_load_balance"] == pytest.approx((ranks + 1) / (2 * ranks), abs=tolerance)
    assert f["mpi_load_balance_in"] == f["mpi_load_balance"] and f["mpi_load_balance_out"] == 1.0  # one node
    assert f["openmp_parallel_efficiency"] == 1.0  # one thread per rank: no thread ever idles


@pytest.mark.xdist_group("test_pop_known.team_work")  # team_work is made once, on one worker
@pytest.mark.parametrize("ranks", [1, 2])
def test_serial_section_on_the_master_gives_its_serialization_efficiency(team_work, flavor, tmp_path, ranks):
    """Per round the master works S = 0.4 s alone, then M = 2 threads work P = 0.2 s each, 3 rounds: serialization
    = (S / M + P) / (S + P) = 2/3 (b = 1.8 s); the threads are equally busy and the ranks too: load balances 1."""
    rounds, serial, parallel = 3, 0.4, 0.2
    f, late = measured(flavor, team_work, [str(rounds), str(serial), str(parallel), "0"], tmp_path, ranks, THREADS)
    tolerance = SLACK + late / ((serial + parallel) * rounds)
    assert f["openmp_serialization_efficiency"] == pytest.approx(
        (serial / THREADS + parallel) / (serial + parallel), abs=tolerance)
    assert f["openmp_load_balance"] == pytest.approx(1.0, abs=tolerance)
    assert f["mpi_load_balance"] == pytest.approx(1.0, abs=tolerance)


@pytest.mark.xdist_group("test_pop_known.team_work")  # team_work is made once, on one worker
def test_thread_imbalance_gives_openmp_load_balance_m_plus_1_over_2m(team_work, flavor, tmp_path):
    """Thread t works (t + 1) x 0.25 s in each of 4 executions of the region: at M = 2 threads, mean / max = 0.75
    (b = 2 s); nothing runs outside the region: serialization 1."""
    rounds, unit = 4, 0.25
    f, late = measured(flavor, team_work, [str(rounds), "0", str(unit), "1"], tmp_path, 1, THREADS)
    tolerance = SLACK + late / (THREADS * unit * rounds)
    assert f["openmp_load_balance"] == pytest.approx((THREADS + 1) / (2 * THREADS), abs=tolerance)
    assert f["openmp_serialization_efficiency"] == pytest.approx(1.0, abs=tolerance)


def test_a_rank_waiting_in_mpi_counts_only_its_work(flavor, tmp_path, monkeypatch):
    """Hardware counters count outside MPI (kernels/common/hp_counters.h), checked with software ones (task-clock,
    CPU nanoseconds: no machine here has a PMU). rank_imbalance.c at 2 ranks: rank 0 works 1 s and waits 1 s in
    MPI_Allreduce (polling, on a CPU), rank 1 works 2 s. Each rank's task-clock is at most its time outside MPI,
    not its window (rank 0's would be twice as much)."""
    binary = compile_program(tmp_path / "rank_imbalance", COMPILERS[flavor][0], "rank_imbalance.c")
    monkeypatch.setenv("HYBRIDPERF_COUNTERS", "software")
    doc, _ = counted_run(flavor, [str(binary), "4", "0.25"], tmp_path, ranks=2)
    assert doc is not None
    times = doc["rank_times"]
    for rank, (elapsed, mpi, ns) in enumerate(zip(times["elapsed"], times["mpi"], times["counters"]["task-clock"])):
        outside, cpu = elapsed - mpi, ns * 1e-9
        # descheduled, a rank spinning to a wall-clock deadline counts less than its work; never more
        assert 0 < cpu <= outside * 1.02 + 0.01, (rank, cpu, outside, elapsed)
