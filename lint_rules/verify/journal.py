"""The on-disk journal of a verification: every file's original bytes, kept
before any file is touched, so that ``attnlint verify --restore`` can put
them back after verify itself could not (SIGKILL, a power cut).

The journal is a folder, ``.attnlint_verify/`` in the project root, made
with ``mkdir`` (which fails if it exists: two verifications of one project
cannot run at once, and a new one refuses to start while an old one's
journal is there). It holds:

- ``journal``: one JSON line with each file's path, original bytes (base64),
  mode and times, written and flushed to disk (``fsync``, then the folder's)
  before verify writes any file; then one line per write verify is about
  to make (the file and the digest of its new bytes), each flushed first,
  so ``--restore`` can tell verify's versions of a file from later edits;
- the test runs' logs and witness files (no temporary folder elsewhere);
- a ``.gitignore`` of ``*``, so the originals are never committed.

A verification that ends by itself (success, failure, timeout, Ctrl-C,
SIGTERM) restores or keeps the files as it reports, then deletes the
journal. A journal whose first line is incomplete was cut off before any
file was touched.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import os
import shutil
import time
from pathlib import Path

from lint_rules.fixer import FileNotRewritten, write_atomic
from lint_rules.paths import quote_path
from lint_rules.source import content_digest, file_key, read_regular_file

#: The journal folder, in the project root.
JOURNAL_FOLDER = ".attnlint_verify"
_JOURNAL_FILE = "journal"
_FORMAT = 1


class JournalError(Exception):
    """A journal that cannot be written or read; one line for the user."""


class JournalExists(JournalError):
    """A journal of an earlier verification is still there."""


@dataclasses.dataclass
class JournalledFile:
    path: Path
    data: bytes
    mode: int
    atime_ns: int
    mtime_ns: int


@dataclasses.dataclass
class RestoreResult:
    restored: list[Path] = dataclasses.field(default_factory=list)
    unchanged: list[Path] = dataclasses.field(default_factory=list)
    # Files holding neither their original nor a version verify wrote.
    conflicts: list[Path] = dataclasses.field(default_factory=list)
    errors: list[str] = dataclasses.field(default_factory=list)


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _hex_digest(data: bytes) -> str:
    return content_digest(data).hex()


class Journal:
    """One verification's journal folder (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / _JOURNAL_FILE

    # -- a verification's side ------------------------------------------------

    @classmethod
    def begin(
        cls,
        root: Path,
        files: list[tuple[Path, bytes, os.stat_result]],
        command: list[str],
    ) -> Journal:
        """Create the journal of a verification about to change ``files``
        ((path, original bytes, status) each), durably, before any is touched.
        Raises JournalExists if one is there already."""
        folder = root / JOURNAL_FOLDER
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            raise JournalExists(exists_message(folder)) from None
        except OSError as error:
            raise JournalError(
                f"cannot create the journal {_shown(folder)}: {error.strerror or error}"
            ) from None
        journal = cls(folder)
        header = {
            "format": _FORMAT,
            "pid": os.getpid(),
            "started": time.time(),
            "command": command,
            "files": [
                {
                    "path": str(path),
                    "mode": info.st_mode & 0o7777,
                    "atime_ns": info.st_atime_ns,
                    "mtime_ns": info.st_mtime_ns,
                    "digest": _hex_digest(data),
                    "data": base64.b64encode(data).decode("ascii"),
                }
                for path, data, info in files
            ],
        }
        try:
            (folder / ".gitignore").write_text("*\n", encoding="utf-8")
            descriptor = os.open(
                journal.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600
            )
            try:
                _write_all(descriptor, (json.dumps(header) + "\n").encode("utf-8"))
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
        except OSError as error:
            shutil.rmtree(folder, ignore_errors=True)
            raise JournalError(
                f"cannot write the journal {_shown(journal.path)}: {error.strerror or error}"
            ) from None
        _fsync_folder(folder)
        _fsync_folder(root)
        return journal

    def record_write(self, path: Path, data: bytes) -> None:
        """Note, durably, that ``path`` is about to hold ``data``."""
        line = json.dumps({"wrote": str(path), "digest": _hex_digest(data)}) + "\n"
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            _write_all(descriptor, line.encode("utf-8"))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)

    def remove(self) -> None:
        """Delete the journal folder (the verification is over)."""
        # The journal file first: a folder left without it holds no originals.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        shutil.rmtree(self.folder, ignore_errors=True)
        _fsync_folder(self.folder.parent)

    # -- --restore's side -----------------------------------------------------

    @classmethod
    def find(cls, root: Path) -> Journal | None:
        folder = root / JOURNAL_FOLDER
        return cls(folder) if os.path.lexists(folder) else None

    def _lines(self) -> tuple[dict | None, list[dict]]:
        """The header (None if cut off before it was complete) and the
        complete write records."""
        try:
            with open(self.path, "rb") as handle:
                lines = handle.read().split(b"\n")
        except FileNotFoundError:
            return None, []
        except OSError as error:
            raise JournalError(
                f"cannot read the journal {_shown(self.path)}: {error.strerror or error}"
            ) from None
        # The last element is what follows the last newline: a line being
        # written when verify stopped, never one it completed.
        complete = lines[:-1]
        records = []
        for raw in complete:
            try:
                records.append(json.loads(raw))
            except ValueError:
                raise JournalError(
                    f"the journal {_shown(self.path)} is damaged"
                ) from None
        if not records:
            return None, []
        header = records[0]
        if not isinstance(header, dict) or header.get("format") != _FORMAT:
            raise JournalError(
                f"the journal {_shown(self.path)} was written by another version of attnlint"
            )
        return header, records[1:]

    def files(self) -> list[JournalledFile]:
        header, _ = self._lines()
        if header is None:
            return []
        return [
            JournalledFile(
                Path(entry["path"]),
                base64.b64decode(entry["data"]),
                entry["mode"],
                entry["atime_ns"],
                entry["mtime_ns"],
            )
            for entry in header["files"]
        ]

    def originals(self) -> dict[Path, bytes]:
        return {file.path: file.data for file in self.files()}

    def owner_pid(self) -> int | None:
        header, _ = self._lines()
        return None if header is None else header.get("pid")

    def restore(self, force: bool = False) -> RestoreResult:
        """Put every journalled file back byte for byte (mode and times too),
        then delete the journal. A file holding something verify never wrote
        there (edited since) is left alone and listed as a conflict, and the
        journal is kept, unless ``force``."""
        header, records = self._lines()
        result = RestoreResult()
        if header is None:  # cut off before any file was touched
            self.remove()
            return result
        written: dict[str, set[str]] = {}
        for record in records:
            if isinstance(record, dict) and "wrote" in record:
                written.setdefault(record["wrote"], set()).add(record["digest"])
        for file in self.files():
            try:
                data, info = read_regular_file(file.path)
            except FileNotFoundError:
                data, info = None, None
            except OSError as error:
                result.errors.append(f"{_shown(file.path)}: {error.strerror or error}")
                continue
            if data == file.data:
                result.unchanged.append(file.path)
                continue
            ours = data is not None and _hex_digest(data) in written.get(
                str(file.path), ()
            )
            if not ours and not force:
                result.conflicts.append(file.path)
                continue
            expected = None
            if data is not None and info is not None:
                expected = (file_key(info), content_digest(data))
            try:
                written_info = write_atomic(
                    file.path,
                    file.data,
                    expected=expected,
                    times_ns=(file.atime_ns, file.mtime_ns),
                )
                if written_info.st_mode & 0o7777 != file.mode:
                    os.chmod(file.path, file.mode)
            except FileNotRewritten as refused:
                result.errors.append(f"{_shown(file.path)}: {refused.strerror}")
                continue
            except OSError as error:
                result.errors.append(f"{_shown(file.path)}: {error.strerror or error}")
                continue
            result.restored.append(file.path)
        if not result.conflicts and not result.errors:
            self.remove()
        return result


def exists_message(folder: Path) -> str:
    return (
        f"an earlier `attnlint verify` did not finish: its journal is in "
        f"{_shown(folder)}, and files may still hold unverified fixes; run "
        f"`attnlint verify --restore` in {_shown(folder.parent)} to put every file "
        "back, then verify again"
    )


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def _shown(path: Path) -> str:
    """``path`` in a message: quoted as git quotes a name (see ``quote_path``)."""
    return quote_path(os.fspath(path))
