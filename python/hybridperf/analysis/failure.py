"""Why a run failed, in one line a user can act on.

A failed run's error output ends, more often than not, in its launcher's boilerplate (Open MPI's
`MPI_ABORT was invoked …` box, MPICH's `BAD TERMINATION` banner, separator lines), while the cause is a
line the program printed earlier, often on standard output rather than standard error (LAMMPS's
`ERROR: Cannot open input script …`). So the texts are read in the order given (the most telling first:
standard error, then the kept output), boilerplate dropped, and in the first text that has one, the first
line that names an error is the reason, else the first that names another kind of trouble (a crash's
`Segmentation fault` on standard error outranks a progress line's "error estimate" in the output); failing
those, the last line left.
"""

from __future__ import annotations

import re

# Lines every failed MPI job prints whatever went wrong: they say that it failed, never why.
BOILERPLATE = re.compile(
    r"^[-=*_#~ ]*$|^=+ hybridperf: |MPI_ABORT was invoked|^with errorcode|^NOTE: invoking MPI_ABORT"
    r"|You may or may not see output|exactly when Open MPI kills|^(prterun|mpirun|mpiexec)\b.*(exited|detected|noticed)"
    r"|^Primary job +terminated|^process rank \d+ with PID|^Proc: |^Errorcode: |^Local host: "
    r"|BAD TERMINATION OF ONE OF YOUR APPLICATION|^= +(PID|RUNNING AT|EXIT CODE|CLEANING UP|KILLED BY)"
    r"|YOU CAN IGNORE THE BELOW CLEANUP|^application called MPI_Abort|^\[[^]]*\] \[[^]]*\] mpi_abort",
    re.IGNORECASE)
ERROR = re.compile(r"\berror\b|\bfatal\b|\bexception\b", re.IGNORECASE)
TROUBLE = re.compile(r"cannot|can't|could not|not found|no such file|refuse|ignored|denied|killed|segmentation"
                     r"|signal|out of memory|timed out|invalid|unknown|failed|missing", re.IGNORECASE)
LONGEST = 240


def meaningful(text: str) -> list[str]:
    """The text's lines that are neither blank nor launcher boilerplate."""
    return [line.strip() for line in text.splitlines() if not BOILERPLATE.search(line.strip())]


def reason(*texts: str | None) -> str:
    """The one line that says why the run failed, from its texts in order of how telling they are ('' when they
    hold nothing but boilerplate)."""
    kept = [meaningful(t) for t in texts if t]
    for lines in kept:
        for pattern in (ERROR, TROUBLE):
            found = next((line for line in lines if pattern.search(line)), None)
            if found:
                return _short(found)
    last = [lines[-1] for lines in kept if lines]
    return _short(last[-1]) if last else ""


def _short(line: str) -> str:
    return line if len(line) <= LONGEST else line[:LONGEST - 1] + "…"
