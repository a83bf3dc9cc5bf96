"""Our own Python passes pyflakes: no unused imports or variables, no undefined names, no redefinitions.
A failing run lists each finding with its file and line."""

import io
from pathlib import Path

from pyflakes.api import checkRecursive
from pyflakes.reporter import Reporter

ROOT = Path(__file__).resolve().parents[1]


def test_python_sources_are_pyflakes_clean():
    findings, errors = io.StringIO(), io.StringIO()
    count = checkRecursive([str(ROOT / d) for d in ("python/hybridperf", "bench", "tests", "kernels")], Reporter(findings, errors))
    assert count == 0, findings.getvalue() + errors.getvalue()
