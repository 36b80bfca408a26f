"""The results cache: each file's findings, kept until the file or the settings change.

Keyed like ruff's cache. One cache file per project (the folder of the
``pyproject.toml``, or the current one), under ``cache-dir`` (default
``.attnlint_cache/``, which holds a ``CACHEDIR.TAG`` and a ``.gitignore``), named
after a fingerprint of everything that decides a file's findings: the attnlint
version, a stamp of attnlint's own source files, the Python version, the
enabled rules, ``per-file-ignores`` and ``graph-state-methods``. Inside it, an
entry per checked file: its absolute path, its key (size, ``mtime_ns``,
``ctime_ns``, inode and device: :func:`lint_rules.source.file_key`), the
content digest of the bytes that were checked, and their findings.

An entry is used only for the file it describes: the key must match (cheap:
one ``stat``), then the digest of the file's bytes as read now. Ruff keys its
entries by modification time and permissions alone, and trusts whatever is
in its cache folder; here a cache file that came with the code (in an
archive, which keeps modification times, next to files whose content hash
anyone can compute) cannot hide a finding: no program can choose the
status-change time or the inode its files get, so its keys never match.
Reading and hashing the files costs a warm run about a third of its time.

Safe to share between runs:

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

attnlint uses only a cache folder of its own making: one it created, with the
``CACHEDIR.TAG`` it writes. An existing folder without that tag (``src``, or
``..`` from a ``cache-dir`` in a cloned repository) is never written into,
read from, or deleted. ``attnlint clean`` deletes the files attnlint writes
there (cache files, recognized by their header, its temporary files, the tag
and the ``.gitignore``) and the folders they leave empty, nothing else.

Findings that depend on more than the file (internal rule errors, unreadable
files) are never stored. Nothing here imports the rules, so a run whose files
all hit the cache does not load them.
"""

from __future__ import annotations

import marshal
import os
import stat
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
from lint_rules.paths import quote_path
from lint_rules.source import _READ_FLAGS, FileKey, NotRegularFileError, file_key

__all__ = ["Cache", "CacheError", "FileKey", "file_key", "remove_cache_folder"]

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    from lint_rules.config import Settings

#: Bumped when the layout of a cache file changes.
FORMAT = 3
_MAGIC = b"attnlint-cache\x00"
_HEADER = len(_MAGIC) + 4 + 8  # magic, CRC-32, payload length
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
# (code, name, message, row, column, end_row, end_column, offset, noqa_row, fix, cost)
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
        finding.cost,
    )


def finding_from_data(data: FindingData, filename: str) -> Finding:
    (
        code,
        name,
        message,
        row,
        column,
        end_row,
        end_column,
        offset,
        noqa_row,
        fix,
        cost,
    ) = data
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
        cost=cost,
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
        settings.findings_key(),
    )
    return repr(parts)


# One entry: (file key, content digest, findings).
Entry = tuple


class Cache:
    """The cache of one project and one set of settings (see the module docstring)."""

    def __init__(self, path: str, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.entries: dict[str, Entry] = {}
        self._changed: dict[str, Entry | None] = {}
        self._loaded_stat: tuple[int, int] | None = None

    @classmethod
    def for_settings(
        cls, settings: Settings, directory: str | os.PathLike[str] | None = None
    ) -> Cache | None:
        """The cache for ``settings`` (loaded if present), or None when a run with
        them cannot be cached (rules other than attnlint's own: the caller
        passes no registry of its own then, and the codes are the catalogue's).
        Raises CacheError when the cache folder exists and is not attnlint's."""
        from lint_rules.catalogue import CODES

        if settings.available_codes != CODES:
            return None
        fingerprint = settings_fingerprint(settings)
        folder = os.path.abspath(
            os.fspath(directory) if directory is not None else settings.cache_path
        )
        if os.path.lexists(folder) and not is_cache_folder(folder):
            raise CacheError(_not_a_cache_folder(folder, "results are not cached"))
        name = f"{zlib.crc32(fingerprint.encode('utf-8')):08x}"
        cache = cls(os.path.join(folder, __version__, name), fingerprint)
        cache.load()
        return cache

    # -- reading -----------------------------------------------------------------

    def load(self) -> None:
        """Read the cache file; anything missing, damaged or foreign reads as empty."""
        try:
            with _open_regular(self.path) as handle:
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

    def _decode(self, data: bytes) -> dict[str, Entry] | None:
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

    def may_hold(self, path: str, key: FileKey) -> bool:
        """Whether an entry for the file at absolute ``path`` has its ``key``
        (then its content decides: ``lookup``)."""
        entry = self.entries.get(path)
        try:
            return entry is not None and entry[0] == key
        except (TypeError, IndexError, KeyError):
            return False

    def lookup(
        self, path: str, key: FileKey, digest: bytes
    ) -> list[FindingData] | None:
        """The stored findings of the file at absolute ``path`` if the entry
        describes it: the same ``key`` and the same content ``digest``."""
        entry = self.entries.get(path)
        if entry is None:
            return None
        try:
            stored_key, stored_digest, findings = entry
            if stored_key != key or stored_digest != digest:
                return None
            if not isinstance(findings, tuple) or not all(
                isinstance(item, tuple) and len(item) == 11 for item in findings
            ):
                return None
        except (TypeError, ValueError):
            return None
        return list(findings)

    def findings(
        self, path: str, key: FileKey, digest: bytes, filename: str
    ) -> list[Finding] | None:
        """Like ``lookup``, as Finding objects reported under ``filename``."""
        data = self.lookup(path, key, digest)
        if data is None:
            return None
        try:
            return [finding_from_data(item, filename) for item in data]
        except (TypeError, ValueError):
            return None

    # -- writing -----------------------------------------------------------------

    def store(
        self,
        path: str,
        key: FileKey,
        digest: bytes,
        findings: Iterable[FindingData],
    ) -> None:
        """Remember the findings of the bytes whose ``digest`` is given, read
        from the file at ``path`` when it had ``key``. Files that could not be
        read or decoded are not remembered."""
        findings = tuple(findings)
        if any(f[0] == IO_ERROR_CODE for f in findings):
            self.forget(path)
            return
        entry = (tuple(key), digest, findings)
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

    @property
    def root(self) -> str:
        """The cache folder (``cache-dir``) this cache file lives in."""
        return os.path.dirname(os.path.dirname(self.path))

    def save(self) -> OSError | None:
        """Write the cache file atomically if anything changed. A cache that
        cannot be written (a read-only project folder, a full disk) only costs
        time: the error is returned, for the run to name once, never raised."""
        if not self.dirty:
            return None
        try:
            self._save()
        except OSError as error:
            return error
        return None

    def _save(self) -> None:
        folder = os.path.dirname(self.path)
        root = os.path.dirname(folder)
        if not _prepare_folder(root):
            return  # not attnlint's folder (made so by someone else meanwhile)
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
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        try:
            descriptor = os.open(temporary, flags, 0o644)
        except FileNotFoundError:
            # Another run pruned the version folder, empty, as this one made it.
            os.makedirs(folder, exist_ok=True)
            descriptor = os.open(temporary, flags, 0o644)
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
        prune(root, keep=self.path)

    def _merged_with_disk(self) -> dict[str, Entry]:
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
    docstring), never ``keep``; return the paths deleted. Only files attnlint
    writes are deleted. Errors are ignored: another run may be pruning, or
    writing, at the same time."""
    now = time.time_ns()
    deleted: list[str] = []
    try:
        versions = [
            entry for entry in os.scandir(root) if entry.is_dir(follow_symlinks=False)
        ]
    except OSError:
        return deleted
    for version in versions:
        try:
            files = [
                entry
                for entry in os.scandir(version.path)
                if entry.is_file(follow_symlinks=False)
            ]
        except OSError:
            continue
        remaining = len(files)
        for entry in files:
            if entry.path == keep:
                continue
            temporary = _is_temporary_name(entry.name)
            if not temporary and not _is_cache_file(entry):
                continue  # not attnlint's: left alone
            try:
                age = now - entry.stat(follow_symlinks=False).st_mtime_ns
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
    """A folder that attnlint will not use or delete as its cache."""


def _not_a_cache_folder(folder: str, consequence: str) -> str:
    return (
        f"{quote_path(folder)} is not an attnlint cache folder (attnlint did not create "
        f"it: no CACHEDIR.TAG written by attnlint in it): {consequence}"
    )


def is_cache_folder(folder: str) -> bool:
    """Whether ``folder`` is a folder attnlint made for its cache: a real
    folder (not a link) holding the CACHEDIR.TAG attnlint writes."""
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return False
        tag = os.path.join(folder, "CACHEDIR.TAG")
        if not stat.S_ISREG(os.lstat(tag).st_mode):
            return False
        with _open_regular(tag) as handle:
            written = handle.read(len(CACHEDIR_TAG) + 1)
    except OSError:
        return False
    return written == CACHEDIR_TAG.encode("utf-8")


def remove_cache_folder(folder: str) -> tuple[bool, list[str]]:
    """Delete what attnlint wrote in the cache folder ``folder``, and the
    folders that leaves empty; return (whether there was a cache folder, the
    paths of the files attnlint did not write, left where they are).

    A folder attnlint did not make (without its CACHEDIR.TAG: a mistyped
    cache-dir, say) is left alone, with a CacheError.
    """
    if not os.path.lexists(folder):
        return False, []
    if not is_cache_folder(folder):
        raise CacheError(_not_a_cache_folder(folder, "not deleting it"))
    left: list[str] = []
    try:
        entries = list(os.scandir(folder))
        for entry in entries:
            if entry.name in ("CACHEDIR.TAG", ".gitignore"):
                continue  # last: the tag marks the folder as attnlint's
            if entry.is_dir(follow_symlinks=False) and not entry.is_symlink():
                left += _remove_version_folder(entry.path)
            else:
                left.append(entry.path)
        ignore = os.path.join(folder, ".gitignore")
        if _holds(ignore, _GITIGNORE):
            os.unlink(ignore)
        elif os.path.lexists(ignore):
            left.append(ignore)
        os.unlink(os.path.join(folder, "CACHEDIR.TAG"))
        if not left:
            os.rmdir(folder)
    except OSError as error:
        raise CacheError(
            f"cannot delete {quote_path(folder)}: {error.strerror or error}"
        ) from None
    return True, sorted(left)


def _remove_version_folder(path: str) -> list[str]:
    """Delete attnlint's files in one version folder (and it, if that empties
    it); return the files left."""
    left: list[str] = []
    for entry in os.scandir(path):
        if entry.is_file(follow_symlinks=False) and (
            _is_cache_file(entry) or _is_temporary_name(entry.name)
        ):
            os.unlink(entry.path)
        else:
            left.append(entry.path)
    if not left:
        os.rmdir(path)
    return left


def _open_regular(path: str) -> BinaryIO:
    """``path`` open to read, if it is a regular file; else OSError. A FIFO
    is never waited on, nor a device opened as a terminal: a FIFO put where
    a cache file or a tag was would block every run."""
    descriptor = os.open(path, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise NotRegularFileError(path)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def _holds(path: str, content: str) -> bool:
    try:
        with _open_regular(path) as handle:
            return handle.read(len(content) + 1) == content.encode("utf-8")
    except OSError:
        return False


def _is_cache_name(name: str) -> bool:
    """A cache file's name: the fingerprint's CRC-32, eight hexadecimal digits."""
    return len(name) == 8 and all(c in "0123456789abcdef" for c in name)


def _is_cache_file(entry: os.DirEntry[str]) -> bool:
    """A cache file: its name, and the header every cache file starts with."""
    if not _is_cache_name(entry.name):
        return False
    try:
        with _open_regular(entry.path) as handle:
            return handle.read(len(_MAGIC)) == _MAGIC
    except OSError:
        return False


def _is_temporary_name(name: str) -> bool:
    """What ``Cache._save`` names its temporary files: CACHE.PID.NS.tmp."""
    parts = name.split(".")
    return (
        len(parts) == 4
        and _is_cache_name(parts[0])
        and parts[1].isdigit()
        and parts[2].isdigit()
        and parts[3] == "tmp"
    )


_GITIGNORE = "*\n"


def _prepare_folder(folder: str) -> bool:
    """Make sure ``folder`` is attnlint's cache folder: create it, with its
    CACHEDIR.TAG and a .gitignore ignoring it all, if it does not exist;
    False (and nothing written) if it exists and attnlint did not make it."""
    if os.path.lexists(folder):
        return is_cache_folder(folder)
    parent = os.path.dirname(folder)
    if parent:
        os.makedirs(parent, exist_ok=True)
    try:
        os.mkdir(folder)
    except FileExistsError:
        # Another run made it at this moment; its tag may not be there yet.
        return is_cache_folder(folder)
    # Written to a temporary name and renamed: the tag is complete or absent.
    for name, content in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", _GITIGNORE)):
        temporary = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(content)
        os.replace(temporary, os.path.join(folder, name))
    return True
