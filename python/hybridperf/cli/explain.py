"""`hybridperf recommend --explain`: every candidate split priced by the closed form and by SimGrid's replay, part
by part, each total with its interval; where the two disagree beyond their intervals, a line that says so and
names the parts that differ (simulate.recommend.Side); and each method's winner."""

from __future__ import annotations

from hybridperf.cli.ui import console, fail
from hybridperf.models.split import PARTS
from hybridperf.predict.answer import IDLE, name
from hybridperf.predict.question import Posed
from hybridperf.report import explain_table
from hybridperf.report.terminal import rich_table
from hybridperf.simulate import recommend


def explain(closed: Posed, replayed: Posed) -> None:
    """`closed`: the model's predictor; `replayed`: the simulation's, of the same question."""
    model, sim = closed.predictor, replayed.predictor
    if model.cluster.cores_per_node != sim.sim.spec.cores_per_node:
        fail(f"the closed form's {model.cluster.name} has {model.cluster.cores_per_node} cores per node and "
             f"{sim.sim.spec.name}'s description {sim.sim.spec.cores_per_node}: describe this machine again "
             "(hybridperf cluster measure)")
    console.print(f"[bold]{model.cluster.name}[/bold]: the closed form (models.split) beside SimGrid's replay "
                  f"({sim.sim.window} of {sim.sim.steps} {'steps' if sim.sim.kernel == 'md' else 'calls'} replayed "
                  "and scaled), seconds per part")
    for n in (n for n in closed.counts if n in replayed.counts):
        by_model, by_replay = model.answer(n), sim.answer(n)
        closed_parts = {p.split: ({k: p.parts[k] for k in PARTS}, (p.high - p.seconds) / 2)
                        for p in by_model.predictions}
        replayed_parts = {p.split: {**{k: p.parts[k] for k in PARTS}, recommend.REST: p.parts[IDLE]}
                          for p in by_replay.predictions}
        _print_sides(n, recommend.side_by_side(closed_parts, replayed_parts, sim.sim.noise), by_model.winner,
                     by_model.margin)


def _print_sides(nodes: int, sides: list[recommend.Side], winner, margin: float) -> None:
    priced = [(name(side.split), side.closed, side.closed_sd, side.simulated, side.simulated_sd,
               side.differing() if side.disagree else []) for side in sides]
    console.print(rich_table(*explain_table.table(nodes, recommend.REST, priced)))
    for side in sides:
        if side.disagree:
            diffs = side.differences()
            closed, simulated = sum(side.closed.values()), sum(side.simulated.values())
            console.print(f"{name(side.split)}: the closed form says {closed:.4g} s, the simulation {simulated:.4g} s "
                          f"({simulated / closed - 1:+.0%}), beyond both intervals (±{side.interval:.2g} s); they "
                          "differ in " + ", ".join(f"{p} ({diffs[p]:+.3g} s)" for p in side.differing()), highlight=False)
    replayed = sorted(sides, key=lambda side: sum(side.simulated.values()))
    lead = (sum(replayed[1].simulated.values()) / sum(replayed[0].simulated.values()) - 1) if len(replayed) > 1 else 0
    same = replayed[0].split == winner
    console.print(f"winner: closed form {name(winner)} by {100 * margin:.1f}%, simulation "
                  f"{name(replayed[0].split)} by {100 * lead:.1f}%" + ("" if same else ": they disagree"),
                  highlight=False)
