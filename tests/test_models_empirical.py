"""PMNF selection recovers the generating term; the Extra-P export loads in Extra-P itself."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hybridperf.models import pmnf

ROOT = Path(__file__).resolve().parents[1]
EXTRAP_PYTHON = ROOT / ".venv-extrap" / "bin" / "python"


@pytest.mark.parametrize(
    "truth,i,j",
    [
        (lambda p: 2.0 + 50.0 / p, -1, 0),  # strong scaling: needs a negative exponent
        (lambda p: 1.0 + 0.5 * p**0.5 * np.log2(p), 0.5, 1),
        (lambda p: 4.0 + 3.0 * p**-0.5, -0.5, 0),
        (lambda p: 1.0 + 2.0 * p, 1, 0),
    ],
)
def test_selection_recovers_the_generating_term(truth, i, j):
    rng = np.random.default_rng(3)
    p = np.array([1, 2, 4, 8, 16, 32, 64, 128] * 3, float)
    y = truth(p) * (1 + 0.005 * rng.standard_normal(len(p)))
    h = pmnf.select(p, y)
    assert (float(h.i), h.j) == (i, j), h.formula()
    assert h.smape < 2.0


def test_too_few_points_are_refused():
    with pytest.raises(ValueError, match="3 or more parameter values"):
        pmnf.select([1, 2, 1, 2], [1.0, 2.0, 1.1, 2.1])


@pytest.mark.external
@pytest.mark.skipif(not EXTRAP_PYTHON.exists(), reason="Extra-P venv missing (scripts/bootstrap.sh --test makes it)")
def test_export_loads_in_extrap(tiny_study, tmp_path):
    cli = [sys.executable, "-m", "hybridperf"]
    out = tmp_path / "x.jsonl"
    assert subprocess.run([*cli, "results", "export", str(tiny_study), "--extrap", str(out)],
                          capture_output=True).returncode == 0
    check = ("from extrap.fileio.file_reader.jsonlines_file_reader import read_jsonlines_file\n"
             f"e = read_jsonlines_file({str(out)!r})\n"
             "print(sorted(p.name for p in e.parameters), len(e.coordinates), sorted(m.name for m in e.metrics),"
             " sorted(c.name for c in e.callpaths)[:3])")
    result = subprocess.run([str(EXTRAP_PYTHON), "-c", check], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "['ranks', 'size', 'threads'] 6 ['bytes', 'messages', 'time']" in result.stdout
    assert "<root>->force" in result.stdout or "'<root>'" in result.stdout
