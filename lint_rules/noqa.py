"""Suppression comments: reading them, the row each finding's ``# noqa`` is
on, and adding codes to a directive (``check --add-noqa``, the editor's
quick fix).

What suppresses what (the same for ``attnlint check`` and, through the
flake8 plugin, for ``flake8``):

- ``# noqa`` on a row suppresses every finding whose noqa row it is;
  ``# noqa: ATN101, ATN301`` those codes only. The word ``noqa`` may be in
  any case and follow the ``#`` with or without spaces, as in ruff. Codes are
  matched as written, a listed code also covering the codes it is a prefix of
  (``ATN1``): flake8's comparison, so ``# noqa: atn101`` suppresses nothing,
  in flake8 as here (and ruff does not read it as a code at all).
- A finding's noqa row is its own row, or, when that row is inside a chain
  of multi-line strings and backslash continuations, the chain's last row
  (the only one a comment can follow).
- ``# attnlint: noqa`` anywhere in a comment exempts the whole file;
  ``# attnlint: noqa: ATN301`` exempts those codes in the whole file.
- ``# flake8: noqa`` exempts the whole file, with codes after it or not:
  flake8 skips a file for such a line whatever follows, so attnlint does too
  (ruff reads the codes instead).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from lint_rules import prefilter
from lint_rules.diagnostics import Edit, Finding
from lint_rules.records import Record
from lint_rules.source import Locator

# flake8's inline suppression comment: the word noqa after a hash, optionally
# followed by a colon and codes (ATN101,ATN301); whitespace after the hash is
# optional, as in ruff. The pattern accepts codes in any case (as flake8's
# does); they are compared as written.
_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE
)
# File-level exemption: "attnlint: noqa" in a comment (optionally with codes),
# and flake8's "flake8: noqa" (the whole file, whatever follows, as in flake8).
_FILE_NOQA = re.compile(
    r"#\s*(?P<tool>attnlint|flake8)\s*[:=]\s*noqa(?::\s?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?",
    re.IGNORECASE,
)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)
_MAY_SPAN_ROWS = re.compile(r"\"\"\"|'''|\\\r?\n|\\\r")


def may_span_rows(text: str) -> bool:
    """Whether ``text`` may hold a multi-line string or a continuation (a
    shortcut: False means no finding's noqa row differs from its own)."""
    return not prefilter.enabled() or _MAY_SPAN_ROWS.search(text) is not None


def has_noqa_comment(text: str) -> bool:
    """Whether ``text`` may hold a suppression comment (a shortcut): whether
    it holds ``noqa`` in any case (``re.search("noqa", text, re.IGNORECASE)``).
    No character but ``o``/``O`` and ``q``/``Q`` matches those letters
    ignoring case (``tests/test_prefilter.py``), so each match holds one of the
    four spellings of ``oq``: those are found by ``str.find`` (a case-blind
    search of the whole text tries each position, some ten times slower)
    and the match looked for there."""
    if not prefilter.enabled():
        return True
    match = _NOQA_WORD.match
    for pair in ("oq", "oQ", "Oq", "OQ"):
        position = text.find(pair, 1)
        while position >= 0:
            if match(text, position - 1) is not None:
                return True
            position = text.find(pair, position + 1)
    return False


_NOQA_WORD = re.compile("noqa", re.IGNORECASE)


def code_listed(code: str, codes: Iterable[str]) -> bool:
    """Whether a directive listing ``codes`` covers ``code``: an exact code
    or a prefix of it, compared as written (flake8's comparison)."""
    return any(code == listed or code.startswith(listed) for listed in codes)


class NoqaDirective(Record):
    """One directive with its place in the text: ``# noqa[: CODES]`` on a
    row, or ``# attnlint: noqa: CODES`` for the file (``file_level``).

    ``start`` is the offset of its ``#``, ``end`` the offset just past its
    last code (past ``noqa`` for a blanket one); ``codes`` are (code as
    written, start, end), or None for a blanket directive.
    """

    __slots__ = ("row", "start", "end", "codes", "file_level")
    _fields = __slots__

    def __init__(
        self,
        row: int,
        start: int,
        end: int,
        codes: tuple[tuple[str, int, int], ...] | None,
        file_level: bool = False,
    ) -> None:
        self.row = row
        self.start = start
        self.end = end
        self.codes = codes
        self.file_level = file_level


class NoqaDirectives(Record):
    """The suppression comments of one file, and which row each finding's noqa is on."""

    _fields = ("lines", "row_map", "file_exempt", "file_codes", "directives")
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        lines: dict[int, frozenset[str] | None],
        row_map: dict[int, int],
        file_exempt: bool = False,
        file_codes: frozenset[str] = frozenset(),
        directives: list[NoqaDirective] | None = None,
    ) -> None:
        # row -> codes its suppression comment names (None: a blanket one, no codes).
        self.lines = lines
        # Rows inside a chain of multi-line strings and backslash continuations
        # -> the row that holds their noqa comment (the chain's last row).
        self.row_map = row_map
        self.file_exempt = file_exempt
        self.file_codes = file_codes
        # Every directive read, in text order, with its position.
        self.directives: list[NoqaDirective] = [] if directives is None else directives

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
        # (first row, last row) of each multi-row string and continuation, in
        # text order.
        multi_row: list[tuple[int, int]] = []
        for kind, start, end in _lexemes(text):
            if kind == "comment":
                if comments:
                    directives._read_comment(
                        text[start:end], locator.row_column(start)[0], start
                    )
            elif not spans:
                continue
            elif kind == "string":
                first = locator.row_column(start)[0]
                last = locator.row_column(end)[0]
                if last != first:
                    multi_row.append((first, last))
            else:
                row = locator.row_column(start)[0]
                multi_row.append((row, row + 1))
        directives._map_chains(multi_row)
        return directives

    def _map_chains(self, multi_row: list[tuple[int, int]]) -> None:
        """Map each row of a chain of spans that share rows (``f\"\"\"..\"\"\" +
        \"\"\"..\"\"\"``, a string after a backslash) to the chain's last row: a
        row where one span ends and the next begins ends inside the next, so
        no comment can follow it there."""
        chain_first = chain_last = 0
        for first, last in multi_row:
            if chain_last and first <= chain_last:
                chain_last = max(chain_last, last)
                continue
            for row in range(chain_first, chain_last):
                self.row_map[row] = chain_last
            chain_first, chain_last = first, last
        for row in range(chain_first, chain_last):
            self.row_map[row] = chain_last

    def _read_comment(self, comment: str, row: int, offset: int = 0) -> None:
        """Read the directive in ``comment`` (on ``row``, starting at ``offset``
        in the text)."""
        file_match = _FILE_NOQA.search(comment)
        if file_match:
            codes = file_match.group("codes")
            if codes is None or file_match.group("tool").lower() == "flake8":
                self.file_exempt = True
            else:
                found = _codes_at(file_match, offset)
                self.file_codes |= frozenset(code for code, _, _ in found)
                self.directives.append(
                    NoqaDirective(
                        row, offset + file_match.start(), found[-1][2], found, True
                    )
                )
            return
        match = _NOQA.search(comment)
        if match is None:
            return
        if match.group("codes") is None:
            self.lines[row] = None
            self.directives.append(
                NoqaDirective(row, offset + match.start(), offset + match.end(), None)
            )
            return
        found = _codes_at(match, offset)
        self.directives.append(
            NoqaDirective(row, offset + match.start(), found[-1][2], found)
        )
        if self.lines.get(row, frozenset()) is not None:
            codes = frozenset(code for code, _, _ in found)
            self.lines[row] = (self.lines.get(row) or frozenset()) | codes

    def noqa_row(self, finding: Finding) -> int:
        row = finding.location.row
        return self.row_map.get(row, row)

    def exempts_file(self, code: str) -> bool:
        """Whether a file-level directive exempts ``code`` in the whole file."""
        return self.file_exempt or code_listed(code, self.file_codes)

    def suppresses(self, finding: Finding) -> bool:
        code = finding.code
        if self.exempts_file(code):
            return True
        row = self.noqa_row(finding)
        if row not in self.lines:
            return False
        codes = self.lines[row]
        return codes is None or code_listed(code, codes)


class SuppressionFacts(Record):
    """What a rule that judges suppression comments (``checks_suppressions``)
    is given about one file: its text, its directives, the findings of the
    other rules before any suppression (each with its ``noqa_row``), the
    codes enabled for the file, every code attnlint knows, and the codes of
    rules that failed on it (whose findings are unknown, so no directive
    naming them can be judged)."""

    _fields = (
        "text",
        "filename",
        "locator",
        "directives",
        "findings",
        "enabled_codes",
        "known_codes",
        "unjudged_codes",
    )
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        text: str,
        filename: str,
        locator: Locator,
        directives: NoqaDirectives,
        findings: list[Finding],
        *,
        enabled_codes: frozenset[str],
        known_codes: tuple[str, ...],
        unjudged_codes: frozenset[str] = frozenset(),
    ) -> None:
        self.text = text
        self.filename = filename
        self.locator = locator
        self.directives = directives
        self.findings = findings
        self.enabled_codes = enabled_codes
        self.known_codes = known_codes
        self.unjudged_codes = unjudged_codes


def _codes_at(match: re.Match[str], offset: int) -> tuple[tuple[str, int, int], ...]:
    """(code, start, end) of each code in ``match``'s codes group, as written."""
    base = offset + match.start("codes")
    return tuple(
        (found.group(), base + found.start(), base + found.end())
        for found in _CODE.finditer(match.group("codes"))
    )


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


def code_separator(codes_text: str, count: int) -> str:
    """The separator a directive's codes are written with: ``", "`` unless
    they are written with bare commas (``A,B``) or spaces only (``A B``)."""
    if count > 1 and "," not in codes_text:
        return " "
    if "," in codes_text and ", " not in codes_text:
        return ","
    return ", "


def reason_problem(reason: str) -> str | None:
    """Why ``reason`` cannot follow the codes of a ``# noqa`` directive
    (None: it can). It must be one line, and no tool may read a word of it
    as a code or the comment as another directive (``TODO1 ...`` would be
    read as the code ``TODO1`` by flake8 and attnlint alike)."""
    if any(char in reason for char in "\r\n\f\v\x00"):
        return "it must be a single line"
    if not reason.strip():
        return None
    sample = f"# noqa: ATN000 {reason}"
    match = _NOQA.search(sample)
    if _FILE_NOQA.search(sample) or match is None:
        return "it would be read as another suppression directive"
    codes = [code for code, _, _ in _codes_at(match, 0)] if match["codes"] else []
    if codes != ["ATN000"]:
        return "its first word would be read as a rule code"
    if len(_NOQA.findall(sample)) > 1:
        return "it would be read as another suppression directive"
    return None


def add_noqa_edit(
    text: str,
    row: int,
    codes: Iterable[str],
    *,
    locator: Locator | None = None,
    reason: str | None = None,
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

    ``reason`` (one line, see :func:`reason_problem`) is written after the
    codes, as ruff's ``--add-noqa=REASON`` writes it: ``# noqa: B reason``;
    a directive that has text after its codes already keeps its text
    and gets no second reason.
    """
    wanted: list[str] = []
    for code in codes:
        code = code.strip().upper()
        if code and code not in wanted:
            wanted.append(code)
    reason = (reason or "").strip()
    suffix = f" {reason}" if reason else ""
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
            f"{'  ' if code_text else ''}# noqa: {', '.join(wanted)}{suffix}",
        )
    else:
        comment = text[comment_start:line_end]
        if _FILE_NOQA.search(comment):
            return None
        before._read_comment(comment, row)
        listed = before.lines.get(row, frozenset())
        if listed is None:
            return None  # a blanket directive suppresses every code already
        wanted = [code for code in wanted if not code_listed(code, listed)]
        match = _NOQA.search(comment)
        if match is None or match.group("codes") is None:
            end = comment_start + len(comment.rstrip())
            edit = Edit(end, line_end, f"  # noqa: {', '.join(wanted)}{suffix}")
        else:
            group = match.group("codes")
            found = list(_CODE.finditer(group))
            separator = code_separator(group, len(found))
            at = comment_start + match.start("codes") + found[-1].end()
            added = separator + separator.join(wanted)
            if not text[at:line_end].strip():
                added += suffix  # nothing follows the codes: the reason may
            edit = Edit(at, at, added)
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
    if suppressed is None or not all(code_listed(c, suppressed) for c in required):
        return None
    return edit


def add_noqa_directives(
    text: str, findings: list[Finding], *, reason: str | None = None
) -> tuple[str, int, list[Finding]]:
    """``text`` with every finding suppressed where its noqa row is:
    :func:`add_noqa_edit` for each row, with all the codes found there
    (``check --add-noqa``). Returns the new text, how many rows changed, and
    the findings no directive could suppress (their row ends inside a string
    the lexer could not follow, or they have no noqa row)."""
    codes_by_row: dict[int, set[str]] = {}
    left: list[Finding] = []
    for finding in findings:
        if finding.noqa_row is None:
            left.append(finding)
        else:
            codes_by_row.setdefault(finding.noqa_row, set()).add(finding.code)
    locator = Locator(text)
    edits: list[Edit] = []
    for row in sorted(codes_by_row):
        edit = add_noqa_edit(
            text, row, sorted(codes_by_row[row]), locator=locator, reason=reason
        )
        if edit is None:
            left += [finding for finding in findings if finding.noqa_row == row]
        else:
            edits.append(edit)
    pieces: list[str] = []
    position = 0
    for edit in edits:  # one per row, in row order: they cannot overlap
        pieces += (text[position : edit.start], edit.content)
        position = edit.end
    pieces.append(text[position:])
    return "".join(pieces), len(edits), left


def delete_directive(text: str, locator: Locator, directive: NoqaDirective) -> Edit:
    """The edit that removes ``directive`` and its reason (the text after its
    codes, up to the next comment on the row), keeping the row's other
    comments: ``x = 1  # noqa: A why`` -> ``x = 1``, ``x  # noqa: A  # type:
    ignore`` -> ``x  # type: ignore``, and a row holding nothing else goes whole
    (unless a backslash continues the row before into it: it stays, empty)."""
    start, end = directive.start, directive.end
    line_start = locator.line_start(directive.row)
    line_end = locator.line_end(directive.row)
    prefix = text[line_start:start]
    leading = len(prefix) - len(prefix.rstrip())
    later = _LATER_COMMENT.search(text, end, line_end)
    if later is None:
        if start - leading == line_start:
            if directive.row > 1 and locator.line_text(directive.row - 1).endswith(
                "\\"
            ):
                # A backslash continues the row before into this one: without
                # the row, it would join the next statement. The row stays, empty.
                return Edit(line_start, line_end, "")
            return Edit(line_start, locator.full_line_end(directive.row), "")
        return Edit(start - leading, line_end, "")
    return Edit(start, later.start(), "")


# Where a reason ends: the next comment of the row, a '#' after whitespace
# (a ``type: ignore`` comment after the reason), not an issue number (``see #12``).
_LATER_COMMENT = re.compile(r"(?<=\s)#(?![0-9])")
