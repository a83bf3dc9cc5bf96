"""Every number of ours in README.md and docs/ is generated (bench/figures.py, `make figures`): each marked figure
and generated table says what its generator makes now, every generator is marked somewhere, and no mark names a
generator that does not exist. The slow generators (SimGrid replays, 10,000 synthetic races a scenario) are read
from the files `make figures` keeps in bench/runs/, which tests/test_simulate.py and the races' own tests check
against the code; everything else is recomputed here."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import figures  # noqa: E402

PAGES = {page.relative_to(REPO).as_posix(): page for page in figures.PAGES}
CACHE: dict[tuple[str, str], str] = {}  # figures several pages quote, made once per worker
pytestmark = pytest.mark.xdist_group("figures")  # so one worker: the archives' reports are read once, not thrice


def test_every_mark_has_a_generator_and_every_generator_a_mark():
    assert figures.FIGURES and figures.BLOCKS
    assert figures.unknown(figures.PAGES) == []


@pytest.mark.parametrize("name", sorted(PAGES))
def test_the_page_says_what_the_generators_make(name):
    text = PAGES[name].read_text()
    said = figures.marks(text)
    made = figures.marks(figures.rendered(text, CACHE))
    assert len(said) == len(made)
    stale = [f"{kind} {mark}: " + (f"the page says {page!r}, the generator makes {now!r}" if kind == "figure" else
                                   "\n".join(difflib.unified_diff(page.splitlines(), now.splitlines(), "page",
                                                                   "generator", n=0, lineterm="")))
             for (kind, mark, page), (_, _, now) in zip(said, made) if page != now]
    assert not stale, f"{name} is stale; run `make figures` (or fix the generator):\n" + "\n".join(stale)


def test_a_figure_is_rewritten_and_an_unknown_one_refused(tmp_path, monkeypatch):
    monkeypatch.setitem(figures.FIGURES, "test.answer", lambda: "42")
    page = "It is <!-- figure: test.answer -->41<!-- /figure --> and stays 41 unmarked.\n"
    assert figures.rendered(page, {}) == "It is <!-- figure: test.answer -->42<!-- /figure --> and stays 41 unmarked.\n"
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- figure: test.nowhere -->1<!-- /figure -->\n")
    monkeypatch.setattr(figures.common, "REPO", tmp_path)
    problems = figures.unknown([doc])
    assert "doc.md: figure 'test.nowhere' has no generator in bench/figures.py" in problems
    assert "figure 'test.answer' is registered but no page marks it" in problems
