"""The report's tables, built once as (title, headers, rows) and rendered by html.py and terminal.py.

Every table takes an analysed Section (analysis.sections). Conventions: times are the loop time (max over
ranks) or a region's rank average, in seconds; "–" marks what cannot be computed; the winner at each scale
is decided by the one rule of `analysis.sections.winner`, whose interval is printed wherever it is named.
"""

from __future__ import annotations

import math
from typing import Any

from hybridperf.analysis import efficiency as eff, failure
from hybridperf.analysis.sections import (candidate_name, class_seconds, comm_seconds, per_step, Point, region_seconds,
                                          Section, STRICTER, threading_overheads, Verdict)
from hybridperf.models import pmnf, study_models

Table = tuple[str, list[str], list[list[str]]]  # title, headers, rows


def number(value: float | None, digits: int = 4) -> str:
    return "–" if value is None or not math.isfinite(value) else f"{value:.{digits}g}"


def percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f}%"


def size(value: float | None) -> str:
    if value is None:
        return "–"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    return str(value)


def percent_text(ratio: float | None) -> str:
    return "–" if ratio is None or not math.isfinite(ratio) else f"{100 * (ratio - 1):+.1f}%"


def spread_text(sd: float | None) -> str:
    """A spread of log times (≈ relative) as ±x.x%."""
    return "–" if sd is None else f"±{100 * sd:.1f}%"


def distinct_points(s: Section) -> list[tuple[str, Point]]:
    """The section's points with each run shown once: configurations that share one shape and its runs at a
    scale (on one core, pure MPI and hybrid are the same 1 × 1 run) make one row, named by all of them."""
    out: list[tuple[list[str], Point]] = []
    for p in s.points:
        twin = next((names for names, q in out if q.scale == p.scale and q.runs and q.runs == p.runs), None)
        if twin is not None:
            twin.append(p.configuration)
        else:
            out.append(([p.configuration], p))
    return [(candidate_name(names), p) for names, p in out]


def outcome_text(v: Verdict) -> str:
    """The verdict's own word, with what it applies to: 'wins', 'tie (3)', 'undecided'."""
    if v.simulated:
        return f"{v.outcome} (simulated)"
    if v.outcome == "wins" and v.runner_up is None and v.race.failed:
        return "wins (the others failed)"
    return {"only": "baseline", "open": "open (interrupted)"}.get(v.outcome, v.outcome)


def _how_firm(v: Verdict) -> str:
    """How far the declared inputs would have to move to change the answer: the confidence it still holds at,
    and for a tie, the narrowest band that keeps it a tie."""
    race = v.race
    declared = race.rule.confidence
    if v.holds_to is None:
        firm = ""
    elif v.holds_to > declared:
        firm = f"the same blocks give the same answer at {100 * v.holds_to:g}% confidence"
    else:
        stricter = next(c for c in STRICTER if c > declared)
        firm = f"at {100 * stricter:g}% confidence these blocks would not have decided it"
    if v.outcome == "tie":
        widest = max(max(abs(math.log(s.low)), abs(math.log(s.high))) for s in race.standings[1:] if s.state == "tied")
        firm += (f"; it stays a tie for any band from ±{100 * math.expm1(widest):.1f}% up "
                 f"(declared ±{100 * race.rule.tie_within:g}%)")
    return firm


def verdict_sentence(v: Verdict, axis: str) -> str:
    """One line of the headline: who wins at this scale, or which tie, by how much, after how many blocks."""
    where = f"At {v.scale} {axis[:-1] if v.scale == 1 else axis}"
    race, r = v.race, v.runner_up
    confidence = f"{100 * race.rule.confidence:g}%"
    if v.outcome == "only":
        return f"{where}: {v.winner} is the only shape here (the baseline; {race.blocks} runs)."
    if v.outcome == "failed":
        return f"{where}: no answer — every candidate's run failed (the Failures table says why)."
    if v.outcome == "wins" and r is None and race.failed:
        return (f"{where}: {v.winner} is the only candidate left — {', '.join(race.failed)} left the race when a run "
                f"failed (the Failures table says why); nothing was compared ({race.blocks} blocks).")
    if v.simulated:
        lead = f"; {r.candidate} takes {percent_text(r.ratio)} longer" if r else ""
        word = "wins" if v.outcome == "wins" else f"ties (within ±{100 * race.rule.tie_within:g}%) with " + \
            ", ".join(c for c in race.tied if c != race.leader)
        return f"{where}: {race.leader} {word}{lead} (simulated: exact under the cluster description's figures)."
    if v.outcome == "wins":
        lead = f" — {r.candidate} takes {r.lead_text()} longer" if r else ""
        failed = (f"; {', '.join(race.failed)} left the race when a run failed (the Failures table says why)"
                  if race.failed else "")
        return (f"{where}: {v.winner} wins{lead} ({race.blocks} blocks, {confidence} confidence){failed}; "
                f"{_how_firm(v)}.")
    if v.outcome == "tie":
        others = "; ".join(f"{s.candidate} {s.lead_text()}" for s in race.standings[1:] if s.state == "tied")
        return (f"{where}: tie — {', '.join(race.tied)} are within ±{100 * race.rule.tie_within:g}% of each other "
                f"({others} against {race.leader}; {race.blocks} blocks, {confidence} confidence). Prefer {v.preferred}: "
                f"{v.why_preferred}; {_how_firm(v)}.")
    need = race.needs()
    lead = f"{r.candidate} {r.lead_text()}" if r else "–"
    state = ("undecided" if v.outcome == "undecided" else
             "still open (the campaign was interrupted: run the study again to resume)")
    resolves = (f"{race.rule.max_blocks} blocks resolve differences above {percent_text(1 + race.floor).lstrip('+')}"
                if race.floor is not None and math.isfinite(race.floor) else
                f"{race.rule.max_blocks} blocks are too few to bound any difference")
    return (f"{where}: {state} after {race.blocks} blocks — {race.leader} leads, {lead}; run-to-run noise "
            f"{spread_text(race.pair_spread)} per pair of runs, so {resolves}; {need}.")


def with_error(value: float | None, error: float | None) -> str:
    return "–" if value is None else f"{number(value, 3)} ± {number(error, 2)}"


def scaling_headers(s: Section) -> list[str]:
    """The scaling figures a section has: weak scaling has no speedup (analysis.scaling says why)."""
    return ["weak-scaling efficiency"] if s.scaling.weak else ["speedup", "efficiency"]


def scaling_cells(s: Section, p: Point) -> list[str]:
    if s.scaling.weak:
        return [with_error(p.efficiency, p.efficiency_error)]
    return [with_error(p.speedup, p.speedup_error), number(p.efficiency, 3)]


def points_table(s: Section) -> Table:
    rows = []
    for name, p in distinct_points(s):
        t = p.time
        spread = t.sd / t.mean if t and t.sd is not None and t.mean else None
        rows.append([name, str(p.scale), f"{p.nodes}×{p.ranks_per_node}×{p.threads}", p.mode,
                     str(t.n if t else 0), number(t.mean if t else None), number(t.sem if t else None, 2),
                     number(t.min if t else None), number(t.median if t else None), spread_text(spread),
                     *scaling_cells(s, p), str(p.failed)])
    figures = "weak-scaling efficiency T(1)/T(p)" if s.scaling.weak else "speedup"
    return (f"Total time [s] per point (mean, 1 SEM, min, median and spread (sd/mean) of its runs; {figures} ± 1 SEM)",
            ["configuration", s.axis, "nodes×ranks×threads", "MPC mode", "n", "mean", "SEM", "min", "median",
             "spread", *scaling_headers(s), "failed"], rows)


def verdict_table(s: Section) -> Table:
    rows = []
    for v in s.verdicts:
        r, race = v.runner_up, v.race
        exact = v.simulated
        winner = {"tie": " ~ ".join(race.tied), "failed": "–"}.get(v.outcome, v.winner)
        rows.append([str(v.scale), outcome_text(v), winner,
                     r.candidate if r else "–", (percent_text(r.ratio) if exact else r.lead_text()) if r else "–",
                     str(race.blocks), "–" if exact else spread_text(race.pair_spread),
                     "–" if exact or race.floor is None else percent_text(1 + race.floor).lstrip("+"),
                     (percent_text(v.pure_mpi.ratio) if exact else v.pure_mpi.lead_text()) if v.pure_mpi else "–"])
    return (f"Verdict: the race at each scale (paired blocks, confidence sequences at {100 * s.rule.confidence:g}%, "
            f"ties within ±{100 * s.rule.tie_within:g}%); the runner-up's extra time with its interval",
            [s.axis, "outcome", "winner or tied", "runner-up", "runner-up slower by", "blocks", "noise (pair)",
             "resolves", "pure MPI slower by"], rows)


def _mean(p, extract) -> float | None:
    return p.mean_of(extract) if p.runs else None


def communication_table(s: Section) -> Table:
    rows = []
    for name, p in distinct_points(s):
        comm = _mean(p, comm_seconds)
        rows.append([name, str(p.scale), number(comm),
                     number(100 * comm / p.time.mean if comm and p.time else None, 3),
                     number(_mean(p, class_seconds("p2p"))), number(_mean(p, class_seconds("collective"))),
                     number(_mean(p, class_seconds("barrier")))])
    return ("Communication time [s, rank average] and share of the total",
            ["configuration", s.axis, "communication", "% of total", "point-to-point", "collective", "barrier"], rows)


def bytes_table(s: Section) -> Table:
    rows = []
    for name, p in distinct_points(s):
        rows.append([name, str(p.scale), size(_mean(p, per_step(("p2p", "bytes_per_rank", "avg")))),
                     size(_mean(p, per_step(("p2p", "bytes")))),
                     number(_mean(p, per_step(("p2p", "messages_per_rank", "avg"))), 3),
                     number(_mean(p, per_step(("p2p", "messages"))), 4)])
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
    rows = []
    for name, p in distinct_points(s):
        cells = []
        for n in s.regions:
            summary = p.summary_of(region_seconds(n)) if p.runs else None
            cells.append(number(summary.min if summary else None))
        rows.append([name, str(p.scale)] + cells)
    return ("Time per region [s]: minimum of the repeats, rank average (Tables 4.8/4.9)",
            ["configuration", s.axis] + s.regions, rows)


def overhead_table(s: Section) -> Table:
    rows = [[o.configuration, str(o.scale), o.region, f"{o.seconds:+.4g} ± {o.error:.2g}", f"{o.percent:+.1f}%"]
            for o in threading_overheads(s)]
    return ("Threading overhead per region: hybrid − pure MPI at equal scale (Tables 4.6/4.7, minimum times)",
            ["configuration", s.axis, "region", "seconds (min − min) ± error", "% of pure-MPI region"], rows)


def figures_table(s: Section) -> Table:
    """Every figure of merit the kernel reports (mean of the repeats), so kernel-specific results —
    CLOMP's per-variant speedups, SPMV's bandwidth — appear without kernel-specific code."""
    names = list(dict.fromkeys(f["name"] for p in s.points for r in p.runs for f in r["profile"]["figures_of_merit"]
                               if f["name"] != "loop_time"))
    rows = []
    for name, p in distinct_points(s):
        row = [name, str(p.scale)]
        for n in names:
            row.append(number(_mean(p, lambda prof, n=n: next((f["value"] for f in prof["figures_of_merit"]
                                                               if f["name"] == n), None))))
        rows.append(row)
    return ("Figures of merit (mean of the repeats)", ["configuration", s.axis] + names, rows if names else [])


def imbalance_table(s: Section) -> Table:
    names = [r for r in s.regions if r != "total"]
    rows = []
    for name, p in distinct_points(s):
        cells = []
        for n in names:
            value = _mean(p, lambda prof, n=n: prof["regions"].get(n, {}).get("imbalance"))
            cells.append(number(100 * value if value is not None else None, 3))
        rows.append([name, str(p.scale)] + cells)
    return ("Cross-rank imbalance per region, max/avg − 1 [%]", ["configuration", s.axis] + names, rows)


def problem(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items() if k not in eff.IGNORED_PARAMS) or "all runs"


def efficiency_table(rows: list[eff.EfficiencyRow]) -> Table:
    def v(x: eff.Value | None) -> str:
        return str(x) if x else "–"

    varying = {k for k in {k for r in rows for k in r.problem} if len({str(r.problem.get(k)) for r in rows}) > 1}

    def show(params: dict[str, Any]) -> str:
        return problem({k: v for k, v in params.items() if k in varying} if varying else params)

    # a weak-scaling study's 1-core run solves less than a node with the same parameters: its size tells them apart
    sized = len({(str(r.problem), r.size) for r in rows}) > len({str(r.problem) for r in rows})
    body = [[show(r.problem) + (f", size {r.size:,.6g}" if sized and r.size else ""), str(r.nodes), str(r.nt),
             v(r.e_mt), v(r.e_cache), v(r.e_ni), v(r.e_mp),
             " / ".join(f"{r.comm_to_comp[who]:.2g}" if who in r.comm_to_comp else "–" for who in eff.ROLES)]
            for r in rows]
    return ("Chow & Hysom's efficiency parameters (e_mt, e_cache, e_ni > 1 and e_mp < 1 favour hybrid)",
            ["problem", "nodes", "nt", "e_mt", "e_cache", "e_ni", "e_mp", "comm/comp mpi/hyb/ser"], body)


AT_BOUND = 1e-6  # an estimate this far below its own standard error is the fit's bound (0), not a measured value


def _parameter(name: str, value: float, error: float, exact: bool) -> str:
    """One fitted parameter as the fit determined it. The fits keep parameters >= 0, so one the data would make
    negative stops at the bound, as an estimate like 7e-16 with a far larger error: that is shown as what it is.
    A stage with nothing to fit on (no hybrid point for mu) is given as 0 ± 0 by study_models."""
    if value == 0 and error == 0:
        return f"{name} not fitted (no point to fit it on)"
    if exact:
        return f"{name} = {value:.4g}"
    if not math.isfinite(error):
        return f"{name} = {value:.4g}, no standard error (the fit is degenerate: it could not estimate one)"
    if abs(value) < AT_BOUND * error:
        return f"{name} = 0, at its bound (the best fit would make it negative, which the model does not allow)"
    return f"{name} = {value:.4g} ± {error:.2g} ({100 * abs(error / value):.0f}%)"


def _parameters(ev: study_models.ModelEvaluation) -> str:
    """Each stage's parameters; an exact stage (as many points as parameters) has no error to show."""
    note = " (exact: as many points as parameters, so no error and no band)"
    stages = ["; ".join(_parameter(n, v, e, f.exact) for n, v, e in zip(f.names, f.estimates, f.errors))
              for f in ev.fits]
    if all(f.exact for f in ev.fits):
        return "; ".join(stages) + note
    return "; ".join(stage + (note if f.exact else "") for stage, f in zip(stages, ev.fits))


def _model_table(s: Section, ev: study_models.ModelEvaluation) -> Table:
    kind = "held out (fitted without each configuration's largest core count)" if ev.held_out else \
        "in-sample (fitted on the points it is evaluated on: a description, not a prediction)"
    if not ev.rows:
        return (f"{ev.model}, {kind}: not fitted ({ev.note})", [], [])
    rows = [[r.configuration, str(r.scale), number(r.measured), number(r.predicted),
             *((f"{number(r.low)} – {number(r.high)}", "yes" if r.inside else "no")
               if math.isfinite(r.low) and math.isfinite(r.high) else ("–", "–")),
             "–" if r.error != r.error else f"{r.error:.1f}%", "fitted" if r.fitted else "predicted"]
            for r in ev.rows]
    return (f"{ev.model}, {kind}, minimum times: {_parameters(ev)}",
            ["configuration", s.axis, "measured", "predicted", "band (±SE)", "in band", "error", "point"], rows)


def pmnf_cells(cores: list[int], seconds: list[float]) -> list[str]:
    """An Extra-P-style PMNF fit of seconds(cores) (models.pmnf): the model and its cross-validated SMAPE, or why
    there is none."""
    try:
        h = pmnf.select(cores, seconds)
    except ValueError as err:
        return [f"– ({err})", "–"]
    return [h.formula(), f"{h.smape:.2f}%"]


def model_tables(s: Section, cores_per_node: int) -> list[Table]:
    """The thesis's models fitted on this section — held out first, in-sample beside it — the outlook, and an
    Extra-P-style PMNF fit of each configuration's loop time."""
    tables = []
    for name in study_models.MODELS:
        if not s.has_comm and study_models.MODELS[name][1] not in ("total", "communication"):
            continue  # a communication class's model needs the MPI counts
        for held_out in (True, False):
            tables.append(_model_table(s, study_models.evaluate(s, cores_per_node, name, held_out)))
    ahead = study_models.outlook(s, cores_per_node)
    if ahead:
        names = list(ahead[0].predicted)
        rows = [[f"{o.cores}{' (extrapolated)' if o.extrapolated else ''}", *(number(o.predicted.get(n)) for n in names),
                 o.winner, "–" if o.measured_winner is None else f"{o.measured_winner} ({o.measured_outcome})"]
                for o in ahead]
        note = "" if any(o.extrapolated for o in ahead) else \
            "; not extrapolated: the fit has no degree of freedom left to judge a prediction beyond the data"
        tables.append(("Outlook: the overall model (6.10, in-sample) predicting each configuration (seconds)" + note,
                       ["cores", *names, "predicted winner", "measured winner (the race)"], rows))
    fits = []
    for config in dict.fromkeys(p.configuration for p in s.points):
        pts = [p for p in s.points if p.configuration == config and p.runs]
        fits.append([config, str(len(pts)), *pmnf_cells([p.cores for p in pts for _ in p.runs],
                                                        [r["loop_time"] for p in pts for r in p.runs])])
    tables.append(("Empirical model of the loop time, t(p) with p = cores (PMNF, cross-validated)",
                   ["configuration", "points", "model", "CV SMAPE"], fits))
    return tables


def failure_reason(run: dict[str, Any]) -> str:
    """Why a stored run did not succeed: its recorded reason, or for a run stored before reasons were (schema 3),
    the telling line of its stderr."""
    return run.get("reason") or failure.reason(run["stderr"]) or f"{run['status']}, nothing said"


def failed_table(runs: list[dict[str, Any]]) -> Table:
    rows = [[", ".join(r["configurations"]), f"{r['nodes']}×{r['ranks_per_node']}×{r['threads']}",
             ", ".join(f"{k}={v}" for k, v in r["params"].items()), str(r["repeat"] + 1), r["status"],
             failure_reason(r), r.get("output") or "–"] for r in runs if r["status"] != "ok"]
    return ("Runs that did not succeed (not in any statistic)",
            ["configuration", "nodes×ranks×threads", "parameters", "block", "status", "why", "output kept in"], rows)


def failure_summary(runs: list[dict[str, Any]], limit: int = 3) -> list[str]:
    """One line per distinct reason, the most frequent first, with how many runs gave it and one kept output."""
    by_reason: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        if r["status"] != "ok":
            by_reason.setdefault(failure_reason(r), []).append(r)
    ranked = sorted(by_reason.items(), key=lambda item: -len(item[1]))
    lines = [f"{len(rs)} × {why}" + next((f" (output: {r['output']})" for r in rs if r.get("output")), "")
             for why, rs in ranked[:limit]]
    if len(ranked) > limit:
        lines.append(f"… and {len(ranked) - limit} other reason(s): the report's Failures table lists each run")
    return lines
