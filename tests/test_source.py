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
