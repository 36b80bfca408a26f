"""Scopes and their bindings, in the pyflakes way: who is a name?

A module, each class body and each function is a scope; each binds names:
parameters, assignments (any target: ``=``, ``+=``, ``for``, ``with ... as``,
``except ... as``, ``del``, ``:=``, ``match`` captures, annotations), ``def``
and ``class`` statements, and imports (``import torch`` in a function binds
``torch`` there only). A load of a name in a function sees the function's
own binding if it has one, else that of the nearest enclosing function, else
the module's, else the builtin of that name; class bodies are skipped, as
Python does. ``global`` and ``nonlocal`` declarations send a name to the
module or an enclosing function.

Rules ask a scope who a name is: ``qualified_name(expr)`` says which
imported object an expression names (``th.zeros`` -> ``torch.zeros``,
``zeros`` after ``from torch import zeros``), None when the name is bound
otherwise (a parameter or a local that shadows ``torch``) or not an import;
``is_builtin(name)`` says whether it is Python's builtin. A name bound more
than once counts as an import only when every binding imports the same
object (or binds ``None``, the fallback of an optional import).

Scopes are built when first asked for, from the statements of their own code
(expressions are walked only for ``:=``, and only where the text has one).
``ImportMap`` stays beside them as the module-wide shortcut the rules' text
pre-filters use.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterable, Iterator

from lint_rules.analysis.nodes import TryStar, child_nodes, concrete_types
from lint_rules.analysis.nodes import walk as walk_nodes
from lint_rules.records import Record

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


class Binding(Record):
    """A name bound by ``node`` (a statement, argument, handler or pattern)."""

    __slots__ = ("name", "node")
    _fields = __slots__

    def __init__(self, name: str, node: ast.AST) -> None:
        self.name = name
        self.node = node


class Argument(Binding):
    """A parameter of the function."""

    __slots__ = ()


class Assignment(Binding):
    """Any other binding of a value: ``=``, ``for``, ``with``, ``except``,
    ``:=``, ``del``, a ``match`` capture, an annotation."""

    __slots__ = ()

    @property
    def binds_none(self) -> bool:
        """``name = None`` (the fallback of an optional import)."""
        node = self.node
        return (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and node.value.value is None
        )


class Definition(Binding):
    """A ``def`` or ``class`` statement."""

    __slots__ = ()


class Importation(Binding):
    """An import: ``qualified`` is the dotted name of what it binds
    (``torch``, ``torch.nn.functional``, ``torch.zeros``), None for a
    relative import."""

    __slots__ = ("qualified",)
    _fields = ("name", "node", "qualified")

    def __init__(self, name: str, node: ast.AST, qualified: str | None) -> None:
        super().__init__(name, node)
        self.qualified = qualified


class Scope:
    """The bindings of one scope, and the scope its free names come from."""

    kind = "scope"

    def __init__(self, node: ast.AST, parent: Scope | None) -> None:
        self.node = node
        self._parent = parent
        self.bindings: dict[str, list[Binding]] = {}
        self.declared_global: set[str] = set()
        self.declared_nonlocal: set[str] = set()
        self.star_import = False
        self._imported: dict[str, str | None] = {}  # answers of ``imported``

    @property
    def parent(self) -> Scope | None:
        return self._parent

    def release(self) -> None:
        """Forget the enclosing scope (and how to make it): a model's scopes
        refer to each other and to the model, a cycle to break when done."""
        self._parent = None

    def add(self, binding: Binding) -> None:
        self.bindings.setdefault(binding.name, []).append(binding)

    # -- who is a name ------------------------------------------------------

    def lookup(self, name: str) -> tuple[Scope | None, list[Binding]]:
        """The scope whose bindings a load of ``name`` here sees, and those
        bindings; (None, []) for a builtin. A module with ``import *`` may
        bind any name: (that module, []) then."""
        scope: Scope | None = self
        if name in self.declared_global:
            scope = self.module
        elif name in self.declared_nonlocal:
            scope = self.parent
        first = True
        while scope is not None:
            if (first or scope.kind != "class") and name in scope.bindings:
                return scope, scope.bindings[name]
            if scope.star_import:
                return scope, []
            first = False
            scope = scope.parent
        return None, []

    @property
    def module(self) -> Scope:
        scope: Scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def is_builtin(self, name: str) -> bool:
        """Whether ``name`` here is Python's builtin of that name (no scope
        binds it, no ``import *`` may)."""
        scope, _ = self.lookup(name)
        return scope is None

    def imported(self, name: str) -> str | None:
        """The dotted name ``name`` was imported as, when every binding it
        has here is an import of that (or ``None``); else None."""
        cache = self._imported
        if name in cache:
            return cache[name]
        found = cache[name] = self._imported_as(name)
        return found

    def _imported_as(self, name: str) -> str | None:
        _, bindings = self.lookup(name)
        found: str | None = None
        for binding in bindings:
            if isinstance(binding, Importation):
                if binding.qualified is None:
                    return None
                if found is not None and found != binding.qualified:
                    return None
                found = binding.qualified
            elif not (isinstance(binding, Assignment) and binding.binds_none):
                return None
        return found

    def qualified_name(self, expr: ast.AST) -> str | None:
        """``torch.zeros`` for ``th.zeros`` / ``zeros`` / ``torch.zeros`` when
        the root name is such an import here; else None."""
        parts: list[str] = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        base = self.imported(expr.id)
        if base is None:
            return None
        parts.append(base)
        return ".".join(reversed(parts))

    def binds(self, name: str) -> bool:
        """Whether this scope itself binds ``name``."""
        return name in self.bindings

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {sorted(self.bindings)}>"


class ModuleScope(Scope):
    kind = "module"
    #: Every class statement of the module, where the scope's maker has
    #: them (a model's statement scan); None: not collected.
    class_defs: list[ast.ClassDef] | None = None
    #: Every import statement of the module, where the scope's maker has
    #: them (the same scan); None: not collected.
    import_statements: list[ast.Import | ast.ImportFrom] | None = None


class ClassScope(Scope):
    kind = "class"


class FunctionScope(Scope):
    """A function's scope; its enclosing scope is made when first needed."""

    kind = "function"

    def __init__(self, node: ast.AST, parent_factory) -> None:
        super().__init__(node, None)
        self._parent_factory = parent_factory

    def release(self) -> None:
        super().release()
        self._parent_factory = None

    @property
    def parent(self) -> Scope | None:
        if self._parent is None and self._parent_factory is not None:
            self._parent = self._parent_factory()
            self._parent_factory = None
        return self._parent


# --------------------------------------------------------------------------- building


#: Rows that may hold a ``:=``: every row (None), or the sorted rows where
#: the text has one (a binding there must be looked for in expressions).
WalrusRows = list[int] | None


def module_scope(
    tree: ast.Module,
    global_names: Iterable[str] = (),
    walrus: WalrusRows = None,
    class_defs: list[ast.ClassDef] | None = None,
    import_statements: list[ast.Import | ast.ImportFrom] | None = None,
) -> ModuleScope:
    """The module's scope: its own statements' bindings, and the names that
    functions declare ``global`` (``global_names``), which they may bind;
    ``class_defs``, every class statement of the module where the caller
    has them, is kept (``ModuleScope.class_defs``), as are
    ``import_statements``, every import statement
    (``ModuleScope.import_statements``)."""
    scope = ModuleScope(tree, None)
    scope.class_defs = class_defs
    scope.import_statements = import_statements
    _bind_statements(scope, tree.body, walrus)
    for name in global_names:
        scope.add(Assignment(name, tree))
    return scope


def class_scope(
    node: ast.ClassDef, parent: Scope, walrus: WalrusRows = None
) -> ClassScope:
    scope = ClassScope(node, parent)
    _bind_statements(scope, node.body, walrus)
    return scope


def function_scope(
    node: ast.AST, parent_factory, walrus: WalrusRows = None
) -> FunctionScope:
    """The scope of a function or lambda; ``parent_factory()`` makes the
    enclosing scope (class bodies left out) when a name is not bound here."""
    scope = FunctionScope(node, parent_factory)
    args = node.args  # type: ignore[attr-defined]
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        scope.add(Argument(arg.arg, arg))
    for arg in (args.vararg, args.kwarg):
        if arg is not None:
            scope.add(Argument(arg.arg, arg))
    body = node.body  # type: ignore[attr-defined]
    if isinstance(body, list):
        _bind_statements(scope, body, walrus)
    elif _may_hold_walrus(node, walrus):  # a lambda
        _bind_walrus(scope, body)
    return scope


def _bind_statements(scope: Scope, body: list[ast.stmt], walrus: WalrusRows) -> None:
    add = scope.add
    for stmt in _own_statements(body):
        kind = type(stmt)
        if kind is ast.Assign:
            for target in stmt.targets:  # type: ignore[attr-defined]
                if type(target) is ast.Name:  # (what ``_bind_target`` does)
                    add(Assignment(target.id, stmt))  # type: ignore[attr-defined]
                else:
                    _bind_target(scope, target, stmt)
        elif kind not in _MAY_BIND:
            pass  # (calls, returns...: only a ``:=`` in them may bind)
        elif kind is ast.AugAssign or kind is ast.AnnAssign:
            _bind_target(scope, stmt.target, stmt)  # type: ignore[attr-defined]
        elif kind is ast.For or kind is ast.AsyncFor:
            _bind_target(scope, stmt.target, stmt)  # type: ignore[attr-defined]
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in stmt.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    _bind_target(scope, item.optional_vars, stmt)
        elif kind is ast.Try or kind is TryStar:
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                if handler.name:
                    scope.add(Assignment(handler.name, handler))
        elif kind is ast.Import:
            for alias in stmt.names:  # type: ignore[attr-defined]
                if alias.asname:
                    scope.add(Importation(alias.asname, stmt, alias.name))
                else:
                    head = alias.name.partition(".")[0]
                    scope.add(Importation(head, stmt, head))
        elif kind is ast.ImportFrom:
            module = stmt.module if not stmt.level else None  # type: ignore[attr-defined]
            for alias in stmt.names:  # type: ignore[attr-defined]
                if alias.name == "*":
                    scope.star_import = True
                    continue
                qualified = f"{module}.{alias.name}" if module else None
                scope.add(Importation(alias.asname or alias.name, stmt, qualified))
        elif kind in _DEFINITIONS:
            scope.add(Definition(stmt.name, stmt))  # type: ignore[attr-defined]
        elif kind is ast.Delete:
            for target in stmt.targets:  # type: ignore[attr-defined]
                _bind_target(scope, target, stmt)
        elif kind is ast.Global:
            scope.declared_global.update(stmt.names)  # type: ignore[attr-defined]
        elif kind is ast.Nonlocal:
            scope.declared_nonlocal.update(stmt.names)  # type: ignore[attr-defined]
        elif kind is ast.Match:
            for case in stmt.cases:  # type: ignore[attr-defined]
                for node in walk_nodes(case.pattern):
                    name = getattr(node, "name", None) or getattr(node, "rest", None)
                    if isinstance(name, str):
                        scope.add(Assignment(name, node))
        elif kind is _TYPE_ALIAS:
            _bind_target(scope, stmt.name, stmt)  # type: ignore[attr-defined]
        if _may_hold_walrus(stmt, walrus):
            _bind_walrus(scope, stmt)
    # Declared names are bound elsewhere, whatever this scope does with them.
    for name in scope.declared_global | scope.declared_nonlocal:
        scope.bindings.pop(name, None)


def _bind_target(scope: Scope, target: ast.AST, stmt: ast.AST) -> None:
    kind = type(target)
    if kind is ast.Name:
        scope.add(Assignment(target.id, stmt))  # type: ignore[attr-defined]
    elif kind is ast.Tuple or kind is ast.List:
        for element in target.elts:  # type: ignore[attr-defined]
            _bind_target(scope, element, stmt)
    elif kind is ast.Starred:
        _bind_target(scope, target.value, stmt)  # type: ignore[attr-defined]


def _may_hold_walrus(node: ast.AST, rows: WalrusRows) -> bool:
    """Whether ``node`` spans a row that may hold a ``:=``."""
    if rows is None:
        return True
    if not rows:
        return False
    first = node.lineno  # type: ignore[attr-defined]
    index = bisect.bisect_left(rows, first)
    return index < len(rows) and rows[index] <= (node.end_lineno or first)  # type: ignore[attr-defined]


def _bind_walrus(scope: Scope, root: ast.AST) -> None:
    """Names bound by ``:=`` in the expressions ``root`` evaluates in this
    scope (comprehensions included: ``:=`` there binds here)."""
    stack = [root] if not isinstance(root, ast.stmt) else _statement_parts(root)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.NamedExpr):
            scope.add(Assignment(node.target.id, node))
        if isinstance(node, _NESTED_BODIES):
            continue
        stack.extend(child_nodes(node))


def _statement_parts(stmt: ast.stmt) -> list[ast.AST]:
    """The expressions a statement evaluates itself (not its body's statements;
    for a nested ``def`` or ``class``, its decorators, defaults and bases)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = stmt.args
        return [
            *stmt.decorator_list,
            *args.defaults,
            *(d for d in args.kw_defaults if d is not None),
        ]
    if isinstance(stmt, ast.ClassDef):
        return [*stmt.decorator_list, *stmt.bases, *stmt.keywords]
    if isinstance(stmt, (ast.Try, TryStar)):
        return [h.type for h in stmt.handlers if h.type is not None]  # type: ignore[attr-defined]
    if isinstance(stmt, ast.Match):
        return [stmt.subject, *(c.guard for c in stmt.cases if c.guard is not None)]
    return [child for child in child_nodes(stmt) if not isinstance(child, ast.stmt)]


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a scope's own code: compound statements' bodies
    included, nested functions' and classes' not."""
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if type(stmt) not in _HOLDING_STATEMENTS:
            continue  # a simple statement, or a nested scope
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if block and isinstance(block[0], ast.stmt):
                stack.extend(reversed(block))
        for part in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
            stack.extend(reversed(part.body))


_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
# The statement types with a list of statements (``if``, ``for``, ``try``...),
# nested scopes' definitions left out: ``_own_statements`` looks into these only.
_HOLDING_STATEMENTS = (
    frozenset(
        kind
        for kind in concrete_types((ast.stmt,))
        if {"body", "orelse", "finalbody", "handlers", "cases"} & set(kind._fields)
    )
    - _DEFINITIONS
)
_NESTED_BODIES = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_TYPE_ALIAS = getattr(ast, "TypeAlias", None)
# The statement types ``_bind_statements`` binds names for besides ``Assign``
# (each one of its branches).
_MAY_BIND = frozenset(
    {
        ast.AugAssign,
        ast.AnnAssign,
        ast.For,
        ast.AsyncFor,
        ast.With,
        ast.AsyncWith,
        ast.Try,
        TryStar,
        ast.Import,
        ast.ImportFrom,
        *_DEFINITIONS,
        ast.Delete,
        ast.Global,
        ast.Nonlocal,
        ast.Match,
        *((_TYPE_ALIAS,) if _TYPE_ALIAS is not None else ()),
    }
)
