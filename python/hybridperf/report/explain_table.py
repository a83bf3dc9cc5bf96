"""`hybridperf recommend --explain`'s table: each split at one node count priced by the closed form and by SimGrid's
replay, part by part (models.split.PARTS, then what the replay spends beyond them), each total with its interval, and
the parts in which the two differ. Pure: the CLI passes simulate.recommend.Side's fields."""

from __future__ import annotations

from hybridperf.models.split import PARTS
from hybridperf.report.tables import Table

# a split priced both ways: its name, the closed form's seconds per part and its total's SD, the replay's seconds
# per part and beyond them and its total's SD, and the parts in which they differ beyond both intervals ([]: agree)
Priced = tuple[str, dict[str, float], float, dict[str, float], float, list[str]]


def table(nodes: int, rest: str, priced: list[Priced]) -> Table:
    """Per split: each part's seconds as `closed form | simulation` (`rest`: what only the replay has, its key in
    the replay's parts), both totals ± 2 SD, and the parts that differ or `agree`."""
    rows = []
    for split, closed, closed_sd, simulated, simulated_sd, differing in priced:
        total = sum(simulated.values())

        def shown(seconds: float) -> str:  # a replay's differences leave rounding crumbs: nothing, to a millionth
            return f"{seconds:.4g}" if abs(seconds) > 1e-6 * total else "0"

        totals = (f"{sum(closed.values()):.4g}±{2 * closed_sd:.2g} | {total:.4g}"
                  + (f"±{2 * simulated_sd:.2g}" if simulated_sd else ""))
        rows.append([split, *(f"{shown(closed[p])} | {shown(simulated[p])}" for p in PARTS),
                     f"– | {shown(simulated[rest])}", totals, ", ".join(differing) or "agree"])
    return (f"{nodes} node{'s' if nodes > 1 else ''}: closed form | simulation, seconds (totals ± 2 SD)",
            ["split", *PARTS, rest, "total", "differ in"], rows)
