"""The language server's positions and edits, without a client.

Positions are counted in UTF-8, UTF-16 or UTF-32 code units; every
conversion is checked against a second way of counting (encoding the
characters, in ``tests/lsp_client.py``) on texts with non-ASCII and astral
characters, and against Python's own idea of where lines end.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint_rules.checker import check_source
from lint_rules.config import Settings
from lint_rules.rules import CODES, default_registry
from lint_rules.server import convert
from lint_rules.server.engine import (
    is_syntax_error,
    rule_explanation,
    rule_facts,
    rule_url,
)
from lint_rules.server.text import ENCODINGS, Document, LineIndex, characters, units
from tests.lsp_client import apply_text_edits, code_units

# Characters of every width: ASCII, two-byte UTF-8, BMP (three bytes), astral
# (four bytes, a UTF-16 surrogate pair), and the separators that
# str.splitlines would treat as line ends but Python and the protocol do not.
ALPHABET = "ab é€😀𝔘\t\x0c\x1c\x85\u2028\r\n"
texts = st.text(alphabet=ALPHABET, max_size=40)


def oracle_units(text: str, encoding: str) -> int:
    return sum(code_units(char, encoding) for char in text)


@pytest.mark.parametrize("encoding", ENCODINGS)
@given(line=st.text(alphabet=ALPHABET.replace("\r", "").replace("\n", "")))
def test_units_and_characters_agree_with_encoding(encoding: str, line: str) -> None:
    for cut in range(len(line) + 1):
        count = units(line[:cut], encoding)
        assert count == oracle_units(line[:cut], encoding)
        assert characters(line, count, encoding) == cut
    # Past the end: the whole line.
    assert characters(line, units(line, encoding) + 5, encoding) == len(line)


def test_a_count_inside_a_character_stops_before_it() -> None:
    line = "a😀b"
    assert characters(line, 2, "utf-16") == 1  # half of the surrogate pair
    assert characters(line, 3, "utf-16") == 2
    assert characters(line, 3, "utf-8") == 1  # part of the four UTF-8 bytes
    assert characters(line, 5, "utf-8") == 2


def test_lines_end_where_python_ends_them() -> None:
    # Form feeds, \x1c, \x85 and \u2028 end no line for Python nor the protocol.
    text = "a = 1\x0c\r\nb = '\u2028\x85\x1c'\rc = 3\nd = 4"
    index = LineIndex(text)
    assert index.line_count == 4
    assert [node.lineno for node in ast.parse(text).body] == [1, 2, 3, 4]
    assert [index.line_text(line)[0] for line in range(4)] == ["a", "b", "c", "d"]
    assert index.line_text(1) == "b = '\u2028\x85\x1c'"


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=200)
@given(text=texts, data=st.data())
def test_offsets_and_positions_round_trip(encoding: str, text: str, data) -> None:
    index = LineIndex(text)
    offset = data.draw(st.integers(0, len(text)))
    if text[offset - 1 : offset + 1] == "\r\n":
        offset -= 1  # between \r and \n is no position
    line, character = index.position(offset, encoding)
    row_start = index.starts[line]
    line_text = index.line_text(line)
    clamped = min(offset, row_start + len(line_text))
    assert character == oracle_units(text[row_start:clamped], encoding)
    assert index.offset(line, character, encoding) == clamped


def test_positions_past_the_end_are_clamped() -> None:
    index = LineIndex("ab\ncd")
    assert index.offset(0, 99, "utf-16") == 2
    assert index.offset(7, 0, "utf-16") == 5
    assert index.position_of_location(1, 99, "utf-16") == (0, 2)
    assert index.position_of_location(9, 1, "utf-16") == (1, 0)


def test_a_finding_after_astral_characters() -> None:
    text = 'x = "😀é"; y = 1\n'
    index = LineIndex(text)
    column = text.index("y") + 1  # attnlint's 1-based character column
    assert index.position_of_location(1, column, "utf-32") == (0, 10)
    assert index.position_of_location(1, column, "utf-16") == (0, 11)
    assert index.position_of_location(1, column, "utf-8") == (0, 14)


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=200)
@given(text=texts, data=st.data())
def test_incremental_edits_match_an_editor(encoding: str, text: str, data) -> None:
    index = LineIndex(text)
    a = data.draw(st.integers(0, len(text)))
    b = data.draw(st.integers(a, len(text)))
    start = index.position(a, encoding)
    end = index.position(b, encoding)
    new_text = data.draw(texts)
    document = Document("file:///m.py", "/m.py", text, 1)
    document.edit(start, end, new_text, encoding)
    edit = {
        "range": {
            "start": {"line": start[0], "character": start[1]},
            "end": {"line": end[0], "character": end[1]},
        },
        "newText": new_text,
    }
    assert document.text == apply_text_edits(text, [edit], encoding)
    assert document.index.text == document.text


def _buffer_position(buffer: str, offset: int, encoding: str) -> tuple[int, int]:
    """The client's (line, character) of ``offset`` in ``buffer``, counted
    the second way (a byte-order mark is one more character of line 0)."""
    before = buffer[:offset]
    line = len(re.findall(r"\r\n|\r|\n", before))
    start = max(before.rfind("\n"), before.rfind("\r")) + 1
    return line, oracle_units(buffer[start:offset], encoding)


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=200)
@given(text=texts, data=st.data())
def test_a_leading_bom_is_checked_away_and_counted_in_positions(
    encoding: str, text: str, data
) -> None:
    """A buffer starting with U+FEFF is checked without it, as the file on
    disk is; offsets count in the checked text, the client's positions on
    line 0 count the mark (one UTF-16 unit, three UTF-8 bytes)."""
    buffer = "\ufeff" + text
    index = LineIndex(buffer)
    assert index.bom and index.text == text
    offset = data.draw(st.integers(0, len(text)))
    if text[offset - 1 : offset + 1] == "\r\n":
        offset -= 1
    line = bisect_right(index.starts, offset) - 1
    clamped = min(offset, index.starts[line] + len(index.line_text(line)))
    expected = _buffer_position(buffer, clamped + 1, encoding)
    assert index.position(offset, encoding) == expected
    assert index.offset(*expected, encoding) == clamped
    assert index.buffer_offset(*expected, encoding) == clamped + 1
    assert index.offset(0, 0, encoding) == index.buffer_offset(0, 0, encoding) == 0


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=200)
@given(text=texts, data=st.data())
def test_incremental_edits_of_a_buffer_with_a_bom_match_an_editor(
    encoding: str, text: str, data
) -> None:
    buffer = "\ufeff" + text
    a = data.draw(st.integers(0, len(buffer)))
    b = data.draw(st.integers(a, len(buffer)))
    if buffer[a - 1 : a + 1] == "\r\n" or buffer[b - 1 : b + 1] == "\r\n":
        return
    start = _buffer_position(buffer, a, encoding)
    end = _buffer_position(buffer, b, encoding)
    new_text = data.draw(texts)
    document = Document("file:///m.py", "/m.py", buffer, 1)
    document.edit(start, end, new_text, encoding)
    edit = {
        "range": {
            "start": {"line": start[0], "character": start[1]},
            "end": {"line": end[0], "character": end[1]},
        },
        "newText": new_text,
    }
    assert document.text == apply_text_edits(buffer, [edit], encoding)


def _as_json(edits) -> list[dict]:
    """LSP text edits as a client receives them (JSON objects)."""
    return [
        {
            "range": {
                "start": {
                    "line": e.range.start.line,
                    "character": e.range.start.character,
                },
                "end": {"line": e.range.end.line, "character": e.range.end.character},
            },
            "newText": e.new_text,
        }
        for e in edits
    ]


@settings(max_examples=200)
@given(old=texts, new=texts)
def test_diff_edits_keep_a_buffers_bom_in_place(old: str, new: str) -> None:
    """Fixes are computed on the text without the mark; their edits, applied
    by the client to the buffer with it, keep the mark first."""
    index = LineIndex("\ufeff" + old)
    edits = convert.diff_edits(index, new)
    for encoding in ENCODINGS:
        text_edits = _as_json(convert.text_edits(edits, index, encoding))
        assert apply_text_edits("\ufeff" + old, text_edits, encoding) == "\ufeff" + new


def test_a_buffer_with_a_bom_gets_the_findings_of_its_file() -> None:
    """Checked as the file on disk is: no E999 for the mark, and a finding's
    column on line 0 counts it in the client's units."""
    text = "import torch\nx = torch.zeros(3).cuda()\n"
    index = LineIndex("\ufeff" + text)
    findings = check_source(index.text, "m.py", Settings())
    assert [f.code for f in findings] == [
        f.code for f in check_source(text, "m.py", Settings())
    ]
    assert not any(is_syntax_error(f) for f in findings)
    (error,) = check_source("def f(:\n", "m.py", Settings())
    broken = LineIndex("\ufeffdef f(:\n")
    plain = convert.diagnostic(error, LineIndex("def f(:\n"), "utf-16")
    shifted = convert.diagnostic(error, broken, "utf-16")
    assert shifted.range.start.line == plain.range.start.line == 0
    assert shifted.range.start.character == plain.range.start.character + 1
    assert convert.diagnostic(error, broken, "utf-8").range.start.character == (
        plain.range.start.character + 3
    )


@settings(max_examples=200)
@given(old=texts, new=texts)
def test_diff_edits_turn_one_text_into_the_other(old: str, new: str) -> None:
    index = LineIndex(old)
    edits = convert.diff_edits(index, new)
    for encoding in ENCODINGS:
        text_edits = _as_json(convert.text_edits(edits, index, encoding))
        assert apply_text_edits(old, text_edits, encoding) == new


def test_diff_edits_touch_only_changed_lines() -> None:
    old = "a\nb\nc\nd\n"
    edits = convert.diff_edits(LineIndex(old), "a\nB\nc\nd\ne\n")
    assert [(e.start, e.end, e.content) for e in edits] == [
        (2, 4, "B\n"),
        (8, 8, "e\n"),
    ]


def test_editor_severity_comes_from_the_rules_level_and_fix() -> None:
    # The table of convert's docstring, derived from each rule's own facts.
    registry = default_registry()
    expected = {
        "ATN101": 2,  # Warning: proven waste, safe fix
        "ATN102": 3,  # Information: an audit (level "warning")
        "ATN103": 1,  # Error: wrong results, no fix
        "ATN201": 2,
        "ATN202": 2,
        "ATN301": 2,
    }
    derived = {
        code: convert.severity(code, rule_facts(code, registry)) for code in CODES
    }
    assert {code: derived[code] for code in expected} == expected
    for code in CODES:
        rule = registry.rule_for_code(code)
        if rule.severity == "warning":
            assert derived[code] == 3
        else:
            assert derived[code] == (1 if rule.fix_availability == "none" else 2)
    assert convert.severity("E999") == convert.severity("E902") == 1


def test_rule_explanations_are_the_why_section() -> None:
    registry = default_registry()
    for code in CODES:
        name, why = rule_explanation(code, registry)
        rule = registry.rule_for_code(code)
        assert name == rule.name
        assert why and "##" not in why
        assert why in rule.documentation()
    assert rule_explanation("E999", registry) is None
    assert rule_explanation("E999") is None


def test_diagnostic_fields() -> None:
    (finding,) = check_source("def f(:\n", "m.py", Settings())
    assert is_syntax_error(finding)
    diagnostic = convert.diagnostic(finding, LineIndex("def f(:\n"), "utf-16")
    assert diagnostic.code == "E999" and diagnostic.source == "attnlint"
    assert diagnostic.severity == convert.severity("E999") == 1  # Error
    assert diagnostic.code_description is None
    assert rule_url("E999") is None
    linked = convert.diagnostic(finding, LineIndex(""), "utf-16", "https://x.test/E999")
    assert linked.code_description.href == "https://x.test/E999"


def test_rule_urls_come_from_the_rules(monkeypatch) -> None:
    rule = default_registry().rule_for_code("ATN101")
    assert rule_url("ATN101") == rule.url()
    monkeypatch.setattr(
        rule, "url", classmethod(lambda cls: f"https://x.test/{cls.code}")
    )
    assert rule_url("ATN101") == "https://x.test/ATN101"
