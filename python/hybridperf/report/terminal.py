"""What the terminal shows: one profile (figures of merit, regions, communication, checks), several splits
side by side, and a study's answer (loop times and the verdict, narrow enough for 80 columns)."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hybridperf.analysis import efficiency as eff
from hybridperf.analysis.pop_study import point_factors
from hybridperf.analysis.race import Race
from hybridperf.analysis.sections import Section
from hybridperf.report import percall_table, placement_table, pop_table
from hybridperf.report.tables import (distinct_points, efficiency_table, failure_summary, number, size as _bytes,
                                      spread_text, verdict_table)


def _seconds(value: float) -> str:
    return f"{value:.6f}"


def regions_table(p: dict[str, Any]) -> Table:
    total = p["regions"]["total"]["time"]["avg"] or 1.0
    table = Table(title="Regions: seconds across ranks")
    for col in ("region", "calls", "avg", "max (rank)", "% total", "imbalance"):
        table.add_column(col, justify="left" if col == "region" else "right")
    for name, r in p["regions"].items():
        t = r["time"]
        table.add_row(
            name, str(r["calls"]), _seconds(t["avg"]), f"{_seconds(t['max'])} ({t['max_rank']})",
            f"{100 * t['avg'] / total:.1f}", f"{100 * r['imbalance']:.1f}%",
        )
    return table


def comm_table(p: dict[str, Any]) -> Table:
    table = Table(title="Communication in the measured loop")
    for col in ("class", "messages", "bytes", "bytes/rank", "max [s]"):
        table.add_column(col, justify="left" if col == "class" else "right")
    for name, c in p.get("comm", {}).items():
        table.add_row(
            name, str(c["messages"]), _bytes(c["bytes"]), _bytes(c["bytes_per_rank"]["avg"]),
            _seconds(c["time"]["max"]),
        )
    return table


def checks_table(p: dict[str, Any]) -> Table:
    table = Table(title="Correctness checks")
    for col in ("check", "value", "expected", "tolerance", "result"):
        table.add_column(col, justify="left" if col in ("check", "result") else "right")
    for name, c in p["checks"].items():
        table.add_row(
            name, f"{c['value']:.4g}", f"{c['expected']:.4g}", f"{c['tolerance']:.3g}",
            "[green]pass[/green]" if c["pass"] else "[bold red]FAIL[/bold red]",
        )
    return table


def show(p: dict[str, Any], console: Console | None = None, warnings: list[str] | None = None) -> None:
    console = console or Console()
    run = p["run"]
    foms = ", ".join(f"{f['name']} = {f['value']:.4g} {f['unit']}" for f in p["figures_of_merit"])
    console.print(
        f"[bold]{p['kernel']}[/bold]: {run['ranks']} rank(s) x {run['threads_per_rank']} thread(s) on "
        f"{run['nodes']} node(s) ({', '.join(run['hosts'])}); {foms}"
    )
    console.print(regions_table(p))
    console.print(comm_table(p))
    console.print(checks_table(p))
    for w in warnings or []:
        console.print(f"[yellow]warning:[/yellow] {w}")


def comparison_table(rows: list[dict[str, Any]], kernel: str, race: Race) -> Table:
    """The median run of each split side by side, titled with the race's verdict (not with the fastest median:
    a lead the race has not decided is not a winner)."""
    unit = rows[0]["per_unit_name"].replace("_per_", "/").replace("_", "-") if rows else ""
    verdict = {"wins": f"{race.leader} wins", "tie": f"tie: {' ~ '.join(race.tied)}"}.get(
        race.outcome, f"{race.outcome}, {race.leader} leads")
    table = Table(title=f"{kernel}: ranks x threads compared ({escape(verdict)}, {race.blocks} blocks)")
    for col in ("split", "loop s", unit, "speedup", "comm s", "comm %", "p2p/rank", "checks"):
        table.add_column(col, justify="left" if col == "split" else "right")
    for r in rows:
        table.add_row(
            ("[bold]" if race.outcome == "wins" and r["split"] == race.leader else "") + r["split"],
            f"{r['loop_time']:.4f}",
            f"{r['per_unit']:.2f}" if r["per_unit"] is not None else "-",
            f"{r['speedup']:.2f}" if r["speedup"] else "-",
            f"{r['comm_time']:.4f}",
            f"{100 * r['comm_share']:.1f}",
            _bytes(r["p2p_bytes_per_rank"]),
            "[green]pass[/green]" if not r["failed_checks"] else "[red]" + ", ".join(r["failed_checks"]) + "[/red]",
        )
    return table


def rich_table(title: str, headers: list[str], rows: list[list[str]], left: int = 1, compact: bool = False,
               whole: int = 0) -> Table:
    """A report table for the terminal; the first `left` columns left-aligned, numbers to the right; `compact`:
    rules under the header only, so that a wide table still fits 80 columns; the first `whole` columns never folded
    (names one types); headers all empty: none shown (a list of properties). A narrow terminal folds the other cells
    onto more lines, never cuts one."""
    title = escape(title)  # "[s]" is a unit here, not rich's markup
    header = any(headers)
    table = (Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, show_header=header) if compact
             else Table(title=title, show_header=header))
    for k, h in enumerate(headers):
        justify = "left" if k < left else "right"
        if k < whole:
            table.add_column(escape(h), justify=justify, no_wrap=True,
                             min_width=max([len(h), *(len(row[k]) for row in rows)]))
        else:
            table.add_column(escape(h), justify=justify, overflow="fold")
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    return table


def efficiency_rich(rows: list[eff.EfficiencyRow]) -> Table:
    return rich_table(*efficiency_table(rows))


TERMINAL_VERDICT = (0, 1, 2, 4, 5, 6)  # scale, outcome, winner or tied, lead, blocks, noise


SECTIONS = ("summary", "per-call", "full")  # what `report --section` prints


def print_study(console: Console, sections: list[Section], runs: list[dict[str, Any]], section: str = "summary",
                where: str = "report DIR") -> None:
    """The answer in 80 columns (`summary`): per parameter set the loop times, each race's outcome with its interval,
    the POP factors of the raced candidates and the sentence that names what sets the winner apart, and one line
    saying where the rest is; `per-call` the per-call times alone; `full` everything."""
    for s in sections:
        if section != "per-call":
            _answer(console, s)
        if section == "summary":
            flagged = len(percall_table.flagged(s))
            console.print(f"per-call times{f' ({flagged} heavy tail(s) flagged)' if flagged else ''}: "
                          f"{where} --section per-call, or the page", highlight=False, markup=False)
            continue
        title, headers, rows = percall_table.table(s)
        if rows:
            keep = percall_table.TERMINAL
            console.print(rich_table(title, [headers[k] for k in keep], [[row[k] for k in keep] for row in rows],
                                     left=3, compact=True))
        for line in percall_table.flagged(s):
            console.print(f"heavy tail: {line}", highlight=False, markup=False)
    failed = failure_summary(runs)
    if failed:
        console.print(f"[red]{sum(r['status'] != 'ok' for r in runs)} run(s) did not succeed[/red] (the report's "
                      "Failures table lists each):", highlight=False)
        for line in failed:
            console.print(f"  {line}", highlight=False, markup=False)


def _answer(console: Console, s: Section) -> None:
    """A parameter set's loop times, verdict, placement costs and POP factors with their sentences."""
    rows = []
    for name, p in distinct_points(s):
        t = p.time
        rows.append([name, str(p.scale), f"{p.nodes}×{p.ranks_per_node}×{p.threads}", str(t.n if t else 0),
                     f"{t.mean:.4g}" if t else "–", spread_text(t.sd / t.mean if t and t.sd else None),
                     number(p.efficiency if s.scaling.weak else p.speedup, 3)])
    # the mean, as the speedup beside it is of means (the thesis's convention; the page has the median too)
    console.print(rich_table(f"{s.title()}: loop time [s]", ["configuration", s.axis, "shape", "n", "mean",
                                                            "spread", "weak eff." if s.scaling.weak else "speedup"],
                             rows))
    if s.scaling.weak or s.scaling.assumed_base:  # a column not what a reader expects: say why
        console.print(s.scaling.why, highlight=False, markup=False)
    _, _, full = verdict_table(s)
    verdict = [[row[k] for k in TERMINAL_VERDICT] for row in full]  # what fits 80 columns of the report's table
    console.print(rich_table(f"{s.title()}: verdict ({100 * s.rule.confidence:g}% confidence, ties within "
                             f"±{100 * s.rule.tie_within:g}%)", [s.axis, "outcome", "winner", "lead, interval",
                                                                 "blocks", "noise"], verdict, left=3, compact=True))
    for v in s.verdicts:  # what the table has no room for: what an open race would need
        if v.outcome in ("undecided", "open") and not v.simulated:
            console.print(f"{v.scale} {s.axis}: {v.outcome}: {v.race.needs()}", highlight=False, markup=False)
    placed = placement_table.table(s)
    if placed:
        console.print(rich_table(*placed, left=4, compact=True))
    factors = point_factors(s, distinct_points(s))
    raced = {v.scale for v in s.verdicts if len(v.race.standings) > 1}
    headers, rows = pop_table.terminal_rows(s, [f for f in factors if f.scale in raced])  # a baseline's are all 1
    if rows:
        console.print(rich_table(f"{s.title()}: POP efficiency factors (medians; docs/pop.md)", headers, rows,
                                 left=1, compact=True))
    for line in pop_table.sentences(s, factors):
        console.print(line, highlight=False, markup=False)
