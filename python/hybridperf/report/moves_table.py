"""`hybridperf simulate SPEC --cluster NAME --sensitivity`'s table: per simulated contest, which halving or doubling
of an assumed input makes the runner-up win. Pure: the CLI passes predict.contests.ContestMoves's fields."""

from __future__ import annotations

from hybridperf.report.tables import Table

# one contest: its parameters and cores, the winner's and the runner-up's configurations, the margin (the runner-up's
# seconds over the winner's, less 1) and per input the text of its moves, in the order of the inputs
Contest = tuple[str, int, tuple[str, ...], tuple[str, ...], float, list[str]]


def table(cluster: str, inputs: list[str], contests: list[Contest]) -> Table:
    """Per contest: its parameters, cores, winner, runner-up and margin, then per assumed input (`inputs`) whether
    halving or doubling it makes the runner-up win."""
    rows = [[params, str(cores), ",".join(winner), ",".join(runner_up), f"{100 * margin:.1f}%", *moves]
            for params, cores, winner, runner_up, margin, moves in contests]
    return (f"What would change the simulated answer on {cluster}: does halving (÷2) or doubling (×2) an input make "
            "the runner-up win? (≤÷2, ≤×2: yes, at or before it; – neither)",
            ["parameters", "cores", "winner", "runner-up", "margin", *inputs], rows)
