"""Traces from libhybridperf-mpi.so (docs/pmpi.md "Traces"): with HYBRIDPERF_MPI_TRACE=DIR each rank writes a SimGrid
time-independent trace, the run one Chrome/Perfetto trace-event file, and the profile a `trace` object.

tests/pmpi/trace.c makes a known set of calls (its header lists them): what its traces hold is asserted against
the library's own counts and against the program's closed form, exactly, with Open MPI and with MPICH; the traces
replay with SimGrid; the limit cuts them and says so; the events file has the shape the viewer reads."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hybridperf import cluster
from hybridperf.simulate import replay
from test_pmpi import FLAVORS, RANKS, compile_program, counted, libomp_program, require

pytestmark = pytest.mark.kernel

STEPS, N, SPIN = 3, 10, 0.002
SENDS = {"send", "isend"}  # one message each; sendRecv is one more
COLLECTIVES = {"bcast", "reduce", "allreduce", "alltoall", "alltoallv", "gather", "gatherv", "allgather",
               "allgatherv", "scatter", "scatterv", "reducescatter", "scan", "exscan"}


@pytest.fixture(scope="module", params=FLAVORS)
def program(request, tmp_path_factory) -> tuple[str, Path]:
    flavor = request.param
    cc, _ = require(flavor)
    return flavor, compile_program(tmp_path_factory.mktemp(f"trace-{flavor}") / "trace", cc, "trace.c")


def traced(flavor: str, binary: Path, work: Path, **env: str) -> tuple[dict[str, Any], Path]:
    """The program run with a trace into work/trace: its profile and the trace's folder."""
    folder = work / "trace"
    doc = counted(flavor, [str(binary), str(STEPS), str(N), str(SPIN)], work,
                  env={"HYBRIDPERF_MPI_TRACE": str(folder), **env})
    assert doc is not None
    return doc, folder


def actions(folder: Path, rank: int) -> list[list[str]]:
    """Rank r's trace, each line split into its words (the first, the rank, checked and dropped)."""
    lines = [line.split() for line in (folder / f"rank-{rank}.txt").read_text().splitlines()]
    assert all(words[0] == str(rank) for words in lines)
    return [words[1:] for words in lines]


def messages(trace: list[list[str]]) -> tuple[int, int]:
    """The messages a trace sends and their bytes (sizes in MPI_BYTE, code 6)."""
    count = size = 0
    for words in trace:
        if words[0] in SENDS:
            assert words[4] == "6"
            count, size = count + 1, size + int(words[3])
        elif words[0] == "sendRecv":
            count, size = count + 1, size + int(words[1])
    return count, size


def test_trace_holds_exactly_the_counted_calls(program, tmp_path):
    """Per rank and step the program sends a ring message and a Sendrecv of N doubles, every rank but 0 two ints to
    rank 0; it makes 9 collectives and 2 barriers on the world's group (one on a duplicate of MPI_COMM_WORLD), and
    at the end one Allreduce on a communicator of its own rank alone: not the world's group, so not traced."""
    flavor, binary = program
    doc, folder = traced(flavor, binary, tmp_path)
    traces = [actions(folder, r) for r in range(RANKS)]
    sent = [messages(t) for t in traces]
    comm = doc["comm"]
    assert (sum(c for c, _ in sent), sum(b for _, b in sent)) == (comm["p2p"]["messages"], comm["p2p"]["bytes"])
    assert comm["p2p"]["messages"] == STEPS * (2 * RANKS + 2 * (RANKS - 1))  # the program's closed form
    assert comm["p2p"]["bytes"] == STEPS * (2 * RANKS * 8 * N + 2 * (RANKS - 1) * 4)
    collectives = sum(words[0] in COLLECTIVES for t in traces for words in t)
    assert collectives == comm["collective"]["calls"] - RANKS == RANKS * STEPS * 9
    assert sum(words == ["barrier"] for t in traces for words in t) == comm["barrier"]["calls"] == RANKS * STEPS * 2
    summary = doc["trace"]
    assert summary["untraced"] == {"thread": 0, "communicator": RANKS, "proc_null": 0, "one_sided": 0, "routine": 0}
    assert summary["untraced_calls"] == RANKS and summary["truncated"] is False
    assert summary["actions"] == [len(t) for t in traces] and summary["ranks"] == RANKS
    assert all(b >= (folder / f"rank-{r}.txt").stat().st_size for r, b in enumerate(summary["bytes"]))
    assert json.loads((folder / "summary.json").read_text()) == {"trace": summary}
    for t in traces:  # a whole trace: init ... finalize, compute between calls at 1 Gflop/s
        assert t[0] == ["init"] and t[-1] == ["finalize"]
        assert all(float(words[1]) > 0 for words in t if words[0] == "compute")


def test_any_source_receives_name_the_source_they_matched(program, tmp_path):
    """Rank 0's receives from MPI_ANY_SOURCE: blocking ones (tag 3) and non-blocking ones from any tag (the ranks
    send tag 4) completed by a Waitall with MPI_STATUSES_IGNORE: each written with rank 1 and its tag."""
    flavor, binary = program
    _, folder = traced(flavor, binary, tmp_path)
    trace = actions(folder, 0)
    receives = [words for words in trace if words[0] in ("recv", "irecv") and words[2] in ("3", "4")]
    assert receives == [["recv", "1", "3", "4", "6"], ["irecv", "1", "4", "4", "6"]] * STEPS
    # the ring's requests are waited on one by one, the any-source irecvs (all rank 0 has open) by one waitall
    assert sum(words == ["waitall"] for words in trace) == STEPS
    assert sum(words[0] == "wait" for words in trace) == 2 * STEPS


def test_persistent_requests_are_traced_at_each_start(program, tmp_path):
    """tests/pmpi/halo.c (test_pmpi.py's halo exchange): Sendrecvs, Irecv + Isend + Waitall, Recv_init + Send_init
    started ROUNDS times by Startall and completed by Waitall, in-place Allgather, Alltoall, Iallreduce + Wait,
    Barrier: every call traced, each start of a persistent send one isend, and the messages equal the counts; it
    replays where SimGrid is installed."""
    flavor, _ = program
    cc, _ = require(flavor)
    halo = compile_program(tmp_path / "halo", cc, "halo.c")
    steps, n, rounds = 3, 100, 4
    folder = tmp_path / "trace"
    doc = counted(flavor, [str(halo), str(steps), str(n), str(rounds)], tmp_path,
                  env={"HYBRIDPERF_MPI_TRACE": str(folder)})
    assert doc is not None and doc["trace"]["untraced_calls"] == 0
    traces = [actions(folder, r) for r in range(RANKS)]
    sent = [messages(t) for t in traces]
    p2p = doc["comm"]["p2p"]
    assert (sum(c for c, _ in sent), sum(b for _, b in sent)) == (p2p["messages"], p2p["bytes"])
    assert all(sum(w[:1] == ["isend"] and w[3] == "28" for w in t) == rounds for t in traces)  # 7 ints a start
    if shutil.which("smpirun"):
        texts = [(folder / f"rank-{r}.txt").read_text() for r in range(RANKS)]
        assert replay.replay(texts, cluster.load("merlin"), RANKS, tmp_path / "replay") > 0


@pytest.mark.parametrize("binding", ["halo.f90", "halo_f08.f90"])
def test_fortran_programs_are_traced_as_c_ones(program, tmp_path, binding):
    """test_pmpi.py's Fortran halo exchange (mpif.h / `use mpi`, and mpi_f08): Sendrecvs, Irecv + Isend + Waitall,
    Allreduces, an in-place Allgather and a Barrier; every call traced, the messages equal to the counts, and it
    replays. Open MPI's Fortran routines are wrapped (fortran.c, and the wrappers written from routines.py), MPICH's
    call its C ones."""
    flavor, _ = program
    if binding == "halo_f08.f90" and flavor == "mpich":
        pytest.skip("MPICH's mpi_f08 binding is not supported (docs/pmpi.md)")
    _, fc = require(flavor)
    halo = compile_program(tmp_path / "halo", fc, binding)
    folder = tmp_path / "trace"
    doc = counted(flavor, [str(halo), "3", "100"], tmp_path, env={"HYBRIDPERF_MPI_TRACE": str(folder)})
    assert doc is not None and doc["trace"]["untraced_calls"] == 0
    sent = [messages(actions(folder, r)) for r in range(RANKS)]
    p2p = doc["comm"]["p2p"]
    assert (sum(c for c, _ in sent), sum(b for _, b in sent)) == (p2p["messages"], p2p["bytes"]) == (RANKS * 9,
                                                                                                      RANKS * 9 * 800)
    collectives = sum(w[0] in COLLECTIVES for r in range(RANKS) for w in actions(folder, r))
    assert collectives == doc["comm"]["collective"]["calls"]
    if shutil.which("smpirun"):
        texts = [(folder / f"rank-{r}.txt").read_text() for r in range(RANKS)]
        assert replay.replay(texts, cluster.load("merlin"), RANKS, tmp_path / "replay") > 0


def test_fortran_collectives_with_per_rank_counts_are_traced(program, tmp_path):
    """Gatherv, Allgatherv, Scatter, Scatterv, Alltoallv, Reduce_scatter(_block) and a non-blocking Igatherv and
    Iallgatherv through the Fortran binding: every call in the trace, each rank's counts in its action, and it
    replays (Open MPI's Fortran routines are wrapped: written from routines.py; MPICH's call its C ones)."""
    flavor, _ = program
    _, fc = require(flavor)
    binary = compile_program(tmp_path / "vcollectives", fc, "vcollectives.f90")
    folder = tmp_path / "trace"
    doc = counted(flavor, [str(binary)], tmp_path, env={"HYBRIDPERF_MPI_TRACE": str(folder)})
    assert doc is not None and doc["trace"]["untraced_calls"] == 0, doc and doc["trace"]
    names = [[w[0] for w in actions(folder, r) if w[0] in COLLECTIVES] for r in range(RANKS)]
    assert names == [["gatherv", "allgatherv", "scatter", "scatterv", "alltoallv", "reducescatter", "reducescatter",
                      "gatherv", "allgatherv"]] * RANKS
    # the counts add each rank's Waitall, a call in the class of the requests it completes
    assert sum(map(len, names)) + RANKS == doc["comm"]["collective"]["calls"]
    allgatherv = [w for w in actions(folder, 1) if w[0] == "allgatherv"][0]
    # rank 1's: its own bytes (2 integers), then every rank's (rank r's r + 1)
    assert allgatherv[1:2 + RANKS] == ["8", *(str(4 * (r + 1)) for r in range(RANKS))]
    if shutil.which("smpirun"):
        texts = [(folder / f"rank-{r}.txt").read_text() for r in range(RANKS)]
        assert replay.replay(texts, cluster.load("merlin"), RANKS, tmp_path / "replay") > 0


def test_tracing_does_not_change_the_counts(program, tmp_path):
    flavor, binary = program
    (tmp_path / "on").mkdir()
    traced_doc, _ = traced(flavor, binary, tmp_path / "on")
    plain = counted(flavor, [str(binary), str(STEPS), str(N), str(SPIN)], tmp_path)
    assert plain is not None and "trace" not in plain
    for cls in ("p2p", "collective", "barrier"):
        assert {k: traced_doc["comm"][cls][k] for k in ("calls", "messages", "bytes")} == \
               {k: plain["comm"][cls][k] for k in ("calls", "messages", "bytes")}


@pytest.mark.skipif(shutil.which("smpirun") is None, reason="SimGrid's smpirun is not installed: "
                                                             "apt-get install libsimgrid-dev")
def test_trace_replays_with_simgrid(program, tmp_path):
    """smpirun -replay takes every rank's trace on a described cluster; the replay takes at least the compute of its
    busiest rank (the bursts are seconds at the platform's 1 Gflop/s)."""
    flavor, binary = program
    _, folder = traced(flavor, binary, tmp_path)
    texts = [(folder / f"rank-{r}.txt").read_text() for r in range(RANKS)]
    simulated = replay.replay(texts, cluster.load("merlin"), RANKS, tmp_path / "replay")
    busiest = max(sum(float(w[1]) for w in actions(folder, r) if w[0] == "compute") for r in range(RANKS)) / 1e9
    assert simulated >= busiest * (1 - 1e-9)


def test_limit_truncates_the_trace_and_says_so(program, tmp_path):
    flavor, binary = program
    doc, folder = traced(flavor, binary, tmp_path, HYBRIDPERF_MPI_TRACE_LIMIT="2K")
    summary = doc["trace"]
    assert summary["truncated"] is True and summary["limit"] == 2048
    assert re.fullmatch(r"truncated: rank \d's trace reached HYBRIDPERF_MPI_TRACE_LIMIT \(2048 bytes\) and stopped; "
                        r"the traces cannot be replayed", summary["summary"])
    assert all(b <= 2048 for b in summary["bytes"])
    for r in range(RANKS):  # cut where the limit fell: no finalize, so no replayer takes it for a whole trace
        assert actions(folder, r)[-1] != ["finalize"]
    json.loads((folder / "trace.json").read_text())  # the events file is still a whole document


def test_a_bad_limit_is_one_line_and_a_failed_run(program, tmp_path):
    flavor, binary = program
    with pytest.raises(AssertionError, match=r"hybridperf-mpi: error: HYBRIDPERF_MPI_TRACE_LIMIT=12Q is not a size "
                                             r"in bytes"):
        traced(flavor, binary, tmp_path, HYBRIDPERF_MPI_TRACE_LIMIT="12Q")
    assert not (tmp_path / "trace").exists()


def check_events(path: Path) -> list[dict[str, Any]]:
    """The file's complete ("X") events, after checking the shape ui.perfetto.dev reads."""
    check = subprocess.run([sys.executable, "-m", "json.tool", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    document = json.loads(path.read_text())
    assert set(document) == {"traceEvents"}
    events = document["traceEvents"]
    assert all(e["ph"] in ("X", "M") and isinstance(e["pid"], int) and isinstance(e["name"], str) for e in events)
    complete = [e for e in events if e["ph"] == "X"]
    assert all(isinstance(e["tid"], int) and e["dur"] >= 0 and e["ts"] > 0 for e in complete)
    names = {e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert names == {f"rank {r}" for r in range(RANKS)}
    return complete


def test_one_perfetto_file_of_every_rank(program, tmp_path):
    flavor, binary = program
    doc, folder = traced(flavor, binary, tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == [*(f"rank-{r}.txt" for r in range(RANKS)), "summary.json",
                                                        "trace.json"]
    events = check_events(folder / "trace.json")
    assert {e["pid"] for e in events} == set(range(RANKS))
    calls = sum(doc["comm"][cls]["calls"] for cls in ("p2p", "collective", "barrier"))
    assert len(events) == calls  # one event per counted call
    isends = [e for e in events if e["name"] == "MPI_Isend"]
    assert len(isends) == RANKS * STEPS
    assert all(e["args"] == {"bytes": 8 * N, "peer": (e["pid"] + 1) % RANKS} for e in isends)


def test_openmp_regions_are_events_per_thread(program, tmp_path):
    """tests/pmpi/regions.c on libomp (region A 5 times, B once, 2 threads): 6 implicit tasks per thread per rank."""
    flavor, _ = program
    binary = libomp_program(flavor, tmp_path)
    folder = tmp_path / "trace"
    counted(flavor, [str(binary), "5"], tmp_path, threads=2, env={"HYBRIDPERF_MPI_TRACE": str(folder)})
    regions = [e for e in check_events(folder / "trace.json") if e["name"] == "OpenMP parallel"]
    per_thread: dict[tuple[int, int], int] = {}
    for e in regions:
        per_thread[e["pid"], e["args"]["thread"]] = per_thread.get((e["pid"], e["args"]["thread"]), 0) + 1
    assert per_thread == {(r, t): 6 for r in range(RANKS) for t in range(2)}


def test_other_threads_and_one_sided_calls_are_counted_as_untraced(program, tmp_path):
    """tests/pmpi/threads.c, 2 threads per rank each making ROUNDS Sendrecvs: the main thread's are the trace's, the
    other's are untraced (`thread`); tests/pmpi/one_sided.c's 8 one-sided calls per rank are untraced (`one_sided`)."""
    flavor, _ = program
    cc, _ = require(flavor)
    rounds = 20
    threads = compile_program(tmp_path / "threads", cc, "threads.c", "-fopenmp")
    doc = counted(flavor, [str(threads), str(rounds)], tmp_path, threads=2,
                  env={"HYBRIDPERF_MPI_TRACE": str(tmp_path / "t")})
    assert doc is not None and doc["trace"]["untraced"]["thread"] == RANKS * rounds
    assert all(messages(actions(tmp_path / "t", r))[0] == rounds for r in range(RANKS))
    one_sided = compile_program(tmp_path / "one_sided", cc, "one_sided.c")
    doc = counted(flavor, [str(one_sided)], tmp_path, env={"HYBRIDPERF_MPI_TRACE": str(tmp_path / "o")})
    assert doc is not None and doc["trace"]["untraced_calls"] == doc["trace"]["untraced"]["one_sided"] == RANKS * 8


def test_pcontrol_mode_traces_only_the_counting_window(program, tmp_path):
    """With HYBRIDPERF_MPI_PCONTROL=1 and a program that never calls MPI_Pcontrol, nothing is counted: its traces
    hold no call and no compute, only init and finalize."""
    flavor, binary = program
    doc, folder = traced(flavor, binary, tmp_path, HYBRIDPERF_MPI_PCONTROL="1")
    assert doc["comm"]["p2p"]["calls"] == 0
    assert all(actions(folder, r) == [["init"], ["finalize"]] for r in range(RANKS))
    assert doc["trace"]["actions"] == [2] * RANKS and doc["trace"]["untraced_calls"] == 0


def test_a_folder_that_cannot_be_made_is_a_failed_trace_not_a_failed_run(program, tmp_path):
    flavor, binary = program
    (tmp_path / "file").write_text("")
    doc = counted(flavor, [str(binary), "1", "1", "0"], tmp_path,
                  env={"HYBRIDPERF_MPI_TRACE": str(tmp_path / "file" / "trace")})
    assert doc is not None and doc["trace"]["truncated"] is True
    assert doc["trace"]["summary"].startswith("failed: rank 0 could not write its trace in ")
