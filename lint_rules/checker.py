"""Checking one source text: pre-filter, parse, run the rules, apply suppressions.

Nothing here raises for a problem in the checked file: a file that does not
parse becomes an ``E999`` finding, one that cannot be read or decoded an
``E902`` finding. A rule that fails internally does not stop the run: its
findings for that file are dropped and an error naming rule and file is
handed to the caller (``errors``), or logged when the caller passes no list.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable, Iterator

from lint_rules.config import Settings, selector_matches
from lint_rules.context import Context
from lint_rules.deep_stack import call_with_deep_stack
from lint_rules.diagnostics import (
    IO_ERROR_CODE,
    IO_ERROR_NAME,
    SYNTAX_ERROR_CODE,
    SYNTAX_ERROR_NAME,
    Edit,
    Finding,
    Location,
)
from lint_rules.records import Record
from lint_rules.rules.base import Rule
from lint_rules.source import Locator, SourceError, SourceFile, read_regular_file

# flake8's inline suppression comment: the word noqa after a hash, optionally
# followed by a colon and codes (ATN101,ATN301); whitespace after the hash is
# optional, as in ruff. Codes are compared upper-cased.
_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE
)
# File-level exemption: "attnlint: noqa" in a comment (optionally with codes),
# and flake8's blanket "flake8: noqa" (with codes it exempts nothing, as in flake8).
_FILE_NOQA = re.compile(
    r"#\s*(?P<tool>attnlint|flake8)\s*:\s*noqa(?::\s?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?",
    re.IGNORECASE,
)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)
_MAY_SPAN_ROWS = re.compile(r"\"\"\"|'''|\\\r?\n|\\\r")


# ------------------------------------------------------------------ reading files


def decode_source(data: bytes) -> SourceFile:
    """Decode file bytes as Python does; SourceError for bad encodings and NUL bytes."""
    source = SourceFile.from_bytes(data)
    nul = source.text.find("\x00")
    if nul >= 0:
        row, column = Locator(source.text).row_column(nul)
        raise SourceError(f"source contains a NUL byte at {row}:{column + 1}")
    return source


def read_source(path: str | os.PathLike[str]) -> SourceFile:
    """Read and decode a regular file; raises OSError (NotRegularFileError
    for a FIFO or a device) or SourceError."""
    return decode_source(read_regular_file(path)[0])


def io_error_finding(filename: str, message: str) -> Finding:
    """An ``E902`` finding: the file could not be read or decoded."""
    return Finding(
        code=IO_ERROR_CODE,
        name=IO_ERROR_NAME,
        message=message,
        location=Location(1, 1),
        end_location=Location(1, 1),
        filename=filename,
    )


def os_error_message(error: OSError) -> str:
    return error.strerror or str(error)


# -------------------------------------------------------------------- parsing


def parse(text: str, filename: str) -> ast.Module | Finding:
    """The module's tree, or an ``E999`` finding saying why it does not parse."""
    try:
        try:
            return ast.parse(text, filename=filename)
        except RecursionError:
            # Deeply nested, not necessarily too deep: parse with room to spare.
            return call_with_deep_stack(lambda: ast.parse(text, filename=filename))
    except SyntaxError as error:
        return syntax_error_finding(error, text, filename)
    except (ValueError, RecursionError, MemoryError) as error:
        # ValueError: NUL bytes (3.11); RecursionError/MemoryError: nesting too deep.
        reason = (
            "too deeply nested to parse"
            if isinstance(error, (RecursionError, MemoryError))
            else str(error)
        )
        return Finding(
            code=SYNTAX_ERROR_CODE,
            name=SYNTAX_ERROR_NAME,
            message=f"SyntaxError: {reason}",
            location=Location(1, 1),
            end_location=Location(1, 1),
            filename=filename,
        )


def syntax_error_finding(error: SyntaxError, text: str, filename: str) -> Finding:
    """Turn the parser's SyntaxError into an ``E999`` finding with row and column."""
    locator = Locator(text)
    rows = len(locator.line_starts)

    def clamp(row: int | None, column: int | None) -> Location:
        row = min(max(row or 1, 1), rows)
        width = len(locator.line_text(row))
        return Location(row, min(max(column or 1, 1), width + 1))

    start = clamp(error.lineno, error.offset)
    end_row = getattr(error, "end_lineno", None)
    end_column = getattr(error, "end_offset", None)
    end = start
    if end_row and end_column and (end_row, end_column) > (start.row, start.column):
        end = clamp(end_row, end_column)
    kind = type(error).__name__
    message = f"{kind}: {error.msg}" if error.msg else kind
    return Finding(
        code=SYNTAX_ERROR_CODE,
        name=SYNTAX_ERROR_NAME,
        message=message,
        location=start,
        end_location=end,
        filename=filename,
        offset=locator.line_start(start.row) + start.column - 1,
    )


# ------------------------------------------------------------------------- noqa


class NoqaDirectives(Record):
    """The suppression comments of one file, and which row each finding's noqa is on."""

    _fields = ("lines", "row_map", "file_exempt", "file_codes")
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        lines: dict[int, frozenset[str] | None],
        row_map: dict[int, int],
        file_exempt: bool = False,
        file_codes: frozenset[str] = frozenset(),
    ) -> None:
        # row -> codes its suppression comment names (None: a blanket one, no codes).
        self.lines = lines
        # Rows inside a multi-line string or backslash continuation -> the row
        # that holds their noqa comment (the string's or continuation's last row).
        self.row_map = row_map
        self.file_exempt = file_exempt
        self.file_codes = file_codes

    @classmethod
    def scan(
        cls,
        text: str,
        *,
        comments: bool,
        spans: bool,
        locator: Locator | None = None,
    ) -> NoqaDirectives:
        """Read directives (``comments``) and multi-row spans (``spans``) from
        ``text`` (whose ``locator`` the caller may have at hand)."""
        directives = cls({}, {})
        if not comments and not spans:
            return directives
        if locator is None:
            locator = Locator(text)
        continued: list[int] = []
        for kind, start, end in _lexemes(text):
            if kind == "comment":
                if comments:
                    directives._read_comment(
                        text[start:end], locator.row_column(start)[0]
                    )
            elif kind == "string":
                if spans:
                    first = locator.row_column(start)[0]
                    last = locator.row_column(end)[0]
                    if last != first:
                        directives._map_rows(first, last)
            elif spans:
                continued.append(locator.row_column(start)[0])
        # Chain continuations (a \ b \ c): every row maps to the chain's last row.
        for row in reversed(continued):
            target = directives.row_map.get(row + 1, row + 1)
            for covered in (row, row + 1):
                directives.row_map[covered] = max(
                    target, directives.row_map.get(covered, covered)
                )
        return directives

    def _map_rows(self, first: int, last: int) -> None:
        for row in range(first, last + 1):
            self.row_map[row] = max(last, self.row_map.get(row, row))

    def _read_comment(self, comment: str, row: int) -> None:
        file_match = _FILE_NOQA.search(comment)
        if file_match:
            codes = file_match.group("codes")
            if codes is None:
                self.file_exempt = True
            elif file_match.group("tool").lower() == "attnlint":
                self.file_codes |= _codes(codes)
            return
        match = _NOQA.search(comment)
        if match is None:
            return
        codes = match.group("codes")
        if codes is None:
            self.lines[row] = None
        elif self.lines.get(row, frozenset()) is not None:
            self.lines[row] = (self.lines.get(row) or frozenset()) | _codes(codes)

    def noqa_row(self, finding: Finding) -> int:
        row = finding.location.row
        return self.row_map.get(row, row)

    def suppresses(self, finding: Finding) -> bool:
        code = finding.code
        if self.file_exempt or _code_listed(code, self.file_codes):
            return True
        row = self.noqa_row(finding)
        if row not in self.lines:
            return False
        codes = self.lines[row]
        return codes is None or _code_listed(code, codes)


# Comments, string literals (any prefix, triple-quoted or not) and backslash
# continuations, found by one regular expression: tokenize would be exact but
# costs twice a parse; this agrees with it on every comment of the benchmark
# corpora. (A 3.12 f-string nesting its own quote character may be misread;
# that only matters for a suppression comment on such a line.)
_LEXEME = re.compile(
    r"""(?P<comment>\#[^\r\n]*)
    |(?P<string>[rRbBuUfF]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"
        |'(?:\\.|[^\\'\r\n])*'|"(?:\\.|[^\\"\r\n])*"))
    |(?P<continuation>\\(?:\r\n|\r|\n))
    """,
    re.VERBOSE | re.DOTALL,
)
_LEXEME_STARTS = ("#", "'", '"', "\\")
_PREFIX_LETTERS = frozenset("rRbBuUfF")


def _lexemes(text: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of each comment, string and continuation, in order."""
    position = 0
    match = _LEXEME.match
    # The next occurrence of each character a lexeme starts with, found by
    # str.find (far faster than a regular expression's search for a class).
    find = text.find
    length = len(text)
    next_at = {char: find(char) for char in _LEXEME_STARTS}
    while True:
        start = length
        for char, at in next_at.items():
            if 0 <= at < position:
                at = next_at[char] = find(char, position)
            if 0 <= at < start:
                start = at
        if start == length:
            return
        begin = start
        while (
            begin > position
            and start - begin < 2
            and text[begin - 1] in _PREFIX_LETTERS
        ):
            begin -= 1
        lexeme = match(text, begin) if begin < start else None
        if lexeme is None or lexeme.lastgroup != "string":
            lexeme = match(text, start)
        if lexeme is None:
            position = start + 1
            continue
        yield lexeme.lastgroup or "", lexeme.start(), lexeme.end()
        position = lexeme.end()


def _codes(text: str) -> frozenset[str]:
    return frozenset(code.upper() for code in _CODE.findall(text))


def _code_listed(code: str, codes: Iterable[str]) -> bool:
    # flake8 semantics: an exact code or a prefix of it.
    return any(code == listed or code.startswith(listed) for listed in codes)


def _has_noqa_comment(text: str) -> bool:
    return re.search("noqa", text, re.IGNORECASE) is not None


def add_noqa_edit(
    text: str,
    row: int,
    codes: Iterable[str],
    *,
    locator: Locator | None = None,
) -> Edit | None:
    """The edit that makes the ``# noqa`` directive of ``row`` (a finding's
    ``noqa_row``) suppress ``codes`` too, or None when nothing needs doing or
    nothing can be done.

    An existing ``# noqa: A`` becomes ``# noqa: A, B`` (the rest of its
    comment kept); a row without a directive gets ``  # noqa: B`` at its end,
    after any comment already there (which stays first, so ``# type: ignore``
    keeps working). None when the row suppresses every code already (a
    blanket ``# noqa``, or codes that name them), when its comment is a
    file-level directive (a line directive in it would not be read), or when
    the row ends inside a string or with a line continuation. Line endings
    are never touched. The new comment is read back with the checker's own
    directive reader before the edit is returned.
    """
    wanted: list[str] = []
    for code in codes:
        code = code.strip().upper()
        if code and code not in wanted:
            wanted.append(code)
    if locator is None:
        locator = Locator(text)
    try:
        line_start = locator.line_start(row)
    except IndexError:
        return None
    line_end = locator.line_end(row)
    comment_start: int | None = None
    for kind, start, end in _lexemes(text):
        if start >= line_end:
            break
        if kind == "string":
            if start < line_end < end:
                return None  # the row ends inside a string literal
        elif start >= line_start:
            if kind == "continuation":
                return None  # nothing may follow the backslash
            comment_start = start
    before = NoqaDirectives({}, {})
    if comment_start is None:
        code_text = text[line_start:line_end].rstrip()
        comment_start = line_start + len(code_text) + (2 if code_text else 0)
        edit = Edit(
            line_start + len(code_text),
            line_end,
            f"{'  ' if code_text else ''}# noqa: {', '.join(wanted)}",
        )
    else:
        comment = text[comment_start:line_end]
        if _FILE_NOQA.search(comment):
            return None
        before._read_comment(comment, row)
        listed = before.lines.get(row, frozenset())
        if listed is None:
            return None  # a blanket directive suppresses every code already
        wanted = [code for code in wanted if not _code_listed(code, listed)]
        match = _NOQA.search(comment)
        if match is None or match.group("codes") is None:
            end = comment_start + len(comment.rstrip())
            edit = Edit(end, line_end, f"  # noqa: {', '.join(wanted)}")
        else:
            group = match.group("codes")
            found = list(_CODE.finditer(group))
            separator = ", "
            if len(found) > 1 and "," not in group:
                separator = " "
            elif "," in group and ", " not in group:
                separator = ","
            at = comment_start + match.start("codes") + found[-1].end()
            edit = Edit(at, at, separator + separator.join(wanted))
    if not wanted:
        return None
    # Read the new comment back: the row must now suppress every code it
    # suppressed before and every wanted one, or the edit is not offered.
    new_comment = (
        text[comment_start : edit.start] + edit.content + text[edit.end : line_end]
        if comment_start <= edit.start
        else edit.content[edit.content.index("#") :]
    )
    after = NoqaDirectives({}, {})
    after._read_comment(new_comment, row)
    suppressed = after.lines.get(row, frozenset())
    required = (*(before.lines.get(row) or ()), *wanted)
    if suppressed is None or not all(_code_listed(c, suppressed) for c in required):
        return None
    return edit


# ----------------------------------------------------------------------- checking


def rules_for_file(settings: Settings, filename: str) -> tuple[type[Rule], ...]:
    """Selected rules minus those that ``per-file-ignores`` switches off for ``filename``."""
    rules = settings.enabled_rules
    ignored = settings.ignored_codes_for(filename)
    if not ignored:
        return rules
    return tuple(
        rule
        for rule in rules
        if not any(selector_matches(selector, rule.code) for selector in ignored)
    )


def triggered_rules(rules: Iterable[type[Rule]], text: str) -> list[type[Rule]]:
    """Rules that can fire on ``text``: no triggers, or one of them occurs in it.
    Each trigger is looked for once (rules share some, and a trigger that does
    not occur costs a scan of the whole text)."""
    present: dict[str, bool] = {}
    triggered: list[type[Rule]] = []
    for rule in rules:
        if not rule.triggers:
            triggered.append(rule)
            continue
        for trigger in rule.triggers:
            found = present.get(trigger)
            if found is None:
                found = present[trigger] = trigger in text
            if found:
                triggered.append(rule)
                break
    return triggered


def internal_error_message(
    rule: type[Rule], filename: str, error: BaseException
) -> str:
    import traceback  # only on the error path

    frames = traceback.extract_tb(error.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" (at {os.path.basename(last.filename)}:{last.lineno})"
    return (
        f"{filename}: internal error in {rule.code} ({rule.name}): "
        f"{type(error).__name__}: {error}{where}. This is a bug in attnlint; "
        "please report it together with the file."
    )


def check_source(
    text: str,
    filename: str,
    settings: Settings,
    *,
    tree: ast.Module | None = None,
    errors: list[str] | None = None,
    apply_noqa: bool = True,
) -> list[Finding]:
    """Findings of the selected rules on ``text``, suppressions applied, sorted.

    ``tree`` is ``ast.parse(text)`` when the caller has it (flake8, the fixer);
    otherwise the text is parsed here. Rules run only if one of their
    triggers occurs in the text. A text that does not parse gives one
    ``E999`` finding, whatever is selected. Internal rule failures are appended to ``errors`` (or logged).
    ``apply_noqa=False`` leaves ``# noqa`` comments to the caller (flake8).
    """
    rules = triggered_rules(rules_for_file(settings, filename), text)
    if tree is None:
        # Parsed even when no rule can fire: a file that does not parse is
        # always reported, whatever is selected.
        parsed = parse(text, filename)
        if isinstance(parsed, Finding):
            return [parsed]
        tree = parsed
    if not rules:
        return []
    locator = Locator(text)
    ctx = Context(text, tree, filename, settings, locator)
    too_deep = [rule for rule in rules if not _run_rule(rule, ctx, errors)]
    if too_deep:
        # Expressions nested thousands deep exceed the recursion limit in the
        # shared analysis: run those rules again, on a fresh model (the failed
        # run may have left parts of it half built), with room for the depth.
        ctx.reset_model()

        def rerun() -> None:
            for rule in too_deep:
                _run_rule(rule, ctx, errors, deep=True)

        try:
            call_with_deep_stack(rerun)
        except RecursionError as error:
            for rule in too_deep:
                _report_internal_error(rule, ctx, errors, error)
    ctx.release()  # the flows' cycles would otherwise wait for the collector
    findings = ctx.findings
    ignored = settings.ignored_codes_for(filename)
    if ignored:
        findings = [
            finding
            for finding in findings
            if not any(selector_matches(selector, finding.code) for selector in ignored)
        ]
    if findings:
        comments = apply_noqa and _has_noqa_comment(text)
        directives = NoqaDirectives.scan(
            text,
            comments=comments,
            spans=_MAY_SPAN_ROWS.search(text) is not None,
            locator=locator,
        )
        for finding in findings:
            finding.noqa_row = directives.noqa_row(finding)
        if comments:
            findings = [
                finding for finding in findings if not directives.suppresses(finding)
            ]
    findings.sort(key=Finding.sort_key)
    return findings


def _run_rule(
    rule: type[Rule], ctx: Context, errors: list[str] | None, deep: bool = False
) -> bool:
    """Run one rule; False when it ran out of recursion depth (and ``deep`` is
    False: the caller retries it with more room), True otherwise."""
    before = len(ctx.findings)
    try:
        produced = rule().check(ctx)
        # A rule may yield what ctx.report() recorded, or build findings itself.
        yielded = list(produced) if produced is not None else []
        recorded = {id(finding) for finding in ctx.findings[before:]}
        for finding in yielded:
            if id(finding) not in recorded:
                ctx.findings.append(finding)
                recorded.add(id(finding))
    except RecursionError as error:
        del ctx.findings[before:]
        if not deep:
            return False
        _report_internal_error(rule, ctx, errors, error)
    except Exception as error:  # a bug in a rule must not end the run
        del ctx.findings[before:]
        _report_internal_error(rule, ctx, errors, error)
    return True


def _report_internal_error(
    rule: type[Rule], ctx: Context, errors: list[str] | None, error: BaseException
) -> None:
    message = internal_error_message(rule, ctx.filename, error)
    if errors is None:
        import logging  # only here: a check path without errors never needs it

        logging.getLogger("lint_rules").error("%s", message)
    else:
        errors.append(message)


def check_file(
    path: str | os.PathLike[str],
    settings: Settings,
    *,
    errors: list[str] | None = None,
) -> list[Finding]:
    """Read, decode and check one file. Unreadable or undecodable: one ``E902`` finding."""
    filename = os.fspath(path)
    try:
        source = read_source(path)
    except OSError as error:
        return [io_error_finding(filename, os_error_message(error))]
    except SourceError as error:
        return [io_error_finding(filename, str(error))]
    return check_source(source.text, filename, settings, errors=errors)
