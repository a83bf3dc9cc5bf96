#!/usr/bin/env python3
"""Every number of ours quoted in README.md and docs/*.md, made by code (never typed), and the check that the
pages say what the code says.

    python bench/figures.py             # list the marked figures and blocks whose page disagrees with the code
    python bench/figures.py --write     # rewrite them (make figures)
    python bench/figures.py --refresh   # first remake the stored results of the slow generators (minutes)

A figure is marked inline, `<!-- figure: NAME -->11.2<!-- /figure -->` (the comments render as nothing), a whole
table as a block `<!-- generated: NAME -->` ... `<!-- end generated -->` (bench/tables.py's benches and summary,
and the blocks here). NAME is a key of FIGURES or BLOCKS, whose function makes the text from the code (the split
model, `hybridperf model dlpoly`, the potentials' direct sums), from a bench's run files in bench/runs/, from a
store or output kept from the 16-core machine in bench/runs/device/ (BT-MZ's from this one in
bench/runs/bt-mz/), or from what is too slow to make in a test
(`simulate validate` and other replays, 10,000 synthetic races a scenario), kept in
bench/runs/simulated-figures.json, race-error-rates.json, dlpoly-figures.json and dlpoly-noise.json, which `--refresh`
remakes. A NAME no generator knows, or a generator no page marks, is an error.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Callable

import common
import figures_btmz
import figures_device
import figures_dlpoly
import figures_model
import figures_potentials
import figures_race
import figures_runs
import figures_simulated
import tables

PAGES = [common.REPO / "README.md", *sorted((common.REPO / "docs").glob("*.md"))]
FIGURE = re.compile(r"<!-- figure: (?P<name>[a-z0-9_.]+) -->(?P<text>[^<\n]*)<!-- /figure -->")
Generators = dict[str, Callable[[], str]]


def _merged(*parts: Generators) -> Generators:
    out: Generators = {}
    for part in parts:
        twice = set(out) & set(part)
        if twice:
            raise SystemExit(f"figures registered twice: {', '.join(sorted(twice))}")
        out.update(part)
    return out


FIGURES = _merged(figures_model.FIGURES, figures_runs.FIGURES, figures_device.FIGURES, figures_simulated.FIGURES,
                  figures_race.FIGURES, figures_potentials.FIGURES, figures_dlpoly.FIGURES, figures_btmz.FIGURES)
BLOCKS = _merged({bench: (lambda b=bench: tables.markdown(b)) for bench in tables.BENCHES},
                 {"summary": lambda: "\n".join(tables.summary_line(b) for b in tables.BENCHES) + "\n"},
                 figures_model.BLOCKS, figures_runs.BLOCKS, figures_simulated.BLOCKS, figures_race.BLOCKS,
                 figures_potentials.BLOCKS)


def marks(text: str) -> list[tuple[str, str, str]]:
    """('figure' | 'block', NAME, the text the page gives) for every mark of a page, in order."""
    found = [(m.start(), "figure", m["name"], m["text"]) for m in FIGURE.finditer(text)]
    found += [(m.start(), "block", m["name"], m[0][len(m[1]):-len(m[3])]) for m in tables.MARK.finditer(text)]
    return [(kind, name, said) for _, kind, name, said in sorted(found)]


def unknown(pages: list[Path]) -> list[str]:
    """'page: NAME' for each mark no generator knows, and each generator no page marks."""
    problems, used = [], set()
    for page in pages:
        for kind, name, _ in marks(page.read_text()):
            used.add((kind, name))
            if name not in (FIGURES if kind == "figure" else BLOCKS):
                where = page.relative_to(common.REPO)
                problems.append(f"{where}: {kind} '{name}' has no generator in bench/figures.py")
    problems += [f"figure '{n}' is registered but no page marks it" for n in FIGURES if ("figure", n) not in used]
    problems += [f"block '{n}' is registered but no page marks it" for n in BLOCKS if ("block", n) not in used]
    return problems


def rendered(text: str, cache: dict[tuple[str, str], str]) -> str:
    """The page with every mark's text made by its generator (each generator run once per cache)."""
    def made(kind: str, name: str) -> str:
        if (kind, name) not in cache:
            cache[kind, name] = (FIGURES if kind == "figure" else BLOCKS)[name]()
        return cache[kind, name]

    text = FIGURE.sub(lambda m: f"<!-- figure: {m['name']} -->{made('figure', m['name'])}<!-- /figure -->", text)
    return tables.MARK.sub(lambda m: m[1] + made("block", m["name"]) + m[3], text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the marked figures and blocks of the pages")
    parser.add_argument("--refresh", action="store_true", help="remake bench/runs/simulated-figures.json first "
                                                               "(SimGrid replays: minutes)")
    args = parser.parse_args()
    if args.refresh:
        figures_simulated.refresh()
        figures_race.refresh()
        figures_dlpoly.refresh()
        figures_dlpoly.refresh_noise()
    problems = unknown(PAGES)
    if problems:
        raise SystemExit("\n".join(problems))
    cache: dict[tuple[str, str], str] = {}
    stale = 0
    for page in PAGES:
        text = page.read_text()
        new = rendered(text, cache)
        if new == text:
            continue
        stale += 1
        if args.write:
            page.write_text(new)
            print(f"rewrote {page.relative_to(common.REPO)}")
        else:
            said = dict(((k, n), s) for k, n, s in marks(text))
            for kind, name, text_now in marks(new):
                if said.get((kind, name)) != text_now:
                    print(f"{page.relative_to(common.REPO)}: {kind} {name}: {said.get((kind, name))!r} -> {text_now!r}")
    if stale and not args.write:
        sys.exit(1)


if __name__ == "__main__":
    main()
