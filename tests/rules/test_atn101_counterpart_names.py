"""ATN101's counterpart name: an import that may not run binds nothing the
fix may call (differential reproduction 47), and a module name the module's
namespace may rebind makes the fix unsafe (reproduction 48), and one another
import (or a star import) may rebind is not called (reproduction 53)."""

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


@pytest.mark.parametrize(
    "rebinding",
    [
        "import os.path as empty",
        "from os import path as empty",
        "from torch import ones as empty",
    ],
)
@pytest.mark.parametrize("where", ["before", "after"])
def test_an_empty_another_import_rebinds_is_not_called(rebinding, where):
    # A second import of the name replaces the first, before the function
    # (when the module is imported) or after it (when the function runs).
    head = "import torch\nfrom torch import zeros, empty\n"
    function = "def f(y, n):\n    x = zeros(n)\n    x.copy_(y)\n    return x\n"
    if where == "before":
        source = head + rebinding + "\n\n" + function
    else:
        source = head + "\n" + function + "\n" + rebinding + "\n"
    assert [f.code for f in check_source(source, "t.py", SETTINGS)] == ["ATN101"]
    assert fixed(source) == source.replace("x = zeros(n)", "x = torch.empty(n)")
    # The same import twice is one binding: the name is still called.
    again = source.replace(rebinding, "from torch import empty")
    assert fixed(again) == again.replace("x = zeros(n)", "x = empty(n)")


def test_a_torch_another_import_rebinds_names_no_dtype():
    source = (
        "import torch\nfrom torch import full\n\n"
        "def f(y, n):\n    x = full((n,), 0)\n    x.copy_(y)\n    return x\n\n"
        "import torch.nn as torch\n"
    )
    found = check_source(source, "t.py", SETTINGS)
    assert [f.code for f in found] == ["ATN101"]
    assert found[0].fix is None
    # ``import torch.nn`` binds ``torch`` to torch itself.
    plain = source.replace("import torch.nn as torch", "import torch.nn")
    assert "dtype=torch.int64" in fixed(plain)


def test_a_star_import_may_rebind_any_name_the_fix_would_call():
    source = (
        "import torch\nfrom torch import zeros, empty\nfrom helpers import *\n\n"
        "def f(y, n):\n    x = zeros(n)\n    x.copy_(y)\n    return x\n"
    )
    found = check_source(source, "t.py", SETTINGS)
    assert [f.code for f in found] == ["ATN101"]
    assert found[0].fix is None
    # A call made through ``torch`` itself keeps its name: still fixed.
    through = source.replace("zeros(n)", "torch.zeros(n)")
    assert fixed(through) == through.replace("torch.zeros(n)", "torch.empty(n)")
