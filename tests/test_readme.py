"""README.md is true: its rule table matches the rules, its commands are the CI's."""

from __future__ import annotations

import re
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
