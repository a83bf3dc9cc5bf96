"""How many threads of a running program did work, read from /proc while it runs (I/O): the CPU time of every
thread of every process in the run's session (the launcher starts each run in a session of its own, so processes
the program forks are counted too). A thread is busy when its CPU time is at least a fiftieth of the busiest
one's (BUSY_SHARE), the rule the counting library applies at MPI_Finalize (kernels/pmpi/busy.c, which says why so
low); this is for programs that start their own ranks or threads and so never load that library. The last reading
comes up to INTERVAL before the program ends, and a worker that starts late has little CPU time by then
(GROMACS's, 100 steps: 0 ticks against the main thread's 19; 1000 steps: 72 against 100), so a run whose busiest
thread used under MIN_TICKS -- a second -- tells nothing (None)."""

from __future__ import annotations

import threading
from pathlib import Path

PROC = Path("/proc")
MIN_TICKS = 100
BUSY_SHARE = 50
INTERVAL = 0.2  # seconds between readings; the last one before the program ends is what counts


def _ticks(stat: str) -> int:
    """utime + stime of one /proc/.../stat line (fields 14 and 15, after the parenthesised name)."""
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def _session(stat: str) -> int:
    return int(stat.rsplit(")", 1)[1].split()[3])  # field 6, the session id


def session_ticks(session: int) -> dict[tuple[int, int], int]:
    """CPU ticks of every thread (pid, tid) of every process in the session."""
    found = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if _session((entry / "stat").read_text()) != session:
                continue
            for task in (entry / "task").iterdir():
                found[(int(entry.name), int(task.name))] = _ticks((task / "stat").read_text())
        except (OSError, IndexError, ValueError):  # the process or thread ended while being read
            continue
    return found


def busy(ticks: dict[tuple[int, int], int]) -> int | None:
    most = max(ticks.values(), default=0)
    if most < MIN_TICKS:
        return None
    return sum(t > 0 and BUSY_SHARE * t >= most for t in ticks.values())


class BusyThreads:
    """Reads the session of a started program every INTERVAL until stopped; `count` is then its busy threads (None:
    too short a run to tell)."""

    def __init__(self) -> None:
        self.count: int | None = None
        self._last: dict[tuple[int, int], int] = {}
        self._done = threading.Event()
        self._reader: threading.Thread | None = None

    def start(self, session: int) -> None:
        def read() -> None:
            while not self._done.wait(INTERVAL):
                now = session_ticks(session)
                if now:
                    self._last = {**self._last, **now}  # a thread that ended keeps its last reading

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()

    def stop(self) -> None:
        self._done.set()
        if self._reader:
            self._reader.join()
        self.count = busy(self._last)
