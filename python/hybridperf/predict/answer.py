"""What every prediction of "which ranks x threads split wins" returns, however it was made — measured (a stored
study's race), modelled (the closed-form split model) or simulated (SimGrid's replay): per node count, each
candidate split's time with an interval and its parts, the winner, its margin with that margin's interval, and
the verdict those give by the project's one rule (a lead whose whole interval is above zero wins; one whose whole
interval lies inside the tie band is a tie; anything else is undecided). Plus the inputs the predictions rest on,
each with its provenance, and how far each would have to move to change the answer (predict.sensitivity).
Pure data and pure functions."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

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
    low: float  # the interval the prediction is good to: the model's ±2 SD, a replay's measured-input noise,
    high: float  # the measured runs' median's confidence interval
    parts: dict[str, float | None]  # ALL_PARTS; None where this method cannot tell the part apart
    runs: int | None = None  # measured: how many runs


@dataclass(frozen=True)
class Answer:
    """One node count: the candidates, best first, the splits left out and why, and the verdict."""

    nodes: int
    predictions: tuple[Prediction, ...]  # fastest first
    verdict: str  # wins | tie | undecided (measured: also only | failed, the race's own outcomes)
    margin: float  # the runner-up's lead, relative: its time over the winner's - 1 (0 without a runner-up)
    margin_low: float | None  # the runner-up's lead's interval, relative (None: unbounded or no runner-up)
    margin_high: float | None
    confidence: float | None = None  # the model's share of Monte Carlo draws in which the winner wins
    left_out: tuple[tuple[Split, str], ...] = ()
    note: str = ""

    @property
    def winner(self) -> Split:
        return self.predictions[0].split

    @property
    def runner_up(self) -> Split | None:
        return self.predictions[1].split if len(self.predictions) > 1 else None

    def lead_text(self) -> str:
        """'+3.1% [+0.4%, +5.9%]', or '+3.1% (exact under the inputs)'."""
        if self.runner_up is None:
            return "–"
        if self.margin_low is None or self.margin_high is None:
            return f"{100 * self.margin:+.1f}% (unbounded)"
        if self.margin_low == self.margin_high:
            return f"{100 * self.margin:+.1f}% (exact under the inputs)"
        return f"{100 * self.margin:+.1f}% [{100 * self.margin_low:+.1f}%, {100 * self.margin_high:+.1f}%]"


def verdict_of(margin_low: float | None, margin_high: float | None, tie_within: float = TIE_WITHIN) -> str:
    """The rule every race uses: wins when the lead's whole interval is above zero, a tie when it lies wholly inside
    the tie band, undecided otherwise (a win inside the band stays a win: real, if small)."""
    if margin_low is None or margin_high is None:
        return "undecided"
    if margin_low > 0:
        return "wins"
    return "tie" if -tie_within < margin_low and margin_high < tie_within else "undecided"


def ranked_answer(nodes: int, predictions: list[Prediction], margin_interval: tuple[float, float] | None,
                  confidence: float | None = None, left_out: tuple[tuple[Split, str], ...] = (),
                  note: str = "") -> Answer:
    """The answer at one node count from its predictions (ranked here) and the interval of the runner-up's lead."""
    ranked = tuple(sorted(predictions, key=lambda p: p.seconds))
    if len(ranked) < 2:
        return Answer(nodes, ranked, "wins", 0.0, None, None, confidence, left_out, note or "the only candidate")
    low, high = margin_interval if margin_interval else (None, None)
    margin = ranked[1].seconds / ranked[0].seconds - 1
    return Answer(nodes, ranked, verdict_of(low, high), margin, low, high, confidence, left_out, note)


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

    @property
    def crossovers(self) -> list[tuple[int, Split, Split]]:
        return crossovers(list(self.answers))


def finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None
