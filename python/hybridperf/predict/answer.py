"""What every prediction of "which ranks x threads split wins" returns, however it was made — measured (a stored
study's race), modelled (the closed-form split model) or simulated (SimGrid's replay): per node count, each
candidate split's time with an interval and its parts, and the contest those give by the project's one rule
(analysis.contest: the winner, the runner-up's lead with its interval, wins / tie / undecided). Plus the inputs the predictions rest on,
each with its provenance, and how far each would have to move to change the answer (predict.sensitivity).
Pure data and pure functions."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from hybridperf.analysis.contest import Contest, decide, preferred, Standing
from hybridperf.analysis.race import Rule
from hybridperf.models.split import PARTS, Split

IDLE = "idle"  # what a run spends beyond its parts: ranks waiting on the slowest, less any overlap
ALL_PARTS = (*PARTS, IDLE)
METHODS = ("measured", "model", "simulation")
TIE_WITHIN = Rule().tie_within  # the tie band every race uses by default


class Unanswerable(ValueError):
    """The question cannot be answered by this method: no SimGrid, no such cluster, no runs of the program."""


def name(split: Split) -> str:
    return f"{split.ranks_per_node}r×{split.threads}t"


@dataclass(frozen=True)
class Input:
    """One input a predictor rests on: its value as text, where it comes from (measured, published, assumed,
    borrowed from another machine, given on the command line), and whether a sensitivity may move it."""

    name: str
    value: str
    source: str
    assumed: bool
    movable: bool = True


@dataclass(frozen=True)
class Prediction:
    split: Split
    seconds: float
    low: float  # the interval the prediction is good to: the model's ±2 SD (log scale), a replay's measured-input
    high: float  # noise, the measured runs' median's confidence interval
    parts: dict[str, float | None]  # ALL_PARTS; None where this method cannot tell the part apart
    runs: int | None = None  # measured: how many runs


@dataclass(frozen=True)
class Answer:
    """One node count: the candidates, the one to use first (the winner, or the preferred of a tie), the splits
    left out and why, and the contest the one rule decided (analysis.contest, its candidates named as `name`)."""

    nodes: int
    predictions: tuple[Prediction, ...]  # the one to use first, then by time
    contest: Contest
    confidence: float | None = None  # the model's share of Monte Carlo draws in which the winner wins
    left_out: tuple[tuple[Split, str], ...] = ()
    note: str = ""

    @property
    def verdict(self) -> str:
        return self.contest.outcome

    @property
    def winner(self) -> Split:
        return self.predictions[0].split

    @property
    def leader(self) -> Split:
        """The fastest (of a tie, maybe not the one to use)."""
        return next(p.split for p in self.predictions if name(p.split) == self.contest.leader)

    @property
    def runner_up(self) -> Split | None:
        r = self.contest.runner_up
        return next((p.split for p in self.predictions if name(p.split) == r.candidate), None) if r else None

    @property
    def margin(self) -> float:
        """The runner-up's lead: its time over the leader's, less one (0 without a runner-up)."""
        r = self.contest.runner_up
        return r.ratio - 1 if r and r.ratio is not None else 0.0

    @property
    def margin_low(self) -> float | None:
        r = self.contest.runner_up
        return None if r is None or r.low is None else r.low - 1

    @property
    def margin_high(self) -> float | None:
        r = self.contest.runner_up
        return None if r is None or r.high is None else r.high - 1

    def lead_text(self) -> str:
        """'+3.1% [+0.4%, +5.9%]', or '+3.1% (exact)'."""
        r = self.contest.runner_up
        return r.lead_text() if r else "–"


def ranked_answer(nodes: int, predictions: list[Prediction], tie_within: float = TIE_WITHIN,
                  intervals: dict[Split, tuple[float, float]] | None = None, confidence: float | None = None,
                  left_out: tuple[tuple[Split, str], ...] = (), note: str = "") -> Answer:
    """The answer at one node count from its predictions, by the one contest rule: each candidate's time over the
    fastest's with its interval — from `intervals` (split -> (low, high) of that ratio) where the predictor knows
    it, else from the two predictions' own intervals, [its low / the fastest's high, its high / the fastest's low]."""
    ranked = sorted(predictions, key=lambda p: p.seconds)
    first = ranked[0]
    others = []
    for p in ranked[1:]:
        low, high = (intervals or {}).get(p.split) or (p.low / first.high if first.high > 0 else math.inf,
                                                       p.high / first.low if first.low > 0 else math.inf)
        others.append(Standing(name(p.split), "", p.seconds / first.seconds, _ratio(low), _ratio(high)))
    exact = all(p.low == p.high == p.seconds for p in ranked) and not intervals
    contest = decide(name(first.split), others, tie_within, None if exact else Rule().confidence)
    use = preferred(contest, {name(p.split): p.split.ranks for p in ranked})
    ordered = sorted(ranked, key=lambda p: (name(p.split) != use, p.seconds))
    return Answer(nodes, tuple(ordered), contest, confidence, left_out, note or ("" if others else "the only candidate"))


def _ratio(value: float) -> float | None:
    """A ratio interval's end; None where it is unbounded (not finite, or not above zero)."""
    return value if math.isfinite(value) and value > 0 else None


def crossovers(answers: list[Answer]) -> list[tuple[int, Split, Split]]:
    """(node count, previous winner, new winner) wherever the winner changes."""
    return [(b.nodes, a.winner, b.winner) for a, b in zip(answers, answers[1:])
            if (a.winner.ranks_per_node, a.winner.threads) != (b.winner.ranks_per_node, b.winner.threads)]


@dataclass(frozen=True)
class Move:
    """How far one input must move to change the winner at one node count: the factor above 1 (up) and below 1
    (down) that do, or for an input priced from zero (a threading loss assumed nil) the value that does. `exact`:
    found by bisection; otherwise the probe at which the winner changed, an upper bound on the move needed."""

    up: float | None = None
    down: float | None = None
    value: float | None = None
    exact: bool = True

    def text(self) -> str:
        bound = "" if self.exact else "≤"
        moves = [f"{bound}×{self.up:.3g}" if self.up else "", f"{bound}÷{1 / self.down:.3g}" if self.down else "",
                 f"loss ≥ {100 * self.value:.2g}%/thread" if self.value else ""]
        return " ".join(m for m in moves if m) or "–"


@dataclass(frozen=True)
class Recommendation:
    """A predictor's whole answer: its method, what it predicts for (cluster, workload), its inputs, an answer per
    node count, the crossovers between them, per movable input the moves that change each answer, and what the
    user should know (warnings, the measured runs beside a prediction)."""

    method: str
    cluster: str
    workload: str
    about: str  # one line: the cluster's cores per node and where its figures come from
    inputs: tuple[Input, ...]
    answers: tuple[Answer, ...]
    sensitivity: dict[str, dict[int, Move]] = field(default_factory=dict)  # input name -> nodes -> move
    limit: float = 2.0  # moves are sought up to this factor either way
    notes: tuple[str, ...] = ()
    measured: Answer | None = None  # at one node: the runs a calibration holds of the same problem and splits
    measured_note: str = ""  # the race between them, and whose answer stands
    disagreement: str = ""  # where the race decided otherwise than predicted: said first, with the part that differs

    @property
    def crossovers(self) -> list[tuple[int, Split, Split]]:
        return crossovers(list(self.answers))


def finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None
