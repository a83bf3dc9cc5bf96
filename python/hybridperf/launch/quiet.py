"""Is this machine quiet enough to time on? Checked before a timed study, as pyperf's `system show` does: other
processes using CPU (sampled from /proc over half a second, not the load average, which lags a minute behind
and would count the study's own previous runs), the CPU frequency governor and turbo where Linux exposes them,
and the load average for the record. Each problem is one line; the study stores the whole check with its
campaign. Whether each run got the cores it asked for is checked run by run (analysis.affinity)."""

from __future__ import annotations

import os
import time
from pathlib import Path

PROC = Path("/proc")
CPUFREQ = Path("/sys/devices/system/cpu")
SAMPLE = 0.5  # seconds
BUSY = 0.10  # a process using more than this share of one core while the machine should be idle is named


def _cpu_ticks() -> dict[int, tuple[str, int]]:
    """pid -> (command name, utime + stime) of every process readable now."""
    out = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        out[int(entry.name)] = (name, int(fields[11]) + int(fields[12]))
    return out


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def busy_processes(sample: float = SAMPLE) -> list[tuple[str, int, float]]:
    """(name, pid, share of one core) of the processes other than this one that used CPU during the sample."""
    hz = os.sysconf("SC_CLK_TCK")
    before = _cpu_ticks()
    time.sleep(sample)
    after = _cpu_ticks()
    me = os.getpid()
    found = []
    for pid, (name, ticks) in after.items():
        if pid == me or pid not in before:
            continue
        share = (ticks - before[pid][1]) / hz / sample
        if share > BUSY:
            found.append((name, pid, share))
    return sorted(found, key=lambda f: -f[2])


def check(sample: float = SAMPLE) -> dict:
    """The machine's state before timing, with a one-line warning for each problem found."""
    governors = sorted({g for g in (_read(p) for p in CPUFREQ.glob("cpu[0-9]*/cpufreq/scaling_governor")) if g})
    no_turbo = _read(CPUFREQ / "intel_pstate" / "no_turbo")
    busy = busy_processes(sample)
    warnings = [f"{name} (pid {pid}) used {100 * share:.0f}% of a core while the machine should be idle: timings "
                "will be noisy; stop it or expect more blocks" for name, pid, share in busy]
    if governors and governors != ["performance"]:
        warnings.append(f"CPU frequency governor is {', '.join(governors)}, not performance: the clock varies with "
                        "load (cpupower frequency-set -g performance)")
    if no_turbo == "0":
        warnings.append("turbo boost is on: the clock varies with temperature and load "
                        "(echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo)")
    return {"load_average": list(os.getloadavg()), "governor": ", ".join(governors) or None,
            "turbo": None if no_turbo is None else no_turbo == "0",
            "busy": [{"name": n, "pid": p, "share": round(s, 3)} for n, p, s in busy], "warnings": warnings}
