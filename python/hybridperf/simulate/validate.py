"""`hybridperf simulate validate`: the seeds' MD experiments at their scale, simulated on the clusters they ran on,
beside what the thesis published (seed-spec §A.12, §H.3.25), and the closed-form split model on the same points.

The problem is the thesis's small simulation (16,384,000 atoms, fcc 160^3, shifted-force LJ, global sums every
step), its 500 steps simulated as a window of `steps` steps (one neighbour-list period by default) scaled to 500:
every step of a period is alike, so the scaled time and all its ratios are the whole run's. Compute costs are
the thesis's own (Table 4.8, Merlin pure MPI at 128 cores; threading losses of Tables 4.6/4.7) — the simulator
decides only what the network and the placement of ranks add. Each outcome is judged by the rule its row states;
`reproduced` is that rule applied to the simulated values, never set by hand."""

from __future__ import annotations

import tempfile
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Callable

from hybridperf import cluster
from hybridperf.launch import kernels
from hybridperf.models import presets
from hybridperf.models.split import predict, Split
from hybridperf.shapes import shape
from hybridperf.simulate import point, validate_spmv
from hybridperf.simulate.outcome import Outcome
from hybridperf.simulate.plan import parse, Plan
from hybridperf.simulate.study import thesis_costs

SIZE, STEPS = presets.THESIS_SMALL_SIZE, presets.THESIS_STEPS
CONFIGURATIONS = ("pure-mpi", "hybrid-1", "hybrid-2")
SOURCE_RUNS = "thesis §4.3.2 (seed-spec §A.12, §H.3.25)"


class Simulator:
    """Simulated times of the thesis problem, plans shared between clusters with the same rank counts."""

    def __init__(self, window: int, progress: Callable[[str], None]):
        self.window, self.progress = window, progress
        self.plans: dict[int, Plan] = {}
        self.results: dict[tuple[str, int, str], point.Simulated] = {}

    def plan(self, ranks: int) -> Plan:
        if ranks not in self.plans:
            args = ("-s", str(SIZE), "--steps", str(self.window), "--thermo", "1", "--potential", "lj/sf")
            self.plans[ranks] = parse(kernels.plan("md", args, ranks))
        return self.plans[ranks]

    def __call__(self, name: str, cores: int, configuration: str) -> point.Simulated:
        key = (name, cores, configuration)
        if key not in self.results:
            spec = cluster.load(name)
            nodes, rpn, threads = shape(configuration, spec.cores_per_node, cores=cores)
            self.progress(f"{spec.name}: {configuration} on {cores} cores ({nodes * rpn} ranks x {threads} threads)")
            with tempfile.TemporaryDirectory(prefix="hybridperf-validate-") as work:
                raw = point.simulate(self.plan(nodes * rpn), thesis_costs(spec), spec, Split(nodes, rpn, threads),
                                     Path(work))
            scale = STEPS / self.window
            self.results[key] = point.Simulated(raw.seconds * scale, raw.compute * scale, raw.p2p * scale,
                                                raw.collective * scale, {})
        return self.results[key]

    def winners(self, name: str, counts: tuple[int, ...]) -> dict[int, str]:
        return {c: min(CONFIGURATIONS, key=lambda k: self(name, c, k).seconds) for c in counts}


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


def pure_everywhere(sim: Simulator, name: str, counts: tuple[int, ...]) -> Outcome:
    spec = cluster.load(name)
    winners = sim.winners(name, counts)
    closed = closed_form_winners(name, counts)
    return Outcome(f"{spec.name}: pure MPI fastest at every core count", SOURCE_RUNS,
                   "pure-mpi has the lowest simulated time at every count",
                   "pure MPI fastest at every core count and problem size", _listing(winners),
                   all(w == "pure-mpi" for w in winners.values()), _listing(closed))


def gige_crossover(sim: Simulator, below: tuple[int, ...], above: tuple[int, ...]) -> Outcome:
    name = "cseem64t-gige"
    winners = sim.winners(name, below + above)
    hybrids_faster = {c: all(sim(name, c, k).seconds < sim(name, c, "pure-mpi").seconds for k in CONFIGURATIONS[1:])
                      for c in above}
    reproduced = all(winners[c] == "pure-mpi" for c in below) and all(hybrids_faster.values())
    return Outcome("CSEEM64T over GigE: pure MPI fastest below ~48 cores, both hybrids faster above", SOURCE_RUNS,
                   f"pure-mpi fastest at {below}; both hybrids faster than pure-mpi at {above}",
                   "pure MPI best below 48 cores; above 48 both hybrids beat it (small and large cases)",
                   _listing(winners), reproduced, _listing(closed_form_winners(name, below + above)))


def movout_directions(sim: Simulator, cores: int = 96) -> Outcome:
    ratios = {n: sim(n, cores, "pure-mpi").p2p / sim(n, cores, "hybrid-1").p2p
              for n in ("cseem64t-infinipath", "cseem64t-gige")}
    return Outcome(f"movout at {cores} cores: pure MPI ~2x faster than hybrid-1 on Infinipath, ~2x slower on GigE",
                   "thesis Table 4.9 (seed-spec §A.12, §H.3.25; large simulation)",
                   "pure/hybrid-1 point-to-point time below 1 on Infinipath and above 1 on GigE",
                   "pure/hybrid-1 movout: Infinipath 7.907/18.506 = 0.43, GigE 53.009/27.875 = 1.90",
                   f"Infinipath {ratios['cseem64t-infinipath']:.2f}, GigE {ratios['cseem64t-gige']:.2f}",
                   ratios["cseem64t-infinipath"] < 1 < ratios["cseem64t-gige"])


def sum_ratio(sim: Simulator, counts: tuple[int, ...] = (384, 512)) -> Outcome:
    ratios = {c: sim("merlin", c, "pure-mpi").collective / sim("merlin", c, "hybrid-1").collective for c in counts}
    return Outcome("Merlin: sum (the global reduction) more than 2x faster in hybrid-1 above 256 cores",
                   "thesis Fig. 4.17 (seed-spec §A.12; large simulation)",
                   "pure/hybrid-1 collective time above 2 at every count",
                   "both hybrids faster at almost all counts, more than 2x above 256 cores",
                   ", ".join(f"{c}: {r:.2f}" for c, r in ratios.items()), all(r > 2 for r in ratios.values()))


def outcomes(window: int = 20, progress: Callable[[str], None] = lambda line: None,
             spmv_window: int = validate_spmv.WINDOW) -> list[Outcome]:
    sim = Simulator(window, progress)
    return [pure_everywhere(sim, "merlin", (64, 128, 256, 512)),
            pure_everywhere(sim, "cseem64t-infinipath", (16, 32, 64, 96)),
            gige_crossover(sim, (16, 32), (64, 96)),
            movout_directions(sim),
            sum_ratio(sim),
            *validate_spmv.outcomes(validate_spmv.SpmvSimulator(spmv_window, progress))]


def as_json(found: list[Outcome]) -> list[dict[str, Any]]:
    return [asdict(o) for o in found]
