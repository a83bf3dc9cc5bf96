"""Measured answers, as a predictor's: a stored study's race at each node count (`MeasuredPredictor`), and the runs
a calibration holds of a predicted problem beside the prediction (`beside`). A race's verdict is the answer where
it decided; its runs' medians are the times, with the sign confidence sequence's interval of each median (the
interval every race uses), and the parts the runs' profiles tell apart: point-to-point and collective time, and
compute as the time outside MPI (threading overhead and waiting included: the profiles do not split them). Its
only input is the runs: nothing to move. Pure functions over the study analysis's sections."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from hybridperf.analysis.confseq import sign_interval
from hybridperf.analysis.contest import Contest, renamed, unraced
from hybridperf.analysis.sections import Point, Section, Verdict
from hybridperf.models import measured as calibration
from hybridperf.models.split import PARTS, Split
from hybridperf.predict.answer import Answer, IDLE, Input, name, Prediction, TIE_WITHIN


def _parts(point: Point, seconds: float) -> dict[str, float | None]:
    """The runs' median point-to-point and collective seconds, and the rest as compute (models.measured)."""
    profiles = [r["profile"] for r in point.runs if r.get("profile")]
    return {**dict.fromkeys((*PARTS, IDLE)), **(calibration.comm_parts(profiles, seconds) or {})}


def _split(verdict: Verdict, candidate: str) -> Split:
    return Split(*verdict.shapes[candidate])


def answer_of(section: Section, verdict: Verdict) -> Answer:
    """The race at one scale as an answer: its winner (the preferred of a tie) first, then the others as they
    stood against the leader."""
    alpha = 1 - section.rule.confidence
    points = {p.configuration: p for p in section.points if p.scale == verdict.scale}
    order = [verdict.winner] + [s.candidate for s in verdict.race.standings if s.candidate != verdict.winner]
    predictions = []
    for candidate in order:
        times = [r["loop_time"] for c in candidate.split(" = ") if c in points for r in points[c].runs]
        if not times:
            continue
        median = statistics.median(times)
        low, high = (median, median) if verdict.simulated else sign_interval(times, alpha)  # a replay is exact
        point = next(points[c] for c in candidate.split(" = ") if c in points)
        predictions.append(Prediction(_split(verdict, candidate), median, low, high, _parts(point, median),
                                      len(times)))
    return Answer(predictions[0].split.nodes, tuple(predictions), _contest(verdict),
                  note=verdict.race.line(f"the race at {verdict.scale} {section.axis}"))


def _contest(verdict: Verdict) -> Contest:
    """The race's contest, its candidates named as the splits they are."""
    return renamed(verdict.race, {c: name(_split(verdict, c)) for c in verdict.shapes})


@dataclass(frozen=True)
class MeasuredPredictor:
    """One problem (a section) of a stored study: per node count, the race at the largest scale it ran there."""

    study: str
    section: Section
    method: str = "measured"
    cheap: bool = True

    def _verdicts(self) -> dict[int, Verdict]:
        out: dict[int, Verdict] = {}
        for v in sorted(self.section.verdicts, key=lambda v: v.scale):
            nodes = next(iter(v.shapes.values()))[0]
            out[nodes] = v  # the largest scale at each node count: the node filled
        return out

    @property
    def node_counts(self) -> list[int]:
        return sorted(self._verdicts())

    def inputs(self) -> tuple[Input, ...]:
        runs = len({r["run_key"] for p in self.section.points for r in p.runs})  # one run may be two points' (1 core)
        source = ("simulated: SimGrid's replays, exact under their inputs"
                  if any(v.simulated for v in self.section.verdicts) else
                  "simulated: the measured runs' traces replayed with SimGrid" if self.method == "simulation"
                  else "measured")
        return (Input("the runs", f"{runs} counted runs of study {self.study} ({self.section.title()}; warm-ups "
                                  "and failed runs not counted)", source, False, movable=False),)

    def answer(self, nodes: int) -> Answer:
        return answer_of(self.section, self._verdicts()[nodes])

    def from_zero(self, name: str) -> bool:
        return False

    def times(self, nodes: int, splits: list[Split], moved: tuple[str, float] | None = None) -> dict[Split, float]:
        if moved:
            raise ValueError("measured runs have no input to move")
        a = self.answer(nodes)
        return {p.split: p.seconds for p in a.predictions if p.split in splits}


def beside(profiles: list[dict], studies: list[tuple[str, list[Section]]], serial: dict | None,
           splits: list[Split], predicted: Split) -> tuple[Answer | None, str]:
    """Where a calibration measured the predicted problem at some of the splits of one node: their runs as an answer
    (median ± spread, the race's verdict where a study raced them), and what they say of the prediction (whose
    winner at one node is `predicted`): a decided race's answer stands over it."""
    runs = calibration.runs_of(profiles, serial, splits) if serial else {}
    decided = calibration.decision(studies, serial, splits) if serial else None
    answer = None
    lines = []
    if runs:
        unknown = dict.fromkeys((*PARTS, IDLE))
        predictions = [Prediction(s, r.median, r.median * (1 - r.noise), r.median * (1 + r.noise),
                                  {**unknown, **(calibration.split_parts(profiles, serial, s) or {})}, r.runs)
                       for s, r in runs.items()]
        winner = decided.winner if decided else None
        predictions.sort(key=lambda p: (calibration.shape(p.split) != winner, p.seconds))
        if decided:
            answer = Answer(1, tuple(predictions), _contest(decided.verdict))
        else:
            answer = Answer(1, tuple(predictions), unraced([name(p.split) for p in predictions],
                                                           {name(p.split): p.seconds for p in predictions},
                                                           TIE_WITHIN))
        lines.append("measured: median ± spread (runs) of the calibration's runs of the same problem and split")
    if decided:
        lines.append(decided.line())
        if not decided.decided:
            lines.append("the race did not decide: the prediction is only a prediction, and the measurements do not "
                         "confirm it")
        else:
            chosen = decided.winner
            agrees = (predicted.ranks_per_node, predicted.threads) == chosen[1:]
            lines.append(f"the answer at 1 node is the measured one, {chosen[1]}r×{chosen[2]}t: the race decided"
                         + (" as predicted" if agrees else f", and overrules the prediction ({name(predicted)})"))
    return answer, "\n".join(lines)
