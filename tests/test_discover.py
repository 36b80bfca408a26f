"""Which files a run checks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lint_rules.config import Settings
from lint_rules.discover import DiscoveryError, discover_files, is_force_excluded
from tests.permissions import make_unreadable_folder


def touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")


def found(
    root: Path, settings: Settings | None = None, *paths: str, **kwargs
) -> list[str]:
    settings = settings or Settings(project_root=str(root))
    targets = [str(root / path) for path in paths] or [str(root)]
    return [
        os.path.relpath(path, root).replace(os.sep, "/")
        for path in discover_files(targets, settings, **kwargs)
    ]


def test_python_files_in_sorted_order(tmp_path: Path) -> None:
    touch(tmp_path, "b.py", "a.py", "pkg/z.pyi", "pkg/a.py", "notes.txt", "script")
    assert found(tmp_path) == ["a.py", "b.py", "pkg/a.py", "pkg/z.pyi"]


def test_hidden_folders_and_virtual_envs_are_skipped(tmp_path: Path) -> None:
    touch(tmp_path, ".hidden/a.py", "env/lib/b.py", "conda/c.py", "ok/d.py")
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (tmp_path / "conda" / "conda-meta").mkdir()
    assert found(tmp_path) == ["ok/d.py"]


@pytest.mark.parametrize(
    "folder",
    [".git", ".venv", "venv", "build", "dist", ".tox", ".nox", ".eggs", "__pycache__",
     "node_modules", "site-packages", ".mypy_cache", "_build"],
)  # fmt: skip
def test_default_excludes(tmp_path: Path, folder: str) -> None:
    touch(tmp_path, f"{folder}/a.py", "keep.py")
    assert found(tmp_path) == ["keep.py"]


def test_extend_exclude_adds_and_exclude_replaces(tmp_path: Path) -> None:
    touch(tmp_path, "gen/a.py", "build/b.py", "src/c.py", "src/c_pb2.py")
    extended = Settings(project_root=str(tmp_path), extend_exclude=("gen", "*_pb2.py"))
    assert found(tmp_path, extended) == ["src/c.py"]
    replaced = Settings(project_root=str(tmp_path), exclude=("gen",))
    assert found(tmp_path, replaced) == ["build/b.py", "src/c.py", "src/c_pb2.py"]


def test_exclude_with_a_path_is_relative_to_the_project_root(tmp_path: Path) -> None:
    touch(tmp_path, "tests/fixtures/a.py", "other/tests/fixtures/b.py", "tests/t.py")
    settings = Settings(project_root=str(tmp_path), extend_exclude=("tests/fixtures",))
    assert found(tmp_path, settings) == ["other/tests/fixtures/b.py", "tests/t.py"]


def test_named_files_are_always_checked(tmp_path: Path) -> None:
    touch(tmp_path, "build/gen.py", "tool")
    settings = Settings(project_root=str(tmp_path))
    assert found(tmp_path, settings, "build/gen.py", "tool") == ["build/gen.py", "tool"]


def test_named_excluded_folder_is_walked(tmp_path: Path) -> None:
    touch(tmp_path, "build/gen.py")
    assert found(tmp_path, None, "build") == ["build/gen.py"]


def test_force_exclude_applies_to_named_paths_and_their_folders(tmp_path: Path) -> None:
    touch(tmp_path, "build/gen.py", "build/deep/x.py", "src/ok.py")
    settings = Settings(project_root=str(tmp_path))
    named = ("build/gen.py", "build/deep/x.py", "src/ok.py")
    assert found(tmp_path, settings, *named, force_exclude=True) == ["src/ok.py"]
    assert is_force_excluded(str(tmp_path / "build" / "deep" / "x.py"), settings)
    assert not is_force_excluded(str(tmp_path / "src" / "ok.py"), settings)


def test_force_exclude_from_settings(tmp_path: Path) -> None:
    touch(tmp_path, "build/gen.py")
    settings = Settings(project_root=str(tmp_path), force_exclude=True)
    assert found(tmp_path, settings, "build/gen.py") == []


def test_missing_path_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(DiscoveryError) as caught:
        discover_files([str(tmp_path / "nope.py")], Settings())
    assert str(caught.value) == f"{tmp_path / 'nope.py'}: No such file or directory"


def test_each_file_once(tmp_path: Path) -> None:
    touch(tmp_path, "a.py")
    assert found(tmp_path, None, "a.py", "a.py", ".") == ["a.py"]


def test_symlink_loop_does_not_hang(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/a.py")
    os.symlink(tmp_path, tmp_path / "pkg" / "loop")
    os.symlink(tmp_path / "pkg" / "self.py", tmp_path / "pkg" / "self.py")  # a -> a
    os.symlink(tmp_path / "missing.py", tmp_path / "pkg" / "dangling.py")
    assert found(tmp_path) == ["pkg/a.py"]


def test_symlinked_file_is_checked(tmp_path: Path) -> None:
    touch(tmp_path, "real/a.txt")
    (tmp_path / "src").mkdir()
    os.symlink(tmp_path / "real" / "a.txt", tmp_path / "src" / "link.py")
    assert found(tmp_path, None, "src") == ["src/link.py"]


def test_unreadable_named_folder_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    make_unreadable_folder(locked, monkeypatch)
    try:
        with pytest.raises(DiscoveryError, match="Permission denied"):
            discover_files([str(locked)], Settings())
    finally:
        locked.chmod(0o755)


def test_unreadable_folder_inside_a_walked_tree_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touch(tmp_path, "pkg/a.py", "pkg/locked/b.py")
    make_unreadable_folder(tmp_path / "pkg" / "locked", monkeypatch)
    try:
        assert found(tmp_path) == ["pkg/a.py"]
    finally:
        (tmp_path / "pkg" / "locked").chmod(0o755)
