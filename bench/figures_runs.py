"""The figures docs quote from the benches' run files in bench/runs/: read and judged as bench/tables.py judges
them (each bench's `figures`), or, for what the tables do not show, from the raw samples. bench/figures.py marks
and checks them; milliseconds each."""

from __future__ import annotations

import json
import re
import statistics
from functools import cache

import numpy as np

import common
import tables
from hybridperf.analysis.verdicts import Judgement, judge_ratio, Band


@cache
def judged(bench: str) -> list[tables.Judged]:
    return tables.judge(bench)


def row(bench: str, figure: str, which: int = -1) -> common.Row:
    """The row of a judged set (the latest by default) whose figure starts with `figure`."""
    [found] = [r for r in judged(bench)[which].rows if r.figure.startswith(figure)]
    return found


def newest_row(bench: str, figure: str) -> common.Row:
    """The row whose figure starts with `figure` of the latest judged set that has one (a bench whose points
    run in separate invocations)."""
    return next(r for judged_set in reversed(judged(bench)) for r in judged_set.rows if r.figure.startswith(figure))


@cache
def native() -> tables.Judged:
    """The 16-core node's md_vs_lammps run against LAMMPS built for its CPU (kept in bench/runs/device/, so that
    the 2-core machine's runs stay the bench's own table)."""
    return tables.judge("md_vs_lammps", common.load_runs("md_vs_lammps", common.RUNS / "device"))[-1]


def estimate(j: Judgement) -> str:
    return f"{j.estimate:.3g} {j.interval_text()}"


def run(name: str) -> dict:
    return json.loads((common.RUNS / f"{name}.json").read_text())


def span(values: list[float], digits: int = 2, unit: str = "") -> str:
    return f"{min(values):.{digits}f}–{max(values):.{digits}f}{unit}"


# ---------------------------------------------------------------- ompbench: why a figure is judged per round

EPCC_30 = "ompbench_vs_epcc-20261125T224402"


def construct(side: str, name: str) -> list[float]:
    return [r[name] for r in run(EPCC_30)["samples"][side]]


def ratio_of_medians(name: str, seed: int = 0, resamples: int = 4000) -> str:
    """The rule before 2026-11-25: the ratio of the two sides' medians, each side's rounds resampled on its own
    (90% percentile bootstrap)."""
    ours, epcc = np.array(construct("ours", name)), np.array(construct("epcc", name))
    rng = np.random.default_rng(seed)
    picks = [rng.integers(0, len(side), (resamples, len(side))) for side in (ours, epcc)]
    ratios = np.median(ours[picks[0]], axis=1) / np.median(epcc[picks[1]], axis=1)
    low, high = np.percentile(ratios, [5, 95])
    return f"{np.median(ours) / np.median(epcc):.3g} [{low:.2g}, {high:.3g}]"


def per_round(name: str) -> str:
    return estimate(judge_ratio(construct("ours", name), construct("epcc", name), Band(0.75, 1.25)))


# ---------------------------------------------------------------- the many-body kernels: first and latest run


def manybody_1x1(system: str, which: int) -> str:
    runs = common.load_runs("manybody_vs_lammps")
    return f"{statistics.median(runs[which]['samples'][f'ours {system} 1x1']):.0f}"


# ---------------------------------------------------------------- CLOMP 1.2


def clomp_loops(which: int = -1) -> dict[tuple[str, str], float]:
    """(input, variant) -> ours / CLOMP 1.2's median µs per loop."""
    out = {}
    for r in judged("clomp_vs_clomp12")[which].rows:
        found = re.fullmatch(r"`(.+)` (\w+): µs per loop", r.figure)
        if found:
            out[found[1], found[2]] = float(r.ours) / float(r.reference)
    return out


def clomp_parallel_within() -> str:
    gaps = [abs(v - 1) for (_, variant), v in clomp_loops().items() if variant != "serial_ref"]
    return f"{100 * max(gaps):.1f}%"


def clomp_serial_slower() -> str:
    return span([100 * (1 / v - 1) for (_, variant), v in clomp_loops().items() if variant == "serial_ref"], 0, "%")


def clomp_serial_earlier() -> str:
    """The serial loops' largest gap in the runs made on another machine image (kernel) than the latest run's."""
    runs = common.load_runs("clomp_vs_clomp12")
    image = lambda run: run["machine"].get("before", {}).get("kernel")  # noqa: E731
    other = [which for which, run in enumerate(runs) if image(run) != image(runs[-1])]
    gaps = [abs(v - 1) for which in other for (_, variant), v in clomp_loops(which).items() if variant == "serial_ref"]
    return f"{100 * max(gaps):.1f}%"


def clomp_overheads_by_medians() -> str:
    """How many overheads of the latest run had a round at or below zero, on either side (so judged by the ratio of
    the medians, not per round)."""
    samples = common.load_runs("clomp_vs_clomp12")[-1]["samples"]
    n = sum(1 for key, rounds in samples.items() if key.startswith("ours ")
            for variant in rounds[0] if "overhead" in rounds[0][variant] and variant not in ("serial_ref", "best_case")
            and min(s[variant]["overhead"] for side in (rounds, samples["clomp12" + key[4:]]) for s in side) <= 0)
    return ["No", "One", "Two", "Three", "Four", "Five", "Six"][n]


def clomp_overhead_rounds() -> str:
    latest = common.load_runs("clomp_vs_clomp12")[-1]
    values = [s["for_static"]["overhead"] for s in latest["samples"]["ours 2 -1 64 100 32 1 100"]]
    return span(values)


# ---------------------------------------------------------------- the MPI counting library


PMPI_OVERHEAD = "LAMMPS in.lj, 32,000 atoms, 2x1: loop time with the library / without"
PMPI_TRACED = "LAMMPS in.lj, 32,000 atoms, 2x1: loop time with the library writing traces"


def pmpi_trace_overhead() -> str:
    """Tracing's cost over counting alone: the ratio, its interval and its verdict."""
    j = row("pmpi_overhead", PMPI_TRACED).judgement
    return f"{j.estimate:.3g} {j.interval_text()}, *{j.word}*"


def pmpi_calls_per_rank() -> str:
    """Calls the library counted per run (from the run's note), over its 2 ranks, to two significant figures."""
    [note] = run("pmpi_overhead-20261126T124643")["notes"]
    calls = sum(int(n.replace(",", "")) for n in re.findall(r"([\d,]+) calls", note))
    return f"{float(f'{calls / 2:.2g}'):,.0f}"


# ---------------------------------------------------------------- the simulator against one node

CHECK = "simulate_this_machine"
CHECKS = {  # run file -> (the node, what was measured): what the table names each judged set
    "simulate_this_machine-20261123T063314.json": ("this 2-core VM (AMD EPYC), run 1",
                                                   "md 2x1, 1x2; spmv n=20, 40 in mpi 2x1 and hybrid 1x2"),
    "simulate_this_machine-20261123T072225.json": ("the same, run 2 (the current compute model)", "the same"),
    "simulate_this_machine-20261123T072209.json": ("a 16-core Xeon VM (the `device` machine), 5 repeats",
                                                   "md 2x1 … 16x1, 1x2 … 1x16, 2x2, 2x4, 2x8 (400 steps); spmv "
                                                   "1x2 … 1x16, 16x1"),
    "simulate_this_machine-20261123T074053.json": ("the same node, md again with 9 repeats (200 steps)", "the same"),
}


def check_set(name: str) -> tables.Judged:
    return next(j for j in judged(CHECK) if j.runs[0]["path"].endswith(name))


def spreads(j: tables.Judged) -> list[float]:
    return [float(re.search(r"spread (\d+)%", r.figure)[1]) for r in j.rows]


def check_table() -> str:
    lines = ["| node | splits | verdicts | predictions |", "|---|---|---|---|"]
    for name, (node, splits) in CHECKS.items():
        j = check_set(name)
        c = j.counts
        verdicts = (f"**{c['within']} of {sum(c.values())} within**" if c["within"] == sum(c.values())
                    else f"{c['within']} within, {c['undecided']} undecided, {c['differs']} differ")
        predictions = [f"{r.figure.split(': ', 1)[1].split(':')[0]}: {estimate(r.judgement)}, {r.judgement.word}"
                       for r in j.rows if "(fitted)" not in r.figure]
        lines.append(f"| {node} | {splits} | {verdicts} (spreads {span(spreads(j), 0, '%')}) | "
                     f"{'; '.join(predictions)} |")
    return "\n".join(lines) + "\n"


def check_estimates(name: str) -> str:
    return span([r.judgement.estimate for r in check_set(name).rows])


def check_fast_from_8() -> str:
    """How fast the simulation runs (1 - simulated / measured) on the splits of 8 or more busy cores, md, 9 repeats."""
    fast = []
    for r in check_set("20261123T074053.json").rows:
        ranks, threads = map(int, re.search(r"md -s \d+ (\d+)x(\d+)", r.figure).groups()) if "md -s" in r.figure \
            else (0, 0)
        if ranks * threads >= 8:
            fast.append(100 * (1 - r.judgement.estimate))
    return span(fast, 0, "%")


def node_loss(name: str, cores: int) -> str:
    note = next(n for n in check_set(name).runs[0]["notes"] if n.startswith("md:"))
    found = re.search(rf"'node': '[^']*?{cores} cores ([0-9.]+)", note)
    return f"{float(found[1]):.2f}"


def threads_over_ranks(atoms: str) -> str:
    return estimate(row("md_vs_lammps", f"{atoms} atoms: ours 1x2 / ours 2x1").judgement)


def native_ratios() -> list[Judgement]:
    """The 16-core run's ours / fastest LAMMPS judgements, one per size and split."""
    return [r.judgement for r in native().rows if "ours / fastest LAMMPS" in r.figure]


def native_load(when: str) -> str:
    return f"{native().runs[-1]['machine'][when]['load_average'][0]:.1f}"


def measured_seconds(figure: str, which: int) -> str:
    """A simulator check's measured median ('1.442 s'), to two decimals."""
    return f"{float(row(CHECK, figure, which).reference.split()[0]):.2f}"


FIGURES = {
    "runs.epcc_for_range": lambda: span(construct("epcc", "FOR")),
    "runs.epcc_rounds": lambda: str(len(construct("epcc", "FOR"))),
    "runs.parallel_for_ratio_of_medians": lambda: ratio_of_medians("PARALLEL_FOR"),
    "runs.parallel_for_per_round": lambda: per_round("PARALLEL_FOR"),
    "runs.manybody_fe_first": lambda: manybody_1x1("Fe", 0),
    "runs.manybody_fe_latest": lambda: manybody_1x1("Fe", -1),
    "runs.manybody_sic_first": lambda: manybody_1x1("SiC", 0),
    "runs.manybody_sic_latest": lambda: manybody_1x1("SiC", -1),
    "runs.manybody_within": lambda: f"{judged('manybody_vs_lammps')[-1].counts['within']} of "
                                    f"{sum(judged('manybody_vs_lammps')[-1].counts.values())}",
    "runs.md_threads_over_ranks_32000": lambda: threads_over_ranks("32,000"),
    "runs.md_threads_over_ranks_131072": lambda: threads_over_ranks("131,072"),
    "runs.md_native_medians": lambda: span([j.estimate for j in native_ratios()]),
    "runs.md_native_within": lambda: str(sum(j.word == "within" for j in native_ratios())),
    "runs.md_native_splits": lambda: str(len(native_ratios())),
    "runs.md_native_highs": lambda: span([j.high for j in native_ratios() if j.word == "within"]),
    "runs.md_native_rounds": lambda: str(native_ratios()[0].n),
    "runs.md_native_load_before": lambda: native_load("before"),
    "runs.md_native_load_after": lambda: native_load("after"),
    "runs.clomp_parallel_within": clomp_parallel_within,
    "runs.clomp_serial_slower": clomp_serial_slower,
    "runs.clomp_serial_earlier": clomp_serial_earlier,
    "runs.clomp_overheads_by_medians": clomp_overheads_by_medians,
    "runs.clomp_overhead_rounds": clomp_overhead_rounds,
    "runs.mixbench_latency": lambda: row("mixbench_vs_pingpong", "latency 8 B").ours,
    "runs.mixbench_bandwidth": lambda: row("mixbench_vs_pingpong", "bandwidth 1 MiB").ours,
    "runs.chain_latency": lambda: row("mixbench_chain_vs_imb", "chain 0 B").ours,
    "runs.chain_latency_imb": lambda: row("mixbench_chain_vs_imb", "chain 0 B").reference,
    "runs.chain_bandwidth": lambda: row("mixbench_chain_vs_imb", "chain bandwidth 1,024 KiB").ours,
    "runs.chain_bandwidth_imb": lambda: row("mixbench_chain_vs_imb", "chain bandwidth 1,024 KiB").reference,
    "runs.pmpi_calls_per_rank": pmpi_calls_per_rank,
    "runs.pmpi_rounds": lambda: str(row("pmpi_overhead", PMPI_OVERHEAD).judgement.n),
    "runs.pmpi_upper": lambda: f"{row('pmpi_overhead', PMPI_OVERHEAD).judgement.high:.2f}",
    "runs.pmpi_trace_overhead": pmpi_trace_overhead,
    "runs.simulate_scale_seconds": lambda: newest_row("simulate_scale", "one md point of 1024 ").ours,
    "runs.simulate_scale_4096": lambda: newest_row("simulate_scale", "one md point of 4096 ").ours,
    "runs.simulate_scale_16384": lambda: newest_row("simulate_scale", "one md point of 16384 ").ours,
    "runs.simulate_scale_peak_child": lambda: newest_row("simulate_scale", "peak memory of the plan").ours,
    "runs.simulate_scale_peak_python": lambda: newest_row("simulate_scale", "peak memory of the Python").ours,
    "runs.check_run2_estimates": lambda: check_estimates("20261123T072225.json"),
    "runs.check_16core_estimates": lambda: check_estimates("20261123T072209.json"),
    "runs.check_fast_from_8": check_fast_from_8,
    "runs.check_16x1_9_repeats": lambda: estimate(row(CHECK, "this machine (device-16core): md -s 40 16x1").judgement),
    "runs.check_16x1_measured": lambda: measured_seconds("this machine (device-16core): md -s 40 16x1", 1),
    "runs.check_node_loss_16": lambda: node_loss("20261123T072209.json", 16),
}
BLOCKS = {"simulator_check": check_table, "md_vs_lammps_native": lambda: tables.table(native())}
