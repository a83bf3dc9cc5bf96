"""One renderer for every predictor's recommendation: its tables (the report's (title, headers, rows) shape, which
report.terminal and report.html draw), its lines of prose, a JSON document of one shape for all three methods,
and a self-contained HTML page. Pure functions."""

from __future__ import annotations

import html
import math
from typing import Any

from hybridperf.predict.answer import ALL_PARTS, Answer, Input, name, Prediction, Recommendation
from hybridperf.report.html import html_table, STYLE
from hybridperf.report.tables import Table

HOW = {"model": "predicted by the closed-form split model", "simulation": "simulated with SimGrid",
       "measured": "measured: a stored study's race"}


def _cell(p: Prediction) -> str:
    """'12.3±4%', with the runs it rests on for measured ones; exact replays have no ±; an interval too few runs
    bound is said so, not '±inf%'."""
    spread = max(p.high - p.seconds, p.seconds - p.low) / p.seconds if p.seconds else 0.0
    shown = f"{p.seconds:.4g}" + ("±?" if not math.isfinite(spread) else f"±{100 * spread:.0f}%" if spread > 5e-4
                                  else "")
    return shown + (f" ({p.runs})" if p.runs else "")


def _columns(rec: Recommendation) -> list[tuple[int, int]]:
    """The splits' columns, (ranks per node, threads), those left out included, most ranks first."""
    return sorted({(s.ranks_per_node, s.threads) for _, a in _answers(rec)
                   for s in (*(p.split for p in a.predictions), *(s for s, _ in a.left_out))}, key=lambda s: -s[0])


def _answers(rec: Recommendation) -> list[tuple[str, Answer]]:
    """Each answer with its row's label: the node count, and '1, measured' for a calibration's runs beside."""
    return [(str(a.nodes), a) for a in rec.answers] + ([("1, measured", rec.measured)] if rec.measured else [])


def verdicts_table(rec: Recommendation) -> Table:
    """The answer per node count, narrow enough for 80 columns: the winner, the runner-up, its lead with the
    interval, the verdict (and, for the model, the share of Monte Carlo draws the winner wins)."""
    draws = any(a.confidence is not None for _, a in _answers(rec))
    headers = ["nodes", "use", "runner-up", "its lead, interval", "verdict", *(["draws"] * draws)]
    rows = [[label, name(a.winner), name(a.runner_up) if a.runner_up else "–", a.lead_text(), a.verdict,
             *([f"{100 * a.confidence:.0f}%" if a.confidence is not None else "–"] * draws)]
            for label, a in _answers(rec)]
    title = (f"{rec.workload} ({HOW[rec.method]}): the split to use, the runner-up's lead over the fastest with its "
             "interval, and the verdict (docs/study-spec.md): tie when the whole interval lies inside ±"
             f"{100 * rec.answers[0].contest.tie_within:g}%, wins when it lies above zero, else undecided")
    return title, headers, rows


def predictions_table(rec: Recommendation) -> Table:
    columns = _columns(rec)
    headers = ["nodes", *(f"{r}r×{t}t" for r, t in columns)]
    rows = []
    for label, a in _answers(rec):
        by_shape = {(p.split.ranks_per_node, p.split.threads): p for p in a.predictions}
        left = {(s.ranks_per_node, s.threads) for s, _ in a.left_out}
        rows.append([label, *(_cell(by_shape[c]) if c in by_shape else "left out" if c in left else "–"
                              for c in columns)])
    title = (f"seconds per split ({HOW[rec.method]}), ± the interval each is good to"
             + (", (n): the runs it rests on" if any(p.runs for _, a in _answers(rec) for p in a.predictions) else ""))
    return title, headers, rows


def parts_table(rec: Recommendation) -> Table:
    headers = ["nodes", "split", *ALL_PARTS, "total"]
    rows = [[str(a.nodes), name(p.split), *("–" if p.parts.get(k) is None else f"{p.parts[k]:.4g}" for k in ALL_PARTS),
             f"{p.seconds:.4g}"] for a in rec.answers for p in a.predictions]
    return f"{rec.workload}: seconds per part (– where this method cannot tell the part apart)", headers, rows


def sensitivity_table(rec: Recommendation) -> Table:
    movable = [i for i in rec.inputs if i.movable]
    if not movable:
        return ("What would change the answer: no input is assumed, nor moved" + (
            " — the answer is the race's, with its lead's interval" if rec.method == "measured" else ""),
            ["input", "value", "source"], [[i.name, i.value, i.source] for i in rec.inputs])
    exact = rec.method != "simulation"
    title = ("What would change the answer: the factor each input would have to be multiplied by (×) or divided by "
             f"(÷) for another split to win; – none within ×{rec.limit:g}" if exact else
             "What would change the answer: does halving (÷2) or doubling (×2) an input make the runner-up win? "
             "(≤×2: yes, the change lies at or before it; – neither; not moved: a measured input)")
    headers = ["input", "value", "source", *(f"{a.nodes} node{'s' if a.nodes > 1 else ''}" for a in rec.answers)]
    rows = []
    for i in rec.inputs:
        moves = rec.sensitivity.get(i.name)
        cells = [moves[a.nodes].text() if moves else "not moved" for a in rec.answers]
        rows.append([i.name, i.value, source_text(i), *cells])
    return title, headers, rows


def source_text(i: Input) -> str:
    """Where an input comes from, 'assumed' said once: never a bare 'assumed:' nor 'assumed: assumed …'."""
    if not i.assumed or "assumed" in i.source:
        return i.source or "–"
    return f"assumed: {i.source}" if i.source else "assumed"


def lines(rec: Recommendation) -> list[str]:
    """What the tables do not say: splits left out, where the winner changes, notes, the measured runs' race."""
    out = []
    seen = set()
    for a in rec.answers:
        for s, why in a.left_out:
            if (s.ranks_per_node, s.threads) not in seen:
                seen.add((s.ranks_per_node, s.threads))
                out.append(f"{name(s)} left out: {why}")
        if a.note:
            out.append(f"{a.nodes} node{'s' if a.nodes > 1 else ''}: {a.note}")
    for n, before, after in rec.crossovers:
        out.append(f"the winner changes at {n} nodes: {name(before)} -> {name(after)}")
    if any(not (math.isfinite(p.low) and math.isfinite(p.high)) for _, a in _answers(rec) for p in a.predictions):
        out.append("±?: too few runs to bound that median's interval")
    return out + list(rec.notes) + rec.measured_note.splitlines()


def _prediction_json(p: Prediction) -> dict[str, Any]:
    bounded = math.isfinite(p.low) and math.isfinite(p.high)
    why = None if bounded else (f"{p.runs} run(s) are too few to bound the median's interval" if p.runs else
                                "the prediction has no bounded interval")
    return {"split": name(p.split), "nodes": p.split.nodes, "ranks_per_node": p.split.ranks_per_node,
            "threads": p.split.threads, "seconds": p.seconds, "low": p.low, "high": p.high, "unbounded": why,
            "runs": p.runs, "parts": p.parts}


def _answer_json(a: Answer) -> dict[str, Any]:
    unbounded = a.runner_up is not None and (a.margin_low is None or a.margin_high is None)
    return {"nodes": a.nodes, "verdict": a.verdict, "winner": name(a.winner),
            "runner_up": name(a.runner_up) if a.runner_up else None, "margin": a.margin, "margin_low": a.margin_low,
            "margin_high": a.margin_high,
            "margin_unbounded": "too few blocks (or runs) to bound the lead's interval" if unbounded else None,
            "tie_within": a.contest.tie_within, "confidence": a.confidence, "note": a.note,
            "predictions": [_prediction_json(p) for p in a.predictions],
            "left_out": [{"split": name(s), "why": why} for s, why in a.left_out]}


def as_json(rec: Recommendation) -> dict[str, Any]:
    """The recommendation as one JSON document, of the same shape for measured, modelled and simulated answers."""
    return {
        "method": rec.method, "cluster": rec.cluster, "workload": rec.workload, "about": rec.about,
        "inputs": [{"name": i.name, "value": i.value, "source": i.source, "assumed": i.assumed,
                    "movable": i.movable} for i in rec.inputs],
        "answers": [_answer_json(a) for a in rec.answers],
        "crossovers": [{"nodes": n, "from": name(a), "to": name(b)} for n, a, b in rec.crossovers],
        "sensitivity": {"limit": rec.limit, "exact": rec.method != "simulation",
                        "moves": [{"input": i, "moves": {str(n): {"up": m.up, "down": m.down, "value": m.value,
                                                                  "text": m.text()} for n, m in per.items()}}
                                  for i, per in rec.sensitivity.items()]},
        "measured": _answer_json(rec.measured) if rec.measured else None,
        "disagreement": rec.disagreement or None,
        "notes": lines(rec),
    }


def html_page(rec: Recommendation) -> str:
    """A self-contained page: the tables and the lines."""
    tables = (verdicts_table(rec), predictions_table(rec), parts_table(rec), sensitivity_table(rec))
    body = "".join(html_table(t) for t in tables)
    notes = "".join(f"<li>{html.escape(line)}</li>" for line in lines(rec))
    title = html.escape(f"{rec.cluster}: which split — {rec.workload}")
    differs = f"<p><strong>{html.escape(rec.disagreement)}</strong></p>" if rec.disagreement else ""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title><style>{STYLE}</style></head>"
            f"<body><h1>{title}</h1>{differs}<p>{html.escape(rec.about)}</p>{body}<ul>{notes}</ul></body></html>")
