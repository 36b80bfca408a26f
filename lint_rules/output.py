"""Printing findings in ruff's formats: concise, full, json, json-lines, github, sarif.

Every emitter takes a :class:`Run` (the findings of a whole run, plus what is
needed to show them) and a text stream. Paths are shown relative to the
current directory where possible; JSON carries absolute paths, as ruff's
does, and SARIF paths relative to the current directory under the base id
``%SRCROOT%``, as GitHub code scanning expects.

A finding's level (JSON ``severity``, SARIF ``level``, GitHub ``::error`` or
``::warning``) is its rule's ``severity``: one fact, read by every format.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from lint_rules import __version__
from lint_rules.diagnostics import (
    COST_IN_MESSAGE,
    IO_ERROR_CODE,
    IO_ERROR_NAME,
    SYNTAX_ERROR_CODE,
    SYNTAX_ERROR_NAME,
    Applicability,
    Finding,
    Fix,
)
from lint_rules.paths import quote_path
from lint_rules.records import Record
from lint_rules.source import Locator

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import IO, Any

    from lint_rules.rules.base import Rule

#: The levels a rule's ``severity`` may take (SARIF's ``level`` names them too).
SEVERITIES = ("error", "warning")
#: The SARIF base id that relative artifact URIs are resolved against.
SRCROOT = "%SRCROOT%"

_PSEUDO_RULES = {
    SYNTAX_ERROR_CODE: (SYNTAX_ERROR_NAME, "The file does not parse as Python."),
    IO_ERROR_CODE: (IO_ERROR_NAME, "The file cannot be read or decoded."),
}


class Run(Record):
    """What the emitters need to know about one run.

    ``sources`` maps a finding's filename to the text its positions refer to
    (for snippets, diffs and edit positions); ``fixed`` maps a filename to the
    number of fixes applied per code, every pass of the fixer included;
    ``resolved`` maps a filename to the number, per code, of the findings a
    plain check reports as fixable that the fixes removed (None: the same as
    ``fixed``). The summaries count ``resolved``, so that ``check``, ``--diff``
    and ``--fix`` give one number, and name the fixes beyond it: those a fix
    exposed (an ATN201 fix leaves an assignment that ATN202 then removes).
    ``unsafe_fixes`` is the tri-state flag
    (None: not given, so the summary hints at hidden unsafe fixes);
    ``fix_mode`` is "check", "fix" or "diff"; ``errors``: how many errors
    (a file that could not be read, a rule that failed) the run reports
    besides its findings, so that the summary never says every check
    passed when one did not run.
    """

    _fields = (
        "findings",
        "sources",
        "fixed",
        "unsafe_fixes",
        "fix_mode",
        "rules",
        "cwd",
        "resolved",
        "errors",
    )
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        findings: list[Finding],
        sources: Mapping[str, str] | None = None,
        fixed: Mapping[str, Mapping[str, int]] | None = None,
        unsafe_fixes: bool | None = None,
        fix_mode: str = "check",
        rules: Mapping[str, type[Rule]] | None = None,
        cwd: str | None = None,
        resolved: Mapping[str, Mapping[str, int]] | None = None,
        errors: int = 0,
    ) -> None:
        self.findings = findings
        self.errors = errors
        self.sources: Mapping[str, str] = {} if sources is None else sources
        self.fixed: Mapping[str, Mapping[str, int]] = {} if fixed is None else fixed
        self.unsafe_fixes = unsafe_fixes
        self.fix_mode = fix_mode
        self.rules: Mapping[str, type[Rule]] = {} if rules is None else rules
        self.cwd = os.getcwd() if cwd is None else cwd
        self.resolved: Mapping[str, Mapping[str, int]] = (
            self.fixed if resolved is None else resolved
        )

    @property
    def fixed_total(self) -> int:
        """Every fix applied, those that other fixes exposed included."""
        return sum(sum(counts.values()) for counts in self.fixed.values())

    @property
    def resolved_total(self) -> int:
        """The fixable findings of a plain check that the fixes removed."""
        return sum(sum(counts.values()) for counts in self.resolved.values())

    def exposed_by_code(self) -> dict[str, int]:
        """Fixes applied beyond ``resolved``, per code: findings that only an
        earlier fix made appear, fixed in a later pass."""
        exposed: Counter[str] = Counter()
        for filename, counts in self.fixed.items():
            resolved = self.resolved.get(filename, {})
            for code, count in counts.items():
                extra = count - resolved.get(code, 0)
                if extra > 0:
                    exposed[code] += extra
        return dict(sorted(exposed.items()))

    def fix_is_applicable(self, fix: Fix | None) -> bool:
        return fix is not None and fix.is_applicable(bool(self.unsafe_fixes))

    def display_path(self, filename: str) -> str:
        return display_path(filename, self.cwd)

    def rule_name(self, code: str) -> str:
        rule = self.rules.get(code)
        if rule is not None:
            return rule.name
        return _PSEUDO_RULES.get(code, (code.lower(), ""))[0]

    def severity(self, code: str) -> str:
        """The rule's own ``severity``, "error" or "warning"; a file that
        cannot be read or parsed is an error."""
        rule = self.rules.get(code)
        return "error" if rule is None else rule.severity


def display_path(filename: str, cwd: str | None = None) -> str:
    """``filename`` relative to ``cwd`` when it lies inside it, as ruff shows
    paths, and quoted as git quotes it when it holds a byte that is no text
    (see :func:`quote_path`)."""
    if filename == "-" or not filename:
        return filename or "-"
    cwd = cwd or os.getcwd()
    absolute = os.path.abspath(filename)
    prefix = cwd.rstrip(os.sep) + os.sep
    if absolute.startswith(prefix):
        return quote_path(absolute[len(prefix) :])
    return quote_path(filename)


def absolute_path(filename: str) -> str:
    return filename if filename == "-" else os.path.abspath(filename)


def json_path(filename: str) -> str:
    """The absolute path of ``filename`` for JSON: as it is when it is text
    (JSON escapes a newline itself), quoted as :func:`quote_path` does when it
    holds a byte that is not UTF-8 (JSON strings are Unicode; ruff writes
    U+FFFD there, which gives ``caf\\xe9.py`` and ``caf\\xe8.py`` one name) or
    starts with a double quote (so that a quoted name is never a real one)."""
    absolute = absolute_path(filename)
    try:
        absolute.encode("utf-8")
    except UnicodeEncodeError:
        return quote_path(absolute)
    return quote_path(absolute) if absolute.startswith('"') else absolute


def _plural(count: int, word: str, suffix: str = "s") -> str:
    return f"{count} {word}{'' if count == 1 else suffix}"


# ------------------------------------------------------------------------ concise


def cost_suffix(finding: Finding) -> str:
    """`` [per step (forward -> _update)]`` or `` [start-up (__init__)]`` for a
    finding whose cost is known (nothing for "unknown" or no cost)."""
    cost = finding.cost
    if cost is None or cost == "unknown" or finding.code in COST_IN_MESSAGE:
        return ""
    return f" [{cost}]"


def cost_kind(cost: str | None) -> str | None:
    """The kind of a cost: "per step", "start-up" or "unknown" (None: none)."""
    if cost is None:
        return None
    return cost.split(" (", 1)[0]


def concise_line(finding: Finding, run: Run) -> str:
    marker = "[*] " if run.fix_is_applicable(finding.fix) else ""
    return (
        f"{run.display_path(finding.filename)}:{finding.location.row}:"
        f"{finding.location.column}: {finding.code} {marker}{finding.message}"
        f"{cost_suffix(finding)}"
    )


def write_concise(run: Run, stream: IO[str]) -> None:
    for finding in run.findings:
        stream.write(concise_line(finding, run) + "\n")


# --------------------------------------------------------------------------- full

_CONTEXT_ROWS = 2
_MAX_SNIPPET_ROWS = 8


def _display_width(text: str) -> int:
    return len(text.expandtabs(4))


def _snippet(finding: Finding, text: str) -> list[str]:
    """Rows around the finding with ``^`` under its range, in ruff's gutter style."""
    locator = Locator(text)
    rows = len(locator.line_starts)
    if rows > 1 and locator.line_starts[-1] == len(text):
        rows -= 1  # the empty "row" after the final line ending
    start, end = finding.location, finding.end_location
    first = max(1, start.row - _CONTEXT_ROWS)
    last = min(rows, end.row + _CONTEXT_ROWS)
    width = len(str(last))
    gutter = " " * width + " |"
    out = [gutter]
    shown_rows = list(range(first, last + 1))
    span = end.row - start.row + 1
    if span > _MAX_SNIPPET_ROWS:
        keep_head = range(first, start.row + _MAX_SNIPPET_ROWS // 2)
        keep_tail = range(end.row - _MAX_SNIPPET_ROWS // 2 + 1, last + 1)
        shown_rows = [*keep_head, 0, *keep_tail]
    for row in shown_rows:
        if row == 0:
            out.append(" " * width + " :")
            continue
        line = locator.line_text(row)
        out.append(f"{row:>{width}} | {line.expandtabs(4)}".rstrip())
        if start.row <= row <= end.row:
            begin = (
                start.column - 1 if row == start.row else len(line) - len(line.lstrip())
            )
            stop = end.column - 1 if row == end.row else len(line)
            left = _display_width(line[:begin])
            right = max(_display_width(line[:stop]), left + 1)
            label = f" {finding.code}" if row == end.row else ""
            out.append(f"{gutter} {' ' * left}{'^' * (right - left)}{label}")
    out.append(gutter)
    return out


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def fix_diff(fix: Fix, text: str, context: int = 1) -> list[str]:
    """The fix as unified-diff hunks (``@@`` headers with real row numbers)."""
    # Imported here: the fixer loads the rules, which a run printing cached
    # findings does not otherwise need.
    import difflib

    from lint_rules.fixer import apply_fixes

    locator = Locator(text)
    first_row = locator.row_column(fix.start)[0]
    last_row = locator.row_column(max(edit.end for edit in fix.edits))[0]
    first_row = max(1, first_row - context)
    last_row = min(len(locator.line_starts), last_row + context)
    window_start = locator.line_start(first_row)
    window_end = locator.full_line_end(last_row)
    window = text[window_start:window_end]
    shifted = Fix(
        tuple(
            type(edit)(edit.start - window_start, edit.end - window_start, edit.content)
            for edit in fix.edits
        ),
        fix.applicability,
        fix.message,
    )
    new_window, applied = apply_fixes(window, [shifted])
    if not applied:
        return []
    old_lines = window.splitlines()
    new_lines = new_window.splitlines()
    offset = first_row - 1
    out = []
    for line in list(
        difflib.unified_diff(old_lines, new_lines, n=context, lineterm="")
    )[2:]:
        match = _HUNK.match(line)
        if match:
            old_start = int(match.group(1)) + offset
            new_start = int(match.group(3)) + offset
            line = f"@@ -{old_start}{match.group(2) or ''} +{new_start}{match.group(4) or ''} @@"
        out.append(line)
    return out


def write_full(run: Run, stream: IO[str]) -> None:
    for finding in run.findings:
        stream.write(concise_line(finding, run) + "\n")
        text = run.sources.get(finding.filename)
        if text is not None and finding.code != IO_ERROR_CODE:
            for line in _snippet(finding, text):
                stream.write(line + "\n")
        fix = finding.fix
        if fix is not None:
            stream.write(f"  = help: {fix.message}\n")
            if text is not None:
                diff = fix_diff(fix, text)
                if diff:
                    label = (
                        "Safe fix"
                        if fix.applicability is Applicability.SAFE
                        else "Unsafe fix"
                    )
                    stream.write(f"\n{label}\n")
                    for line in diff:
                        stream.write(line + "\n")
        stream.write("\n")


# --------------------------------------------------------------------------- json


def _location(row: int, column: int) -> dict[str, int]:
    return {"column": column, "row": row}


def _edit_locations(fix: Fix, text: str | None) -> list[dict[str, Any]]:
    locator = Locator(text) if text is not None else None
    edits = []
    for edit in sorted(fix.edits, key=lambda edit: (edit.start, edit.end)):
        if locator is not None:
            start_row, start_column = locator.row_column(edit.start)
            end_row, end_column = locator.row_column(edit.end)
        else:  # pragma: no cover - every fixable finding has its source
            start_row = end_row = start_column = end_column = 0
        edits.append(
            {
                "content": edit.content,
                "end_location": _location(end_row, end_column + 1),
                "location": _location(start_row, start_column + 1),
            }
        )
    return edits


def finding_to_json(finding: Finding, run: Run) -> dict[str, Any]:
    """One finding as ruff's JSON object, field for field; ``severity`` is the rule's."""
    rule = run.rules.get(finding.code)
    fix = finding.fix
    return {
        "cell": None,
        "code": finding.code,
        # attnlint's own field (ruff's schema has none like it): when the code runs.
        "cost": finding.cost,
        "end_location": _location(
            finding.end_location.row, finding.end_location.column
        ),
        "filename": json_path(finding.filename),
        "fix": None
        if fix is None
        else {
            "applicability": str(fix.applicability),
            "edits": _edit_locations(fix, run.sources.get(finding.filename)),
            "message": fix.message,
        },
        "location": _location(finding.location.row, finding.location.column),
        "message": finding.message,
        "name": finding.name,
        "noqa_row": finding.noqa_row,
        "severity": run.severity(finding.code),
        "url": rule.url() if rule is not None else None,
    }


def write_json(run: Run, stream: IO[str]) -> None:
    import json

    data = [finding_to_json(finding, run) for finding in run.findings]
    stream.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_json_lines(run: Run, stream: IO[str]) -> None:
    import json

    for finding in run.findings:
        stream.write(
            json.dumps(
                finding_to_json(finding, run), separators=(",", ":"), ensure_ascii=False
            )
            + "\n"
        )


# ------------------------------------------------------------------------- github


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def write_github(run: Run, stream: IO[str]) -> None:
    """GitHub Actions workflow commands: one annotation per finding, ``::error``
    or ``::warning`` by the rule's severity."""
    for finding in run.findings:
        start, end = finding.location, finding.end_location
        properties = (
            f"title={_escape_property(f'attnlint ({finding.code})')},"
            f"file={_escape_property(json_path(finding.filename))},"
            f"line={start.row},col={start.column},endLine={end.row},endColumn={end.column}"
        )
        body = (
            f"{run.display_path(finding.filename)}:{start.row}:{start.column}: "
            f"{finding.code} {finding.message}{cost_suffix(finding)}"
        )
        level = run.severity(finding.code)
        stream.write(f"::{level} {properties}::{_escape_data(body)}\n")


# -------------------------------------------------------------------------- sarif


def _artifact_location(filename: str, cwd: str) -> dict[str, str]:
    """A file as SARIF names it: relative to ``cwd`` under ``%SRCROOT%`` when
    it lies inside, else an absolute ``file:`` URI."""
    from pathlib import PurePath
    from urllib.parse import quote

    if filename == "-":
        return {"uri": filename}
    absolute = os.path.abspath(filename)
    prefix = os.path.abspath(cwd).rstrip(os.sep) + os.sep
    if not absolute.startswith(prefix):
        return {"uri": _file_uri(absolute)}
    relative = PurePath(absolute[len(prefix) :]).as_posix()
    # The path's own bytes, percent-encoded (RFC 3986): a name that is not
    # UTF-8 keeps its bytes (``caf%E9.py``).
    return {"uri": quote(os.fsencode(relative)), "uriBaseId": SRCROOT}


def _file_uri(absolute: str) -> str:
    """``Path(absolute).as_uri()``, also for a name that is not UTF-8: its
    bytes are percent-encoded as they are."""
    from pathlib import Path
    from urllib.parse import quote

    try:
        absolute.encode("utf-8")
    except UnicodeEncodeError:
        return "file://" + quote(os.fsencode(Path(absolute).as_posix()))
    return Path(absolute).as_uri()


def _srcroot(cwd: str) -> dict[str, Any]:
    uri = _file_uri(os.path.abspath(cwd))
    return {
        "uri": uri if uri.endswith("/") else uri + "/",
        "description": {"text": "The directory attnlint was run in."},
    }


#: GitHub code scanning shows at most this many characters of a description.
_MAX_DESCRIPTION = 1024


def _section(documentation: str, title: str) -> str:
    """The body of one ``## title`` section of a rule's documentation."""
    body: list[str] = []
    inside = False
    for line in documentation.splitlines():
        if line.startswith("## "):
            if inside:
                break
            inside = line[3:].strip().lower() == title.lower()
            continue
        if inside:
            body.append(line)
    return "\n".join(body).strip()


def _description(documentation: str, summary: str) -> str:
    """The rule's "What it does" section, its first paragraph if that is too long."""
    text = _section(documentation, "What it does") or summary
    if len(text) > _MAX_DESCRIPTION:
        text = text.split("\n\n")[0]
    return text[:_MAX_DESCRIPTION]


def _sarif_rule(code: str, run: Run) -> dict[str, Any]:
    rule = run.rules.get(code)
    if rule is not None:
        name, summary, documentation = rule.name, rule.summary(), rule.documentation()
    else:
        name, summary = _PSEUDO_RULES.get(code, (code.lower(), code))
        documentation = summary
    level = run.severity(code)
    entry: dict[str, Any] = {
        "defaultConfiguration": {"enabled": True, "level": level},
        "fullDescription": {"text": _description(documentation, summary)},
        "help": {"markdown": documentation, "text": documentation},
        "id": code,
        "name": name,
        "properties": {"id": code, "name": name, "problem.severity": level},
        "shortDescription": {"text": summary},
    }
    url = rule.url() if rule is not None else None
    if url:
        entry["helpUri"] = url
    return entry


def _region(locator: Locator | None, start: int, end: int) -> dict[str, int]:
    assert locator is not None
    start_row, start_column = locator.row_column(start)
    end_row, end_column = locator.row_column(end)
    return {
        "endColumn": end_column + 1,
        "endLine": end_row,
        "startColumn": start_column + 1,
        "startLine": start_row,
    }


def _sarif_result(finding: Finding, run: Run) -> dict[str, Any]:
    artifact = _artifact_location(finding.filename, run.cwd)
    result: dict[str, Any] = {
        "level": run.severity(finding.code),
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": {
                        "endColumn": finding.end_location.column,
                        "endLine": finding.end_location.row,
                        "startColumn": finding.location.column,
                        "startLine": finding.location.row,
                    },
                }
            }
        ],
        "message": {"text": finding.message},
        "ruleId": finding.code,
    }
    if finding.cost is not None:
        result["properties"] = {"cost": finding.cost}
    text = run.sources.get(finding.filename)
    if finding.fix is not None and text is not None:
        locator = Locator(text)
        replacements = []
        for edit in sorted(finding.fix.edits, key=lambda edit: (edit.start, edit.end)):
            replacement: dict[str, Any] = {
                "deletedRegion": _region(locator, edit.start, edit.end)
            }
            if edit.content:
                replacement["insertedContent"] = {"text": edit.content}
            replacements.append(replacement)
        result["fixes"] = [
            {
                "artifactChanges": [
                    {"artifactLocation": dict(artifact), "replacements": replacements}
                ],
                "description": {"text": finding.fix.message},
            }
        ]
    return result


def sarif_document(run: Run) -> dict[str, Any]:
    """The run as a SARIF 2.1.0 log: one run, rules that have results, all results.

    Paths inside the current directory are relative to it (``%SRCROOT%``, whose
    absolute URI ``originalUriBaseIds`` gives): run attnlint from the root of
    the repository, and GitHub code scanning places each result in its file.
    """
    codes = sorted({finding.code for finding in run.findings})
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [
            {
                "originalUriBaseIds": {SRCROOT: _srcroot(run.cwd)},
                "results": [_sarif_result(finding, run) for finding in run.findings],
                "tool": {
                    "driver": {
                        "name": "attnlint",
                        "rules": [_sarif_rule(code, run) for code in codes],
                        "version": __version__,
                    }
                },
            }
        ],
        "version": "2.1.0",
    }


def write_sarif(run: Run, stream: IO[str]) -> None:
    import json

    stream.write(json.dumps(sarif_document(run), indent=2, ensure_ascii=False) + "\n")


EMITTERS = {
    "concise": write_concise,
    "full": write_full,
    "json": write_json,
    "json-lines": write_json_lines,
    "github": write_github,
    "sarif": write_sarif,
}

#: Formats after which a human-readable summary is printed.
TEXT_FORMATS = ("concise", "full")


def write_findings(run: Run, output_format: str, stream: IO[str]) -> None:
    EMITTERS[output_format](run, stream)


# ------------------------------------------------------------------ summaries


class FixableCounts(Record):
    """Remaining findings whose fix ``--fix`` would apply, and unsafe ones it would not."""

    _fields = ("applicable", "hidden_unsafe")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, applicable: int = 0, hidden_unsafe: int = 0) -> None:
        self.applicable = applicable
        self.hidden_unsafe = hidden_unsafe

    @classmethod
    def of(
        cls, findings: Iterable[Finding], unsafe_fixes: bool | None
    ) -> FixableCounts:
        counts = cls()
        for finding in findings:
            fix = finding.fix
            if fix is None:
                continue
            if fix.is_applicable(bool(unsafe_fixes)):
                counts.applicable += 1
            elif fix.applicability is Applicability.UNSAFE:
                counts.hidden_unsafe += 1
        return counts


def _exposed_line(run: Run) -> list[str]:
    """The fixes beyond the fixable count, explained (none: no line)."""
    exposed = run.exposed_by_code()
    if not exposed:
        return []
    total = sum(exposed.values())
    codes = ", ".join(f"{count} \u00d7 {code}" for code, count in exposed.items())
    one = total == 1
    if run.fix_mode == "diff":
        applied = (
            "would be applied to an error" if one else "would be applied to errors"
        )
        cause = "another fix exposes" if one else "other fixes expose"
    else:
        applied = "was applied to an error" if one else "were applied to errors"
        cause = "another fix exposed" if one else "other fixes exposed"
    counted = (
        "it is counted with that fix" if one else "they are counted with those fixes"
    )
    return [
        f"{_plural(total, 'more fix', 'es')} {applied} that {cause} ({codes}); {counted}."
    ]


def summary_lines(run: Run) -> list[str]:
    """ruff's closing lines: counts, then what ``--fix``/``--unsafe-fixes`` would do.

    What ``--fix`` and ``--diff`` count as fixed is what a plain check counts
    as fixable (``Run.resolved``); a further line names the fixes that other
    fixes exposed.
    """
    lines: list[str] = []
    fixed = run.resolved_total
    remaining = len(run.findings)
    counts = FixableCounts.of(run.findings, run.unsafe_fixes)
    if run.fix_mode == "diff":
        hidden = counts.hidden_unsafe if run.unsafe_fixes is None else 0
        fixes = f" ({_plural(hidden, 'additional fix', 'es')} available with `--unsafe-fixes`)"
        if fixed:
            lines.append(
                f"Would fix {_plural(fixed, 'error')}{fixes if hidden else ''}."
            )
        elif hidden:
            lines.append(
                f"No errors would be fixed ({_plural(hidden, 'fix', 'es')} "
                "available with `--unsafe-fixes`)."
            )
        return lines + _exposed_line(run)
    total = fixed + remaining
    if fixed:
        lines.append(
            f"Found {_plural(total, 'error')} ({fixed} fixed, {remaining} remaining)."
        )
        lines += _exposed_line(run)
    elif remaining:
        lines.append(f"Found {_plural(remaining, 'error')}.")
    elif run.errors:
        # Not "All checks passed!": a file was not read, or a rule failed.
        lines.append(
            f"No findings, but the check did not complete: "
            f"{_plural(run.errors, 'error')} (below)."
        )
    else:
        lines.append("All checks passed!")
    if counts.applicable or counts.hidden_unsafe:
        hidden = _plural(counts.hidden_unsafe, "hidden fix", "es")
        hint = f"{hidden} can be enabled with the `--unsafe-fixes` option"
        if run.unsafe_fixes is None:
            if counts.applicable and counts.hidden_unsafe:
                lines.append(
                    f"[*] {counts.applicable} fixable with the `--fix` option ({hint})."
                )
            elif counts.applicable:
                lines.append(
                    f"[*] {counts.applicable} fixable with the `--fix` option."
                )
            else:
                lines.append(f"No fixes available ({hint}).")
        elif counts.applicable:
            lines.append(f"[*] {counts.applicable} fixable with the `--fix` option.")
    return lines


def write_summary(run: Run, stream: IO[str]) -> None:
    for line in summary_lines(run):
        stream.write(line + "\n")


def fixed_lines(run: Run) -> list[str]:
    """``--show-fixes``: what was fixed, per file and code (every fix applied,
    with those that another fix exposed named)."""
    if not run.fixed_total:
        return []
    exposed_total = sum(run.exposed_by_code().values())
    header = f"Fixed {_plural(run.resolved_total, 'error')}"
    if exposed_total:
        header += f" and {exposed_total} that the fixes exposed"
    lines = [header + ":"]
    for filename in sorted(run.fixed):
        counts = run.fixed[filename]
        if not any(counts.values()):
            continue
        resolved = run.resolved.get(filename, {})
        lines.append(f"- {run.display_path(filename)}:")
        for code in sorted(counts):
            line = f"    {counts[code]} \u00d7 {code} ({run.rule_name(code)})"
            exposed = counts[code] - resolved.get(code, 0)
            if exposed >= counts[code]:
                line += ", exposed by another fix"
            elif exposed > 0:
                line += f", {exposed} of them exposed by another fix"
            lines.append(line)
    return lines


# ----------------------------------------------------------------- statistics


class Statistic(Record):
    _fields = ("code", "name", "count", "fixable_count", "by_cost")
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        code: str,
        name: str,
        count: int,
        fixable_count: int,
        by_cost: dict[str, int] | None = None,
    ) -> None:
        self.code = code
        self.name = name
        self.count = count
        self.fixable_count = fixable_count
        # Counts by when the code runs ("per step", "start-up", "unknown").
        self.by_cost = by_cost if by_cost is not None else {}

    @property
    def fixable(self) -> bool:
        return self.fixable_count > 0


def statistics(run: Run) -> list[Statistic]:
    """Counts per code, most frequent first (ties by code), as ruff's ``--statistics``."""
    counts: Counter[str] = Counter()
    fixable: Counter[str] = Counter()
    names: dict[str, str] = {}
    by_cost: dict[str, Counter[str]] = {}
    for finding in run.findings:
        counts[finding.code] += 1
        kind = cost_kind(finding.cost)
        if kind is not None:
            by_cost.setdefault(finding.code, Counter())[kind] += 1
        names[finding.code] = finding.name
        if run.fix_is_applicable(finding.fix):
            fixable[finding.code] += 1
    ordered = sorted(counts, key=lambda code: (-counts[code], code))
    return [
        Statistic(
            code,
            names[code],
            counts[code],
            fixable[code],
            {kind: by_cost[code][kind] for kind in _COST_KINDS if by_cost[code][kind]}
            if code in by_cost
            else {},
        )
        for code in ordered
    ]


_COST_KINDS = ("per step", "start-up", "unknown")


def write_statistics(run: Run, output_format: str, stream: IO[str]) -> None:
    stats = statistics(run)
    if output_format in ("json", "json-lines"):
        data = [
            {
                "code": stat.code,
                "name": stat.name,
                "count": stat.count,
                "fixable": stat.fixable,
                "fixable_count": stat.fixable_count,
                "cost": stat.by_cost,
            }
            for stat in stats
        ]
        import json

        stream.write(json.dumps(data, indent=2) + "\n")
        return
    if not stats:
        return
    count_width = max(len(str(stat.count)) for stat in stats)
    code_width = max(len(stat.code) for stat in stats)
    any_fixable = any(stat.fixable for stat in stats)
    for stat in stats:
        marker = ""
        if any_fixable:
            if stat.fixable_count == stat.count:
                marker = "[*] "
            elif stat.fixable_count:
                marker = "[-] "
            else:
                marker = "[ ] "
        split = ", ".join(f"{kind} {count}" for kind, count in stat.by_cost.items())
        stream.write(
            f"{stat.count:>{count_width}}\t{stat.code:<{code_width}}\t{marker}{stat.name}"
            + (f"\t({split})" if split else "")
            + "\n"
        )
