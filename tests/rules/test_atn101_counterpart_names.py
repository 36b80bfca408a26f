"""ATN101's counterpart name: an import that may not run binds nothing the
fix may call (differential reproduction 47), and a module name the module's
namespace may rebind makes the fix unsafe (reproduction 48)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings
from lint_rules.fixer import fix_text

SETTINGS = Settings(select=("ATN101",))


def fixed(source: str) -> str:
    text = fix_text(source, "t.py", SETTINGS, unsafe_fixes=False).text
    ast.parse(text)
    return text


CONDITIONS = [
    ("from typing import TYPE_CHECKING\n", "if TYPE_CHECKING:\n    {imp}\n"),
    ("import sys\n", "if sys.version_info < (3, 0):\n    {imp}\n"),
    ("", "try:\n    {imp}\nexcept ImportError:\n    pass\n"),
    ("", "try:\n    pass\nexcept ImportError:\n    {imp}\n"),
    ("", "while False:\n    {imp}\n"),
]


@pytest.mark.parametrize(("head", "guard"), CONDITIONS)
def test_an_empty_imported_under_a_condition_is_not_called(head, guard):
    source = (
        head
        + guard.format(imp="from torch import empty")
        + "from torch import zeros\nimport torch\n\n"
        "def f(y, n):\n    x = zeros(n)\n    x.copy_(y)\n    return x\n"
    )
    assert [f.code for f in check_source(source, "t.py", SETTINGS)] == ["ATN101"]
    assert fixed(source) == source.replace("x = zeros(n)", "x = torch.empty(n)")


@pytest.mark.parametrize(("head", "guard"), CONDITIONS)
def test_a_torch_imported_under_a_condition_names_no_dtype(head, guard):
    source = (
        head + guard.format(imp="import torch") + "from torch import full\n\n"
        "def f(y, n):\n    x = full((n,), 0)\n    x.copy_(y)\n    return x\n"
    )
    found = check_source(source, "t.py", SETTINGS)
    assert [f.code for f in found] == ["ATN101"]
    assert found[0].fix is None
    assert fixed(source) == source


def test_an_import_the_module_always_runs_is_still_used():
    source = textwrap.dedent(
        """\
        from torch import empty, zeros

        def f(y, n):
            x = zeros(n)
            x.copy_(y)
            return x
        """
    )
    assert fixed(source) == source.replace("x = zeros(n)", "x = empty(n)")


REBINDERS = [
    'globals()["empty"] = g',
    'vars()["empty"] = g',
    'exec("empty = g")',
    'setattr(sys.modules[__name__], "empty", g)',
]


@pytest.mark.parametrize("rebinder", REBINDERS)
def test_a_module_name_the_namespace_may_rebind_makes_the_fix_unsafe(rebinder):
    # Differential reproduction 48: the module rebinds ``empty`` with no
    # statement that binds it; the added import bound it first.
    source = (
        "import sys\nimport torch\nfrom torch import zeros\n\n"
        "def g(n):\n    return torch.ones(n, dtype=torch.int32)\n\n"
        f"{rebinder}\n\n"
        "def f(y, n):\n    x = zeros(n)\n    x.copy_(y)\n    return x\n"
    )
    found = check_source(source, "t.py", SETTINGS)
    assert [f.code for f in found] == ["ATN101"]
    fix = found[0].fix
    assert fix is not None and fix.applicability.name == "UNSAFE"
    assert "may rebind `empty`" in fix.message
    assert fixed(source) == source


def test_a_torch_named_for_a_dtype_the_namespace_may_rebind_is_unsafe():
    source = (
        "import torch\nfrom torch import full\n\n"
        'globals()["torch"] = None\n\n'
        "def f(y, n):\n    x = full((n,), 0)\n    x.copy_(y)\n    return x\n"
    )
    found = check_source(source, "t.py", SETTINGS)
    assert found[0].fix is not None
    assert "may rebind `empty` and `torch`" in found[0].fix.message
    assert fixed(source) == source


def test_the_name_the_call_is_made_through_stays_safe():
    # ``torch.zeros`` -> ``torch.empty`` reads no name the call did not.
    source = (
        "import torch\n\n"
        'globals()["empty"] = None\n\n'
        "def f(y, n):\n    x = torch.zeros(n)\n    x.copy_(y)\n    return x\n"
    )
    assert fixed(source) == source.replace("torch.zeros(n)", "torch.empty(n)")


def test_an_import_after_the_function_is_not_called():
    # Differential reproduction 49: the module calls ``f`` while it is
    # imported, before ``from torch import empty`` has run.
    source = textwrap.dedent(
        """\
        import torch
        from torch import zeros

        def f(y, n):
            x = zeros(n)
            x.copy_(y)
            return x

        R = f(torch.arange(3.0), 3)

        from torch import empty
        """
    )
    assert fixed(source) == source.replace("x = zeros(n)", "x = torch.empty(n)")


def test_a_torch_imported_after_the_function_names_no_dtype():
    source = textwrap.dedent(
        """\
        from torch import full

        def f(y, n):
            x = full((n,), 0)
            x.copy_(y)
            return x

        import torch
        """
    )
    found = check_source(source, "t.py", SETTINGS)
    assert [f.code for f in found] == ["ATN101"]
    assert found[0].fix is None
