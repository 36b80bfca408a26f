"""Findings, fixes and texts as the protocol's diagnostics and edits.

A diagnostic's severity comes from its rule's own facts, the ones CI's
levels come from (``Rule.severity``) and the fix it offers
(``Rule.fix_availability``), so an editor and a CI report never disagree:

===================================  ===========  ===========================
the rule                             severity     today
===================================  ===========  ===========================
a file that does not parse or read   Error        E999, E902
level "error", no fix                Error        ATN103: wrong results
level "error", a fix                 Warning      ATN101, ATN201, ATN202,
                                                  ATN301: proven waste
level "warning" (an audit)           Information  ATN102: a person decides
===================================  ===========  ===========================

ATN202's statement is shown faded (``Unnecessary``): its fix deletes it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from lsprotocol import types

from lint_rules.server.engine import Edit, Finding
from lint_rules.server.text import LineIndex

SOURCE = "attnlint"

#: Codes that are no rule: the file could not be read or parsed.
FILE_ERRORS = frozenset({"E999", "E902"})

#: Rules whose finding covers code that the fix deletes: shown faded.
UNNECESSARY: frozenset[str] = frozenset({"ATN202", "ATN001"})


def severity(
    code: str, facts: tuple[str, str] | None = None
) -> types.DiagnosticSeverity:
    """The severity of a finding of ``code``, from its rule's ``facts``
    (level, fix availability; None for a code that is no known rule)."""
    if code in FILE_ERRORS:
        return types.DiagnosticSeverity.Error
    if facts is None:
        return types.DiagnosticSeverity.Warning
    level, fix_availability = facts
    if level == "warning":
        return types.DiagnosticSeverity.Information
    if fix_availability == "none":
        return types.DiagnosticSeverity.Error
    return types.DiagnosticSeverity.Warning


def to_range(start: tuple[int, int], end: tuple[int, int]) -> types.Range:
    return types.Range(
        start=types.Position(line=start[0], character=start[1]),
        end=types.Position(line=end[0], character=end[1]),
    )


def diagnostic(
    finding: Finding,
    index: LineIndex,
    encoding: str,
    url: str | None = None,
    facts: tuple[str, str] | None = None,
) -> types.Diagnostic:
    """The diagnostic of ``finding``; ``url``: where its rule is documented;
    ``facts``: its rule's level and fix availability (see :func:`severity`)."""
    start = index.position_of_location(
        finding.location.row, finding.location.column, encoding
    )
    end = index.position_of_location(
        finding.end_location.row, finding.end_location.column, encoding
    )
    return types.Diagnostic(
        range=to_range(start, max(start, end)),
        message=finding.message,
        severity=severity(finding.code, facts),
        code=finding.code,
        code_description=types.CodeDescription(href=url) if url else None,
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if finding.code in UNNECESSARY else None,
    )


def text_edits(
    edits: Iterable[Edit], index: LineIndex, encoding: str
) -> list[types.TextEdit]:
    """attnlint's edits (character offsets into ``index.text``) as text edits."""
    return [
        types.TextEdit(
            range=to_range(
                index.position(edit.start, encoding), index.position(edit.end, encoding)
            ),
            new_text=edit.content,
        )
        for edit in edits
    ]


def diff_edits(old: LineIndex, new_text: str) -> list[Edit]:
    """Edits that turn ``old.text`` into ``new_text``, one per changed run of
    lines, so that an editor moves no cursor or marker outside them."""
    old_text = old.text
    old_lines = _lines(old_text, old.starts)
    new_lines = _lines(new_text, LineIndex(new_text).starts)
    bounds = [*old.starts[: len(old_lines)], len(old_text)]
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    return [
        Edit(bounds[i1], bounds[i2], "".join(new_lines[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _lines(text: str, starts: list[int]) -> list[str]:
    """The lines of ``text`` with their line endings (no empty last line)."""
    ends = [*starts[1:], len(text)]
    lines = [text[start:end] for start, end in zip(starts, ends, strict=True)]
    if lines and not lines[-1]:
        lines.pop()
    return lines
