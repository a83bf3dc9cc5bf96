"""`hybridperf model recommend --simulate`: the recommendation from SimGrid (simulate.recommend) — the table of
simulated times per split, the winner and its margin, the crossovers, and the assumed figures' sensitivity."""

from __future__ import annotations

from functools import lru_cache

from rich.table import Table

from hybridperf import cluster as clusters
from hybridperf.cli.ui import console, errors, fail
from hybridperf.launch import kernels
from hybridperf.models import presets
from hybridperf.simulate import recommend, study as simulation
from hybridperf.simulate.compute import ComputeModel
from hybridperf.simulate.plan import parse, Plan
from hybridperf.simulate.replay import ReplayFailed, SimGridMissing, smpirun


def _costs(kernel: str, spec: clusters.ClusterSpec, profiles: list[dict], problem: dict) -> ComputeModel:
    """The calibration's measured costs of the problem (as `hybridperf simulate --costs measured` takes them from a
    store); md without a calibration: the thesis's Merlin core."""
    if not profiles:
        if kernel == "md":
            return simulation.thesis_costs(spec)
        fail(f"--simulate {kernel} needs --calibration with a one-core run of the kernel (spmv: --mode serial); see "
             "docs/simulation.md")
    try:
        return simulation.costs_from(profiles, kernel, spec, "--calibration", problem)
    except simulation.SimulationError as err:
        fail(f"--simulate {kernel}: {err} (see docs/simulation.md)")


def recommend_simulated(cluster: str, kernel: str, size: int | None, steps: int | None, counts: list[int],
                        profiles: list[dict], window: int) -> None:
    try:
        smpirun()
        spec = clusters.load(clusters.THIS_MACHINE if cluster == "this" else cluster)
    except (SimGridMissing, clusters.ClusterError) as err:
        fail(str(err))
    counts = [n for n in counts if n <= spec.nodes]
    if not counts:
        fail(f"{spec.name} has {spec.nodes} nodes: --nodes asks for more")
    steps = steps or (presets.THESIS_STEPS if kernel == "md" else 100)
    window = min(window, steps)
    # the problem: the calibration's one-core run's (its potential and sums; another --size is priced per atom),
    # else the thesis's small simulation
    serial = next((p["params"] for p in reversed(profiles) if p["kernel"] == kernel and p["run"]["ranks"] == 1
                   and p["run"]["threads_per_rank"] == 1), None)
    if kernel == "md":
        like = serial or {"size": presets.THESIS_SMALL_SIZE, "potential": "lj/sf", "thermo": 1}
        problem = {"potential": like["potential"], "thermo": like["thermo"]}
        base = ("-s", str(size or like["size"]), "--potential", str(like["potential"]), "--thermo",
                str(like["thermo"]), "--steps", str(window))
    else:
        problem = {"n": size or (serial or {"n": 40})["n"]}  # a nonzero's cost depends on the brick (caches)
        base = ("--n", str(problem["n"]), "--calls", str(window))

    @lru_cache(maxsize=None)
    def plan_of_shape(ranks: int, rpn: int, threads: int, mode: str) -> Plan:
        extra = ("--mode", mode) if kernel == "spmv" else ()
        return parse(kernels.plan(kernel, (*base, *extra), ranks, rpn, threads))

    def plan_of(sp) -> Plan:
        mode = "mpi" if sp.threads == 1 else "hybrid"
        return plan_of_shape(sp.ranks, sp.ranks_per_node, sp.threads, mode) if kernel == "spmv" \
            else plan_of_shape(sp.ranks, 1, 1, "")

    progress = lambda line: errors.print(line, highlight=False)  # noqa: E731
    scale = steps / window
    try:
        model = _costs(kernel, spec, profiles, problem)
        choices = recommend.choose(spec, model, plan_of, counts, scale, progress)
        moved = recommend.sensitivity(spec, lambda s: _costs(kernel, s, profiles, problem), plan_of, choices, scale,
                                      progress)
    except (kernels.KernelRefused, kernels.KernelNotFound, ReplayFailed) as err:
        fail(str(err))
    console.print(f"[bold]{spec.name}[/bold]: {spec.cores_per_node} cores per node, simulated with SimGrid "
                  f"({window} of {steps} {'steps' if kernel == 'md' else 'calls'} replayed and scaled); compute "
                  f"model: {model.describe()['sources']['costs']}")
    table = Table(title=f"{kernel}: simulated seconds per split; the winner's margin over the runner-up (a replay "
                        "is exact: what moves it is the assumed figures below)")
    table.add_column("nodes")
    for sp in recommend.splits(spec, 1):
        table.add_column(f"{sp.ranks_per_node}r×{sp.threads}t", justify="right")
    table.add_column("winner")
    table.add_column("margin", justify="right")
    for c in choices:
        table.add_row(str(c.nodes), *(f"{c.times[sp]:.4g}" for sp in recommend.splits(spec, c.nodes)),
                      f"{c.winner.ranks_per_node}r×{c.winner.threads}t", f"{100 * c.margin:.1f}%")
    console.print(table)
    for n, before, after in recommend.crossovers(choices):
        console.print(f"the winner changes at {n} nodes ({n * spec.cores_per_node} cores): "
                      f"{before.ranks_per_node}r×{before.threads}t -> {after.ranks_per_node}r×{after.threads}t")
    if not moved:
        console.print("no figure of the description is assumed: nothing to move")
        return
    sens = Table(title="Assumed figures: does halving (÷2) or doubling (×2) one make the runner-up win? "
                       "(– neither)")
    sens.add_column("figure (assumed)")
    for c in choices:
        sens.add_column(f"{c.nodes} node{'s' if c.nodes > 1 else ''}", justify="right")
    for label, per_count in moved.items():
        sens.add_row(label, *(per_count[c.nodes] for c in choices))
    console.print(sens)
