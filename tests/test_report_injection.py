"""The HTML report shows user text as text: markup planted in group labels, column names, ids,
flag values, the title, rsmeval's description and experiment id runs nothing and makes no
element; checked in the DOM of a headless Chromium (tests/browser.py)."""

from __future__ import annotations

import json

import browser
import pytest

from pdmetrics.cli import main
from pdmetrics.datasets import simulate_scores
from pdmetrics.rsmeval import report

IMG = '<img src=x onerror="window.__pwned=1">'
SCRIPT = "<script>window.__pwned=1</script>"
SVG = '"><svg onload="window.__pwned=1">'
QUOTE = "' onmouseover='window.__pwned=1' x='"
MARQUEE = "<marquee>pwned"  # no space, no slash: a valid experiment_id
PAYLOADS = (IMG, SCRIPT, SVG, QUOTE)

#: Evidence of an injection in the rendered page.
INJECTED = """(() => ({
  pwned: window.__pwned === 1,
  images: document.querySelectorAll('img').length,
  scripts: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('__pwned')).length,
  svgOnload: document.querySelectorAll('svg[onload]').length,
  marquees: document.querySelectorAll('marquee').length,
  handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes])
      .filter(a => a.name.startsWith('on')).map(a => a.name + '=' + a.value),
}))()"""


def _hostile_frame():
    frame = simulate_scores(600, seed=8)
    frame["L1"] = frame["L1"].map(dict(zip(sorted(frame["L1"].unique()), PAYLOADS)))
    frame["grade"] = [MARQUEE, "ok"] * 300
    frame["ADVISORY"] = [IMG, SCRIPT, "0"] * 200
    frame["id"] = [f"{SVG}{i}" for i in range(len(frame))]
    return frame.rename(columns={"grade": SCRIPT, "raw": IMG})


@pytest.fixture(scope="module")
def chromium():
    with browser.launch() as started:
        yield started


def _assert_safe(page, visible) -> None:
    found = page.evaluate(INJECTED)
    assert found == {"pwned": False, "images": 0, "scripts": 0, "svgOnload": 0, "marquees": 0, "handlers": []}
    text = page.evaluate("document.body.innerText")
    missing = [payload for payload in visible if payload not in text]
    assert missing == [], f"shown as text: {missing}"


def test_payloads_in_labels_column_names_ids_flags_and_title_stay_text(chromium, tmp_path):
    frame = _hostile_frame()
    result = report(
        frame,
        human="sc1",
        system=IMG,
        second_human="sc2",
        by=["L1", SCRIPT],
        id="id",
        flag={"ADVISORY": [IMG, "0"]},
        trim_min=1,
        trim_max=6,
    )
    assert result.info["excluded_by_flags"] == 200  # the SCRIPT rows
    path = result.to_html(tmp_path / "report.html", title=f"{SVG} {MARQUEE}")
    page = chromium.render(path)
    _assert_safe(page, [*PAYLOADS, MARQUEE])
    assert page.evaluate("document.title") == f"{SVG} {MARQUEE}"


def test_payloads_in_rsmeval_description_experiment_id_labels_and_flags_stay_text(chromium, tmp_path, capsys):
    frame = _hostile_frame().rename(columns={SCRIPT: "grade", IMG: "raw"})
    frame.to_csv(tmp_path / "p.csv", index=False)
    config = {
        "experiment_id": MARQUEE,
        "description": f"{SCRIPT} {IMG} {SVG}",
        "predictions_file": "p.csv",
        "id_column": "id",
        "system_score_column": "raw",
        "second_human_score_column": "sc2",
        "subgroups": ["L1", "grade"],
        "flag_column": {"ADVISORY": [SCRIPT, "0"]},
        "trim_min": 1,
        "trim_max": 6,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert main(["rsmeval", str(tmp_path / "config.json"), str(tmp_path / "out")]) == 0
    page = chromium.render(tmp_path / "out" / "report" / f"{MARQUEE}_report.html")
    _assert_safe(page, [*PAYLOADS, MARQUEE, f"{SCRIPT} {IMG} {SVG}"])
