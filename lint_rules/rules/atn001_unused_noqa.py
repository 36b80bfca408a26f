"""ATN001 unused-noqa."""

from __future__ import annotations

import re

from lint_rules.diagnostics import Applicability, Edit, Finding, Fix, Location
from lint_rules.noqa import (
    NoqaDirective,
    SuppressionFacts,
    code_listed,
    code_separator,
    delete_directive,
)
from lint_rules.rules.base import Invalid, Rule

_LETTERS = re.compile(r"[A-Za-z]+")


class UnusedNoqa(Rule):
    """## What it does
    Checks for attnlint codes in `# noqa` directives that suppress nothing
    (off unless selected). It names the codes of rules that report nothing
    on that row (unused), of rules not selected for the file (non-enabled),
    codes no attnlint rule has (unknown, such as `ATN999` or `atn301`:
    codes are matched as written), and codes listed twice (duplicated).
    File-level directives (`# attnlint: noqa: ATN301`) are checked too,
    against the whole file.

    Only attnlint's codes are judged: in `# noqa: E501, ATN101` the `E501`
    belongs to another tool (flake8, ruff, pylint...) and stays, whatever
    happens to `ATN101`, as ruff leaves the codes its `external` setting
    lists. A blanket `# noqa` is never reported, since it may suppress
    another tool's findings, nor is `# flake8: noqa`. A directive that lists
    `ATN001` itself is left alone.

    The rule is off unless selected by name: `--extend-select ATN001` (or
    `extend-select = ["ATN001"]`, or `ATN0`). Unlike ruff's RUF100, which
    `select = ["ALL"]` turns on, neither `ALL` nor `ATN` selects it, because
    every rule is attnlint's default selection. It runs only in
    `attnlint check` (and the language server), where attnlint applies the
    directives itself; under flake8 it reports nothing.

    ## Why is this bad?
    A suppression that no longer matches a finding hides nothing today but
    will hide the next real finding on that line, and tells a reader there is
    waste where there is none. After adopting attnlint with
    `attnlint check --add-noqa`, this rule finds the directives that the
    code's evolution (or a more precise rule) has made stale.

    ## Example
    ```python
    def step(metadata, lens):
        metadata.max_len = lens.max().item()  # noqa: ATN201
    ```

    ## Use instead
    ```python
    def step(metadata, lens):
        metadata.max_len = lens.max().item()
    ```

    ## Fix safety
    Safe: only a comment changes. When every code of a directive is
    removed, the directive goes with the text after its codes (its reason)
    up to the next comment on the row (`# type: ignore` stays), and a row
    holding nothing else is deleted; otherwise only the unused codes go,
    the other codes, the reason and the separators' style stay.

    ## Options
    - `select` / `extend-select`: the rule runs only when named (`ATN001`,
      `ATN0`)
    """

    code = "ATN001"
    name = "unused-noqa"
    fix_availability = "safe"
    # Proven (the directive suppresses nothing) and safely fixed: an error.
    severity = "error"
    opt_in = True
    checks_suppressions = True

    valid = (
        # Another tool's code: not attnlint's to judge.
        "x = compute()  # noqa: E501\n",
        # A blanket directive may suppress another tool's findings.
        "x = compute()  # noqa\n",
        # The directive names ATN001 itself.
        "x = compute()  # noqa: ATN001, ATN999\n",
        # A directive inside a string is no directive.
        "x = '# noqa: ATN101'\n",
    )
    invalid = (
        Invalid(
            "def step(metadata, lens):\n"
            "    metadata.max_len = lens.max().item()  # noqa: ATN201\n",
            fixed="def step(metadata, lens):\n"
            "    metadata.max_len = lens.max().item()\n",
        ),
        # Only the attnlint code goes; the other tool's code and the reason stay.
        Invalid(
            "x = compute()  # noqa: E501, ATN301 long name\n",
            fixed="x = compute()  # noqa: E501 long name\n",
        ),
        # The reason goes with the directive; another comment after it stays.
        Invalid(
            "x = compute()  # noqa: ATN101 pinned  # type: ignore\n",
            fixed="x = compute()  # type: ignore\n",
        ),
        # Unknown and duplicated codes, in one finding.
        Invalid(
            "x = compute()  # noqa: E501,atn101,E501,ATN999\n",
            fixed="x = compute()  # noqa: E501,E501\n",
        ),
        # A file-level directive that exempts nothing, on a row of its own.
        Invalid(
            "# attnlint: noqa: ATN301\nx = compute()\n",
            fixed="x = compute()\n",
        ),
    )

    def check(self, ctx: object) -> list[Finding]:
        return []  # the checker calls check_suppressions instead

    def check_suppressions(self, facts: SuppressionFacts) -> list[Finding]:
        directives = facts.directives
        judged = [
            directive
            for directive in directives.directives
            if directive.codes is not None
        ]
        if not judged:
            return []
        namespaces = _namespaces(facts.known_codes)
        used = _used_codes(facts, judged)
        findings = []
        for directive in judged:
            finding = self._judge(directive, used[id(directive)], namespaces, facts)
            if finding is not None:
                findings.append(finding)
        return findings

    def _judge(
        self,
        directive: NoqaDirective,
        used: set[int],
        namespaces: frozenset[str],
        facts: SuppressionFacts,
    ) -> Finding | None:
        assert directive.codes is not None
        kinds: dict[str, list[str]] = {
            "unused": [],
            "non-enabled": [],
            "unknown": [],
            "duplicated": [],
        }
        kept: list[str] = []
        seen: set[str] = set()
        for index, (code, _, _) in enumerate(directive.codes):
            letters = _LETTERS.match(code)
            if letters is None or letters.group().upper() not in namespaces:
                kept.append(code)  # another tool's code
                continue
            if code in seen:
                kinds["duplicated"].append(code)
                continue
            seen.add(code)
            if index in used:
                kept.append(code)
                continue
            if code_listed(self.code, (code,)):
                return None  # the directive suppresses this rule itself
            if any(unjudged.startswith(code) for unjudged in facts.unjudged_codes):
                kept.append(code)  # its rule failed: its findings are unknown
            elif not any(known.startswith(code) for known in facts.known_codes):
                kinds["unknown"].append(code)
            elif any(enabled.startswith(code) for enabled in facts.enabled_codes):
                kinds["unused"].append(code)
            else:
                kinds["non-enabled"].append(code)
        reasons = "; ".join(
            f"{kind}: {', '.join(f'`{code}`' for code in codes)}"
            for kind, codes in kinds.items()
            if codes
        )
        if not reasons:
            return None
        return self._finding(directive, kept, reasons, facts)

    def _finding(
        self,
        directive: NoqaDirective,
        kept: list[str],
        reasons: str,
        facts: SuppressionFacts,
    ) -> Finding:
        assert directive.codes is not None
        text, locator = facts.text, facts.locator
        if kept:
            first, last = directive.codes[0][1], directive.codes[-1][2]
            separator = code_separator(text[first:last], len(directive.codes))
            edit = Edit(first, last, separator.join(kept))
        else:
            edit = delete_directive(text, locator, directive)
        line_start = locator.line_start(directive.row)
        return Finding(
            code=self.code,
            name=self.name,
            message=f"Unused `noqa` directive ({reasons})",
            location=Location(directive.row, directive.start - line_start + 1),
            end_location=Location(directive.row, directive.end - line_start + 1),
            fix=Fix((edit,), Applicability.SAFE, "Remove unused `noqa` directive"),
            filename=facts.filename,
            offset=directive.start,
        )


def _namespaces(known_codes: tuple[str, ...]) -> frozenset[str]:
    """The letters attnlint's codes begin with (``ATN``): a code with other
    letters belongs to another tool."""
    return frozenset(
        letters.group().upper()
        for letters in map(_LETTERS.match, known_codes)
        if letters is not None
    )


def _used_codes(
    facts: SuppressionFacts, judged: list[NoqaDirective]
) -> dict[int, set[int]]:
    """id(directive) -> the indexes of its codes that suppress a finding.

    A file-level exemption is applied before any row's directive (as when
    suppressing): a finding it exempts uses no row's code. A file-level
    directive's code is used when any finding of the file has it.
    """
    directives = facts.directives
    by_row = {d.row: d for d in judged if not d.file_level}
    file_level = [d for d in judged if d.file_level]
    used: dict[int, set[int]] = {id(d): set() for d in judged}
    for finding in facts.findings:
        code = finding.code
        for directive in file_level:
            for index, (listed, _, _) in enumerate(directive.codes or ()):
                if code_listed(code, (listed,)):
                    used[id(directive)].add(index)
        if directives.exempts_file(code):
            continue
        directive = by_row.get(directives.noqa_row(finding))
        if directive is None:
            continue
        for index, (listed, _, _) in enumerate(directive.codes or ()):
            if code_listed(code, (listed,)):
                used[id(directive)].add(index)
    return used
