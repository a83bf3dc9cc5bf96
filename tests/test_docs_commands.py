"""Every command that README.md and docs/ show runs as written (issue 24): the docs harness.

Each fenced block tagged `bash` or `sh` is run as one bash script (`set -euo pipefail`), from the root of
a copy of its own of the repository's files (tracked, or new and not ignored; this checkout's built .venv and
build/ linked in), with the virtual environment's and the kernels' directories first on PATH (as after
`. .venv/bin/activate; export PATH=$PWD/build/bin:$PATH`) and a user data folder of its own (XDG_DATA_HOME:
what `hybridperf cluster measure` writes stays out of this machine's). A comment just above a block may say
`<!-- docs-test: skip: why -->` (it is not run: the note says why) or `<!-- docs-test: instead: commands -->`
(a cheaper variant of a long command runs in its place). Every other fenced block must say what it is
(`text`, `yaml`, `json`, `c`, `python` …), so no command hides from the harness. What a block writes (a
results directory, an exported file) stays in its copy: no block reads another's leftovers, none writes into the
checkout, and the blocks spread over pytest's workers like any other test.

Count: `pytest tests/test_docs_commands.py -v` lists each block, run or skipped with its reason.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

import slurm_cluster

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


# ignored and heavy, read by the blocks (the environments, the kernels): linked into each copy, not copied
BUILT = (".venv", ".venv-lammps", ".venv-extrap", "build")
# the kept run files and archives (most of the tracked bytes), which the blocks read and never rewrite: each linked
KEPT = "bench/runs/"


@pytest.fixture(scope="session")
def tracked() -> list[str]:
    # tracked, and new files not yet added (a page being written), as the harness reads the pages themselves
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout
    return [name for name in listed.split("\0") if name]


def copy_of_the_checkout(tracked: list[str], to: Path) -> Path:
    """The checkout's own files as they are in the working tree (a symbolic link stays a link; a kept run file is
    linked), and this checkout's built environments linked in."""
    for name in tracked:
        if not os.path.lexists(REPO / name):  # deleted in the working tree, not yet in git
            continue
        target = to / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name.startswith(KEPT):
            target.symlink_to(REPO / name)
        else:
            shutil.copy2(REPO / name, target, follow_symlinks=False)
    for name in BUILT:
        if (REPO / name).exists():
            (to / name).symlink_to(REPO / name)
    return to


@pytest.mark.kernel
@pytest.mark.parametrize("block", SHELL, ids=lambda b: b.name)
def test_documented_commands_run(block: Block, tracked: list[str], tmp_path: Path):
    if block.directive and block.directive[0] == "skip":
        pytest.skip(block.directive[1])
    script = block.directive[1] if block.directive else block.text
    checkout = copy_of_the_checkout(tracked, tmp_path / "checkout")
    env = {**os.environ, "PATH": f"{REPO / '.venv' / 'bin'}:{REPO / 'build' / 'bin'}:{os.environ['PATH']}",
           "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
           # CI runs as root, where Open MPI's mpirun wants --allow-run-as-root; the docs show what a user types
           "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    cluster = slurm_cluster.in_use() if "slurm-local.sh" in script else contextlib.nullcontext()
    with cluster:
        done = subprocess.run(["bash", "-c", "set -euo pipefail\n" + script], cwd=checkout, env=env,
                              capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{block.name} failed ({done.returncode}):\n{script}\n{done.stdout[-1500:]}\n" \
                                 f"{done.stderr[-3000:]}"
