"""A headless Chromium for the tests, driven over the DevTools protocol; no Python dependency.

The browser is started with ``--remote-debugging-pipe``: it reads protocol commands from its
file descriptor 3 and writes responses and events to its file descriptor 4, each message a
JSON object terminated by a NUL byte. :func:`launch` starts it (a context manager that always
kills it); :meth:`Browser.render` opens a local HTML file in a new tab and waits for its load
event (network URLs are recorded but fail at once, so no test reaches the internet); the
:class:`Rendered` page lists every URL the page requested and every console message,
evaluates JavaScript in the page (to query the rendered DOM) and takes screenshots.

In the tests::

    @pytest.fixture(scope="module")
    def chromium():
        with browser.launch() as started:
            yield started

    def test_page(chromium, tmp_path):
        page = chromium.render(tmp_path / "page.html")
        assert page.requests == []

:func:`launch` skips the test when no Chromium is installed (with the install hint), and fails
it when the environment variable ``CI`` is set: CI must install Chromium (``.ci/run`` does).
Set ``PDMETRICS_CHROMIUM`` to use another Chromium or Chrome executable.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import conftest
import pytest

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL_HINT = (
    "install Chromium (Debian/Ubuntu: `apt-get install chromium`) or set PDMETRICS_CHROMIUM to a "
    "Chromium or Chrome executable"
)
FLAGS = (
    "--headless",
    "--remote-debugging-pipe",
    "--no-sandbox",  # root in containers; the pages are our own files
    "--disable-gpu",
    "--disable-dev-shm-usage",  # small /dev/shm in containers
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--metrics-recording-only",
    "--no-first-run",
    "--no-default-browser-check",
    "--password-store=basic",
    "--use-mock-keychain",
    "--mute-audio",
    "--hide-scrollbars",
)
# resolves once the page has been laid out and painted (two animation frames) and its fonts loaded
SETTLED = (
    "Promise.all([document.fonts.ready, new Promise(done => requestAnimationFrame("
    "() => requestAnimationFrame(done)))]).then(() => true)"
)
BLOCKED = ["http://*", "https://*", "ws://*", "wss://*", "ftp://*"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class BrowserError(RuntimeError):
    """Chromium failed: it exited, timed out, or answered a command with an error."""


@dataclass(frozen=True)
class ConsoleMessage:
    """One console message: ``level`` (``log``, ``info``, ``warning``, ``error``, ...), its text,
    and where it came from (``console``, ``exception``, or the ``Log`` entry's source such as
    ``network`` or ``javascript``)."""

    level: str
    text: str
    source: str


def find_chromium() -> str | None:
    """Path of the Chromium to use: ``PDMETRICS_CHROMIUM`` or the first candidate on PATH."""
    chosen = os.environ.get("PDMETRICS_CHROMIUM")
    if chosen:
        return shutil.which(chosen)
    return next(filter(None, map(shutil.which, CANDIDATES)), None)


def require_chromium() -> str:
    """Path of Chromium; skips the test when there is none, and fails it in CI."""
    path = find_chromium()
    if path is None:
        if conftest.running_in_ci():
            pytest.fail(
                f"chromium missing in CI (CI={os.environ.get('CI')}): none of "
                f"{', '.join(CANDIDATES)} is on PATH; {INSTALL_HINT}. Unset CI to skip these tests instead."
            )
        pytest.skip(f"chromium not found: {INSTALL_HINT}")
    return path


@contextlib.contextmanager
def launch(executable: str | None = None, *, timeout: float = 30) -> Iterator[Browser]:
    """Start a headless Chromium (``require_chromium()`` unless ``executable`` is given) and
    kill it, and remove its profile, on exit."""
    browser = Browser(executable or require_chromium(), timeout=timeout)
    try:
        yield browser
    finally:
        browser.close()


class Browser:
    """A running headless Chromium, spoken to over its debugging pipe; use :func:`launch`."""

    def __init__(self, executable: str, *, timeout: float = 30) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="pdmetrics-chromium-"))
        self._log_path = self.profile / "chromium.log"
        self._log = open(self._log_path, "wb")  # noqa: SIM115
        # the pipe ends chromium reads (fd 3) and writes (fd 4), kept above 10 so that moving
        # them onto 3 and 4 in the child cannot overwrite one with the other
        commands_read, commands_write = os.pipe()
        events_read, events_write = os.pipe()
        child_read, child_write = (
            fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (commands_read, events_write)
        )
        os.close(commands_read)
        os.close(events_write)

        def onto_3_and_4() -> None:  # in the child, before exec
            os.dup2(child_read, 3)
            os.dup2(child_write, 4)

        try:
            self.process = subprocess.Popen(
                [executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=self._log,
                close_fds=False,  # keeps fds 3 and 4 (every other descriptor is close-on-exec)
                preexec_fn=onto_3_and_4,  # noqa: PLW1509
                start_new_session=True,  # its own process group: close() kills every helper process
            )
        finally:
            os.close(child_read)
            os.close(child_write)
        self._write, self._read = commands_write, events_read
        self._buffer = b""
        self._next_id = 0
        self._events: dict[str | None, list[dict]] = {}
        self.timeout = timeout
        try:
            self.version = self.send("Browser.getVersion")["product"]
        except BaseException:
            self.close()
            raise

    def send(
        self, method: str, params: dict | None = None, *, session: str | None = None, timeout=None
    ) -> dict:
        """Send one protocol command and return its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._write, data) :]
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            reply = self._receive(deadline, f"the answer to {method}")
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method} failed: {reply['error'].get('message')} ({reply['error']})")
                return reply.get("result", {})

    def events(self, session: str | None) -> list[dict]:
        """The events received so far for a session (``None``: the browser's own)."""
        return self._events.setdefault(session, [])

    def wait_for(self, method: str, *, session: str | None, timeout=None) -> dict:
        """The first event ``method`` of the session, waiting for it when none came yet."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            found = next((e for e in self.events(session) if e["method"] == method), None)
            if found is not None:
                return found
            self._receive(deadline, f"the event {method}")

    def _receive(self, deadline: float, waiting_for: str) -> dict:
        """Read one message; events are filed under their session."""
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise BrowserError(f"Chromium did not send {waiting_for} in time{self._log_tail()}")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium exited while we waited for {waiting_for}{self._log_tail()}")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message = json.loads(raw)
        if "method" in message:
            self.events(message.get("sessionId")).append(message)
        return message

    def _log_tail(self) -> str:
        self._log.flush()
        lines = self._log_path.read_text(errors="replace").splitlines()
        return ("; its output ends with:\n" + "\n".join(lines[-15:])) if lines else ""

    def render(self, path, *, width: int = 1280, height: int = 900, timeout: float | None = None) -> Rendered:
        """Open a local HTML file in a new tab of ``width`` x ``height`` CSS pixels; return the
        page once its load event fired and it has been painted."""
        url = Path(path).resolve().as_uri()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Rendered(self, target, session, url)
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.send(f"{domain}.enable", session=session)
        # a request to the network is still recorded (requestWillBeSent comes first) but fails at
        # once: the tests never reach the internet, and an unroutable address cannot hold the load
        self.send("Network.setBlockedURLs", {"urls": BLOCKED}, session=session)
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self.send("Emulation.setDeviceMetricsOverride", metrics, session=session)
        navigated = self.send("Page.navigate", {"url": url}, session=session)
        if navigated.get("errorText"):
            raise BrowserError(f"cannot open {url}: {navigated['errorText']}")
        self.wait_for("Page.loadEventFired", session=session, timeout=timeout)
        page.evaluate(SETTLED)
        return page

    def close(self) -> None:
        """Close the browser (politely, then by killing its process group) and remove its profile."""
        if self.process.poll() is None:
            with contextlib.suppress(BrowserError, OSError):
                self.send("Browser.close", timeout=5)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # helpers left behind, or a hung browser
        self.process.wait()
        for fd in (self._write, self._read):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


class Rendered:
    """A page open in :class:`Browser`: what it requested, what it logged, and its DOM.

    ``requests`` and ``console`` hold what the browser has reported up to the last command
    sent (rendering ends by waiting for the page to be painted, so everything the page does on
    load is there).
    """

    def __init__(self, browser: Browser, target: str, session: str, url: str) -> None:
        self.browser, self.target, self.session, self.url = browser, target, session, url

    def _events(self, *methods: str) -> list[dict]:
        return [e for e in self.browser.events(self.session) if e["method"] in methods]

    @property
    def requests(self) -> list[str]:
        """Every URL the page requested (``Network.requestWillBeSent``), the page itself excepted."""
        urls = [e["params"]["request"]["url"] for e in self._events("Network.requestWillBeSent")]
        return [url for url in urls if url != self.url]

    @property
    def console(self) -> list[ConsoleMessage]:
        """Console calls, browser log entries (such as failed loads) and uncaught exceptions."""
        messages = []
        for event in self._events("Runtime.consoleAPICalled", "Log.entryAdded", "Runtime.exceptionThrown"):
            params = event["params"]
            if event["method"] == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
                messages.append(ConsoleMessage(params["type"], text, "console"))
            elif event["method"] == "Log.entryAdded":
                entry = params["entry"]
                messages.append(ConsoleMessage(entry["level"], entry["text"], entry["source"]))
            else:
                details = params["exceptionDetails"]
                text = details.get("exception", {}).get("description", details["text"])
                messages.append(ConsoleMessage("error", text, "exception"))
        return messages

    def evaluate(self, expression: str):
        """Evaluate a JavaScript expression in the page and return its value (JSON-like; a
        promise is awaited); a JavaScript exception raises :class:`BrowserError`."""
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        result = self.browser.send("Runtime.evaluate", params, session=self.session)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description", details["text"])
            raise BrowserError(f"{expression!r} raised in the page: {text}")
        return result["result"].get("value")

    def screenshot(self, path, *, full_page: bool = True) -> Path:
        """Write a PNG of the whole page (``full_page=False``: the top, one viewport high)."""
        params: dict = {"format": "png"}
        if full_page:
            size = self.browser.send("Page.getLayoutMetrics", session=self.session)["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.browser.send("Page.captureScreenshot", params, session=self.session)["data"]
        path = Path(path)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        """Close the tab."""
        self.browser.send("Target.closeTarget", {"targetId": self.target})
