"""Every command that README.md and docs/ show runs as written (issue 24): the docs harness.

Each fenced block tagged `bash` or `sh` is run as one bash script (`set -euo pipefail`), from the
repository root, with the virtual environment's and the kernels' directories first on PATH (as after
`. .venv/bin/activate; export PATH=$PWD/build/bin:$PATH`) and a user data folder of its own (XDG_DATA_HOME:
what `hybridperf cluster measure` writes stays out of this machine's). A comment just above a block may say
`<!-- docs-test: skip: why -->` (it is not run: the note says why) or `<!-- docs-test: instead: commands -->`
(a cheaper variant of a long command runs in its place). Every other fenced block must say what it is
(`text`, `yaml`, `json`, `c`, `python` …), so no command hides from the harness. What a block writes
that was not there before (a results directory, an exported file) is removed after it.

Count: `pytest tests/test_docs_commands.py -v` lists each block, run or skipped with its reason.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

import slurm_cluster

# The blocks run in the repository and remove what they leave there: one worker runs them all, one at a time
# (pytest -n: tests of other files, in their own temporary folders, run beside them).
pytestmark = pytest.mark.xdist_group("repository")

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
RUNNABLE = {"bash", "sh"}
DIRECTIVE = re.compile(r"<!--\s*docs-test:\s*(skip|instead):\s*(.*?)\s*-->", re.DOTALL)


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    info: str
    text: str
    directive: tuple[str, str] | None  # (skip | instead, its text)

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    lines = page.read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        fence = re.match(r"^(\s*)(```+)\s*(\S*)", lines[i])
        if not fence:
            i += 1
            continue
        start, closing = i, fence.group(2)
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(closing):
            i += 1
        before = "\n".join(lines[max(0, start - 3):start])
        directive = DIRECTIVE.findall(before)
        found.append(Block(page, start + 1, fence.group(3), "\n".join(lines[start + 1:i]),
                           directive[-1] if directive else None))
        i += 1
    return found


ALL = [b for page in PAGES for b in blocks(page)]
SHELL = [b for b in ALL if b.info in RUNNABLE]


def test_every_block_says_what_it_is():
    untagged = [b.name for b in ALL if not b.info]
    assert not untagged, f"fenced blocks without a language (bash/sh are run; text, yaml … are not): {untagged}"


def test_skips_say_why():
    assert all(len(b.directive[1]) > 20 for b in SHELL if b.directive and b.directive[0] == "skip")


def _untracked() -> set[str]:
    """What a command may have written: ignored paths (results/, a build folder) and untracked ones at the top
    (an exported file), and each results directory under results/ — another test may have made results/ first, and
    a block's runs in it would stay for the next block to read (a fresh-clone run failed so); new files among the
    sources are someone's work, never removed."""
    out = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=normal"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    found = {line[3:].rstrip("/") for line in out.splitlines()
             if line[:2] == "!!" or line[:2] == "??" and "/" not in line[3:].rstrip("/")}
    results = REPO / "results"
    return found | ({f"results/{p.name}" for p in results.iterdir()} if results.is_dir() else set())


@contextlib.contextmanager
def _repository_to_ourselves() -> Iterator[None]:
    """One block at a time in the checkout, whichever worker runs it. The xdist group above should already see to
    that, but pytest 9.2 broke xdist 3.8's groups silently (two blocks writing CuAu.eam.fs, one removing the
    other's): with this lock a broken scheduler costs time, never a wrong failure."""
    lock = Path(tempfile.gettempdir()) / f"hybridperf-docs-{hashlib.sha1(str(REPO).encode()).hexdigest()[:12]}.lock"
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session")
def user_data(tmp_path_factory) -> Path:
    """The user's data folder for the blocks (XDG_DATA_HOME: `cluster measure` writes there), not this machine's."""
    return tmp_path_factory.mktemp("xdg-data")


@pytest.mark.kernel
@pytest.mark.parametrize("block", SHELL, ids=lambda b: b.name)
def test_documented_commands_run(block: Block, user_data: Path):
    if block.directive and block.directive[0] == "skip":
        pytest.skip(block.directive[1])
    script = block.directive[1] if block.directive else block.text
    env = {**os.environ, "PATH": f"{REPO / '.venv' / 'bin'}:{REPO / 'build' / 'bin'}:{os.environ['PATH']}",
           "XDG_DATA_HOME": str(user_data),
           # CI runs as root, where Open MPI's mpirun wants --allow-run-as-root; the docs show what a user types
           "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    cluster = slurm_cluster.in_use() if "slurm-local.sh" in script else contextlib.nullcontext()
    with _repository_to_ourselves(), cluster:
        before = _untracked()
        try:
            done = subprocess.run(["bash", "-c", "set -euo pipefail\n" + script], cwd=REPO, env=env,
                                  capture_output=True, text=True, timeout=600)
        finally:
            for path in _untracked() - before:
                target = REPO / path
                shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink(missing_ok=True)
    assert done.returncode == 0, f"{block.name} failed ({done.returncode}):\n{script}\n{done.stdout[-1500:]}\n" \
                                 f"{done.stderr[-3000:]}"
