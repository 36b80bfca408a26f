"""The real-world corpora that the benchmarks and the corpus check run on.

Both are extracted from pinned wheels downloaded from PyPI by name (cached per
user, see ``tests/realworld/wheels.py``); none of their code is committed.

- ``backends``: the attention backends of sglang 0.5.23 and vllm 0.33.0
  (``sglang/srt/layers/attention/`` and ``vllm/v1/attention/``): 257 files,
  6.2 MB, 158k lines.
- ``packages``: every Python file of both packages: about 7,950 files,
  3.1 million lines.

Held-out packages (``heldout(name)``), read by the label inventories of
``benchmarks/labels`` to measure how rules tuned on the tiers above fare on code
nobody tuned them on; kept out of ``TIERS`` so that the corpus check and the
speed benchmark stay as they are:

- ``flashinfer``: every Python file under ``flashinfer/`` of flashinfer-python
  0.7.2.post1 (its attention wrappers' ``plan()``/``run()`` run per step).
"""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

from tests.realworld.wheels import cache_dir, wheel

PACKAGES = (("sglang", "0.5.23"), ("vllm", "0.33.0"))
BACKEND_PREFIXES = {
    "sglang": "sglang/srt/layers/attention/",
    "vllm": "vllm/v1/attention/",
}
TIERS = ("backends", "packages")
HELDOUT = {"flashinfer": (("flashinfer-python", "0.7.2.post1"), "flashinfer/")}


def corpus(tier: str) -> Path:
    """The folder holding the tier's files, extracted once."""
    if tier not in TIERS:
        raise ValueError(f"unknown corpus tier {tier!r}; choose from {TIERS}")
    root = cache_dir() / "corpora" / tier
    if (root / ".complete").exists():
        return root
    staging = root.with_name(f"{tier}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    for project, version in PACKAGES:
        prefix = BACKEND_PREFIXES[project] if tier == "backends" else f"{project}/"
        with zipfile.ZipFile(wheel(project, version)) as archive:
            for name in archive.namelist():
                if name.startswith(prefix) and name.endswith(".py"):
                    target = staging / name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(archive.read(name))
    (staging / ".complete").write_text("ok\n")
    shutil.rmtree(root, ignore_errors=True)
    os.replace(staging, root)
    return root


def heldout(name: str) -> Path:
    """The folder holding the held-out package's files, extracted once."""
    if name not in HELDOUT:
        raise ValueError(
            f"unknown held-out package {name!r}; choose from {sorted(HELDOUT)}"
        )
    (project, version), prefix = HELDOUT[name]
    root = cache_dir() / "corpora" / f"heldout-{name}"
    if (root / ".complete").exists():
        return root
    staging = root.with_name(f"{root.name}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    with zipfile.ZipFile(wheel(project, version)) as archive:
        for member in archive.namelist():
            if member.startswith(prefix) and member.endswith(".py"):
                target = staging / member
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(member))
    (staging / ".complete").write_text("ok\n")
    shutil.rmtree(root, ignore_errors=True)
    os.replace(staging, root)
    return root


def python_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


if __name__ == "__main__":
    for name in TIERS:
        folder = corpus(name)
        files = python_files(folder)
        size = sum(path.stat().st_size for path in files)
        print(f"{name}: {len(files)} files, {size / 1e6:.1f} MB in {folder}")
    for name in sorted(HELDOUT):
        folder = heldout(name)
        files = python_files(folder)
        size = sum(path.stat().st_size for path in files)
        print(f"held-out {name}: {len(files)} files, {size / 1e6:.1f} MB in {folder}")
