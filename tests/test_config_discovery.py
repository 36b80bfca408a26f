"""Configuration discovery through the ``attnlint check`` command: which
configuration file applies to each file, ``.gitignore``, and the options that
show or override what was found."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from lint_rules.cli import main
from lint_rules.gitignore import IgnoreFile

# Two ATN301 findings (rows 3 and 4) in a function that runs per step.
ALIASES = (
    "def forward_copy_rows(table, cache, lens):\n"  # per step: forward_*
    "    for idx, n in enumerate(lens):\n"
    "        start = idx\n"
    "        end = idx + 1\n"
    "        table[start:end, :n] = cache[start:end, :n]\n"
)


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project: ``top.py`` at the root, ``sub/inner.py`` below, both with
    two findings; no configuration file yet; the root is the current folder."""
    (tmp_path / "top.py").write_text(ALIASES)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inner.py").write_text(ALIASES)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def files_with_findings(capsys, *argv: str) -> dict[str, int]:
    code, out, err = check(capsys, "--output-format", "json", *argv)
    assert code in (0, 1), err
    counts: dict[str, int] = {}
    for finding in json.loads(out):
        name = os.path.relpath(finding["filename"]).replace(os.sep, "/")
        counts[name] = counts.get(name, 0) + 1
    return counts


# ----------------------------------------------------------- configuration files


@pytest.mark.parametrize("name", ["attnlint.toml", ".attnlint.toml"])
def test_attnlint_toml_holds_the_options_at_the_top_level(
    tree: Path, capsys, name: str
) -> None:
    (tree / name).write_text('ignore = ["ATN301"]\n')
    assert files_with_findings(capsys, ".") == {}


def test_attnlint_toml_with_a_bad_key_names_the_key_without_a_table(
    tree: Path, capsys
) -> None:
    (tree / "attnlint.toml").write_text('ignor = ["ATN301"]\n')
    code, _, err = check(capsys, ".")
    assert code == 2
    assert (
        f"{tree / 'attnlint.toml'}: unknown key 'ignor' (did you mean 'ignore'?)" in err
    )


def test_one_folder_dot_attnlint_toml_wins_then_attnlint_toml_then_pyproject(
    tree: Path, capsys
) -> None:
    (tree / "pyproject.toml").write_text('[tool.attnlint]\nignore = ["ATN301"]\n')
    assert files_with_findings(capsys, ".") == {}
    (tree / "attnlint.toml").write_text("select = ['ATN301']\n")
    assert files_with_findings(capsys, ".") == {"sub/inner.py": 2, "top.py": 2}
    (tree / ".attnlint.toml").write_text("ignore = ['ATN3']\n")
    assert files_with_findings(capsys, ".") == {}


def test_pyproject_without_the_table_is_passed_over_for_the_one_above(
    tree: Path, capsys
) -> None:
    (tree / "attnlint.toml").write_text("ignore = ['ATN301']\n")
    (tree / "sub" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert files_with_findings(capsys, ".") == {}


def test_the_nearest_configuration_file_applies_to_each_file(
    tree: Path, capsys
) -> None:
    (tree / "pyproject.toml").write_text("[tool.attnlint]\n")
    (tree / "sub" / "attnlint.toml").write_text("ignore = ['ATN301']\n")
    expected = {"top.py": 2}
    assert files_with_findings(capsys, ".") == expected
    # Named one by one, each file still gets its own folder's settings.
    assert files_with_findings(capsys, "top.py", "sub/inner.py") == expected
    # Run from inside the sub-project, and from a folder beside both.
    os.chdir(tree / "sub")
    assert files_with_findings(capsys, "..") == {"../top.py": 2}


def test_paths_in_a_nested_configuration_are_relative_to_its_folder(
    tree: Path, capsys
) -> None:
    (tree / "sub" / "deeper").mkdir()
    (tree / "sub" / "deeper" / "gen.py").write_text(ALIASES)
    (tree / "sub" / "attnlint.toml").write_text(
        'per-file-ignores = { "deeper/*" = ["ATN301"] }\nextend-exclude = ["inner.py"]\n'
    )
    assert files_with_findings(capsys, ".") == {"top.py": 2}


def test_the_command_line_applies_on_top_of_every_configuration(
    tree: Path, capsys
) -> None:
    (tree / "sub" / "attnlint.toml").write_text("ignore = ['ATN301']\n")
    both = {"sub/inner.py": 2, "top.py": 2}
    assert files_with_findings(capsys, "--select", "ATN301", ".") == both
    # A setting given with --config replaces the key in every file.
    overridden = files_with_findings(capsys, "--config", "ignore=['ATN1']", ".")
    assert overridden == both
    assert files_with_findings(capsys, "--config", "select=['ATN1']", ".") == {}


def test_a_named_configuration_file_applies_to_every_file(tree: Path, capsys) -> None:
    (tree / "sub" / "attnlint.toml").write_text("ignore = ['ATN301']\n")
    (tree / "ci.toml").write_text("select = ['ATN301']\n")
    assert files_with_findings(capsys, "--config", "ci.toml", ".") == {
        "sub/inner.py": 2,
        "top.py": 2,
    }


def test_a_broken_nested_configuration_is_an_error_not_skipped(
    tree: Path, capsys
) -> None:
    (tree / "sub" / "attnlint.toml").write_text("ignore = [\n")
    code, out, err = check(capsys, ".")
    assert code == 2 and out == ""
    assert f"{tree / 'sub' / 'attnlint.toml'}: invalid TOML" in err


def test_the_cache_keeps_each_configuration_apart(tree: Path, capsys) -> None:
    (tree / "pyproject.toml").write_text("[tool.attnlint]\n")
    (tree / "sub" / "attnlint.toml").write_text("ignore = ['ATN301']\n")
    for _ in range(2):  # cold, then warm
        code, out, err = (
            main(["check", "--output-format", "json", "."]),
            *capsys.readouterr(),
        )
        assert code == 1, err
        assert {f["filename"] for f in json.loads(out)} == {str(tree / "top.py")}


# ---------------------------------------------------------------------- gitignore


@pytest.fixture
def repository(tree: Path) -> Path:
    (tree / ".git").mkdir()
    (tree / "gen").mkdir()
    (tree / "gen" / "out.py").write_text(ALIASES)
    (tree / "scratch_a.py").write_text(ALIASES)
    (tree / "scratch_keep.py").write_text(ALIASES)
    (tree / ".gitignore").write_text(
        "# generated\ngen/\nscratch_*.py\n!scratch_keep.py\n"
    )
    (tree / "sub" / ".gitignore").write_text("/inner.py\n")
    return tree


def shown_files(capsys, *argv: str) -> list[str]:
    code, out, err = check(capsys, "--show-files", *argv)
    assert code == 0, err
    return [os.path.relpath(line).replace(os.sep, "/") for line in out.splitlines()]


def test_gitignored_files_are_not_discovered(repository: Path, capsys) -> None:
    assert shown_files(capsys, ".") == ["scratch_keep.py", "top.py"]
    # Also below a folder named on the command line (the ignore files above it count).
    assert shown_files(capsys, "sub") == []
    # A file named on the command line is checked whatever git ignores.
    assert shown_files(capsys, "gen/out.py") == ["gen/out.py"]
    assert files_with_findings(capsys, ".") == {"scratch_keep.py": 2, "top.py": 2}


def test_no_respect_gitignore_discovers_them(repository: Path, capsys) -> None:
    everything = [
        "gen/out.py",
        "scratch_a.py",
        "scratch_keep.py",
        "sub/inner.py",
        "top.py",
    ]
    assert shown_files(capsys, "--no-respect-gitignore", ".") == everything
    (repository / "attnlint.toml").write_text("respect-gitignore = false\n")
    assert shown_files(capsys, ".") == everything
    assert shown_files(capsys, "--respect-gitignore", ".") == [
        "scratch_keep.py",
        "top.py",
    ]


def test_an_ignore_file_that_is_a_fifo_is_never_waited_on(repository: Path) -> None:
    # Reading it waited for a writer forever; now it ignores nothing, as an
    # unreadable one does.
    (repository / "sub" / ".gitignore").unlink()
    os.mkfifo(repository / "sub" / ".gitignore")
    result = subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "--no-cache", "--show-files"],
        cwd=repository,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert result.returncode == 0, result.stderr
    shown = [os.path.relpath(line, repository) for line in result.stdout.split()]
    assert sorted(shown) == ["scratch_keep.py", "sub/inner.py", "top.py"]


def test_git_info_exclude_counts(repository: Path, capsys) -> None:
    (repository / ".git" / "info").mkdir()
    (repository / ".git" / "info" / "exclude").write_text("top.py\n")
    assert shown_files(capsys, ".") == ["scratch_keep.py"]


def test_gitignore_outside_a_repository_is_not_read(tree: Path, capsys) -> None:
    (tree / ".gitignore").write_text("*.py\n")
    assert shown_files(capsys, ".") == ["sub/inner.py", "top.py"]


@pytest.mark.parametrize(
    ("pattern", "path", "is_folder", "ignored"),
    [
        ("*.py", "a/b/c.py", False, True),
        ("/c.py", "a/c.py", False, False),
        ("/c.py", "c.py", False, True),
        ("a/*.py", "a/b/c.py", False, False),  # * does not cross folders
        ("a/**/c.py", "a/b/d/c.py", False, True),
        ("**/b", "x/b", True, True),
        ("a/**", "a/b/c.py", False, True),
        ("build/", "x/build", False, False),  # a folder pattern, a file
        ("build/", "x/build", True, True),
        ("c?.py", "cd.py", False, True),
        ("[!x]*.py", "x.py", False, False),
        ("\\#hash.py", "#hash.py", False, True),
        ("trailing.py   ", "trailing.py", False, True),
    ],
)
def test_gitignore_patterns_read_as_git_reads_them(
    pattern: str, path: str, is_folder: bool, ignored: bool
) -> None:
    ignore_file = IgnoreFile.parse(pattern + "\n", "/repo")
    decision = ignore_file.decision("/repo/" + path, is_folder)
    assert (decision is True) is ignored, (pattern, path)


def test_later_negation_reincludes_and_deeper_files_decide_first() -> None:
    from lint_rules.gitignore import is_ignored

    top = IgnoreFile.parse("*.py\n!keep.py\n", "/repo")
    assert not is_ignored((top,), "/repo/keep.py", False)
    assert is_ignored((top,), "/repo/x.py", False)
    deeper = IgnoreFile.parse("!x.py\n", "/repo/sub")
    assert not is_ignored((top, deeper), "/repo/sub/x.py", False)
    assert is_ignored((top, deeper), "/repo/x.py", False)


# -------------------------------------------------------------- show, output file


def test_show_settings_names_the_file_and_its_values(tree: Path, capsys) -> None:
    (tree / "pyproject.toml").write_text("[tool.attnlint]\n")
    (tree / "sub" / "attnlint.toml").write_text(
        "ignore = ['ATN301']\ngraph-state-methods = ['setup_*']\n"
    )
    code, out, err = check(capsys, "--show-settings", "sub")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"Resolved settings for: {tree / 'sub' / 'inner.py'}"
    assert lines[1] == f"Settings path: {tree / 'sub' / 'attnlint.toml'}"
    assert 'ignore = ["ATN301"]' in lines
    assert 'graph-state-methods = ["setup_*"]' in lines
    assert "ATN301" not in [line for line in lines if "enabled rules" in line][0]
    code, out, _ = check(capsys, "--show-settings", "--extend-ignore", "ATN1", "top.py")
    assert f"Settings path: {tree / 'pyproject.toml'}" in out
    assert '# command line: ignore = ["ATN1"]' in out
    os.remove(tree / "pyproject.toml")
    code, out, _ = check(capsys, "--show-settings", "top.py")
    assert "Settings path: (none: the defaults)" in out


def test_output_file_gets_the_report_and_stdout_nothing(tree: Path, capsys) -> None:
    code, out, err = check(
        capsys, "--output-format", "json", "--output-file", "report.json", "top.py"
    )
    assert code == 1, err
    assert out == ""
    report = json.loads((tree / "report.json").read_text())
    assert [finding["code"] for finding in report] == ["ATN301", "ATN301"]
    assert [
        p.name for p in tree.iterdir() if p.name.startswith(".attnlint-report")
    ] == []


def test_output_file_in_a_missing_folder_is_a_clear_error(tree: Path, capsys) -> None:
    code, _, err = check(capsys, "--output-file", "nope/report.txt", "top.py")
    assert code == 2
    assert "--output-file: nope/report.txt: cannot write" in err


# ---------------------------------------------------------- command-line options


def test_extend_ignore_adds_to_ignore(tree: Path, capsys) -> None:
    assert files_with_findings(capsys, "--extend-ignore", "ATN3", ".") == {}


def test_exclude_and_extend_exclude_on_the_command_line(tree: Path, capsys) -> None:
    (tree / "build").mkdir()
    (tree / "build" / "made.py").write_text(ALIASES)
    assert shown_files(capsys, ".") == ["sub/inner.py", "top.py"]
    # --exclude replaces the default list (build/ comes back), patterns with
    # a "/" are relative to the current folder.
    assert shown_files(capsys, "--exclude", "sub/*", ".") == ["build/made.py", "top.py"]
    assert shown_files(capsys, "--extend-exclude", "top.py", ".") == ["sub/inner.py"]


def test_per_file_ignores_on_the_command_line(tree: Path, capsys) -> None:
    (tree / "attnlint.toml").write_text('per-file-ignores = { "top.py" = ["ATN3"] }\n')
    assert files_with_findings(capsys, ".") == {"sub/inner.py": 2}
    # Replaces the configuration's, as in ruff.
    assert files_with_findings(
        capsys, "--per-file-ignores", "sub/*.py:ATN301", "."
    ) == {"top.py": 2}
    assert (
        files_with_findings(capsys, "--extend-per-file-ignores", "inner.py:ATN3", ".")
        == {}
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--per-file-ignores", "top.py"], "--per-file-ignores: expected PATTERN:CODE"),
        (["--per-file-ignores", "top.py:XYZ1"], "unknown rule selector 'XYZ1'"),
        (["--exclude", "[oops"], "--exclude: invalid glob"),
        (["--extend-ignore", "ATN9"], "--extend-ignore: unknown rule selector"),
    ],
)
def test_bad_command_line_values_are_clear_errors(
    tree: Path, capsys, argv: list[str], message: str
) -> None:
    code, out, err = check(capsys, *argv, ".")
    assert code == 2 and out == ""
    assert message in err


def test_the_installed_command_discovers_the_nearest_configuration(tree: Path) -> None:
    (tree / "sub" / ".attnlint.toml").write_text("ignore = ['ATN301']\n")
    result = subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "--no-cache", "."],
        capture_output=True,
        text=True,
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
    )
    assert result.returncode == 1, result.stderr
    assert "top.py:3:9: ATN301" in result.stdout
    assert "inner.py" not in result.stdout


def test_output_file_naming_a_checked_file_is_refused(tree: Path, capsys) -> None:
    before = (tree / "top.py").read_bytes()
    code, out, err = check(capsys, "--fix", "--output-file", "top.py", "top.py")
    assert code == 2
    assert "--output-file: top.py: is top.py, one of the files being checked" in err
    assert (tree / "top.py").read_bytes() == before


def test_output_file_naming_a_checked_file_by_a_link_is_refused(
    tree: Path, capsys
) -> None:
    before = (tree / "top.py").read_bytes()
    (tree / "link.txt").symlink_to(tree / "top.py")
    code, _, err = check(capsys, "--output-file", "link.txt", ".")
    assert code == 2
    assert "one of the files being checked" in err
    assert (tree / "top.py").read_bytes() == before


def test_output_file_gets_the_mode_a_new_file_gets(tree: Path, capsys) -> None:
    mask = os.umask(0o027)
    try:
        check(capsys, "--output-file", "new.txt", "top.py")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tree / "new.txt").stat().st_mode) == 0o640
    (tree / "old.txt").write_text("x")
    (tree / "old.txt").chmod(0o604)
    check(capsys, "--output-file", "old.txt", "top.py")
    assert stat.S_IMODE((tree / "old.txt").stat().st_mode) == 0o604
    assert (tree / "old.txt").read_text() != "x"


def test_output_file_that_is_a_pipe_gets_the_report_and_stays_a_pipe(
    tree: Path, capsys
) -> None:
    # /dev/null, /dev/stdout or a shell's >(...): written to, never replaced
    # by a regular file (as root, replacing /dev/null would break the system).
    os.mkfifo(tree / "pipe")
    reader = os.open(tree / "pipe", os.O_RDONLY | os.O_NONBLOCK)
    try:
        code, out, err = check(capsys, "--output-file", "pipe", "top.py")
        assert code == 1, err
        assert stat.S_ISFIFO(os.lstat(tree / "pipe").st_mode)
        try:
            received = os.read(reader, 1 << 16)
        except BlockingIOError:
            received = b""
    finally:
        os.close(reader)
    assert b"top.py:3:9: ATN301" in received
    assert out == ""
    assert [p.name for p in tree.iterdir() if p.name.startswith(".attnlint")] == []


def test_output_file_that_is_a_link_writes_the_file_it_names(
    tree: Path, capsys
) -> None:
    (tree / "reports").mkdir()
    (tree / "reports" / "last.txt").write_text("old report\n")
    (tree / "report.txt").symlink_to(Path("reports") / "last.txt")
    code, _, err = check(capsys, "--output-file", "report.txt", "top.py")
    assert code == 1, err
    assert (tree / "report.txt").is_symlink()
    assert "top.py:3:9: ATN301" in (tree / "reports" / "last.txt").read_text()
