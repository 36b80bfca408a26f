"""``add_noqa_edit``: adding codes to a row's ``# noqa`` directive.

Every edit the function returns is checked against the checker's own reading
of the result (``NoqaDirectives.scan``), and against ``check_source``: the
finding the directive was added for is gone, nothing else changed.
"""

from __future__ import annotations

import pytest

from lint_rules.checker import NoqaDirectives, add_noqa_edit
from lint_rules.checker import check_source as _check_source
from lint_rules.diagnostics import Applicability, Finding, Fix, Location
from lint_rules.fixer import apply_fixes
from lint_rules.noqa import reason_problem
from tests.engine_rules import ENGINE

SETTINGS = ENGINE.settings()


def check_source(text, filename, settings, **kwargs):
    """The checker, choosing among the test-only rules."""
    return _check_source(text, filename, settings, registry=ENGINE, **kwargs)


def apply(text: str, row: int, codes: list[str]) -> str | None:
    edit = add_noqa_edit(text, row, codes)
    if edit is None:
        return None
    new_text, applied = apply_fixes(
        text, [Fix((edit,), Applicability.SAFE, "add noqa")]
    )
    assert applied
    return new_text


def suppresses(text: str, row: int, code: str) -> bool:
    directives = NoqaDirectives.scan(text, comments=True, spans=True)
    finding = Finding(code, "x", "m", Location(row, 1), Location(row, 1))
    return directives.suppresses(finding)


@pytest.mark.parametrize(
    ("line", "codes", "expected"),
    [
        # No comment: the directive goes at the end, two spaces before it.
        ("x = old()", ["ATN101"], "x = old()  # noqa: ATN101"),
        ("x = old()   \t", ["ATN101"], "x = old()  # noqa: ATN101"),
        ("x = old()", ["ATN101", "ATN301"], "x = old()  # noqa: ATN101, ATN301"),
        ("x = old()", ["atn101", "ATN101"], "x = old()  # noqa: ATN101"),
        # Another comment stays first, so its own tool still reads it.
        (
            "x = old()  # type: ignore",
            ["ATN101"],
            "x = old()  # type: ignore  # noqa: ATN101",
        ),
        ("x = old()  # why  ", ["ATN101"], "x = old()  # why  # noqa: ATN101"),
        # A '#' or a noqa inside a string is not a comment.
        ("x = old('#')", ["ATN101"], "x = old('#')  # noqa: ATN101"),
        (
            "x = old('# noqa: ATN102')",
            ["ATN101"],
            "x = old('# noqa: ATN102')  # noqa: ATN101",
        ),
        # An existing directive with codes is extended in its own style.
        ("x = old()  # noqa: ATN102", ["ATN101"], "x = old()  # noqa: ATN102, ATN101"),
        ("x = old()  # noqa:ATN102", ["ATN101"], "x = old()  # noqa:ATN102, ATN101"),
        (
            "x = old()  # noqa: ATN102,ATN103",
            ["ATN101"],
            "x = old()  # noqa: ATN102,ATN103,ATN101",
        ),
        (
            "x = old()  # noqa: ATN102 ATN103",
            ["ATN101"],
            "x = old()  # noqa: ATN102 ATN103 ATN101",
        ),
        (
            "x = old()  # noqa: ATN102, ATN103",
            ["ATN101", "ATN301"],
            "x = old()  # noqa: ATN102, ATN103, ATN101, ATN301",
        ),
        # Other text of the comment is kept, before and after the directive.
        (
            "x = old()  # noqa: ATN102  # zeros needed by replay",
            ["ATN101"],
            "x = old()  # noqa: ATN102, ATN101  # zeros needed by replay",
        ),
        (
            "x = old()  # type: ignore  # noqa: ATN102",
            ["ATN101"],
            "x = old()  # type: ignore  # noqa: ATN102, ATN101",
        ),
        # A code in lower case suppresses nothing (flake8 compares as written).
        ("x = old()  # noqa: atn101", ["ATN101"], "x = old()  # noqa: atn101, ATN101"),
        # Only the codes not suppressed yet are added.
        (
            "x = old()  # noqa: ATN102",
            ["ATN102", "ATN101"],
            "x = old()  # noqa: ATN102, ATN101",
        ),
    ],
)
def test_adds_codes(line: str, codes: list[str], expected: str) -> None:
    text = f"a = 1\n{line}\nb = 2\n"
    new_text = apply(text, 2, codes)
    assert new_text == f"a = 1\n{expected}\nb = 2\n"
    before = NoqaDirectives.scan(text, comments=True, spans=True).lines.get(2)
    for code in (*codes, *(before or ())):
        assert suppresses(new_text, 2, code.upper())
    assert not suppresses(new_text, 1, codes[0])
    assert not suppresses(new_text, 3, codes[0])


@pytest.mark.parametrize(
    "line",
    [
        "x = old()  # noqa",  # a blanket noqa suppresses every code already
        "x = old()  # NOQA",
        "x = old()  # noqa: ATN101",
        "x = old()  # noqa: ATN1",  # a prefix covers the code (flake8's reading)
        "x = old()  # noqa: ATN102, ATN101",
        # A file-level directive: a line directive after it would not be read.
        "x = old()  # attnlint: noqa: ATN102",
        "x = old()  # flake8: noqa: E501",
    ],
)
def test_leaves_alone(line: str) -> None:
    assert add_noqa_edit(f"{line}\n", 1, ["ATN101"]) is None


def test_no_codes_no_edit() -> None:
    assert add_noqa_edit("x = old()\n", 1, []) is None


def test_row_past_the_end_gives_no_edit() -> None:
    assert add_noqa_edit("x = old()\n", 5, ["ATN101"]) is None


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_line_endings_are_kept(newline: str) -> None:
    text = newline.join(["a = 1", "x = old()", "y = old()  # noqa: ATN102", ""])
    once = apply(text, 2, ["ATN101"])
    assert once == newline.join(
        ["a = 1", "x = old()  # noqa: ATN101", "y = old()  # noqa: ATN102", ""]
    )
    twice = apply(once, 3, ["ATN101"])
    assert twice == newline.join(
        [
            "a = 1",
            "x = old()  # noqa: ATN101",
            "y = old()  # noqa: ATN102, ATN101",
            "",
        ]
    )
    assert suppresses(twice, 3, "ATN101") and suppresses(twice, 3, "ATN102")


def test_last_line_without_newline() -> None:
    assert apply("x = old()", 1, ["ATN101"]) == "x = old()  # noqa: ATN101"


def test_row_ending_inside_a_string_gives_no_edit() -> None:
    # Row 2 ends inside the second string: a comment there would be string text.
    text = 'x = """a\nb""" + """c\nd"""\n'
    assert add_noqa_edit(text, 2, ["ATN101"]) is None
    assert apply(text, 3, ["ATN101"]) == 'x = """a\nb""" + """c\nd"""  # noqa: ATN101\n'


def test_row_ending_in_a_continuation_gives_no_edit() -> None:
    assert add_noqa_edit("x = old() + \\\n    1\n", 1, ["ATN101"]) is None


@pytest.mark.parametrize(
    "text",
    [
        "x = old()\n",
        "x = old()  # keep\n",
        "x = old()  # noqa: TST102\n",
        # The finding's noqa row is the multi-line string's last row ...
        'x = f"""\n{old()}\n"""\n',
        # ... and a backslash continuation's last row.
        "x = old() + \\\n    1\n",
        "x = [\n    old(),  # noqa: TST103\n]\n",
        "if True:\r\n    x = old()\r\n",
    ],
)
def test_disables_the_finding_it_was_added_for(text: str) -> None:
    (finding,) = check_source(text, "m.py", SETTINGS)
    assert finding.code == "TST101" and finding.noqa_row is not None
    new_text = apply(text, finding.noqa_row, [finding.code])
    assert new_text is not None
    assert check_source(new_text, "m.py", SETTINGS) == []
    # Only the noqa row changed.
    old_rows, new_rows = text.splitlines(True), new_text.splitlines(True)
    changed = [
        index + 1
        for index, (a, b) in enumerate(zip(old_rows, new_rows, strict=True))
        if a != b
    ]
    assert changed == [finding.noqa_row]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("x = old()", "x = old()  # noqa: ATN101 pinned at adoption"),
        ("x = old()  # why", "x = old()  # why  # noqa: ATN101 pinned at adoption"),
        (
            "x = old()  # noqa: ATN102",
            "x = old()  # noqa: ATN102, ATN101 pinned at adoption",
        ),
        # A directive with text after its codes keeps it, and gets no second one.
        (
            "x = old()  # noqa: ATN102 needed by replay",
            "x = old()  # noqa: ATN102, ATN101 needed by replay",
        ),
    ],
)
def test_reason_follows_the_codes(line: str, expected: str) -> None:
    edit = add_noqa_edit(f"{line}\n", 1, ["ATN101"], reason=" pinned at adoption ")
    assert edit is not None
    new_text, _ = apply_fixes(f"{line}\n", [Fix((edit,), Applicability.SAFE, "")])
    assert new_text == f"{expected}\n"
    assert suppresses(new_text, 1, "ATN101")


@pytest.mark.parametrize(
    ("reason", "problem"),
    [
        ("pinned at adoption", None),
        ("see #123 (ATN101 is noisy here)", None),
        ("", None),
        ("two\nlines", "single line"),
        ("TODO1 later", "rule code"),
        ("x, E501", None),  # "x" is no code, so E501 is reason text
        ("E501 too", "rule code"),
        ("# attnlint: noqa", "another suppression directive"),
        ("then # noqa", "another suppression directive"),
    ],
)
def test_reason_problems(reason: str, problem: str | None) -> None:
    found = reason_problem(reason)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found
