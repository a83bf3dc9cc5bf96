"""`hybridperf model dlpoly`'s tables: the overall runtime model (eq. 6.10) on the published DL_POLY timings
(models.dlpoly): the summary of every case, with --verbose each fit's parameters and each point's prediction, and
with --future the thesis's what-if. Pure."""

from __future__ import annotations

import statistics

from hybridperf.models.dlpoly import Evaluation, WhatIf
from hybridperf.report.tables import Table


def summary(cases: list[tuple[Evaluation, Evaluation]], published: dict[tuple, float]) -> Table:
    """Per cluster and test (held out, in-sample): the median error of the hybrids' totals held out, in-sample and as
    the thesis published it (`published`: dlpoly.thesis_errors()), and the crossover core count held out, in-sample
    and measured."""
    rows = []
    for held, fitted in cases:
        theirs = statistics.median(v for (c, t, conf, _), v in published.items()
                                   if (c, t) == (held.cluster, held.test) and conf != "pure-mpi")
        rows.append([held.cluster, str(held.test), f"{held.median_hybrid_error(True):.1f}%",
                     f"{fitted.median_hybrid_error():.1f}%", f"{theirs:.1f}%", str(held.crossover(True) or "none"),
                     str(fitted.crossover(True) or "none"), str(held.crossover(False) or "none")])
    return ("DL_POLY Table 1, eq. 6.10: median error of the hybrid (H1, H2) totals",
            ["cluster", "test", "held out", "in-sample", "thesis", "crossover held out", "in-sample", "published"],
            rows)


def parameters(ev: Evaluation) -> Table:
    """The parameters of both stages of one fit, each estimate with its standard error and that as a percentage."""
    rows = [[name, f"{v['estimate']:.5g}", f"{v['error']:.3g}", f"{v['percent']:.1f}%"]
            for fit in (ev.stage1, ev.stage2) for name, v in fit.as_dict().items()]
    return f"{ev.cluster} test {ev.test}, {ev.kind}: parameters", ["parameter", "estimate", "± SE", "% error"], rows


def predictions(ev: Evaluation) -> Table:
    """Per point of one fit: measured and predicted seconds, the prediction's band and error, whether the
    measurement is inside the band and whether the point was fitted or held out."""
    rows = [[r.point.configuration, str(r.point.cores), f"{r.point.seconds:.4g}", f"{r.predicted:.4g}",
             f"{r.low:.4g} – {r.high:.4g}", f"{r.error:.1f}", "yes" if r.inside else "no",
             "fitted" if r.trained else "held out"] for r in ev.rows]
    return (f"{ev.cluster} test {ev.test}, {ev.kind}: predicted vs measured",
            ["configuration", "cores", "measured", "predicted", "band", "% error", "in band", "point"], rows)


def what_if(found: list[WhatIf]) -> Table:
    """Per core count (dlpoly.future_what_if): pure MPI's and hybrid-1's predicted seconds and hybrid-1 minus pure
    MPI, on the machine measured and on the hypothetical one."""
    rows = [[str(w.cores), *(f"{v:.4g}" for v in (w.now["pure-mpi"], w.now["hybrid-1"],
                                                   w.now["hybrid-1"] - w.now["pure-mpi"], w.future["pure-mpi"],
                                                   w.future["hybrid-1"], w.future["hybrid-1"] - w.future["pure-mpi"]))]
            for w in found]
    return ("The thesis's what-if, Merlin test 20 (eq. 6.10 fitted in-sample): predicted seconds, and hybrid-1 minus "
            "pure MPI", ["cores", "pure MPI now", "hybrid-1 now", "gap now", "pure MPI future", "hybrid-1 future",
                         "gap future"], rows)
