"""Why a run failed, in one line (analysis/failure.py), and where a study's failures are shown."""

from hybridperf.analysis import failure
from hybridperf.report.tables import failed_table, failure_summary

OPEN_MPI_ABORT = """--------------------------------------------------------------------------
MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD
with errorcode 1.

NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.
You may or may not see output from other processes, depending on
exactly when Open MPI kills them.
--------------------------------------------------------------------------
"""
MPICH_ABORT = """
===================================================================================
=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES
=   PID 4242 RUNNING AT debian
=   EXIT CODE: 1
=   CLEANING UP REMAINING PROCESSES
=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES
===================================================================================
"""
LAMMPS_OUTPUT = """LAMMPS (2 Aug 2023 - Update 3)
OMP_NUM_THREADS environment is not set. Defaulting to 1 thread.
ERROR on proc 0: Cannot open input script inputs/lj-melt.lmp: No such file or directory (src/lammps.cpp:520)
Last command: (unknown)
"""


def test_the_programs_error_is_found_behind_the_launchers_boilerplate():
    # LAMMPS writes its error on standard output; standard error holds only Open MPI's box
    assert failure.reason(OPEN_MPI_ABORT, LAMMPS_OUTPUT + "\n===== hybridperf: standard error =====\n" +
                          OPEN_MPI_ABORT) == ("ERROR on proc 0: Cannot open input script inputs/lj-melt.lmp: No such "
                                              "file or directory (src/lammps.cpp:520)")
    assert failure.reason("hybridperf-md: error: --grid 3 1 1 needs 3 ranks, got 2\n" + MPICH_ABORT) == \
        "hybridperf-md: error: --grid 3 1 1 needs 3 ranks, got 2"


def test_standard_error_is_more_telling_than_the_output():
    assert failure.reason("Segmentation fault (core dumped)", "error estimate 1e-3\n") == \
        "Segmentation fault (core dumped)"


def test_without_an_error_line_the_last_meaningful_line_is_the_reason():
    assert failure.reason("", "step 10\nstep 20\n" + OPEN_MPI_ABORT) == "step 20"
    assert failure.reason(OPEN_MPI_ABORT + MPICH_ABORT) == ""
    assert len(failure.reason("error: " + "x" * 1000)) == failure.LONGEST


def run(reason, status="failed", output="r/outputs/a.out", stderr=""):
    return {"configurations": ["pure-mpi"], "nodes": 1, "ranks_per_node": 2, "threads": 1, "params": {"size": 4},
            "repeat": 0, "status": status, "reason": reason, "output": output, "stderr": stderr}


def test_failures_are_listed_with_their_reason_and_output_and_grouped_by_reason():
    runs = [run("ERROR: no input"), run("ERROR: no input", output="r/outputs/b.out"), run(None, "timeout", None),
            run(None, stderr=OPEN_MPI_ABORT + "hybridperf-md: error: out of atoms\n"), run(None, "ok")]
    title, headers, rows = failed_table(runs)
    assert [r[headers.index("why")] for r in rows] == ["ERROR: no input", "ERROR: no input", "timeout, nothing said",
                                                       "hybridperf-md: error: out of atoms"]  # old runs: stderr's line
    assert rows[0][headers.index("output kept in")] == "r/outputs/a.out" and rows[2][-1] == "–"
    summary = failure_summary(runs, limit=2)
    assert summary[0] == "2 × ERROR: no input (output: r/outputs/a.out)" and len(summary) == 3
    assert summary[2].startswith("… and 1 other reason(s)")
