"""Every rule's own examples are its tests: valid ones stay clean, invalid ones
are flagged the stated number of times and fix to the stated text."""

from __future__ import annotations

import ast

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings
from lint_rules.fixer import fix_text
from lint_rules.rules import ALL_RULES

SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead")


def _settings(rule) -> Settings:
    return Settings(select=(rule.code,))


VALID = [
    pytest.param(rule, source, id=f"{rule.code}-valid-{index}")
    for rule in ALL_RULES
    for index, source in enumerate(rule.valid)
]
INVALID = [
    pytest.param(rule, example, id=f"{rule.code}-invalid-{index}")
    for rule in ALL_RULES
    for index, example in enumerate(rule.invalid)
]


@pytest.mark.parametrize(("rule", "source"), VALID)
def test_valid_example_is_not_flagged(rule, source):
    findings = [f for f in check_source(source, "example.py", _settings(rule))]
    assert [f for f in findings if f.code == rule.code] == []


@pytest.mark.parametrize(("rule", "example"), INVALID)
def test_invalid_example_is_flagged(rule, example):
    findings = check_source(example.source, "example.py", _settings(rule))
    assert len([f for f in findings if f.code == rule.code]) == example.count


@pytest.mark.parametrize(("rule", "example"), INVALID)
def test_invalid_example_fixes_to_stated_text(rule, example):
    result = fix_text(example.source, "example.py", _settings(rule), unsafe_fixes=True)
    if example.fixed is None:
        assert result.text == example.source
        return
    assert result.text == example.fixed
    ast.parse(result.text)
    # A fixed example is a fixpoint: nothing fixable is left.
    again = fix_text(result.text, "example.py", _settings(rule), unsafe_fixes=True)
    assert again.text == result.text


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_rule_documents_itself(rule):
    doc = rule.documentation()
    for section in SECTIONS:
        assert section in doc, f"{rule.code} lacks {section!r}"
    if rule.fix_availability != "none":
        assert "## Fix safety" in doc
    assert rule.valid, f"{rule.code} has no valid examples"
    assert rule.invalid, f"{rule.code} has no invalid examples"


def test_codes_and_names_are_unique():
    assert len({rule.code for rule in ALL_RULES}) == len(ALL_RULES)
    assert len({rule.name for rule in ALL_RULES}) == len(ALL_RULES)
