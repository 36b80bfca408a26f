"""Locator: rows and offsets as Python's tokenizer counts them."""

from __future__ import annotations

import pytest

from lint_rules.source import Locator


@pytest.mark.parametrize(
    "text",
    ["", "x", "a\nb\n", "\n\n\n", "a\r\nb\rc\nd", "é = 1\n# ü\nx = 'ß'\n"],
)
def test_rows_of_agrees_with_row_column(text):
    offsets = list(range(len(text) + 1))
    expected = {Locator(text).row_column(offset)[0] for offset in offsets}
    assert Locator(text).rows_of(offsets) == expected
    for offset in offsets:
        fresh = Locator(text)
        assert fresh.rows_of([offset]) == {fresh.row_column(offset)[0]}
        # With the line starts already computed, the same answer.
        assert fresh.rows_of([offset]) == {fresh.row_column(offset)[0]}


@pytest.mark.parametrize(
    "text",
    ["", "a", "a\n", "a\nb", "a\r\nb\rc\n", "\n\n\r\n\r", "x = 1\n" * 50],
)
def test_line_start_agrees_with_line_starts_whatever_is_asked_first(text):
    expected = Locator(text).line_starts
    rows = len(expected)
    for order in (range(1, rows + 1), range(rows, 0, -1)):
        locator = Locator(text)
        for row in order:
            assert locator.line_start(row) == expected[row - 1]
            end = expected[row] if row < rows else len(text)
            assert locator.full_line_end(row) == end
        assert locator.line_starts == expected
    with pytest.raises(IndexError):
        Locator(text).line_start(rows + 1)


@pytest.mark.parametrize("text", ["", "a\nbb\n\nc", "a\r\nb\rc\nd", "x\n" * 30])
def test_row_of_each(text):
    offsets = list(range(len(text) + 1))
    expected = [Locator(text).row_column(offset)[0] for offset in offsets]
    assert Locator(text).row_of_each(offsets) == expected
    located = Locator(text)
    located.line_starts  # noqa: B018 (with the line starts at hand)
    assert located.row_of_each(offsets) == expected
