"""POP's factors across a study: each point's (configuration × scale) median over its runs with a 90% interval
(`verdicts.median_interval`, as the benches' figures), computation scalability and global efficiency against the
study's reference point, and at each scale the one sentence that says which factor sets the winner apart from the
runner-up (docs/pop.md). Pure."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from hybridperf.analysis import pop
from hybridperf.analysis.sections import Point, Section, Verdict
from hybridperf.analysis.verdicts import median_interval

# computation scalability = IPC scalability × instruction scalability × frequency scalability (POP); the first two
# where the runs counted instructions and cycles
STUDY_FACTORS = ("global_efficiency", "computation_scalability", "ipc_scalability", "instruction_scalability")
FACTORS = (*STUDY_FACTORS, *pop.RUN_FACTORS, *pop.REPLAY_FACTORS)
# The factors a winner is explained by: the leaves of POP's tree, not the products of them. Not IPC (not an
# efficiency) nor its two scalabilities: the counts include the other threads' waits in the OpenMP runtime
# (kernels/common/hp_counters.h), which grow with the threads, so they could blame the instructions of a split
# whose threads merely waited.
EXPLAINING = ("computation_scalability", "mpi_communication_efficiency", "mpi_load_balance_in",
              "mpi_load_balance_out", "openmp_load_balance", "openmp_scheduling_efficiency",
              "openmp_serialization_efficiency")


@dataclass(frozen=True)
class Estimate:
    median: float
    low: float  # the 90% interval of the median over the runs (unbounded below two runs)
    high: float
    n: int


@dataclass
class PointFactors:
    configuration: str
    scale: int
    values: dict[str, Estimate | None]
    why: dict[str, str] = field(default_factory=dict)  # factor -> why it is None


def _useful_cpu_seconds(run: pop.Factors, profile: dict) -> float | None:
    """All threads' useful seconds summed: M × OpenMP parallel efficiency × Σ_i (E_i − C_i)."""
    times, omp_pe = pop.rank_times(profile), run.values["openmp_parallel_efficiency"]
    if times is None or omp_pe is None:
        return None
    return profile["run"]["threads_per_rank"] * omp_pe * sum(times.outside)


def _estimate(values: list[float]) -> Estimate | None:
    if not values:
        return None
    low, high = median_interval(values)
    return Estimate(statistics.median(values), low, high, len(values))


@dataclass(frozen=True)
class Reference:
    """POP's reference run: the point with the fewest cores whose runs' useful time is known, and the medians over
    its runs of that useful time and, where counted, of its instructions and IPC."""

    point: Point
    useful: float
    instructions: float | None
    ipc: float | None


def _median_of(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def _reference(points: list[Point]) -> Reference | None:
    known = []
    for p in points:
        useful = [u for r in p.runs if (u := _useful_cpu_seconds(pop.of_profile(r["profile"]), r["profile"]))]
        if useful and p.time:
            known.append((p.cores, p.time.median, p, statistics.median(useful)))
    if not known:
        return None
    _, _, point, useful = min(known, key=lambda k: (k[0], k[1]))
    counted = [pop.counts(r["profile"]) for r in point.runs]
    return Reference(point, useful, _median_of([c.total("instructions") for c in counted]),
                     _median_of([c.ipc()[0] for c in counted]))


def _counter_scalability(f: pop.Factors, counted: pop.Counts, ref: Reference | None, problem: float) -> None:
    """IPC and instruction scalability of one run against the reference, into f (None with why where either side
    did not count instructions and cycles)."""
    names = ("ipc_scalability", "instruction_scalability")
    if f.values["ipc"] is not None and ref is not None and ref.ipc is not None and ref.instructions is not None:
        f.values["ipc_scalability"] = f.values["ipc"] / ref.ipc
        f.values["instruction_scalability"] = ref.instructions * problem / counted.total("instructions")
        return
    f.values |= dict.fromkeys(names)
    f.why |= dict.fromkeys(names, f.why.get("ipc") or "the study's reference point did not count instructions and "
                                                      "cycles")


def point_factors(section: Section, named: list[tuple[str, Point]]) -> list[PointFactors]:
    """Each measured point's factors, `named` the section's points as the report shows them (configurations that
    share one shape's runs named together); computation scalability and global efficiency against the reference
    point, its useful time scaled by the problem sizes the runs state (1 for strong scaling)."""
    ref = _reference(section.points)
    out = []
    for configuration, p in named:
        if not p.runs:
            continue
        problem = p.problem / ref.point.problem if ref and p.problem and ref.point.problem else 1.0
        work = None if ref is None else ref.useful * problem
        per_run: dict[str, list[float]] = {factor: [] for factor in FACTORS}
        why: dict[str, str] = {}
        for r in p.runs:
            f = pop.of_profile(r["profile"])
            useful, times = _useful_cpu_seconds(f, r["profile"]), pop.rank_times(r["profile"])
            f.values["computation_scalability"] = work / useful if work and useful else None
            f.values["global_efficiency"] = work / (p.cores * max(times.elapsed)) if work and times else None
            _counter_scalability(f, pop.counts(r["profile"]), ref, problem)
            if ref is None:
                f.why["computation_scalability"] = f.why["global_efficiency"] = (
                    "no point of this study has a known useful time to scale against")
            elif not useful:
                f.why["computation_scalability"] = ("this point's useful time is not known (its OpenMP parallel "
                                                    "efficiency is not)")
            for factor in FACTORS:
                value = f.values.get(factor)
                if value is not None and math.isfinite(value):
                    per_run[factor].append(value)
                elif factor in f.why:
                    why.setdefault(factor, f.why[factor])
        values = {factor: _estimate(v) for factor, v in per_run.items()}
        out.append(PointFactors(configuration, p.scale, values,
                                {factor: why.get(factor, "no run of this point has it") for factor in FACTORS
                                 if values[factor] is None}))
    return out


def _point(table: list[PointFactors], candidate: str, scale: int) -> PointFactors | None:
    names = set(candidate.split(" = "))
    return next((f for f in table if f.scale == scale and names & set(f.configuration.split(" = "))), None)


def _not_measured(point: PointFactors, whose: str, names: Sequence[str]) -> str:
    """'; not measured<whose>: OpenMP load balance, ... — <the commonest reason>', or '' where it lacks none of
    `names`."""
    unknown = [n for n in names if point.values.get(n) is None and n in point.why]
    if not unknown:
        return ""
    reason = Counter(point.why[n] for n in unknown).most_common(1)[0][0]
    return f"; not measured{whose}: {', '.join(pop.NAMES[n] for n in unknown)} — {reason}"


def explaining_factor(table: list[PointFactors], v: Verdict) -> str | None:
    """The factor a scale's sentence names: of EXPLAINING, those both the winner (or the leader, or the preferred of
    a tie) and the runner-up carry, the one most in its favour (where none is, the one most against it)."""
    runner = v.runner_up
    first, second = _point(table, v.winner, v.scale), runner and _point(table, runner.candidate, v.scale)
    if first is None or second is None:
        return None
    both = [(a.median - b.median, name) for name in EXPLAINING
            if (a := first.values.get(name)) and (b := second.values.get(name))]
    if not both:
        return None
    gain, name = max(both)
    return name if gain > 0 else min(both)[1]


def explanation(table: list[PointFactors], v: Verdict, axis: str) -> str | None:
    """'hybrid-1 wins at 2 cores: its MPI communication efficiency is 0.97 against 0.88 for pure-mpi.' — the factor
    of explaining_factor, with both values as the table gives them. A tie's preferred has no lead: the sentence
    says where the two differ most. Where every factor both carry is against the winner, its lead lies in what
    they do not take apart: the sentence says so, gives the global efficiency where that has it, and names what
    was not measured. None where there is no runner-up."""
    runner = v.runner_up
    if runner is None:
        return None
    first, second = _point(table, v.winner, v.scale), _point(table, runner.candidate, v.scale)
    if first is None or second is None:
        return None
    other = runner.candidate if v.winner != runner.candidate else v.race.leader
    verb = {"wins": "wins", "tie": "is preferred of the tie"}.get(v.outcome, "leads (undecided)")
    where = f"{v.winner} {verb} at {v.scale} {axis[:-1] if v.scale == 1 else axis}"
    name = explaining_factor(table, v)
    if name is None:
        return f"{where}; no POP factor is known for both it and {other} (docs/pop.md says which runs carry them)."
    mine, theirs = first.values[name].median, second.values[name].median
    digits = 2 if f"{mine:.2f}" != f"{theirs:.2f}" else 3  # never "0.95 against 0.95"
    values = f"{pop.NAMES[name]} {mine:.{digits}f} against {theirs:.{digits}f} for {other}"
    if v.outcome == "tie":
        return f"{where} (fewer ranks; neither is faster beyond the band): they differ most in {values}."
    if mine <= theirs:
        missing = _not_measured(first, "", EXPLAINING) + _not_measured(
            second, f" for {other}", [n for n in EXPLAINING if first.values.get(n) is not None])
        glob_a, glob_b = first.values.get("global_efficiency"), second.values.get("global_efficiency")
        has_it = (f"; the global efficiency has it, {glob_a.median:.2f} against {glob_b.median:.2f}"
                  if glob_a and glob_b and glob_a.median > glob_b.median else "")
        return (f"{where}, though each factor both carry favours {other} ({values}): its lead lies in what they do "
                f"not take apart{has_it}{missing}.")
    text = f"{where}: its {pop.NAMES[name]} is {mine:.{digits}f} against {theirs:.{digits}f} for {other}"
    serial = first.values.get("openmp_serialization_efficiency")
    if name != "openmp_serialization_efficiency" and serial and serial.median < 0.995:
        text += f"; its OpenMP serialization costs {100 * (1 - serial.median):.0f}%"
    return text + "."
