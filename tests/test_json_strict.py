"""Every command's `--json` is strict JSON: no NaN, no Infinity (JavaScript's JSON.parse and jq refuse them); an
interval too few runs bound is null, with the reason beside it. One test per command, and a check that no command
with a --json option is left out."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
import typer

from hybridperf.cli.app import app
from hybridperf.files import finite, strict_json

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]


def strict(text: str):
    def refuse(constant: str):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def commands_with_json(command=None, path=()) -> set[str]:
    """'report', 'simulate', ...: every command of the CLI that takes --json."""
    command = command or typer.main.get_command(app)
    found = set()
    for name, sub in getattr(command, "commands", {}).items():
        found |= commands_with_json(sub, (*path, name))
    if any("--json" in getattr(p, "opts", ()) for p in command.params):
        found.add(" ".join(path))
    return found


CASES = {  # command -> (arguments, what needs to be there)
    "info": (["info", "--json"], None),
    "report": (["report", "{tiny}", "--json"], None),
    "recommend": (["recommend", "--by", "measured", "--results", "{tiny}", "--size", "12", "--json"], None),
    "simulate": (["simulate", "chain", "--cluster", "merlin", "--cores", "8", "--sizes", "0", "--json"], "smpirun"),
}


def test_every_command_with_json_is_checked():
    assert commands_with_json() == set(CASES) | {"model recommend"}  # the old spelling of recommend


@pytest.mark.kernel
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_commands_json_is_strict(name, tiny_study, md_binary):
    args, needs = CASES[name]
    if needs and shutil.which(needs) is None:
        pytest.skip(f"needs {needs}")
    out = subprocess.run([*HYBRIDPERF, *(a.format(tiny=tiny_study) for a in args)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert strict(out.stdout)


@pytest.mark.kernel
def test_an_unbounded_interval_is_null_with_its_reason(tiny_study):
    """tiny-md's size-12 race ran 3 blocks: no interval of a median of 3 runs is bounded at 90%."""
    out = subprocess.run([*HYBRIDPERF, "recommend", "--by", "measured", "--results", str(tiny_study), "--size", "12",
                          "--json"], capture_output=True, text=True)
    doc = strict(out.stdout)
    prediction = doc["answers"][0]["predictions"][0]
    assert prediction["low"] is None and prediction["high"] is None and "too few" in prediction["unbounded"]
    assert doc["answers"][0]["tie_within"] == 0.02
    terminal = subprocess.run([*HYBRIDPERF, "recommend", "--by", "measured", "--results", str(tiny_study), "--size",
                               "12"], capture_output=True, text=True)
    assert "inf" not in terminal.stdout and "±?" in terminal.stdout and "too few runs" in terminal.stdout


def test_not_finite_numbers_become_null_anywhere_in_a_document():
    doc = {"a": float("inf"), "b": [1.0, float("nan"), {"c": -float("inf")}], "d": (2, "x")}
    assert finite(doc) == {"a": None, "b": [1.0, None, {"c": None}], "d": [2, "x"]}
    assert strict(strict_json(doc)) == finite(doc)
