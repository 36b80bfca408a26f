"""Scopes: who a name is in a function (an import, a local, a builtin)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from lint_rules.analysis.model import ModuleModel
from lint_rules.analysis.scopes import (
    Argument,
    ClassScope,
    Definition,
    Importation,
    class_scope,
)


def scope_of(source: str, function: str = "f"):
    tree = ast.parse(textwrap.dedent(source))
    model = ModuleModel(tree)
    info = next(info for info in model.functions if info.node.name == function)
    return model.scope(info.node)


def qualified(source: str, expression: str, function: str = "f") -> str | None:
    return scope_of(source, function).qualified_name(
        ast.parse(expression, mode="eval").body
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import torch\ndef f():\n    pass\n", "torch.zeros"),
        ("import torch as th\ndef f():\n    pass\n", None),  # ``torch`` unbound
        ("def f():\n    import torch\n", "torch.zeros"),
        ("def f():\n    import torch.nn\n", "torch.zeros"),
        ("def g():\n    import torch\ndef f():\n    pass\n", None),
        ("import torch\ndef f(torch):\n    pass\n", None),
        ("import torch\ndef f():\n    torch = 1\n", None),
        ("import torch\ndef f():\n    for torch in []:\n        pass\n", None),
        ("import torch\ndef f():\n    with a as torch:\n        pass\n", None),
        ("import torch\ndef f():\n    if (torch := 1):\n        pass\n", None),
        ("import torch\ndef f():\n    [(torch := 1) for _ in ()]\n", None),
        ("import torch\ndef f():\n    def torch():\n        pass\n", None),
        # A function that declares it global may rebind it anywhere.
        ("import torch\ndef f():\n    global torch\n", None),
        ("import numpy as torch\ndef f():\n    pass\n", "numpy.zeros"),
        ("try:\n    import torch\nexcept ImportError:\n    torch = None\n"
         "def f():\n    pass\n", "torch.zeros"),
        ("import torch\ntorch = make()\ndef f():\n    pass\n", None),
        ("import torch\nimport numpy as torch\ndef f():\n    pass\n", None),
        ("from torch import *\ndef f():\n    pass\n", None),
        ("from . import torch\ndef f():\n    pass\n", None),
        ("import torch\ndef g():\n    global torch\n    torch = 1\ndef f():\n    pass\n",
         None),
        ("import torch\nclass C:\n    torch = 1\n    def f(self):\n        pass\n",
         "torch.zeros"),
        ("def outer():\n    import torch\n    def f():\n        pass\n", "torch.zeros"),
        ("import torch\ndef outer(torch):\n    def f():\n        pass\n", None),
        ("import torch\ndef outer():\n    torch = 1\n    def f():\n"
         "        nonlocal torch\n", None),
    ],
)  # fmt: skip
def test_who_torch_is(source, expected):
    assert qualified(source, "torch.zeros") == expected


@pytest.mark.parametrize(
    ("source", "name", "expected"),
    [
        ("from torch import zeros as z\ndef f():\n    pass\n", "z", "torch.zeros"),
        ("def f():\n    from torch import zeros as z\n", "z", "torch.zeros"),
        ("import torch.nn.functional as F\ndef f():\n    pass\n", "F.relu",
         "torch.nn.functional.relu"),
    ],
)  # fmt: skip
def test_imported_names(source, name, expected):
    assert qualified(source, name) == expected


@pytest.mark.parametrize(
    ("source", "builtin"),
    [
        ("def f():\n    pass\n", True),
        ("def len(x):\n    return 0\ndef f():\n    pass\n", False),
        ("len = my_len\ndef f():\n    pass\n", False),
        ("from mylib import len\ndef f():\n    pass\n", False),
        ("for len in []:\n    pass\ndef f():\n    pass\n", False),
        ("try:\n    pass\nexcept E as len:\n    pass\ndef f():\n    pass\n", False),
        ("if (len := 1):\n    pass\ndef f():\n    pass\n", False),
        ("from mylib import *\ndef f():\n    pass\n", False),
        ("def f(len):\n    pass\n", False),
        ("def g():\n    global len\n    len = 1\ndef f():\n    pass\n", False),
        ("class C:\n    len = 1\n    def f(self):\n        pass\n", True),
    ],
)
def test_is_builtin(source, builtin):
    assert scope_of(source).is_builtin("len") is builtin


def test_bindings_have_kinds():
    scope = scope_of(
        "def f(a, *b, c, **d):\n    import os\n    def g():\n        pass\n    e = 1\n"
    )
    kinds = {name: type(bindings[0]) for name, bindings in scope.bindings.items()}
    assert kinds["a"] is Argument and kinds["b"] is Argument and kinds["d"] is Argument
    assert kinds["os"] is Importation and kinds["g"] is Definition
    assert kinds["e"].__name__ == "Assignment"


def test_class_scope_holds_its_body_bindings():
    tree = ast.parse(
        "import torch\nclass C:\n    x = 1\n    def m(self):\n        pass\n"
    )
    model = ModuleModel(tree)
    scope = class_scope(tree.body[1], model.module_scope)
    assert isinstance(scope, ClassScope)
    assert set(scope.bindings) == {"x", "m"}
    assert scope.qualified_name(ast.parse("torch.zeros", mode="eval").body) == (
        "torch.zeros"
    )


@pytest.mark.parametrize(
    "text",
    [
        "import torch\n\n\ndef f():\n    x = 1\n    if (torch := 2):\n        pass\n",
        "import torch\r\ndef f():\r\n    if (torch := 2):\r\n        pass\r\n",
        "import torch\n# := in a comment\ndef f():\n    [(torch := 1) for _ in ()]\n",
    ],
)
def test_walrus_found_through_the_text(text):
    tree = ast.parse(text)
    model = ModuleModel(tree, text)
    scope = model.scope(model.functions[0].node)
    assert scope.binds("torch") and scope.imported("torch") is None
