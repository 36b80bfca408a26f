"""The cache folder over time: stale caches pruned, the one in use kept, ``attnlint clean``."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from lint_rules import __version__
from lint_rules.cache import (
    CACHEDIR_TAG,
    STALE_AFTER_NS,
    STALE_TEMPORARY_NS,
    Cache,
    prune,
)
from lint_rules.cli import main

NOW = time.time_ns()
DAY = 24 * 3600 * 1_000_000_000


def _file(path: Path, age_ns: int, content: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    stamp = NOW - age_ns
    os.utime(path, ns=(stamp, stamp))
    return path


def test_prune_deletes_only_stale_attnlint_files(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    current = root / __version__
    kept = {
        "in use": _file(current / "0000000a", STALE_AFTER_NS * 2),
        "recent": _file(current / "0000000b", STALE_AFTER_NS - DAY),
        "fresh temporary": _file(
            current / "0000000b.1.2.tmp", STALE_TEMPORARY_NS - 60 * 10**9
        ),
        "not attnlint's": _file(current / "notes.txt", STALE_AFTER_NS * 2),
        "other version, recent": _file(root / "0.0.1" / "0000000c", DAY),
        "not a cache name": _file(root / "0.0.2" / "0000000C", STALE_AFTER_NS * 2),
        "tag": _file(root / "CACHEDIR.TAG", STALE_AFTER_NS * 2, CACHEDIR_TAG),
    }
    stale = {
        "other settings": _file(current / "0000000d", STALE_AFTER_NS + DAY),
        "old temporary": _file(
            current / "0000000a.9.9.tmp", STALE_TEMPORARY_NS + 60 * 10**9
        ),
        "other version": _file(root / "0.0.3" / "0000000e", STALE_AFTER_NS + DAY),
    }
    deleted = prune(str(root), keep=str(kept["in use"]))
    assert sorted(deleted) == sorted(str(path) for path in stale.values())
    for name, path in kept.items():
        assert path.exists(), name
    for name, path in stale.items():
        assert not path.exists(), name
    # The version folder it emptied is gone; the others stay.
    assert not (root / "0.0.3").exists()
    assert (root / "0.0.1").is_dir() and (root / "0.0.2").is_dir()


def test_prune_of_a_missing_folder_does_nothing(tmp_path: Path) -> None:
    assert prune(str(tmp_path / "nowhere")) == []


def test_a_run_that_writes_its_cache_prunes_the_stale_ones(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    stale = _file(root / __version__ / "0000000d", STALE_AFTER_NS + DAY)
    recent = _file(root / __version__ / "0000000e", DAY)
    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    old = NOW - 3600 * 10**9
    os.utime(source, ns=(old, old))

    cache = Cache(str(root / __version__ / "0000000f"), "fingerprint")
    cache.load()
    cache.save()  # nothing to write: nothing pruned
    assert stale.exists()
    cache.store(str(source), 6, old, [])
    cache.save()
    assert not stale.exists()
    assert recent.exists()
    assert Path(cache.path).exists()


def test_loading_a_cache_file_marks_it_used(tmp_path: Path) -> None:
    path = tmp_path / "cache" / __version__ / "0000000a"
    Cache(str(path), "fingerprint").save()  # an empty, valid file
    source = tmp_path / "a.py"
    source.write_text("")
    cache = Cache(str(path), "fingerprint")
    cache.store(str(source), 0, NOW - 3600 * 10**9, [])
    cache.save()
    written = path.read_bytes()

    # Used 40 days ago: loading it now makes it recent again, contents alike.
    stamp = NOW - 40 * DAY
    os.utime(path, ns=(stamp, stamp))
    loaded = Cache(str(path), "fingerprint")
    loaded.load()
    assert set(loaded.entries) == {str(source)}
    assert path.stat().st_mtime_ns > NOW - DAY
    assert path.read_bytes() == written

    # Used an hour ago: left as it is (a warm run writes nothing).
    stamp = NOW - 3600 * 10**9
    os.utime(path, ns=(stamp, stamp))
    Cache(str(path), "fingerprint").load()
    assert path.stat().st_mtime_ns == stamp


def _project(tmp_path: Path, config: str = "") -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(f"[tool.attnlint]\n{config}")
    (project / "a.py").write_text("import torch\n\ndef f(n):\n    return n\n")
    return project


def test_clean_deletes_the_cache_that_check_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, 'cache-dir = "build/lint-cache"\n')
    monkeypatch.chdir(project)
    old = time.time() - 3600
    os.utime(project / "a.py", (old, old))
    assert main(["check", "a.py"]) == 0
    folder = project / "build" / "lint-cache"
    assert (folder / "CACHEDIR.TAG").exists()
    assert any((folder / __version__).iterdir())
    capsys.readouterr()

    assert main(["clean"]) == 0
    assert not folder.exists()
    assert (
        capsys.readouterr().err
        == f"Removed the cache at {os.path.join('build', 'lint-cache')}\n"
    )
    assert (project / "build").is_dir()  # only the cache folder itself goes

    assert main(["clean"]) == 0
    assert "No cache at" in capsys.readouterr().err


def test_clean_with_cache_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "elsewhere"
    _file(folder / "CACHEDIR.TAG", 0, CACHEDIR_TAG)
    _file(folder / __version__ / "0000000a", 0)
    assert main(["clean", "--cache-dir", str(folder)]) == 0
    assert not folder.exists()
    assert capsys.readouterr().err == f"Removed the cache at {folder}\n"


@pytest.mark.parametrize("tag", [None, "Signature: 8a477f597d28d172789f06886806bc55\n"])
def test_clean_leaves_a_folder_that_is_not_an_attnlint_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tag: str | None
) -> None:
    # A mistyped cache-dir must not delete the user's files (nor another
    # tool's cache, tagged otherwise).
    folder = tmp_path / "src"
    precious = _file(folder / "main.py", 0, "print('hello')\n")
    if tag is not None:
        _file(folder / "CACHEDIR.TAG", 0, tag)
    assert main(["clean", "--cache-dir", str(folder)]) == 2
    assert precious.read_text() == "print('hello')\n"
    error = capsys.readouterr().err
    assert error.startswith("error: ") and "not an attnlint cache folder" in error


def test_clean_leaves_a_file_named_like_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path / ".attnlint_cache", 0, "mine")
    assert main(["clean", "--cache-dir", str(path)]) == 2
    assert path.read_text() == "mine"
    assert "not an attnlint cache folder" in capsys.readouterr().err


def test_clean_reports_a_bad_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, "cache-dir = 3\n")
    monkeypatch.chdir(project)
    assert main(["clean"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
