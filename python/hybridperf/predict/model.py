"""The closed-form split model (models.split) as a predictor: every candidate priced with its Monte Carlo spread,
the parts each term gives, the inputs with their provenance. Cheap: a sensitivity may price it hundreds of times.
Pure."""

from __future__ import annotations

import math
from dataclasses import dataclass

from hybridperf.models import split
from hybridperf.models.split import Split
from hybridperf.predict.answer import Answer, IDLE, Input, Prediction, ranked_answer, TIE_WITHIN


@dataclass(frozen=True)
class ModelPredictor:
    cluster: split.Cluster
    problem: split.Problem
    method: str = "model"
    cheap: bool = True
    tie_within: float = TIE_WITHIN

    def inputs(self) -> tuple[Input, ...]:
        return tuple(Input(name, v.value, v.source, v.assumed)
                     for name, v in split.variants(self.cluster, self.problem).items())

    def answer(self, nodes: int) -> Answer:
        """The candidates at ±2 SD of the Monte Carlo over the inputs' error bars, each and its ratio to the fastest on
        the log scale (never below zero); how often the winner wins."""
        c, p = self.cluster, self.problem
        v = split.recommend(c, p, nodes)
        predictions = [Prediction(s, t, t * math.exp(-2 * v.log_sd[s]), t * math.exp(2 * v.log_sd[s]),
                                  {**split.parts(c, p, s), IDLE: None}) for s, (t, _) in v.times.items()]
        fastest = v.times[v.winner][0]
        intervals = {s: (t / fastest * math.exp(-2 * v.log_ratio_sd[s]), t / fastest * math.exp(2 * v.log_ratio_sd[s]))
                     for s, (t, _) in v.times.items() if s != v.winner}
        left_out = tuple((s, f"the program was seen to refuse {s.threads} threads per rank — {p.refusal}")
                         for s in split.splits_of(c, nodes) if split.refused(p, s))
        return ranked_answer(nodes, predictions, self.tie_within, intervals, v.confidence if v.runner_up else None,
                             left_out)

    def from_zero(self, name: str) -> bool:
        return name == split.THREAD_LOSS and not self.problem.thread_efficiency.points

    def times(self, nodes: int, splits: list[Split], moved: tuple[str, float] | None = None) -> dict[Split, float]:
        c, p = self.cluster, self.problem
        if moved and self.from_zero(moved[0]):
            p = split.with_loss(c, p, moved[1])
        elif moved:
            c, p = split.variants(c, p)[moved[0]].vary(moved[1])
        return {s: split.predict(c, p, s) for s in splits}
