"""Ctrl-C (or SIGTERM) while the ``pdmetrics`` command starts: one line, no traceback.

The command's imports (pandas, the accessors) take about a second, before its own signal
handling is in place (:func:`pdmetrics.cli.main`). Imported first by ``pdmetrics/__init__``:
in the ``pdmetrics`` command (or ``python -m pdmetrics.cli``) only, and only while Python's
own handler is there, it installs a handler that says the command stopped before writing
anything and exits. A program that imports pdmetrics keeps its own signal handling.
"""

from __future__ import annotations

import os
import signal
import sys
import threading


def _is_command() -> bool:
    name = os.path.basename(sys.argv[0]) if sys.argv else ""
    given = list(getattr(sys, "orig_argv", []))
    module = given[given.index("-m") + 1 : given.index("-m") + 2] if "-m" in given else []
    return name in ("pdmetrics", "pdmetrics.exe", "pdmetrics-script.py") or module == ["pdmetrics.cli"]


def _starting(signum, frame) -> None:
    os.write(2, b"pdmetrics: interrupted while starting; nothing was written.\n")
    os._exit(128 + signum)


def install() -> None:
    if threading.current_thread() is not threading.main_thread() or not _is_command():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _starting)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _starting)


install()
