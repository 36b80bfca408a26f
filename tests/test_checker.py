"""Checking one text: pre-filter, parse errors, rule failures, suppressions."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import pytest

from lint_rules import checker
from lint_rules.checker import check_file as _check_file
from lint_rules.checker import check_source as _check_source
from lint_rules.diagnostics import Location
from lint_rules.rules import Registry
from tests.engine_rules import (
    ENGINE,
    Crashes,
    Everywhere,
    NoFix,
    SafeRename,
    UnsafeRename,
)

SETTINGS = ENGINE.settings()


def check_source(text, filename, settings, **kwargs):
    """The checker, choosing among the test-only rules."""
    return _check_source(text, filename, settings, registry=ENGINE, **kwargs)


def check_file(path, settings, **kwargs):
    return _check_file(path, settings, registry=ENGINE, **kwargs)


TRIGGERED_ONLY = Registry((SafeRename, UnsafeRename, NoFix, Crashes)).settings()


def codes(findings) -> list[str]:
    return [finding.code for finding in findings]


def rows(findings) -> list[int]:
    return [finding.location.row for finding in findings]


# ------------------------------------------------------------------- pre-filter


def test_text_without_triggers_runs_no_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checker, "Context", lambda *a, **k: pytest.fail("rules ran"))
    assert check_source("x = compute(1)\n", "m.py", TRIGGERED_ONLY) == []


def test_broken_text_without_triggers_is_still_reported() -> None:
    findings = check_source("def f(:\n", "m.py", TRIGGERED_ONLY)
    assert codes(findings) == ["E999"]


def test_rule_without_triggers_always_runs() -> None:
    findings = check_source('"""doc"""\n', "m.py", Registry((Everywhere,)).settings())
    assert codes(findings) == ["TST501"]


def test_no_selected_rule_runs_no_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checker, "Context", lambda *a, **k: pytest.fail("rules ran"))
    settings = ENGINE.settings(select=("TST101",), ignore=("TST101",))
    assert check_source("old()\n", "m.py", settings) == []


def test_no_selected_rule_still_reports_syntax_errors() -> None:
    settings = ENGINE.settings(select=("TST101",), ignore=("TST101",))
    assert codes(check_source("old(\n", "m.py", settings)) == ["E999"]


def test_given_tree_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "old()\n"
    tree = ast.parse(text)
    monkeypatch.setattr(checker, "parse", lambda *a, **k: pytest.fail("parsed"))
    assert codes(check_source(text, "m.py", SETTINGS, tree=tree)) == ["TST101"]


# ------------------------------------------------------------------ basic shape


def test_findings_are_located_sorted_and_named() -> None:
    text = "plain()\nx = 1; old()\nrisky()\n"
    findings = check_source(text, "m.py", SETTINGS)
    assert codes(findings) == ["TST103", "TST101", "TST102"]
    second = findings[1]
    assert (second.location, second.end_location) == (Location(2, 8), Location(2, 13))
    assert second.name == "safe-rename" and second.filename == "m.py"
    assert second.noqa_row == 2


def test_columns_count_characters_not_bytes() -> None:
    findings = check_source("x = 'é'; old()\n", "m.py", SETTINGS)
    assert findings[0].location == Location(1, 10)


def test_select_and_ignore_are_honoured() -> None:
    settings = ENGINE.settings(ignore=("TST10",), extend_select=("TST103",))
    assert codes(check_source("old()\nplain()\n", "m.py", settings)) == ["TST103"]


def test_per_file_ignores(tmp_path: Path) -> None:
    settings = ENGINE.settings(
        project_root=str(tmp_path),
        per_file_ignores=(("tests/*", ("TST101",)),),
    )
    text = "old()\nplain()\n"
    assert codes(check_source(text, str(tmp_path / "tests" / "t.py"), settings)) == [
        "TST103"
    ]
    assert len(check_source(text, str(tmp_path / "src" / "t.py"), settings)) == 2


# ---------------------------------------------------------------- syntax errors


def test_syntax_error_is_a_finding_with_row_and_column() -> None:
    findings = check_source("x = 1\ndef f(:\n    old()\n", "bad.py", SETTINGS)
    assert len(findings) == 1
    finding = findings[0]
    assert finding.code == "E999" and finding.name == "syntax-error"
    assert finding.location.row == 2 and finding.location.column == 7
    assert finding.message.startswith("SyntaxError: ")
    assert finding.filename == "bad.py" and finding.fix is None


def test_indentation_error_is_named() -> None:
    (finding,) = check_source("if x:\nold()\n", "bad.py", SETTINGS)
    assert finding.message.startswith("IndentationError: ")
    assert finding.location.row == 2


def test_unclosed_bracket_at_end_of_file() -> None:
    (finding,) = check_source("old(\n", "bad.py", SETTINGS)
    assert finding.code == "E999" and finding.location.row == 1


def test_deep_nesting_does_not_crash() -> None:
    text = "old(" + "(" * 300 + "1" + ")" * 300 + ")\n"
    findings = check_source(text, "deep.py", SETTINGS)
    assert codes(findings) in (["E999"], ["TST101"])


# ---------------------------------------------------------------- rule failures


def test_crashing_rule_is_reported_and_others_still_run() -> None:
    errors: list[str] = []
    findings = check_source("explode()\nold()\n", "m.py", SETTINGS, errors=errors)
    assert codes(findings) == ["TST101"]  # the crashing rule's findings are dropped
    assert len(errors) == 1
    message = errors[0]
    assert "m.py" in message and "TST401" in message and "crashes" in message
    assert "RuntimeError: boom" in message and "\n" not in message


def test_crash_without_error_list_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="lint_rules"):
        findings = check_source("explode()\n", "m.py", SETTINGS)
    assert findings == []
    assert "internal error in TST401" in caplog.text


# ------------------------------------------------------------------------- noqa


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",
        "# NOQA",
        "#noqa",
        "# noqa: TST101",
        "# noqa:TST101",
        "# noqa: TST102, TST101",
        "# noqa: TST102 TST101",
        "# noqa: TST1",
        "# type: ignore  # noqa: TST101",
    ],
)
def test_noqa_suppresses(comment: str) -> None:
    assert check_source(f"old()  {comment}\n", "m.py", SETTINGS) == []


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa: TST102",
        "# noqa: TST2",
        "# no qa",
        # Codes are compared as written, as flake8 compares them.
        "# noqa: tst101",
        "# NOQA: tst101",
        "# noqa: Tst1",
    ],
)
def test_noqa_for_other_codes_does_not_suppress(comment: str) -> None:
    assert codes(check_source(f"old()  {comment}\n", "m.py", SETTINGS)) == ["TST101"]


def test_noqa_applies_to_its_own_row_only() -> None:
    text = "old()  # noqa\nold()\n"
    assert rows(check_source(text, "m.py", SETTINGS)) == [2]


def test_noqa_inside_a_string_is_not_a_comment() -> None:
    text = "old('# noqa')\n"
    assert codes(check_source(text, "m.py", SETTINGS)) == ["TST101"]


def test_finding_inside_multiline_string_uses_the_strings_last_row() -> None:
    text = 'x = f"""\n{old()}\n"""  # noqa: TST101\nold()\n'
    findings = check_source(text, "m.py", SETTINGS)
    assert rows(findings) == [4]
    unsuppressed = check_source(text.replace("# noqa: TST101", ""), "m.py", SETTINGS)
    assert [f.noqa_row for f in unsuppressed] == [3, 4]


@pytest.mark.parametrize(
    ("text", "noqa_row"),
    [
        # Row 2 ends inside the second string: the chain ends on row 3.
        ('x = f"""{old()}\nb""" + """c\nd"""\n', 3),
        ('x = f"""{old()}\nb""" + """c\nd""" + """e\nf"""\n', 4),
        # A continuation, then a string that starts on the continued row.
        ('x = old() + \\\n    """c\nd"""\n', 3),
        # A string, then a continuation on its last row.
        ('x = f"""{old()}\nb""" + \\\n    1\n', 3),
        # Strings on rows of their own do not chain.
        ('x = f"""{old()}\nb"""\ny = """c\nd"""\n', 2),
    ],
)
def test_noqa_row_is_the_last_row_of_a_chain_of_strings(
    text: str, noqa_row: int
) -> None:
    (finding,) = check_source(text, "m.py", SETTINGS)
    assert finding.location.row == 1 and finding.noqa_row == noqa_row
    lines = text.splitlines(keepends=True)
    lines[noqa_row - 1] = lines[noqa_row - 1].rstrip("\n") + "  # noqa: TST101\n"
    assert check_source("".join(lines), "m.py", SETTINGS) == []


def test_backslash_continuation_uses_the_last_row() -> None:
    text = "x = 1 + \\\n    old()  # noqa\n"
    assert check_source(text, "m.py", SETTINGS) == []
    text = "x = old() + \\\n    1  # noqa\n"
    assert check_source(text, "m.py", SETTINGS) == []


def test_noqa_on_statement_start_row_for_multiline_call() -> None:
    text = "old(  # noqa\n    1,\n)\n"
    assert check_source(text, "m.py", SETTINGS) == []


def test_file_level_exemptions() -> None:
    text = "old()\nplain()\n"
    assert check_source("# attnlint: noqa\n" + text, "m.py", SETTINGS) == []
    assert check_source("# flake8: noqa\n" + text, "m.py", SETTINGS) == []
    only = check_source("# attnlint: noqa: TST101\n" + text, "m.py", SETTINGS)
    assert codes(only) == ["TST103"]
    # flake8 skips a file for its file-level directive whatever follows it;
    # so does attnlint.
    assert check_source("# flake8: noqa: E501\n" + text, "m.py", SETTINGS) == []
    assert check_source("# flake8=noqa\n" + text, "m.py", SETTINGS) == []
    # attnlint's own codes are compared as written.
    lower = check_source("# attnlint: noqa: tst101\n" + text, "m.py", SETTINGS)
    assert codes(lower) == ["TST101", "TST103"]


def test_apply_noqa_false_leaves_comments_to_the_caller() -> None:
    findings = check_source("old()  # noqa\n", "m.py", SETTINGS, apply_noqa=False)
    assert codes(findings) == ["TST101"]


def test_crlf_text_rows_and_noqa() -> None:
    text = "x = 1\r\nold()  # noqa\r\nold()\r\n"
    assert rows(check_source(text, "m.py", SETTINGS)) == [3]


# -------------------------------------------------------------------- check_file


def test_check_file_reads_and_decodes(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\nx = '\xe9'; old()\n")
    (finding,) = check_file(path, SETTINGS)
    assert finding.code == "TST101" and finding.location == Location(2, 10)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"x = '\xff'\nold()\n", "cannot decode as utf-8"),
        (b"# coding: nope\nold()\n", "unknown encoding"),
        (b"old()\n\x00\n", "NUL byte at 2:1"),
    ],
)
def test_undecodable_file_is_an_io_error_finding(
    tmp_path: Path, data: bytes, fragment: str
) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(data)
    (finding,) = check_file(path, SETTINGS)
    assert finding.code == "E902" and finding.name == "io-error"
    assert fragment in finding.message
    assert finding.location == Location(1, 1)


def test_missing_file_is_an_io_error_finding(tmp_path: Path) -> None:
    (finding,) = check_file(tmp_path / "gone.py", SETTINGS)
    assert finding.code == "E902" and finding.message == "No such file or directory"
