"""child_nodes and walk: the same nodes, in the same order, as the ast module's."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from lint_rules.analysis.nodes import (
    LEAVES,
    child_nodes,
    statements_under,
    string_values,
    walk,
    walk_rows,
)
from lint_rules.analysis.summaries import _QUOTE
from lint_rules.source import Locator
from tests.fuzzing import valid_program

EVERY_FORM = """
import a.b as c, d
from .e import f as g, h
global_name: int = 1
def fn(p, /, q: int = 1, *args: str, r, s=2, **kw) -> None:
    global x
    async def inner():
        async for i in aiter():
            await i
        async with ctx() as (u, v):
            pass
    class K(Base, metaclass=M):
        z = lambda y, *, w=3: y if w else -y
    def nested():
        nonlocal q
    del q
    x: list[int]
    x = [e for e in args if e] + list({k: v for k, v in kw.items()})
    y = {*args, 1} | {a async for a in b} if False else (t for t in ())
    x += 1; x @= m
    assert x, "message"
    with open("f") as handle, other():
        raise ValueError("v") from None
    try:
        pass
    except (TypeError, ValueError) as error:
        print(f"{error!r:>{width}} {x=}")
    else:
        pass
    finally:
        pass
    while not x:
        break
    for i, (j, *k) in enumerate(x):
        continue
    match x:
        case [1, *rest] if rest:
            pass
        case {"k": value, **others}:
            pass
        case Point(x=0, y=yy) | None:
            pass
        case str() as s1:
            pass
        case True:
            pass
        case _:
            pass
    return x[1:2, ::3], b"bytes", ..., (yield), (yield from x), -x, x and not x
@deco("in a decorator")
def strings(a: "Annotated" = {"key": "value", **kw}, *, b=f"{c!r:>{'w'}}") -> "R":
    "the docstring"
    return a["k"] < "z" in ("t",), lambda: "l", [s for s in "abc" if s != "b"]
"""


def assert_same_children(source: str) -> None:
    tree = ast.parse(source)
    assert list(walk(tree)) == list(ast.walk(tree))
    for node in ast.walk(tree):
        assert child_nodes(node) == list(ast.iter_child_nodes(node)), ast.dump(node)
    strings = sorted(
        node.value
        for node in ast.walk(tree)
        if type(node) is ast.Constant and isinstance(node.value, str)
    )
    assert sorted(string_values(tree)) == strings
    # Walking only the statements on the rows holding a quote finds them all.
    assert sorted(string_values(tree, Locator(source).rows_matching(_QUOTE))) == strings


def test_string_values_skips_statements_off_the_rows():
    tree = ast.parse('x = "a"\n@d("b")\ndef f():\n    return "c"\n')
    assert string_values(tree, []) == []
    assert sorted(string_values(tree, [1])) == ["a"]
    # (a decorator's row counts for its function)
    assert sorted(string_values(tree, [2])) == ["b"]
    # (a walked statement's expressions are walked whole)
    assert sorted(string_values(tree, [4])) == ["b", "c"]


def test_every_form():
    assert_same_children(EVERY_FORM)


# Forms that need a given Python at least, each checked where it parses.
VERSIONED_FORMS = {
    (3, 10): (
        "match p:\n    case P(x=0) | [1, *_] | {'k': v, **r} if v:\n        pass\n"
    ),
    (3, 11): "try:\n    pass\nexcept* (TypeError, ValueError) as group:\n    raise\n",
    (3, 12): "type Alias[T: int, *Ts, **P] = list[T]\ndef g[T](x: T) -> T: ...\n",
    (3, 13): "def h[T = int](): pass\n",
}


def test_versioned_forms_of_this_python():
    forms = [
        form for version, form in VERSIONED_FORMS.items() if sys.version_info >= version
    ]
    assert forms
    for form in forms:
        assert_same_children(form)


def test_the_ast_module_itself():
    assert_same_children(Path(ast.__file__).read_text(encoding="utf-8"))


@pytest.mark.parametrize("seed", range(20))
def test_random_valid_programs(seed):
    assert_same_children(valid_program(seed, depth_limit=6, node_limit=2000))


def _blocks_walked(tree: ast.AST) -> list[ast.AST]:
    """Every statement, handler and ``match`` case under ``tree``, read off
    each node's block fields by name (what ``statements_under`` gives, in
    its order)."""
    found: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if type(block) is list:
                found.extend(block)
                stack.extend(block)
    return found


@pytest.mark.parametrize("seed", range(10))
def test_statements_under_reads_each_type_s_block_fields(seed):
    """``statements_under`` reads only the block fields of each node type:
    the same statements, in the same order, as a look at every name."""
    sources = [EVERY_FORM, valid_program(seed, depth_limit=6, node_limit=2000)]
    sources += [
        form for version, form in VERSIONED_FORMS.items() if sys.version_info >= version
    ]
    for source in sources:
        tree = ast.parse(source)
        expected = _blocks_walked(tree)
        assert list(statements_under(tree)) == expected
        for node in expected:
            assert list(statements_under(node)) == _blocks_walked(node)


def test_hand_built_nodes_with_missing_fields():
    call = ast.Call(func=ast.Name(id="f", ctx=ast.Load()), args=[])
    assert child_nodes(call) == list(ast.iter_child_nodes(call))


def assert_walk_without_leaves(source: str) -> None:
    """``walk_rows`` without leaves: the full walk's other nodes, in order,
    with their parents, for every row and for a few row subsets."""
    tree = ast.parse(source)
    last = max(getattr(node, "end_lineno", 0) or 0 for node in ast.walk(tree))
    for rows in (None, [1], list(range(2, last + 1, 3)), [last]):
        full_parents: dict = {}
        full = [
            node
            for node in walk_rows(tree, rows, full_parents)
            if not isinstance(node, LEAVES)
        ]
        parents: dict = {}
        assert list(walk_rows(tree, rows, parents, leaves=False)) == full
        assert parents == {
            child: parent
            for child, parent in full_parents.items()
            if not isinstance(child, LEAVES)
        }


def test_walk_without_leaves_every_form():
    assert_walk_without_leaves(EVERY_FORM)


@pytest.mark.parametrize("seed", range(10))
def test_walk_without_leaves_random_programs(seed):
    assert_walk_without_leaves(valid_program(seed, depth_limit=6, node_limit=2000))


def assert_walk_with_wide_nodes(source: str) -> None:
    """``walk_rows`` with ``wide`` (the bisection of many children): the same
    nodes in the same order with the same parents, one memo reused across
    row sets, with and without leaves."""
    tree = ast.parse(source)
    last = max(getattr(node, "end_lineno", 0) or 0 for node in ast.walk(tree))
    for leaves in (True, False):
        wide: dict = {}
        for rows in ([1], list(range(2, last + 1, 3)), [last], [3, 40, last - 2]):
            plain_parents: dict = {}
            plain = list(walk_rows(tree, rows, plain_parents, leaves))
            parents: dict = {}
            assert list(walk_rows(tree, rows, parents, leaves, wide)) == plain
            assert parents == plain_parents


def test_walk_with_wide_nodes_every_form():
    assert_walk_with_wide_nodes(EVERY_FORM)


def test_walk_with_wide_nodes_many_definitions():
    # Decorated definitions start above their ``def``; one-line ones share
    # no row; a call with many arguments spans several rows.
    parts = []
    for index in range(60):
        if index % 3 == 0:
            parts.append(
                f"@deco({index})\ndef _f{index}(x):\n    return _f{index}(x)\n"
            )
        elif index % 3 == 1:
            parts.append(f"x{index} = 1; y{index} = x{index}\n")
        else:
            args = ",\n    ".join(f"a{k}" for k in range(40))
            parts.append(f"g(\n    {args}\n)\n")
    assert_walk_with_wide_nodes("".join(parts))


@pytest.mark.parametrize("seed", range(5))
def test_walk_with_wide_nodes_random_programs(seed):
    assert_walk_with_wide_nodes(valid_program(seed, depth_limit=6, node_limit=2000))
