"""SimGrid's replay as a predictor: every split of a described cluster's nodes, the kernel's plan of the problem
replayed on the description's platform with the compute model's costs, part by part (simulate.recommend's
`simulated_parts`: the run, and the run without each kind of communication). A replay is exact under its
inputs: its interval is the noise of the measured ones (e_mt, which sets the threaded splits apart), and what
else could move it is declared as inputs — the description's figures (those marked assumed may move) and compute
costs borrowed from another machine. Costly: a sensitivity replays the winner and runner-up at ×2 and ÷2 only.
Pure but for the replays and the kernel's --plan it runs."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable

from hybridperf import cluster as clusters
from hybridperf.launch import kernels
from hybridperf.models import calibrate, presets
from hybridperf.models.split import Split, ThreadEfficiency
from hybridperf.predict.answer import Answer, IDLE, Input, Prediction, ranked_answer, TIE_WITHIN, Unanswerable
from hybridperf.simulate import recommend, study as simulation
from hybridperf.simulate.compute import ComputeModel
from hybridperf.simulate.plan import parse, Plan
from hybridperf.simulate.replay import ReplayFailed, SimGridMissing, smpirun
from hybridperf.simulate.sensitivity import Scaled

Progress = Callable[[str], None]
FAILURES = (kernels.KernelRefused, kernels.KernelNotFound, ReplayFailed)  # what a replay may raise


@dataclass(frozen=True)
class Simulation:
    """What a replay of the question needs: the description, the compute model and the kernel's plan of each split,
    how the replayed window scales to the run, and the calibration's one-core run and its e_mt."""

    kernel: str
    spec: clusters.ClusterSpec
    model_of: Callable[[clusters.ClusterSpec], ComputeModel]  # the compute model on a (moved) description
    plan_of: recommend.PlanOf
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


def _costs(kernel: str, spec: clusters.ClusterSpec, profiles: list[dict], problem: dict) -> ComputeModel:
    """The calibration's measured costs of the problem (as `hybridperf simulate --costs measured` takes them from a
    store); md without a calibration: the thesis's Merlin core."""
    if not profiles:
        if kernel == "md":
            return simulation.thesis_costs(spec)
        raise Unanswerable(f"simulating {kernel} needs --calibration with a one-core run of the kernel (spmv: --mode "
                           "serial); see docs/simulation.md")
    try:
        return simulation.costs_from(profiles, kernel, spec, "--calibration", problem)
    except simulation.SimulationError as err:
        raise Unanswerable(f"simulating {kernel}: {err} (see docs/simulation.md)") from None


def simulation_of(cluster: str, kernel: str, size: int | None, steps: int | None, profiles: list[dict],
                  window: int) -> Simulation:
    """The replay of the question (Unanswerable: no SimGrid, no such description)."""
    try:
        smpirun()
        spec = clusters.load(clusters.THIS_MACHINE if cluster == "this" else cluster)
    except (SimGridMissing, clusters.ClusterError) as err:
        raise Unanswerable(str(err)) from None
    # the problem: the calibration's one-core run's (its potential, sums and steps; of the --size asked for where
    # it has one, else another priced per atom), else the thesis's small simulation
    ones = [p for p in reversed(profiles) if p["kernel"] == kernel and p["run"]["ranks"] == 1
            and p["run"]["threads_per_rank"] == 1]
    of_size = [p for p in ones if size is not None and p["params"].get("size" if kernel == "md" else "n") == size]
    one_core = next(iter(of_size or ones), None)
    serial = one_core["params"] if one_core else None
    own_steps = (serial or {}).get("steps" if kernel == "md" else "calls")
    steps = steps or own_steps or (presets.THESIS_STEPS if kernel == "md" else 100)
    window = min(window, steps)
    if kernel == "md":
        like = serial or {"size": presets.THESIS_SMALL_SIZE, "potential": "lj/sf", "thermo": 1}
        problem = {"potential": like["potential"], "thermo": like["thermo"], **({"size": size} if of_size else {})}
        base = ("-s", str(size or like["size"]), "--potential", str(like["potential"]), "--thermo",
                str(like["thermo"]), "--steps", str(window))
    else:
        problem = {"n": size or (serial or {"n": 40})["n"]}  # a nonzero's cost depends on the brick (caches)
        base = ("--n", str(problem["n"]), "--calls", str(window))

    @lru_cache(maxsize=None)
    def plan_of_shape(ranks: int, rpn: int, threads: int, mode: str) -> Plan:
        extra = ("--mode", mode) if kernel == "spmv" else ()
        return parse(kernels.plan(kernel, (*base, *extra), ranks, rpn, threads))

    def plan_of(sp: Split) -> Plan:
        mode = "mpi" if sp.threads == 1 else "hybrid"
        return plan_of_shape(sp.ranks, sp.ranks_per_node, sp.threads, mode) if kernel == "spmv" \
            else plan_of_shape(sp.ranks, 1, 1, "")

    # a replay is exact under its inputs, but the measured ones are only as good as their runs: e_mt, which sets
    # the threaded splits apart, is as noisy as its T x 1 and 1 x T runs together (calibrate.thread_efficiency)
    threads = calibrate.thread_efficiency(profiles, kernel, one_core) if one_core else None
    # costs measured here are this machine's, the thesis's are Merlin's: on any other cluster they are borrowed
    here = cluster in ("this", clusters.THIS_MACHINE)  # `cluster measure`'s description of this very machine
    borrowed = ("this machine's" if not here else None) if profiles else \
        ("Merlin's" if spec.key != presets.THESIS_MACHINE else None)
    return Simulation(kernel, spec, lambda s: _costs(kernel, s, profiles, problem), plan_of, steps, window,
                      one_core, threads, borrowed)


COMPUTE = "compute costs"
THREADING = "threading losses"


@dataclass(frozen=True)
class SimulatedPredictor:
    sim: Simulation
    progress: Progress = lambda line: None
    method: str = "simulation"
    cheap: bool = False
    tie_within: float = TIE_WITHIN

    def _borrowed(self) -> dict[str, recommend.ModelMove]:
        """The compute model's inputs borrowed from another machine, as assumed inputs to move: all its costs, and
        md's threading losses."""
        if not self.sim.borrowed:
            return {}
        moves = {COMPUTE: lambda model, factor: Scaled(model, factor)}
        if self.sim.kernel == "md":
            moves[THREADING] = recommend.threading_scaled
        return moves

    def inputs(self) -> tuple[Input, ...]:
        spec, sim = self.sim.spec, self.sim
        figures = [Input(label, figure.text, figure.source, figure.assumed, movable=figure.assumed)
                   for label, (_, figure) in recommend.figures(spec).items()]
        borrowed = self._borrowed()
        costs = sim.model.describe()["sources"]["costs"]
        compute = [Input(COMPUTE, costs, f"borrowed: {sim.borrowed}" if sim.borrowed else costs, bool(sim.borrowed),
                         movable=COMPUTE in borrowed)]
        if THREADING in borrowed:
            compute.append(Input(THREADING, "the compute model's e_mt", f"borrowed: {sim.borrowed}", True))
        if sim.threads:
            compute.append(Input("threading efficiency (e_mt)", f"±{100 * sim.noise:.1f}% noise", sim.threads.source,
                                 sim.threads.assumed, movable=False))
        return tuple(figures + compute)

    def splits(self, nodes: int) -> list[Split]:
        return recommend.splits(self.sim.spec, nodes)

    def answer(self, nodes: int) -> Answer:
        """Every split replayed, part by part; a threaded split's interval is the measured e_mt's noise on its
        compute; the lead's interval spans the two leaders' intervals (exact where neither is noisy)."""
        sim, predictions = self.sim, []
        model = sim.model
        for sp in self.splits(nodes):
            self.progress(f"{sim.spec.name}: {nodes} nodes, {sp.ranks_per_node} ranks x {sp.threads} threads per node")
            parts = recommend.simulated_parts(sim.plan_of(sp), model, sim.spec, sp, sim.scale)
            total = sum(parts.values())
            noise = sim.noise * (parts["compute"] + parts["threading"]) if sp.threads > 1 else 0.0
            predictions.append(Prediction(sp, total, total - noise, total + noise,
                                          {**{k: v for k, v in parts.items() if k != recommend.REST},
                                           IDLE: parts[recommend.REST]}))
        answer = ranked_answer(nodes, predictions, self.tie_within)
        low = answer.margin_low
        noisy = low is not None and low < 0 and not answer.contest.exact
        return replace(answer, note=f"within the ±{100 * sim.noise:.0f}% noise of the measured e_mt" if noisy else "")

    def from_zero(self, name: str) -> bool:
        return False

    def times(self, nodes: int, splits: list[Split], moved: tuple[str, float] | None = None) -> dict[Split, float]:
        sim, spec = self.sim, self.sim.spec
        name, factor = moved or ("", 1.0)
        if name in recommend.FIELDS:
            spec = recommend.moved(spec, recommend.FIELDS[name], factor)
        model = sim.model_of(spec)
        move = self._borrowed().get(name)
        if move:
            model = move(model, factor)
        return {sp: recommend.seconds(sim.plan_of(sp), model, spec, sp, sim.scale) for sp in splits}
