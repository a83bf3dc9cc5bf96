"""How far each input of a prediction would have to move to change its answer — one routine for every predictor.

A predictor declares its inputs (answer.Input) and prices any candidates with one input moved (`times`). Per
movable input and per node count with a runner-up, the routine walks the input away from its value, up and
down, until the winner changes. A cheap predictor (the closed form) is asked about every candidate on a fine
grid up to ×100 and the change refined by bisection: the factor found is exact. A costly one (a SimGrid replay)
is asked about the winner and the runner-up at ×2 and ÷2 only: a change found there is an upper bound ("≤×2").
An input priced from zero (a threading loss assumed nil) cannot be multiplied: it is set instead, from 0.01% to
100% per extra thread. Pure but for what the predictor does to price."""

from __future__ import annotations

import math
from typing import Callable, Protocol

from hybridperf.models.split import Split
from hybridperf.analysis.contest import exact
from hybridperf.predict.answer import Answer, Input, Move, name as split_name, TIE_WITHIN

CHEAP_LIMIT = 100.0  # a cheap predictor's inputs are moved by up to this factor either way
COSTLY_LIMIT = 2.0  # a costly one's: halved and doubled
STEPS = 40  # grid points per direction for a cheap predictor
LOSSES = tuple(1e-4 * 1e4 ** (k / STEPS) for k in range(STEPS + 1))  # a loss per extra thread, 0.01% to 100%


class Predictor(Protocol):
    """What predict.sensitivity and the renderer need of any method of predicting."""

    method: str  # one of answer.METHODS
    cheap: bool  # whether pricing every candidate a few hundred times is affordable

    def inputs(self) -> tuple[Input, ...]: ...

    def answer(self, nodes: int) -> Answer: ...

    def times(self, nodes: int, splits: list[Split], moved: tuple[str, float] | None = None) -> dict[Split, float]:
        """Central seconds of these splits; `moved`: one input's name and its factor (or, for an input priced from
        zero, its value)."""
        ...

    def from_zero(self, name: str) -> bool:
        """Whether the input is priced from nothing, so it is set rather than multiplied."""
        ...


def limit(predictor: Predictor) -> float:
    return CHEAP_LIMIT if predictor.cheap else COSTLY_LIMIT


def bracket(values: list[float], changes: Callable[[float], bool], start: float,
            bisections: int) -> tuple[float, float] | None:
    """Walking `values` away from `start` (where the answer is the base one), the last value at which the answer
    is unchanged and the first at which it changes, narrowed by `bisections` bisections between them (geometric
    where both are above zero) — or None where no value changes it. Also `simulate validate --sensitivity`'s
    (predict.outcomes)."""
    previous = start
    for value in values:
        if changes(value):
            low, high = previous, value
            for _ in range(bisections):
                mid = math.sqrt(low * high) if low > 0 and high > 0 else (low + high) / 2
                low, high = (low, mid) if changes(mid) else (mid, high)
            return low, high
        previous = value
    return None


def _first_change(values: list[float], changes: Callable[[float], bool], start: float, refine: bool) -> float | None:
    """The value nearest `start` at which the answer changes (bracket's), refined where `refine`, or None."""
    found = bracket(values, changes, start, 30 if refine else 0)
    return None if found is None else found[1]


def moves(predictor: Predictor, answers: list[Answer],
          progress: Callable[[str], None] = lambda line: None) -> dict[str, dict[int, Move]]:
    """Per movable input, per node count, the move that changes the winner (an empty Move where none does within
    the predictor's limit, or where there is nothing to win against)."""
    cheap = predictor.cheap
    grid = [CHEAP_LIMIT ** (k / STEPS) for k in range(1, STEPS + 1)] if cheap else [COSTLY_LIMIT]
    out: dict[str, dict[int, Move]] = {}
    for entry in predictor.inputs():
        if not entry.movable:
            continue
        out[entry.name] = {}
        for a in answers:
            if a.runner_up is None:
                out[entry.name][a.nodes] = Move()
                continue
            contenders = [p.split for p in a.predictions] if cheap else [a.leader, a.runner_up]

            def changes(x: float, nodes: int = a.nodes, contenders: list[Split] = contenders,
                        leader: Split = a.leader, name: str = entry.name) -> bool:
                """Whether another split leads the contest of the moved times (exact under the moved inputs)."""
                if not cheap:  # a cheap predictor's hundreds of prices are too quick to report
                    progress(f"{name} × {x:g} at {nodes} node{'s' if nodes > 1 else ''}")
                t = predictor.times(nodes, contenders, (name, x))
                return exact({split_name(s): v for s, v in t.items()}, TIE_WITHIN).leader != split_name(leader)

            if predictor.from_zero(entry.name):
                values = list(LOSSES) if cheap else [0.01, 0.1]
                out[entry.name][a.nodes] = Move(value=_first_change(values, changes, 0.0, cheap), exact=cheap)
            else:
                out[entry.name][a.nodes] = Move(_first_change(grid, changes, 1.0, cheap),
                                                _first_change([1 / f for f in grid], changes, 1.0, cheap), exact=cheap)
    return out
