"""The figures docs quote from SimGrid replays, too slow to remake in a test (`simulate validate` takes minutes):
each command's JSON output is kept in bench/runs/simulated-figures.json with its wall seconds on the machine that
ran it, which `bench/figures.py --refresh` (`make figures`) remakes by running the commands, and the figures are
read from it; `refresh(names)` remakes only those commands (e.g. from bench/: python -c "import figures_simulated;
figures_simulated.refresh(['validate'])"). tests/test_simulate.py checks that `simulate validate --json` still
prints what the file holds. `validate --sensitivity` is kept one outcome a command, each a few minutes here."""

from __future__ import annotations

import datetime
import json
import re
import subprocess
import time
from functools import cache

import common
from hybridperf.files import write_atomic
from hybridperf.predict.outcomes import Holds
from hybridperf.simulate import rules
from hybridperf.simulate.outcome import declared, text

STORED = common.REPO / "bench" / "runs" / "simulated-figures.json"
HYBRIDPERF = [str(common.REPO / ".venv" / "bin" / "hybridperf")]
COMMANDS = {
    "validate": ["simulate", "validate", "--json"],
    "merlin_small": ["recommend", "--by", "simulation", "--cluster", "merlin", "--size", "40", "--steps", "100",
                     "--nodes", "1,2,4", "--json"],
    "stella_16": ["recommend", "--by", "simulation", "--cluster", "stella", "--nodes", "16", "--json"],
    **{f"sensitivity_{d.name}": ["simulate", "validate", "--sensitivity", "--outcome", d.name, "--json"]
       for d in declared()},
}
SENSITIVITY = [name for name in COMMANDS if name.startswith("sensitivity_")]


def refresh(names: list[str] | None = None) -> None:
    """Runs the commands (`names`, or every one: many minutes, SimGrid replays) and keeps each one's output and
    wall seconds; the others' stay as they were."""
    kept = json.loads(STORED.read_text())["commands"] if STORED.exists() else {}
    outputs = {name: kept[name] for name in COMMANDS if name in kept}
    state = common.machine_state()
    for name in names or COMMANDS:
        command = COMMANDS[name]
        print(f"hybridperf {' '.join(command)}", flush=True)
        started = time.monotonic()
        out = subprocess.run(HYBRIDPERF + command, capture_output=True, text=True, cwd=common.REPO)
        if out.returncode:
            raise SystemExit(f"hybridperf {' '.join(command)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
        outputs[name] = {"command": "hybridperf " + " ".join(command), "output": json.loads(out.stdout),
                         "seconds": round(time.monotonic() - started, 1), "hybridperf": state["hybridperf"]}
    document = {"made": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "hybridperf": state["hybridperf"], "commands": {n: outputs[n] for n in COMMANDS if n in outputs}}
    write_atomic(STORED, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    stored.cache_clear()
    print(f"wrote {STORED.relative_to(common.REPO)}")


@cache
def stored() -> dict:
    return json.loads(STORED.read_text())["commands"]


def output(name: str):
    return stored()[name]["output"]


# ---------------------------------------------------------------- simulate validate
# one object per outcome, as resources/data/validate-outcomes.yaml declares it (name, published, rule, tolerance,
# held_out, inputs) with what the simulation gave (simulated, detail, closed_form) and the rule's verdict


def outcomes() -> list[dict]:
    return output("validate")


def outcome(name: str) -> dict:
    [found] = [o for o in outcomes() if o["name"] == name]
    return found


def reproduced(found: list[dict]) -> str:
    return f"{sum(o['reproduced'] for o in found)} of {len(found)}"


def held_out(found: list[dict]) -> str:
    """How many of the reproduced outcomes are held out."""
    return str(sum(o["reproduced"] and o["held_out"] for o in found))


def is_spmv(o: dict) -> bool:
    return o["name"].startswith("spmv")


def is_dlpoly(o: dict) -> bool:
    return o["name"].startswith("dlpoly")


def dlpoly_ratios(name: str, counts: tuple[int, ...]) -> str:
    """t_MPI / t_hybrid of both hybrids at these core counts of a DL_POLY outcome (its detail), lowest–highest."""
    detail = outcome(name)["detail"]
    return span(detail[str(c)][h] for c in counts for h in ("hybrid-1", "hybrid-2"))


def span(values, digits: int = 2) -> str:
    values = list(values)
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if low == high else f"{low}–{high}"


def picked(figures: dict, keys) -> dict:
    """A figure's entries under `keys` (counts, sizes), or all of them where keys is None."""
    return {k: v for k, v in figures.items() if keys is None or int(k) in keys}


def within(name: str, keys=None) -> str:
    """'2 of 5': the figures of a ratio_within outcome (those under `keys`, or all) whose simulated value is within
    its tolerance."""
    o = outcome(name)
    pairs = [pair for k, p in picked(o["published"], keys).items() for pair in rules.values(p, o["simulated"][k])]
    inside = [rules.judge(o["rule"], p, s, o["tolerance"]) for p, s in pairs]
    return f"{sum(inside)} of {len(inside)}"


def simulated_span(name: str, keys=None, configuration: str | None = None, digits: int = 2) -> str:
    """The simulated figures of an outcome (those under `keys`, or all; one configuration's where they are keyed
    by it), lowest–highest."""
    found = picked(outcome(name)["simulated"], keys).values()
    return span((v[configuration] for v in found) if configuration else found, digits)


def hybrid_lead(name: str) -> str:
    """How much faster the faster hybrid is, in whole percent, lowest–highest over the outcome's counts."""
    return span((100 * (r - 1) for r in outcome(name)["detail"].values()), 0) + "%"


def validate_table() -> str:
    lines = ["| claim | source | published | simulated | rule | held out | reproduced | closed-form model |",
             "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {o['claim']} | {o['source']} | {text(o['published'])} | {text(o['simulated'])} | "
              f"{rules.describe(o['rule'], o['tolerance'])} | {'yes' if o['held_out'] else 'no'} | "
              f"{'yes' if o['reproduced'] else 'no'} | {o['closed_form'] or '-'} |" for o in outcomes()]
    return "\n".join(lines) + "\n"


def closed_form(name: str, side: str) -> str:
    text_ = outcome(name)["closed_form"]  # 'hybrid (0.138 s against 0.281)'
    winner, first, second = re.fullmatch(r"(\w+) \(([0-9.]+) s against ([0-9.]+)\)", text_).groups()
    return first if side == winner else second


# ---------------------------------------------------------------- simulate validate --sensitivity
# per outcome, validate's object with `sensitivity`: per assumed input where the rule holds (predict.outcomes.Holds)


def swept() -> list[dict]:
    """Every outcome swept so far, in the declared order."""
    return [output(name)[0] for name in SENSITIVITY if name in stored()]


def holds(h: dict) -> Holds:
    return Holds(**{**h, "range": tuple(h["range"])})


def sensitivity_table() -> str:
    lines = ["| outcome | reproduced | assumed input | nominal | range | rule holds over |", "|---|---|---|---|---|---|"]
    for o in swept():
        for k, h in enumerate(map(holds, o["sensitivity"])):
            verdict = ("yes" if o["reproduced"] else "no") if k == 0 else ""
            lines.append(f"| {o['name'] if k == 0 else ''} | {verdict} | {h.input} | {h.nominal} | "
                         f"×{h.range[0]:g}–×{h.range[1]:g} | {h.text()} |")
    return "\n".join(lines) + "\n"


def steady() -> str:
    """'2 of 4': the reproduced outcomes whose rule holds across every declared range, of the reproduced ones."""
    reproduced = [o for o in swept() if o["reproduced"]]
    return f"{sum(all(h['holds_everywhere'] for h in o['sensitivity']) for o in reproduced)} of {len(reproduced)}"


def rescued() -> str:
    """'0 of 6': the outcomes missed at the nominal inputs whose rule would hold with one assumed input moved within
    its range, of the missed ones."""
    missed = [o for o in swept() if not o["reproduced"]]
    return f"{sum(any(h['holds_from'] is not None for h in o['sensitivity']) for o in missed)} of {len(missed)}"


def sweep_seconds(names: list[str]) -> float:
    return sum(stored()[name]["seconds"] for name in names)


# ---------------------------------------------------------------- recommend --by simulation


def seconds(name: str, nodes: int) -> dict[str, float]:
    answer = next(a for a in output(name)["answers"] if a["nodes"] == nodes)
    return {p["split"]: p["seconds"] for p in answer["predictions"]}


def stella_16() -> dict[str, float]:
    return seconds("stella_16", 16)


def movout(network: str) -> str:
    """The simulated movout ratio, pure MPI / hybrid-1, on one of CSEEM64T's networks."""
    return f"{outcome(f'movout_ratio_{network}')['simulated'][f'cseem64t-{network}']:.2f}"


def movout_parts(network: str) -> str:
    """Each configuration's simulated movout as packing + messages, seconds of the 500 steps."""
    parts = outcome(f"movout_ratio_{network}")["detail"][f"cseem64t-{network}"]
    return "; ".join(f"{k} {p['packing']:.1f} + {p['messages']:.1f} s" for k, p in parts.items())


def networks_parts(name: str) -> str:
    """A movout_networks outcome's configuration: its simulated packing + messages on each network, seconds."""
    parts = outcome(name)["detail"]
    return "; ".join(f"{k.removeprefix('cseem64t-')} {p['packing']:.1f} + {p['messages']:.1f} s" for k, p in parts.items())


def two_times(name: str, key: str) -> str:
    """The two configurations' simulated seconds behind a ratio at `key`: 'pure-mpi 0.121 s, hybrid-1 0.108 s'."""
    return ", ".join(f"{k} {v:.3g} s" for k, v in outcome(name)["detail"][key].items())


def percent_span(name: str) -> str:
    return span((100 * v for v in outcome(name)["simulated"].values()), 1) + "%"


def collective_ms(name: str, configuration: str) -> str:
    """A configuration's simulated collective time per DL_POLY step over the outcome's counts, ms."""
    return span((1e3 * t[configuration] for t in outcome(name)["detail"].values()), 2)


def collective_ratios(name: str) -> str:
    """Both hybrids' simulated collective time per DL_POLY step over pure MPI's, over the outcome's counts."""
    return span((t[k] / t["pure-mpi"] for t in outcome(name)["detail"].values() for k in ("hybrid-1", "hybrid-2")), 2)


def merlin_small_leads() -> str:
    """Pure MPI's lead over the runner-up at 1, 2 and 4 nodes, in whole percent, as a range."""
    leads = [100 * a["margin"] for a in output("merlin_small")["answers"] if a["winner"] == "8r×1t"]
    if len(leads) != len(output("merlin_small")["answers"]):
        return "not at every node count (see `hybridperf recommend --by simulation`)"
    return f"{min(leads):.0f}–{max(leads):.0f}%"


def merlin_small_moved() -> str:
    """Which of the description's assumed figures, halved or doubled, change the answer: 'neither' when none does."""
    moved = [m["input"] for m in output("merlin_small")["sensitivity"]["moves"]
             if any(v["text"] != "–" for v in m["moves"].values())]
    return "neither assumed figure" if not moved else ", ".join(moved)


FIGURES = {
    "simulated.validate_reproduced": lambda: reproduced(outcomes()),
    "simulated.validate_held_out": lambda: held_out(outcomes()),
    "simulated.validate_md_reproduced": lambda: reproduced([o for o in outcomes()
                                                            if not is_spmv(o) and not is_dlpoly(o)]),
    "simulated.validate_dlpoly_reproduced": lambda: reproduced([o for o in outcomes() if is_dlpoly(o)]),
    "simulated.dlpoly_merlin_crossover": lambda: text(outcome("dlpoly_merlin_test20_crossover")["simulated"]),
    "simulated.dlpoly_merlin_ratios": lambda: dlpoly_ratios("dlpoly_merlin_test20_crossover", (256, 512)),
    "simulated.dlpoly_stella_crossover": lambda: text(outcome("dlpoly_stella_test20_crossover")["simulated"]),
    "simulated.dlpoly_stella_ratios": lambda: dlpoly_ratios("dlpoly_stella_test20_crossover", (64, 128)),
    "simulated.validate_spmv_reproduced": lambda: reproduced([o for o in outcomes() if is_spmv(o)]),
    "simulated.movout_infinipath": lambda: movout("infinipath"),
    "simulated.movout_gige": lambda: movout("gige"),
    "simulated.movout_merlin": lambda: " and ".join(f"{v:.2f}"
                                                    for v in outcome("movout_ratio_merlin")["simulated"].values()),
    "simulated.movout_gige_parts": lambda: movout_parts("gige"),
    "simulated.movout_infinipath_parts": lambda: movout_parts("infinipath"),
    "simulated.sum_ratio": lambda: span(outcome("merlin_sum_ratio")["simulated"].values()),
    "simulated.sum_ratio_merlin_times": lambda: two_times("merlin_sum_ratio", "512"),
    "simulated.spmv_256000_mpi": lambda: f"{outcome('spmv_256000_total')['detail']['mpi']:.2f}",
    "simulated.spmv_256000_hybrid": lambda: f"{outcome('spmv_256000_total')['detail']['hybrid']:.2f}",
    "simulated.spmv_256000_ratio": lambda: f"{outcome('spmv_256000_total')['simulated']:.2f}",
    "simulated.spmv_500_e_mp": lambda: span(outcome("spmv_500_e_mp")["simulated"].values()),
    "simulated.spmv_500_e_mp_within": lambda: within("spmv_500_e_mp"),
    "simulated.spmv_32000_e_mp": lambda: span(outcome("spmv_32000_e_mp")["simulated"].values()),
    "simulated.spmv_32000_e_mp_within": lambda: within("spmv_32000_e_mp"),
    "simulated.spmv_256000_e_mp": lambda: span(outcome("spmv_256000_e_mp")["simulated"].values()),
    "simulated.spmv_256000_e_mp_within": lambda: within("spmv_256000_e_mp"),
    "simulated.spmv_500_hybrid": lambda: f"{outcome('spmv_500_total')['detail']['hybrid']:.3f}",
    "simulated.spmv_500_mpi": lambda: f"{outcome('spmv_500_total')['detail']['mpi']:.3f}",
    "simulated.spmv_500_ratio": lambda: f"{outcome('spmv_500_total')['simulated']:.2f}",
    "simulated.closed_form_500_hybrid": lambda: closed_form("spmv_500_total", "hybrid"),
    "simulated.closed_form_500_mpi": lambda: closed_form("spmv_500_total", "mpi"),
    "simulated.dlpoly_allreduce_share": lambda: f"{100 * outcome('dlpoly_allreduce_share')['simulated']:.1f}%",
    "simulated.dlpoly_p2p_share": lambda: f"{100 * outcome('dlpoly_p2p_share')['simulated']:.1f}%",
    "simulated.merlin_hybrid_lead": lambda: hybrid_lead("merlin_hybrid_order"),
    "simulated.cseem64t_hybrid_order": lambda: text(outcome("cseem64t_infinipath_hybrid_order")["simulated"]),
    "simulated.cseem64t_hybrid_lead": lambda: hybrid_lead("cseem64t_infinipath_hybrid_order"),
    "simulated.data_ratio_hybrid_1": lambda: simulated_span("md_data_ratio", configuration="hybrid-1", digits=1),
    "simulated.data_ratio_hybrid_2": lambda: simulated_span("md_data_ratio", configuration="hybrid-2", digits=1),
    "simulated.data_ratio_within": lambda: within("md_data_ratio"),
    "simulated.spmv_e_ni_small": lambda: simulated_span("spmv_e_ni", (500, 4000, 13500), digits=1),
    "simulated.spmv_e_ni_large": lambda: simulated_span("spmv_e_ni", (32000, 62500, 108000, 171500, 256000)),
    "simulated.spmv_e_ni_large_within": lambda: within("spmv_e_ni", (32000, 62500, 108000, 171500, 256000)),
    "simulated.spmv_e_ni_small_within": lambda: within("spmv_e_ni", (500, 4000, 13500)),
    "simulated.movout_networks_pure": lambda: f"{outcome('movout_networks_pure')['simulated']:.2f}",
    "simulated.movout_networks_hybrid1": lambda: f"{outcome('movout_networks_hybrid1')['simulated']:.2f}",
    "simulated.movout_networks_pure_parts": lambda: networks_parts("movout_networks_pure"),
    "simulated.movout_networks_hybrid1_parts": lambda: networks_parts("movout_networks_hybrid1"),
    "simulated.force_overhead": lambda: percent_span("cseem64t_force_overhead"),
    "simulated.integrate_overhead": lambda: percent_span("cseem64t_integrate_overhead"),
    "simulated.sum_ratio_infinipath": lambda: simulated_span("cseem64t_infinipath_sum_ratio"),
    "simulated.sum_ratio_infinipath_times": lambda: two_times("cseem64t_infinipath_sum_ratio", "96"),
    "simulated.sum_ratio_gige": lambda: simulated_span("cseem64t_gige_sum_ratio"),
    "simulated.sum_ratio_gige_times": lambda: two_times("cseem64t_gige_sum_ratio", "96"),
    "simulated.dlpoly_data_per_process": lambda: span(v for c in outcome("dlpoly_test20_data_per_process")["simulated"]
                                                      .values() for v in c.values()),
    "simulated.dlpoly_data_total": lambda: span(v for c in outcome("dlpoly_test20_data_total")["simulated"].values()
                                                for v in c.values()),
    "simulated.dlpoly_collective_crossover": lambda: text(outcome("dlpoly_merlin_test20_collective_crossover")
                                                          ["simulated"]),
    "simulated.dlpoly_collective_pure_ms": lambda: collective_ms("dlpoly_merlin_test20_collective_crossover",
                                                                 "pure-mpi"),
    "simulated.dlpoly_stella_collective_crossover": lambda: text(outcome("dlpoly_stella_test20_collective_crossover")
                                                                 ["simulated"]),
    "simulated.dlpoly_stella_collective_ratios": lambda: collective_ratios("dlpoly_stella_test20_collective_crossover"),
    "simulated.spmv_shared_memory_gain": lambda: simulated_span("spmv_shared_memory_gain"),
    "simulated.spmv_e_ni_switch_small": lambda: simulated_span("spmv_e_ni_switch", (500, 4000, 13500), digits=1),
    "simulated.spmv_e_ni_switch_large": lambda: simulated_span("spmv_e_ni_switch",
                                                               (32000, 62500, 108000, 171500, 256000)),
    "simulated.spmv_e_ni_switch_within": lambda: within("spmv_e_ni_switch"),
    "simulated.merlin_small_leads": merlin_small_leads,
    "simulated.merlin_small_moved": merlin_small_moved,
    "simulated.stella_16_lead": lambda: f"{100 * (stella_16()['1r×8t'] / stella_16()['8r×1t'] - 1):.0f}",
    "simulated.sensitivity_steady": steady,
    "simulated.sensitivity_rescued": rescued,
    "simulated.sensitivity_movout_seconds": lambda: f"{sweep_seconds(['sensitivity_movout_ratio_gige']):.0f}",
    "simulated.sensitivity_minutes": lambda: f"{sweep_seconds(SENSITIVITY) / 60:.0f}",
    "simulated.sensitivity_longest_minutes": lambda: f"{max(stored()[n]['seconds'] for n in SENSITIVITY) / 60:.1f}",
}
BLOCKS = {"validate_outcomes": validate_table, "validate_sensitivity": sensitivity_table}
