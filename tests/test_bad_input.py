"""Bad input to a kernel: one clear error line, exit status 2, and nothing half-written on disk.

The cases are data, one table per kernel, in bad_input.yaml; the cases that need several ranks stay
beside their kernel's tests."""

import os
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import kernel_binary

pytestmark = pytest.mark.kernel

TABLES: dict[str, dict[str, str]] = yaml.safe_load((Path(__file__).parent / "bad_input.yaml").read_text())
CASES = [(kernel, args, message) for kernel, table in TABLES.items() for args, message in table.items()]


def test_every_kernel_has_cases():
    assert set(TABLES) == {"md", "ompbench", "mixbench", "clomp", "stream"}
    assert all(TABLES.values())


@pytest.mark.parametrize("kernel,args,message", CASES, ids=[f"{k} {a}" for k, a, _ in CASES])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, kernel, args, message):
    argv = shlex.split(args)
    profile = [] if "--profile" in argv else ["--profile", str(tmp_path / "p.json")]
    proc = subprocess.run([str(kernel_binary(kernel)), *argv, *profile], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "OMP_NUM_THREADS": "2"})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"hybridperf-{kernel}: error: "), proc.stderr
    assert message in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == []  # no profile, not even a temporary file
