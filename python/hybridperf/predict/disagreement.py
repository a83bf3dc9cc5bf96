"""Where a prediction (the model's or the simulation's) and a decided measured race of the same problem on the same
machine disagree, and in which part. The race's lead has an interval; the prediction disagrees when its ratio of
the same two splits lies outside it (a different winner, or the same winner by a lead the runs exclude). The part
named is the one whose share of the gap between the two splits the prediction gets most wrong: compute (threading
overhead and waiting folded in, as a profile cannot split them), point-to-point or collectives. Pure."""

from __future__ import annotations

from hybridperf.predict.answer import Answer, IDLE, name

COMPUTE = "compute (threading and waiting included)"
GROUPS = {COMPUTE: ("compute", "threading", IDLE), "point-to-point": ("point-to-point",),
          "collectives": ("collectives",)}


def _grouped(parts: dict[str, float | None]) -> dict[str, float] | None:
    """The parts in the groups a measured profile tells apart; None where any is unknown."""
    known = {k: v for k, v in parts.items() if v is not None}
    if not all(k in known for k in ("compute", "point-to-point", "collectives")):
        return None
    return {g: sum(known.get(k, 0.0) for k in keys) for g, keys in GROUPS.items()}


def disagreement(method: str, predicted: Answer, measured: Answer) -> str:
    """One sentence (or '' where they agree, or the race did not decide): what the race measured, what the
    prediction says of the same two splits, and the part that differs most, with its seconds both ways."""
    if measured.verdict not in ("wins", "tie") or measured.contest.runner_up is None:
        return ""
    race = measured.contest
    leader, runner = race.leader, race.runner_up
    if runner.low is None or runner.high is None:
        return ""
    by_name = {name(p.split): p for p in predicted.predictions}
    if leader not in by_name or runner.candidate not in by_name:
        return ""
    a, b = by_name[leader], by_name[runner.candidate]
    ratio = b.seconds / a.seconds
    if runner.low <= ratio <= runner.high:
        return ""
    said = (f"the {'model' if method == 'model' else method} and the measured race disagree at 1 node: the race "
            f"measured {runner.candidate} {runner.lead_text()} slower than {leader} ({measured.verdict}); the "
            f"{method} says {100 * (ratio - 1):+.1f}%")
    measured_of = {name(p.split): p for p in measured.predictions}
    sides = (a, b, measured_of.get(leader), measured_of.get(runner.candidate))
    gaps = [_grouped(p.parts) if p else None for p in sides]
    if None in gaps:
        return said + "; the runs' profiles do not split their time into parts to say where."
    pa, pb, ma, mb = gaps
    worst = max(GROUPS, key=lambda g: abs((pb[g] - pa[g]) - (mb[g] - ma[g])))
    return (f"{said}. The part that differs most is {worst}: {runner.candidate} minus {leader} is "
            f"{pb[worst] - pa[worst]:+.3g} s predicted, {mb[worst] - ma[worst]:+.3g} s measured.")
