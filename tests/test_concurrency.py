"""Two ``attnlint check --fix`` processes on the same tree at once.

Each file is read whole, fixed in memory and replaced by an atomic rename, and
the cache file is written the same way, merged with what another run stored
meanwhile. So whichever process gets to a file first, it ends as the one
fixed text, never a mix or a truncation, and the cache always loads. The tree
holds 50 copies of the reference backend's unoptimized twin, whose fixed text
is the shipped backend, byte for byte (tests/test_golden_backend.py).
"""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import lint_rules.cache as cache_module
from lint_rules.cache import Cache, file_key
from lint_rules.config import load_settings
from lint_rules.source import content_digest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "flashattention_backend_unoptimized.py"
SHIPPED = ROOT / "reference_backend" / "flashattention_backend.py"
COPIES = 50
ROUNDS = 3
AN_HOUR_AGO = time.time() - 3600


def _write_tree(root: Path, data: bytes) -> list[Path]:
    files = []
    for index in range(COPIES):
        path = root / f"pkg{index % 5}" / f"backend_{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))
        files.append(path)
    return files


def _both_at_once(root: Path, *args: str) -> list[tuple[int, str, str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "lint_rules", "check", *args, "."]
    processes = [
        subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=600)
        results.append((process.returncode, out, err))
    return results


def _cache(root: Path) -> Cache:
    """The cache the runs wrote, loaded with the fingerprint it was written for.

    (Its name depends on a stamp of attnlint's own source files, which
    ``Cache.for_settings`` would recompute here: in a checkout being edited
    while the tests run, it could differ from the subprocesses' stamp.)
    """
    files = _cache_files(root)
    if not files:  # nothing stored: the one for these settings, empty
        cache = Cache.for_settings(load_settings(start=root))
        assert cache is not None
        return cache
    (path,) = files
    data = path.read_bytes()
    fingerprint = marshal.loads(data[cache_module._HEADER :])[0]
    cache = Cache(str(path), fingerprint)
    cache.load()
    return cache


def _cache_files(root: Path) -> list[Path]:
    folder = root / ".attnlint_cache"
    return [
        path
        for path in folder.rglob("*")
        if path.is_file() and path.name not in ("CACHEDIR.TAG", ".gitignore")
    ]


def _lookup(cache: Cache, path: Path) -> list | None:
    """The cache's findings for the file at ``path`` as it is now."""
    return cache.lookup(
        str(path), file_key(path.stat()), content_digest(path.read_bytes())
    )


def _intact(cache: Cache) -> bool:
    """The cache file decodes whole (header, checksum, contents, fingerprint)."""
    with open(cache.path, "rb") as handle:
        return cache._decode(handle.read()) is not None


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.attnlint]\n")
    return tmp_path


def test_two_fix_runs_at_once_never_corrupt_a_file_or_the_cache(project: Path):
    original = FIXTURE.read_bytes()
    fixed = SHIPPED.read_bytes()
    assert original != fixed
    for _ in range(ROUNDS):
        files = _write_tree(project, original)
        results = _both_at_once(project, "--fix", "--unsafe-fixes")
        for code, out, err in results:
            # Each run fixes what it finds; a file the other run already
            # rewrote is clean when read. Nothing remains for either.
            assert (code, err) == (0, ""), out + err
        for path in files:
            assert path.read_bytes() == fixed, path
        # No temporary file is left behind, next to the sources or the cache.
        leftovers = [
            path
            for path in project.rglob("*")
            if path.is_file() and path.name.endswith((".tmp", ".attnlint-tmp"))
        ]
        assert leftovers == []
        # The cache loads (if a run wrote one), and knows nothing stale: a
        # rewritten file is never served from an entry made for its old text.
        cache = _cache(project)
        if os.path.exists(cache.path):
            assert _intact(cache)
        for path in files:
            assert _lookup(cache, path) in (None, [])


def test_two_check_runs_at_once_both_store_into_one_cache(project: Path):
    fixed = SHIPPED.read_bytes()
    for _ in range(ROUNDS):
        for path in _cache_files(project):
            path.unlink()
        files = _write_tree(project, fixed)
        results = _both_at_once(project)
        for code, out, err in results:
            assert (code, err) == (0, ""), out + err
            assert "All checks passed!" in out
        cache = _cache(project)
        assert _intact(cache)
        for path in files:
            assert _lookup(cache, path) == [], path
        # A third run is served from it and agrees.
        (code, out, err), _ = _both_at_once(project)
        assert (code, err) == (0, "") and "All checks passed!" in out


def test_a_file_replaced_after_its_lookup_is_not_cached_under_the_old_stat(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    """The race the concurrent fix runs found: a run looks a file up (status
    of the unfixed text), another run replaces it with the fixed text, and
    the first run then reads and checks the fixed text. Those findings (none)
    must be stored for the fixed text only, or a later run would trust them
    for the unfixed text (restored by ``cp -p``, ``rsync -t`` or ``tar``,
    which keep modification times)."""
    from lint_rules.runner import run_files

    monkeypatch.chdir(project)
    path = project / "backend.py"
    path.write_bytes(FIXTURE.read_bytes())
    os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))
    unfixed = path.stat()
    settings = load_settings(start=project)
    cache = Cache.for_settings(settings)

    def the_other_run_fixes_it(filename: str) -> str:
        # Called just before the file is read: the other run's atomic rewrite.
        temporary = path.with_suffix(".tmp")
        temporary.write_bytes(SHIPPED.read_bytes())
        os.replace(temporary, path)
        return filename

    (outcome,) = run_files(
        [str(path)],
        settings,
        "check",
        False,
        cache=cache,
        display=the_other_run_fixes_it,
    )
    assert outcome.findings == []  # it saw the fixed text
    unfixed_digest = content_digest(FIXTURE.read_bytes())
    assert cache.lookup(str(path), file_key(unfixed), unfixed_digest) is None
    assert _lookup(cache, path) == []  # stored for the fixed text
    cache.save()
    # The unfixed text comes back with its old size and mtime: it is checked,
    # not served from the cache.
    path.write_bytes(FIXTURE.read_bytes())
    os.utime(path, ns=(unfixed.st_atime_ns, unfixed.st_mtime_ns))
    again = Cache.for_settings(settings)
    assert _lookup(again, path) is None
