"""Findings, fixes and texts as the protocol's diagnostics and edits.

Severity by rule (codes not listed are warnings):

=========  ===========  ==============================================
code       severity     why
=========  ===========  ==============================================
E999       Error        the file does not parse; nothing else is known
E902       Error        the file cannot be read
ATN103     Error        a read of uninitialized memory: wrong results,
                        not waste (and no fix to apply)
ATN101     Warning      per-call waste with a safe fix
ATN201     Warning      per-call waste (host syncs); safe or unsafe fix
ATN202     Warning      per-call waste; the statement is shown faded
                        (``Unnecessary``) since deleting it is the fix
ATN301     Warning      per-iteration waste with a safe fix
ATN102     Information  a start-up cost only, and a fix that cannot be
                        proven (unsafe): worth knowing, rarely urgent
=========  ===========  ==============================================
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from lsprotocol import types

from lint_rules.server.engine import Edit, Finding
from lint_rules.server.text import LineIndex

SOURCE = "attnlint"

SEVERITY: dict[str, types.DiagnosticSeverity] = {
    "E999": types.DiagnosticSeverity.Error,
    "E902": types.DiagnosticSeverity.Error,
    "ATN103": types.DiagnosticSeverity.Error,
    "ATN101": types.DiagnosticSeverity.Warning,
    "ATN201": types.DiagnosticSeverity.Warning,
    "ATN202": types.DiagnosticSeverity.Warning,
    "ATN301": types.DiagnosticSeverity.Warning,
    "ATN102": types.DiagnosticSeverity.Information,
}
DEFAULT_SEVERITY = types.DiagnosticSeverity.Warning

#: Rules whose finding covers code that the fix deletes: shown faded.
UNNECESSARY: frozenset[str] = frozenset({"ATN202", "ATN001"})


def severity(code: str) -> types.DiagnosticSeverity:
    return SEVERITY.get(code, DEFAULT_SEVERITY)


def to_range(start: tuple[int, int], end: tuple[int, int]) -> types.Range:
    return types.Range(
        start=types.Position(line=start[0], character=start[1]),
        end=types.Position(line=end[0], character=end[1]),
    )


def diagnostic(
    finding: Finding, index: LineIndex, encoding: str, url: str | None = None
) -> types.Diagnostic:
    """The diagnostic of ``finding``; ``url``: where its rule is documented."""
    start = index.position_of_location(
        finding.location.row, finding.location.column, encoding
    )
    end = index.position_of_location(
        finding.end_location.row, finding.end_location.column, encoding
    )
    return types.Diagnostic(
        range=to_range(start, max(start, end)),
        message=finding.message,
        severity=severity(finding.code),
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
