"""`hybridperf simulate validate`: the seeds' MD experiments at their scale, simulated on the clusters they ran on,
beside what the thesis published (seed-spec §A.12, §H.3.25), and the closed-form split model on the same points.

The problem is the thesis's small simulation (16,384,000 atoms, fcc 160^3, shifted-force LJ, global sums every
step), its 500 steps simulated as a window of `steps` steps (one neighbour-list period by default) scaled to 500:
every step of a period is alike, so the scaled time and all its ratios are the whole run's. Compute costs are
the thesis's published ones (study.THESIS_TABLES: Merlin's Table 4.8 and Tables 4.6/4.7, or, for an outcome of
the Merlin runs to be held out, CSEEM64T's Table 4.9 with DL_POLY's Tables 5.3/5.4: an outcome's `costs`) — the
simulator decides only what the network and the placement of ranks add. The outcomes, their published figures and
the rules that judge them
are declared in resources/data/validate-outcomes.yaml (hybridperf.simulate.outcome); here are the measures
they name, each the simulated figure its rule compares. A simulator given a `Moved` input (`--sensitivity`)
replays with that one input moved: a figure of a description, or the compute costs (`COMPUTE_MOVES`)."""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable

from hybridperf import cluster
from hybridperf.launch import kernels
from hybridperf.models import presets
from hybridperf.models.split import predict, Split
from hybridperf.shapes import shape
from hybridperf.simulate import paje, point, recommend, validate_dlpoly, validate_spmv
from hybridperf.simulate.compute import ComputeModel
from hybridperf.simulate.outcome import declared, Declared, judged, Measured, Moved, Outcome, rounded
from hybridperf.simulate.plan import parse, Plan, traffic
from hybridperf.simulate.sensitivity import Scaled
from hybridperf.simulate.study import OWN_TABLE, thesis_costs

SIZE, STEPS = presets.THESIS_SMALL_SIZE, presets.THESIS_STEPS
# A description's OS noise (Merlin's, assumed) is replayed as declared: each node's profile drawn from this seed,
# the same for every configuration and core count, so that they meet the same noise.
NOISE_SEED = 1
CONFIGURATIONS = ("pure-mpi", "hybrid-1", "hybrid-2")
CALLS = {"p2p": "p2p", "sums": "collective"}  # an outcome's kind of communication: its class of calls in a trace
# the compute inputs an outcome may declare assumed (its `inputs`' `moves`), each moved by a factor
COMPUTE_MOVES: dict[str, Callable[[ComputeModel, float], ComputeModel]] = {
    "compute": Scaled,  # every second of the compute model: a slower or faster core
    "threading": recommend.threading_scaled,  # the threads' losses (1 - e_mt)
    "pack": lambda costs, factor: replace(costs, pack=costs.pack * factor)}  # halo packing per atom (MdCosts)


@dataclass(frozen=True)
class Thesis:
    """The workload of the MD outcomes: one of the thesis's simulations (fcc size^3 cells: the small one unless
    an outcome's `size` names another), `window` steps standing for its 500."""

    window: int
    size: int = SIZE
    costs_from: str = OWN_TABLE  # study.THESIS_TABLES' key: whose routine table prices the core
    label = ""  # what progress lines name it by

    @property
    def problem(self) -> str:
        """What a plan depends on."""
        return f"thesis-{self.size}"

    @property
    def per_simulated_second(self) -> float:
        return STEPS / self.window

    def plan(self, ranks: int) -> Plan:
        args = ("-s", str(self.size), "--steps", str(self.window), "--thermo", "1", "--potential", "lj/sf")
        return parse(kernels.plan("md", args, ranks))

    def costs(self, spec: cluster.ClusterSpec) -> ComputeModel:
        return thesis_costs(spec, self.costs_from)


Workload = Thesis | validate_dlpoly.Test20


class Simulator:
    """Simulated times of a workload (the thesis problem by default), plans shared between clusters with the same
    rank counts (and with the simulators of moved inputs given the same `plans`)."""

    def __init__(self, window: int, progress: Callable[[str], None], moved: Moved | None = None,
                 plans: dict[tuple[str, int], Plan] | None = None):
        self.progress, self.moved = progress, moved
        self.thesis = Thesis(window)  # the workload of a call that names none
        self.plans: dict[tuple[str, int], Plan] = {} if plans is None else plans
        self.results: dict[tuple[Workload, str, int, str], float] = {}  # simulated seconds
        self.traced: dict[tuple[Workload, str, int, str], paje.MpiTimes] = {}

    def described(self, name: str) -> cluster.ClusterSpec:
        """The description replayed: its OS noise drawn from NOISE_SEED where it declares one, and this simulator's
        move applied (to a figure it shares with the moved description too: CSEEM64T's two networks join the
        same nodes)."""
        spec = cluster.load(name)
        spec = cluster.with_noise(spec, NOISE_SEED) if spec.noise else spec
        return self.moved.on(spec) if self.moved else spec

    def _point(self, name: str, cores: int, configuration: str, workload: Workload) \
            -> tuple[cluster.ClusterSpec, ComputeModel, Plan, Split]:
        """What one point replays: the description, the workload's costs on it (this simulator's move applied),
        its plan and its split."""
        spec = self.described(name)
        costs = workload.costs(spec)
        costs = self.moved.costs(costs, COMPUTE_MOVES) if self.moved else costs
        nodes, rpn, threads = shape(configuration, spec.cores_per_node, cores=cores)
        return spec, costs, self.plan(nodes * rpn, workload), Split(nodes, rpn, threads)

    def plan(self, ranks: int, workload: Workload | None = None) -> Plan:
        workload = workload or self.thesis
        if (workload.problem, ranks) not in self.plans:
            self.plans[workload.problem, ranks] = workload.plan(ranks)
        return self.plans[workload.problem, ranks]

    def _key(self, name: str, cores: int, configuration: str, workload: Workload | None) \
            -> tuple[Workload, str, int, str]:
        return workload or self.thesis, name, cores, configuration

    def seconds(self, name: str, cores: int, configuration: str, workload: Workload | None = None) -> float:
        """Simulated seconds of the run (the thesis's whole run; a DL_POLY step), replayed once; the replay is
        traced up to point.TRACED_RANKS ranks, for `mpi_times`."""
        key = self._key(name, cores, configuration, workload)
        workload = key[0]
        if key not in self.results:
            spec, costs, plan, split = self._point(name, cores, configuration, workload)
            self.progress(f"{spec.name}: {workload.label}{configuration} on {cores} cores ({split.ranks} ranks x "
                          f"{split.threads} threads)")
            traced = split.ranks <= point.TRACED_RANKS
            with tempfile.TemporaryDirectory(prefix="hybridperf-validate-") as work:
                [whole] = point.replays(plan, costs, spec, split, Path(work), ("whole",), traced=traced).values()
                if traced:
                    self.traced[key] = point.traced_times(Path(work)).scaled(workload.per_simulated_second)
            self.results[key] = whole * workload.per_simulated_second
        return self.results[key]

    def mpi_times(self, name: str, cores: int, configuration: str, workload: Workload | None = None) \
            -> paje.MpiTimes:
        """Each rank's loop and its seconds inside point-to-point and collective calls over the run (the thesis's
        whole run; a DL_POLY step), from SMPI's trace of the whole run's replay (up to point.TRACED_RANKS ranks)."""
        self.seconds(name, cores, configuration, workload)
        key = self._key(name, cores, configuration, workload)
        if key not in self.traced:
            raise ValueError(f"{configuration} on {cores} cores has more ranks than a replay is traced for "
                             f"({point.TRACED_RANKS}): no time inside its calls")
        return self.traced[key]

    def inside(self, kind: str, name: str, cores: int, configuration: str, workload: Workload | None = None) \
            -> float:
        """Rank 0's seconds inside one class of calls ("p2p", "sums") over the run, waiting for late peers
        included: what the seeds' timers measured, MPI_Wtime around each call on rank 0 (seed-spec §A.10, §B.4)."""
        return self.mpi_times(name, cores, configuration, workload).inside(CALLS[kind])[0]

    def packing(self, name: str, cores: int, configuration: str, workload: Thesis) -> float:
        """The run's seconds of halo packing on its busiest rank (the master thread's alone in a hybrid, as the
        thesis's code packs)."""
        return self.region(name, cores, configuration, workload, "halo_pack")

    def region(self, name: str, cores: int, configuration: str, workload: Thesis, region: str) -> float:
        """The run's seconds of one compute region (md_costs' regions) on its busiest rank."""
        _, costs, plan, split = self._point(name, cores, configuration, workload)
        return max(costs.regions(plan, r, split)[region] for r in plan.ranks_plan) * workload.per_simulated_second

    def winners(self, name: str, counts: tuple[int, ...], workload: Workload | None = None) -> dict[int, str]:
        return {c: min(CONFIGURATIONS, key=lambda k: self.seconds(name, c, k, workload)) for c in counts}


def thesis_of(sim: Simulator, p: dict[str, Any]) -> Thesis:
    """The MD outcome's workload: its `size` (the small simulation where none is given) priced by its `costs`
    (Merlin's own routine table where none is given)."""
    return Thesis(sim.thesis.window, int(p.get("size", SIZE)), p.get("costs", OWN_TABLE))


def closed_form_winners(name: str, counts: tuple[int, ...]) -> dict[int, str]:
    """The split model (models.split) on the same problem and cluster: the fastest of the three configurations."""
    spec = cluster.load(name)
    model_cluster = presets.PRESETS[name]
    problem = replace(presets.md_problem_on(SIZE, STEPS), collectives=float(STEPS))
    out = {}
    for c in counts:
        times = {}
        for k in CONFIGURATIONS:
            nodes, rpn, threads = shape(k, spec.cores_per_node, cores=c)
            times[k] = predict(model_cluster, problem, Split(nodes, rpn, threads))
        out[c] = min(times, key=times.__getitem__)
    return out


def _listing(winners: dict[int, str]) -> str:
    return ", ".join(f"{c}: {w}" for c, w in winners.items())


def winners(sim: Simulator, d: Declared) -> Measured:
    """The fastest configuration at each published core count."""
    counts = tuple(d.published)
    return Measured(sim.winners(d.params["cluster"], counts, thesis_of(sim, d.params)), None,
                    _listing(closed_form_winners(d.params["cluster"], counts)))


def faster_hybrid(sim: Simulator, d: Declared) -> Measured:
    """The faster of the two hybrids at each published core count, beside the slower's time over the faster's."""
    name, workload = d.params["cluster"], thesis_of(sim, d.params)
    times = {c: {k: sim.seconds(name, c, k, workload) for k in CONFIGURATIONS[1:]} for c in d.published}
    faster = {c: min(t, key=t.__getitem__) for c, t in times.items()}
    return Measured(faster, {c: rounded(max(t.values()) / min(t.values())) for c, t in times.items()})


def data_ratio(sim: Simulator, d: Declared) -> Measured:
    """Each hybrid's bytes sent by point to point (halo and migration; DL_POLY's exchanges where the `workload` is
    dlpoly-test20) per process and step (`per`: process, the default) or in all per step (total) over pure MPI's,
    per core count (the published ones, or `counts` where the seed gives a threshold): what the plans send,
    beside the bytes themselves."""
    p = d.params
    cores_per_node = cluster.load(p["cluster"]).cores_per_node
    # a plan does not depend on the core ratio
    workload = validate_dlpoly.Test20(1.0) if p.get("workload") == "dlpoly-test20" else sim.thesis
    counts = p.get("counts") or list(d.published)

    def sent(cores: int, configuration: str) -> float:
        nodes, rpn, _ = shape(configuration, cores_per_node, cores=cores)
        plan = sim.plan(nodes * rpn, workload)
        total = sum(traffic(plan, r).p2p_bytes for r in plan.ranks_plan) / plan.steps
        return total if p.get("per") == "total" else total / plan.ranks

    def compared(cores: int) -> list[str]:
        return list(d.published[cores]) if isinstance(d.published, dict) else list(CONFIGURATIONS[1:])

    bytes_sent = {c: {k: sent(c, k) for k in CONFIGURATIONS} for c in counts}
    return Measured({c: {k: rounded(b[k] / b["pure-mpi"]) for k in compared(c)} for c, b in bytes_sent.items()},
                    {c: {k: round(v) for k, v in b.items()} for c, b in bytes_sent.items()})


def first_from(counts: tuple[int, ...], wins: list[bool]) -> int | None:
    """The first count from which the hybrids win at every count of the sweep (None if they do not at its last)."""
    return next((c for i, c in enumerate(counts) if all(wins[i:])), None)


def crossover(sim: Simulator, d: Declared) -> Measured:
    """The first count of the sweep from which both hybrids are faster than pure MPI at every count (None if
    none), beside the fastest configuration at each count."""
    name, counts, workload = d.params["cluster"], tuple(d.params["counts"]), thesis_of(sim, d.params)
    hybrids = [all(sim.seconds(name, c, k, workload) < sim.seconds(name, c, "pure-mpi", workload)
                   for k in CONFIGURATIONS[1:]) for c in counts]
    return Measured(first_from(counts, hybrids), sim.winners(name, counts, workload),
                    _listing(closed_form_winners(name, counts)))


def _movout(sim: Simulator, name: str, cores: int, configuration: str, workload: Thesis) -> dict[str, float]:
    """What the thesis's movout routine times on the workload: the halo's packing (edgbuf, pack_buffer: the master
    thread's alone in hybrid-1) and rank 0's time inside its messages, waiting included."""
    return {"packing": rounded(sim.packing(name, cores, configuration, workload)),
            "messages": rounded(sim.inside("p2p", name, cores, configuration, workload))}


def movout_ratio(sim: Simulator, d: Declared) -> Measured:
    """The thesis's movout time of one configuration over another's, on the outcome's problem (`size`), per
    published cluster at `cores`, or on its `cluster` per published core count; beside each, its two parts."""
    p = d.params
    points = {key: (p["cluster"], int(key)) if "cluster" in p else (key, p["cores"]) for key in d.published}
    workload = thesis_of(sim, p)
    parts = {key: {k: _movout(sim, *points[key], k, workload) for k in (p["numerator"], p["denominator"])}
             for key in points}
    return Measured({key: rounded(sum(parts[key][p["numerator"]].values())
                                  / sum(parts[key][p["denominator"]].values())) for key in points}, parts)


def movout_networks(sim: Simulator, d: Declared) -> Measured:
    """One configuration's movout time on one cluster (`numerator`) over its own on another (`denominator`), at
    `cores`; beside it, the two parts on each."""
    p = d.params
    parts = {name: _movout(sim, name, p["cores"], p["configuration"], thesis_of(sim, p))
             for name in (p["numerator"], p["denominator"])}
    return Measured(rounded(sum(parts[p["numerator"]].values()) / sum(parts[p["denominator"]].values())), parts)


def region_overhead(sim: Simulator, d: Declared) -> Measured:
    """How much longer one configuration's compute `region` (force, integrate) takes than another's on the
    busiest rank, less 1, per published cluster at `cores` on the problem of `size`: the routine's time as the
    thesis's rank-0 timers give it, where every rank has the same work; beside it, the two times."""
    p = d.params
    workload = thesis_of(sim, p)

    def seconds(name: str, configuration: str) -> float:
        return rounded(sim.region(name, p["cores"], configuration, workload, p["region"]))

    times = {name: {k: seconds(name, k) for k in (p["numerator"], p["denominator"])} for name in d.published}
    return Measured({name: rounded(t[p["numerator"]] / t[p["denominator"]] - 1) for name, t in times.items()}, times)


def collective_ratio(sim: Simulator, d: Declared) -> Measured:
    """Collective (sum) time, rank 0's inside the sums, of one configuration over another's, per core count, on the
    problem of `size` (the small simulation where none is given); beside it, the two times."""
    p = d.params
    workload = thesis_of(sim, p)
    times = {c: {k: rounded(sim.inside("sums", p["cluster"], c, k, workload)) for k in (p["numerator"], p["denominator"])}
             for c in p["counts"]}
    return Measured({c: rounded(t[p["numerator"]] / t[p["denominator"]]) for c, t in times.items()}, times)


def dlpoly_crossover(sim: Simulator, d: Declared) -> Measured:
    """DL_POLY's test 20 at the outcome's core ratio: the first count of the sweep from which its fastest hybrid
    beats pure MPI at every count (None if none; the DL_POLY paper's Table 1 names the fastest configuration per
    count), beside t_MPI / t_hybrid of each hybrid at each count, as the seed-spec derives them from Table 1."""
    name, counts = d.params["cluster"], tuple(d.params["counts"])
    workload = validate_dlpoly.Test20(float(d.params["core_ratio"]))
    times = {c: {k: sim.seconds(name, c, k, workload) for k in CONFIGURATIONS} for c in counts}
    wins = [min(times[c][k] for k in CONFIGURATIONS[1:]) < times[c]["pure-mpi"] for c in counts]
    return Measured(first_from(counts, wins),
                    {c: {k: rounded(times[c]["pure-mpi"] / times[c][k]) for k in CONFIGURATIONS[1:]} for c in counts})


def dlpoly_share(sim: Simulator, d: Declared) -> Measured:
    """The share of DL_POLY's step spent inside one class of calls ("sums", "p2p") at the outcome's point, as a
    flat profile gives a routine's (Table 5.1, ITAC): every rank's seconds inside them over every rank's step;
    beside it the mean step and the mean seconds inside."""
    p = d.params
    workload = validate_dlpoly.Test20(float(p["core_ratio"]))
    times = sim.mpi_times(p["cluster"], p["cores"], p["configuration"], workload)
    kind, ranks = CALLS[p["kind"]], len(times.elapsed)
    return Measured(rounded(times.share(kind)), {"step_s": rounded(sum(times.elapsed) / ranks),
                                                  f"{p['kind']}_s": rounded(sum(times.inside(kind)) / ranks)})


def dlpoly_collective_crossover(sim: Simulator, d: Declared) -> Measured:
    """DL_POLY's test 20 at the outcome's core ratio: the first count of the sweep from which both hybrids spend
    less time in collectives (rank 0's inside them, waiting included) than pure MPI at every count (None if none),
    beside those times per count."""
    name, counts = d.params["cluster"], tuple(d.params["counts"])
    workload = validate_dlpoly.Test20(float(d.params["core_ratio"]))
    sums = {c: {k: rounded(sim.inside("sums", name, c, k, workload)) for k in CONFIGURATIONS} for c in counts}
    wins = [all(sums[c][k] < sums[c]["pure-mpi"] for k in CONFIGURATIONS[1:]) for c in counts]
    return Measured(first_from(counts, wins), sums)


MEASURES: dict[str, Callable[[Simulator, Declared], Measured]] = {
    "winners": winners, "faster_hybrid": faster_hybrid, "crossover": crossover, "movout_ratio": movout_ratio,
    "movout_networks": movout_networks, "region_overhead": region_overhead, "collective_ratio": collective_ratio,
    "data_ratio": data_ratio, "dlpoly_crossover": dlpoly_crossover, "dlpoly_share": dlpoly_share,
    "dlpoly_collective_crossover": dlpoly_collective_crossover}


def clusters(d: Declared) -> tuple[str, ...]:
    """The descriptions an outcome is simulated on: its `cluster`, the two it compares (movout_networks), the
    clusters its figure is keyed by (movout, region_overhead), or the IBM SP's its SPMV modes run on."""
    if d.measure in validate_spmv.MEASURES:
        return validate_spmv.descriptions(d)
    if d.measure == "movout_networks":
        return d.params["numerator"], d.params["denominator"]
    return (d.params["cluster"],) if "cluster" in d.params else tuple(d.published)


def measured(d: Declared, md: Simulator, spmv: validate_spmv.SpmvSimulator) -> Measured:
    """What the outcome's measure gives, on the simulator of its kernel."""
    return MEASURES[d.measure](md, d) if d.measure in MEASURES else validate_spmv.MEASURES[d.measure](spmv, d)


def chosen(names: tuple[str, ...] | None = None) -> list[Declared]:
    """The declared outcomes of these names (all where None), in the data file's order; ValueError naming an
    unknown one and the known ones."""
    known = [d.name for d in declared()]
    unknown = [n for n in names or () if n not in known]
    if unknown:
        raise ValueError(f"unknown outcome {unknown[0]!r}: the outcomes are {', '.join(known)}")
    return [d for d in declared() if names is None or d.name in names]


def outcomes(window: int = 20, progress: Callable[[str], None] = lambda line: None,
             spmv_window: int = validate_spmv.WINDOW, md: Simulator | None = None,
             spmv: validate_spmv.SpmvSimulator | None = None, names: tuple[str, ...] | None = None) -> list[Outcome]:
    """The declared outcomes (`names`, or every one), simulated and judged by their rules, in the data file's
    order."""
    md = md or Simulator(window, progress)
    spmv = spmv or validate_spmv.SpmvSimulator(spmv_window, progress)
    return [judged(d, measured(d, md, spmv)) for d in chosen(names)]


def as_json(found: list[Outcome]) -> list[dict[str, Any]]:
    return [asdict(o) for o in found]
