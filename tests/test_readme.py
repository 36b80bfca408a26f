"""README.md is true: its rule table matches the rules, its commands are the CI's."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from lint_rules.docs import render

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_rule_table_matches_rule_docstrings():
    assert render(README) == README, (
        "run `python -m lint_rules.docs` to refresh README.md"
    )


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```console\n(.*?)\n```", README, flags=re.S)
    test_command = next(c for c in commands if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()


def test_fix_summary_shown_is_the_fix_summary_of_the_quickstart_example(
    tmp_path: Path,
) -> None:
    section = README[README.index("count the same fixes") :]
    shown = re.search(r"```text\n(.*?)\n```", section, flags=re.S).group(1)
    example = tmp_path / "backend.py"
    shutil.copyfile(
        ROOT / "tests" / "fixtures" / "flashattention_backend_unoptimized.py", example
    )
    result = subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "--no-cache", "--fix", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    lines = result.stdout.splitlines()
    first = shown.splitlines()[0]
    assert first in lines, result.stdout
    start = lines.index(first)
    assert lines[start : start + len(shown.splitlines())] == shown.splitlines()
