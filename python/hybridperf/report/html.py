"""The study report: one self-contained HTML file, figures embedded as PNG.

It opens with the headline — at each scale, the race's outcome (wins, tie or undecided) by the one rule used
everywhere (analysis.race), with the lead's interval, the blocks it took and the noise — and then gives, per parameter set,
the tables (report.tables) beside the figures (report.plots) that take the thesis's analyses apart. A
figure with nothing to show is left out, not drawn empty.
"""

from __future__ import annotations

import base64
import html
import re
import time
from pathlib import Path
from typing import Any, Callable

from hybridperf.analysis import efficiency as eff, percall
from hybridperf.analysis.sections import Section
from hybridperf.files import write_atomic
from hybridperf.report import percall_table, placement_table, plots, pop_table
from hybridperf.report.tables import (bytes_table, communication_table, efficiency_table, failed_table,
                                      figures_table, imbalance_table, model_tables, overhead_table, points_table,
                                      problem, ratio_table, regions_table, Table, verdict_sentence, verdict_table)

NO_TABLE: Callable[[Section], Table] = lambda s: ("", [], [])
SECTION_PARTS: list[tuple[Callable[[Section], bytes | None] | None, Callable[[Section], Table]]] = [
    (plots.total_time, points_table),
    (None, verdict_table),
    (plots.speedup, NO_TABLE),
    (plots.communication, communication_table),
    (plots.comm_classes, NO_TABLE),
    (plots.bytes_per_step, bytes_table),
    (None, ratio_table),
    (plots.regions, regions_table),
    (plots.overheads, overhead_table),
    (plots.imbalance, imbalance_table),
    (None, figures_table),
]
NEEDS_COMM = {plots.comm_classes, plots.bytes_per_step}  # parts drawn from the MPI counts, which an app may lack

STYLE = """body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.85em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child,td.words{text-align:left}img{max-width:100%;display:block;margin:1em 0}
h2{border-bottom:2px solid #444;padding-bottom:0.2em;margin-top:2em}code{background:#f3f3f3;padding:0 3px}
.headline{border:2px solid #444;border-radius:6px;padding:0.6em 1.2em;margin:1em 0;background:#fafaf5}
.headline li{margin:0.3em 0}.warn{color:#7a4b00}table.pop{font-size:0.8em}table.pop td,table.pop th{white-space:nowrap;padding:2px 4px}table.pop small{color:#444}"""


def html_table(table: Table) -> str:
    title, headers, rows = table
    if not headers:
        return ""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td{_align(c) if k else ''}>{html.escape(c)}</td>" for k, c in enumerate(row))
                   + "</tr>" for row in rows)
    return f"<h3>{html.escape(title)}</h3><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _align(cell: str) -> str:
    """Words (a name, a reason, a path) read from the left; numbers line up on the right (a first column is
    left-aligned by the style already)."""
    return " class='words'" if re.match(r"[A-Za-z/.~]", cell) else ""


def _html_figure(png: bytes | None) -> str:
    if not png:
        return ""
    return f'<img alt="figure" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def headline(sections: list[Section]) -> str:
    """The answer first: per parameter set and scale, the race's outcome in its own word."""
    items = []
    for s in sections:
        lines = "".join(f"<li>{html.escape(verdict_sentence(v, s.axis))}</li>" for v in s.verdicts)
        items.append(f"<p><b>{html.escape(s.title())}</b></p><ul>{lines}</ul>" if lines else "")
    simulated = any(v.simulated for s in sections for v in s.verdicts)
    rule = sections[0].rule if sections else None
    reading = ("A simulated lead is exact: each point is one replay, so it has no interval; what can move it is "
               "the cluster description's assumed figures (hybridperf recommend --by simulation shows which would)."
               if simulated else "Each scale is a race (docs/report.md): blocks run every candidate still in it once, "
               "in random order, after one uncounted warm-up run; candidates are compared by the paired ratio of "
               f"their times, with confidence sequences that hold at {100 * rule.confidence:g}% over every look and "
               "every pair. A candidate proven slower leaves; the last one left wins; candidates all within "
               f"±{100 * rule.tie_within:g}% of the leader tie; a race the budget stops first is undecided."
               if rule else "")
    return ("<div class='headline' id='headline'><h2 style='border:none;margin-top:0.2em'>Headline</h2>"
            + "".join(items) + f"<p>{html.escape(reading)}</p></div>")


def efficiency_html(runs: list[dict[str, Any]], cores_per_node: int, ignored: set[str]) -> str:
    """The report's efficiency section, or nothing when the study lacks the mpi / hyb / ser runs."""
    try:
        rows = eff.efficiency_rows(runs, cores_per_node, ignored)
    except eff.MissingRuns:
        return ""
    if not any(r.e_mt or r.e_cache or r.e_ni or r.e_mp for r in rows):
        return ""
    pairs = "".join(f"<li>{html.escape(problem(r.problem))}, {r.nodes} node(s), {html.escape(name)}: "
                    f"{html.escape(text)}</li>" for r in rows for name, text in r.paired.items())
    return ("<h2>Efficiency parameters (Chow &amp; Hysom)</h2>" + _html_figure(plots.efficiency(rows))
            + html_table(efficiency_table(rows))
            + f"<p>{html.escape(eff.reading(rows))}</p><details><summary>Runs paired for each value</summary>"
            f"<ul>{pairs}</ul></details>")


def per_call_html(s: Section) -> str:
    """Chow & Hysom's Fig. 3 and Table 8's spread: sorted per-call times per configuration, percentiles and heavy
    tails (analysis.percall); nothing when no run kept per-call times."""
    curves = percall_table.curves(s)
    if not curves:
        return ""
    heavy = "".join(f"<li>{html.escape(t)}</li>" for t in percall_table.flagged(s))
    return ("<h3 id='per-call'>Per-call times</h3><p>Each call's time is kept in bins 4 to a decade (docs/report.md"
            "#per-call-times), so a percentile is known within its bin: both bounds are shown. A tail is heavy when "
            f"p99 is over {percall.HEAVY_TAIL:g}× p50 even at the bounds least favourable to the claim, with at least "
            f"{percall.TAIL_CALLS} calls.</p>" + _html_figure(plots.sorted_calls(curves))
            + (f"<p><b>Heavy tails:</b></p><ul>{heavy}</ul>" if heavy else "<p>No heavy tail.</p>")
            + html_table(percall_table.table(s)))


def _known(text: str) -> bool:
    """Whether a build field holds something (an app's profile says `unknown` for what it cannot know)."""
    return text not in ("", "unknown", "none")


def _provenance(runs: list[dict[str, Any]]) -> str:
    p = next((r["profile"] for r in runs if r["profile"]), None)
    if not p:
        return ""
    b = p["build"]
    revision = f" ({b['git_revision']})" if _known(b["git_revision"]) else ""
    openmp = b["openmp_runtime"] + (f" (OpenMP {b['openmp_version']})" if b["openmp_version"] else "")
    parts = [f"{p['kernel']} {p['kernel_version']}{revision}", b["compiler"], b["mpi_library"], openmp]
    return (f"<p>{html.escape(', '.join(part for part in parts if _known(part)))}; "
            f"hosts: {html.escape(', '.join(p['run']['hosts']))}.</p>")


def _why_no_counts(s: Section, runs: list[dict[str, Any]]) -> str:
    if not any(p.runs for p in s.points):
        return "no run here succeeded (see <a href='#failures'>Failures</a>)."
    if any(r["profile"] and "replay_of" in r["profile"].get("simulated", {}) for r in runs):
        return ("these runs are replays of traces, which price the time in MPI as a whole (the region mpi); their "
                "calls, messages and bytes are the measured study's.")
    return "these runs were not counted (profile_mpi: false, or launch: self)."


def _simulated_notice(runs: list[dict[str, Any]]) -> str:
    """Simulated runs (hybridperf simulate) are exact replays, one per point, or an app's traced runs replayed one
    by one: say which before any interval is read."""
    simulated = {r["profile"]["simulated"]["cluster_name"] for r in runs if r["profile"] and "simulated" in r["profile"]}
    if not simulated:
        return ""
    if all("replay_of" in r["profile"]["simulated"] for r in runs if r["profile"]):
        return (f"<div class='headline'><b>Replayed</b> on {html.escape(', '.join(sorted(simulated)))} with SimGrid "
                "(docs/simulation.md): each measured run's own traces, its compute bursts as they were measured, its "
                "messages priced by the cluster description. A split's runs keep their measured spread, so the "
                "verdicts are the measured study's race rule over the replayed times.</div>")
    return (f"<div class='headline'><b>Simulated</b> on {html.escape(', '.join(sorted(simulated)))} with SimGrid "
            "(docs/simulation.md): one exact replay per point, no run-to-run noise. The error bars (5% for single "
            "runs) are the convention for measured runs and do not apply; the verdicts compare the simulated "
            "times exactly, under the cluster description's figures (the assumed ones are what could move them)."
            "</div>")


def _machine(check: dict[str, Any] | None) -> str:
    """The machine check made before the campaign, its warnings first."""
    if not check or "load_average" not in check:
        return ""
    warnings = "".join(f"<li>{html.escape(w)}</li>" for w in check["warnings"])
    return (f"<p>Machine before the study: load average {check['load_average'][0]:.2f}, governor "
            f"{html.escape(check['governor'] or 'not readable')}"
            + (f"; turbo {'on' if check['turbo'] else 'off'}" if check["turbo"] is not None else "")
            + (f".</p><ul>{warnings}</ul>" if warnings else "; nothing else was using the CPU.</p>"))


def render_html(name: str, spec: dict[str, Any], sections: list[Section], runs: list[dict[str, Any]],
                campaign: str = "", machine: dict[str, Any] | None = None, notes: list[str] = ()) -> str:
    ok = sum(r["status"] == "ok" for r in runs)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>hybridperf report: {html.escape(name)}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>Study <code>{html.escape(name)}</code></h1>",
             f"<p>{html.escape(spec.get('description', ''))}</p>",
             _simulated_notice(runs),
             headline(sections),
             "".join(f"<p class='warn'>{html.escape(line)}</p>" for line in notes),
             f"<p>Kernel <code>{html.escape(spec['kernel'])}</code>; configurations "
             f"{html.escape(', '.join(spec['configurations']))}; {html.escape(campaign)}{ok} of {len(runs)} counted "
             f"runs succeeded (warm-up runs are not counted). Report written {time.strftime('%Y-%m-%d %H:%M:%S')}. "
             "Statistics: mean with 1 SEM (5% for single runs), minimum, median, spread (sd/mean), n."
             + (" <a href='#failures'>Why the others failed</a>." if ok < len(runs) else "") + "</p>",
             _machine(machine), _provenance(runs)]
    for s in sections:
        why = s.scaling.why  # strong or weak scaling: which figures the tables below give, and why
        parts.append(f"<h2>{html.escape(s.title())}</h2><p>{html.escape(why[0].upper() + why[1:])}.</p>")
        for figure, table in SECTION_PARTS:
            if figure in NEEDS_COMM and not s.has_comm:
                parts.append(f"<p>No MPI counts: {_why_no_counts(s, runs)}</p>")
                continue
            parts.append(_html_figure(figure(s)) if figure else "")
            parts.append(html_table(table(s)))
        placed = placement_table.table(s)
        parts.append(html_table(placed) if placed else "")
        parts.append(pop_table.render_html(s))
        parts.append(per_call_html(s))
        parts.append("<h3>Models</h3>" + "".join(html_table(t) if t[1] else f"<p>{html.escape(t[0])}</p>"
                                                 for t in model_tables(s, spec["cores_per_node"])))
    ignored = {k for params in spec.get("configuration_params", {}).values() for k in params}
    parts.append(efficiency_html(runs, spec["cores_per_node"], ignored))
    failed = failed_table(runs)
    if failed[2]:
        parts.append("<h2 id='failures'>Failures</h2>" + html_table(failed))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_html(path: Path, text: str) -> None:
    write_atomic(path, text)
