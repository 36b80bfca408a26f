"""Pinned third-party wheels, downloaded from PyPI by name and cached per user.

Their code is read by the tests and never committed. The cache folder is
``$ATTNLINT_TEST_CACHE`` or ``$XDG_CACHE_HOME/attnlint-tests`` (default
``~/.cache/attnlint-tests``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

SGLANG_045 = ("sglang", "0.4.5")
SGLANG_FA_BACKEND = "sglang/srt/layers/attention/flashattention_backend.py"


def cache_dir() -> Path:
    explicit = os.environ.get("ATTNLINT_TEST_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "attnlint-tests"


def wheel(project: str, version: str, platform: tuple[str, str] | None = None) -> Path:
    """The wheel of ``project==version``, downloaded once (no dependencies).
    ``platform``: (platform tag, Python version) of a wheel built only for
    another machine (its Python code is read, never run)."""
    folder = cache_dir() / "wheels" / f"{project}-{version}"
    found = sorted(folder.glob("*.whl")) if folder.is_dir() else []
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder.with_name(folder.name + f".partial-{os.getpid()}")
    partial.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
    ]
    if platform is not None:
        command += ["--platform", platform[0], "--python-version", platform[1]]
    command += ["--disable-pip-version-check", "-q", "-d", str(partial)]
    command.append(f"{project}=={version}")
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(
            f"could not download {project}=={version} from PyPI:\n{result.stderr[-2000:]}"
        )
    for path in partial.glob("*.whl"):
        os.replace(path, folder / path.name)  # atomic: concurrent runs may race here
    shutil.rmtree(partial, ignore_errors=True)
    return sorted(folder.glob("*.whl"))[0]


def extract(
    project: str,
    version: str,
    member: str,
    dest: Path,
    platform: tuple[str, str] | None = None,
) -> Path:
    """Copy one file out of the wheel into ``dest`` (keeping its package path)."""
    with zipfile.ZipFile(wheel(project, version, platform)) as archive:
        data = archive.read(member)
    target = dest / member
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def row_of(text: str, needle: str, after: int = 0) -> int:
    """The 1-based row of the first line holding ``needle`` after row ``after``."""
    for row, line in enumerate(text.splitlines(), 1):
        if row > after and needle in line:
            return row
    raise AssertionError(f"{needle!r} not found")
