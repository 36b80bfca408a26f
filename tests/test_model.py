"""ModuleModel's one walk over the statements: every function, its binding
statements, and the imports, against a plain walk of the whole tree."""

from __future__ import annotations

import ast

import pytest

from lint_rules.analysis.class_hooks import (
    ClassHooks,
    class_statements,
    module_class_hooks,
)
from lint_rules.analysis.flow import FunctionFlow
from lint_rules.analysis.model import ModuleModel
from lint_rules.analysis.tensor_effects import bound_names, own_statements
from tests.fuzzing import valid_program
from tests.test_nodes import EVERY_FORM

_BINDINGS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _expected_bindings(function: ast.AST) -> list[tuple[ast.stmt, bool]]:
    """The function's own binding statements in source order, each with
    whether a loop body (not a loop's else) holds it."""
    found: list[tuple[ast.stmt, bool]] = []

    def visit(statements: list[ast.stmt], in_loop: bool) -> None:
        for stmt in statements:
            if isinstance(stmt, _BINDINGS):
                found.append((stmt, in_loop))
            if isinstance(stmt, _SCOPES):
                continue
            for name, value in ast.iter_fields(stmt):
                if name in ("body", "orelse", "finalbody", "handlers", "cases"):
                    for item in value:
                        if isinstance(item, ast.stmt):
                            looping = in_loop or (
                                isinstance(stmt, _LOOPS) and name == "body"
                            )
                            visit([item], looping)
                        else:  # an except handler or a match case
                            visit(item.body, in_loop)

    visit(function.body, False)  # type: ignore[attr-defined]
    return found


def assert_model_agrees(source: str) -> None:
    tree = ast.parse(source)
    model = ModuleModel(tree)
    functions = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    functions.sort(key=lambda node: (node.lineno, node.col_offset))
    assert [info.node for info in model.functions] == functions
    for info in model.functions:
        assert info.bindings == _expected_bindings(info.node), info.node.name
        rows = [(stmt.lineno, stmt.col_offset) for stmt, _ in info.bindings]
        assert rows == sorted(rows)  # source order
    imports = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
    assert sorted(map(id, model._scan.imports)) == sorted(map(id, imports))
    # Every class statement, those without methods too (``ClassHooks``).
    class_defs = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    assert sorted(map(id, model.class_defs)) == sorted(map(id, class_defs))
    assert sorted(map(id, class_statements(tree))) == sorted(map(id, class_defs))
    # The class hooks of the model's scopes read the scan's class statements,
    # and answer as those of the walk of statements.
    assert model.module_scope.class_defs is model.class_defs
    hooks = module_class_hooks(model.module_scope)
    walked = ClassHooks(class_statements(tree), tree)
    assert (hooks.dunders, hooks.active, hooks.methods) == (
        walked.dunders,
        walked.active,
        walked.methods,
    )
    declared = {
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Global)
        for name in node.names
    }
    assert model._scan.global_names == declared
    enclosing = _enclosing_functions(tree)
    for info in model.functions:
        parent = info.parent.node if info.parent is not None else None
        assert parent is enclosing[info.node], info.node.name
        # The scope's bindings are the names the flow sees stored.
        # (``x: T`` without a value makes x local too, and stores nothing.)
        flow = FunctionFlow(info.node)
        stored = (bound_names(flow) | _annotated_only(info.node)) - flow.globals
        assert set(model.scope(info.node).bindings) == stored, info.node.name


def _annotated_only(function: ast.AST) -> set[str]:
    return {
        stmt.target.id
        for stmt in own_statements(function.body)  # type: ignore[attr-defined]
        if isinstance(stmt, ast.AnnAssign)
        and stmt.value is None
        and isinstance(stmt.target, ast.Name)
    }


def _enclosing_functions(tree: ast.AST) -> dict[ast.AST, ast.AST | None]:
    found: dict[ast.AST, ast.AST | None] = {}

    def visit(node: ast.AST, function: ast.AST | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[child] = function
                visit(child, child)
            elif isinstance(child, ast.Lambda):
                visit(child, function)  # (lambdas are not listed)
            else:
                visit(child, function)

    visit(tree, None)
    return found


def test_every_form():
    assert_model_agrees(EVERY_FORM)


def test_try_parts_in_source_order():
    assert_model_agrees(
        "def f(a):\n"
        "    try:\n        x = a\n"
        "    except ValueError:\n        y = a\n"
        "    else:\n        z = a\n"
        "    finally:\n        w = a\n"
        "    for i in a:\n        u = i\n    else:\n        v = a\n"
        "    match a:\n        case 1:\n            t = a\n"
    )


@pytest.mark.parametrize("seed", range(15))
def test_random_valid_programs(seed):
    assert_model_agrees(valid_program(seed, depth_limit=6, node_limit=2000))


def test_imported_names_holds_every_name_an_import_binds() -> None:
    """``imported_names``: what any import statement of the module binds,
    wherever it is (the shortcut a scope's resolution of an import needs)."""
    text = (
        "import torch\nimport torch.nn.functional\nimport numpy as np\n"
        "from torch import equal as eq, any\nfrom . import local\n"
        "from .rel import thing as other\nfrom os import *\n"
        "def f():\n    import math\n    if x:\n        from a.b import c\n"
        "class K:\n    def m(self):\n        try:\n            import d.e as de\n"
        "        except ImportError:\n            pass\n"
    )
    model = ModuleModel(ast.parse(text))
    assert model.imported_names == {
        "torch", "np", "eq", "any", "local", "other", "math", "c", "de",
    }  # fmt: skip


@pytest.mark.parametrize("seed", range(20))
def test_imported_names_covers_every_scope_resolution(seed: int) -> None:
    """Every name a function's scope resolves to an import is in
    ``imported_names`` (random programs)."""
    tree = ast.parse(valid_program(seed, depth_limit=6, node_limit=2000))
    model = ModuleModel(tree)
    for info in model.functions:
        scope = model.scope(info.node)
        for node in ast.walk(info.node):
            if isinstance(node, ast.Name) and scope.imported(node.id) is not None:
                assert node.id in model.imported_names


_FRAME_READERS = (
    "import sys\ndef f():\n    return sys._getframe(1).f_locals\n",
    "import inspect\ndef f():\n    return inspect.stack()\n",
    "import inspect\ndef f():\n    return inspect.\\\n        trace()\n",
    "from inspect import (\n    signature,\n    stack,\n)\n",
    "from inspect import currentframe as here\n",
    "def f(tb):\n    return (tb\n        .tb_frame)\n",
    "import inspect\ndef f(g):\n    return inspect.signature(g), g.stack\n",
    "import inspect\nfrom other import stack\ndef f(t):\n    return stack(t)\n",
    "x = 1  # f_back\ns = 'walk_stack'\n",
    "import sys\ndef f():\n    return getattr(sys, '_getframe')(1)\n",
    "import operator\nPEEK = operator.attrgetter(\n    'f_locals')\n",
)


@pytest.mark.parametrize("text", _FRAME_READERS)
def test_frames_found_on_rows_as_by_the_whole_walk(text: str) -> None:
    """``_reads_frames`` walking only the rows that name a way to a frame
    answers as the walk of every node does."""
    from lint_rules.config import Settings
    from lint_rules.context import Context

    tree = ast.parse(text)
    ctx = Context(text, tree, "f.py", Settings().options)
    assert ctx.model._rows_naming is not None
    assert ctx.model._reads_frames == ModuleModel(tree)._reads_frames


@pytest.mark.parametrize(
    ("text", "reads"),
    [
        ("import sys\nF = getattr(sys, '_getframe')\n", True),
        ("import operator\nPEEK = operator.attrgetter('f_locals')\n", True),
        ("S = 'f_locals'\n", False),  # a string alone reaches nothing
        ("import sys\nF = getattr(sys, 'argv')\n", False),
    ],
)
def test_a_frame_reached_through_a_name_given_as_a_string(text, reads):
    """``getattr(sys, "_getframe")`` reaches a frame as ``sys._getframe``
    does (differential reproduction 118)."""
    assert ModuleModel(ast.parse(text))._reads_frames is reads


@pytest.mark.parametrize(
    ("source", "dunders", "active"),
    [
        ("class C: pass\nC.__bool__ = f\nC.size = g\n", {"__bool__"}, {"size"}),
        # (a plain name, an attribute of an object that is no class of
        # the module, a data dunder: none binds a method on a class)
        ("class C: pass\nx = f\nself.size = g\nC.__doc__ = 's'\n", set(), set()),
        ("class C: pass\n(C.__len__, y) = f, g\n", {"__len__"}, set()),
        ("class C: pass\nC.a.__iter__ = f\n", {"__iter__"}, set()),
        # A store in a comprehension's target, under a subscript's key.
        ("class C: pass\nd[[0 for C.__eq__ in [f]]] = 1\n", {"__eq__"}, set()),
        ("class C: pass\nC.size: int = g\nC.n += 1\n", set(), {"size", "n"}),
        ("ns['__hash__'] = f\nns.update(__len__=g)\n", {"__hash__", "__len__"}, set()),
        ("D = type('D', (), {'size': f})\nD.count = g\n", set(), {"size", "count"}),
    ],
)
def test_bound_from_outside_reads_every_store_of_a_target(source, dunders, active):
    """What statements outside the class bodies bind on a class: a target
    that is a plain name or ``name.attr`` is read without a walk of it; any
    other is walked (a store may lie deep in it)."""
    from lint_rules.analysis.class_hooks import _bound_from_outside

    tree = ast.parse(source)
    assert _bound_from_outside(tree, set(class_statements_names(tree))) == (
        frozenset(dunders),
        frozenset(active),
    )


def class_statements_names(tree: ast.AST) -> list[str]:
    return [node.name for node in class_statements(tree)]


@pytest.mark.parametrize("with_text", [True, False])
@pytest.mark.parametrize(
    ("source", "dunders"),
    [
        ("class C: pass\nfor C.__bool__ in fs:\n    pass\n", {"__bool__"}),
        (
            "class C: pass\nasync def f():\n    async for C.__len__ in g():\n"
            "        pass\n",
            {"__len__"},
        ),
        ("class C: pass\nwith m() as C.__len__:\n    pass\n", {"__len__"}),
        ("class C: pass\nwith m() as (a, C.__iter__), n():\n    pass\n", {"__iter__"}),
        ("class C: pass\n[0 for C.__eq__ in fs]\n", {"__eq__"}),
        ("class C: pass\n[0for C.__eq__ in fs]\n", {"__eq__"}),  # (a number ends)
        # a comprehension over rows, its target on a row without the ``for``
        ("class C: pass\nx = {k: v for (k,\n  C.__hash__) in\n  fs}\n", {"__hash__"}),
        ("class C: pass\ndef f(a=[0\n  for\n  C.__lt__ in fs]): pass\n", {"__lt__"}),
        ("class C: pass\ny = [[0 for d[\n'__neg__'] in fs]]\n", {"__neg__"}),
        # names only, a ``for`` in a longer word or a comment: nothing bound
        ("class C: pass\n[0 for c in fs]\nfor x in fs: pass\n", set()),
        ("class C: pass\n# for C.__eq__ in fs\nformat = [C.x for _ in fs]\n", set()),
    ],
)
def test_special_methods_bound_by_loop_with_and_comprehension_targets(
    source, dunders, with_text
):
    """A ``for`` loop's, a ``with``'s and a comprehension's target binds on
    a class as an assignment does (differential reproduction 124); the
    comprehensions are found on the rows holding ``for`` where the text is
    known, by a walk of every node where it is not, alike."""
    from lint_rules.analysis.class_hooks import ClassHooks

    tree = ast.parse(source)
    if with_text:
        ModuleModel(tree, source)
    hooks = ClassHooks(class_statements(tree), tree)
    assert hooks.dunders == frozenset(dunders)
