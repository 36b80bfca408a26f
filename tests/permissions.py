"""Making files and folders unreadable in tests, also when the tests run as root.

``chmod 000`` is enough for a normal user. Root reads everything regardless of
modes, so there the test process is also made to refuse, in process, exactly
what the operating system would refuse a normal user: opening the file, or
listing or entering the folder, fails with ``PermissionError`` (EACCES).
"""

from __future__ import annotations

import builtins
import io
import os
from pathlib import Path

import pytest


def _refused(path: str | bytes | os.PathLike, target: str) -> bool:
    try:
        return os.path.realpath(os.fsdecode(path)) == target
    except (TypeError, ValueError):
        return False


def _denied(path: str | bytes | os.PathLike) -> PermissionError:
    return PermissionError(13, "Permission denied", os.fsdecode(path))


def make_unreadable(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``chmod 000`` on a file; under root, opening it to read also fails."""
    path.chmod(0)
    if os.access(path, os.R_OK) is False:
        return
    target = os.path.realpath(path)
    real_open = builtins.open

    def refusing_open(file, *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)) and _refused(file, target):
            raise _denied(file)
        return real_open(file, *args, **kwargs)

    real_os_open = os.open

    def refusing_os_open(file, flags, *args, **kwargs):
        if (
            isinstance(file, (str, bytes, os.PathLike))
            and _refused(file, target)
            and not flags & (os.O_WRONLY | os.O_RDWR)
        ):
            raise _denied(file)
        return real_os_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", refusing_open)
    # pathlib opens through ``io.open``; attnlint reads sources with ``os.open``.
    monkeypatch.setattr(io, "open", refusing_open)
    monkeypatch.setattr(os, "open", refusing_os_open)


def make_unreadable_folder(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``chmod 000`` on a folder; under root, listing it also fails and
    ``os.access`` says it cannot be read or entered."""
    path.chmod(0)
    if os.access(path, os.R_OK | os.X_OK) is False:
        return
    target = os.path.realpath(path)
    real_access, real_scandir, real_listdir = os.access, os.scandir, os.listdir

    def access(file, mode, *args, **kwargs):
        if _refused(file, target) and mode & (os.R_OK | os.X_OK | os.W_OK):
            return False
        return real_access(file, mode, *args, **kwargs)

    def scandir(file="."):
        if _refused(file, target):
            raise _denied(file)
        return real_scandir(file)

    def listdir(file="."):
        if _refused(file, target):
            raise _denied(file)
        return real_listdir(file)

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
