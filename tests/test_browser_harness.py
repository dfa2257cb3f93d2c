"""The headless-Chromium harness (tests/browser.py) sees what a page requests, logs and draws."""

from __future__ import annotations

import struct

import browser
import pytest


@pytest.fixture(scope="module")
def chromium():
    with browser.launch() as started:
        yield started


def page(tmp_path, body: str, name: str = "page.html"):
    path = tmp_path / name
    path.write_text(f"<!doctype html><html><head><title>t</title></head><body>{body}</body></html>")
    return path


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == browser.PNG_SIGNATURE
    return struct.unpack(">II", data[16:24])  # IHDR: width, height


def test_an_offline_page_requests_and_logs_nothing(chromium, tmp_path):
    rendered = chromium.render(page(tmp_path, '<h1 id="top">Report</h1><p class="n">4,988</p>'))
    assert rendered.requests == []
    assert rendered.console == []
    assert rendered.evaluate("document.getElementById('top').textContent") == "Report"
    assert rendered.evaluate("document.querySelectorAll('p.n').length") == 1
    assert rendered.evaluate("document.getElementById('top').getBoundingClientRect().width") > 0
    assert rendered.evaluate("window.innerWidth") == 1280


def test_every_url_the_page_requests_is_reported(chromium, tmp_path):
    body = (
        '<img src="http://198.51.100.1/x.png">'
        '<link rel="stylesheet" href="https://example.invalid/a.css">'
        '<img src="other.png">'
    )
    rendered = chromium.render(page(tmp_path, body))
    assert sorted(rendered.requests) == sorted(
        ["http://198.51.100.1/x.png", "https://example.invalid/a.css", (tmp_path / "other.png").as_uri()]
    )


def test_console_messages_and_exceptions_are_reported(chromium, tmp_path):
    script = '<script>console.error("boom"); console.warn("careful"); undefinedFunction();</script>'
    rendered = chromium.render(page(tmp_path, script))
    assert browser.ConsoleMessage("error", "boom", "console") in rendered.console
    assert browser.ConsoleMessage("warning", "careful", "console") in rendered.console
    [thrown] = [m for m in rendered.console if m.source == "exception"]
    assert thrown.level == "error"
    assert "undefinedFunction is not defined" in thrown.text


def test_screenshots_are_png_of_the_page_or_of_its_top(chromium, tmp_path):
    tall = page(tmp_path, '<div style="height: 2000px">tall</div>')
    rendered = chromium.render(tall, width=800, height=600)
    full = rendered.screenshot(tmp_path / "full.png")
    top = rendered.screenshot(tmp_path / "top.png", full_page=False)
    assert full.stat().st_size > 0
    width, height = png_size(full)
    assert width == 800
    assert height > 2000
    assert png_size(top) == (800, 600)


def test_a_javascript_error_in_evaluate_is_raised(chromium, tmp_path):
    rendered = chromium.render(page(tmp_path, "<p>x</p>"))
    with pytest.raises(browser.BrowserError, match="nothing is not defined"):
        rendered.evaluate("nothing.here")


def test_a_missing_file_is_refused(chromium, tmp_path):
    with pytest.raises(browser.BrowserError, match="ERR_FILE_NOT_FOUND"):
        chromium.render(tmp_path / "missing.html")


def test_the_browser_is_killed_and_its_profile_removed_on_exit(tmp_path):
    with browser.launch() as started:
        started.render(page(tmp_path, "<p>x</p>"))
        process, profile = started.process, started.profile
        assert process.poll() is None
        assert profile.is_dir()
    assert process.poll() is not None
    assert not profile.exists()


def test_an_unknown_pdmetrics_chromium_skips_outside_ci(monkeypatch):
    monkeypatch.setenv("PDMETRICS_CHROMIUM", "no-such-chromium")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium not found: install Chromium"):
        browser.launch().__enter__()
