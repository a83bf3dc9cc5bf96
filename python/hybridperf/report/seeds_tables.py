"""`hybridperf simulate validate`'s tables: the seeds' published claims against the simulation at their scale, and
with --sensitivity where each claim's rule holds as one assumed input moves across its declared range. Pure: the CLI
passes simulate.outcome.Outcome's and predict.outcomes.Swept's fields, each figure and rule already as text."""

from __future__ import annotations

import re

from hybridperf.report.tables import Table

# one claim judged: the claim, its source, the published and the simulated figure and the rule as text, whether it
# was held out, whether it is reproduced, and the closed-form model's figure ("" where it has none)
Claim = tuple[str, str, str, str, str, bool, bool, str]
# one assumed input of a swept claim: what it is, its nominal value (or where that comes from), its declared range
# (factors) and the factors over which the rule holds, as text
Holds = tuple[str, str, tuple[float, float], str]


def title(size: int, window: int, steps: int, spmv_window: int, spmv_calls: int) -> str:
    """What was simulated: MD's fcc cells and the steps of its run replayed, SPMV's calls replayed of its run's, and
    how communication is timed."""
    return (f"The seeds at their scale, simulated (MD: {size}^3 fcc cells, {window} of {steps} steps; SPMV: "
            f"{spmv_window} of {spmv_calls} calls); MD and DL_POLY communication timed as the seeds' timers did: rank "
            "0's seconds inside the calls (Table 5.1: every rank's)")


def first_clause(source: str) -> str:
    """Where an input comes from, to its first parenthesis, colon or semicolon: 'thesis Table 4.8 (the md code's
    ...)' -> 'thesis Table 4.8', for a table a terminal can hold; a figure ('0.5us') as it is."""
    return re.split(r" ?[(:;]", source, maxsplit=1)[0].strip() or source


def claims(heading: str, judged: list[Claim], wide: bool) -> Table:
    """Per claim: it (with `wide`, its source on the line beneath), published and simulated, the rule that judges
    them, whether it was held out and whether it is reproduced; the closed-form model's figure where any claim has
    one."""
    closed_form = any(c[-1] for c in judged)
    rows = [[f"{claim}\n{source}" if wide else claim, published, simulated, rule, "yes" if held_out else "no",
             "yes" if reproduced else "no", *((model or "-",) if closed_form else ())]
            for claim, source, published, simulated, rule, held_out, reproduced, model in judged]
    return (heading, ["claim", "published", "simulated", "rule", "held out", "reproduced",
                      *(("closed-form model",) if closed_form else ())], rows)


def swept(heading: str, grid: int, bisections: int, outcomes: list[tuple[str, bool, list[Holds]]],
          wide: bool) -> Table:
    """Per outcome (name, reproduced at the nominal inputs, its assumed inputs): per assumed input with a declared
    range, its nominal value (the first clause of where it comes from, unless `wide`), the range and where the rule
    holds over it; `grid` points a side were tried, then `bisections` bisections."""
    rows = []
    for name, reproduced, holds in outcomes:
        cells = ([[what, nominal if wide else first_clause(nominal), f"×{low:g}–×{high:g}", text]
                  for what, nominal, (low, high), text in holds]
                 or [["-", "-", "-", "no assumed input with a declared range"]])
        rows += [[name, "yes" if reproduced else "no", *cells[0]], *(["", "", *c] for c in cells[1:])]
    return (f"{heading}: where each rule holds as one assumed input moves across its declared range, the others "
            f"nominal ({grid} point{'s' if grid > 1 else ''} a side, then {bisections} bisections)",
            ["outcome", "reproduced", "assumed input", "nominal", "range", "rule holds over"], rows)
