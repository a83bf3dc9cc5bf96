"""The POP table of a study (docs/pop.md): each point's efficiency factors, one column per factor, in the terminal
and in the HTML report with each cell coloured by value on the POP scale (co-design.pop-coe.eu/metrics: above 0.8
is acceptable, below indicates a problem): green from 0.8, yellow to orange from 0.6, red below 0.6; and, per
scale, the sentence naming the factor that sets the winner apart (analysis.pop_study)."""

from __future__ import annotations

import html
import math

from hybridperf.analysis.pop import NAMES, REPLAY_FACTORS
from hybridperf.analysis.pop_study import explaining_factor, Estimate, explanation, FACTORS, point_factors, PointFactors
from hybridperf.analysis.sections import Section
from hybridperf.report.tables import distinct_points

# Short headers, in POP's tree order: global, its two factors, then MPI's and OpenMP's.
HEADERS = {
    "global_efficiency": "global", "computation_scalability": "comp. scal.", "ipc_scalability": "IPC scal.",
    "instruction_scalability": "instr. scal.", "parallel_efficiency": "parallel",
    "mpi_parallel_efficiency": "MPI par.", "mpi_communication_efficiency": "MPI comm.", "mpi_load_balance": "MPI LB",
    "mpi_load_balance_in": "LB in", "mpi_load_balance_out": "LB out", "openmp_parallel_efficiency": "OMP par.",
    "openmp_load_balance": "OMP LB", "openmp_scheduling_efficiency": "OMP sched.",
    "openmp_serialization_efficiency": "OMP ser.", "ipc": "IPC", "mpi_serialization_efficiency": "MPI ser.",
    "mpi_transfer_efficiency": "MPI transfer",
}
TERMINAL = ("global_efficiency", "parallel_efficiency", "mpi_communication_efficiency", "mpi_load_balance",
            "openmp_serialization_efficiency")


def cell(e: Estimate | None) -> str:
    return "–" if e is None else f"{e.median:.2f}"


def interval(e: Estimate | None) -> str:
    bounded = e is not None and e.n > 1 and math.isfinite(e.low) and math.isfinite(e.high)
    return f"[{e.low:.2f}, {e.high:.2f}]" if bounded else ""


def colour(name: str, e: Estimate | None) -> str:
    """POP's traffic light on the median: green ≥ 0.8, yellow to orange in [0.6, 0.8), red below 0.6; none for IPC,
    which is not an efficiency (its scalability is)."""
    if e is None:
        return "#eee"
    if name == "ipc":
        return "#fff"
    if e.median >= 0.8:
        return "#8fd18f"
    if e.median >= 0.7:
        return "#f3e27a"
    if e.median >= 0.6:
        return "#f5b366"
    return "#ee7d7d"


def sentences(s: Section, table: list[PointFactors]) -> list[str]:
    return [t for v in s.verdicts if (t := explanation(table, v, s.axis))]


def terminal_rows(s: Section, table: list[PointFactors]) -> tuple[list[str], list[list[str]]]:
    """TERMINAL's factors, the replay's where a point has them, and each factor a sentence below names (so that no
    sentence cites a number the table does not show)."""
    named = [f for v in s.verdicts if (f := explaining_factor(table, v))]
    shown = tuple(dict.fromkeys((*TERMINAL, *(name for name in columns(table) if name in REPLAY_FACTORS), *named)))
    headers = ["split", s.axis, *(HEADERS[name] for name in shown)]
    rows = [[f.configuration, str(f.scale), *(cell(f.values[name]) for name in shown)] for f in table]
    return headers, rows


def _unavailable(table: list[PointFactors]) -> list[str]:
    """Each reason a factor is missing, once, with the factors it applies to."""
    reasons: dict[str, list[str]] = {}
    for f in table:
        for name, why in f.why.items():
            if NAMES[name] not in reasons.setdefault(why, []):
                reasons[why].append(NAMES[name])
    return [f"{', '.join(names)}: {why}" for why, names in reasons.items()]


# Factors a study has only where something it does not always do was done: a replay on the ideal network, or
# counting on a machine with hardware counters.
WHERE_KNOWN = (*REPLAY_FACTORS, "ipc", "ipc_scalability", "instruction_scalability")


def columns(table: list[PointFactors]) -> tuple[str, ...]:
    """The factors shown: all, but those of WHERE_KNOWN only where a point has them (a measured study never has the
    replay's split, a machine without a PMU no IPC; the list of factors not known says why)."""
    return tuple(name for name in FACTORS
                 if name not in WHERE_KNOWN or any(f.values[name] is not None for f in table))


def render_html(s: Section) -> str:
    table = point_factors(s, distinct_points(s))
    if not table:
        return ""
    shown = columns(table)
    head = "".join(f"<th title='{html.escape(NAMES[name])}'>{html.escape(HEADERS[name])}</th>" for name in shown)
    body = "".join(
        f"<tr><td>{html.escape(f.configuration)}</td><td>{f.scale}</td>"
        + "".join(f"<td style='background:{colour(name, f.values[name])}'>{html.escape(cell(f.values[name]))}"
                  f"<br><small>{html.escape(interval(f.values[name]))}</small></td>" for name in shown)
        + "</tr>" for f in table)
    why = "".join(f"<li>{html.escape(t)}</li>" for t in sentences(s, table))
    missing = "".join(f"<li>{html.escape(t)}</li>" for t in _unavailable(table))
    return ("<h3 id='pop'>POP efficiency factors</h3><p>Median over each point's runs, with its 90% interval "
            "(docs/pop.md has the formulas). Colours: POP's scale, green from 0.8 (acceptable), yellow to orange from "
            "0.6, red below; grey: not known"
            + ("; IPC (instructions per cycle, not an efficiency) uncoloured" if "ipc" in shown else "") + ".</p>"
            f"<table class='pop'><thead><tr><th>configuration</th><th>{html.escape(s.axis)}</th>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
            + (f"<p>What sets each scale's winner apart:</p><ul>{why}</ul>" if why else "")
            + (f"<details><summary>Factors not known, and why</summary><ul>{missing}</ul></details>" if missing else ""))
