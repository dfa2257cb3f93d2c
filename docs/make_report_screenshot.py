"""Write docs/_static/report.png: the demo evaluation report, as a reader sees it.

Builds the report ``pdmetrics demo`` evaluates (simulated double-scored essays, subgroups by
first language), writes it with ``EvaluationReport.to_html``, opens it in a headless Chromium
(the test suite's harness, tests/browser.py) 1280 CSS pixels wide and saves the page's header
and the fairness section down to the bottom of its first figure (the picture ends below that
figure's box, never inside a figure) as a PNG. Run it after a change to the report's look::

    python docs/make_report_screenshot.py [OUTPUT.png]

It needs Chromium (Debian/Ubuntu: ``apt-get install chromium``; or set PDMETRICS_CHROMIUM).
"""

from __future__ import annotations

import base64
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent / "tests"))  # the harness lives with the tests

import browser  # noqa: E402

from pdmetrics.datasets import simulate_scores  # noqa: E402

WIDTH, HEIGHT = 1280, 900
#: The sections the screenshot shows under the page's header.
SHOWN = ("fairness_analyses",)
#: The picture ends this many CSS pixels below this element (a whole figure, caption included).
LAST, BELOW = "fig-fairness-l1", 24


def demo_report():
    """The demo's report: 5,000 simulated responses, half double-scored, four L1 groups."""
    frame = simulate_scores(5000, seed=0)
    return frame.scoring.report(
        human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6
    )


def main(argv: list[str]) -> int:
    output = Path(argv[0]) if argv else DOCS / "_static" / "report.png"
    executable = browser.find_chromium()
    if executable is None:
        print(f"chromium not found: {browser.INSTALL_HINT}", file=sys.stderr)
        return 1
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, browser.launch(executable) as chromium:
        path = demo_report().to_html(Path(folder) / "report.html", title="Evaluation report (demo)")
        page = chromium.render(path, width=WIDTH, height=HEIGHT)
        problems = page.requests + [
            f"{m.level}: {m.text}" for m in page.console if m.level in {"error", "warning"}
        ]
        if problems:
            print("the report is not self-contained or logs errors:", *problems, sep="\n  ", file=sys.stderr)
            return 1
        # the picture: the page's header, then the subgroup figures (contents and the tables
        # before them hidden for the shot only; the file itself is unchanged)
        page.evaluate(
            "for (const e of document.querySelectorAll('#toc, main > section')) {"
            f"  if (!{list(SHOWN)!r}.includes(e.id)) e.style.display = 'none'; }}"
        )
        bottom = page.evaluate(f"document.getElementById({LAST!r}).getBoundingClientRect().bottom")
        height = round(bottom + BELOW)
        clip = {"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1}
        params = {"format": "png", "clip": clip, "captureBeyondViewport": True}
        data = page.browser.send("Page.captureScreenshot", params, session=page.session)["data"]
        output.write_bytes(base64.b64decode(data))
    print(f"wrote {output} ({WIDTH} x {height}: the header and {', '.join(SHOWN)} down to #{LAST})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
