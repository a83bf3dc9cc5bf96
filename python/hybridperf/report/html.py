"""The study report: a self-contained HTML file (figures embedded as PNG) and the key tables in the
terminal. Tables are built once, as headers and rows, and rendered for both."""

from __future__ import annotations

import base64
import html
import math
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from rich.console import Console
from rich.table import Table as RichTable

from hybridperf.analysis import efficiency as eff
from hybridperf.analysis.sections import (Section, class_seconds, comm_seconds, per_step, region_seconds,
                                          threading_overheads)
from hybridperf.models import pmnf, study_models
from hybridperf.report import plots

Table = tuple[str, list[str], list[list[str]]]  # title, headers, rows


def _f(value: float | None, digits: int = 4) -> str:
    return "–" if value is None or not math.isfinite(value) else f"{value:.{digits}g}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f}%"


def _bytes(value: float | None) -> str:
    if value is None:
        return "–"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    return str(value)


def points_table(s: Section) -> Table:
    rows = []
    for p in s.points:
        t = p.time
        rows.append([p.configuration, str(p.scale), f"{p.nodes}×{p.ranks_per_node}×{p.threads}", p.mode,
                     str(t.n if t else 0), _f(t.mean if t else None), _f(t.sem if t else None, 2),
                     _f(t.min if t else None), _f(t.median if t else None), _f(p.speedup, 3), _f(p.efficiency, 3),
                     str(p.failed)])
    return ("Total time [s] per point (mean, 1 SEM, min, median of the repeats)",
            ["configuration", s.axis, "nodes×ranks×threads", "MPC mode", "n", "mean", "SEM", "min", "median",
             "speedup", "efficiency", "failed"], rows)


def verdict_table(s: Section) -> Table:
    rows = [[str(v.scale), v.winner, v.runner_up or "–", _pct(v.margin),
             "–" if v.significant is None else ("yes" if v.significant else "no (within error bars)"),
             _pct(v.versus_pure_mpi)] for v in s.verdicts]
    return ("Verdict: the fastest configuration at each scale",
            [s.axis, "winner", "runner-up", "runner-up slower by", "beyond error bars", "pure MPI slower by"], rows)


def _mean(p, extract) -> float | None:
    return p.mean_of(extract) if p.runs else None


def communication_table(s: Section) -> Table:
    rows = []
    for p in s.points:
        comm = _mean(p, comm_seconds)
        rows.append([p.configuration, str(p.scale), _f(comm), _f(100 * comm / p.time.mean if comm and p.time else None, 3),
                     _f(_mean(p, class_seconds("p2p"))), _f(_mean(p, class_seconds("collective"))),
                     _f(_mean(p, class_seconds("barrier")))])
    return ("Communication time [s, rank average] and share of the total",
            ["configuration", s.axis, "communication", "% of total", "point-to-point", "collective", "barrier"], rows)


def bytes_table(s: Section) -> Table:
    rows = []
    for p in s.points:
        rows.append([p.configuration, str(p.scale), _bytes(_mean(p, per_step(("p2p", "bytes_per_rank", "avg")))),
                     _bytes(_mean(p, per_step(("p2p", "bytes")))),
                     _f(_mean(p, per_step(("p2p", "messages_per_rank", "avg"))), 3),
                     _f(_mean(p, per_step(("p2p", "messages"))), 4)])
    return ("Point-to-point data per step (the thesis's Table 4.5 and Figs. 4.11-4.12)",
            ["configuration", s.axis, "bytes per process", "bytes, all processes", "messages per process",
             "messages, all processes"], rows)


def ratio_table(s: Section) -> Table:
    """Average data per process, pure MPI : each other configuration, like Table 4.5 ('1:4.93')."""
    extract = per_step(("p2p", "bytes_per_rank", "avg"))
    pure = {p.scale: _mean(p, extract) for p in s.points if p.configuration == "pure-mpi"}
    others = [c for c in dict.fromkeys(p.configuration for p in s.points) if c != "pure-mpi"]
    rows = []
    for scale, base in pure.items():
        row = [str(scale)]
        for c in others:
            value = next((_mean(p, extract) for p in s.points if p.configuration == c and p.scale == scale), None)
            row.append(f"1:{value / base:.2f}" if base and value else "–")
        rows.append(row)
    return ("Average data sent per process, pure MPI : hybrid (Table 4.5)",
            [s.axis] + [f"pure-mpi : {c}" for c in others], rows)


def regions_table(s: Section) -> Table:
    names = [r for r in s.regions]
    rows = []
    for p in s.points:
        rows.append([p.configuration, str(p.scale)] + [
            _f(p.summary_of(region_seconds(n)).min if p.runs and p.summary_of(region_seconds(n)) else None)
            for n in names])
    return ("Time per region [s]: minimum of the repeats, rank average (Tables 4.8/4.9)",
            ["configuration", s.axis] + names, rows)


def overhead_table(s: Section) -> Table:
    rows = [[o.configuration, str(o.scale), o.region, f"{o.seconds:+.4g} ± {o.error:.2g}", f"{o.percent:+.2f}%"]
            for o in threading_overheads(s)]
    return ("Threading overhead per region: hybrid − pure MPI at equal scale (Tables 4.6/4.7)",
            ["configuration", s.axis, "region", "seconds (min − min)", "% of hybrid region"], rows)


def figures_table(s: Section) -> Table:
    """Every figure of merit the kernel reports (mean of the repeats), so kernel-specific results —
    CLOMP's per-variant speedups, SPMV's bandwidth — appear without kernel-specific code."""
    names = list(dict.fromkeys(f["name"] for p in s.points for r in p.runs for f in r["profile"]["figures_of_merit"]
                               if f["name"] != "loop_time"))
    rows = []
    for p in s.points:
        row = [p.configuration, str(p.scale)]
        for n in names:
            row.append(_f(_mean(p, lambda prof, n=n: next((f["value"] for f in prof["figures_of_merit"]
                                                           if f["name"] == n), None))))
        rows.append(row)
    return ("Figures of merit (mean of the repeats)", ["configuration", s.axis] + names, rows if names else [])


def imbalance_table(s: Section) -> Table:
    names = [r for r in s.regions if r != "total"]
    rows = []
    for p in s.points:
        rows.append([p.configuration, str(p.scale)] + [
            _f(100 * v if (v := _mean(p, lambda prof, n=n: prof["regions"].get(n, {}).get("imbalance"))) is not None
               else None, 3) for n in names])
    return ("Cross-rank imbalance per region, max/avg − 1 [%]", ["configuration", s.axis] + names, rows)


SECTION_PARTS: list[tuple[Callable[[Section], bytes | None] | None, Callable[[Section], Table]]] = [
    (plots.total_time, points_table),
    (None, verdict_table),
    (plots.speedup, lambda s: ("", [], [])),
    (plots.communication, communication_table),
    (plots.comm_classes, lambda s: ("", [], [])),
    (plots.bytes_per_step, bytes_table),
    (None, ratio_table),
    (plots.regions, regions_table),
    (plots.overheads, overhead_table),
    (plots.imbalance, imbalance_table),
    (None, figures_table),
]


def problem(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items() if k not in eff.IGNORED_PARAMS) or "all runs"


def efficiency_table(rows: list[eff.Row]) -> Table:
    def v(x: eff.Value | None) -> str:
        return str(x) if x else "–"

    varying = {k for k in {k for r in rows for k in r.problem} if len({str(r.problem.get(k)) for r in rows}) > 1}
    show = lambda params: problem({k: v for k, v in params.items() if k in varying} if varying else params)
    body = [[show(r.problem), str(r.nodes), str(r.nt), v(r.e_mt), v(r.e_cache), v(r.e_ni), v(r.e_mp),
             " / ".join(f"{r.comm_to_comp[who]:.2g}" if who in r.comm_to_comp else "–" for who in eff.ROLES)]
            for r in rows]
    return ("Chow & Hysom's efficiency parameters (e_mt, e_cache, e_ni > 1 and e_mp < 1 favour hybrid)",
            ["problem", "nodes", "nt", "e_mt", "e_cache", "e_ni", "e_mp", "comm/comp mpi/hyb/ser"], body)


def efficiency_rich(rows: list[eff.Row]) -> RichTable:
    title, headers, body = efficiency_table(rows)
    table = RichTable(title=title)
    for h in headers:
        table.add_column(h, justify="left" if h == "problem" else "right")
    for row in body:
        table.add_row(*row)
    return table


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
            + _html_table(efficiency_table(rows))
            + f"<p>{html.escape(eff.reading(rows))}</p><details><summary>Runs paired for each value</summary>"
            f"<ul>{pairs}</ul></details>")


def model_tables(s: Section, cores_per_node: int) -> list[Table]:
    """The thesis's models fitted on this section (communication models on pure MPI only) and evaluated on
    every point, and an Extra-P-style PMNF fit of each configuration's loop time."""
    tables = []
    for name in study_models.MODELS:
        ev = study_models.evaluate(s, cores_per_node, name)
        if not ev.rows:
            tables.append((f"{name}: not fitted ({ev.note})", [], []))
            continue
        params = "; ".join(f"{n} = {v['estimate']:.4g} ± {v['error']:.2g} ({v['percent']:.0f}%)"
                           if math.isfinite(v["error"]) else f"{n} = {v['estimate']:.4g} (no error: as many points "
                           "as parameters)" for f in ev.fits for n, v in f.as_dict().items())
        rows = [[r.configuration, str(r.scale), _f(r.measured), _f(r.predicted),
                 *((f"{_f(r.low)} – {_f(r.high)}", "yes" if r.inside else "no")
                   if math.isfinite(r.low) and math.isfinite(r.high) else ("–", "–")),
                 "–" if r.error != r.error else f"{r.error:.1f}%", "fitted" if r.fitted else "predicted"]
                for r in ev.rows]
        tables.append((f"{name}, minimum times: {params}",
                       ["configuration", s.axis, "measured", "predicted", "band (±SE)", "in band", "error", "point"],
                       rows))
    ahead = study_models.outlook(s, cores_per_node)
    if ahead:
        names = list(ahead[0].predicted)
        rows = [[str(o.cores), *(_f(o.predicted[n]) for n in names), o.winner, o.measured_winner or "–"]
                for o in ahead]
        tables.append(("Outlook: the overall model (6.10) predicting each configuration, at the measured core "
                       "counts and beyond (predicted seconds)", ["cores", *names, "predicted winner", "measured winner"],
                       rows))
    fits = []
    for config in dict.fromkeys(p.configuration for p in s.points):
        pts = [p for p in s.points if p.configuration == config and p.runs]
        try:
            h = pmnf.select(np.array([p.cores for p in pts for _ in p.runs], float),
                            np.array([r["loop_time"] for p in pts for r in p.runs]))
            fits.append([config, str(len(pts)), h.formula(), f"{h.smape:.2f}%"])
        except ValueError as err:
            fits.append([config, str(len(pts)), f"– ({err})", "–"])
    tables.append(("Empirical model of the loop time, t(p) with p = cores (PMNF, cross-validated)",
                   ["configuration", "points", "model", "CV SMAPE"], fits))
    return tables


def failed_table(runs: list[dict[str, Any]]) -> Table:
    rows = [[f"{r['nodes']}×{r['ranks_per_node']}×{r['threads']}", ", ".join(f"{k}={v}" for k, v in r["params"].items()),
             str(r["repeat"]), r["status"], str(r["exit_code"]), (r["stderr"] or "").strip().splitlines()[-1:][0]
             if (r["stderr"] or "").strip() else ""] for r in runs if r["status"] != "ok"]
    return ("Runs that did not succeed (not in any statistic)",
            ["nodes×ranks×threads", "parameters", "repeat", "status", "exit", "last line of stderr"], rows)


def _html_table(table: Table) -> str:
    title, headers, rows = table
    if not headers:
        return ""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<h3>{html.escape(title)}</h3><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html_figure(png: bytes | None) -> str:
    if not png:
        return ""
    return f'<img alt="figure" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


STYLE = """body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.85em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}img{max-width:100%;display:block;margin:1em 0}
h2{border-bottom:2px solid #444;padding-bottom:0.2em;margin-top:2em}code{background:#f3f3f3;padding:0 3px}"""


def _provenance(runs: list[dict[str, Any]]) -> str:
    p = next((r["profile"] for r in runs if r["profile"]), None)
    if not p:
        return ""
    b = p["build"]
    return (f"<p>{html.escape(p['kernel'])} {html.escape(p['kernel_version'])} ({html.escape(b['git_revision'])}), "
            f"{html.escape(b['compiler'])}, {html.escape(b['mpi_library'])}, {html.escape(b['openmp_runtime'])} "
            f"(OpenMP {b['openmp_version']}); hosts: {html.escape(', '.join(p['run']['hosts']))}.</p>")


def render_html(name: str, spec: dict[str, Any], sections: list[Section], runs: list[dict[str, Any]]) -> str:
    ok = sum(r["status"] == "ok" for r in runs)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>hybridperf report: {html.escape(name)}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>Study <code>{html.escape(name)}</code></h1>",
             f"<p>{html.escape(spec.get('description', ''))}</p>",
             f"<p>Kernel <code>{html.escape(spec['kernel'])}</code>; configurations "
             f"{html.escape(', '.join(spec['configurations']))}; {ok} of {len(runs)} runs succeeded; repeats "
             f"{spec['repeats']}. Report written {time.strftime('%Y-%m-%d %H:%M:%S')}. Statistics: mean with 1 SEM "
             f"(5% for single runs), minimum, median, n. Run-to-run noise on a shared machine is several percent.</p>",
             _provenance(runs)]
    for s in sections:
        parts.append(f"<h2>{html.escape(s.title())}</h2>")
        for figure, table in SECTION_PARTS:
            parts.append(_html_figure(figure(s)) if figure else "")
            parts.append(_html_table(table(s)))
        parts.append("<h3>Models</h3>" + "".join(_html_table(t) if t[1] else f"<p>{html.escape(t[0])}</p>"
                                                 for t in model_tables(s, spec["cores_per_node"])))
    ignored = {k for params in spec.get("configuration_params", {}).values() for k in params}
    parts.append(efficiency_html(runs, spec["cores_per_node"], ignored))
    failed = failed_table(runs)
    if failed[2]:
        parts.append("<h2>Failures</h2>" + _html_table(failed))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_html(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def print_terminal(console: Console, sections: list[Section], runs: list[dict[str, Any]]) -> None:
    """The two tables that answer the question, narrow enough for an 80-column terminal."""
    for s in sections:
        table = RichTable(title=f"{s.title()}: loop time [s]")
        for h in ("configuration", s.axis, "shape", "n", "mean ± SEM", "min", "speedup"):
            table.add_column(h, justify="left" if h == "configuration" else "right")
        for p in s.points:
            t = p.time
            table.add_row(p.configuration, str(p.scale), f"{p.nodes}×{p.ranks_per_node}×{p.threads}",
                          str(t.n if t else 0), f"{t.mean:.4g} ± {_f(t.sem, 2)}" if t else "–",
                          _f(t.min if t else None), _f(p.speedup, 3))
        console.print(table)
        verdict = RichTable(title=f"{s.title()}: verdict")
        for h in (s.axis, "winner", "runner-up", "by", "beyond errors"):
            verdict.add_column(h, justify="left" if h in ("winner", "runner-up") else "right")
        for v in s.verdicts:
            verdict.add_row(str(v.scale), v.winner, v.runner_up or "–", _pct(v.margin),
                            "–" if v.significant is None else ("yes" if v.significant else "no"))
        console.print(verdict)
    failed = failed_table(runs)
    if failed[2]:
        console.print(f"[red]{len(failed[2])} run(s) did not succeed[/red]; see the report's Failures section")
