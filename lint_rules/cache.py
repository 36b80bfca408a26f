"""The results cache: each file's findings, kept until the file or the settings change.

Keyed like ruff's cache. One cache file per project (the folder of the
``pyproject.toml``, or the current one), under ``cache-dir`` (default
``.attnlint_cache/``, which holds a ``CACHEDIR.TAG`` and a ``.gitignore``), named
after a fingerprint of everything that decides a file's findings: the attnlint
version, a stamp of attnlint's own source files, the Python version, the
enabled rules, ``per-file-ignores`` and ``graph-state-methods``. Inside it, an
entry per checked file: its absolute path, size and ``mtime_ns``, and its
findings. A file whose size or modification time differs is checked again.

Safe to share between runs:

- Files modified less than :data:`RACY_NS` before the run started are not
  stored: a second write within the file system's timestamp granularity could
  leave size and ``mtime_ns`` unchanged (git's "racily clean" entries).
- The cache file is written to a temporary file and renamed over the old one,
  so a reader sees a complete file or none; two runs writing at once each
  leave a complete file (the last rename wins; entries the other run stored
  since this one loaded are merged in first).
- A cache file that is truncated, corrupt, of another format or of other
  settings is ignored (and replaced), never trusted: it carries a magic
  header, its length and a CRC-32 of its contents.

Old caches are pruned: a run that writes its cache file also deletes, in
the cache folder, the cache files of other settings or attnlint versions
that no run has used for :data:`STALE_AFTER_NS` (a run touches the file it
loads at most once a day, so a file's modification time tells when it was
last used), the version folders they leave empty, and temporary files left
by runs that were killed while writing (older than :data:`STALE_TEMPORARY_NS`).
``attnlint clean`` deletes the whole cache folder.

Findings that depend on more than the file (internal rule errors, unreadable
files) are never stored. Nothing here imports the rules, so a run whose files
all hit the cache does not load them.
"""

from __future__ import annotations

import marshal
import os
import sys
import time
import zlib
from collections.abc import Iterable

from lint_rules import __version__
from lint_rules.diagnostics import (
    IO_ERROR_CODE,
    Applicability,
    Edit,
    Finding,
    Fix,
    Location,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from lint_rules.config import Settings

#: Bumped when the layout of a cache file changes.
FORMAT = 1
_MAGIC = b"attnlint-cache\x00"
_HEADER = len(_MAGIC) + 4 + 8  # magic, CRC-32, payload length
#: Files modified this recently (before the run started) are not stored.
RACY_NS = 2_000_000_000
_DAY_NS = 24 * 3600 * 1_000_000_000
#: A cache file of other settings or versions that no run has used for this
#: long is deleted by a run that writes its own.
STALE_AFTER_NS = 30 * _DAY_NS
#: A temporary file this old is a leftover of a run killed while writing.
STALE_TEMPORARY_NS = 3600 * 1_000_000_000
#: The cache file a run loads is touched when it was last modified longer ago.
_TOUCH_AFTER_NS = _DAY_NS
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by attnlint.\n"
    "# For information about cache directory tags, see:\n"
    "#\thttps://bford.info/cachedir/\n"
)

# One finding as plain data (what marshal stores and worker processes send):
# (code, name, message, row, column, end_row, end_column, offset, noqa_row, fix)
# with fix None or (applicability, message, isolation, ((start, end, content), ...)).
FindingData = tuple


def finding_to_data(finding: Finding) -> FindingData:
    fix = finding.fix
    fix_data = None
    if fix is not None:
        fix_data = (
            fix.applicability.value,
            fix.message,
            fix.isolation,
            tuple((edit.start, edit.end, edit.content) for edit in fix.edits),
        )
    return (
        finding.code,
        finding.name,
        finding.message,
        finding.location.row,
        finding.location.column,
        finding.end_location.row,
        finding.end_location.column,
        finding.offset,
        finding.noqa_row,
        fix_data,
    )


def finding_from_data(data: FindingData, filename: str) -> Finding:
    code, name, message, row, column, end_row, end_column, offset, noqa_row, fix = data
    fix_object = None
    if fix is not None:
        applicability, fix_message, isolation, edits = fix
        fix_object = Fix(
            tuple(Edit(start, end, content) for start, end, content in edits),
            Applicability(applicability),
            fix_message,
            isolation=isolation,
        )
    return Finding(
        code=code,
        name=name,
        message=message,
        location=Location(row, column),
        end_location=Location(end_row, end_column),
        fix=fix_object,
        filename=filename,
        offset=offset,
        noqa_row=noqa_row,
    )


def _source_stamp() -> tuple[tuple[str, int, int], ...]:
    """Name, size and mtime of attnlint's own modules: an edited rule (in a
    development checkout, without a new version number) invalidates the cache."""
    package = os.path.dirname(os.path.abspath(__file__))
    stamp: list[tuple[str, int, int]] = []
    folders = [package]
    while folders:
        folder = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".py"):
                try:
                    info = entry.stat()
                except OSError:
                    continue
                relative = os.path.relpath(entry.path, package)
                stamp.append((relative, info.st_size, info.st_mtime_ns))
            elif entry.is_dir() and not entry.name.startswith(("_", ".")):
                folders.append(entry.path)
    return tuple(sorted(stamp))


def settings_fingerprint(settings: Settings) -> str:
    """Everything besides a file's own bytes that decides its findings."""
    parts: Any = (
        FORMAT,
        __version__,
        sys.implementation.cache_tag,
        _source_stamp(),
        sorted(settings.enabled_codes),
        settings.per_file_ignores,
        settings.graph_state_methods,
        os.path.abspath(settings.root),
    )
    return repr(parts)


class Cache:
    """The cache of one project and one set of settings (see the module docstring)."""

    def __init__(self, path: str, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.entries: dict[str, tuple[int, int, tuple[FindingData, ...]]] = {}
        self._changed: dict[str, tuple[int, int, tuple[FindingData, ...]] | None] = {}
        self._loaded_stat: tuple[int, int] | None = None
        # A file modified at or after this time may still change unseen.
        self.racy_after = time.time_ns() - RACY_NS

    @classmethod
    def for_settings(
        cls, settings: Settings, directory: str | os.PathLike[str] | None = None
    ) -> Cache | None:
        """The cache for ``settings`` (loaded if present), or None when a run with
        them cannot be cached (a registry of rules other than attnlint's own)."""
        from lint_rules.config import uses_attnlint_rules

        if settings.registry is not None or not uses_attnlint_rules():
            return None
        fingerprint = settings_fingerprint(settings)
        folder = os.path.abspath(
            os.fspath(directory) if directory is not None else settings.cache_path
        )
        name = f"{zlib.crc32(fingerprint.encode('utf-8')):08x}"
        cache = cls(os.path.join(folder, __version__, name), fingerprint)
        cache.load()
        return cache

    # -- reading -----------------------------------------------------------------

    def load(self) -> None:
        """Read the cache file; anything missing, damaged or foreign reads as empty."""
        try:
            with open(self.path, "rb") as handle:
                info = os.fstat(handle.fileno())
                if info.st_mtime_ns < time.time_ns() - _TOUCH_AFTER_NS:
                    # In use: not to be pruned as stale (see the module docstring).
                    try:
                        if os.utime in os.supports_fd:
                            os.utime(handle.fileno())
                        else:  # pragma: no cover - Windows
                            os.utime(self.path)
                        info = os.fstat(handle.fileno())
                    except (OSError, NotImplementedError):
                        pass
                data = handle.read()
        except OSError:
            return
        self._loaded_stat = (info.st_size, info.st_mtime_ns)
        entries = self._decode(data)
        if entries is not None:
            self.entries = entries

    def _decode(
        self, data: bytes
    ) -> dict[str, tuple[int, int, tuple[FindingData, ...]]] | None:
        if len(data) < _HEADER or not data.startswith(_MAGIC):
            return None
        offset = len(_MAGIC)
        crc = int.from_bytes(data[offset : offset + 4], "little")
        size = int.from_bytes(data[offset + 4 : offset + 12], "little")
        payload = data[_HEADER:]
        if len(payload) != size or zlib.crc32(payload) != crc:
            return None
        try:
            content = marshal.loads(payload)
        except (EOFError, ValueError, TypeError):
            return None
        if (
            not isinstance(content, tuple)
            or len(content) != 2
            or content[0] != self.fingerprint
            or not isinstance(content[1], dict)
        ):
            return None
        return content[1]

    def lookup(self, path: str, size: int, mtime_ns: int) -> list[FindingData] | None:
        """The stored findings of the file at absolute ``path`` if it is unchanged."""
        entry = self.entries.get(path)
        if entry is None:
            return None
        try:
            stored_size, stored_mtime, findings = entry
            if stored_size != size or stored_mtime != mtime_ns:
                return None
            if not isinstance(findings, tuple) or not all(
                isinstance(item, tuple) and len(item) == 10 for item in findings
            ):
                return None
        except (TypeError, ValueError):
            return None
        return list(findings)

    def findings(
        self, path: str, size: int, mtime_ns: int, filename: str
    ) -> list[Finding] | None:
        """Like ``lookup``, as Finding objects reported under ``filename``."""
        data = self.lookup(path, size, mtime_ns)
        if data is None:
            return None
        try:
            return [finding_from_data(item, filename) for item in data]
        except (TypeError, ValueError):
            return None

    # -- writing -----------------------------------------------------------------

    def store(
        self, path: str, size: int, mtime_ns: int, findings: Iterable[FindingData]
    ) -> None:
        """Remember a file's findings; ``size`` and ``mtime_ns`` as read *before* the
        file was. Recently modified files and I/O errors are not remembered."""
        findings = tuple(findings)
        if mtime_ns >= self.racy_after or any(f[0] == IO_ERROR_CODE for f in findings):
            self.forget(path)
            return
        entry = (size, mtime_ns, findings)
        if self.entries.get(path) != entry:
            self.entries[path] = entry
            self._changed[path] = entry

    def forget(self, path: str) -> None:
        """Drop a file's entry (it was rewritten, or its findings cannot be kept)."""
        if path in self.entries:
            del self.entries[path]
            self._changed[path] = None

    @property
    def dirty(self) -> bool:
        return bool(self._changed)

    def save(self) -> None:
        """Write the cache file atomically if anything changed; errors are ignored
        (a cache that cannot be written only costs time)."""
        if not self.dirty:
            return
        try:
            self._save()
        except OSError:
            pass

    def _save(self) -> None:
        folder = os.path.dirname(self.path)
        _prepare_folder(os.path.dirname(folder))
        os.makedirs(folder, exist_ok=True)
        entries = self._merged_with_disk()
        # Entries of files that no longer exist are dropped.
        entries = {
            path: entry for path, entry in entries.items() if os.path.exists(path)
        }
        payload = marshal.dumps((self.fingerprint, entries))
        header = (
            _MAGIC
            + zlib.crc32(payload).to_bytes(4, "little")
            + len(payload).to_bytes(8, "little")
        )
        temporary = f"{self.path}.{os.getpid()}.{time.monotonic_ns()}.tmp"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(header)
                handle.write(payload)
            os.replace(temporary, self.path)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
        self.entries = entries
        self._changed.clear()
        prune(os.path.dirname(folder), keep=self.path)

    def _merged_with_disk(self) -> dict[str, tuple[int, int, tuple[FindingData, ...]]]:
        """This run's changes applied to the cache file as it is now on disk (another
        run may have written it since this one loaded it)."""
        try:
            info = os.stat(self.path)
        except OSError:
            return dict(self.entries)
        if (info.st_size, info.st_mtime_ns) == self._loaded_stat:
            return dict(self.entries)
        other = Cache(self.path, self.fingerprint)
        other.load()
        merged = dict(other.entries)
        for path, entry in self._changed.items():
            if entry is None:
                merged.pop(path, None)
            else:
                merged[path] = entry
        return merged


def prune(root: str, keep: str | None = None) -> list[str]:
    """Delete stale files under the cache folder ``root`` (see the module
    docstring), never ``keep``; return the paths deleted. Errors are ignored:
    another run may be pruning, or writing, at the same time."""
    now = time.time_ns()
    deleted: list[str] = []
    try:
        versions = [entry for entry in os.scandir(root) if entry.is_dir()]
    except OSError:
        return deleted
    for version in versions:
        try:
            files = [entry for entry in os.scandir(version.path) if entry.is_file()]
        except OSError:
            continue
        remaining = len(files)
        for entry in files:
            if entry.path == keep:
                continue
            temporary = entry.name.endswith(".tmp")
            if not temporary and not _is_cache_name(entry.name):
                continue  # not attnlint's: left alone
            try:
                age = now - entry.stat().st_mtime_ns
            except OSError:
                continue
            if age < (STALE_TEMPORARY_NS if temporary else STALE_AFTER_NS):
                continue
            try:
                os.unlink(entry.path)
            except OSError:
                continue
            deleted.append(entry.path)
            remaining -= 1
        if remaining == 0:
            try:
                os.rmdir(version.path)
            except OSError:
                pass
    return deleted


class CacheError(Exception):
    """A folder that ``attnlint clean`` will not delete."""


def remove_cache_folder(folder: str) -> bool:
    """Delete the cache folder ``folder``; False if there is none. A folder
    without the CACHEDIR.TAG that attnlint writes is not attnlint's cache
    (a mistyped cache-dir, say): it is left alone, with a CacheError."""
    import shutil

    if not os.path.lexists(folder):
        return False
    tag = os.path.join(folder, "CACHEDIR.TAG")
    try:
        with open(tag, encoding="utf-8", errors="replace") as handle:
            written = handle.read(len(CACHEDIR_TAG) + 1)
    except OSError:
        written = ""
    if os.path.islink(folder) or not os.path.isdir(folder) or written != CACHEDIR_TAG:
        raise CacheError(
            f"{folder} is not an attnlint cache folder (no CACHEDIR.TAG written "
            "by attnlint in it): not deleting it"
        )
    try:
        shutil.rmtree(folder)
    except OSError as error:
        raise CacheError(f"cannot delete {folder}: {error.strerror or error}") from None
    return True


def _is_cache_name(name: str) -> bool:
    """A cache file's name: the fingerprint's CRC-32, eight hexadecimal digits."""
    return len(name) == 8 and all(c in "0123456789abcdef" for c in name)


def _prepare_folder(folder: str) -> None:
    """Create the cache folder with its CACHEDIR.TAG and a .gitignore ignoring it all."""
    os.makedirs(folder, exist_ok=True)
    for name, content in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", "*\n")):
        target = os.path.join(folder, name)
        if not os.path.exists(target):
            try:
                with open(target, "x", encoding="utf-8") as handle:
                    handle.write(content)
            except FileExistsError:
                pass
