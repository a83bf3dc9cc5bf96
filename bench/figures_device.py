"""The figures docs quote from the 16-core machine lent for a day (2026-11-23 and 26): made here from what came back,
kept in bench/runs/device/ — the studies' stores (read by `hybridperf report --json` and `results export --csv`),
the simulations' tables made from them, the calibration's profiles (priced by the split model as on 16 cores) and
`hybridperf compare`'s printed table. bench/figures.py marks and checks them; a second or two each."""

from __future__ import annotations

import atexit
import csv
import json
import re
import shutil
import statistics
import tarfile
import tempfile
from functools import cache
from pathlib import Path

from typer.testing import CliRunner

import common
from hybridperf.cli.app import app
from hybridperf.predict.answer import Recommendation
from hybridperf.predict.question import modelled, Question, recommendation

DEVICE = common.REPO / "bench" / "runs" / "device"


def _hybridperf(*args: str) -> str:
    """The command's output, run in this process (typer's runner): a second of start-up saved per call, which
    the pages' figures make dozens of."""
    result = CliRunner().invoke(app, list(args))
    if result.exit_code != 0:
        raise RuntimeError(f"hybridperf {' '.join(args)} failed ({result.exit_code}): {result.output[-2000:]}")
    return result.stdout


@cache
def unpacked(archive: str) -> Path:
    """The archive's contents (a file of bench/runs/device/, or a path) in a folder of their own, removed when the
    process ends."""
    folder = Path(tempfile.mkdtemp(prefix="hybridperf-figures-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    with tarfile.open(DEVICE / archive) as tar:
        tar.extractall(folder, filter="data")
    return folder


@cache
def report(archive: str, results: str) -> dict:
    return json.loads(_hybridperf("report", str(unpacked(archive) / results), "--json"))


def scale(archive: str, results: str, where: dict, cores: int) -> dict:
    section = next(s for s in report(archive, results)["sections"] if where.items() <= s["params"].items())
    return next(s for s in section["scales"] if s["cores"] == cores)


def percent(ratio: float) -> str:
    return f"{100 * (ratio - 1):.0f}%"


def lead(found: dict) -> str:
    """'41% [21%, 194%]': how much longer the runner-up took, with the race's interval (unbounded: too few blocks)."""
    runner = found["lead"]
    if runner["low"] is None or runner["high"] is None:
        return f"{percent(runner['ratio'])} (unbounded)"
    return f"{percent(runner['ratio'])} [{percent(runner['low'])}, {percent(runner['high'])}]"


# ---------------------------------------------------------------- the main job (studies/local.yaml) on 16 cores

LOCAL = ("local-16core-results.tgz", "r")


def local_blocks() -> str:
    blocks = sorted({scale(*LOCAL, {"size": s}, 16)["blocks"] for s in (20, 32)})
    return " and ".join(map(str, blocks))


# ---------------------------------------------------------------- DL_POLY's tests on 16 cores, measured and simulated

DLPOLY = ("dlpoly-tests-16core-results.tgz", "r/dlpoly")
TESTS = {"Fe": {"elements": "Fe"}, "SiC": {"elements": "Si,C"}, "CuAu": {"elements": "Cu,Au"}}


def dlpoly_outcome() -> str:
    """The races' outcome at 16 cores, one word when the three tests agree."""
    words = {scale(*DLPOLY, where, 16)["outcome"] for where in TESTS.values()}
    return " / ".join(sorted(words))


def dlpoly_lead(test: str) -> str:
    """Pure MPI's lead over the runner-up at 16 cores (the runner-up's median over the leader's)."""
    found = scale(*DLPOLY, TESTS[test], 16)
    return f"{100 * (found['lead']['ratio'] - 1):.1f}%"


@cache
def exported(archive: str, results: str) -> list[dict]:
    """The store's successful runs, one row each (`hybridperf results export --csv`)."""
    path = unpacked(archive) / f"{results.replace('/', '-')}.csv"
    _hybridperf("results", "export", str(unpacked(archive) / results), "--csv", str(path))
    return [r for r in csv.DictReader(path.open()) if r["status"] == "ok"]


def dlpoly_runs() -> list[dict]:
    return exported(*DLPOLY)


def fe_region(configuration: str, *regions: str) -> str:
    """The median over Fe's 16-core repeats of each region's time (the slowest rank's), summed, in seconds."""
    runs = [r for r in dlpoly_runs() if r["param.elements"] == "Fe" and r["cores"] == "16"
            and r["configurations"] == configuration]
    return f"{sum(statistics.median(float(r[f'region.{n}.max']) for r in runs) for n in regions):.2f}"


def simulated_over_measured() -> str:
    """The range of simulated / measured loop time (the median repeat) over the three tests' 16-core splits."""
    measured: dict[tuple, list[float]] = {}
    for r in dlpoly_runs():
        measured.setdefault((r["param.elements"], r["configurations"], r["cores"]), []).append(float(r["loop_time"]))
    ratios = [float(r["loop_time"]) / statistics.median(measured[key])
              for r in csv.DictReader((DEVICE / "dlpoly-tests-16core-on-cluster-16core.csv").open())
              if (key := (r["param.elements"], r["configurations"], r["cores"])) in measured]
    return f"{min(ratios):.2f}–{max(ratios):.2f}"


@cache
def moves(cluster: str) -> list[dict]:
    """The simulated winners on a cluster and the moves that change them (simulate SPEC --sensitivity's table)."""
    return list(csv.DictReader((DEVICE / f"dlpoly-tests-16core-on-{cluster}-sensitivity.csv").open()))


def points(cluster: str, elements: str) -> list[dict]:
    return [p for p in moves(cluster) if p["params"].startswith(f"elements={elements},")]


def margin(cluster: str, elements: str, cores: int) -> str:
    return f"{100 * float(next(p for p in points(cluster, elements) if int(p['cores']) == cores)['margin']):.0f}%"


def fe_hybrid_leads(cluster: str) -> list[str]:
    return [f"{100 * float(p['margin']):.1f}%" for p in points(cluster, "Fe") if p["winner"] == "hybrid-2"
            and int(p["cores"]) >= 128]


def fe_tie_margin() -> str:
    """The largest lead, on either cluster, among the Fe points below 128 cores."""
    below = [float(p["margin"]) for c in ("merlin", "stella") for p in points(c, "Fe") if int(p["cores"]) < 128]
    return f"{100 * max(below):.1f}%"


def fe_changed(cluster: str) -> str:
    """The Fe core counts whose winner some move changes: '16–64' when they are consecutive, else '16 and 64'."""
    counts = [int(p["cores"]) for p in points(cluster, "Fe")
              if any(p[k] != "–" for k in p if k not in ("params", "cores", "winner", "runner_up", "margin"))]
    every = [int(p["cores"]) for p in points(cluster, "Fe")]
    if counts == every[every.index(counts[0]):every.index(counts[-1]) + 1] and len(counts) > 2:
        return f"{counts[0]}–{counts[-1]}"
    return ", ".join(map(str, counts[:-1])) + f" and {counts[-1]}"


def check_serial_range() -> str:
    """The loop time of the 1 x 1 md runs over their repeats, in the 16-core node's simulator-check store."""
    times = [float(r["loop_time"]) for r in exported("simulator-check-16core-results.tgz", "r/md")
             if r["ranks"] == r["threads"] == "1"]
    return f"{min(times):.1f} to {max(times):.1f}"


# ---------------------------------------------------------------- the calibrated model and the race on 16 cores


@cache
def calibrated() -> Recommendation:
    """`hybridperf recommend --calibration DIR` on the 16-core node's calibration, priced for that node's 16 cores
    (the calibration's widest run's)."""
    from hybridperf.predict.holdings import calibration_of

    cal = calibration_of(unpacked("compare-calibration-16core.tgz") / "cal")
    q = Question(cluster="this", size=None)
    return recommendation(q, modelled(q, cal), cal)


def predicted() -> dict[str, float]:
    """Seconds per split ('16×1') the calibrated model predicts on one node."""
    [answer] = calibrated().answers
    return {f"{p.split.ranks_per_node}×{p.split.threads}": p.seconds for p in answer.predictions}


@cache
def compared() -> tuple[dict[str, float], str]:
    """The median loop time per split and the verdict line of `hybridperf compare` on the node, as it printed them."""
    text = (DEVICE / "compare-md-s32-16core.txt").read_text()
    medians = {m[1].replace("x", "×"): float(m[2]) for m in re.finditer(r"│ (\d+x\d+)\s+│ ([0-9.]+) │", text)}
    return medians, next(line for line in text.splitlines() if line.startswith("md -s 32"))


def below_measured() -> str:
    """How far each predicted time lies below the measured median, as a range of whole percent."""
    medians, _ = compared()
    gaps = [100 * (1 - seconds / medians[split]) for split, seconds in predicted().items()]
    return f"{min(gaps):.0f}–{max(gaps):.0f}%"


def _split_x(name: str) -> str:
    return name.replace("x", "×")


def race(field: str) -> str:
    _, line = compared()
    found = re.search(r"after (?P<blocks>\d+) blocks — (?P<leader>\S+) leads, (?P<second>\S+) (?P<lead>[+-][0-9.]+%) "
                      r"\[(?P<low>[^,]+), (?P<high>[^\]]+)\]; about (?P<needed>\d+) blocks", line)
    return found[field].replace("-", "−")


FIGURES = {
    "device.local_blocks": local_blocks,
    "device.local_lead_32000": lambda: lead(scale(*LOCAL, {"size": 20}, 16)),
    "device.local_lead_131072": lambda: lead(scale(*LOCAL, {"size": 32}, 16)),
    "device.dlpoly_outcome": dlpoly_outcome,
    "device.dlpoly_lead_fe": lambda: dlpoly_lead("Fe"),
    "device.dlpoly_lead_sic": lambda: dlpoly_lead("SiC"),
    "device.dlpoly_lead_cuau": lambda: dlpoly_lead("CuAu"),
    "device.fe_force_h1": lambda: fe_region("hybrid-1", "force"),
    "device.fe_force_pure": lambda: fe_region("pure-mpi", "force"),
    "device.fe_force_reduction_h1": lambda: fe_region("hybrid-1", "force_reduction"),
    "device.fe_exchanges_pure": lambda: fe_region("pure-mpi", "density_exchange", "force_exchange"),
    "device.dlpoly_simulated_over_measured": simulated_over_measured,
    "device.fe_tie_margin": fe_tie_margin,
    "device.fe_merlin_leads": lambda: ", ".join(fe_hybrid_leads("merlin")),
    "device.fe_stella_lead": lambda: ", ".join(fe_hybrid_leads("stella")),
    "device.sic_gap_8": lambda: margin("merlin", "Si,C", 8),
    "device.sic_gap_512": lambda: margin("merlin", "Si,C", 512),
    "device.cuau_gap_8": lambda: margin("merlin", "Cu,Au", 8),
    "device.cuau_gap_512": lambda: margin("merlin", "Cu,Au", 512),
    "device.fe_changed_merlin": lambda: fe_changed("merlin"),
    "device.fe_changed_stella": lambda: fe_changed("stella"),
    "device.check_serial_range": check_serial_range,
    "device.calibrated_lead": lambda: f"{100 * calibrated().answers[0].margin:.1f}%",
    "device.calibrated_draws": lambda: f"{100 * calibrated().answers[0].confidence:.0f}%",
    "device.calibrated_order": lambda: ", ".join(sorted(predicted(), key=predicted().get)),
    "device.compare_medians": lambda: ", ".join(f"{s} {t:.3f}{' s' if i == 0 else ''}" for i, (s, t) in
                                                enumerate(sorted(compared()[0].items(), key=lambda kv: kv[1]))),
    "device.compare_blocks": lambda: race("blocks"),
    "device.compare_lead": lambda: f"{_split_x(race('second'))} {race('lead')} [{race('low')}, {race('high')}] behind "
                                   f"{_split_x(race('leader'))}",
    "device.compare_needed": lambda: race("needed"),
    "device.calibrated_below_measured": below_measured,
}
