"""Writing files whole or not at all, recording what a run wrote, and checking names that
become file names.

Every file pdmetrics writes goes through :func:`atomic_path`: the writer writes a temporary
file beside the target (same folder, hidden name ending in ``.pdmetrics-part``), which is
flushed to disk (``fsync``) and renamed onto the target (``os.replace``, atomic on one file
system). On any exception, ``KeyboardInterrupt`` included, the temporary file is removed: a
file is there complete, or as it was before.

A *run* (:func:`output_run`: ``report.write``/``to_csv``, ``pdmetrics evaluate``,
``pdmetrics rsmeval``, ``pdmetrics rsmcompare``, ``pdmetrics rsmsummarize``) writes into one
folder under one prefix (the experiment id):

1. it first creates the marker ``<prefix>.pdmetrics-incomplete`` in the folder, atomically
   and only if it is not there (``O_CREAT | O_EXCL``): the marker is the prefix's lock and
   names the run (its kind, process id, host and start time). A marker of a run that still
   runs refuses the new run; a marker whose process is gone is from an interrupted run,
   which the new run takes over (a note says so). Then each file (the marker lists them as
   they are written, one JSON object a line);
2. it removes the temporary files an interrupted run of the prefix left behind (only
   names of that prefix's temporary files, and none a live run of another prefix claims);
3. at the end it removes the files an earlier run of the same kind (``evaluate``,
   ``rsmeval``, ``write``) and prefix wrote there and this run did not write again (only
   those: the earlier run's record lists them, and a file changed since is kept), writes the
   record ``.pdmetrics-<kind>-<prefix>.json`` (the files this run wrote) and removes the
   marker. A run never removes a file another kind of run recorded.

An interrupted run thus leaves the marker: the folder is recognisably unfinished. The next run
of that prefix reads the marker (or the record) and removes what that run left behind.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import secrets
import socket
import time
from collections.abc import Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath

from pdmetrics.errors import InvalidInputError, PdmetricsError

__all__ = [
    "atomic_path",
    "write_text",
    "output_run",
    "unfinished_marker",
    "check_name_part",
    "check_file_names",
    "check_free",
    "is_temporary",
    "record_name",
    "shown",
    "INCOMPLETE_SUFFIX",
    "PART_SUFFIX",
]

#: The end of a temporary file's name (a hidden file beside the target).
PART_SUFFIX = ".pdmetrics-part"
#: The end of the marker of a run that has not finished: ``<prefix>.pdmetrics-incomplete``.
INCOMPLETE_SUFFIX = ".pdmetrics-incomplete"
#: The kinds of run; each keeps its own record, and removes only files its own kind recorded.
RUN_KINDS = ("evaluate", "rsmeval", "rsmcompare", "rsmsummarize", "write")
#: Longest file name (bytes) the common file systems take.
_NAME_MAX = 255
#: A temporary file's name: ``.<stem>.<8 hex>.pdmetrics-part<suffix>`` (and ``.<n>`` pieces).
_PART_NAME = re.compile(r"\.(?P<stem>.*)\.[0-9a-f]{8}" + re.escape(PART_SUFFIX) + r"(?:\..*)?", re.DOTALL)
#: The longest stem (bytes) a temporary file's name keeps.
_PART_STEM = 100
#: Names Windows reserves for devices (with any extension), whatever the case.
_WINDOWS_DEVICES = {
    "CON",
    "PRN",
    "AUX",
    "NUL",
    *(f"COM{n}" for n in range(1, 10)),
    *(f"LPT{n}" for n in range(1, 10)),
}
#: Characters that reorder how a name is shown (bidirectional controls): a name holding one
#: can show as another name.
_BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

#: The first line of a marker (the run's owner and the files follow, one JSON object a line).
_MARKER_HEADER = (
    "# pdmetrics: this run has not finished (or was interrupted); the files below may be missing or "
    "from an earlier run. Run it again.\n"
)

#: The marker of the last run that did not finish (for the command line's message), or None.
last_unfinished: Path | None = None
_runs: list[Run] = []  # the runs under way, innermost last


def shown(option: str, value, limit: int = 60) -> str:
    """How a message shows an option and its value: ``prefix='x'`` for a keyword (ending in
    ``=``), ``--prefix 'x'`` for a command-line option or a configuration key."""
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 4] + "...'"
    return f"{option}{text}" if option.endswith("=") else f"{option} {text}"


def _fsync(path, flags: int = os.O_RDWR) -> None:
    try:
        descriptor = os.open(path, flags)
    except PermissionError:  # a file the writer made read-only: reading is enough on POSIX
        descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _fsync_folder(folder) -> None:
    with contextlib.suppress(OSError):  # not every system can open a folder (Windows)
        _fsync(folder, os.O_RDONLY)


@contextlib.contextmanager
def atomic_path(path) -> Iterator[Path]:
    """A temporary path beside ``path`` for a writer to write; renamed onto ``path`` once the
    block ends without an error, removed otherwise.

    The temporary name keeps ``path``'s suffix (writers that choose their format by it, such
    as pandas' ``to_excel``, choose the same). An ``OSError`` names ``path``, never the
    temporary file.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = pathlib.Path(folder) / "table.csv"
    ...     with atomic_path(target) as part:
    ...         _ = part.write_text("a,b\\n1,2\\n")
    ...         before = target.exists()
    ...     (before, target.read_text(), sorted(p.name for p in pathlib.Path(folder).iterdir()))
    (False, 'a,b\\n1,2\\n', ['table.csv'])
    """
    path = Path(path)
    stem = os.fsencode(path.stem)[:_PART_STEM].decode(errors="ignore")  # the name stays short enough
    part = path.with_name(f".{stem}.{secrets.token_hex(4)}{PART_SUFFIX}{path.suffix}")
    try:
        yield part
        _fsync(part)
        for run in _runs:  # recorded before it appears: a run's marker lists every file it put in place
            run.add(path, part.stat())
        os.replace(part, path)  # keeps the size and time recorded
    except BaseException as error:
        with contextlib.suppress(OSError):
            part.unlink()
        if isinstance(error, OSError) and error.errno is not None:
            names = {os.fspath(name) for name in (error.filename, error.filename2) if name is not None}
            if any(PART_SUFFIX in name for name in names):  # the user knows the target, not our name
                raise type(error)(error.errno, error.strerror, os.fspath(path)) from None
        raise


def is_temporary(name: str) -> bool:
    """Whether ``name`` is the name of one of pdmetrics' temporary files."""
    return _PART_NAME.fullmatch(name) is not None


def unfinished_marker(*, reset: bool = False) -> Path | None:
    """The marker of the last run that did not finish, if it is still there (``reset``:
    forget it, at the start of a command)."""
    global last_unfinished
    if reset:
        last_unfinished = None
    return last_unfinished if last_unfinished is not None and last_unfinished.exists() else None


def write_text(path, text: str) -> Path:
    """``Path(path).write_text(text, encoding="utf-8")``, whole or not at all."""
    with atomic_path(path) as part:
        part.write_text(text, encoding="utf-8")
    return Path(path)


# ----------------------------------------------------------------------------------------
# names that become file names
# ----------------------------------------------------------------------------------------
def check_name_part(value, option: str, fix: str = "", *, whole: bool = False) -> None:
    """Refuse a name (a prefix, an experiment id, a group column) that would put a file
    outside its folder or cannot be a portable file name: not a string (with ``whole``),
    empty or blank, starting with a dot (hidden files) or ending with a space or a dot (Windows
    strips them), a path separator (``/`` or ``\\``), ``..``, an absolute path or drive, a NUL or
    other control character, a lone surrogate, a bidirectional control character; with
    ``whole`` (the name is a whole file name's stem, as a prefix is) a name Windows reserves
    (``NUL``, ``CON``, ``COM1``, ...).

    ``option`` is how the user gave it (``"--prefix"``, ``"prefix="``, ``"experiment_id"``);
    ``fix`` ends the message.

    >>> check_name_part("run_1", "prefix=")
    >>> try:
    ...     check_name_part("../x", "prefix=")
    ... except ValueError as error:
    ...     print(error)
    prefix='../x' would put files outside the output folder (it holds the path separator '/'): a file-name
    prefix must be a plain name, e.g. 'x'.
    """
    if whole and not isinstance(value, str):
        raise InvalidInputError(
            f"{shown(option, value)}: the prefix starts every file name and must be a string, "
            f"e.g. {shown(option, 'run1')}."
        )
    text = str(value)
    reason = _why_not_a_name(text, whole)
    if reason is None:
        return
    fix = fix or f"a file-name prefix must be a plain name, e.g. {_plain(text)!r}."
    raise InvalidInputError(f"{shown(option, text)} {reason}: {fix}")


def _plain(text: str) -> str:
    """A plain name like ``text`` (the suggestion of a message): its last path part, with
    what a file name cannot hold replaced."""
    last = text.replace("\\", "/").split("/")[-1]
    plain = re.sub(r"[^\w.\-]|[\ud800-\udfff]", "_", last, flags=re.ASCII).strip("._")
    if not plain or plain == text or plain.split(".")[0].upper() in _WINDOWS_DEVICES:
        return "run1"
    return plain


def _why_not_a_name(text: str, whole: bool = False) -> str | None:
    if text == "":
        return "is empty and cannot name files"
    if "\x00" in text:
        return "holds a NUL character, which no file name can hold"
    for separator in ("/", "\\"):
        if separator in text:
            return f"would put files outside the output folder (it holds the path separator {separator!r})"
    if text in (".", ".."):
        return "would put files outside the output folder (it names a folder)"
    if not text.strip():
        return "is blank (spaces only) and cannot name files"
    if text.startswith("."):
        return "starts with a dot, which hides its files (ls and file browsers do not show them)"
    if text[-1] in " .":
        return f"ends with {'a space' if text[-1] == ' ' else 'a dot'}, which Windows strips from file names"
    if PureWindowsPath(text).drive or PurePosixPath(text).is_absolute():
        return "would put files outside the output folder (it is an absolute path or a drive)"
    surrogate = re.search(r"[\ud800-\udfff]", text)
    if surrogate:
        return (
            f"holds the lone surrogate {surrogate.group()!r}, which is not a character (text decoded "
            "from bytes that are not UTF-8?) and cannot be written as a file name"
        )
    control = re.search(r"[\x01-\x1f\x7f]", text)
    if control:
        return f"holds the control character {control.group()!r}, which file names on Windows cannot hold"
    bidi = next((char for char in text if char in _BIDI_CONTROLS), None)
    if bidi is not None:
        return (
            f"holds the bidirectional control character {bidi!r}, which makes a file name show as "
            "another name"
        )
    if whole and text.split(".")[0].rstrip(" ").upper() in _WINDOWS_DEVICES:
        return f"is a device name on Windows ({text.split('.')[0].upper()}), which no file there can have"
    return None


def record_name(kind: str, prefix: str) -> str:
    """The name of the record of a ``kind`` run of ``prefix``: the files it wrote."""
    return f".pdmetrics-{kind}-{prefix}.json"


def check_file_names(
    names,
    option: str,
    prefix: str | None = None,
    *,
    groups=(),
    group_option: str = "by=",
    kind: str = "evaluate",
) -> None:
    """Refuse file names longer than the file systems take (before anything is written);
    with ``prefix``, the names of its run's marker and record too (the record of a ``kind``
    run; the default, ``"evaluate"``, is longer than ``"rsmeval"`` and ``"write"``). A name too long because
    of a subgroup column (``_by_<group>``) blames ``group_option``, else ``option`` (the
    prefix)."""
    if prefix is not None:
        names = [*names, f"{prefix}{INCOMPLETE_SUFFIX}", record_name(kind, prefix)]
    for name in names:
        size = len(os.fsencode(name))
        if size <= _NAME_MAX:
            continue
        start = (
            f"the file name {name[:60]!r}... would be {size} bytes long; file systems take at most "
            f"{_NAME_MAX}"
        )
        group = next((group for group in groups if f"_by_{group}" in name), None)
        if group is not None:
            room = len(os.fsencode(str(group))) - (size - _NAME_MAX)
            raise InvalidInputError(
                f"{shown(group_option, group)}: {start}. The subgroup column names files "
                f"(<prefix>_eval_by_<column>...): rename it to a name of at most {max(room, 1)} bytes "
                f"(e.g. df.rename(columns={{{str(group)[:20] + '...'!r}: 'group'}}))."
            )
        room = len(os.fsencode(str(prefix or ""))) - (size - _NAME_MAX)
        fix = f"use a prefix of at most {room} bytes" if room > 0 else "use a shorter prefix"
        raise InvalidInputError(f"{shown(option, prefix if prefix is not None else name)}: {start}; {fix}.")


# ----------------------------------------------------------------------------------------
# runs
# ----------------------------------------------------------------------------------------
class Run:
    """The files a run wrote in ``folder`` (paths relative to it), recorded in its marker."""

    def __init__(self, folder: Path, prefix: str, kind: str = "write") -> None:
        self.folder = folder
        self.prefix = prefix
        self.kind = kind
        self.marker = folder / f"{prefix}{INCOMPLETE_SUFFIX}"
        self.record = folder / record_name(kind, prefix)
        self.files: dict[str, dict] = {}
        self.removed: list[Path] = []
        self.notes: list[str] = []

    def add(self, path: Path, stat: os.stat_result) -> None:
        try:
            relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(self.folder))
        except ValueError:  # not in this run's folder
            return
        if relative.parts[0] in (self.marker.name, self.record.name):
            return
        entry = {"path": relative.as_posix(), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
        self.files[entry["path"]] = entry
        with open(self.marker, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")

    def discard(self, path: Path) -> None:
        """``path`` (written by this run) was removed again."""
        relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(self.folder)).as_posix()
        self.files.pop(relative, None)

    def recorded(self) -> list[dict]:
        """The files the last finished run of this kind and prefix wrote here (its record)."""
        with contextlib.suppress(OSError, ValueError, TypeError, AttributeError, KeyError):
            files = json.loads(self.record.read_text(encoding="utf-8"))["files"]
            return [entry for entry in files if isinstance(entry, dict)]
        return []

    def remove_stale(self, earlier: list[dict]) -> None:
        """Remove the files of ``earlier`` this run did not write again, if they are still
        as the earlier run left them (same size and time): never another file."""
        for entry in earlier:
            relative = entry.get("path")
            if not isinstance(relative, str) or relative in self.files or _why_outside(relative):
                continue
            path = self.folder / relative
            with contextlib.suppress(OSError):
                stat = path.lstat()
                unchanged = stat.st_size == entry.get("size") and stat.st_mtime_ns == entry.get("mtime_ns")
                if path.is_file() and not path.is_symlink() and unchanged:
                    path.unlink()
                    self.removed.append(path)


def _why_outside(relative: str) -> bool:
    parts = PurePosixPath(relative).parts
    return not parts or PurePosixPath(relative).is_absolute() or ".." in parts or "\\" in relative


def _read_marker(marker: Path) -> tuple[dict | None, list[dict]] | None:
    """A marker's owner (None for an empty marker or one without owner) and its files; None
    when there is no marker."""
    try:
        text = marker.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError:
        return None, []
    owner, entries = None, []
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            if isinstance(entry, dict) and "run" in entry and owner is None:
                owner = entry
            elif isinstance(entry, dict) and isinstance(entry.get("path"), str):
                entries.append(entry)
    return owner, entries


def _alive(owner: dict | None, marker: Path) -> bool | None:
    """Whether the run that owns a marker still runs: True, False, or None when this process
    cannot tell (another host, or a system without a process check)."""
    if owner is None:
        return False  # a marker written before markers named their run: an interrupted run
    if owner.get("host") != socket.gethostname():
        return None
    pid = owner.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    if pid == os.getpid():  # this process: alive while one of its runs holds the marker
        return any(os.path.abspath(run.marker) == os.path.abspath(marker) for run in _runs)
    if os.name != "posix":
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: another user's live process
        return True
    return True


def _busy(run: Run, owner: dict | None, alive: bool | None, folder_option: str, prefix_option: str):
    where = f"{shown(folder_option, str(run.folder), 4096)} with {shown(prefix_option, run.prefix)}"
    who = (
        f"pdmetrics {owner.get('run')} run (process {owner.get('pid')} on {owner.get('host')}, started "
        f"{owner.get('started')})"
        if owner
        else "pdmetrics run"
    )
    if alive is None:
        return PdmetricsError(
            f"{where}: the marker {run.marker.name} says a {who} is writing there, and pdmetrics cannot tell "
            f"from here whether it still runs. If it does not, remove {run.marker} and run again; else "
            f"choose another folder or prefix."
        )
    return PdmetricsError(
        f"{where}: another {who} is writing files with this prefix there (its marker: "
        f"{run.marker.name}). Wait until it finishes, or choose another folder or prefix."
    )


def check_free(folder, prefix: str, kind: str, option: str, prefix_option: str) -> None:
    """Refuse early (before a command reads and computes) when a live run holds ``prefix`` in
    ``folder``; the run itself takes the lock later (:func:`output_run`)."""
    run = Run(Path(folder), prefix, kind)
    found = _read_marker(run.marker) if os.fspath(folder) != "" else None
    if found is not None and (found[0] is not None or found[1]):
        alive = _alive(found[0], run.marker)
        if alive is not False:
            raise _busy(run, found[0], alive, option, prefix_option)


def _lock(run: Run, folder_option: str, prefix_option: str) -> list[dict]:
    """Create the run's marker (the prefix's lock); returns the files an interrupted earlier
    run of the same kind listed in its marker."""
    owner = {
        "run": run.kind,
        "prefix": run.prefix,
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    taken: list[dict] = []
    stale: list[Path] = []
    deadline = time.monotonic() + 2.0
    try:
        while True:
            try:
                descriptor = os.open(run.marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                pass
            else:
                try:  # one write: a reader sees the owner as soon as it sees anything
                    os.write(descriptor, (_MARKER_HEADER + json.dumps(owner) + "\n").encode("utf-8"))
                finally:
                    os.close(descriptor)
                return taken
            found = _read_marker(run.marker)
            if found is None:  # removed meanwhile: try again
                continue
            theirs, entries = found
            if theirs is None and not entries and time.monotonic() < deadline:
                time.sleep(0.02)  # being created by another run: its owner line follows at once
                continue
            alive = _alive(theirs, run.marker)
            if alive is not False:
                raise _busy(run, theirs, alive, folder_option, prefix_option)
            if theirs is not None and theirs.get("run") != run.kind:
                raise PdmetricsError(
                    f"{shown(folder_option, str(run.folder), 4096)} with "
                    f"{shown(prefix_option, run.prefix)}: the marker {run.marker.name} is from an "
                    f"interrupted `pdmetrics {theirs.get('run')}` run "
                    f"(process {theirs.get('pid')}, started {theirs.get('started')}), whose files it lists "
                    "may be incomplete. Run that again to finish it, remove the marker (and the files it "
                    "lists), or choose another folder or prefix."
                )
            moved = run.folder / f".{run.prefix}.{secrets.token_hex(4)}{PART_SUFFIX}{INCOMPLETE_SUFFIX}"
            try:
                os.rename(run.marker, moved)
            except FileNotFoundError:  # another run took it over first
                continue
            stale.append(moved)
            again = _read_marker(moved)
            if again is None or again[0] != theirs:  # took a newer live marker: give it back
                with contextlib.suppress(OSError):
                    os.link(moved, run.marker)
                raise _busy(run, again[0] if again else None, True, folder_option, prefix_option)
            if theirs is not None:
                taken += entries
            run.notes.append(
                f"the marker {run.marker.name} in {run.folder} is from an earlier run that did not finish"
                + (
                    ""
                    if theirs is None
                    else " (an earlier call in this process)"
                    if theirs.get("pid") == os.getpid()
                    else f" (process {theirs.get('pid')} no longer runs)"
                )
                + "; this run takes over and removes what it left behind"
            )
    finally:
        for path in stale:
            with contextlib.suppress(OSError):
                path.unlink()


def _remove_leftovers(run: Run, folders: list[Path]) -> list[str]:
    """Remove the temporary files an interrupted run of ``run``'s prefix left in ``folders``
    (not those a live run of a longer prefix may be writing); returns their names."""
    mine = [os.fsencode(f"{run.prefix}_")]
    exact = [os.fsencode(run.prefix), os.fsencode(f".pdmetrics-{run.kind}-{run.prefix}")[:_PART_STEM]]
    others = []  # the prefixes of the other live runs in the folder
    for marker in run.folder.glob(f"*{INCOMPLETE_SUFFIX}"):
        prefix = marker.name[: -len(INCOMPLETE_SUFFIX)]
        found = _read_marker(marker)
        if prefix != run.prefix and found is not None and _alive(found[0], marker) is not False:
            others.append(os.fsencode(f"{prefix}_"))

    def claims(start: bytes, stem: bytes) -> bool:
        truncated = len(stem) >= _PART_STEM - 3 and len(stem) < len(start)
        return start.startswith(stem) if truncated else stem.startswith(start)

    removed = []
    for folder in folders:
        with contextlib.suppress(OSError):
            for path in folder.iterdir():
                match = _PART_NAME.fullmatch(path.name)
                if match is None:
                    continue
                stem = os.fsencode(match.group("stem"))
                if not (stem in exact or any(claims(start, stem) for start in mine)):
                    continue
                if any(claims(start, stem) for start in others if len(start) > len(mine[0])):
                    continue
                with contextlib.suppress(OSError):
                    if path.is_file() and not path.is_symlink():
                        path.unlink()
                        removed.append(path.relative_to(run.folder).as_posix())
    return removed


@contextlib.contextmanager
def output_run(
    folder,
    prefix: str,
    kind: str = "write",
    only: str | None = None,
    *,
    option: str = "directory=",
    prefix_option: str = "prefix=",
    subfolders=(),
) -> Iterator[Run]:
    """A run of ``kind`` writing into ``folder`` under ``prefix`` (see the module's notes):
    the marker first (the prefix's lock), the record last; on an error or an interruption the
    marker stays.

    ``only`` (a file-name ending such as ``".csv"``): the run replaces only the earlier
    files with that ending; the others stay, and stay recorded (``report.write`` in csv
    leaves the xlsx files of the same prefix alone). ``option``/``prefix_option``: how the
    user gave the folder and the prefix (for messages). ``subfolders``: the folders under
    ``folder`` the run writes in (their leftover temporary files are removed too).

    Inside another run whose folder holds ``folder``, the files count in that run: no
    marker or record of its own.
    """
    if os.fspath(folder) == "":  # Path("") is the current folder: a forgotten value, not a choice
        raise InvalidInputError(f"{shown(option, '')}: give a folder, e.g. {shown(option, 'results')}.")
    folder = Path(folder)
    outer = next((run for run in _runs if _inside(folder, run.folder)), None)
    if outer is not None:
        folder.mkdir(parents=True, exist_ok=True)
        yield outer
        return
    _make_folder(folder, option)
    run = Run(folder, prefix, kind)
    try:
        taken = _lock(run, option, prefix_option)
    except PermissionError as error:
        raise InvalidInputError(
            f"{shown(option, str(folder), 4096)}: pdmetrics cannot write in this folder ({error.strerror}); "
            "give a folder you can write to."
        ) from None
    global last_unfinished
    last_unfinished = run.marker
    _runs.append(run)
    try:
        left = _remove_leftovers(run, [folder, *(folder / name for name in subfolders)])
        if left:
            run.notes.append(
                f"removed {len(left)} temporary files an interrupted run of {prefix!r} left in {folder}: "
                + ", ".join(left)
            )
        earlier = run.recorded() + taken
        kept = (
            [] if only is None else [entry for entry in earlier if not str(entry.get("path")).endswith(only)]
        )
        earlier = [entry for entry in earlier if entry not in kept]
        if earlier:  # the earlier run's files stay listed until they are gone
            with open(run.marker, "a", encoding="utf-8") as handle:
                handle.write("".join(json.dumps(entry) + "\n" for entry in earlier))
        with contextlib.suppress(FileNotFoundError):
            run.record.unlink()
        yield run
    finally:
        _runs.remove(run)
    run.remove_stale(earlier)
    carried = {entry["path"]: entry for entry in kept if (folder / str(entry["path"])).is_file()}
    record = {
        "run": kind,
        "prefix": prefix,
        "files": [*(entry for path, entry in carried.items() if path not in run.files), *run.files.values()],
    }
    write_text(run.record, json.dumps(record, indent=1) + "\n")
    run.marker.unlink()
    last_unfinished = None
    _fsync_folder(folder)


def _make_folder(folder: Path, option: str) -> None:
    """Create the output folder, or say clearly why it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocking = next(
            (path for path in [folder, *folder.parents] if path.exists() and not path.is_dir()), folder
        )
        raise InvalidInputError(
            f"{shown(option, str(folder), 4096)}: {str(blocking)!r} is a file, not a folder; give a folder "
            f"(e.g. {shown(option, str(blocking) + '_results', 4096)})."
        ) from None
    except PermissionError as error:
        raise InvalidInputError(
            f"{shown(option, str(folder), 4096)}: pdmetrics cannot create this folder "
            f"({error.strerror}); give a folder you can write to."
        ) from None


def _inside(folder: Path, outer: Path) -> bool:
    try:
        Path(os.path.abspath(folder)).relative_to(os.path.abspath(outer))
    except ValueError:
        return False
    return True
