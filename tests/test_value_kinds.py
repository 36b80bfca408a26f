"""Which local names always hold an immutable number (ATN301 asks it)."""

from __future__ import annotations

import ast

from lint_rules.analysis import value_kinds
from lint_rules.analysis.model import ModuleModel
from lint_rules.analysis.value_kinds import number_names

SOURCE = (
    "def f(x, n: int, s, lens):\n"
    "    for i in range(n):\n"
    "        a = i + 1\n"
    "        b = x.size(0) // 2\n"
    "        c = max(a, b) - n\n"
    "        d = a + s\n"  # s may be anything: d is not known
    "        e = x[i]\n"
    "        g = len(lens)\n"
    "        g += 1\n"
    "        h = 0\n"
    "        h = x\n"  # one binding is a tensor
    "        k = -a\n"
    "    return a, b, c, d, e, g, h, k\n"
)


def _flow():
    tree = ast.parse(SOURCE)
    model = ModuleModel(tree, SOURCE)
    function = tree.body[0]
    return model.flow(function), model.scope(function)


def test_names_that_always_hold_a_number():
    flow, scope = _flow()
    assert number_names(flow, scope) == {"n", "i", "a", "b", "c", "g", "k"}


def test_computed_once_per_function_and_equal_to_a_fresh_computation():
    flow, scope = _flow()
    first = number_names(flow, scope)
    assert number_names(flow, scope) is first
    assert value_kinds._number_names(flow, scope) == first


def test_a_name_the_function_binds_is_no_builtin():
    source = "def f(x):\n    len = x\n    m = len(x)\n    return m\n"
    tree = ast.parse(source)
    model = ModuleModel(tree, source)
    function = tree.body[0]
    assert "m" not in number_names(model.flow(function), model.scope(function))
