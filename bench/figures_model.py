"""The figures docs quote from the models, computed here as `hybridperf recommend` and `hybridperf model dlpoly`
compute them (bench/figures.py marks and checks them): the split model on the thesis's Merlin inputs and its
sensitivity, and eq. 6.10 fitted on DL_POLY's published timings. Milliseconds to a second each; pure."""

from __future__ import annotations

import statistics
from functools import cache

from hybridperf.models import dlpoly, published
from hybridperf.predict.answer import Answer, Recommendation
from hybridperf.predict.question import modelled, NONE, Question, recommendation

WORDS = {0: "none", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@cache
def merlin() -> Recommendation:
    """`hybridperf recommend --cluster merlin --nodes 1,8,64`."""
    q = Question(cluster="merlin", nodes=(1, 8, 64))
    return recommendation(q, modelled(q, NONE))


def move(name: str, nodes: int = 64):
    return merlin().sensitivity[name][nodes]


def winners(q: Question) -> list[Answer]:
    posed = modelled(q, NONE)
    return [posed.predictor.answer(n) for n in posed.counts]


def given_losses() -> str:
    """What `--thread-loss L` gives on Merlin at 1 to 64 nodes (8 to 512 cores), for the losses docs/models.md names."""
    parts, pure = [], []
    for loss in (0, 0.01, 0.02, 0.05):
        answers = winners(Question(cluster="merlin", thread_loss=loss))
        threaded = [a.nodes * 8 for a in answers if a.winner.threads > 1]
        if not threaded:
            pure.append(f"{loss:g}")
        elif threaded[0] == 8 and len(threaded) == len(answers) and all(a.verdict == "tie" for a in answers):
            parts.append(f"{loss:g} a tie within ±2% at every node count, hybrid preferred (fewer ranks)")
        elif threaded[0] == 8 and len(threaded) == len(answers):
            parts.append(f"{loss:g} gives hybrid from the first node")
        else:
            parts.append(f"{loss:g} a crossover at {threaded[0]} cores")
    if pure:
        parts.append(f"{', '.join(pure[:-1])} and {pure[-1]} pure MPI up to 512 cores" if len(pure) > 1
                     else f"{pure[0]} pure MPI up to 512 cores")
    return "; ".join(parts)


def spmv_loss_at_8() -> str:
    """The smallest loss per extra thread at which another split wins, spmv on Merlin at 8 nodes (threads assumed
    lossless)."""
    q = Question(cluster="merlin", kernel="spmv", nodes=(8,))
    return recommendation(q, modelled(q, NONE)).sensitivity["threading loss (1 - e_mt)"][8].text()


def stella_closed_form_lead() -> str:
    """How far 1r×8t is behind 8r×1t by the closed form on Stella at 16 nodes, in whole percent."""
    [answer] = winners(Question(cluster="stella", nodes=(16,)))
    seconds = {(p.split.ranks_per_node, p.split.threads): p.seconds for p in answer.predictions}
    return f"{100 * (seconds[1, 8] / seconds[8, 1] - 1):.0f}"


# ---------------------------------------------------------------- DL_POLY's Table 1, eq. 6.10


@cache
def dlpoly_cases() -> list[dict]:
    points, theirs = dlpoly.load(), dlpoly.thesis_errors()
    out = []
    for cluster, test in dlpoly.cases(points):
        held = dlpoly.evaluate(points, cluster, test, held_out=True)
        fitted = dlpoly.evaluate(points, cluster, test, held_out=False)
        out.append({"cluster": cluster, "test": test, "held": held.median_hybrid_error(True),
                    "in": fitted.median_hybrid_error(),
                    "thesis": statistics.median(v for (c, t, conf, _), v in theirs.items()
                                                if (c, t) == (cluster, test) and conf != "pure-mpi"),
                    "cross_held": held.crossover(True), "cross_in": fitted.crossover(True),
                    "published": held.crossover(False)})
    return out


def dlpoly_table() -> str:
    lines = ["| cluster | test | median error, held out | in-sample | the thesis's (in-sample) | crossover, held out "
             "| in-sample | published |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for c in dlpoly_cases():
        lines.append(f"| {c['cluster']} | {c['test']} | {c['held']:.1f}% | {c['in']:.1f}% | {c['thesis']:.1f}% | "
                     + " | ".join(str(c[k] or "none") for k in ("cross_held", "cross_in", "published")) + " |")
    return "\n".join(lines) + "\n"


def _within_doubling(key: str) -> list[dict]:
    return [c for c in dlpoly_cases() if c[key] and c["published"] and dlpoly.steps_apart(c[key], c["published"]) <= 1]


def _held_worse() -> list[dict]:
    return [c for c in dlpoly_cases() if c["held"] > c["thesis"]]


def _exceptions(chosen: list[dict]) -> str:
    return ", ".join(f"{c['cluster']} {c['test']}" for c in dlpoly_cases() if c not in chosen)


def _of_six(chosen: list[dict]) -> str:
    """'all six', or 'four of the six'."""
    n, total = len(chosen), len(dlpoly_cases())
    return f"all {WORDS[total]}" if n == total else f"{WORDS[n]} of the {WORDS[total]}"


def _crossovers(chosen: list[dict]) -> str:
    """'every crossover', or 'four crossovers'."""
    return "every crossover" if len(chosen) == len(dlpoly_cases()) else f"{WORDS[len(chosen)]} crossovers"


@cache
def what_if() -> dict[int, dlpoly.WhatIf]:
    return {w.cores: w for w in dlpoly.future_what_if(dlpoly.load())}


def gap(cores: int, when: str) -> float:
    w = getattr(what_if()[cores], when)
    return w["hybrid-1"] - w["pure-mpi"]


FIGURES = {
    "model.merlin_work_ns": lambda: f"{1e9 * published.merlin_md_seconds_per_atom_step():.0f}",
    "model.merlin_emt_8": lambda: f"{dict(published.merlin_thread_efficiency()[0])[8]:.3f}",
    "model.merlin_emt_4": lambda: f"{dict(published.merlin_thread_efficiency()[0])[4]:.3f}",
    "model.merlin_loss_fold": lambda: f"{1 / move('threading loss (1 - e_mt)').down:.1f}",
    "model.merlin_inter_bandwidth_fold": lambda: f"{move('time per byte between nodes').up:.1f}",
    "model.merlin_intra_bandwidth_fold": lambda: f"{move('time per byte within a node').up:.1f}",
    "model.merlin_given_losses": given_losses,
    "model.spmv_merlin_loss_8": spmv_loss_at_8,
    "model.stella_16_closed_form_lead": stella_closed_form_lead,
    "model.dlpoly_held_out_range": lambda: f"{min(c['held'] for c in dlpoly_cases()):.0f}–"
                                           f"{max(c['held'] for c in dlpoly_cases()):.0f}",
    "model.dlpoly_held_out_worse": lambda: WORDS[len(_held_worse())],
    "model.dlpoly_held_out_not_worse": lambda: _exceptions(_held_worse()),
    "model.dlpoly_in_sample_better": lambda: _of_six([c for c in dlpoly_cases() if c["in"] < c["thesis"]]),
    "model.dlpoly_held_out_crossovers_near": lambda: _crossovers(_within_doubling("cross_held")),
    "model.dlpoly_held_out_crossovers_exact": lambda: WORDS[sum(c["cross_held"] == c["published"]
                                                                for c in dlpoly_cases())],
    "model.dlpoly_held_out_no_crossover": lambda: ", ".join(f"{c['cluster']} test {c['test']}" for c in dlpoly_cases()
                                                            if c["cross_held"] is None) or "none",
    "model.dlpoly_in_sample_crossovers_near": lambda: _crossovers(_within_doubling("cross_in")),
    "model.future_gap_16": lambda: f"{gap(16, 'future'):.0f}",
    "model.future_gap_16_now": lambda: f"{gap(16, 'now'):.0f}",
    "model.future_gap_1024": lambda: f"{-gap(1024, 'future'):.0f}",
    "model.future_gap_1024_now": lambda: f"{-gap(1024, 'now'):.0f}",
}
BLOCKS = {"dlpoly_accuracy": dlpoly_table}
