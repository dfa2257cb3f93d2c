"""Writing files whole or not at all, recording what a run wrote, and checking names that
become file names.

Every file pdmetrics writes goes through :func:`atomic_path`: the writer writes a temporary
file beside the target (same folder, hidden name ending in ``.pdmetrics-part``), which is
flushed to disk (``fsync``) and renamed onto the target (``os.replace``, atomic on one file
system). On any exception, ``KeyboardInterrupt`` included, the temporary file is removed: a
file is there complete, or as it was before.

A *run* (:func:`output_run`: ``report.write``/``to_csv``, ``pdmetrics evaluate``,
``pdmetrics rsmeval``) writes into one folder under one prefix (the experiment id):

1. it first writes the marker ``<prefix>.pdmetrics-incomplete`` in the folder, then each file
   (the marker lists them as they are written, one JSON object a line);
2. at the end it removes the files an earlier run of the same prefix wrote there and this run
   did not write again (only those: the earlier run's record lists them, and a file changed
   since is kept), writes the record ``.pdmetrics-<prefix>.json`` (the files this run wrote)
   and removes the marker.

An interrupted run thus leaves the marker: the folder is recognisably unfinished. The next run
of that prefix reads the marker (or the record) and removes what that run left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath

from pdmetrics.errors import InvalidInputError

__all__ = [
    "atomic_path",
    "write_text",
    "output_run",
    "unfinished_marker",
    "check_name_part",
    "check_file_names",
    "INCOMPLETE_SUFFIX",
    "PART_SUFFIX",
]

#: The end of a temporary file's name (a hidden file beside the target).
PART_SUFFIX = ".pdmetrics-part"
#: The end of the marker of a run that has not finished: ``<prefix>.pdmetrics-incomplete``.
INCOMPLETE_SUFFIX = ".pdmetrics-incomplete"
#: Longest file name (bytes) the common file systems take.
_NAME_MAX = 255

#: The first line of a marker (the files follow, one JSON object a line).
_MARKER_HEADER = (
    "# pdmetrics: this run has not finished (or was interrupted); the files below may be missing or "
    "from an earlier run. Run it again.\n"
)

#: The marker of the last run that did not finish (for the command line's message), or None.
last_unfinished: Path | None = None
_runs: list[Run] = []  # the runs under way, innermost last


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
    as pandas' ``to_excel``, choose the same).

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
    stem = os.fsencode(path.stem)[:100].decode(errors="ignore")  # the name stays short enough
    part = path.with_name(f".{stem}.{secrets.token_hex(4)}{PART_SUFFIX}{path.suffix}")
    try:
        yield part
        _fsync(part)
        for run in _runs:  # recorded before it appears: a run's marker lists every file it put in place
            run.add(path, part.stat())
        os.replace(part, path)  # keeps the size and time recorded
    except BaseException:
        with contextlib.suppress(OSError):
            part.unlink()
        raise


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
def check_name_part(value, option: str, fix: str = "") -> None:
    """Refuse a name (a prefix, an experiment id, a group column) that would put a file
    outside its folder or cannot be a file name: empty, a path separator (``/`` or ``\\``),
    ``..``, an absolute path or drive, a NUL character.

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
    text = str(value)
    reason = _why_not_a_name(text)
    if reason is None:
        return
    plain = "".join(char for char in text.replace("\\", "/").split("/")[-1] if char != "\x00").strip(".")
    fix = fix or f"a file-name prefix must be a plain name, e.g. {plain or 'run1'!r}."
    shown = f"{option}{text!r}" if option.endswith("=") else f"{option} {text!r}"
    raise InvalidInputError(f"{shown} {reason}: {fix}")


def _why_not_a_name(text: str) -> str | None:
    if text == "":
        return "is empty and cannot name files"
    if "\x00" in text:
        return "holds a NUL character, which no file name can hold"
    for separator in ("/", "\\"):
        if separator in text:
            return f"would put files outside the output folder (it holds the path separator {separator!r})"
    if text in (".", ".."):
        return "would put files outside the output folder (it names a folder)"
    if PureWindowsPath(text).drive or PurePosixPath(text).is_absolute():
        return "would put files outside the output folder (it is an absolute path or a drive)"
    return None


def check_file_names(names, option: str, prefix: str | None = None) -> None:
    """Refuse file names longer than the file systems take (before anything is written);
    with ``prefix``, the names of its run's marker and record too."""
    if prefix is not None:
        names = [*names, f"{prefix}{INCOMPLETE_SUFFIX}", f".pdmetrics-{prefix}.json"]
    for name in names:
        if len(os.fsencode(name)) > _NAME_MAX:
            raise InvalidInputError(
                f"{option}: the file name {name[:60]!r}... would be {len(os.fsencode(name))} bytes long; "
                f"file systems take at most {_NAME_MAX}. Use a shorter prefix or group column name."
            )


# ----------------------------------------------------------------------------------------
# runs
# ----------------------------------------------------------------------------------------
class Run:
    """The files a run wrote in ``folder`` (paths relative to it), recorded in its marker."""

    def __init__(self, folder: Path, prefix: str) -> None:
        self.folder = folder
        self.prefix = prefix
        self.marker = folder / f"{prefix}{INCOMPLETE_SUFFIX}"
        self.record = folder / f".pdmetrics-{prefix}.json"
        self.files: dict[str, dict] = {}
        self.removed: list[Path] = []

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

    def earlier(self) -> list[dict]:
        """The files an earlier run of this prefix wrote here (from its record, and from the
        marker of a run that did not finish)."""
        entries = []
        with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
            entries += json.loads(self.record.read_text(encoding="utf-8"))["files"]
        with contextlib.suppress(OSError):
            for line in self.marker.read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    if isinstance(entry, dict):
                        entries.append(entry)
        return entries

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


@contextlib.contextmanager
def output_run(folder, prefix: str, only: str | None = None) -> Iterator[Run]:
    """A run writing into ``folder`` under ``prefix`` (see the module's notes): the marker
    first, the record last; on an error or an interruption the marker stays.

    ``only`` (a file-name ending such as ``".csv"``): the run replaces only the earlier
    files with that ending; the others stay, and stay recorded (``report.write`` in csv
    leaves the xlsx files of the same prefix alone).

    Inside another run whose folder holds ``folder``, the files count in that run: no
    marker or record of its own.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    outer = next((run for run in _runs if _inside(folder, run.folder)), None)
    if outer is not None:
        yield outer
        return
    run = Run(folder, prefix)
    earlier = run.earlier()
    kept = [] if only is None else [entry for entry in earlier if not str(entry.get("path")).endswith(only)]
    earlier = [entry for entry in earlier if entry not in kept]
    lines = _MARKER_HEADER + "".join(json.dumps(entry) + "\n" for entry in earlier)
    write_text(run.marker, lines)  # the earlier run's files stay listed until they are gone
    with contextlib.suppress(FileNotFoundError):
        run.record.unlink()
    global last_unfinished
    _runs.append(run)
    last_unfinished = run.marker
    try:
        yield run
    finally:
        _runs.remove(run)
    run.remove_stale(earlier)
    carried = {entry["path"]: entry for entry in kept if (folder / str(entry["path"])).is_file()}
    record = {
        "files": [*(entry for path, entry in carried.items() if path not in run.files), *run.files.values()]
    }
    write_text(run.record, json.dumps(record, indent=1) + "\n")
    run.marker.unlink()
    last_unfinished = None
    _fsync_folder(folder)


def _inside(folder: Path, outer: Path) -> bool:
    try:
        Path(os.path.abspath(folder)).relative_to(os.path.abspath(outer))
    except ValueError:
        return False
    return True
