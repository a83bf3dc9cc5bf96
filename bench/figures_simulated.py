"""The figures docs quote from SimGrid replays, too slow to remake in a test (`simulate validate` takes minutes):
each command's JSON output is kept in bench/runs/simulated-figures.json, which `bench/figures.py --refresh`
(`make figures`) remakes by running the commands, and the figures are read from it. tests/test_simulate.py
checks that `simulate validate --json` still prints what the file holds."""

from __future__ import annotations

import datetime
import json
import re
import subprocess
from functools import cache

import common
from hybridperf.files import write_atomic

STORED = common.REPO / "bench" / "runs" / "simulated-figures.json"
HYBRIDPERF = [str(common.REPO / ".venv" / "bin" / "hybridperf")]
COMMANDS = {
    "validate": ["simulate", "validate", "--json"],
    "merlin_small": ["recommend", "--by", "simulation", "--cluster", "merlin", "--size", "40", "--steps", "100",
                     "--nodes", "1,2,4", "--json"],
    "stella_16": ["recommend", "--by", "simulation", "--cluster", "stella", "--nodes", "16", "--json"],
}


def refresh() -> None:
    """Runs every command and keeps its output (minutes: SimGrid replays)."""
    outputs = {}
    for name, command in COMMANDS.items():
        print(f"hybridperf {' '.join(command)}", flush=True)
        out = subprocess.run(HYBRIDPERF + command, capture_output=True, text=True, cwd=common.REPO)
        if out.returncode:
            raise SystemExit(f"hybridperf {' '.join(command)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
        outputs[name] = {"command": "hybridperf " + " ".join(command), "output": json.loads(out.stdout)}
    state = common.machine_state()
    document = {"made": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "hybridperf": state["hybridperf"], "commands": outputs}
    write_atomic(STORED, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    stored.cache_clear()
    print(f"wrote {STORED.relative_to(common.REPO)}")


@cache
def stored() -> dict:
    return json.loads(STORED.read_text())["commands"]


def output(name: str):
    return stored()[name]["output"]


# ---------------------------------------------------------------- simulate validate


def outcomes(prefix: str = "") -> list[dict]:
    return [o for o in output("validate") if o["claim"].startswith(prefix)]


def outcome(prefix: str) -> dict:
    [found] = outcomes(prefix)
    return found


def reproduced(found: list[dict]) -> str:
    return f"{sum(o['reproduced'] for o in found)} of {len(found)}"


def is_spmv(o: dict) -> bool:
    return o["claim"].startswith("SPMV")


def numbers(text: str) -> list[float]:
    """The values of a listing such as '8: 0.86, 27: 0.76' or 'hybrid 0.037 s, mpi 0.032 s' (counts before a
    colon left out)."""
    return [float(x) for x in re.findall(r"(?<![\w.])(\d+\.\d+)(?![\d:])", text)]


def span(values: list[float], digits: int = 2) -> str:
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return low if low == high else f"{low}–{high}"


def validate_table() -> str:
    lines = ["| claim | source | published | simulated | reproduced | closed-form model |", "|---|---|---|---|---|---|"]
    lines += [f"| {o['claim']} | {o['source']} | {o['published']} | {o['simulated']} | "
              f"{'yes' if o['reproduced'] else 'no'} | {o['closed_form'] or '-'} |" for o in output("validate")]
    return "\n".join(lines) + "\n"


def sum_ratios() -> str:
    """The pure / hybrid-1 collective time on Merlin above 256 cores, as a range of whole numbers."""
    values = numbers(outcome("Merlin: sum")["simulated"])
    return f"{min(values):.0f}–{max(values):.0f}"


def e_mp_above(size: str) -> str:
    listing = outcome("SPMV at 32000 and 256000")["simulated"]
    part = next(p for p in listing.split("; ") if p.startswith(f"{size}: "))
    return span(numbers(part.split(": ", 1)[1]))


def total(prefix: str, side: str) -> float:
    """A side's simulated total (s) in a 'faster 0.037 s, slower 0.032 s' listing."""
    return float(re.search(rf"{side} ([0-9.]+) s", outcome(prefix)["simulated"])[1])


def closed_form(prefix: str, side: str) -> str:
    text = outcome(prefix)["closed_form"]  # 'hybrid (0.138 s against 0.281)'
    winner, first, second = re.fullmatch(r"(\w+) \(([0-9.]+) s against ([0-9.]+)\)", text).groups()
    return first if side == winner else second


# ---------------------------------------------------------------- recommend --by simulation


def seconds(name: str, nodes: int) -> dict[str, float]:
    answer = next(a for a in output(name)["answers"] if a["nodes"] == nodes)
    return {p["split"]: p["seconds"] for p in answer["predictions"]}


def stella_16() -> dict[str, float]:
    return seconds("stella_16", 16)


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
    "simulated.validate_md_reproduced": lambda: reproduced([o for o in outcomes() if not is_spmv(o)]),
    "simulated.validate_spmv_reproduced": lambda: reproduced([o for o in outcomes() if is_spmv(o)]),
    "simulated.movout_infinipath": lambda: f"{numbers(outcome('movout')['simulated'])[0]:.2f}",
    "simulated.movout_gige": lambda: f"{numbers(outcome('movout')['simulated'])[1]:.2f}",
    "simulated.sum_ratio": sum_ratios,
    "simulated.spmv_256000_mpi": lambda: f"{total('SPMV at 256000 rows', 'mpi'):.2f}",
    "simulated.spmv_256000_hybrid": lambda: f"{total('SPMV at 256000 rows', 'hybrid'):.2f}",
    "simulated.spmv_500_e_mp": lambda: span(numbers(outcome("SPMV at 500 rows per node: e_mp")["simulated"])),
    "simulated.spmv_32000_e_mp": lambda: e_mp_above("32000"),
    "simulated.spmv_256000_e_mp": lambda: e_mp_above("256000"),
    "simulated.spmv_500_hybrid": lambda: f"{total('SPMV at 500 rows per node on', 'hybrid'):.3f}",
    "simulated.spmv_500_mpi": lambda: f"{total('SPMV at 500 rows per node on', 'mpi'):.3f}",
    "simulated.closed_form_500_hybrid": lambda: closed_form("SPMV at 500 rows per node on", "hybrid"),
    "simulated.closed_form_500_mpi": lambda: closed_form("SPMV at 500 rows per node on", "mpi"),
    "simulated.merlin_small_leads": merlin_small_leads,
    "simulated.merlin_small_moved": merlin_small_moved,
    "simulated.stella_16_lead": lambda: f"{100 * (stella_16()['1r×8t'] / stella_16()['8r×1t'] - 1):.0f}",
}
BLOCKS = {"validate_outcomes": validate_table}
