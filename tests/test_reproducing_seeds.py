"""docs/reproducing-seeds.md maps every checkable claim of the seeds (the spec digest's §H: its numbered test matrix,
H.1 exact, H.2 one node, H.3 many nodes) to what reproduces it, or says why nothing does: each has its row."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO.parent / "shared" / "spec" / "seed-spec.md"
PAGE = REPO / "docs" / "reproducing-seeds.md"


def claims() -> list[str]:
    """'H.1.1', ..., 'H.3.30': each numbered item of §H, with its subsection."""
    text = SPEC.read_text()
    section = text[text.index("## H. Reproducible targets"):text.index("## Appendix Y")]
    found, sub = [], None
    for line in section.splitlines():
        head = re.match(r"### (H\.\d)", line)
        if head:
            sub = head[1]
        item = re.match(r"(\d+)\. \*\*", line)
        if item and sub:
            found.append(f"{sub}.{item[1]}")
    return found


def test_every_seed_claim_has_its_row():
    found = claims()
    assert len(found) >= 30 and found[0] == "H.1.1"
    rows = [line for line in PAGE.read_text().splitlines() if line.startswith("| ")]
    named = {m for line in rows for m in re.findall(r"H\.\d\.\d+", line)}
    missing = [c for c in found if c not in named]
    assert not missing, f"docs/reproducing-seeds.md has no row for {', '.join(missing)}"
