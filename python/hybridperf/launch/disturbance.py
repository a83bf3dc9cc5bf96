"""Whether another process took CPU from a run while it ran, read from the machine's own counters (I/O), never from
the run's own time (a run may be slow for reasons of its own, and those are what a race measures).

Over the run: the CPU time every CPU spent busy (/proc/stat's first line: user, nice, system, irq, softirq and
steal), less the run's own (the user and system time of the launcher and every process it waited for: getrusage of
this process's children, and of this process itself, which launched and watched it). What is left another process
used, or the hypervisor took (steal, counted apart too). Divided by the run's wall time it is how many cores'
worth others used on average while the run ran; at OTHERS or more the run is *disturbed*. Also the run's
involuntary context switches: how often the kernel took a core from one of its processes.

Measured for one run at a time: runs launched at once (`run --copies`) share the children's counters."""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

STAT = Path("/proc/stat")
OTHERS = 0.25  # cores' worth of CPU others used on average over a run, from which it is disturbed
BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user nice system irq softirq steal (guest is within user)
STEAL = 7


@dataclass(frozen=True)
class Disturbance:
    others: float  # cores' worth of CPU other processes (and the hypervisor) used, on average over the run
    steal: float  # of which the hypervisor took (a virtual machine's steal time)
    switches: int  # the run's processes' involuntary context switches

    @property
    def disturbed(self) -> bool:
        return self.others >= OTHERS

    def text(self) -> str:
        steal = f", {self.steal:.2f} of it stolen by the hypervisor" if self.steal >= 0.01 else ""
        return (f"other processes used {self.others:.2f} of a core on average while it ran{steal} "
                f"({self.switches} involuntary context switches)")

    def as_dict(self) -> dict[str, float | int | bool]:
        """As a run record keeps it (the store's `disturbance`), with the verdict made here."""
        return {"others": round(self.others, 4), "steal": round(self.steal, 4), "switches": self.switches,
                "disturbed": self.disturbed}


def _cpu_seconds() -> tuple[float, float]:
    """(busy, steal) seconds of every CPU together since boot; (0, 0) where /proc/stat cannot be read."""
    try:
        fields = [int(v) for v in STAT.read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    hz = os.sysconf("SC_CLK_TCK")
    return sum(fields[i] for i in BUSY_FIELDS if i < len(fields)) / hz, (fields[STEAL] if len(fields) > STEAL else 0) / hz


def _own() -> tuple[float, int]:
    """CPU seconds and involuntary switches of this process and its waited-for children."""
    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime,
            children.ru_nivcsw)


class Meter:
    """Read at a run's start (`start`) and end (`stop`)."""

    def __init__(self) -> None:
        self._machine = self._steal = self._own = 0.0
        self._switches = 0
        self._wall = 0.0

    def start(self) -> None:
        (self._machine, self._steal), (self._own, self._switches) = _cpu_seconds(), _own()
        self._wall = time.monotonic()

    def stop(self) -> Disturbance | None:
        """What others used over the run; None where the counters cannot be read (not Linux)."""
        wall = time.monotonic() - self._wall
        (machine, steal), (own, switches) = _cpu_seconds(), _own()
        if wall <= 0 or machine == 0.0:
            return None
        others = max(0.0, (machine - self._machine) - (own - self._own))
        return Disturbance(others / wall, max(0.0, steal - self._steal) / wall, switches - self._switches)
