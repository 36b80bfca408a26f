"""Which files a run checks: paths expanded, excludes applied, in a stable order.

Inside a directory: ``*.py`` and ``*.pyi`` files, skipping hidden folders,
virtual environments (a folder holding ``pyvenv.cfg`` or ``conda-meta``),
``exclude``/``extend-exclude`` matches (by default ruff's list plus build
output and caches). Symbolic links to folders are not followed, so a link
loop cannot make the walk run forever; links to files are checked.

A file named on the command line is always checked, whatever its name,
unless ``force_exclude`` is set and it (or a folder above it, up to the
project root) is excluded, as ruff does. Only regular files are checked: a
FIFO, device or socket named on the command line is an error, and one met
in a walk (even under a ``.py`` name) is skipped.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from lint_rules.config import Settings

PYTHON_SUFFIXES = (".py", ".pyi")
_VENV_MARKERS = ("pyvenv.cfg", "conda-meta")


class DiscoveryError(Exception):
    """A path given by the user that cannot be checked; one line, naming it."""


def is_python_file(name: str) -> bool:
    return name.endswith(PYTHON_SUFFIXES)


def is_virtual_env(folder: str) -> bool:
    return any(os.path.exists(os.path.join(folder, marker)) for marker in _VENV_MARKERS)


def is_force_excluded(path: str, settings: Settings) -> bool:
    """Whether an explicitly named ``path`` is excluded (itself or a folder above it).

    Folders are looked at up to the project root; a path outside the project
    is judged by itself only.
    """
    absolute = os.path.abspath(path)
    root = os.path.abspath(settings.root)
    if settings.is_excluded(absolute):
        return True
    if not _is_within(absolute, root):
        return False
    current = os.path.dirname(absolute)
    while _is_within(current, root) and current != root:
        if settings.is_excluded(current):
            return True
        current = os.path.dirname(current)
    return False


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def discover_files(
    paths: Iterable[str | os.PathLike[str]],
    settings: Settings,
    *,
    force_exclude: bool | None = None,
) -> list[Path]:
    """The Python files under ``paths``, each once, sorted.

    Raises DiscoveryError for a path that does not exist or cannot be read.
    ``force_exclude`` (default: the setting) applies excludes to files and
    folders named explicitly too.
    """
    force = settings.force_exclude if force_exclude is None else force_exclude
    found: dict[str, Path] = {}
    for raw in paths:
        path = os.fspath(raw)
        try:
            info = os.stat(path)
        except OSError as error:
            reason = error.strerror or str(error)
            raise DiscoveryError(f"{path}: {reason}") from None
        if not stat.S_ISDIR(info.st_mode) and not stat.S_ISREG(info.st_mode):
            # A FIFO would block the read, /dev/zero would never end it.
            raise DiscoveryError(f"{path}: not a regular file")
        absolute = os.path.abspath(path)
        if force and is_force_excluded(absolute, settings):
            continue
        if os.path.isdir(path):
            if not os.access(path, os.R_OK | os.X_OK):
                raise DiscoveryError(f"{path}: Permission denied")
            for file, file_absolute in _walk(path, absolute, settings):
                found.setdefault(file_absolute, file)
        else:
            found.setdefault(absolute, path)
    return sorted((Path(file) for file in found.values()), key=str)


def _walk(top: str, absolute_top: str, settings: Settings) -> list[tuple[str, str]]:
    """Python files under ``top``, depth first, entries in name order: each as
    found (under ``top``) and absolute (under ``absolute_top``, which is
    ``os.path.abspath(top)``; an entry's name has no separator, so joining it
    is all ``abspath`` would do)."""
    result: list[tuple[str, str]] = []
    stack = [(top, absolute_top)]
    while stack:
        folder, absolute_folder = stack.pop()
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            # An unreadable folder found inside a tree is skipped, as git
            # and ruff do; a named one was already rejected above.
            continue
        prefix = absolute_folder.rstrip(os.sep) + os.sep
        subfolders: list[tuple[str, str]] = []
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if name.startswith("."):
                        continue
                    absolute = prefix + name
                    if settings.is_excluded(absolute) or is_virtual_env(entry.path):
                        continue
                    subfolders.append((entry.path, absolute))
                elif is_python_file(name) and entry.is_file():
                    absolute = prefix + name
                    if not settings.is_excluded(absolute):
                        result.append((entry.path, absolute))
            except OSError:
                continue  # a broken or looping link
        stack.extend(reversed(subfolders))
    return result
