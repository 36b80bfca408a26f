"""Code actions and hover text for one checked text.

For a finding under the cursor: its fix as a ``quickfix`` (a safe fix is
the preferred action; an unsafe one says "(unsafe)" in its title and is
never preferred) and "Disable ATNxxx for this line" (the code added to the
``# noqa`` directive of the finding's noqa row). For the document:
``source.fixAll.attnlint``, every safe fix applied until none is left.
Hover explains the rule of a finding, or of a code in a ``# noqa`` comment.
Edits are versioned when the client takes ``documentChanges``, so that an
editor refuses them once the text has moved on.
"""

from __future__ import annotations

from lsprotocol import types

from lint_rules.server import convert, engine
from lint_rules.server.text import LineIndex

FIX_ALL_KIND = "source.fixAll.attnlint"
QUICKFIX = types.CodeActionKind.QuickFix
FIX_ALL_TITLE = "attnlint: Apply all safe fixes"


def wanted(only: list[str] | None, kind: str) -> bool:
    """Whether an action of ``kind`` answers a request for the kinds ``only``
    (kinds are hierarchical: ``source`` covers ``source.fixAll.attnlint``)."""
    if not only:
        return True
    return any(kind == asked or kind.startswith(f"{asked}.") for asked in only)


def touches(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges overlap or meet (a cursor at either end counts)."""
    a_start = (a.start.line, a.start.character)
    a_end = (a.end.line, a.end.character)
    b_start = (b.start.line, b.start.character)
    b_end = (b.end.line, b.end.character)
    return a_start <= b_end and b_start <= a_end


class Target:
    """The document an action edits: its URI, the version and text the
    findings belong to, and how the client wants edits."""

    __slots__ = ("uri", "version", "index", "encoding", "document_changes")

    def __init__(
        self,
        uri: str,
        version: int | None,
        index: LineIndex,
        encoding: str,
        document_changes: bool,
    ) -> None:
        self.uri = uri
        self.version = version
        self.index = index
        self.encoding = encoding
        self.document_changes = document_changes

    def workspace_edit(self, edits: list[engine.Edit]) -> types.WorkspaceEdit:
        text_edits = convert.text_edits(edits, self.index, self.encoding)
        if self.document_changes:
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(
                            uri=self.uri, version=self.version
                        ),
                        edits=text_edits,
                    )
                ]
            )
        return types.WorkspaceEdit(changes={self.uri: text_edits})


def finding_actions(
    target: Target, finding: engine.Finding, diagnostic: types.Diagnostic
) -> list[types.CodeAction]:
    """The fix of ``finding`` (if it has one) and its "Disable for this line"."""
    actions = []
    fix = finding.fix
    if fix is not None:
        safe = engine.is_safe_fix(finding)
        title = f"attnlint ({finding.code}): {fix.message}"
        actions.append(
            types.CodeAction(
                title=title if safe else f"{title} (unsafe)",
                kind=QUICKFIX,
                diagnostics=[diagnostic],
                is_preferred=safe,
                edit=target.workspace_edit(list(fix.edits)),
            )
        )
    if finding.noqa_row is not None:
        edit = engine.noqa_edit(target.index.text, finding.noqa_row, finding.code)
        if edit is not None:
            actions.append(
                types.CodeAction(
                    title=f"Disable {finding.code} for this line",
                    kind=QUICKFIX,
                    diagnostics=[diagnostic],
                    edit=target.workspace_edit([edit]),
                )
            )
    return actions


def fix_all_edit(target: Target, fixed_text: str) -> types.WorkspaceEdit | None:
    """The edit from the target's text to ``fixed_text``, one text edit per
    changed run of lines; None when nothing changes."""
    if fixed_text == target.index.text:
        return None
    return target.workspace_edit(convert.diff_edits(target.index, fixed_text))


def explanation(finding: engine.Finding, name: str, why: str, markdown: bool) -> str:
    """Hover text: the finding, then why its rule matters."""
    more = f"`attnlint rule {finding.code}` prints the rule's full documentation."
    if markdown:
        return f"**{finding.code}** {name}: {finding.message}\n\n{why}\n\n*{more}*"
    return f"{finding.code} {name}: {finding.message}\n\n{why}\n\n{more}"


def noqa_explanation(
    code: str, rules: list[tuple[str, str, str, str]], markdown: bool
) -> str | None:
    """Hover text for ``code`` in a suppression comment: what each rule it
    covers (``rules``: code, name, summary, why) does, and, for the rule it
    names, why it matters; None when it covers none."""
    if not rules:
        return None
    if len(rules) == 1 and rules[0][0] == code:
        _, name, summary, why = rules[0]
        more = f"`attnlint rule {code}` prints the rule's full documentation."
        if markdown:
            return f"**{code}** {name}: {summary}\n\n{why}\n\n*{more}*"
        return f"{code} {name}: {summary}\n\n{why}\n\n{more}"
    listed = [
        f"- **{rule}** {name}: {summary}" if markdown else f"- {rule} {name}: {summary}"
        for rule, name, summary, _ in rules
    ]
    head = f"`{code}` covers:" if markdown else f"{code} covers:"
    return "\n".join([head, "", *listed])
