"""Iterating over an ``ast`` node's children, faster than ``ast.iter_child_nodes``.

The same nodes in the same order (each field in ``_fields`` order, lists
item by item), without the generator and ``iter_fields`` layers, and
without looking at the fields that never hold a node (names, identifiers,
flags, constants' values): the walks of the analysis visit every node of
the functions they look at, and this is most of their cost.
"""

from __future__ import annotations

import ast
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Iterator

_AST = ast.AST

#: ``try``/``except*`` (Python 3.11+); plain ``try`` where it does not exist,
#: so that ``(ast.Try, TryStar)`` and the like mean the same on every version.
TryStar: type[ast.stmt] = getattr(ast, "TryStar", ast.Try)

#: Statements holding lists of statements (besides nested scopes).
COMPOUND_STATEMENTS: tuple[type[ast.stmt], ...] = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    TryStar,
    ast.Match,
)

# Fields that hold a string, a number, a constant's value or a list of
# identifiers in every node type that has them (never a node).
_PLAIN_FIELDS = frozenset(
    {
        "id",
        "attr",
        "arg",
        "name",
        "asname",
        "module",
        "level",
        "simple",
        "is_async",
        "conversion",
        "type_comment",
        "kind",
        "tag",
        "kwd_attrs",
        "rest",
    }
)
# Fields that hold no node in these types only.
_PLAIN_IN = {
    ast.Constant: frozenset({"value"}),
    ast.MatchSingleton: frozenset({"value"}),
    ast.Global: frozenset({"names"}),
    ast.Nonlocal: frozenset({"names"}),
}
# Fields in _PLAIN_FIELDS that hold a node in these types (``type X = ...``,
# Python 3.12+, names its alias with a ``Name``).
_NODE_IN = {
    getattr(ast, kind): frozenset({"name"})
    for kind in ("TypeAlias",)
    if hasattr(ast, kind)
}

#: Nodes that hold nothing the analysis walks look for: contexts, operators
#: and constants.
LEAVES = (
    ast.expr_context,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.boolop,
    ast.Constant,
)

#: The fields of each node type that may hold a node or a list of nodes.
NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def node_fields(kind: type) -> tuple[str, ...]:
    """The fields of ``kind`` that may hold a node or a list of nodes."""
    plain = _PLAIN_IN.get(kind, frozenset())
    nodes = _NODE_IN.get(kind, frozenset())
    fields = tuple(
        name
        for name in getattr(kind, "_fields", ())
        if name in nodes or (name not in _PLAIN_FIELDS and name not in plain)
    )
    NODE_FIELDS[kind] = fields
    return fields


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """``list(ast.iter_child_nodes(node))``."""
    kind = type(node)
    fields = NODE_FIELDS.get(kind)
    if fields is None:
        fields = node_fields(kind)
    children: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if value is None:
            continue
        if type(value) is list:
            for item in value:
                if isinstance(item, _AST):
                    children.append(item)
        elif isinstance(value, _AST):
            children.append(value)
    return children


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk(node)``: breadth first, ``node`` itself first. (Each node's
    children are queued as ``child_nodes`` finds them, without its list.)"""
    todo = deque([node])
    popleft = todo.popleft
    append = todo.append
    fields_of = NODE_FIELDS.get
    while todo:
        node = popleft()
        kind = type(node)
        fields = fields_of(kind)
        if fields is None:
            fields = node_fields(kind)
        for name in fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST):
                        append(item)
            elif isinstance(value, _AST):
                append(value)
        yield node


def statements_under(tree: ast.AST) -> Iterator[ast.AST]:
    """Every statement under ``tree`` (and the handlers and ``match`` cases
    that hold blocks of them), by a walk of the blocks only."""
    stack = [tree]
    pop, push = stack.pop, stack.append
    fields_of = _BLOCK_FIELDS
    while stack:
        node = pop()
        kind = type(node)
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = _block_fields(kind)
        for name in fields:
            block = getattr(node, name, None)
            if type(block) is list:
                for child in block:
                    yield child
                    push(child)


#: The fields that may hold a block (of statements, handlers or ``match``
#: cases), in the order ``statements_under`` reads them.
_BLOCK_NAMES = ("body", "orelse", "finalbody", "handlers", "cases")
#: ``_block_fields`` of each node type met (``statements_under``).
_BLOCK_FIELDS: dict[type, tuple[str, ...]] = {}


def _block_fields(kind: type) -> tuple[str, ...]:
    """Those of ``_BLOCK_NAMES`` that are fields of ``kind`` (none of a
    simple statement's)."""
    fields = getattr(kind, "_fields", ())
    return tuple(name for name in _BLOCK_NAMES if name in fields)


def dotted_name(expr: ast.AST) -> str | None:
    """``a.b.c`` as written, for a chain of names and attributes (None
    otherwise)."""
    parts: list[str] = []
    while type(expr) is ast.Attribute:
        parts.append(expr.attr)  # type: ignore[attr-defined]
        expr = expr.value  # type: ignore[attr-defined]
    if type(expr) is not ast.Name:
        return None
    parts.append(expr.id)  # type: ignore[attr-defined]
    return ".".join(reversed(parts))


def callee_name(call: ast.Call) -> str | None:
    """The last name of what ``call`` calls: ``f`` of ``f(x)`` and of
    ``m.f(x)``; None for any other callee (``g()(x)``, ``fs[0](x)``)."""
    func = call.func
    if type(func) is ast.Name:
        return func.id  # type: ignore[attr-defined]
    if type(func) is ast.Attribute:
        return func.attr  # type: ignore[attr-defined]
    return None


def names_bound_by(node: ast.AST) -> tuple[str, ...]:
    """The names a node other than a ``Name`` binds: a ``def``'s or a
    ``class``'s, an import's, an ``except ... as``'s, a ``case`` capture's."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (node.name,)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return tuple(
            (a.asname or a.name).partition(".")[0] for a in node.names if a.name != "*"
        )
    if isinstance(node, ast.ExceptHandler):
        return (node.name,) if node.name else ()
    if isinstance(node, (ast.MatchAs, ast.MatchStar)):
        return (node.name,) if node.name else ()
    if isinstance(node, ast.MatchMapping):
        return (node.rest,) if node.rest else ()
    return ()


#: The fields that hold only contexts or operators (``LEAVES``).
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})
#: The fields of each node type that may hold a node other than a context
#: or an operator.
_INNER_FIELDS: dict[type, tuple[str, ...]] = {}


def string_values(root: ast.AST, rows: list[int] | None = None) -> list[str]:
    """The values of the string constants under ``root`` (itself included),
    in no particular order: those of every ``ast.Constant`` ``walk`` meets,
    found without ``child_nodes`` (a name, a constant, a context or an
    operator is never asked for its children). With ``rows`` (sorted: the
    rows holding a quote, ``'`` or ``"``), a statement none of whose rows
    is one of them (its decorators' included) is not walked: each string
    literal, an f-string's too, holds a quote on the row it starts on,
    within the statement around it."""
    values: list[str] = []
    stack = [root]
    pop, push = stack.pop, stack.append
    fields_of = _INNER_FIELDS
    constant = ast.Constant
    statements = _STATEMENT_TYPES if rows is not None else frozenset()
    while stack:
        node = pop()
        kind = type(node)
        if kind is constant:
            if isinstance(node.value, str):  # type: ignore[attr-defined]
                values.append(node.value)  # type: ignore[attr-defined]
            continue
        if kind in statements and not spans(node, rows):  # type: ignore[arg-type]
            continue
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = tuple(
                name
                for name in NODE_FIELDS.get(kind) or node_fields(kind)
                if name not in _LEAF_FIELDS
            )
        for name in fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST):
                        push(item)
            elif isinstance(value, _AST):
                push(value)
    return values


def span_text(text: str, line_starts: list[int], nodes: list[ast.AST]) -> str:
    """The text from the earliest start of ``nodes`` to their latest end, in
    an ASCII ``text`` (where ``ast``'s UTF-8 byte columns are characters)
    whose rows start at ``line_starts``."""
    start = min((node.lineno, node.col_offset) for node in nodes)  # type: ignore[attr-defined]
    end = max((node.end_lineno, node.end_col_offset) for node in nodes)  # type: ignore[attr-defined]
    return text[line_starts[start[0] - 1] + start[1] : line_starts[end[0] - 1] + end[1]]


def any_row_between(rows: list[int], first: int, last: int) -> bool:
    """Whether the sorted ``rows`` hold one from ``first`` to ``last``."""
    index = bisect_left(rows, first)
    return index < len(rows) and rows[index] <= last


def walk_rows(
    root: ast.AST,
    rows: list[int] | None,
    parents: dict[ast.AST, ast.AST],
    leaves: bool = True,
    wide: dict[ast.AST, WideNode] | None = None,
) -> Iterator[ast.AST]:
    """The nodes under ``root`` (depth first) whose lines span one of ``rows``
    (sorted; None: every node), recording each one's parent. A node on a row
    (a name, an attribute ending there) is found with every ancestor: each
    spans the row too, so the walk is exact where ``rows`` holds every row
    where a node sought may end. Without ``leaves``, the ``LEAVES`` nodes
    (contexts, operators, constants) are neither yielded nor recorded, for
    a walk that looks for none of them nor for their parents; the other
    nodes are the same, in the same order.

    ``wide``, kept by a caller that walks the same tree for many ``rows``,
    remembers the nodes with many children in order of their rows (a
    module's or class's body): their children spanning ``rows`` are then
    found by bisection, not by looking at each (a walk per name of a module
    of thousands of functions took the square of their number)."""
    stack: list[ast.AST] = [root]
    leaf_types = LEAF_TYPES if not leaves else frozenset()
    while stack:
        node = stack.pop()
        known = wide.get(node) if wide is not None and rows is not None else None
        if known is None:
            children = child_nodes(node)
            if rows is not None and wide is not None and len(children) >= _WIDE:
                known = wide[node] = WideNode(children)
        if known is not None:
            for child in known.on_rows(rows):  # type: ignore[arg-type]
                if type(child) not in leaf_types:
                    parents[child] = node
                    stack.append(child)
        elif rows is None:
            for child in children:
                if type(child) not in leaf_types:
                    parents[child] = node
                    stack.append(child)
        else:
            count = len(rows)
            for child in children:
                kind = type(child)
                if kind in leaf_types:
                    continue
                # (``spans``, inline: asked of each child walked)
                first = getattr(child, "lineno", None)
                if first is not None:
                    if kind in _DECORATED:
                        decorators = getattr(child, "decorator_list", None)
                        if decorators:
                            first = min(first, *(d.lineno for d in decorators))
                    index = bisect_left(rows, first)
                    if index == count or rows[index] > (child.end_lineno or first):  # type: ignore[attr-defined]
                        continue
                parents[child] = node
                stack.append(child)
        yield node


_WIDE = 32  # children from which ``walk_rows`` bisects (given ``wide``)


class WideNode:
    """A node's many children, and their first and last rows where those
    rise (the children without a position, an ``arguments``, always
    counting), to tell by bisection which span given rows."""

    __slots__ = ("children", "always", "indices", "firsts", "lasts")

    def __init__(self, children: list[ast.AST]) -> None:
        self.children = children
        self.always: list[int] = []
        self.indices: list[int] = []
        self.firsts: list[int] | None = []
        self.lasts: list[int] = []
        for index, child in enumerate(children):
            first = getattr(child, "lineno", None)
            if first is None:
                self.always.append(index)
                continue
            decorators = getattr(child, "decorator_list", None)
            if decorators:
                first = min(first, *(decorator.lineno for decorator in decorators))
            last = getattr(child, "end_lineno", None) or first
            if self.lasts and (first < self.firsts[-1] or last < self.lasts[-1]):  # type: ignore[index]
                self.firsts = None  # not in rising rows: each is looked at
                return
            self.indices.append(index)
            self.firsts.append(first)  # type: ignore[union-attr]
            self.lasts.append(last)

    def on_rows(self, rows: list[int]) -> list[ast.AST]:
        """The children spanning one of ``rows`` (``spans``), in order: the
        ones from the first ending on or after a row to the last starting on
        or before it."""
        children, firsts = self.children, self.firsts
        if firsts is None:
            return [child for child in children if spans(child, rows)]
        lasts, indices = self.lasts, self.indices
        chosen = set(self.always)
        for row in rows:
            chosen.update(
                indices[position]
                for position in range(
                    bisect_left(lasts, row), bisect_right(firsts, row)
                )
            )
        return [children[index] for index in sorted(chosen)]


def concrete_types(bases: tuple[type, ...]) -> frozenset[type]:
    """The node types deriving from ``bases`` (themselves included)."""
    found: set[type] = set()
    todo = list(bases)
    while todo:
        kind = todo.pop()
        found.add(kind)
        todo.extend(kind.__subclasses__())
    return frozenset(found)


#: The concrete types of ``LEAVES``.
LEAF_TYPES = concrete_types(LEAVES)
#: The concrete statement types.
_STATEMENT_TYPES = concrete_types((ast.stmt,))


#: The node types with decorators (``spans``: a node starts at its first).
_DECORATED = frozenset(
    kind for kind in concrete_types((ast.AST,)) if "decorator_list" in kind._fields
)


def spans(node: ast.AST, rows: list[int]) -> bool:
    first = getattr(node, "lineno", None)
    if first is None:
        return True  # no position (arguments, comprehensions, ...): look inside
    decorators = getattr(node, "decorator_list", None)
    if decorators:  # above the ``def`` or ``class`` line, where lineno points
        first = min(first, *(decorator.lineno for decorator in decorators))
    index = bisect_left(rows, first)
    return index < len(rows) and rows[index] <= (node.end_lineno or first)  # type: ignore[attr-defined]
