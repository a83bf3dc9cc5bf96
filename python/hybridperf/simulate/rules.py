"""The rules that decide whether a simulated outcome reproduces a published one (`hybridperf simulate validate`),
each a pure function of the published figure, the simulated one, the tolerance and the outcome's parameters.
Which rule and tolerance an outcome has is declared in resources/data/validate-outcomes.yaml, never here.

A figure is a number, a winner's name, or a mapping of them keyed by core count, node count, size or cluster (and
then by configuration); the simulated figure has the published one's keys. Rules compare magnitudes where the seed gives one:

- ratio_within: every value within `tolerance` (relative) of the published one and on the same side of 1, so a
  ratio of two times near a tie cannot pass with the other side winning;
- winner_at_every_count: the published winner at every count, at most `tolerance` counts differing;
- crossover_within_steps: the first count of the sweep from which hybrids win (the simulated figure; None when
  they never do) at most `tolerance` sweep steps from the first sweep count above the published crossover;
- above / below: every value beyond a published threshold (where the seed states only a threshold)."""

from __future__ import annotations

from typing import Any, Callable, Mapping

Figure = Any  # a number, a name, None, or a mapping of them


def values(published: Figure, simulated: Figure) -> list[tuple[Any, Any]]:
    """(published, simulated) pairs: one, or one per key of the published mapping (and of its mappings: a figure
    per core count and configuration)."""
    if isinstance(published, Mapping):
        simulated = simulated if isinstance(simulated, Mapping) else {}
        return [pair for k, v in published.items() for pair in values(v, simulated.get(k))]
    return [(published, simulated)]


def ratio_within(published: Figure, simulated: Figure, tolerance: float, params: Mapping) -> bool:
    def close(p: float, s: float | None) -> bool:
        return s is not None and abs(s / p - 1) <= tolerance + 1e-12 and (s > 1) == (p > 1) and (s < 1) == (p < 1)
    return all(close(p, s) for p, s in values(published, simulated))


def winner_at_every_count(published: Figure, simulated: Figure, tolerance: float, params: Mapping) -> bool:
    return sum(p != s for p, s in values(published, simulated)) <= tolerance


def crossover_within_steps(published: Figure, simulated: Figure, tolerance: float, params: Mapping) -> bool:
    counts = list(params["counts"])
    if simulated is None:
        return False
    expected = next((i for i, c in enumerate(counts) if c > published), len(counts))
    return abs(counts.index(simulated) - expected) <= tolerance


def leaves(simulated: Figure) -> list[Any]:
    """Every value of a simulated figure (of its mappings' mappings too), for a threshold one published number
    stands for."""
    if isinstance(simulated, Mapping):
        return [leaf for v in simulated.values() for leaf in leaves(v)]
    return [simulated]


def above(published: Figure, simulated: Figure, tolerance: float, params: Mapping) -> bool:
    return all(s is not None and s > published * (1 + tolerance) for s in leaves(simulated))


def below(published: Figure, simulated: Figure, tolerance: float, params: Mapping) -> bool:
    return all(s is not None and s < published * (1 - tolerance) for s in leaves(simulated))


RULES: dict[str, Callable[[Figure, Figure, float, Mapping], bool]] = {
    "ratio_within": ratio_within, "winner_at_every_count": winner_at_every_count,
    "crossover_within_steps": crossover_within_steps, "above": above, "below": below}


def judge(rule: str, published: Figure, simulated: Figure, tolerance: float, params: Mapping | None = None) -> bool:
    return RULES[rule](published, simulated, tolerance, params or {})


def describe(rule: str, tolerance: float) -> str:
    """The rule and its tolerance in a few words, for the table."""
    return {"ratio_within": f"ratio within ±{100 * tolerance:.0f}%",
            "winner_at_every_count": "same winner at every count" + (f" but {tolerance:g}" if tolerance else ""),
            "crossover_within_steps": f"crossover within {tolerance:g} sweep step{'s' if tolerance != 1 else ''}",
            "above": "above the published threshold", "below": "below the published threshold"}[rule]
