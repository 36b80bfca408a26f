"""The cache folder over time: stale caches pruned, the one in use kept, ``attnlint clean``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lint_rules import __version__
from lint_rules.cache import (
    _MAGIC,
    CACHEDIR_TAG,
    STALE_AFTER_NS,
    STALE_TEMPORARY_NS,
    Cache,
    file_key,
    prune,
)
from lint_rules.cli import main
from lint_rules.source import content_digest

NOW = time.time_ns()
DAY = 24 * 3600 * 1_000_000_000


# What a cache file starts with; prune and clean delete no file without it.
CACHE_CONTENT = _MAGIC.decode("latin-1") + "..."


def _file(path: Path, age_ns: int, content: str = CACHE_CONTENT) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="latin-1")
    stamp = time.time_ns() - age_ns  # ages against the clock now, not at import
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
        "not a cache file": _file(root / "0.0.2" / "0000000c", STALE_AFTER_NS * 2, "x"),
        "not a temporary name": _file(
            current / "notes.tmp", STALE_TEMPORARY_NS + 60 * 10**9, "mine"
        ),
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
    _file(root / "CACHEDIR.TAG", 0, CACHEDIR_TAG)  # a folder attnlint made
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
    cache.store(str(source), file_key(source.stat()), content_digest(b"x = 1\n"), [])
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
    cache.store(str(source), file_key(source.stat()), content_digest(b""), [])
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


# ------------------------------------------- only a folder of attnlint's making


def test_cache_dir_dotdot_never_tags_nor_deletes_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A cloned repository setting cache-dir = ".." must not make attnlint tag
    # the folder above it as a cache, nor make `attnlint clean` delete it.
    workspace = tmp_path / "workspace"
    sibling = _file(workspace / "sibling" / "keep.py", 0, "print('mine')\n")
    project = workspace / "project"
    project.mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.attnlint]\ncache-dir = ".."\n')
    _file(project / "a.py", DAY, "import torch\n\ndef f(n):\n    return n\n")
    monkeypatch.chdir(project)
    assert main(["check", "a.py"]) == 0
    assert sorted(os.listdir(workspace)) == ["project", "sibling"]
    assert "not an attnlint cache folder" in capsys.readouterr().err

    assert main(["clean"]) == 2
    assert "not an attnlint cache folder" in capsys.readouterr().err
    assert sibling.read_text() == "print('mine')\n"
    assert (project / "a.py").exists()


def test_an_existing_folder_is_never_adopted_as_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, 'cache-dir = "src"\n')
    _file(project / "src" / "main.py", 0, "print('hello')\n")
    os.utime(project / "a.py", ns=(NOW - DAY, NOW - DAY))
    monkeypatch.chdir(project)
    assert main(["check", "a.py"]) == 0
    assert os.listdir(project / "src") == ["main.py"]  # nothing written into it
    assert "src is not an attnlint cache folder" in capsys.readouterr().err


def test_clean_deletes_only_what_attnlint_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path)
    os.utime(project / "a.py", ns=(NOW - DAY, NOW - DAY))
    monkeypatch.chdir(project)
    assert main(["check", "a.py"]) == 0
    folder = project / ".attnlint_cache"
    version = folder / __version__
    assert any(version.iterdir())
    # Files attnlint did not write, in its folder: a user's notes, and a file
    # named like a cache file that is not one.
    notes = _file(folder / "notes.txt", 0, "mine")
    lookalike = _file(version / "0000abcd", 0, "not a cache file")
    capsys.readouterr()
    assert main(["clean"]) == 0
    assert notes.read_text() == "mine" and lookalike.read_text() == "not a cache file"
    assert sorted(p.name for p in folder.rglob("*")) == [
        __version__,
        "0000abcd",
        "notes.txt",
    ]
    err = capsys.readouterr().err
    assert "left 2 files attnlint did not write" in err


def test_an_unwritable_project_folder_is_named_once_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A project folder attnlint cannot write in (read-only, another user's):
    the findings and exit code are those of a run with a cache, and one
    warning says the results are not cached (ruff warns too), instead of
    every run silently starting cold."""
    project, _ = _project_with_finding(tmp_path)
    (project / "sub").mkdir()
    (project / "sub" / "b.py").write_text((project / "rows.py").read_text())
    monkeypatch.chdir(project)
    assert main(["check", "--no-cache", "."]) == 1
    expected = capsys.readouterr().out
    project.chmod(0o555)
    try:
        if os.access(project, os.W_OK):  # root: refuse as the system would
            real_mkdir = os.mkdir

            def refusing_mkdir(path, *args, **kwargs):
                if os.path.dirname(os.path.abspath(path)) == str(project):
                    raise PermissionError(13, "Permission denied", os.fsdecode(path))
                return real_mkdir(path, *args, **kwargs)

            monkeypatch.setattr(os, "mkdir", refusing_mkdir)
        for _ in range(2):  # said by every run, once
            assert main(["check", "."]) == 1
            out, err = capsys.readouterr()
            assert out == expected
            assert err == (
                "warning: cannot write the cache in .attnlint_cache: Permission "
                "denied; results are not cached (--no-cache, or cache-dir "
                "elsewhere, to avoid this)\n"
            )
        assert not (project / ".attnlint_cache").exists()
        assert main(["check", "--no-cache", "."]) == 1
        assert capsys.readouterr().err == ""
    finally:
        project.chmod(0o755)


# ------------------------------------------------- entries tied to file content


def _project_with_finding(tmp_path: Path) -> tuple[Path, Path]:
    project = _project(tmp_path)
    source = project / "rows.py"
    source.write_text(
        "def forward(table, cache, lens):\n"
        "    for idx, n in enumerate(lens):\n"
        "        start = idx\n"
        "        table[start, :n] = cache[start, :n]\n"
    )
    os.utime(source, ns=(NOW - DAY, NOW - DAY))
    return project, source


def _cache_file(project: Path) -> Path:
    (path,) = [
        p
        for p in (project / ".attnlint_cache" / __version__).iterdir()
        if len(p.name) == 8
    ]
    return path


def test_a_crafted_cache_cannot_hide_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cache file shipped with the code (a tarball keeps modification
    times): valid header and CRC, the right settings, an entry with the
    file's path, size, modification time and even its content hash, and no
    findings. It must not hide the finding."""
    import marshal
    import zlib

    from lint_rules.cache import _MAGIC

    project, source = _project_with_finding(tmp_path)
    monkeypatch.chdir(project)
    assert main(["check", "rows.py"]) == 1  # writes the cache: name, fingerprint
    capsys.readouterr()
    cache_path = _cache_file(project)
    fingerprint, entries = marshal.loads(cache_path.read_bytes()[len(_MAGIC) + 12 :])
    data = source.read_bytes()
    info = source.stat()
    crafted = {}
    for path, entry in entries.items():
        # Every field the shipper can know, the findings emptied.
        fields = list(entry)
        fields[-1] = ()
        crafted[path] = tuple(fields)
    # Then the files are "extracted" again: new inodes, same bytes and mtimes.
    source.unlink()
    source.write_bytes(data)
    os.utime(source, ns=(info.st_atime_ns, info.st_mtime_ns))
    payload = marshal.dumps((fingerprint, crafted))
    cache_path.write_bytes(
        _MAGIC
        + zlib.crc32(payload).to_bytes(4, "little")
        + len(payload).to_bytes(8, "little")
        + payload
    )
    assert main(["check", "rows.py"]) == 1
    assert "ATN301" in capsys.readouterr().out


def test_a_file_changed_keeping_size_and_mtime_is_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # cp -p, rsync -t and tar keep modification times.
    project, source = _project_with_finding(tmp_path)
    monkeypatch.chdir(project)
    assert main(["check", "rows.py"]) == 1
    info = source.stat()
    clean = source.read_text().replace("start = idx", "start = idx #noqa")
    clean = clean.replace("    for idx", "  for idx").replace("        ", "      ")
    assert len(clean) == info.st_size
    source.write_text(clean)
    os.utime(source, ns=(info.st_atime_ns, info.st_mtime_ns))
    capsys.readouterr()
    assert main(["check", "rows.py"]) == 0


def test_an_entry_is_served_only_for_the_content_it_describes(tmp_path: Path) -> None:
    from lint_rules.cache import file_key
    from lint_rules.source import content_digest

    source = _file(tmp_path / "a.py", DAY, "x = 1\n")
    cache = Cache(str(tmp_path / "cache" / __version__ / "0000000a"), "fingerprint")
    key = file_key(source.stat())
    cache.store(str(source), key, content_digest(b"x = 1\n"), [])
    assert cache.lookup(str(source), key, content_digest(b"x = 1\n")) == []
    # Same path, same stat, other bytes (a file system whose timestamps are too
    # coarse to tell two writes apart): not served.
    assert cache.lookup(str(source), key, content_digest(b"x = 2\n")) is None


def test_fifos_in_the_cache_folder_are_never_read(tmp_path: Path) -> None:
    # A FIFO where the cache file or the folder's .gitignore is: opening it
    # to read waited for a writer forever (check, and clean).
    project, source = _project_with_finding(tmp_path)
    command = [sys.executable, "-m", "lint_rules"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *argv],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert run("check", "rows.py").returncode == 1
    folder = project / ".attnlint_cache"
    (cache_file,) = (folder / __version__).iterdir()
    cache_file.unlink()
    os.mkfifo(cache_file)
    (folder / ".gitignore").unlink()
    os.mkfifo(folder / ".gitignore")
    checked = run("check", "rows.py")
    assert checked.returncode == 1, checked.stderr
    assert "rows.py:3:9: ATN301" in checked.stdout
    cleaned = run("clean")
    assert cleaned.returncode == 0, cleaned.stderr
    assert ".gitignore" in cleaned.stderr  # named and left
    assert source.read_text().count("start") == 3
