#!/usr/bin/env python3
"""Every bench's tables and verdicts, made from its run files in bench/runs/ alone (never typed).

    python bench/tables.py             # print them
    python bench/tables.py --write     # and regenerate the marked blocks of docs/performance.md and README.md

Each bench module names its figures (`figures(runs, bands)`); this script judges each set of runs
(a run alone, or a series declared in advance, pooled: bench/common.py) against the bands of
bench/references.yaml with the verdict engine (hybridperf.analysis.verdicts), and renders them.
In docs/performance.md a block `<!-- generated: BENCH -->` ... `<!-- end generated -->` is replaced by
the bench's tables; in README.md the block `<!-- generated: summary -->` by one line per bench.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import common
from hybridperf.analysis.verdicts import Judgement, tally

# bench module -> (title, the command that makes a run file)
BENCHES = {
    "md_vs_lammps": ("hybridperf-md against LAMMPS at its fastest", "make bench"),
    "manybody_vs_lammps": ("hybridperf-md's many-body potentials against LAMMPS",
                           ".venv/bin/python bench/manybody_vs_lammps.py"),
    "pmpi_overhead": ("libhybridperf-mpi.so's overhead on LAMMPS", ".venv/bin/python bench/pmpi_overhead.py"),
    "call_times_overhead": ("The per-call time histograms' overhead on hybridperf-spmv",
                            ".venv/bin/python bench/call_times_overhead.py"),
    "thread_times_overhead": ("The md kernel's thread times' overhead",
                              ".venv/bin/python bench/thread_times_overhead.py"),
    "clomp_vs_clomp12": ("hybridperf-clomp against CLOMP 1.2",
                         "CLOMP_REF=/tmp/ref-clomp/clomp .venv/bin/python bench/clomp_vs_clomp12.py"),
    "ompbench_vs_epcc": ("hybridperf-ompbench against EPCC v4",
                         "EPCC_BENCH_DIR=/tmp/ref-epcc .venv/bin/python bench/ompbench_vs_epcc.py"),
    "arraybench_vs_epcc": ("hybridperf-ompbench's data clauses against EPCC v4 arraybench",
                           "EPCC_BENCH_DIR=~/.cache/epcc-v4 .venv/bin/python bench/arraybench_vs_epcc.py"),
    "mixbench_vs_pingpong": ("hybridperf-mixbench against a plain MPI ping-pong",
                             ".venv/bin/python bench/mixbench_vs_pingpong.py"),
    "mixbench_chain_vs_imb": ("hybridperf-mixbench's chain against IMB-MPI1 Sendrecv",
                              "HYBRIDPERF_IMB=~/.cache/imb/src/IMB-MPI1 "
                              ".venv/bin/python bench/mixbench_chain_vs_imb.py"),
    "spmv_bandwidth": ("hybridperf-spmv against STREAM and scipy.sparse", ".venv/bin/python bench/spmv_bandwidth.py"),
    "calibrated_model": ("The calibrated model against measurement", ".venv/bin/python bench/calibrated_model.py"),
    "simulate_scale": ("The simulator at 1,024 to 16,384 ranks", ".venv/bin/python bench/simulate_scale.py"),
    "replay_this_machine": ("A traced program replayed on this machine and on three clusters",
                            ".venv/bin/python bench/replay_this_machine.py"),
    "simulate_this_machine": ("The simulator against one node's measurements",
                              ".venv/bin/python bench/simulate_this_machine.py"),
}
MARK = re.compile(r"(<!-- generated: (?P<name>[a-z_0-9]+) -->\n).*?(<!-- end generated -->)", re.S)


@dataclass
class Judged:
    label: str
    runs: list[dict]
    rows: list[common.Row]

    @property
    def counts(self) -> dict[str, int]:
        return tally([r.judgement for r in self.rows if r.judgement])

    def summary(self) -> str:
        c = self.counts
        total = sum(c.values())
        return f"{c['within']} of {total} within, {c['undecided']} undecided, {c['differs']} differ"


def judge(bench: str, runs: list[dict] | None = None) -> list[Judged]:
    """The bench's judged sets, oldest first (all its run files, or the runs given)."""
    module = importlib.import_module(bench)
    bands = common.references(bench)["figures"]
    runs = common.load_runs(bench) if runs is None else runs
    return [Judged(label, members, module.figures(members, bands)) for label, members in common.judged_sets(runs)]


def _machine(run: dict) -> str:
    m = run["machine"]["before"]
    if not m:
        return "machine state not recorded"
    load = m["load_average"][0]
    return f"{m['cpu_model']}, {m['cpus']} CPUs, load {load:.2f}, governor {m['governor'] or 'not readable'}"


def samples(j: Judgement) -> str:
    """The n cell: the samples behind the figure; 'exact' for a count judged as is."""
    if j.n is not None:
        return str(j.n)
    return "exact" if j.low == j.high == j.estimate else "?"


def undecided_note(j: Judgement) -> str:
    """For an undecided figure, its noise floor at its n and the rounds that would likely decide it:
    '±12% at n=9; ~40 rounds would decide'; '' for any other verdict."""
    if j.word != "undecided":
        return ""
    at = f" at n={j.n}" if j.n is not None else ""
    if not j.bounded:
        return f"interval unbounded{at}"
    rounds = j.runs_to_decide()
    if rounds is not None:
        tail = f"; ~{rounds} rounds would decide"
    elif j.n is not None:
        tail = "; the estimate sits on the band's edge: no number of rounds within reach would decide"
    else:
        tail = ""
    return f"{j.noise_text()}{at}{tail}"


def verdict_cell(j: Judgement) -> str:
    note = undecided_note(j)
    return f"**{j.word}**" + (f" ({note})" if note else "")


def table(judged: Judged) -> str:
    first = judged.runs[0]
    head = (f"**{judged.label}** — {first['started'][:16].replace('T', ' ')} UTC, {first['declared']['repeats']} rounds"
            f"{' each' if len(judged.runs) > 1 else ''}; {_machine(first)}. **{judged.summary()}.**\n\n")
    lines = ["| figure | ours | reference | n | ratio [90% interval] | target | verdict |",
             "|---|---:|---:|---:|---:|---|---|"]
    for r in judged.rows:
        j = r.judgement
        cells = ([samples(j), f"{j.estimate:.3g} {j.interval_text()}", j.band.text(), verdict_cell(j)] if j
                 else ["", "", "", ""])
        lines.append(f"| {r.figure} | {r.ours} | {r.reference} | " + " | ".join(cells) + " |")
    notes = [f"- {n}" for run in judged.runs for n in run.get("notes", [])]
    return head + "\n".join(lines) + ("\n\n" + "\n".join(dict.fromkeys(notes)) if notes else "") + "\n"


def markdown(bench: str) -> str:
    """The latest judged set in full, the earlier ones a line each, and the command."""
    title, command = BENCHES[bench]
    sets = judge(bench)
    if not sets:
        return f"No run file yet: `{command}`.\n"
    parts = [f"Run: `{command}`; tables: `make figures`. Run files: "
             + ", ".join(f"`{run['path']}`" for s in sets for run in s.runs) + ".\n", table(sets[-1])]
    if len(sets) > 1:
        parts.append("Earlier runs: " + "; ".join(f"{s.label}: {s.summary()}" for s in sets[:-1]) + ".\n")
    return "\n".join(parts)


def summary_line(bench: str) -> str:
    title, _ = BENCHES[bench]
    sets = judge(bench)
    if not sets:
        return f"- {title}: no run file yet."
    latest = sets[-1]
    misses = [f"{r.figure} {r.judgement.text()}" + (f" ({note})" if (note := undecided_note(r.judgement)) else "")
              for r in latest.rows if r.judgement and r.judgement.word != "within"]
    shown = "; ".join(misses[:4]) + (f"; and {len(misses) - 4} more" if len(misses) > 4 else "")
    return f"- {title} ({latest.runs[0]['started'][:10]}): {latest.summary()}" + (f" — {shown}" if misses else "") + "."


def print_bench(bench: str, path: Path | None = None) -> None:
    """The tables of one run file (the latest when none is named)."""
    runs = common.load_runs(bench)
    if path is not None:
        runs = [r for r in runs if Path(r["path"]).name == path.name]
    if not runs:
        print(f"{bench}: no run file")
        return
    print("\n" + table(judge(bench, runs[-1:])[-1]))


def rewrite(path: Path, blocks: dict[str, str]) -> None:
    text = path.read_text()

    def replace(match: re.Match) -> str:
        name = match["name"]
        if name not in blocks:
            raise SystemExit(f"{path}: a generated block names '{name}', which is no bench")
        return match[1] + blocks[name] + match[3]

    new = MARK.sub(replace, text)
    if new != text:
        path.write_text(new)
        print(f"rewrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="regenerate the marked blocks of docs/performance.md "
                                                             "and README.md")
    args = parser.parse_args()
    blocks = {bench: markdown(bench) for bench in BENCHES}
    blocks["summary"] = "\n".join(summary_line(bench) for bench in BENCHES) + "\n"
    if args.write:
        rewrite(common.REPO / "docs" / "performance.md", blocks)
        rewrite(common.REPO / "README.md", blocks)
    else:
        for bench, text in blocks.items():
            print(f"\n## {BENCHES[bench][0] if bench in BENCHES else 'summary'}\n\n{text}")


if __name__ == "__main__":
    sys.exit(main())
