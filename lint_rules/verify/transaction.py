"""The files a verification changes: written atomically, put back byte for byte."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

from lint_rules.fixer import write_atomic
from lint_rules.verify.signals import signals_deferred


@dataclasses.dataclass
class _Original:
    data: bytes
    mode: int
    atime_ns: int
    mtime_ns: int


class FileTransaction:
    """Writes files atomically and can put every one back as it was.

    A file somebody else changed while verify ran (neither its original
    content nor the last one written here) is left alone and listed in
    ``conflicts``.
    """

    def __init__(self) -> None:
        self._originals: dict[Path, _Original] = {}
        # What the file holds now; None while a write is under way.
        self._current: dict[Path, bytes | None] = {}
        self._last_mtime: dict[Path, int] = {}
        self.conflicts: list[Path] = []
        # Signals that arrived during the last restore (held until it ended).
        self.signals_held: list[int] = []

    def remember(self, path: Path, data: bytes) -> None:
        """Record ``path``'s original content (already read) and metadata."""
        stat = path.stat()
        self._originals[path] = _Original(
            data, stat.st_mode & 0o7777, stat.st_atime_ns, stat.st_mtime_ns
        )
        self._current[path] = data
        self._last_mtime[path] = stat.st_mtime_ns // 1_000_000_000

    def write(self, path: Path, data: bytes) -> bool:
        """Give ``path`` the content ``data``; return whether it changed."""
        if self._current[path] == data:
            return False
        original = self._originals[path]
        if data == original.data:
            self._restore_one(path, original)
            return True
        # A whole second no earlier version of this file had: a cached .pyc of
        # an earlier version can never match (it records seconds and size).
        mtime = max(int(time.time()), self._last_mtime[path] + 1)
        self._last_mtime[path] = mtime
        self._current[path] = None
        write_atomic(path, data)
        os.utime(path, ns=(original.atime_ns, mtime * 1_000_000_000))
        self._current[path] = data
        return True

    def changed(self) -> list[Path]:
        return [
            p for p, data in self._current.items() if data != self._originals[p].data
        ]

    def restore(self) -> list[Path]:
        """Put back every changed file; return the paths restored.

        Signals that arrive meanwhile are held back and listed in
        ``signals_held``: a restore is never left half done.
        """
        restored = []
        with signals_deferred() as self.signals_held:
            for path, original in self._originals.items():
                expected = self._current[path]
                try:
                    on_disk: bytes | None = path.read_bytes()
                except FileNotFoundError:
                    on_disk = None
                if expected == original.data and on_disk == original.data:
                    continue
                if expected is not None and on_disk not in (expected, original.data):
                    self.conflicts.append(path)
                    continue
                self._restore_one(path, original)
                restored.append(path)
        return restored

    def _restore_one(self, path: Path, original: _Original) -> None:
        self._current[path] = None
        write_atomic(path, original.data)
        os.utime(path, ns=(original.atime_ns, original.mtime_ns))
        self._current[path] = original.data
