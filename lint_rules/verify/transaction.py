"""The files a verification changes: written atomically, put back byte for byte."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

from lint_rules import fixer
from lint_rules.fixer import FileChanged
from lint_rules.source import FileKey, content_digest, file_key
from lint_rules.verify.journal import Journal
from lint_rules.verify.signals import signals_deferred


@dataclasses.dataclass
class _Tracked:
    original: bytes
    mode: int
    atime_ns: int
    mtime_ns: int
    # What the file holds now (None while a write is under way), and its key
    # on disk then: what the next write must find there.
    current: bytes | None
    key: FileKey | None
    last_mtime_s: int


class FileTransaction:
    """Writes files atomically and can put every one back as it was.

    Every write goes through :func:`lint_rules.fixer.write_atomic`, guarded:
    the file must still be the one this transaction read or last wrote. A
    file somebody else changed while verify ran (neither its original content
    nor the last one written here) is left alone and listed in ``conflicts``;
    a write that finds it so raises ``FileChanged``. With a ``journal``, each
    write is noted there, durably, before it is made. A write that fails
    otherwise (a full disk) raises its OSError, naming the file; a file
    that cannot be put back is listed in ``failures``, with why, and the
    restore goes on with the others.
    """

    def __init__(self, journal: Journal | None = None) -> None:
        self.journal = journal
        self._files: dict[Path, _Tracked] = {}
        self.conflicts: list[Path] = []
        # Files a restore could not put back, each with why (the journal
        # still holds their originals).
        self.failures: list[tuple[Path, str]] = []
        # Signals that arrived during the last restore (held until it ended).
        self.signals_held: list[int] = []

    def remember(
        self, path: Path, data: bytes, info: os.stat_result | None = None
    ) -> None:
        """Record ``path``'s original content (already read) and its status
        when read (default: now)."""
        info = info if info is not None else path.stat()
        self._files[path] = _Tracked(
            original=data,
            mode=info.st_mode & 0o7777,
            atime_ns=info.st_atime_ns,
            mtime_ns=info.st_mtime_ns,
            current=data,
            key=file_key(info),
            last_mtime_s=info.st_mtime_ns // 1_000_000_000,
        )

    def write(self, path: Path, data: bytes) -> bool:
        """Give ``path`` the content ``data``; return whether it changed."""
        tracked = self._files[path]
        if tracked.current == data:
            return False
        if data == tracked.original:
            self._write(path, tracked, data, tracked.mtime_ns)
            return True
        # A whole second no earlier version of this file had: a cached .pyc of
        # an earlier version can never match (it records seconds and size).
        mtime = max(int(time.time()), tracked.last_mtime_s + 1)
        tracked.last_mtime_s = mtime
        self._write(path, tracked, data, mtime * 1_000_000_000)
        return True

    def _write(self, path: Path, tracked: _Tracked, data: bytes, mtime_ns: int) -> None:
        current = tracked.current
        expected = None
        if current is not None and tracked.key is not None:
            expected = (tracked.key, content_digest(current))
        if self.journal is not None:
            self.journal.record_write(path, data)
        # Unknown until the write is known to be done.
        key = tracked.key
        tracked.current, tracked.key = None, None
        try:
            info = fixer.write_atomic(
                path, data, expected=expected, times_ns=(tracked.atime_ns, mtime_ns)
            )
        except FileChanged:
            # Refused before anything was written: the file holds somebody
            # else's text, which a restore must leave alone (not take for
            # a write of this transaction cut short).
            tracked.current, tracked.key = current, key
            raise
        except OSError as error:
            # The file holds one version or the other, whole (the write is
            # atomic); which, a restore finds out. Say which file it was.
            if error.filename is None:
                error.filename = str(path)
            raise
        tracked.current, tracked.key = data, file_key(info)

    def changed(self) -> list[Path]:
        return [p for p, t in self._files.items() if t.current != t.original]

    def restore(self) -> list[Path]:
        """Put back every changed file; return the paths restored.

        Signals that arrive meanwhile are held back and listed in
        ``signals_held``: a restore is never left half done. A file that
        cannot be read or written goes to ``failures`` and the others are
        still put back.
        """
        restored = []
        with signals_deferred() as self.signals_held:
            for path, tracked in self._files.items():
                expected = tracked.current
                try:
                    on_disk: bytes | None = path.read_bytes()
                except FileNotFoundError:
                    on_disk = None
                except OSError as error:
                    self.failures.append((path, error.strerror or str(error)))
                    continue
                if expected == tracked.original and on_disk == tracked.original:
                    continue
                if expected is not None and on_disk not in (
                    expected,
                    tracked.original,
                ):
                    self.conflicts.append(path)
                    continue
                if expected is None and on_disk is not None:
                    # A write was cut short: the file holds one version or
                    # the other, whole; guard against the one it holds.
                    tracked.current = on_disk
                    tracked.key = file_key(path.stat())
                try:
                    self._write(path, tracked, tracked.original, tracked.mtime_ns)
                except FileChanged:
                    self.conflicts.append(path)
                    continue
                except OSError as error:
                    self.failures.append((path, error.strerror or str(error)))
                    continue
                restored.append(path)
        return restored
