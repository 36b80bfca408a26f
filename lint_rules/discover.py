"""Which files a run checks: paths expanded, excludes applied, in a stable order.

Inside a directory: ``*.py`` and ``*.pyi`` files, skipping hidden folders,
virtual environments (a folder holding ``pyvenv.cfg`` or ``conda-meta``),
``exclude``/``extend-exclude`` matches (by default ruff's list plus build
output and caches) and, with ``respect-gitignore`` (the default), what git
ignores. Each folder is judged by its own settings: those of the nearest
configuration file above it (:mod:`lint_rules.resolver`). Symbolic links to folders are not followed, so a link
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
from lint_rules.paths import quote_path
from lint_rules.resolver import Resolver

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
    settings: Settings | Resolver,
    *,
    force_exclude: bool | None = None,
) -> list[Path]:
    """The Python files under ``paths``, each once, sorted.

    ``settings``: one Settings for every file, or a Resolver that gives each
    folder its own. Raises DiscoveryError for a path that does not exist or
    cannot be read (ConfigError for a broken configuration file met on the
    way). ``force_exclude`` (default: the setting) applies excludes to files
    and folders named explicitly too.
    """
    resolver = settings if isinstance(settings, Resolver) else Resolver(settings)
    found: dict[str, Path] = {}
    for raw in paths:
        path = os.fspath(raw)
        try:
            info = os.stat(path)
        except OSError as error:
            reason = error.strerror or str(error)
            raise DiscoveryError(f"{quote_path(path)}: {reason}") from None
        if not stat.S_ISDIR(info.st_mode) and not stat.S_ISREG(info.st_mode):
            # A FIFO would block the read, /dev/zero would never end it.
            raise DiscoveryError(f"{quote_path(path)}: not a regular file")
        absolute = os.path.abspath(path)
        is_folder = stat.S_ISDIR(info.st_mode)
        own = (
            resolver.settings_for_folder(absolute)
            if is_folder
            else resolver.settings_for(absolute)
        )
        force = own.force_exclude if force_exclude is None else force_exclude
        if force and is_force_excluded(absolute, own):
            continue
        if is_folder:
            if not os.access(path, os.R_OK | os.X_OK):
                raise DiscoveryError(f"{quote_path(path)}: Permission denied")
            for file, file_absolute in _walk(path, absolute, resolver):
                found.setdefault(file_absolute, file)
        else:
            found.setdefault(absolute, path)
    return sorted((Path(file) for file in found.values()), key=str)


def one_name_per_file(files: list[Path]) -> list[Path]:
    """``files`` with each file once: of the names of one file (a symbolic
    link and its target, both found by a walk or named), the first that is
    no link, else the first. For what writes the file or a patch of it: a
    fix written under two names in turn would find the file changed by the
    other (or, in ``verify``, one name's text would undo the other's fixes
    before the tests ran), and two patches of one file do not apply."""
    chosen: dict[tuple[int, int] | Path, Path] = {}
    for path in files:
        try:
            info = path.stat()
            key: tuple[int, int] | Path = (info.st_dev, info.st_ino)
        except OSError:
            key = path  # read later, and reported there
        first = chosen.setdefault(key, path)
        if first.is_symlink() and not path.is_symlink():
            chosen[key] = path
    kept = set(chosen.values())
    return [path for path in files if path in kept]


def _walk(top: str, absolute_top: str, resolver: Resolver) -> list[tuple[str, str]]:
    """Python files under ``top``, depth first, entries in name order: each as
    found (under ``top``) and absolute (under ``absolute_top``, which is
    ``os.path.abspath(top)``; an entry's name has no separator, so joining it
    is all ``abspath`` would do). Each folder's entries are judged by that
    folder's settings; the ignore files that apply are carried down."""
    from lint_rules.gitignore import GITIGNORE, IgnoreFile, ignore_files_above
    from lint_rules.gitignore import is_ignored as git_ignores

    result: list[tuple[str, str]] = []
    # Each folder to scan with the ignore files of the folders above it,
    # shallowest first, or None outside a git repository (none then apply).
    above = ignore_files_above(os.path.dirname(absolute_top))
    in_repository = bool(above) or _is_repository(os.path.dirname(absolute_top))
    stack: list[tuple[str, str, tuple[IgnoreFile, ...] | None]] = [
        (top, absolute_top, above if in_repository else None)
    ]
    while stack:
        folder, absolute_folder, chain = stack.pop()
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            # An unreadable folder found inside a tree is skipped, as git
            # and ruff do; a named one was already rejected above.
            continue
        names = [entry.name for entry in entries]
        settings = resolver.settings_for_folder(absolute_folder, names)
        if not chain and ".git" in names:
            # A repository starts here: its own excludes apply first.
            exclude = IgnoreFile.read(
                os.path.join(absolute_folder, ".git", "info", "exclude"),
                absolute_folder,
            )
            chain = (exclude,) if exclude is not None else ()
        if chain is not None and GITIGNORE in names:
            own = IgnoreFile.read(
                os.path.join(absolute_folder, GITIGNORE), absolute_folder
            )
            if own is not None:
                chain = (*chain, own)
        gitignored = chain if chain and settings.respect_gitignore else ()
        prefix = absolute_folder.rstrip(os.sep) + os.sep
        subfolders: list[tuple[str, str, tuple[IgnoreFile, ...] | None]] = []
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if name.startswith("."):
                        continue
                    absolute = prefix + name
                    if (
                        settings.is_excluded(absolute)
                        or is_virtual_env(entry.path)
                        or (gitignored and git_ignores(gitignored, absolute, True))
                    ):
                        continue
                    subfolders.append((entry.path, absolute, chain))
                elif is_python_file(name) and entry.is_file():
                    absolute = prefix + name
                    if not settings.is_excluded(absolute) and not (
                        gitignored and git_ignores(gitignored, absolute, False)
                    ):
                        result.append((entry.path, absolute))
            except OSError:
                continue  # a broken or looping link
        stack.extend(reversed(subfolders))
    return result


def _is_repository(folder: str) -> bool:
    from lint_rules.gitignore import repository_root

    return repository_root(folder) is not None
