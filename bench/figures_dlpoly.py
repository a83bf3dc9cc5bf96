"""The figures docs/simulation.md quotes from DL_POLY's step replayed on Merlin (simulate.dlpoly): test 20's
256,000 Cu3Au atoms (Gupta, L1_2 at 3.751 Angstrom), 5 steps, pure MPI and both hybrids from 32 to 512 cores.

Compute costs: simulate validate's (simulate.validate_dlpoly): a 1 rank x 1 thread hybridperf-md run of the same
potential made here, kept in resources/data/dlpoly-test20-costs.yaml (force and density pass per atom-step,
integration; its neighbour list per atom-step, as DL_POLY builds its link cells every step; `--measure-costs`
measures them again and rewrites that file) times CORE_RATIO, an assumed slowdown of Merlin's 2008 core against
this one (the ratio the validate outcome declares); threading losses and fork/join the thesis's (Tables 4.6/4.7,
Table 3.1). The replays take minutes, so `bench/figures.py --refresh` runs them into
bench/runs/dlpoly-figures.json and the figures are read from it.

With OS noise (`python bench/figures_dlpoly.py --noise`, into bench/runs/dlpoly-noise.json): the same step at 64 to
512 cores with dlpoly-figures.json's costs, each point replayed whole on Merlin without noise (scale 0) and with its
description's assumed noise drawn from each of NOISE_SEEDS at each of NOISE_SCALES (its slowdowns times the scale),
its interval as declared and a tenth of it (NOISE_INTERVALS). A seed draws node k's profile alike for every split,
so pure MPI and the hybrids meet the same noise at a core count."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import tempfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import yaml

import common
from hybridperf import cluster, profile
from hybridperf.files import write_atomic
from hybridperf.launch import runner
from hybridperf.launch.lines import Configuration
from hybridperf.models.split import Split
from hybridperf.simulate import outcome, point, validate_dlpoly
from hybridperf.simulate.plan import Plan

STORED = common.REPO / "bench" / "runs" / "dlpoly-figures.json"
NOISY = common.REPO / "bench" / "runs" / "dlpoly-noise.json"
NOISE_SEEDS, NOISE_SCALES, NOISE_CORES = (1, 2), (1, 4, 16), (64, 128, 256, 512)
NOISE_INTERVALS = ("1ms", "100us")  # Merlin's declared interval, then a tenth of it (shorter, sharper detours)
HYBRIDS = ("hybrid-1", "hybrid-2")
MERLIN_TEST20 = next(d for d in outcome.declared() if d.name == "dlpoly_merlin_test20_crossover")
CORE_RATIO = MERLIN_TEST20.params["core_ratio"]  # assumed: a Harpertown core (2008, SSE) against this machine's
STEPS, CORES = validate_dlpoly.WINDOW, (32, 64, 128, 256, 512)
SPLITS = {"pure-mpi": 8, "hybrid-1": 1, "hybrid-2": 2}  # ranks per Merlin node of 8 cores


def measure_costs() -> None:
    """Seconds per atom-step on one core here (force, density pass, integration, neighbour list), written to
    resources/data/dlpoly-test20-costs.yaml."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "serial.json"
        gupta = validate_dlpoly.gupta_table(Path(tmp))
        args = [*validate_dlpoly.CU3AU, "--potential-file", str(gupta), "-s", "12", "--steps", "20"]
        launch = runner.prepare("md", Configuration(1, 1, 1, 1), args, path)
        common.run_checked(launch.command, launch.env, what="hybridperf-md")
        run = profile.load(path)
    atom_steps = run["md"]["atoms"] * run["md"]["steps_done"]
    state = common.machine_state()
    header = validate_dlpoly.COSTS.read_text().split("\nmeasured:")[0]
    document = {"measured": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "machine": f"{state['cpu_model']}, {state['cpus']} CPUs",
                "seconds_per_atom_step": {k: run["regions"][k]["time"]["avg"] / atom_steps
                                          for k in ("force", "density", "integrate", "neighbor")}}
    write_atomic(validate_dlpoly.COSTS, header + "\n" + yaml.safe_dump(document, sort_keys=False))
    print(f"wrote {validate_dlpoly.COSTS}")


def _splits(cores_swept: tuple[int, ...]) -> Iterator[tuple[int, str, Split, Plan]]:
    """(cores, split name, split, DL_POLY's plan of test 20) of each point, said as it is planned."""
    for cores in cores_swept:
        for name, per_node in SPLITS.items():
            split = Split(cores // 8, per_node, 8 // per_node)
            print(f"DL_POLY's step, test 20 on Merlin: {cores} cores {name}", flush=True)
            yield cores, name, split, validate_dlpoly.Test20(CORE_RATIO).plan(split.ranks)


def refresh() -> None:
    merlin = cluster.load("merlin")
    costs = validate_dlpoly.Test20(CORE_RATIO).costs(merlin)
    rows = []
    for cores, name, split, plan in _splits(CORES):
        with tempfile.TemporaryDirectory() as tmp:
            done = point.simulate(plan, costs, merlin, split, Path(tmp), per_rank=True)
        first, ranks = plan.ranks_plan[0].work, done.ranks
        assert ranks is not None, "every point here is below point.TRACED_RANKS"
        rows.append({"cores": cores, "split": name, "seconds_per_step": done.seconds / STEPS,
                     "allreduce_share": done.collective / done.seconds, "p2p_share": done.p2p / done.seconds,
                     "allreduce_inside_share": ranks.share("collective"), "p2p_inside_share": ranks.share("p2p"),
                     "pairs_over_atoms": first["pair_atoms"] / first["atoms"]})
    document = {"made": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "hybridperf": common.machine_state()["hybridperf"], "core_ratio": CORE_RATIO,
                "serial_s_per_atom_step": validate_dlpoly.measured()["seconds_per_atom_step"], "rows": rows}
    write_atomic(STORED, json.dumps(document, indent=1) + "\n")
    stored.cache_clear()
    print(f"wrote {STORED.relative_to(common.REPO)}")


def _every(merlin: cluster.ClusterSpec, interval: str | None) -> cluster.ClusterSpec:
    """Merlin with its noise's interval set (None: as declared)."""
    if interval is None or merlin.noise is None:
        return merlin
    seconds = cluster.quantity(interval, cluster.TIME_UNITS, "interval")
    return dataclasses.replace(merlin, noise=dataclasses.replace(merlin.noise, interval_text=interval,
                                                                  interval=seconds))


def refresh_noise() -> None:
    """DL_POLY's step on Merlin with its noise at each size, the costs those of dlpoly-figures.json."""
    merlin, began = cluster.load("merlin"), datetime.datetime.now(datetime.timezone.utc)
    costs = validate_dlpoly.Test20(stored()["core_ratio"]).costs(merlin)
    rows = []
    for cores, name, split, plan in _splits(NOISE_CORES):
        for interval, scale, seed in [(None, 0, None), *((i, s, seed) for i in NOISE_INTERVALS for s in NOISE_SCALES
                                                         for seed in NOISE_SEEDS)]:
            spec = cluster.with_noise(_every(merlin, interval), seed, float(scale))
            with tempfile.TemporaryDirectory() as tmp:
                whole = point.replays(plan, costs, spec, split, Path(tmp), ("whole",))["whole"]
            rows.append({"cores": cores, "split": name, "interval": interval, "scale": scale, "seed": seed,
                         "seconds_per_step": whole / STEPS})
    document = {"made": began.isoformat(timespec="seconds"), "hybridperf": common.machine_state()["hybridperf"],
                "minutes": (datetime.datetime.now(datetime.timezone.utc) - began).total_seconds() / 60,
                "costs_from": STORED.name, "noise": dataclasses.asdict(merlin.noise) if merlin.noise else None,
                "rows": rows}
    write_atomic(NOISY, json.dumps(document, indent=1) + "\n")
    print(f"wrote {NOISY.relative_to(common.REPO)}")


@cache
def stored() -> dict:
    return json.loads(STORED.read_text())


def _row(cores: int, split: str) -> dict:
    return next(r for r in stored()["rows"] if r["cores"] == cores and r["split"] == split)


def _ratios(hybrid: str) -> str:
    """t_MPI / t_hybrid from 64 to 512 cores, lowest–highest."""
    values = [_row(c, "pure-mpi")["seconds_per_step"] / _row(c, hybrid)["seconds_per_step"] for c in CORES[1:]]
    return f"{min(values):.2f}–{max(values):.2f}"


@cache
def noisy() -> dict:
    return json.loads(NOISY.read_text())


def _noisy_ratio(cores: int, hybrid: str, scale: float, seed: int | None, interval: str | None = NOISE_INTERVALS[0]) \
        -> float:
    """t_MPI / t_hybrid of the noisy run at a core count, noise size, seed and interval (None: without noise)."""
    step = {r["split"]: r["seconds_per_step"] for r in noisy()["rows"]
            if (r["cores"], r["interval"], r["scale"], r["seed"]) == (cores, interval, scale, seed)}
    return step["pure-mpi"] / step[hybrid]


def _span(values: list[float], digits: int = 2) -> str:
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if low == high else f"{low}–{high}"


def _per_size(cores: int, hybrid: str) -> str:
    """t_MPI / t_hybrid at each swept noise size, over the seeds: '0.82, 0.80–0.81, 0.74'."""
    return ", ".join(_span([_noisy_ratio(cores, hybrid, s, seed) for seed in NOISE_SEEDS]) for s in NOISE_SCALES)


def _sizes() -> str:
    """Each swept size as a node's mean slowdown: '1%, 4% and 16%'."""
    mean = sum(noisy()["noise"]["slowdowns"]) / len(noisy()["noise"]["slowdowns"])
    sizes = [f"{100 * mean * s:g}%" for s in NOISE_SCALES]
    return f"{', '.join(sizes[:-1])} and {sizes[-1]}"


def _all(interval: str) -> str:
    """t_MPI / t_hybrid over every core count, hybrid, size and seed at the interval, lowest–highest."""
    return _span([_noisy_ratio(c, h, s, seed, interval) for c in NOISE_CORES for h in HYBRIDS for s in NOISE_SCALES
                  for seed in NOISE_SEEDS])


def _hybrids_win(interval: str) -> str:
    """The smallest swept size from which both hybrids beat pure MPI at 256 and 512 cores for every seed."""
    for scale in NOISE_SCALES:
        if all(_noisy_ratio(c, h, scale, seed, interval) > 1 for c in (256, 512) for h in HYBRIDS
               for seed in NOISE_SEEDS):
            return f"from ×{scale:g} on"
    return "at none of the swept sizes"


def _without_noise() -> str:
    """The noisy run's replays without noise, which must be dlpoly-figures.json's: t_MPI / t_H1 and t_H2 at 64–512."""
    for r in noisy()["rows"]:
        if r["scale"] == 0 and r["seconds_per_step"] != _row(r["cores"], r["split"])["seconds_per_step"]:
            raise SystemExit(f"{NOISY.name}: {r['cores']} cores {r['split']} without noise is not {STORED.name}'s")
    return _span([_noisy_ratio(c, h, 0, None, None) for c in NOISE_CORES for h in HYBRIDS])


def _stretch(cores: int, scale: float) -> str:
    """How much longer pure MPI's step is with the noise at `scale` than without, over the seeds."""
    step = {(r["scale"], r["seed"]): r["seconds_per_step"] for r in noisy()["rows"]
            if (r["cores"], r["split"]) == (cores, "pure-mpi") and r["interval"] in (None, NOISE_INTERVALS[0])}
    return _span([100 * (step[scale, seed] / step[0, None] - 1) for seed in NOISE_SEEDS], 0) + "%"


FIGURES = {
    "dlpoly.force_ns": lambda: f"{stored()['serial_s_per_atom_step']['force'] * 1e9:.0f}",
    "dlpoly.density_ns": lambda: f"{stored()['serial_s_per_atom_step']['density'] * 1e9:.0f}",
    "dlpoly.core_ratio": lambda: f"{stored()['core_ratio']:g}",
    "dlpoly.allreduce_share_32": lambda: f"{_row(32, 'pure-mpi')['allreduce_share'] * 100:.1f}%",
    "dlpoly.allreduce_inside_32": lambda: f"{_row(32, 'pure-mpi')['allreduce_inside_share'] * 100:.1f}%",
    "dlpoly.p2p_inside_32": lambda: f"{_row(32, 'pure-mpi')['p2p_inside_share'] * 100:.1f}%",
    "dlpoly.pairs_pure_512": lambda: f"{_row(512, 'pure-mpi')['pairs_over_atoms'] - 1:.2f}",
    "dlpoly.pairs_h1_512": lambda: f"{_row(512, 'hybrid-1')['pairs_over_atoms'] - 1:.2f}",
    "dlpoly.pairs_pure_32": lambda: f"{_row(32, 'pure-mpi')['pairs_over_atoms'] - 1:.2f}",
    "dlpoly.pure_over_h1": lambda: _ratios("hybrid-1"),
    "dlpoly.pure_over_h2": lambda: _ratios("hybrid-2"),
    "dlpoly.noise_sizes": _sizes,
    "dlpoly.noise_seeds": lambda: str(len(NOISE_SEEDS)),
    "dlpoly.noise_minutes": lambda: f"{noisy()['minutes']:.1f}",
    "dlpoly.noise_without": _without_noise,
    "dlpoly.noise_h1_512": lambda: _per_size(512, "hybrid-1"),
    "dlpoly.noise_h2_256": lambda: _per_size(256, "hybrid-2"),
    "dlpoly.noise_all": lambda: _all(NOISE_INTERVALS[0]),
    "dlpoly.noise_verdict": lambda: _hybrids_win(NOISE_INTERVALS[0]),
    "dlpoly.noise_short": lambda: NOISE_INTERVALS[1].replace("us", " µs"),
    "dlpoly.noise_short_all": lambda: _all(NOISE_INTERVALS[1]),
    "dlpoly.noise_short_verdict": lambda: _hybrids_win(NOISE_INTERVALS[1]),
    "dlpoly.noise_stretch_512": lambda: _stretch(512, NOISE_SCALES[-1]),
    "dlpoly.noise_largest": lambda: f"×{NOISE_SCALES[-1]:g}",
    "dlpoly.noise_scales": lambda: f"{', '.join(f'×{s:g}' for s in NOISE_SCALES[:-1])} and ×{NOISE_SCALES[-1]:g}",
}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--noise", action="store_true",
                      help="replay DL_POLY's step with Merlin's noise at each size into bench/runs/dlpoly-noise.json "
                           "(the rest is remade by bench/figures.py --refresh)")
    what.add_argument("--measure-costs", action="store_true",
                      help="measure test 20's costs per atom-step on one core here into "
                           "resources/data/dlpoly-test20-costs.yaml (what simulate validate and these figures price)")
    args = parser.parse_args()
    measure_costs() if args.measure_costs else refresh_noise()
