"""The language server's one door into attnlint's engine.

Everything the server asks of the linter goes through these functions:
finding the settings for a file, checking a text, fixing a text, the edit
that adds a ``# noqa`` code, and a rule's documentation. They call what
``attnlint check`` calls (``load_settings``, ``check_source``, ``fix_text``),
so the editor shows what the command line reports: the same rules, the
same configuration, the same suppressions.
"""

from __future__ import annotations

import os
from typing import Any

from lint_rules.checker import add_noqa_edit, check_source
from lint_rules.config import CONFIG_FILE_NAMES as _CONFIG_FILE_NAMES
from lint_rules.config import ConfigError, Settings, load_settings
from lint_rules.diagnostics import (
    IO_ERROR_CODE,
    SYNTAX_ERROR_CODE,
    Applicability,
    Edit,
    Finding,
)
from lint_rules.discover import is_force_excluded, is_python_file
from lint_rules.noqa import NoqaDirectives, code_listed
from lint_rules.rules import Registry, default_registry

__all__ = [
    "CONFIG_FILE_NAMES",
    "ConfigError",
    "Edit",
    "Finding",
    "Settings",
    "check_text",
    "fix_all",
    "is_excluded",
    "is_python_file",
    "is_syntax_error",
    "is_safe_fix",
    "noqa_edit",
    "rule_explanation",
    "rule_facts",
    "rule_url",
    "settings_for",
]

#: File names whose change can change the settings of files below them.
CONFIG_FILE_NAMES: tuple[str, ...] = _CONFIG_FILE_NAMES

_NOT_RULES = (SYNTAX_ERROR_CODE, IO_ERROR_CODE)


def settings_for(
    folder: str, fallback_root: str | None = None, registry: Registry | None = None
) -> Settings:
    """The settings ``attnlint check`` would use for a file in ``folder``:
    those of the nearest configuration file above it. Without one, the
    defaults, anchored at ``fallback_root`` (the workspace folder) rather
    than the server's working directory. ``registry``: the rules to choose
    from (default: attnlint's). Raises ConfigError."""
    registry = registry or default_registry()
    settings = load_settings(
        start=folder, codes=registry.codes, opt_in_codes=registry.opt_in_codes
    )
    if settings.config_file is None and fallback_root:
        settings = settings.replace(project_root=fallback_root)
    return settings


def is_excluded(path: str, settings: Settings) -> bool:
    """Whether ``exclude``/``extend-exclude`` cover ``path`` or a folder above
    it (as ``--force-exclude`` judges a file named on the command line)."""
    return is_force_excluded(path, settings)


def check_text(
    text: str,
    filename: str,
    settings: Settings,
    errors: list[str],
    registry: Registry | None = None,
) -> list[Finding]:
    """The findings of ``attnlint check`` on ``text`` (noqa applied, sorted);
    internal rule failures are appended to ``errors``."""
    return check_source(
        text, os.fspath(filename), settings, errors=errors, registry=registry
    )


def is_syntax_error(finding: Finding) -> bool:
    return finding.code == SYNTAX_ERROR_CODE


def is_safe_fix(finding: Finding) -> bool:
    return finding.fix is not None and (finding.fix.applicability is Applicability.SAFE)


def fix_all(
    text: str,
    filename: str,
    settings: Settings,
    errors: list[str],
    registry: Registry | None = None,
) -> tuple[str, str | None, tuple[str, ...]]:
    """``text`` with every safe fix applied, repeated until nothing fixable is
    left (``attnlint check --fix``); the error that kept it unchanged (fixes
    that together produced code which does not parse), if any; and what to
    tell the user about fixes left out because each alone broke the code."""
    from lint_rules.fixer import fix_text

    result = fix_text(
        text,
        filename,
        settings,
        unsafe_fixes=False,
        errors=errors,
        registry=registry,
    )
    return result.text, result.error, tuple(result.left_out)


def noqa_edit(text: str, row: int, code: str) -> Edit | None:
    """The edit that adds ``code`` to the ``# noqa`` directive of ``row``."""
    return add_noqa_edit(text, row, (code,))


def _rule(code: str, registry: Registry | None) -> Any:
    """The rule with ``code`` (None for a code that is no rule, or unknown)."""
    if code in _NOT_RULES:
        return None
    return (registry or default_registry()).rule_for_code(code)


def rule_explanation(
    code: str, registry: Registry | None = None
) -> tuple[str, str] | None:
    """(name, the "Why is this bad?" section) of the rule with ``code``, or
    None for a code that is no rule (``E999``) or not known."""
    rule = _rule(code, registry)
    if rule is None:
        return None
    return rule.name, _section(rule.documentation(), "why is this bad?")


def rules_listed(
    code: str, registry: Registry | None = None
) -> list[tuple[str, str, str, str]]:
    """(code, name, summary, the "Why is this bad?" section) of each rule a
    suppression comment's ``code`` covers: the rule with that code, or those
    it is a prefix of (``ATN1``), compared as written, as the suppression
    compares them (``noqa.code_listed``)."""
    return [
        (
            rule.code,
            rule.name,
            rule.summary(),
            _section(rule.documentation(), "why is this bad?"),
        )
        for rule in (registry or default_registry()).rules
        if rule.code not in _NOT_RULES and code_listed(rule.code, (code,))
    ]


def noqa_codes(text: str) -> list[tuple[str, int, int]]:
    """(code as written, start, end offsets) of each code that a
    suppression comment of ``text`` lists (``# noqa: ATN101``, ``# attnlint:
    noqa: ATN301``), read as ``attnlint check`` reads them."""
    directives = NoqaDirectives.scan(text, comments=True, spans=False)
    return [
        code
        for directive in directives.directives
        if directive.codes is not None
        for code in directive.codes
    ]


def rule_facts(code: str, registry: Registry | None = None) -> tuple[str, str] | None:
    """(level, fix availability) of the rule with ``code``: how CI levels its
    findings (``Rule.severity``) and what fix it offers; None for a code that
    is no rule (``E999``) or not known."""
    rule = _rule(code, registry)
    return (rule.severity, rule.fix_availability) if rule is not None else None


def rule_url(code: str, registry: Registry | None = None) -> str | None:
    """Where the rule's documentation is published, if anywhere (none is yet:
    ``attnlint rule CODE`` and the hover text are the reference)."""
    rule = _rule(code, registry)
    return rule.url() if rule is not None else None


def _section(document: str, title: str) -> str:
    """The body of the ``## title`` section of a rule's documentation."""
    body: list[str] | None = None
    for line in document.splitlines():
        if line.startswith("## "):
            if body is not None:
                break
            if line[3:].strip().lower() == title:
                body = []
            continue
        if body is not None:
            body.append(line)
    return "\n".join(body or ()).strip()
