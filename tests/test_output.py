"""Output formats: concise, full, json, json-lines, github, sarif, statistics."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from lint_rules.checker import check_source as _check_source
from lint_rules.output import (
    Run,
    display_path,
    fixed_lines,
    sarif_document,
    summary_lines,
    write_findings,
    write_statistics,
)
from lint_rules.runner import process_file, resolved_by_fixes
from tests.engine_rules import ENGINE, ENGINE_RULES

SETTINGS = ENGINE.settings()


def check_source(text, filename, settings, **kwargs):
    """The checker, choosing among the test-only rules."""
    return _check_source(text, filename, settings, registry=ENGINE, **kwargs)


RULES = {rule.code: rule for rule in ENGINE_RULES}
TEXT = "x = 1\nold()\nrisky()  # c\nplain()\n"


def make_run(tmp_path: Path, text: str = TEXT, **kwargs) -> Run:
    filename = str(tmp_path / "m.py")
    findings = check_source(text, filename, SETTINGS)
    kwargs.setdefault("rules", RULES)
    return Run(findings, sources={filename: text}, cwd=str(tmp_path), **kwargs)


def render(run: Run, output_format: str) -> str:
    stream = io.StringIO()
    write_findings(run, output_format, stream)
    return stream.getvalue()


# ------------------------------------------------------------------------ concise


def test_concise_lines_and_fix_markers(tmp_path: Path) -> None:
    assert render(make_run(tmp_path), "concise").splitlines() == [
        "m.py:2:1: TST101 [*] Call to `old`",
        "m.py:3:1: TST102 Call to `risky`",
        "m.py:4:1: TST103 Call to `plain`",
    ]


def test_concise_marks_unsafe_fixes_under_unsafe_fixes(tmp_path: Path) -> None:
    lines = render(make_run(tmp_path, unsafe_fixes=True), "concise").splitlines()
    assert lines[1] == "m.py:3:1: TST102 [*] Call to `risky`"


def test_display_path_is_relative_to_cwd_inside_it(tmp_path: Path) -> None:
    assert display_path(str(tmp_path / "a" / "b.py"), str(tmp_path)) == os.path.join(
        "a", "b.py"
    )
    assert display_path("/elsewhere/b.py", str(tmp_path)) == "/elsewhere/b.py"


# ------------------------------------------------------------------------ summary


@pytest.mark.parametrize(
    ("text", "kwargs", "expected"),
    [
        ("x = 1\n", {}, ["All checks passed!"]),
        ("plain()\n", {}, ["Found 1 error."]),
        (
            "old()\nold()\n",
            {},
            ["Found 2 errors.", "[*] 2 fixable with the `--fix` option."],
        ),
        (
            TEXT,
            {},
            [
                "Found 3 errors.",
                "[*] 1 fixable with the `--fix` option "
                "(1 hidden fix can be enabled with the `--unsafe-fixes` option).",
            ],
        ),
        (
            "risky()\nrisky()\n",
            {},
            [
                "Found 2 errors.",
                "No fixes available (2 hidden fixes can be enabled with the "
                "`--unsafe-fixes` option).",
            ],
        ),
        (TEXT, {"unsafe_fixes": True}, ["Found 3 errors.", "[*] 2 fixable with the `--fix` option."]),
        (TEXT, {"unsafe_fixes": False}, ["Found 3 errors.", "[*] 1 fixable with the `--fix` option."]),
        (
            "plain()\n",
            {"fixed": {"m.py": {"TST101": 2}}, "fix_mode": "fix"},
            ["Found 3 errors (2 fixed, 1 remaining)."],
        ),
        ("x = 1\n", {"fixed": {"m.py": {"TST101": 1}}, "fix_mode": "fix"}, ["Found 1 error (1 fixed, 0 remaining)."]),
        ("x = 1\n", {"fixed": {"m.py": {"TST101": 2}}, "fix_mode": "diff"}, ["Would fix 2 errors."]),
        (
            "risky()\n",
            {"fixed": {"m.py": {"TST101": 1}}, "fix_mode": "diff"},
            ["Would fix 1 error (1 additional fix available with `--unsafe-fixes`)."],
        ),
        (
            "risky()\n",
            {"fix_mode": "diff"},
            ["No errors would be fixed (1 fix available with `--unsafe-fixes`)."],
        ),
    ],
)  # fmt: skip
def test_summary_lines(
    tmp_path: Path, text: str, kwargs: dict, expected: list[str]
) -> None:
    assert summary_lines(make_run(tmp_path, text, **kwargs)) == expected


def test_fix_counts_exclude_fixes_that_other_fixes_exposed(tmp_path: Path) -> None:
    # step1() -> step2() exposes a second TST201 finding, fixed in a later pass.
    outcome = process_file(
        str(tmp_path / "m.py"),
        b"step1()\nold()\n",
        SETTINGS,
        "fix",
        False,
        "m.py",
        registry=ENGINE,
    )
    assert outcome.fixed == {"TST201": 2, "TST101": 1}
    assert outcome.resolved == {"TST201": 1, "TST101": 1}
    run = make_run(
        tmp_path,
        outcome.text,
        fixed={outcome.filename: outcome.fixed},
        resolved={outcome.filename: outcome.resolved},
        fix_mode="fix",
    )
    assert summary_lines(run) == [
        "Found 2 errors (2 fixed, 0 remaining).",
        "1 more fix was applied to an error that another fix exposed "
        "(1 \u00d7 TST201); it is counted with that fix.",
    ]
    run.fix_mode = "diff"
    assert summary_lines(run) == [
        "Would fix 2 errors.",
        "1 more fix would be applied to an error that another fix exposes "
        "(1 \u00d7 TST201); it is counted with that fix.",
    ]
    assert fixed_lines(run) == [
        "Fixed 2 errors and 1 that the fixes exposed:",
        "- m.py:",
        "    1 \u00d7 TST101 (safe-rename)",
        "    2 \u00d7 TST201 (step-chain), 1 of them exposed by another fix",
    ]


def test_resolved_counts_fixable_findings_the_fixes_removed() -> None:
    first = check_source("old()\nold()\nrisky()\n", "m.py", SETTINGS)
    remaining = check_source("new()\nold()\nrisky()\n", "m.py", SETTINGS)
    # An unsafe fix is not fixable without --unsafe-fixes: never resolved then.
    assert resolved_by_fixes(first, remaining, unsafe_fixes=False) == {"TST101": 1}
    assert resolved_by_fixes(first, [], unsafe_fixes=True) == {
        "TST101": 2,
        "TST102": 1,
    }


def test_show_fixes_lists_files_and_codes(tmp_path: Path) -> None:
    run = make_run(tmp_path, "x = 1\n", fixed={str(tmp_path / "m.py"): {"TST101": 2}})
    assert fixed_lines(run) == [
        "Fixed 2 errors:",
        "- m.py:",
        "    2 \u00d7 TST101 (safe-rename)",
    ]


# --------------------------------------------------------------------------- full


def test_full_format_shows_snippet_caret_and_fix_diff(tmp_path: Path) -> None:
    out = render(make_run(tmp_path, "x = 1\nold()  # c\ny = 2\nz = 3\n"), "full")
    assert out.splitlines()[:13] == [
        "m.py:2:1: TST101 [*] Call to `old`",
        "  |",
        "1 | x = 1",
        "2 | old()  # c",
        "  | ^^^^^ TST101",
        "3 | y = 2",
        "4 | z = 3",
        "  |",
        "  = help: Call `new` instead",
        "",
        "Safe fix",
        "@@ -1,3 +1,3 @@",
        " x = 1",
    ]
    assert "-old()  # c" in out and "+new()  # c" in out


def test_full_format_labels_unsafe_fixes(tmp_path: Path) -> None:
    out = render(make_run(tmp_path, "risky()\n"), "full")
    assert "\nUnsafe fix\n" in out and "+careful()" in out


def test_full_format_aligns_caret_after_tabs(tmp_path: Path) -> None:
    out = render(make_run(tmp_path, "if x:\n\told()\n"), "full")
    assert "2 |     old()" in out
    assert "  |     ^^^^^ TST101" in out


def test_full_format_multiline_range(tmp_path: Path) -> None:
    out = render(make_run(tmp_path, "old(\n    1,\n)\n"), "full")
    assert "1 | old(" in out and "  | ^^^^" in out
    assert "3 | )" in out and "  | ^ TST101" in out


# --------------------------------------------------------------------------- json


def test_json_matches_ruffs_schema(tmp_path: Path) -> None:
    data = json.loads(render(make_run(tmp_path, "x = 1\n  # pad\nold()\n"), "json"))
    assert data == [
        {
            "cell": None,
            "code": "TST101",
            "cost": "unknown",
            "end_location": {"column": 6, "row": 3},
            "filename": str(tmp_path / "m.py"),
            "fix": {
                "applicability": "safe",
                "edits": [
                    {
                        "content": "new",
                        "end_location": {"column": 4, "row": 3},
                        "location": {"column": 1, "row": 3},
                    }
                ],
                "message": "Call `new` instead",
            },
            "location": {"column": 1, "row": 3},
            "message": "Call to `old`",
            "name": "safe-rename",
            "noqa_row": 3,
            "severity": "error",
            "url": None,
        }
    ]


def test_json_for_syntax_error_and_unfixable(tmp_path: Path) -> None:
    (entry,) = json.loads(render(make_run(tmp_path, "def f(:\n  old()\n"), "json"))
    assert entry["code"] == "E999" and entry["name"] == "syntax-error"
    assert entry["fix"] is None and entry["noqa_row"] is None
    assert entry["location"] == {"column": 7, "row": 1}
    (plain,) = json.loads(render(make_run(tmp_path, "plain()\n"), "json"))
    assert plain["fix"] is None


def test_json_severity_is_the_rules_severity(tmp_path: Path) -> None:
    data = json.loads(render(make_run(tmp_path, "old()\nrisky()\n"), "json"))
    assert [(entry["code"], entry["severity"]) for entry in data] == [
        ("TST101", "error"),
        ("TST102", "warning"),
    ]


def test_json_empty_run_is_an_empty_list(tmp_path: Path) -> None:
    assert json.loads(render(make_run(tmp_path, "x = 1\n"), "json")) == []


def test_json_lines_one_object_per_finding(tmp_path: Path) -> None:
    lines = render(make_run(tmp_path), "json-lines").splitlines()
    assert [json.loads(line)["code"] for line in lines] == [
        "TST101",
        "TST102",
        "TST103",
    ]


# ------------------------------------------------------------------------- github


def test_github_annotations(tmp_path: Path) -> None:
    first = render(make_run(tmp_path), "github").splitlines()[0]
    assert first == (
        f"::error title=attnlint (TST101),file={tmp_path / 'm.py'},"
        "line=2,col=1,endLine=2,endColumn=6::m.py:2:1: TST101 Call to `old`"
    )


def test_github_annotation_level_is_the_rules_severity(tmp_path: Path) -> None:
    lines = render(make_run(tmp_path), "github").splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == [
        "::error",
        "::warning",
        "::error",
    ]
    assert lines[1].startswith("::warning title=attnlint (TST102),")


def test_github_escapes_workflow_command_characters(tmp_path: Path) -> None:
    run = make_run(tmp_path, "old()\n")
    run.findings[0].message = "50% of\nrows"
    line = render(run, "github")
    assert line.endswith("TST101 50%25 of%0Arows\n") and line.count("\n") == 1


# -------------------------------------------------------------------------- sarif


def test_sarif_document(tmp_path: Path) -> None:
    document = json.loads(render(make_run(tmp_path), "sarif"))
    assert document["version"] == "2.1.0" and "$schema" in document
    (run,) = document["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "attnlint" and driver["version"]
    assert [rule["id"] for rule in driver["rules"]] == ["TST101", "TST102", "TST103"]
    rule = driver["rules"][0]
    assert rule["name"] == "safe-rename"
    assert rule["shortDescription"]["text"] == "Flags calls to `old()`."
    assert rule["fullDescription"]["text"] == "Flags calls to `old()`. Test-only."
    documentation = RULES["TST101"].documentation()
    assert rule["help"] == {"text": documentation, "markdown": documentation}
    assert rule["defaultConfiguration"]["level"] == "error"
    assert rule["properties"]["problem.severity"] == "error"
    result = run["results"][0]
    assert result["ruleId"] == "TST101" and result["level"] == "error"
    assert result["message"] == {"text": "Call to `old`"}
    location = result["locations"][0]["physicalLocation"]
    assert location["region"] == {
        "startLine": 2,
        "startColumn": 1,
        "endLine": 2,
        "endColumn": 6,
    }
    replacement = result["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["insertedContent"] == {"text": "new"}
    assert "fixes" not in run["results"][2]


def test_sarif_levels_are_the_rules_severities(tmp_path: Path) -> None:
    (run,) = sarif_document(make_run(tmp_path))["runs"]
    levels = {
        rule["id"]: rule["defaultConfiguration"]["level"]
        for rule in run["tool"]["driver"]["rules"]
    }
    assert levels == {"TST101": "error", "TST102": "warning", "TST103": "error"}
    assert [result["level"] for result in run["results"]] == [
        "error",
        "warning",
        "error",
    ]
    unsafe = run["tool"]["driver"]["rules"][1]
    assert unsafe["properties"]["problem.severity"] == "warning"


def test_sarif_uris_are_relative_to_srcroot(tmp_path: Path) -> None:
    folder = tmp_path / "a dir"
    folder.mkdir()
    filename = str(folder / "m.py")
    findings = check_source("old()\n", filename, SETTINGS)
    run = Run(findings, sources={filename: "old()\n"}, rules=RULES, cwd=str(tmp_path))
    (document_run,) = sarif_document(run)["runs"]
    root = document_run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert root == tmp_path.as_uri() + "/"
    (result,) = document_run["results"]
    expected = {"uri": "a%20dir/m.py", "uriBaseId": "%SRCROOT%"}
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == expected
    change = result["fixes"][0]["artifactChanges"][0]
    assert change["artifactLocation"] == expected


def test_sarif_uri_outside_the_current_directory_is_absolute(tmp_path: Path) -> None:
    (tmp_path / "here").mkdir()
    filename = str(tmp_path / "m.py")
    findings = check_source("old()\n", filename, SETTINGS)
    run = Run(findings, rules=RULES, cwd=str(tmp_path / "here"))
    (result,) = sarif_document(run)["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": (tmp_path / "m.py").as_uri()}


def test_sarif_describes_syntax_errors(tmp_path: Path) -> None:
    document = sarif_document(make_run(tmp_path, "def f(:\n"))
    (rule,) = document["runs"][0]["tool"]["driver"]["rules"]
    assert rule["id"] == "E999" and rule["name"] == "syntax-error"


# --------------------------------------------------------------------- statistics


def test_statistics_text(tmp_path: Path) -> None:
    run = make_run(tmp_path, "old()\nold()\nplain()\nrisky()\nold(); plain()\n")
    stream = io.StringIO()
    write_statistics(run, "concise", stream)
    assert stream.getvalue().splitlines() == [
        "3\tTST101\t[*] safe-rename\t(unknown 3)",
        "2\tTST103\t[ ] no-fix\t(unknown 2)",
        "1\tTST102\t[ ] unsafe-rename\t(unknown 1)",
    ]


def test_statistics_json(tmp_path: Path) -> None:
    stream = io.StringIO()
    write_statistics(make_run(tmp_path, "plain()\n"), "json", stream)
    assert json.loads(stream.getvalue()) == [
        {
            "code": "TST103",
            "name": "no-fix",
            "count": 1,
            "fixable": False,
            "fixable_count": 0,
            "cost": {"unknown": 1},
        }
    ]
