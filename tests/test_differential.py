"""Safe fixes, proven by execution: programs run before and after ``--fix``
compute the same results, change their arguments the same way, raise the
same exceptions and print the same output (tests/differential.py)."""

from __future__ import annotations

import textwrap

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.differential import compare
from tests.differential_reproductions import REPRODUCTIONS


@pytest.mark.parametrize("name", sorted(REPRODUCTIONS))
def test_reproduction_computes_the_same_after_fix(name):
    comparison = compare(REPRODUCTIONS[name].lstrip())
    assert comparison.same, comparison.explain()


def test_one_unparsable_inlining_drops_no_other_fix():
    comparison = compare(REPRODUCTIONS["fstring_bytes"].lstrip())
    assert comparison.error is None
    assert comparison.fixed_by_code.get("ATN301") == 1  # ``j = i`` in case_other


def _codes(source: str, select: str) -> list[tuple[int, str]]:
    found = check_source(textwrap.dedent(source), "t.py", Settings(select=(select,)))
    return [(f.location.row, f.code) for f in found]


def test_read_only_method_between_syncs_is_no_write():
    source = """
        def f(s):
            a = s.max().item()
            s.isnan()
            c = s.max().item()
            return a, c
    """
    assert _codes(source, "ATN201") == [(5, "ATN201")]


def test_function_level_import_resolves_to_torch():
    source = """
        def f(y, n):
            import torch
            x = torch.zeros(n)
            x[:] = y
            return x
    """
    assert _codes(source, "ATN101") == [(4, "ATN101")]
