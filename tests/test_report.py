"""The report tells one story and only what the data can carry (read from the HTML of a committed study)."""

import re
import subprocess
import sys
from html.parser import HTMLParser

HYBRIDPERF = [sys.executable, "-m", "hybridperf"]


class Tables(HTMLParser):
    """Every table of a page as (title, header cells, rows of cells)."""

    def __init__(self):
        super().__init__()
        self.tables, self.title, self._cell, self._row, self._in = [], "", None, None, None

    def handle_starttag(self, tag, attrs):
        if tag == "h3":
            self._in, self.title = "h3", ""
        elif tag == "table":
            self.tables.append((self.title, [], []))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "h3":
            self._in = None
        elif tag in ("td", "th") and self._row is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            title, headers, rows = self.tables[-1]
            (rows if headers else headers).extend([self._row] if headers else self._row)
            self._row = None

    def handle_data(self, data):
        if self._in == "h3":
            self.title += data
        elif self._cell is not None:
            self._cell += data


def report(results):
    out = subprocess.run([*HYBRIDPERF, "report", str(results)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return (results / "report.html").read_text(), out.stdout


def test_the_page_opens_with_the_headline_and_one_winner_rule(tiny_study):
    html, terminal = report(tiny_study)
    assert html.index("id='headline'") < html.index("<h2>size=8")
    sentences = re.findall(r"<li>(At \d+ cores?: .*?)</li>", html)
    assert len(sentences) == 4  # two sizes, two core counts
    for s in sentences[0::2]:  # at 1 core the one 1 x 1 run is the baseline
        assert "pure-mpi = hybrid-1 is the only shape here (the baseline; 3 runs)" in s
    for s in sentences[1::2]:  # at 2 cores two shapes race: the outcome in its own word, with its blocks
        assert re.search(r": (\S+ wins — |tie — |undecided after 3 blocks — )", s), s
    # the verdict table and the outlook name the same winner at each measured scale
    parsed = Tables()
    parsed.feed(html)
    verdicts = [t for t in parsed.tables if t[0].startswith("Verdict")]
    outlooks = [t for t in parsed.tables if t[0].startswith("Outlook")]
    assert len(verdicts) == len(outlooks) == 2
    for (_, vh, vrows), (_, oh, orows) in zip(verdicts, outlooks):
        winner = {r[0]: r[2] for r in vrows}
        measured = {r[0]: r[-1].split(" (")[0] for r in orows if r[-1] != "–"}
        assert measured == {k: v for k, v in winner.items() if k in measured} and measured
    assert "verdict (90% confidence, ties within ±2%)" in terminal


def test_no_zero_width_band_and_no_extrapolation_from_an_exact_fit(tiny_study):
    html, _ = report(tiny_study)
    parsed = Tables()
    parsed.feed(html)
    bands = [cell for _, headers, rows in parsed.tables if "band (±SE)" in headers
             for row in rows for cell in [row[headers.index("band (±SE)")]]]
    assert bands, "the model tables have a band column"
    for cell in bands:
        if cell != "–":
            low, high = (float(x) for x in cell.split(" – "))
            assert high > low, cell
    assert "exact: as many points as parameters" in html and "(extrapolated)" not in html
    assert "± 2.3e-19" not in html and "(0%)" not in html


def test_overheads_are_a_share_of_the_pure_mpi_region(tiny_study):
    html, _ = report(tiny_study)
    parsed = Tables()
    parsed.feed(html)
    [overheads, *_] = [t for t in parsed.tables if t[0].startswith("Threading overhead")]
    _, headers, rows = overheads
    shares = [float(r[headers.index("% of pure-MPI region")].rstrip("%")) for r in rows]
    assert shares and all(s > -100 for s in shares)
