"""What a calibration's results directory already measured of a predicted question: the runs of the predicted
problem at each predicted split (the median and spread of their loop times), the race a study ran between those
splits, and the splits the program was seen to refuse. A model predicts what was not measured; where a race
decided the question, its answer is the answer, and the prediction is shown beside it, not instead of it. Pure
functions over profiles, stored runs and the study analysis's verdicts (analysis.sections)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hybridperf.analysis.sections import Section, Verdict
from hybridperf.models.calibrate import problem, spread, Spread
from hybridperf.models.split import Split

# The reason a study stores for a run whose program ran one busy thread however many it was asked for
# (app.profile.ignored_threads).
IGNORED_THREADS = "ignored the thread count"


def shape(split: Split) -> tuple[int, int, int]:
    return split.nodes, split.ranks_per_node, split.threads


def _same_problem(profile: dict[str, Any], serial: dict[str, Any]) -> bool:
    return profile["kernel"] == serial["kernel"] and problem(profile["params"]) == problem(serial["params"])


def _runs_at(profiles: list[dict[str, Any]], serial: dict[str, Any], s: Split) -> list[dict[str, Any]]:
    """The measured (not simulated) runs of the serial run's problem at the split's shape."""
    return [p for p in profiles if "simulated" not in p and _same_problem(p, serial)
            and (p["run"]["nodes"], p["run"]["ranks_per_node"], p["run"]["threads_per_rank"]) == shape(s)]


def _loop_time(profile: dict[str, Any]) -> float:
    return next(f["value"] for f in profile["figures_of_merit"] if f["name"] == "loop_time")


def runs_of(profiles: list[dict[str, Any]], serial: dict[str, Any], splits: list[Split]) -> dict[Split, Spread]:
    """Per split, the loop times of every measured run of the serial run's problem at its shape."""
    found = {s: [_loop_time(p) for p in _runs_at(profiles, serial, s)] for s in splits}
    return {s: spread(times) for s, times in found.items() if times}


def comm_parts(profiles: list[dict[str, Any]], seconds: float) -> dict[str, float] | None:
    """Runs' median seconds (rank average) in point-to-point and in collective MPI calls, and the rest of
    `seconds` (their median loop time) as compute — threading overhead and waiting included: a profile does not
    split them; None where no profile records both classes."""
    p2p = [p["comm"]["p2p"]["time"]["avg"] for p in profiles if "p2p" in p.get("comm", {})]
    coll = [p["comm"]["collective"]["time"]["avg"] for p in profiles if "collective" in p.get("comm", {})]
    if not p2p or not coll:
        return None
    p2p_s, coll_s = float(np.median(p2p)), float(np.median(coll))
    return {"compute": seconds - p2p_s - coll_s, "point-to-point": p2p_s, "collectives": coll_s}


def split_parts(profiles: list[dict[str, Any]], serial: dict[str, Any], s: Split) -> dict[str, float] | None:
    """comm_parts of the split's runs of the serial run's problem."""
    runs = _runs_at(profiles, serial, s)
    return comm_parts(runs, float(np.median([_loop_time(p) for p in runs]))) if runs else None


@dataclass(frozen=True)
class Decision:
    """A race a study ran between some of the predicted splits, on the predicted problem."""

    study: str
    verdict: Verdict
    axis: str  # what the verdict's scale counts: cores or nodes

    @property
    def decided(self) -> bool:
        return self.verdict.outcome in ("wins", "tie")

    @property
    def winner(self) -> tuple[int, int, int]:
        """The shape of the split the race chose: its winner, the preferred of a tie, or the leader so far."""
        return self.verdict.shapes[self.verdict.winner]

    def line(self) -> str:
        return self.verdict.race.line(f"measured: the race of study {self.study} at {self.verdict.scale} "
                                      f"{self.axis}")


def decision(studies: list[tuple[str, list[Section]]], serial: dict[str, Any], splits: list[Split]) -> Decision | None:
    """The last race (of the studies in the order given) among two or more of the splits on the serial run's
    problem, replays left out: they are predictions too."""
    wanted = {shape(s) for s in splits}
    found = None
    for name, sections in studies:
        for section in sections:
            runs = [r for p in section.points for r in p.runs if r["profile"]]
            if not runs or not _same_problem(runs[0]["profile"], serial):
                continue
            for v in section.verdicts:
                if not v.simulated and len(v.shapes) > 1 and set(v.shapes.values()) <= wanted:
                    found = Decision(name, v, section.axis)
    return found


def refusal(runs: list[dict[str, Any]], kernel: str) -> tuple[int, str] | None:
    """The fewest threads per rank the program was seen to ignore (stored failed runs whose reason says so), and
    which run showed it; None where none did."""
    refusing = [r for r in runs if r["kernel"] == kernel and r["status"] != "ok"
                and IGNORED_THREADS in _reason(r)]
    if not refusing:
        return None
    first = min(refusing, key=lambda r: r["threads"])
    why = next(line for line in _reason(first).splitlines() if IGNORED_THREADS in line)
    shape = f"{first['ranks']}x{first['threads']}"
    return first["threads"], f"run {first['run_key']} of study {first['study']} ({shape}): {why.strip()}"


def _reason(run: dict[str, Any]) -> str:
    """Why a stored run failed: its one-line reason where the store keeps one, else its standard error."""
    return run.get("reason") or run.get("stderr") or ""
