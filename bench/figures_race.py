"""The racing rule's error rates docs/study-spec.md states, measured on seeded synthetic races by the method
tests/test_race.py asserts with (analysis.synthetic: each run's time the candidate's true time × e^(noise·ε),
raced by analysis.race's Racer).
10,000 races a scenario take about a minute in all, so `bench/figures.py --refresh` (`make figures`) measures them
into bench/runs/race-error-rates.json and the figures are read from it. Also the main job run again and again
(bench/demo_repeat.py's kept stores): each run's outcome per scale, and whether two runs contradict each other."""

from __future__ import annotations

import datetime
import json
import statistics
import tarfile
from functools import cache

import common
import replay_races
import run_noise
from demo_repeat import answers, contradictions
from figures_device import report
from hybridperf.analysis import synthetic
from hybridperf.analysis.confseq import ranks
from hybridperf.analysis.race import Rule
from hybridperf.files import write_atomic

STORED = common.REPO / "bench" / "runs" / "race-error-rates.json"
RACES, SEED = 10_000, 1
INTERVALS = ("both", "huber", "sign")  # the default confidence sequence, its two parts alone (sign: the one it replaced)
# (the table's row, true times, noise per run, the tie band, what else moves the runs, a note on the outcome)
SCENARIOS = [
    ("equal, 2 candidates, 3%", [1.0, 1.0], 0.03, 0.03, {}, ""),
    ("equal, 2 candidates, 1.5%", [1.0, 1.0], 0.015, 0.02, {}, ""),
    ("equal, 3 candidates, 3%", [1.0, 1.0, 1.0], 0.03, 0.03, {}, ""),
    ("equal, 2 candidates, 3% heavy-tailed (Student t, 3 dof)", [1.0, 1.0], 0.03, 0.03, {"heavy": True}, ""),
    ("equal, 3%, one run in six 30% slow", [1.0, 1.0], 0.03, 0.03, {"slow": 1 / 6}, ""),
    ("5% lead, 3%", [1.0, 1.05], 0.03, 0.03, {}, ""),
    ("5% and 10% behind the fastest, 3%", [1.0, 1.05, 1.10], 0.03, 0.03, {}, ""),
    ("5% lead, 3%, and a 10% drift shared by each block", [1.0, 1.05], 0.03, 0.03, {"drift": 0.10},
     "pairing cancels the drift"),
    ("5% lead, 3%, one run in six 30% slow", [1.0, 1.05], 0.03, 0.03, {"slow": 1 / 6}, ""),
    ("3% lead, 1.5%", [1.0, 1.03], 0.015, 0.02, {}, ""),
    ("1% lead (inside the band), 3%", [1.0, 1.01], 0.03, 0.03, {}, ""),
    ("1% lead (inside the band), 0.5%", [1.0, 1.01], 0.005, 0.02, {}, "either is right"),
]


def rule(tie_within: float, interval: str) -> Rule:
    """The rule a row races by: the defaults (90%, 3-40 blocks) with the row's band and confidence sequence."""
    return Rule(tie_within=tie_within, budget=None, interval=interval)


def refresh() -> None:
    rows = []
    for label, true, noise, band, moves, _ in SCENARIOS:
        for interval in INTERVALS:
            print(f"races: {label}, {interval}", flush=True)
            ends, blocks = synthetic.races(true, noise, rule(band, interval), n=RACES, seed=SEED, **moves)
            rows.append({"scenario": label, "interval": interval, "tie_within": band, "ends": ends,
                         "mean_blocks": blocks})
    document = {"made": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "hybridperf": common.machine_state()["hybridperf"], "races": RACES, "seed": SEED, "rows": rows}
    write_atomic(STORED, json.dumps(document, indent=1) + "\n")
    stored.cache_clear()
    print(f"wrote {STORED.relative_to(common.REPO)}")


@cache
def stored() -> dict[tuple[str, str], dict]:
    return {(r["scenario"], r["interval"]): r for r in json.loads(STORED.read_text())["rows"]}


def share(label: str, key: str, interval: str = "both") -> float:
    """Per cent of the scenario's races that ended `key` ('wins' counts a win by any candidate)."""
    ends = stored()[label, interval]["ends"]
    return 100 * sum(v for k, v in ends.items() if k == key or (key == "wins" and k.startswith("wins")))


def pct(value: float) -> str:
    return f"{value:.1f}%"


def outcomes(label: str, true: list[float], note: str, interval: str) -> str:
    """'tie 92.3%, wins 3.5% (either), undecided 4.2%' or 'the faster wins 99.9%, undecided 0.1%'."""
    parts = []
    if len(set(true)) == 1:
        parts.append(f"wins {pct(share(label, 'wins', interval))}" + (" (either)" if len(true) == 2 else ""))
    else:
        parts.append(f"the {'faster' if len(true) == 2 else 'fastest'} wins {pct(share(label, 'wins c0', interval))}")
        wrong = share(label, "wins", interval) - share(label, "wins c0", interval)
        if f"{wrong:.1f}" != "0.0":
            parts.append(f"**the slower wins {pct(wrong)}**")
    parts += [f"{key} {pct(share(label, key, interval))}" for key in ("tie", "undecided")
              if pct(share(label, key, interval)) != "0.0%"]
    return ", ".join(parts) + (f" ({note})" if note and interval == INTERVALS[0] else "")


def table() -> str:
    lines = ["| true difference, noise per run | band | both (the default): outcomes | blocks | huber alone | blocks | "
             "sign alone | blocks |", "|---|---|---|---|---|---|---|---|"]
    for label, true, _, band, _, note in SCENARIOS:
        cells = [f"{outcomes(label, true, note, i)} | {stored()[label, i]['mean_blocks']:.1f}" for i in INTERVALS]
        lines.append(f"| {label} | ±{100 * band:g}% | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def first_bounded(candidates: int) -> str:
    """The fewest blocks after which the sign sequence's interval between two of `candidates` is bounded."""
    alpha = Rule().pair_alpha(candidates)
    return str(next(n for n in range(1, 1000) if ranks(n, alpha)[0] >= 1 and ranks(n, alpha)[1] <= n))


DEMO_CAMPAIGNS = {"quiet": "demo_repeat-20261126T162944.tgz",  # bench/demo_repeat.py's kept archives, by machine
                  "loaded": "demo_repeat-20261126T154756.tgz",  # beside a helper's SimGrid replays (±10% then)
                  "latest": "demo_repeat-20261205T013047.tgz",  # the main job at ±3% (issue 41), five runs in a row
                  "hogged": "demo_repeat-20261205T013815.tgz"}  # ... beside a process that keeps one core busy


@cache
def demo_reports(campaign: str) -> list[dict]:
    """`hybridperf report --json` of each run of a bench/demo_repeat.py archive, in order."""
    archive = common.RUNS / DEMO_CAMPAIGNS[campaign]
    with tarfile.open(archive) as tar:
        runs = sorted({name.split("/")[0] for name in tar.getnames()}, key=lambda n: int(n.split("-")[1]))
    return [report(str(archive), run) for run in runs]


def demo_repeat(campaign: str) -> tuple[list[dict], list[str]]:
    """Each run's answers per (parameters, scale), and the contradictions between runs."""
    found = [answers(r) for r in demo_reports(campaign)]
    return found, contradictions(found)


def demo_load(campaign: str) -> str:
    """The range of the 1-minute load average before each run: what else the machine was doing."""
    loads = [r["campaign"]["machine"]["load_average"][0] for r in demo_reports(campaign)]
    return f"{min(loads):.1f}–{max(loads):.1f}"


def demo_outcomes(campaign: str) -> str:
    """'size 20 at 2 cores: tie, tie, tie; size 32 at 2 cores: tie, hybrid-1 wins, tie' (the 1-core baseline left
    out)."""
    found, _ = demo_repeat(campaign)
    said = {key: [run[key] for run in found] for key in found[0] if key[1] > 1}
    return "; ".join(f"size {json.loads(params)['size']} at {cores} cores: " + ", ".join(
        f"{a['winner']} wins" if a["outcome"] == "wins" else a["outcome"] for a in answers_at)
        for (params, cores), answers_at in said.items())


def _lead(scale: dict) -> str:
    """'+1.7% [−0.3%, +2.8%]': the runner-up's time over the leader's, as the report's JSON gives it."""
    lead = scale["lead"]
    if not lead or lead["ratio"] is None:
        return "–"
    bounds = "(unbounded)" if lead["low"] is None or lead["high"] is None else \
        f"[{100 * (lead['low'] - 1):+.1f}%, {100 * (lead['high'] - 1):+.1f}%]"
    return f"{100 * (lead['ratio'] - 1):+.1f}% {bounds}"


def demo_table(campaign: str) -> str:
    """Each run of the campaign, each raced scale: its outcome in its own word, the lead with its interval, the
    blocks, the band; and the run's wall time."""
    record = json.loads((common.RUNS / DEMO_CAMPAIGNS[campaign]).with_suffix(".json").read_text())
    lines = ["| run | wall time | " + " | ".join(f"size {s['params']['size']}, {s['scales'][-1]['cores']} cores"
                                                 for s in demo_reports(campaign)[0]["sections"]) + " |",
             "|---|---|" + "---|" * len(demo_reports(campaign)[0]["sections"])]
    for k, (doc, wall) in enumerate(zip(demo_reports(campaign), record["wall_seconds"]), 1):
        cells = []
        for section in doc["sections"]:
            scale = section["scales"][-1]
            band = f"±{100 * scale['tie_within']:g}%"
            word = {"wins": f"{scale['winner']} wins", "tie": f"tie within {band}"}.get(
                scale["outcome"], f"{scale['outcome']} (band {band})")
            cells.append(f"{word}: {_lead(scale)}, {scale['blocks']} blocks")
        lines.append(f"| {k} | {wall:.0f} s | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def demo_noise(campaign: str) -> str:
    """'size 20: ±1.4%, size 32: ±0.6%': per size, the median over the campaign's runs of the pair noise at the
    node's cores (the robust spread of the paired log ratios the report gives)."""
    by_size: dict[int, list[float]] = {}
    for doc in demo_reports(campaign):
        for section in doc["sections"]:
            noise = section["scales"][-1]["noise"]["pair_spread"]
            if noise is not None:
                by_size.setdefault(section["params"]["size"], []).append(noise)
    return ", ".join(f"size {size}: ±{100 * statistics.median(v):.1f}%" for size, v in sorted(by_size.items()))


COMPARE_S20 = "compare_md_s20-20261205T014631.tgz"  # `hybridperf compare md --splits 2x1,1x2 --tie-within 2%
# --budget 100s -s 20 --steps 50`, three times in a row on this machine (2026-12-05)


def compare_s20() -> str:
    """'1x2 wins, 2x1 +1.9% [+0.5%, +3.0%] (15 blocks); ...': each of the three compares' answer."""
    out = []
    for run in ("r1", "r2", "r3"):
        scale = report(str(common.RUNS / COMPARE_S20), run)["sections"][0]["scales"][0]
        word = f"{scale['winner']} wins" if scale["outcome"] == "wins" else scale["outcome"]
        out.append(f"{word}, {scale['lead']['candidate']} {_lead(scale)} ({scale['blocks']} blocks)")
    return "; ".join(out)


def demo_walls(campaign: str) -> str:
    walls = json.loads((common.RUNS / DEMO_CAMPAIGNS[campaign]).with_suffix(".json").read_text())["wall_seconds"]
    return f"{min(walls):.0f}–{max(walls):.0f} s"


FIGURES = {
    "race.first_bounded_2": lambda: first_bounded(2),
    "race.first_bounded_3": lambda: first_bounded(3),
    "race.races": lambda: f"{json.loads(STORED.read_text())['races']:,}",
    "race.equal_tie": lambda: pct(share("equal, 2 candidates, 3%", "tie")),
    "race.equal_tie_sign": lambda: pct(share("equal, 2 candidates, 3%", "tie", "sign")),
    "race.equal_tie_huber": lambda: pct(share("equal, 2 candidates, 3%", "tie", "huber")),
    "race.equal_wins": lambda: pct(share("equal, 2 candidates, 3%", "wins")),
    "race.quiet_tie": lambda: pct(share("equal, 2 candidates, 1.5%", "tie")),
    "race.lead_found": lambda: pct(share("5% lead, 3%", "wins c0")),
    "race.lead_blocks": lambda: f"{stored()['5% lead, 3%', 'both']['mean_blocks']:.0f}",
    "race.lead_found_slow": lambda: f"{share('5% lead, 3%, one run in six 30% slow', 'wins c0'):.0f}%",
    "race.lead_found_slow_sign": lambda: f"{share('5% lead, 3%, one run in six 30% slow', 'wins c0', 'sign'):.0f}%",
    "race.demo_latest_contradictions": lambda: str(len(demo_repeat("latest")[1])),
    "race.demo_hogged_contradictions": lambda: str(len(demo_repeat("hogged")[1])),
    "race.demo_hogged_load": lambda: demo_load("hogged"),
    "race.demo_hogged_outcomes": lambda: demo_outcomes("hogged"),
    "race.slower_wins": lambda: pct(share("1% lead (inside the band), 3%", "wins")
                                    - share("1% lead (inside the band), 3%", "wins c0")),
}
def run_noise_table() -> str:
    """bench/run_noise.py's latest run file, as its table."""
    latest = sorted(common.RUNS.glob("run_noise-*.json"))[-1]
    document = json.loads(latest.read_text())
    return run_noise.table(document["rows"], document["band"]) + "\n"


def replay_table() -> str:
    return replay_races.table(list(replay_races.every()), "the same rule, interval both")


def replay_summary(key: str) -> str:
    return str(replay_races.summary(list(replay_races.every()))[key])


FIGURES.update({f"race.replay_{key}": (lambda key=key: replay_summary(key)) for key in (
    "races", "declared_decided", "other_decided", "both_decided", "declared_blocks", "other_blocks",
    "contradictions")})
FIGURES.update({"race.demo_latest_walls": lambda: demo_walls("latest"), "race.compare_s20": compare_s20,
                **{f"race.demo_{c}_noise": (lambda c=c: demo_noise(c)) for c in ("quiet", "loaded", "latest")}})
BLOCKS = {"race_error_rates": table, "run_noise": run_noise_table, "replay_races": replay_table,
          "demo_latest": lambda: demo_table("latest")}
