"""The ``attnlint`` command, end to end (in process, and as a subprocess)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lint_rules import __version__
from lint_rules.cli import build_parser, main
from tests.engine_rules import ENGINE
from tests.permissions import make_unreadable

# The foundation issue's acceptance file: two dead loop aliases.
ACCEPTANCE = (
    "def forward(table, cache, lens):\n"
    "    for idx, n in enumerate(lens):\n"
    "        start = idx\n"
    "        end = idx + 1\n"
    "        table[start:end, :n] = cache[start:end, :n]\n"
)
ACCEPTANCE_FIXED = (
    "def forward(table, cache, lens):\n"
    "    for idx, n in enumerate(lens):\n"
    "        table[idx : idx + 1, :n] = cache[idx : idx + 1, :n]\n"
)
CLEAN = "def f(xs):\n    return [x for x in xs]\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project folder (with its own pyproject.toml) as the current directory."""
    (tmp_path / "pyproject.toml").write_text("[tool.attnlint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(
    capsys: pytest.CaptureFixture[str], *argv: str, registry: object = None
) -> tuple[int, str, str]:
    code = main(list(argv), registry=registry)
    out, err = capsys.readouterr()
    return code, out, err


def run_engine(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """The command, choosing among the test-only rules."""
    return run(capsys, *argv, registry=ENGINE)


# ------------------------------------------------------------ acceptance (ATN301)


def test_check_reports_the_two_loop_aliases(project: Path, capsys) -> None:
    (project / "rows.py").write_text(ACCEPTANCE)
    code, out, err = run(capsys, "check", "rows.py")
    assert code == 1, err
    lines = out.splitlines()
    assert lines[0].startswith("rows.py:3:9: ATN301 [*] ")
    assert lines[1].startswith("rows.py:4:9: ATN301 [*] ")
    assert lines[2:] == ["Found 2 errors.", "[*] 2 fixable with the `--fix` option."]


def test_fix_rewrites_only_the_aliases(project: Path, capsys) -> None:
    path = project / "rows.py"
    path.write_text(ACCEPTANCE)
    code, out, err = run(capsys, "check", "--fix", "rows.py")
    assert code == 0, err
    assert path.read_bytes() == ACCEPTANCE_FIXED.encode()
    assert out.splitlines() == ["Found 2 errors (2 fixed, 0 remaining)."]
    assert run(capsys, "check", "rows.py")[0] == 0


def test_json_output_of_the_acceptance_file(project: Path, capsys) -> None:
    (project / "rows.py").write_text(ACCEPTANCE)
    code, out, _ = run(capsys, "check", "--output-format", "json", "rows.py")
    assert code == 1
    data = json.loads(out)
    assert [entry["code"] for entry in data] == ["ATN301", "ATN301"]
    first = data[0]
    assert set(first) == {
        "cell", "code", "cost", "end_location", "filename", "fix", "location",
        "message", "name", "noqa_row", "severity", "url",
    }  # fmt: skip
    assert first["filename"] == str(project / "rows.py")
    assert first["location"] == {"column": 9, "row": 3}
    assert first["end_location"] == {"column": 20, "row": 3}
    assert first["name"] == "dead-loop-alias" and first["severity"] == "error"
    assert first["noqa_row"] == 3 and first["cell"] is None
    assert first["fix"]["applicability"] == "safe"
    assert first["fix"]["message"]
    assert all(
        set(edit) == {"content", "end_location", "location"}
        for edit in first["fix"]["edits"]
    )


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.replace("\n", "\r\n").encode(),
        lambda text: b"\xef\xbb\xbf" + text.encode(),
        lambda text: ("# -*- coding: latin-1 -*-\n# caf\u00e9\n" + text).encode(
            "latin-1"
        ),
    ],
    ids=["crlf", "bom", "latin-1"],
)
def test_fix_keeps_line_endings_bom_and_encoding(project: Path, capsys, encode) -> None:
    path = project / "rows.py"
    path.write_bytes(encode(ACCEPTANCE))
    code, _, err = run(capsys, "check", "--fix", "rows.py")
    assert code == 0, err
    assert path.read_bytes() == encode(ACCEPTANCE_FIXED)


def test_noqa_in_the_cli(project: Path, capsys) -> None:
    text = ACCEPTANCE.replace("start = idx\n", "start = idx  # noqa: ATN301\n")
    (project / "rows.py").write_text(text)
    code, out, _ = run(capsys, "check", "rows.py")
    assert code == 1 and out.count("ATN301") == 1 and "rows.py:4:9" in out


# ----------------------------------------------------------------- --diff / exits


def test_diff_prints_and_writes_nothing(project: Path, capsys) -> None:
    path = project / "rows.py"
    path.write_text(ACCEPTANCE)
    code, out, err = run(capsys, "check", "--diff", "rows.py")
    assert code == 1
    assert path.read_text() == ACCEPTANCE
    assert out.startswith("--- rows.py\n+++ rows.py\n@@ ")
    assert "-        start = idx\n" in out
    assert "+        table[idx : idx + 1, :n] = cache[idx : idx + 1, :n]\n" in out
    assert err.strip() == "Would fix 2 errors."


def test_diff_with_nothing_to_fix_exits_zero(project: Path, capsys) -> None:
    (project / "ok.py").write_text(CLEAN)
    assert run(capsys, "check", "--diff", "ok.py")[:2] == (0, "")


def _apply_patch(text: str, patch: str) -> str:
    """``text`` with the one-file unified diff ``patch`` applied as ``patch``
    and ``git apply`` apply it: lines end at ``\\n`` only; a line followed by
    ``\\ No newline at end of file`` has none. Raises AssertionError where a
    line the patch names is not the file's."""
    rows = patch.split("\n")
    assert (
        rows.pop() == "" and rows[0].startswith("--- ") and rows[1].startswith("+++ ")
    )
    ops: list[list[str]] = []  # [kind, line with its ending]
    starts: dict[int, int] = {}  # index in ops -> the hunk's first old row
    for row in rows[2:]:
        if row.startswith("@@ "):
            starts[len(ops)] = int(row.split()[1][1:].split(",")[0])
        elif row == "\\ No newline at end of file":
            ops[-1][1] = ops[-1][1][:-1]
        else:
            assert row[:1] in (" ", "-", "+"), row
            ops.append([row[0], row[1:] + "\n"])
    old = text.split("\n")
    old = [line + "\n" for line in old[:-1]] + ([old[-1]] if old[-1] else [])
    new: list[str] = []
    at = 0
    for index, (kind, line) in enumerate(ops):
        if index in starts:
            first = max(starts[index] - 1, 0)
            new += old[at:first]
            at = first
        if kind == "+":
            new.append(line)
            continue
        assert old[at] == line, (old[at], line)
        at += 1
        if kind == " ":
            new.append(line)
    return "".join(new + old[at:])


@pytest.mark.parametrize(
    "text",
    [
        ACCEPTANCE.rstrip("\n"),
        ACCEPTANCE.replace("\n", "\r\n"),
        ACCEPTANCE.replace("\n", "\r"),
        ACCEPTANCE.replace("lens):\n", "lens):  # \x0c \x0b \x1c \x85 \u2028\n"),
        "\x0c\n" + ACCEPTANCE.replace("    for", "\x0c    for"),
    ],
    ids=["no-final-newline", "crlf", "cr", "separators-in-a-comment", "form-feeds"],
)
def test_diff_applied_as_a_patch_gives_what_fix_writes(
    project: Path, capsys, text: str
) -> None:
    # str.splitlines split lines at a lone \r, a form feed, \x85..., which
    # patch and git apply do not, and a last line without \n got one: the
    # patch did not apply, or did not give the fixed file.
    path = project / "rows.py"
    path.write_bytes(text.encode())
    code, diff, _ = run(capsys, "check", "--diff", "rows.py")
    assert code == 1 and diff
    code, _, err = run(capsys, "check", "--fix", "rows.py")
    assert code == 0, err
    fixed = path.read_bytes().decode()
    assert fixed != text
    assert _apply_patch(text, diff) == fixed


def test_diff_applies_with_git_apply_p0_as_the_readme_says(
    project: Path, capsys
) -> None:
    """The README's `attnlint check --diff . > fixes.patch && git apply -p0
    fixes.patch`, with git itself, on files in a subfolder: the patch gives
    what --fix writes (the README said `git apply`, which strips the first
    folder of each name and finds no file)."""
    from tests.test_readme import README

    assert "git apply -p0 fixes.patch" in README
    (project / "pkg").mkdir()
    (project / "pkg" / "rows.py").write_text(ACCEPTANCE)
    code, diff, _ = run(capsys, "check", "--diff", ".")
    assert code == 1 and diff.startswith("--- pkg/rows.py\n")
    (project / "fixes.patch").write_text(diff)
    applied = subprocess.run(
        ["git", "apply", "-p0", "fixes.patch"],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert applied.returncode == 0, applied.stderr
    assert (project / "pkg" / "rows.py").read_text() == ACCEPTANCE_FIXED


def test_a_file_under_two_names_is_fixed_and_patched_once(
    project: Path, capsys
) -> None:
    """A symbolic link beside its target, both found by the walk: a check
    reports each name (as ruff does), while a fix or a patch is made once,
    under the target's name (fixed under the link too, the write found the
    file changed by the first and exited 2; two patches of one file did not
    apply)."""
    path = project / "rows.py"
    path.write_text(ACCEPTANCE)
    os.symlink("rows.py", project / "alias.py")
    code, out, _ = run(capsys, "check", ".")
    assert code == 1
    assert [line.split(":")[0] for line in out.splitlines()[:4]] == [
        "alias.py", "alias.py", "rows.py", "rows.py",
    ]  # fmt: skip
    code, diff, err = run(capsys, "check", "--diff", ".")
    assert code == 1, err
    assert diff.count("--- ") == 1 and diff.startswith("--- rows.py\n")
    assert _apply_patch(ACCEPTANCE, diff) == ACCEPTANCE_FIXED
    code, out, err = run(capsys, "check", "--fix", ".")
    assert code == 0, err
    assert out.splitlines() == ["Found 2 errors (2 fixed, 0 remaining)."]
    assert path.read_text() == ACCEPTANCE_FIXED
    assert (project / "alias.py").is_symlink()


def test_clean_file_exits_zero(project: Path, capsys) -> None:
    (project / "ok.py").write_text(CLEAN)
    code, out, _ = run(capsys, "check")
    assert code == 0 and out == "All checks passed!\n"


def test_exit_zero(project: Path, capsys) -> None:
    (project / "rows.py").write_text(ACCEPTANCE)
    assert run(capsys, "check", "--exit-zero", "rows.py")[0] == 0


def test_exit_non_zero_on_fix(project: Path, capsys) -> None:
    (project / "rows.py").write_text(ACCEPTANCE)
    assert run(capsys, "check", "--fix", "--exit-non-zero-on-fix", "rows.py")[0] == 1
    assert run(capsys, "check", "--fix", "--exit-non-zero-on-fix", "rows.py")[0] == 0


def test_quiet_and_silent(project: Path, capsys) -> None:
    (project / "rows.py").write_text(ACCEPTANCE)
    code, out, _ = run(capsys, "check", "--quiet", "rows.py")
    assert code == 1 and "Found" not in out and out.count("ATN301") == 2
    assert run(capsys, "check", "--silent", "rows.py")[:2] == (1, "")


def test_statistics(project: Path, capsys) -> None:
    (project / "rows.py").write_text(ACCEPTANCE)
    code, out, _ = run(capsys, "check", "--statistics", "rows.py")
    assert code == 1
    assert out.splitlines()[0] == "2\tATN301\t[*] dead-loop-alias\t(per step 2)"


@pytest.mark.parametrize("output_format", ["full", "json-lines", "github", "sarif"])
def test_every_output_format_runs(project: Path, capsys, output_format: str) -> None:
    (project / "rows.py").write_text(ACCEPTANCE)
    code, out, _ = run(capsys, "check", "--output-format", output_format, "rows.py")
    assert code == 1 and "ATN301" in out


def test_show_fixes(project: Path, capsys) -> None:
    (project / "rows.py").write_text(ACCEPTANCE)
    code, out, _ = run(capsys, "check", "--fix", "--show-fixes", "rows.py")
    assert code == 0
    assert "Fixed 2 errors:\n- rows.py:\n    2 \u00d7 ATN301 (dead-loop-alias)\n" in out


# ------------------------------------------------------------------ bad input


def test_syntax_error_is_reported_never_rewritten(project: Path, capsys) -> None:
    path = project / "bad.py"
    broken = "for x in y:\n    z = x\n  print(z)\n"
    path.write_text(broken)
    for args in (("check", "bad.py"), ("check", "--fix", "--unsafe-fixes", "bad.py")):
        code, out, err = run(capsys, *args)
        assert code == 1 and err == ""
        assert out.startswith("bad.py:3:")
        assert " E999 IndentationError: " in out.splitlines()[0]
    assert path.read_text() == broken


def test_missing_path_is_one_line_exit_2(project: Path, capsys) -> None:
    code, out, err = run(capsys, "check", "nope.py")
    assert (code, out, err) == (2, "", "error: nope.py: No such file or directory\n")


def test_unknown_config_key_is_one_line_exit_2(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_text("[tool.attnlint]\nselcet = ['ATN']\n")
    (project / "ok.py").write_text(CLEAN)
    code, out, err = run(capsys, "check", "ok.py")
    assert code == 2 and out == ""
    assert err == (
        f"error: {project / 'pyproject.toml'}: [tool.attnlint] unknown key 'selcet' "
        "(did you mean 'select'?)\n"
    )


def test_bad_config_value_is_one_line_exit_2(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_text("[tool.attnlint]\nfix = 'yes'\n")
    code, _, err = run(capsys, "check")
    assert code == 2 and err.count("\n") == 1 and "fix: expected true or false" in err


def test_invalid_toml_is_one_line_exit_2(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_text("[tool.attnlint\n")
    code, _, err = run(capsys, "check")
    assert code == 2 and err.startswith("error: ") and "invalid TOML" in err


def test_unknown_selector_on_the_command_line(project: Path, capsys) -> None:
    code, _, err = run(capsys, "check", "--select", "ATN999")
    assert (code, err) == (2, "error: --select: unknown rule selector 'ATN999'\n")


def test_usage_error_exits_2(project: Path, capsys) -> None:
    code, _, err = run(capsys, "check", "--output-format", "xml")
    assert code == 2 and "invalid choice" in err


def test_no_command_prints_help_exit_2(capsys) -> None:
    code, _, err = run(capsys)
    assert code == 2 and "usage: attnlint" in err


def test_undecodable_file_is_an_e902_finding(project: Path, capsys) -> None:
    (project / "bin.py").write_bytes(b"x = '\xff'\n")
    code, out, _ = run(capsys, "check", "bin.py")
    assert code == 1 and out.startswith("bin.py:1:1: E902 cannot decode as utf-8")


def test_unreadable_file_is_an_error_exit_2(project: Path, capsys, monkeypatch) -> None:
    path = project / "secret.py"
    path.write_text(CLEAN)
    make_unreadable(path, monkeypatch)
    code, _, err = run(capsys, "check", "secret.py")
    assert code == 2 and err == "error: secret.py: Permission denied\n"


# --------------------------------------------------------------- engine rules


def test_broken_fix_is_left_out_the_others_written_and_exits_2(
    project: Path, capsys
) -> None:
    path = project / "m.py"
    path.write_bytes(b"old()\r\nbreaks()\r\n")
    code, out, err = run_engine(capsys, "check", "--fix", "m.py")
    assert code == 2
    assert path.read_bytes() == b"new()\r\nbreaks()\r\n"
    assert "TST301" in err and "left out" in err
    assert "m.py:2:1: TST301" in out  # the finding is still reported


def test_rule_crash_reports_and_exits_2(project: Path, capsys) -> None:
    (project / "m.py").write_text("explode()\nold()\n")
    code, out, err = run_engine(capsys, "check", "m.py")
    assert code == 2
    assert "m.py:2:1: TST101" in out
    assert err.startswith(
        "error: m.py: internal error in TST401 (crashes): RuntimeError: boom"
    )
    assert "Traceback" not in err


def test_a_rule_crash_or_broken_fix_names_an_odd_file_on_one_line(
    project: Path, capsys
) -> None:
    """Messages about a file (an internal error, a fix left out) name it
    quoted as git does when its name holds a newline: one line each."""
    name = "a\nb.py"
    (project / name).write_bytes(b"explode()\nold()\nbreaks()\n")
    code, _, err = run_engine(capsys, "check", "--fix", name)
    assert code == 2
    lines = err.splitlines()
    assert any(
        line.startswith('error: "a\\nb.py": internal error in TST401') for line in lines
    ), err
    assert any(
        line.startswith('error: "a\\nb.py": a fix by TST301') for line in lines
    ), err
    assert all(line.startswith(("error: ", "warning: ")) for line in lines), err


def test_internal_failure_is_one_line_exit_2(
    project: Path, capsys, monkeypatch
) -> None:
    import lint_rules.discover

    def broken(*args, **kwargs):
        raise ValueError("unexpected")

    monkeypatch.delenv("ATTNLINT_TRACEBACK", raising=False)
    monkeypatch.setattr(lint_rules.discover, "discover_files", broken)
    code, out, err = run(capsys, "check")
    assert code == 2 and out == ""
    assert err.startswith("error: attnlint failed: ValueError: unexpected.")
    assert err.count("\n") == 1


def test_unsafe_fix_flags(project: Path, capsys) -> None:
    path = project / "m.py"
    path.write_text("risky()\nold()\n")
    code, out, _ = run_engine(capsys, "check", "m.py")
    assert "m.py:1:1: TST102 Call" in out
    assert "(1 hidden fix can be enabled with the `--unsafe-fixes` option)" in out
    code, out, _ = run_engine(capsys, "check", "--unsafe-fixes", "m.py")
    assert "m.py:1:1: TST102 [*] Call" in out
    code, out, _ = run_engine(capsys, "check", "--no-unsafe-fixes", "m.py")
    assert "hidden" not in out
    assert run_engine(capsys, "check", "--fix", "m.py")[0] == 1
    assert path.read_text() == "risky()\nnew()\n"
    assert run_engine(capsys, "check", "--fix", "--unsafe-fixes", "m.py")[0] == 0
    assert path.read_text() == "careful()\nnew()\n"


def test_select_ignore_extend_select_override_config(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_text("[tool.attnlint]\nselect = ['TST101']\n")
    (project / "m.py").write_text("old()\nplain()\nrisky()\n")

    def reported(*args: str) -> list[str]:
        out = run_engine(capsys, "check", "--output-format", "json", *args, "m.py")[1]
        return [entry["code"] for entry in json.loads(out)]

    assert reported() == ["TST101"]
    assert reported("--select", "TST103,TST102") == ["TST103", "TST102"]
    assert reported("--extend-select", "TST103") == ["TST101", "TST103"]
    assert reported("--select", "TST1", "--ignore", "TST101") == ["TST103", "TST102"]
    assert reported("--select", "TST102", "--select", "TST103") == ["TST103", "TST102"]


def test_config_file_and_inline_overrides(project: Path, capsys) -> None:
    other = project / "other.toml"
    other.write_text("[tool.attnlint]\nselect = ['TST103']\n")
    (project / "m.py").write_text("old()\nplain()\n")
    out = run_engine(capsys, "check", "--config", str(other), "m.py")[1]
    assert "TST103" in out and "TST101" not in out
    out = run_engine(capsys, "check", "--config", "select = ['TST101']", "m.py")[1]
    assert "TST101" in out and "TST103" not in out
    code, _, err = run_engine(capsys, "check", "--config", "nonsense", "m.py")
    assert code == 2 and err.startswith("error: --config: nonsense")


def test_per_file_ignores_and_extend_exclude_from_config(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.attnlint]\n"
        "extend-exclude = ['generated']\n"
        "[tool.attnlint.per-file-ignores]\n"
        "'tests/*' = ['TST1']\n"
    )
    for name in ("generated/g.py", "tests/t.py", "src/s.py"):
        (project / name).parent.mkdir(exist_ok=True)
        (project / name).write_text("old()\n")
    code, out, _ = run_engine(capsys, "check", "--quiet")
    assert code == 1 and out == "src/s.py:1:1: TST101 [*] Call to `old`\n"
    out = run_engine(capsys, "check", "--quiet", "generated/g.py")[1]
    assert out.startswith("generated/g.py:1:1")
    assert run_engine(capsys, "check", "--quiet", "--force-exclude", "generated/g.py")[
        :2
    ] == (
        0,
        "",
    )


# ------------------------------------------------------------------------ stdin


def feed(monkeypatch: pytest.MonkeyPatch, data: bytes) -> io.BytesIO:
    class Stdout(io.TextIOWrapper):
        pass

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    buffer = io.BytesIO()
    monkeypatch.setattr(
        sys, "stdout", Stdout(buffer, encoding="utf-8", write_through=True)
    )
    return buffer


def test_stdin_check(project: Path, monkeypatch, capsys) -> None:
    buffer = feed(monkeypatch, ACCEPTANCE.encode())
    code = main(["check", "--stdin-filename", "rows.py"])
    assert code == 1
    out = buffer.getvalue().decode()
    assert out.startswith("rows.py:3:9: ATN301")


def test_stdin_fix_prints_the_fixed_source(project: Path, monkeypatch, capsys) -> None:
    buffer = feed(monkeypatch, ACCEPTANCE.replace("\n", "\r\n").encode())
    code = main(["check", "--fix", "--stdin-filename", "rows.py"])
    assert code == 0
    assert buffer.getvalue() == ACCEPTANCE_FIXED.replace("\n", "\r\n").encode()
    assert "Found 2 errors (2 fixed, 0 remaining)." in capsys.readouterr().err


def test_stdin_with_dash(project: Path, monkeypatch) -> None:
    buffer = feed(monkeypatch, ACCEPTANCE.encode())
    assert main(["check", "-"]) == 1
    assert buffer.getvalue().decode().startswith("-:3:9: ATN301")


# ------------------------------------------------------------------------- rule


def test_rule_prints_header_and_documentation(capsys) -> None:
    code, out, _ = run(capsys, "rule", "ATN301")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "# dead-loop-alias (ATN301)"
    assert "## What it does" in out and "## Fix safety" in out


def test_rule_all(capsys) -> None:
    from lint_rules.rules import ALL_RULES

    code, out, _ = run(capsys, "rule", "--all")
    assert code == 0
    assert [
        line for line in out.splitlines() if line.startswith("# ") and "(" in line
    ] == [f"# {rule.name} ({rule.code})" for rule in ALL_RULES]


def test_rule_json(capsys) -> None:
    code, out, _ = run(capsys, "rule", "ATN301", "--output-format", "json")
    data = json.loads(out)
    assert code == 0 and data["code"] == "ATN301" and data["explanation"]


def test_unknown_rule_exits_2(capsys) -> None:
    code, out, err = run(capsys, "rule", "ATN999")
    assert (
        code == 2 and out == "" and err.startswith("error: unknown rule code 'ATN999'")
    )
    assert run(capsys, "rule")[0] == 2


def test_version(capsys) -> None:
    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"attnlint {__version__}\n")


# ----------------------------------------------------------------------- verify


def test_verify_is_registered_only_when_its_module_exists(monkeypatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "lint_rules.verify" else real(name, *a),
    )
    assert "verify" not in build_parser().format_help()


# --------------------------------------------------------------- as a subprocess


def test_console_script_and_check_path_imports(tmp_path: Path) -> None:
    (tmp_path / "rows.py").write_text(ACCEPTANCE)
    program = (
        "import sys\n"
        "from lint_rules.cli import main\n"
        "code = main(['check', '--quiet', 'rows.py'])\n"
        "print(sorted(sys.modules))\n"
        "sys.exit(code)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("rows.py:3:9: ATN301")
    modules = eval(lines[-1])  # the printed list of module names
    assert "lint_rules.checker" in modules
    heavy = [
        name
        for name in modules
        if name.split(".")[0] in ("libcst", "torch", "pygls", "lsprotocol", "cattrs")
        or name.startswith("lint_rules.server")
    ]
    assert heavy == []
    # Start-up stays lean: of what the interpreter does not import by
    # itself, a check adds none of these (each worker would pay for them).
    started = subprocess.run(
        [sys.executable, "-c", "import sys; print(sorted(sys.modules))"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    added = set(modules) - set(eval(started.stdout))
    assert not added & {"typing", "logging", "traceback", "dataclasses", "inspect"}


def test_python_dash_m(tmp_path: Path) -> None:
    (tmp_path / "rows.py").write_text(ACCEPTANCE)
    result = subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "rows.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert result.returncode == 1 and "ATN301" in result.stdout


# Modules attnlint imports that a project may well have a file named after
# (none of them is loaded when Python starts).
SHADOWED = ("ast", "tokenize", "argparse", "tomllib", "bisect", "difflib")


def test_python_dash_m_never_imports_the_projects_own_modules(tmp_path: Path) -> None:
    # `python -m` puts the current folder first on sys.path: a project's
    # ast.py would be imported in place of the standard library's, and run.
    (tmp_path / "pyproject.toml").write_text("[tool.attnlint]\nselect = ['ATN3']\n")
    (tmp_path / "rows.py").write_text(ACCEPTANCE)
    for name in SHADOWED:
        (tmp_path / f"{name}.py").write_text(
            f"import sys\nsys.stderr.write('ran the project\\'s {name}.py\\n')\n"
            "sys.exit(99)\n"
        )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for argv in (
        ["check", "--no-cache", "--statistics", "rows.py"],
        ["check", "--no-cache", "--diff", "rows.py"],
        ["check", "--no-cache", "--fix", "rows.py"],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "lint_rules", *argv],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
        )
        assert "ran the project" not in result.stderr, result.stderr
        assert result.returncode in (0, 1), result.stderr
    assert (tmp_path / "rows.py").read_text() == ACCEPTANCE_FIXED


def test_the_command_exits_quickly_with_its_output_complete(tmp_path: Path) -> None:
    # `attnlint` skips the interpreter's teardown (cli.run): everything
    # written must still reach the pipe, and the exit code must be main's.
    for index in range(40):
        (tmp_path / f"rows_{index}.py").write_text(ACCEPTANCE)
    command = [sys.executable, "-m", "lint_rules", "check", "--no-cache"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    result = subprocess.run(
        [*command, "--output-format", "json", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)
    assert len(findings) == 80 and {f["code"] for f in findings} == {"ATN301"}
    clean = subprocess.run([*command, "--select", "ATN101", "."], cwd=tmp_path, env=env)
    assert clean.returncode == 0
    usage = subprocess.run(
        [*command, "--no-such-option"], cwd=tmp_path, env=env, capture_output=True
    )
    assert usage.returncode == 2


@pytest.mark.parametrize("closed", [0, 1, 2], ids=["stdin", "stdout", "stderr"])
def test_a_closed_standard_stream_is_the_null_device(
    tmp_path: Path, closed: int
) -> None:
    # `attnlint check --fix >&-`: Python makes the stream None (the first
    # message tripped over it: "This is a bug in attnlint", exit 1 with
    # every file fixed), and the next file opened, a temporary file to be
    # renamed over a source, took its descriptor.
    (tmp_path / "rows.py").write_text(ACCEPTANCE)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    command = [sys.executable, "-m", "lint_rules", "check", "--no-cache", "--fix"]
    result = subprocess.run(
        ["sh", "-c", f'exec {closed}<&-; exec "$@"', "sh", *command, "rows.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert (tmp_path / "rows.py").read_text() == ACCEPTANCE_FIXED
    assert "bug in attnlint" not in output and "Traceback" not in output
    assert ("fixed, 0 remaining" in output) == (closed != 1)


class _FullStream(io.StringIO):
    """A standard stream on a full disk: every write fails with ENOSPC."""

    def write(self, text: str) -> int:
        import errno

        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "rows.py"),
        ("check", "clean.py"),
        ("check", "--diff", "rows.py"),
        ("check", "--statistics", "rows.py"),
        ("check", "--output-format", "json", "rows.py"),
        ("rule", "ATN301"),
    ],
    ids=["findings", "clean", "diff", "statistics", "json", "rule"],
)
def test_a_report_that_cannot_be_written_is_an_error_not_a_bug(
    project: Path, capsys, monkeypatch, argv: tuple[str, ...]
) -> None:
    # `attnlint check . > /dev/full`: the report is lost, which is no bug in
    # attnlint, and no run whose report was lost may exit 0 or 1.
    (project / "rows.py").write_text(ACCEPTANCE)
    (project / "clean.py").write_text(CLEAN)
    monkeypatch.delenv("ATTNLINT_TRACEBACK", raising=False)
    monkeypatch.setattr(sys, "stdout", _FullStream())
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2
    assert err == "error: cannot write the output: No space left on device\n"
    assert (project / "rows.py").read_text() == ACCEPTANCE


def test_fixed_source_on_stdout_that_cannot_be_written_is_an_error(
    project: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(ACCEPTANCE.encode())))
    full = io.TextIOWrapper(io.BytesIO())
    full.buffer.write = _FullStream().write  # type: ignore[method-assign]
    monkeypatch.setattr(sys, "stdout", full)
    code = main(["check", "--fix", "--stdin-filename", "rows.py"])
    assert code == 2
    assert "cannot write the output: No space left on device" in capsys.readouterr().err


def test_a_report_to_dev_full_in_a_real_process(tmp_path: Path) -> None:
    (tmp_path / "rows.py").write_text(ACCEPTANCE)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "lint_rules", "check", "--no-cache", "rows.py"],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
    assert result.returncode == 2
    assert result.stderr == "error: cannot write the output: No space left on device\n"


def test_statistics_with_diff_is_refused_as_ruff_refuses_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--diff`` prints the patch, never the counts: ``--statistics`` beside
    it was dropped without a word. It is a usage error, as in ruff, and
    nothing is read or written."""
    (project / "m.py").write_text(CLEAN)
    code, out, err = run(capsys, "check", "--diff", "--statistics", ".")
    assert (code, out, err) == (
        2,
        "",
        "error: --statistics cannot be used with --diff\n",
    )
