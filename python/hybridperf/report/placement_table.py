"""The placement table (analysis.placement: the thesis's Table 4.4 per region), for the terminal and the page."""

from __future__ import annotations

from hybridperf.analysis.placement import diffs, SHARED
from hybridperf.analysis.sections import Section

Table = tuple[str, list[str], list[list[str]]]  # title, headers, rows


def table(section: Section) -> Table | None:
    """Per configuration, scale, placement and region: both medians, Diff with its interval and verdict, n; None
    when the section has no placement to set against compact."""
    found = diffs(section)
    if not found:
        return None
    rows = []
    for d in found:
        j = d.judgement
        interval = f"[{100 * j.low:+.1f}%, {100 * j.high:+.1f}%]" if j.bounded else "[unbounded]"
        rows.append([d.configuration, str(d.scale), d.placement, d.region, f"{d.shared:.4g}", f"{d.other:.4g}",
                     f"{100 * j.estimate:+.2f}%", interval, f"{100 * d.confidence:.3g}%", j.word, str(j.n)])
    title = (f"{section.title()}: what placement costs, Diff = ({SHARED} − other) / {SHARED} per block (Table 4.4), "
             f"judged against ±{100 * section.rule.tie_within:g}% at {100 * section.rule.confidence:g}% for each "
             "comparison's k rows together (Bonferroni: each interval at 1 − "
             f"{100 * (1 - section.rule.confidence):.3g}%/k)")
    return title, ["configuration", section.axis, "placement", "region", f"{SHARED} [s]", "other [s]", "Diff",
                   "interval", "level", "verdict", "n"], rows


def as_json(section: Section) -> dict[str, list[dict[str, object]]]:
    """`report --json`'s part: {"placement": [...]} with each Diff and its verdict, or {} when there is none."""
    rows = [{"configuration": d.configuration, section.axis: d.scale, "placement": d.placement, "region": d.region,
             "compact_seconds": d.shared, "other_seconds": d.other, "diff": d.judgement.estimate,
             "low": d.judgement.low if d.judgement.bounded else None,
             "high": d.judgement.high if d.judgement.bounded else None, "confidence": d.confidence,
             "verdict": d.judgement.word,
             "blocks": d.judgement.n} for d in diffs(section)]
    return {"placement": rows} if rows else {}
