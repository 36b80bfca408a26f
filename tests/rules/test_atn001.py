"""ATN001 unused-noqa: which codes it judges, its messages, its fix, and that
the fix never changes what the other rules report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lint_rules.checker import check_source
from lint_rules.config import RuleSelection, Settings
from lint_rules.fixer import apply_fixes, fix_text
from lint_rules.rules import Registry
from lint_rules.rules.atn001_unused_noqa import UnusedNoqa
from tests.engine_rules import ENGINE_RULES

EVERY_RULE = Settings(extend_select=("ATN001",))

# ATN101 reports row 5; rows 5 and 7 take a comment each.
SOURCE = (
    "import torch\n"
    "\n"
    "\n"
    "def f(n):\n"
    "    out = torch.zeros(n){first}\n"
    "    out.copy_(torch.ones(n))\n"
    "    y = n + 1{second}\n"
    "    return out, y\n"
)


def source(first: str = "", second: str = "") -> str:
    return SOURCE.format(first=first, second=second)


def unused(text: str, settings: Settings = EVERY_RULE) -> list[tuple[int, str]]:
    return [
        (finding.location.row, finding.message)
        for finding in check_source(text, "m.py", settings)
        if finding.code == "ATN001"
    ]


def fixed(text: str, settings: Settings = EVERY_RULE) -> str:
    """``text`` with ATN001's fixes applied (and no other rule's)."""
    fixes = [
        finding.fix
        for finding in check_source(text, "m.py", settings)
        if finding.code == "ATN001" and finding.fix is not None
    ]
    new_text, applied = apply_fixes(text, fixes)
    assert len(applied) == len(fixes)
    return new_text


def test_off_by_default() -> None:
    assert unused(source("  # noqa: ATN301"), Settings()) == []


def test_a_used_code_is_not_reported() -> None:
    assert unused(source("  # noqa: ATN101")) == []
    assert unused(source("  # noqa: ATN1")) == []  # a prefix that covers it


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("  # noqa: ATN101, ATN301", "", [(5, "unused: `ATN301`")]),
        ("", "  # noqa: ATN101", [(7, "unused: `ATN101`")]),
        ("  # noqa: ATN101, ATN999", "", [(5, "unknown: `ATN999`")]),
        # Codes are matched as written: a lower-case code suppresses nothing.
        ("  # NOQA: atn101", "", [(5, "unknown: `atn101`")]),
        ("  # noqa: ATN101, ATN101", "", [(5, "duplicated: `ATN101`")]),
        (
            "  # noqa: ATN301, ATN999, ATN301, ATN101",
            "",
            [(5, "unused: `ATN301`; unknown: `ATN999`; duplicated: `ATN301`")],
        ),
    ],
)
def test_messages_name_each_kind(first: str, second: str, expected: list) -> None:
    assert unused(source(first, second)) == [
        (row, f"Unused `noqa` directive ({kinds})") for row, kinds in expected
    ]


def test_codes_of_rules_not_selected_are_non_enabled() -> None:
    settings = EVERY_RULE.with_cli_selection(RuleSelection(ignore=("ATN301",)))
    text = source("  # noqa: ATN101, ATN301")
    assert unused(text, settings) == [
        (5, "Unused `noqa` directive (non-enabled: `ATN301`)")
    ]
    per_file = EVERY_RULE.replace(per_file_ignores=(("m.py", ("ATN1",)),))
    assert unused(text, per_file) == [
        (5, "Unused `noqa` directive (unused: `ATN301`; non-enabled: `ATN101`)")
    ]


@pytest.mark.parametrize(
    "comment",
    [
        "  # noqa",  # a blanket directive may suppress another tool's findings
        "  # noqa: E501",  # another tool's code
        "  # noqa: E501, W291",
        "  # noqa: ATN001, ATN301",  # the directive names this rule itself
        "  # noqa: ATN0",
    ],
)
def test_left_alone(comment: str) -> None:
    assert unused(source(second=comment)) == []


@pytest.mark.parametrize(
    "header",
    ["# attnlint: noqa\n", "# attnlint: noqa: ATN001\n", "# attnlint: noqa: ATN0\n"],
)
def test_a_file_exempt_from_atn001_is_not_judged(header: str) -> None:
    assert unused(header + source(second="  # noqa: ATN301")) == []


def test_file_level_directives() -> None:
    used = "# attnlint: noqa: ATN101\n" + source()
    assert unused(used) == []
    stale = "# attnlint: noqa: ATN101, ATN301\n" + source()
    assert unused(stale) == [(1, "Unused `noqa` directive (unused: `ATN301`)")]
    assert fixed(stale) == "# attnlint: noqa: ATN101\n" + source()
    # A row's directive for a code the file exempts suppresses nothing.
    both = "# attnlint: noqa: ATN101\n" + source("  # noqa: ATN101")
    assert unused(both) == [(6, "Unused `noqa` directive (unused: `ATN101`)")]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("y = 1  # noqa: ATN101", "y = 1"),
        ("y = 1  # noqa: ATN101   ", "y = 1"),
        ("y = 1  #noqa:ATN101,ATN301", "y = 1"),
        # The reason goes with the directive ...
        ("y = 1  # noqa: ATN101 pinned at adoption", "y = 1"),
        ("y = 1  # noqa: ATN101 see #123", "y = 1"),
        # ... the row's other comments stay.
        ("y = 1  # noqa: ATN101  # type: ignore", "y = 1  # type: ignore"),
        ("y = 1  # noqa: ATN101 why  # type: ignore", "y = 1  # type: ignore"),
        ("y = 1  # type: ignore  # noqa: ATN101", "y = 1  # type: ignore"),
        ("y = 1  # why # noqa: ATN101", "y = 1  # why"),
        # Only the unused codes go; the rest keeps its style and its reason.
        ("y = 1  # noqa: E501, ATN101", "y = 1  # noqa: E501"),
        ("y = 1  # noqa: ATN101, E501 long", "y = 1  # noqa: E501 long"),
        ("y = 1  # noqa:E501,ATN101,W291", "y = 1  # noqa:E501,W291"),
        ("y = 1  # noqa: E501 ATN101 W291", "y = 1  # noqa: E501 W291"),
        ("y = 1  # NOQA: E501, atn101  # keep", "y = 1  # NOQA: E501  # keep"),
    ],
)
def test_fix(line: str, expected: str) -> None:
    for newline in ("\n", "\r\n"):
        text = newline.join(["x = 0", line, "z = 2", ""])
        assert fixed(text) == newline.join(["x = 0", expected, "z = 2", ""])


def test_fix_deletes_a_row_holding_only_the_directive() -> None:
    text = "x = [\n    1,\n    # noqa: ATN101\n]\n"
    assert fixed(text) == "x = [\n    1,\n]\n"
    assert fixed("x = 1\n# noqa: ATN301 old") == "x = 1\n"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_fix_keeps_the_row_a_backslash_continues_into(newline: str) -> None:
    # Deleting the row would join the continued statement with the next one.
    rows = ["x = 3 \\", "    # noqa: ATN101", "y = 1", ""]
    text = newline.join(rows)
    result = fixed(text)
    compile(result, "m.py", "exec")
    assert result == newline.join(["x = 3 \\", "", "y = 1", ""])


def test_fix_never_changes_what_the_other_rules_report() -> None:
    # Every combination of a directive on the finding's row and on a clean
    # row: removing what ATN001 calls unused leaves the other findings as
    # they were (the oracle: checking the fixed text without ATN001).
    comments = [
        "",
        "  # noqa",
        "  # noqa: ATN101",
        "  # noqa: ATN301",
        "  # noqa: ATN101, ATN301 why",
        "  # noqa: E501, ATN301",
        "  # noqa: ATN1, ATN101",
        "  # NOQA: atn101",
        "  # noqa: ATN101 # type: ignore",
    ]
    for first in comments:
        for second in comments:
            text = source(first, second)
            after = fixed(text)
            assert unused(after) == [], (first, second, after)
            assert _others(after) == _others(text), (first, second)


def _others(text: str) -> list[tuple[int, str]]:
    return [
        (finding.location.row, finding.code)
        for finding in check_source(text, "m.py", Settings())
    ]


def test_codes_of_a_rule_that_failed_are_not_judged() -> None:
    registry = Registry((*ENGINE_RULES, UnusedNoqa))
    settings = registry.settings(extend_select=("ATN0",))
    errors: list[str] = []
    findings = check_source(
        "explode()  # noqa: TST401, TST101\n",
        "m.py",
        settings,
        errors=errors,
        registry=registry,
    )
    assert errors and "TST401" in errors[0]
    assert [f.message for f in findings] == [
        "Unused `noqa` directive (unused: `TST101`)"
    ]


def test_the_command_reports_and_fixes(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    text = source("  # noqa: ATN101, ATN301", "  # noqa: E501, ATN101  # keep")
    path.write_bytes(text.replace("\n", "\r\n").encode())
    command = [sys.executable, "-m", "lint_rules", "check", "--no-cache", "m.py"]
    plain = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    selected = [*command, "--extend-select", "ATN001"]
    checked = subprocess.run(selected, cwd=tmp_path, capture_output=True, text=True)
    assert checked.returncode == 1
    assert checked.stdout.splitlines()[:2] == [
        "m.py:5:27: ATN001 [*] Unused `noqa` directive (unused: `ATN301`)",
        "m.py:7:16: ATN001 [*] Unused `noqa` directive (unused: `ATN101`)",
    ]
    fixing = subprocess.run(
        [*selected, "--fix"], cwd=tmp_path, capture_output=True, text=True
    )
    assert fixing.returncode == 0, fixing.stdout + fixing.stderr
    assert path.read_bytes() == source(
        "  # noqa: ATN101", "  # noqa: E501  # keep"
    ).replace("\n", "\r\n").encode("utf-8")


def test_a_directive_is_judged_on_the_text_the_other_fixes_leave():
    # Unused before ATN301 inlines ``w``; after it, line 10 repeats line 8
    # and the directive suppresses ATN202's deletion (review 12). ATN001's
    # fix waits until no other fix applies, so the directive stays.
    text = (
        "import torch\n\n\ndef f(xs):\n    out = []\n    for v in xs:\n"
        "        w = v\n        a = w * 2\n        out.append(a + 1)\n"
        "        a = v * 2  # noqa: ATN202\n        out.append(a + 1)\n    return out\n"
    )
    settings = Settings(extend_select=("ATN001",), hot_paths_only=False)
    assert [f.code for f in check_source(text, "t.py", settings)] == [
        "ATN301",
        "ATN001",
    ]
    result = fix_text(text, "t.py", settings, False)
    assert result.text == text.replace("        w = v\n", "").replace("w * 2", "v * 2")
    assert result.fixed_count_by_code == {"ATN301": 1}
    assert result.remaining_findings == []
