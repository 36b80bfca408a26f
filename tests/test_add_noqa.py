"""``attnlint check --add-noqa[=REASON]``, through the real command: every row
with a finding gets a directive, nothing else changes (byte for byte, line
endings and encodings kept), a check afterwards exits 0, and the options it
cannot be combined with are refused as ruff refuses them."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import lint_rules.runner as runner_module
from lint_rules.cli import main

BACKEND = (
    "import torch\n"
    "\n"
    "\n"
    "def forward(n, lens, table, cache, t_cpu):\n"
    "    out = torch.zeros(n)  # type: ignore[call-arg]\n"
    "    out.copy_(torch.ones(n))\n"
    "    for idx, m in enumerate(lens):\n"
    "        start = idx  # noqa: E501\n"
    "        end = idx + 1  # why: kept for clarity\n"
    "        table[start:end, :m] = cache[start:end, :m]\n"
    "    first = t_cpu.item()\n"
    '    label = f"""{t_cpu.item()}\n'
    '""" + """tail\n'
    '"""\n'
    "    return out, first, label\n"
)
# Rows 5, 8, 9 and 14 (the end of the chain of strings that row 12's finding
# is in) get a directive; every other byte stays.
WITH_NOQA = {
    5: "    out = torch.zeros(n)  # type: ignore[call-arg]  # noqa: ATN101{reason}\n",
    8: "        start = idx  # noqa: E501, ATN301{reason}\n",
    9: "        end = idx + 1  # why: kept for clarity  # noqa: ATN301{reason}\n",
    14: '"""  # noqa: ATN201{reason}\n',
}


def expected(reason: str = "") -> str:
    lines = BACKEND.splitlines(keepends=True)
    for row, line in WITH_NOQA.items():
        lines[row - 1] = line.format(reason=f" {reason}" if reason else "")
    return "".join(lines)


def attnlint(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "--no-cache", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.attnlint]\n")
    (tmp_path / "backend.py").write_text(BACKEND)
    return tmp_path


def test_adds_a_directive_to_every_row_with_a_finding(project: Path) -> None:
    before = attnlint(project)
    assert before.returncode == 1 and "Found 4 errors." in before.stdout
    added = attnlint(project, "--add-noqa")
    assert added.returncode == 0, added.stdout + added.stderr
    assert added.stdout == "" and added.stderr == "Added 4 noqa directives.\n"
    assert (project / "backend.py").read_text() == expected()
    after = attnlint(project)
    assert after.returncode == 0 and "All checks passed!" in after.stdout
    # Nothing left to add: nothing changes, nothing is said.
    again = attnlint(project, "--add-noqa")
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    assert (project / "backend.py").read_text() == expected()


def test_the_reason_follows_the_codes(project: Path) -> None:
    added = attnlint(project, "--add-noqa=pinned at adoption, see #42")
    assert added.returncode == 0, added.stderr
    assert (project / "backend.py").read_text() == expected(
        "pinned at adoption, see #42"
    )
    assert attnlint(project).returncode == 0


def test_without_equals_the_next_argument_is_a_path(project: Path) -> None:
    added = attnlint(project, "--add-noqa", "backend.py")
    assert added.returncode == 0, added.stderr
    assert (project / "backend.py").read_text() == expected()


@pytest.mark.parametrize(
    ("encoding", "newline", "bom"),
    [("utf-8", "\r\n", b""), ("utf-8", "\r", b"\xef\xbb\xbf"), ("latin-1", "\n", b"")],
)
def test_line_endings_and_encoding_are_kept(
    project: Path, encoding: str, newline: str, bom: bytes
) -> None:
    cookie = "# -*- coding: latin-1 -*-\n" if encoding == "latin-1" else ""
    text = cookie + BACKEND.replace("cache, t)", "cache, t, s='é')")
    path = project / "backend.py"
    path.write_bytes(bom + text.replace("\n", newline).encode(encoding))
    added = attnlint(project, "--add-noqa=é")
    assert added.returncode == 0, added.stderr
    shift = 1 if cookie else 0
    lines = text.splitlines(keepends=True)
    for row, line in WITH_NOQA.items():
        lines[row - 1 + shift] = line.format(reason=" é")
    wanted = "".join(lines).replace("cache, t)", "cache, t, s='é')")
    assert path.read_bytes() == bom + wanted.replace("\n", newline).encode(encoding)
    assert attnlint(project).returncode == 0


def test_a_reason_the_file_cannot_encode_leaves_it_alone(project: Path) -> None:
    path = project / "backend.py"
    data = ("# -*- coding: latin-1 -*-\n" + BACKEND).encode("latin-1")
    path.write_bytes(data)
    added = attnlint(project, "--add-noqa=\u2713 pinned")
    assert added.returncode == 2
    assert "backend.py: the noqa reason cannot be encoded as" in added.stderr
    assert path.read_bytes() == data


def test_only_the_selected_rules_get_directives(project: Path) -> None:
    added = attnlint(project, "--add-noqa", "--select", "ATN3")
    assert added.returncode == 0 and added.stderr == "Added 2 noqa directives.\n"
    text = (project / "backend.py").read_text()
    assert "# noqa: E501, ATN301\n" in text and "ATN101" not in text
    assert attnlint(project, "--select", "ATN3").returncode == 0
    assert attnlint(project).returncode == 1


def test_a_file_that_does_not_parse_is_reported_and_left(project: Path) -> None:
    (project / "broken.py").write_text("def f(:\n")
    added = attnlint(project, "--add-noqa")
    assert added.returncode == 1
    assert "broken.py:1:7: E999" in added.stdout
    assert added.stderr == "Added 4 noqa directives.\n"
    assert (project / "broken.py").read_text() == "def f(:\n"


@pytest.mark.parametrize(
    ("option", "shown"),
    [
        (["--fix"], "--fix"),
        (["--diff"], "--diff"),
        (["--statistics"], "--statistics"),
        (["--stdin-filename", "backend.py"], "--stdin-filename"),
    ],
)
def test_options_it_cannot_be_combined_with(
    project: Path, option: list[str], shown: str
) -> None:
    result = attnlint(project, "--add-noqa", *option)
    assert result.returncode == 2
    assert result.stderr == f"error: --add-noqa cannot be used with {shown}\n"
    assert (project / "backend.py").read_text() == BACKEND


def test_fix_in_the_configuration_is_ignored_with_a_warning(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.attnlint]\nfix = true\n")
    result = attnlint(project, "--add-noqa")
    assert result.returncode == 0
    assert "warning: fix = true (configuration) is ignored with --add-noqa" in (
        result.stderr
    )
    assert (project / "backend.py").read_text() == expected()


@pytest.mark.parametrize(
    ("reason", "problem"),
    [
        ("TODO1 later", "its first word would be read as a rule code"),
        ("a # noqa", "another suppression directive"),
    ],
)
def test_a_reason_read_as_codes_is_refused(
    project: Path, reason: str, problem: str
) -> None:
    result = attnlint(project, f"--add-noqa={reason}")
    assert result.returncode == 2 and problem in result.stderr
    assert (project / "backend.py").read_text() == BACKEND


def test_stale_directives_are_for_atn001_not_for_add_noqa(project: Path) -> None:
    path = project / "backend.py"
    path.write_text(BACKEND.replace("out.copy_(", "out.add_("))  # no ATN101 now
    path.write_text(
        path.read_text().replace("[call-arg]", "[call-arg]  # noqa: ATN101")
    )
    added = attnlint(project, "--add-noqa", "--extend-select", "ATN001")
    assert added.returncode == 0, added.stdout + added.stderr
    assert "ATN001" not in path.read_text()
    stale = attnlint(project, "--extend-select", "ATN001")
    assert stale.returncode == 1
    assert stale.stdout.splitlines()[0].startswith(
        "backend.py:5:53: ATN001 [*] Unused `noqa` directive (unused: `ATN101`)"
    )


def test_many_files_through_worker_processes(project: Path) -> None:
    for index in range(12):
        (project / f"copy_{index}.py").write_text(BACKEND)
    added = attnlint(project, "--add-noqa=bulk", "-j", "2")
    assert added.returncode == 0, added.stderr
    assert added.stderr == "Added 52 noqa directives.\n"
    for index in range(12):
        assert (project / f"copy_{index}.py").read_text() == expected("bulk")


# ------------------------------------------------------- files it may not write


def test_a_read_only_file_is_left_and_named(project: Path) -> None:
    (project / "other.py").write_text(BACKEND)
    target = project / "backend.py"
    target.chmod(0o444)
    result = attnlint(project, "--add-noqa")
    assert result.returncode == 2
    assert (
        "error: backend.py: read-only; left as it is, its 4 noqa directives not added"
        in result.stderr
    )
    assert target.read_text() == BACKEND
    assert stat.S_IMODE(target.stat().st_mode) == 0o444
    assert (project / "other.py").read_text() == expected()
    # Its findings are reported as they are.
    assert "backend.py:5:11: ATN101" in result.stdout


def test_a_hard_linked_file_is_left_and_named(project: Path) -> None:
    target = project / "backend.py"
    os.link(target, project / "twin.txt")
    result = attnlint(project, "--add-noqa")
    assert result.returncode == 2 and "hard link" in result.stderr
    assert target.read_text() == (project / "twin.txt").read_text() == BACKEND


def test_a_file_changed_meanwhile_is_left_and_named(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.chdir(project)
    real = runner_module.process_file
    edited = BACKEND.replace("lens,", "lengths, lens,")

    def process_then_edit(filename, *args, **kwargs):
        outcome = real(filename, *args, **kwargs)
        Path(filename).write_text(edited)
        return outcome

    monkeypatch.setattr(runner_module, "process_file", process_then_edit)
    code = main(["check", "--add-noqa", "--no-cache", "-j", "1"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "backend.py" in err and "changed while attnlint was fixing it" in err
    assert "noqa directives not added" in err
    assert (project / "backend.py").read_text() == edited


def test_directives_that_would_not_suppress_are_never_written(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    # The new text is checked again before it is written: directives that
    # would leave a finding reported (here: none written at all) are a bug,
    # reported, and the file stays as it was.
    import lint_rules.noqa

    monkeypatch.chdir(project)
    monkeypatch.setattr(
        lint_rules.noqa,
        "add_noqa_directives",
        lambda text, findings, reason=None: (text + "\n", 1, []),
    )
    code = main(["check", "--add-noqa", "--no-cache", "-j", "1"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "backend.py: the noqa directives would not suppress its findings" in err
    assert (project / "backend.py").read_text() == BACKEND
    assert "backend.py:5:11: ATN101" in out
