"""`hybridperf model recommend --simulate`: the recommendation from SimGrid (simulate.recommend) — the table of
simulated times per split, the winner and its margin, the crossovers, and the assumed figures' sensitivity."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from rich.table import Table

from hybridperf import cluster as clusters
from hybridperf.cli.recommend import measured_beside, print_measured
from hybridperf.cli.ui import console, errors, fail
from hybridperf.launch import kernels
from hybridperf.models import calibrate, presets
from hybridperf.models.split import ThreadEfficiency
from hybridperf.simulate import recommend, study as simulation
from hybridperf.simulate.compute import ComputeModel
from hybridperf.simulate.plan import parse, Plan
from hybridperf.simulate.replay import ReplayFailed, SimGridMissing, smpirun
from hybridperf.simulate.sensitivity import Scaled


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


@dataclass(frozen=True)
class Simulation:
    """What a replay of the question needs: the description, the compute model and the kernel's plan of each split,
    the node counts, how the replayed window scales to the run, and the calibration's one-core run and its e_mt."""

    kernel: str
    spec: clusters.ClusterSpec
    model_of: Callable[[clusters.ClusterSpec], ComputeModel]  # the compute model on a (moved) description
    plan_of: recommend.PlanOf
    counts: list[int]
    steps: int
    window: int
    one_core: dict | None  # the calibration's one-core run whose problem is replayed
    threads: ThreadEfficiency | None  # e_mt as the calibration's runs give it, with their noise
    borrowed: str | None  # whose compute costs they are, where not the cluster's own: "Merlin's", "this machine's"

    @property
    def model(self) -> ComputeModel:
        return self.model_of(self.spec)

    @property
    def scale(self) -> float:
        return self.steps / self.window

    @property
    def noise(self) -> float:
        """How far the measured e_mt, which sets the threaded splits apart, may be off: its runs' spread."""
        return self.threads.noise if self.threads else 0.0


def simulation_of(cluster: str, kernel: str, size: int | None, steps: int | None, counts: list[int],
                  profiles: list[dict], window: int) -> Simulation:
    """The replay of the question, or a one-line error (no SimGrid, no such description, too many nodes)."""
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
    one_core = next((p for p in reversed(profiles) if p["kernel"] == kernel and p["run"]["ranks"] == 1
                     and p["run"]["threads_per_rank"] == 1), None)
    serial = one_core["params"] if one_core else None
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

    # a replay is exact under its inputs, but the measured ones are only as good as their runs: e_mt, which sets
    # the threaded splits apart, is as noisy as its T x 1 and 1 x T runs together (calibrate.thread_efficiency)
    threads = calibrate.thread_efficiency(profiles, kernel, one_core) if one_core else None
    # costs measured here are this machine's, the thesis's are Merlin's: on any other cluster they are borrowed
    borrowed = ("this machine's" if cluster != "this" else None) if profiles else \
        ("Merlin's" if spec.key != presets.THESIS_MACHINE else None)
    return Simulation(kernel, spec, lambda s: _costs(kernel, s, profiles, problem), plan_of, counts, steps, window,
                      one_core, threads, borrowed)


def borrowed_moves(sim: Simulation) -> dict[str, recommend.ModelMove]:
    """The compute model's inputs borrowed from another machine, as assumed inputs to move: all its costs, and
    md's threading losses."""
    if not sim.borrowed:
        return {}
    moves = {f"compute costs (borrowed: {sim.borrowed})": lambda model, factor: Scaled(model, factor)}
    if sim.kernel == "md":
        moves[f"threading losses (borrowed: {sim.borrowed})"] = recommend.threading_scaled
    return moves


PROGRESS = lambda line: errors.print(line, highlight=False)  # noqa: E731


def recommend_simulated(cluster: str, kernel: str, size: int | None, steps: int | None, counts: list[int],
                        profiles: list[dict], window: int, studies: list) -> None:
    """`studies`: the calibration store's studies as (name, sections), for the runs measured beside the replays."""
    sim = simulation_of(cluster, kernel, size, steps, counts, profiles, window)
    spec, counts, steps, window, one_core, scale = sim.spec, sim.counts, sim.steps, sim.window, sim.one_core, sim.scale
    serial = one_core["params"] if one_core else None
    try:
        model = sim.model
        choices = recommend.choose(spec, model, sim.plan_of, counts, scale, PROGRESS)
        moved = recommend.sensitivity(spec, sim.model_of, sim.plan_of, choices, scale, PROGRESS, borrowed_moves(sim))
    except (kernels.KernelRefused, kernels.KernelNotFound, ReplayFailed) as err:
        fail(str(err))
    console.print(f"[bold]{spec.name}[/bold]: {spec.cores_per_node} cores per node, simulated with SimGrid "
                  f"({window} of {steps} {'steps' if kernel == 'md' else 'calls'} replayed and scaled); compute "
                  f"model: {model.describe()['sources']['costs']}")
    threads, noise = sim.threads, sim.noise
    for warning in threads.warnings if threads else ():
        errors.print(f"hybridperf: warning: {warning}", highlight=False, markup=False)
    table = Table(title=f"{kernel}: simulated seconds per split; the winner's margin over the runner-up (exact under "
                        "the inputs: what moves it is the measured inputs' noise and the assumed figures below)")
    table.add_column("nodes")
    ones = recommend.splits(spec, 1)
    for sp in ones:
        table.add_column(f"{sp.ranks_per_node}r×{sp.threads}t", justify="right")
    table.add_column("winner")
    table.add_column("margin", justify="right")
    table.add_column("noise")
    for c in choices:
        threaded = any(sp.threads > 1 for sp in c.ranked[:2])
        table.add_row(str(c.nodes), *(f"{c.times[sp]:.4g}" for sp in recommend.splits(spec, c.nodes)),
                      f"{c.winner.ranks_per_node}r×{c.winner.threads}t", f"{100 * c.margin:.1f}%",
                      f"within the ±{100 * noise:.0f}% noise" if threaded and c.margin < noise else "")
    same_problem = serial is not None and cluster == "this" and (size or serial.get("size", serial.get("n"))) == \
        serial.get("size", serial.get("n")) and steps == serial.get("steps", serial.get("calls"))
    row, decided = measured_beside(profiles if same_problem else [], studies if same_problem else [], one_core, ones)
    if row:
        table.add_row("1, measured", *row)
    console.print(table)
    if noise:
        console.print(f"noise: e_mt rests on runs that spread ±{100 * noise:.1f}% ({threads.source}); a margin "
                      "between a threaded split and another below it is not an answer", highlight=False)
    for n, before, after in recommend.crossovers(choices):
        console.print(f"the winner changes at {n} nodes ({n * spec.cores_per_node} cores): "
                      f"{before.ranks_per_node}r×{before.threads}t -> {after.ranks_per_node}r×{after.threads}t")
    print_measured(row is not None, decided, choices[0].winner if choices[0].nodes == 1 else None)
    if not moved:
        console.print("no figure of the description is assumed, nor any cost borrowed from another machine: nothing "
                      "to move")
        return
    sens = Table(title="Assumed figures: does halving (÷2) or doubling (×2) one make the runner-up win? "
                       "(– neither)")
    sens.add_column("figure (assumed)")
    for c in choices:
        sens.add_column(f"{c.nodes} node{'s' if c.nodes > 1 else ''}", justify="right")
    for label, per_count in moved.items():
        sens.add_row(label, *(per_count[c.nodes] for c in choices))
    console.print(sens)


def explain(c, problem, counts: list[int], sim: Simulation) -> None:
    """Per node count, every candidate split priced by the closed form and by the replay, part by part, each total
    with its interval; where the two disagree beyond their intervals, a line that says so and names the parts
    that differ; and each method's winner."""
    from hybridperf.models import split

    if c.cores_per_node != sim.spec.cores_per_node:
        fail(f"the closed form's {c.name} has {c.cores_per_node} cores per node and {sim.spec.name}'s description "
             f"{sim.spec.cores_per_node}: describe this machine again (hybridperf cluster measure)")
    console.print(f"[bold]{c.name}[/bold]: the closed form (models.split) beside SimGrid's replay ({sim.window} of "
                  f"{sim.steps} {'steps' if sim.kernel == 'md' else 'calls'} replayed and scaled), seconds per part")
    try:
        model = sim.model
        for n in (n for n in counts if n in sim.counts):
            verdict = split.recommend(c, problem, n)
            closed = {sp: (split.parts(c, problem, sp), verdict.times[sp][1]) for sp in verdict.times}
            replayed = {}
            for sp in closed:
                PROGRESS(f"{sim.spec.name}: {n} nodes, {sp.ranks_per_node} ranks x {sp.threads} threads per node")
                replayed[sp] = recommend.simulated_parts(sim.plan_of(sp), model, sim.spec, sp, sim.scale)
            _print_sides(n, recommend.side_by_side(closed, replayed, sim.noise), verdict)
    except (kernels.KernelRefused, kernels.KernelNotFound, ReplayFailed) as err:
        fail(str(err))


def _print_sides(nodes: int, sides: list[recommend.Side], verdict) -> None:
    from hybridperf.models.split import PARTS

    table = Table(title=f"{nodes} node{'s' if nodes > 1 else ''}: closed form | simulation, seconds (totals ± 2 SD)")
    for col in ("split", *PARTS, recommend.REST, "total", "differ in"):
        table.add_column(col, justify="left" if col in ("split", "differ in") else "right")
    for side in sides:
        total = sum(side.simulated.values())

        def shown(seconds: float) -> str:  # a replay's differences leave rounding crumbs: nothing, to a millionth
            return f"{seconds:.4g}" if abs(seconds) > 1e-6 * total else "0"

        cells = [f"{shown(side.closed[p])} | {shown(side.simulated[p])}" for p in PARTS]
        totals = (f"{sum(side.closed.values()):.4g}±{2 * side.closed_sd:.2g} | {total:.4g}"
                  + (f"±{2 * side.simulated_sd:.2g}" if side.simulated_sd else ""))
        table.add_row(_name(side.split), *cells, f"– | {shown(side.simulated[recommend.REST])}", totals,
                      ", ".join(side.differing()) if side.disagree else "agree")
    console.print(table)
    for side in sides:
        if side.disagree:
            diffs = side.differences()
            closed, simulated = sum(side.closed.values()), sum(side.simulated.values())
            console.print(f"{_name(side.split)}: the closed form says {closed:.4g} s, the simulation {simulated:.4g} s "
                          f"({simulated / closed - 1:+.0%}), beyond both intervals (±{side.interval:.2g} s); they "
                          "differ in " + ", ".join(f"{p} ({diffs[p]:+.3g} s)" for p in side.differing()), highlight=False)
    replayed = sorted(sides, key=lambda side: sum(side.simulated.values()))
    margin = (sum(replayed[1].simulated.values()) / sum(replayed[0].simulated.values()) - 1) if len(replayed) > 1 else 0
    same = replayed[0].split == verdict.winner
    console.print(f"winner: closed form {_name(verdict.winner)} by {100 * verdict.margin:.1f}%, simulation "
                  f"{_name(replayed[0].split)} by {100 * margin:.1f}%" + ("" if same else ": they disagree"),
                  highlight=False)


def _name(split) -> str:
    return f"{split.ranks_per_node}r×{split.threads}t"
