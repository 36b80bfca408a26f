"""Making files and folders unreadable in tests, also when the tests run as root.

``chmod 000`` is enough for a normal user. Root reads everything regardless of
modes, so there the test process is also made to refuse, in process, exactly
what the operating system would refuse a normal user: opening the file, or
listing or entering the folder, fails with ``PermissionError`` (EACCES).
"""

from __future__ import annotations

import builtins
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
    """``chmod 000`` on a file; under root, opening it also fails."""
    path.chmod(0)
    if os.access(path, os.R_OK) is False:
        return
    target = os.path.realpath(path)
    real_open = builtins.open

    def refusing_open(file, *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)) and _refused(file, target):
            raise _denied(file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", refusing_open)


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
