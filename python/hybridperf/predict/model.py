"""The closed-form split model (models.split) as a predictor: every candidate priced with its Monte Carlo spread,
the parts each term gives, the inputs with their provenance. Cheap: a sensitivity may price it hundreds of times.
Pure."""

from __future__ import annotations

from dataclasses import dataclass

from hybridperf.models import split
from hybridperf.models.split import Split
from hybridperf.predict.answer import Answer, IDLE, Input, Prediction, ranked_answer


@dataclass(frozen=True)
class ModelPredictor:
    cluster: split.Cluster
    problem: split.Problem
    method: str = "model"
    cheap: bool = True

    def inputs(self) -> tuple[Input, ...]:
        return tuple(Input(name, v.value, v.source, v.assumed)
                     for name, v in split.variants(self.cluster, self.problem).items())

    def answer(self, nodes: int) -> Answer:
        """The candidates at ±2 SD of the Monte Carlo over the inputs' error bars; the lead's interval ±2 SD of the
        ratio; how often the winner wins."""
        c, p = self.cluster, self.problem
        v = split.recommend(c, p, nodes)
        predictions = [Prediction(s, t, t - 2 * sd, t + 2 * sd, {**split.parts(c, p, s), IDLE: None})
                       for s, (t, sd) in v.times.items()]
        margin = (v.margin - 2 * v.margin_error, v.margin + 2 * v.margin_error) if v.runner_up else None
        left_out = tuple((s, f"the program was seen to refuse {s.threads} threads per rank — {p.refusal}")
                         for s in split.splits_of(c, nodes) if split.refused(p, s))
        return ranked_answer(nodes, predictions, margin, v.confidence if v.runner_up else None, left_out)

    def from_zero(self, name: str) -> bool:
        return name == split.THREAD_LOSS and not self.problem.thread_efficiency.points

    def times(self, nodes: int, splits: list[Split], moved: tuple[str, float] | None = None) -> dict[Split, float]:
        c, p = self.cluster, self.problem
        if moved and self.from_zero(moved[0]):
            p = split.with_loss(c, p, moved[1])
        elif moved:
            c, p = split.variants(c, p)[moved[0]].vary(moved[1])
        return {s: split.predict(c, p, s) for s in splits}
