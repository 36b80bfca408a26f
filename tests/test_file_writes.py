"""``--fix`` writes a file only as it found it: unchanged since it was read,
writable, its owner, group and hard links kept; otherwise it leaves the file
alone and says so (exit 2, the file named).

A change made while a run works is simulated in one process (``-j 1``): the
file is changed on disk right after the run read and fixed it in memory, and
before it writes the result.
"""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path

import pytest

import lint_rules.runner as runner_module
from lint_rules.cli import main
from lint_rules.fixer import (
    TEMPORARY_SUFFIX,
    remove_stale_temporaries,
    write_atomic,
)

ALIAS = (
    "def forward(table, cache, lens):\n"
    "    for idx, n in enumerate(lens):\n"
    "        start = idx\n"
    "        table[start, :n] = cache[start, :n]\n"
)
ALIAS_FIXED = (
    "def forward(table, cache, lens):\n"
    "    for idx, n in enumerate(lens):\n"
    "        table[idx, :n] = cache[idx, :n]\n"
)
EDITED = ALIAS.replace("lens):", "lengths):  # edited meanwhile").replace(
    "enumerate(lens)", "enumerate(lengths)"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.attnlint]\n")
    (tmp_path / "rows.py").write_text(ALIAS)
    (tmp_path / "other.py").write_text(ALIAS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fix(capsys: pytest.CaptureFixture[str], *paths: str) -> tuple[int, str, str]:
    code = main(["check", "--fix", "--no-cache", "-j", "1", *paths])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def change_after_reading(monkeypatch: pytest.MonkeyPatch, name: str, change) -> None:
    """Run ``change(path)`` on ``name`` once the run has read and fixed it."""
    real = runner_module.process_file

    def process_then_change(filename, *args, **kwargs):
        outcome = real(filename, *args, **kwargs)
        if os.path.basename(filename) == name:
            change(Path(filename))
        return outcome

    monkeypatch.setattr(runner_module, "process_file", process_then_change)


def _edit(path: Path) -> None:
    path.write_text(EDITED)


def _edit_keeping_size_and_mtime(path: Path) -> None:
    info = path.stat()
    edited = ALIAS.replace("start", "begin")
    assert len(edited) == info.st_size
    path.write_text(edited)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def _delete(path: Path) -> None:
    path.unlink()


def _replace(path: Path) -> None:
    # A branch switch: another file (inode) takes the name.
    replacement = path.with_name("incoming.tmp")
    replacement.write_text(EDITED)
    os.replace(replacement, path)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (_edit, EDITED),
        (_edit_keeping_size_and_mtime, ALIAS.replace("start", "begin")),
        (_delete, None),
        (_replace, EDITED),
    ],
    ids=["edited", "edited-same-size-and-mtime", "deleted", "replaced"],
)
def test_a_file_changed_while_fixing_is_left_alone_and_reported(
    project: Path, capsys, monkeypatch: pytest.MonkeyPatch, change, expected
) -> None:
    change_after_reading(monkeypatch, "rows.py", change)
    code, out, err = fix(capsys, ".")
    assert code == 2
    assert "rows.py" in err and "changed while attnlint was fixing it" in err
    target = project / "rows.py"
    if expected is None:
        assert not target.exists()  # not recreated
    else:
        assert target.read_text() == expected
    assert (project / "other.py").read_text() == ALIAS_FIXED  # the rest goes on
    assert "All checks passed!" not in out
    assert sorted(p.name for p in project.iterdir()) == sorted(
        ["pyproject.toml", "other.py"] + ([] if expected is None else ["rows.py"])
    )


def test_a_read_only_file_is_not_rewritten(project: Path, capsys) -> None:
    target = project / "rows.py"
    target.chmod(0o444)
    code, out, err = fix(capsys, ".")
    assert code == 2
    assert "rows.py" in err and "read-only" in err
    assert target.read_text() == ALIAS
    assert stat.S_IMODE(target.stat().st_mode) == 0o444
    assert (project / "other.py").read_text() == ALIAS_FIXED
    # Its findings are still there, not reported as fixed.
    assert "rows.py:3:9: ATN301" in out and "All checks passed!" not in out


def test_a_writable_file_in_a_read_only_folder_is_named_with_the_reason(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The new text is written to a new file beside the old one, then renamed
    over it: a folder this user cannot write in refuses that. The file is
    left and named with that reason (not a bare "Permission denied" about a
    file whose mode allows writing), its fixes not counted."""
    folder = project / "pkg"
    folder.mkdir()
    target = folder / "rows.py"
    target.write_text(ALIAS)
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):  # root: refuse as the system would
            real_open = os.open

            def refusing_open(file, flags, *args, **kwargs):
                path = os.path.abspath(os.fsdecode(file))
                creates = flags & (os.O_CREAT | getattr(os, "O_TMPFILE", 0))
                if creates and str(folder) in (path, os.path.dirname(path)):
                    raise PermissionError(13, "Permission denied", path)
                return real_open(file, flags, *args, **kwargs)

            monkeypatch.setattr(os, "open", refusing_open)
        code, out, err = fix(capsys, ".")
    finally:
        folder.chmod(0o755)
    assert code == 2
    assert err == (
        "error: pkg/rows.py: cannot create a file in its folder (Permission "
        "denied), where the fixed text is written before it is renamed over the "
        "file; left as it is, its 1 fix not applied\n"
    )
    assert target.read_text() == ALIAS
    assert sorted(os.listdir(folder)) == ["rows.py"]
    assert (project / "other.py").read_text() == ALIAS_FIXED
    assert "pkg/rows.py:3:9: ATN301" in out and "All checks passed!" not in out


def test_bytes_whose_text_encodes_back_otherwise_are_never_rewritten(
    project: Path, capsys
) -> None:
    # cp932 reads 0x87 0x90 and 0x81 0xe0 as the same character, written back
    # as 0x81 0xe0: re-encoding the fixed text would change a byte no fix
    # touches.
    data = b"# -*- coding: cp932 -*-\nMARK = '\x87\x90'\n" + ALIAS.encode()
    assert data.decode("cp932").encode("cp932") != data
    target = project / "rows.py"
    target.write_bytes(data)
    code, out, err = fix(capsys, ".")
    assert code == 2
    assert "rows.py" in err and "cp932" in err
    assert target.read_bytes() == data
    assert (project / "other.py").read_text() == ALIAS_FIXED
    assert "rows.py:5:9: ATN301" in out and "All checks passed!" not in out
    # The same text in bytes that encode back alike is fixed.
    target.write_bytes(data.replace(b"\x87\x90", b"\x81\xe0"))
    assert fix(capsys, "rows.py")[0] == 0
    assert target.read_bytes() == (
        b"# -*- coding: cp932 -*-\nMARK = '\x81\xe0'\n" + ALIAS_FIXED.encode()
    )


def _foreign_owner() -> tuple[int, int]:
    """An owner and group other than this process's, where it may give files
    away (root); else its own user and another of its groups, if any."""
    if os.geteuid() == 0:
        return 12345, 54321
    groups = [group for group in os.getgroups() if group != os.getegid()]
    return os.geteuid(), groups[0] if groups else os.getegid()


def test_owner_and_group_are_kept(project: Path, capsys) -> None:
    target = project / "rows.py"
    uid, gid = _foreign_owner()
    os.chown(target, uid, gid)
    target.chmod(0o664)
    code, _, err = fix(capsys, "rows.py")
    assert code == 0, err
    info = target.stat()
    assert target.read_text() == ALIAS_FIXED
    assert (info.st_uid, info.st_gid) == (uid, gid)
    assert stat.S_IMODE(info.st_mode) == 0o664


def test_hard_links_keep_sharing_one_text(project: Path, capsys) -> None:
    target = project / "rows.py"
    twin = project / "twin.py.txt"
    os.link(target, twin)
    code, out, err = fix(capsys, "rows.py")
    assert code == 2
    assert "rows.py" in err and "hard link" in err
    assert os.path.samefile(target, twin)
    assert target.read_text() == twin.read_text() == ALIAS
    assert "All checks passed!" not in out


def test_extended_attributes_are_kept(project: Path, capsys) -> None:
    # User attributes, ACLs (system.posix_acl_access), SELinux labels: a
    # rename keeps none of them unless they are copied.
    target = project / "rows.py"
    os.setxattr(target, "user.origin", b"vendored\x00from upstream")
    code, _, err = fix(capsys, "rows.py")
    assert code == 0, err
    assert target.read_text() == ALIAS_FIXED
    assert os.getxattr(target, "user.origin") == b"vendored\x00from upstream"


def test_an_extended_attribute_that_cannot_be_kept_leaves_the_file(
    project: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = project / "rows.py"
    os.setxattr(target, "user.origin", b"vendored")

    def refused(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "setxattr", refused)
    code, out, err = fix(capsys, "rows.py", "other.py")
    assert code == 2
    assert "rows.py" in err and "user.origin could not be kept" in err
    assert target.read_text() == ALIAS
    assert os.getxattr(target, "user.origin") == b"vendored"
    assert (project / "other.py").read_text() == ALIAS_FIXED
    assert [p.name for p in project.iterdir() if p.name.startswith(".")] == []


def test_a_failed_write_never_reports_all_checks_passed(
    project: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    code, out, err = fix(capsys, "rows.py")
    assert code == 2
    assert "rows.py" in err and "No space left on device" in err
    assert (project / "rows.py").read_text() == ALIAS
    assert "All checks passed!" not in out
    assert "rows.py:3:9: ATN301" in out  # still there: nothing was fixed
    assert sorted(p.name for p in project.iterdir()) == [
        "other.py",
        "pyproject.toml",
        "rows.py",
    ]


def test_a_leftover_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    # What a writer killed between naming its temporary file and renaming it
    # leaves: a complete copy nobody holds. The next write of the file removes it.
    target = tmp_path / "rows.py"
    target.write_text(ALIAS)
    leftover = tmp_path / f".rows.py.0badc0de{TEMPORARY_SUFFIX}"
    leftover.write_text(ALIAS_FIXED)
    other = tmp_path / f".other.py.0badc0de{TEMPORARY_SUFFIX}"
    other.write_text(ALIAS_FIXED)
    write_atomic(target, ALIAS_FIXED.encode())
    assert target.read_text() == ALIAS_FIXED
    assert not leftover.exists()
    assert other.exists()  # another file's: left for that file's next write


def test_a_temporary_file_a_living_writer_holds_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "rows.py"
    target.write_text(ALIAS)
    in_use = tmp_path / f".rows.py.0badc0de{TEMPORARY_SUFFIX}"
    in_use.write_text(ALIAS_FIXED)
    holder = os.open(in_use, os.O_RDONLY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)  # as a writer holds its own
        assert remove_stale_temporaries(str(target)) == []
        write_atomic(target, ALIAS_FIXED.encode())
        assert in_use.exists()
    finally:
        os.close(holder)
    assert remove_stale_temporaries(str(target)) == [str(in_use)]
    assert not in_use.exists()


def test_a_link_to_a_file_outside_the_checked_folder_is_followed_as_ruff_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """README: a symbolic link to a file is followed: ``--fix`` rewrites the
    file it points to, outside the walked folder too, with its mode, and the
    link stays a link naming it."""
    outside = tmp_path / "vendored" / "rows.py"
    outside.parent.mkdir()
    outside.write_text(ALIAS)
    outside.chmod(0o640)
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.attnlint]\n")
    os.symlink("../vendored/rows.py", project / "link.py")
    monkeypatch.chdir(project)
    code, out, err = fix(capsys, ".")
    assert code == 0, err
    assert out == "Found 1 error (1 fixed, 0 remaining).\n"
    assert outside.read_text() == ALIAS_FIXED
    assert stat.S_IMODE(outside.stat().st_mode) == 0o640
    assert os.readlink(project / "link.py") == "../vendored/rows.py"
    assert sorted(os.listdir(outside.parent)) == ["rows.py"]
