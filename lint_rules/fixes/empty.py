"""The zeros -> empty rewrite that ATN101 and ATN102 share: an allocation
of the zero-filled family becomes its uninitialized counterpart, with the
import it needs, the fill argument removed and the dtype ``full`` inferred
from it written out."""

from __future__ import annotations

import ast
from bisect import bisect_right

from lint_rules.analysis.imports import ImportMap
from lint_rules.analysis.nodes import walk as walk_nodes
from lint_rules.analysis.summaries import module_summaries
from lint_rules.analysis.tensor_effects import EMPTY_COUNTERPART, Allocation
from lint_rules.diagnostics import Applicability, Edit, Fix

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.context import Context


class EmptyRewriter:
    """Builds the zeros -> empty fix for allocations in one file."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._identifiers: set[str] | None = None
        self._module_imports: dict[int, ImportMap] = {}
        #: The module's statements' positions, and the index of the one that
        #: holds the allocation being fixed (its imports must come before).
        self._starts: list[tuple[int, int]] | None = None
        self._holder = 0
        self._bound_otherwise: set[str] | None = None
        self._import_targets: dict[str, set[str]] | None = None
        #: Module-level names the fix reads that the allocation did not.
        self._globals_named: list[str] = []

    @property
    def identifiers(self) -> set[str]:
        """Every name bound or used anywhere in the module."""
        if self._identifiers is None:
            self._identifiers = _module_identifiers(self.ctx.tree)
        return self._identifiers

    def fix(self, allocation: Allocation, applicability: Applicability) -> Fix | None:
        """The rewrite of ``allocation`` to its uninitialized counterpart, or
        None when it cannot be written without changing meaning; unsafe
        whatever ``applicability`` says when the counterpart may not be the
        same tensor (``allocation.uncertain``)."""
        if allocation.uncertain is not None:
            applicability = Applicability.UNSAFE
        new = EMPTY_COUNTERPART[allocation.function]
        self._globals_named = []
        call = allocation.call
        self._holder = self._statement_index(call)
        locator = self.ctx.locator
        edits: list[Edit] = []
        func = call.func
        if isinstance(func, ast.Attribute):
            end = locator.end(func)
            edits.append(Edit(end - len(func.attr), end, new))
            shown = new if allocation.method else f"torch.{new}"
        elif isinstance(func, ast.Name):
            found = self._name_for(func.id, new)
            if found is None:
                return None
            local, import_edits = found
            edits.append(Edit(locator.start(func), locator.end(func), local))
            edits.extend(import_edits)
            shown = local
        else:
            return None
        if allocation.fill is not None:
            fill_edit = self._fill_edit(allocation)
            if fill_edit is None:
                return None
            edits.append(fill_edit)
        if allocation.none_dtype is not None:
            # ``dtype=None`` asked for the fill's dtype: name it.
            module = self._torch_module(None if allocation.method else call)
            if module is None:
                return None
            value = allocation.none_dtype.value
            edits.append(
                Edit(
                    locator.start(value),
                    locator.end(value),
                    f"{module}.{allocation.inferred_dtype}",
                )
            )
        message = f"Replace `{allocation.display}` with `{shown}`"
        if self._globals_named and self._reaches_namespace():
            # ``globals()["empty"] = g``, ``exec("torch = ...")``: a name of
            # the module the call did not read may be rebound with no
            # statement that binds it.
            applicability = Applicability.UNSAFE
            names = " and ".join(f"`{name}`" for name in self._globals_named)
            message += (
                f" (this module reaches its own namespace, through `globals()`, "
                f"`vars()`, `exec` or the like, which may rebind {names})"
            )
        return Fix(tuple(edits), applicability, message)

    def _reaches_namespace(self) -> bool:
        return module_summaries(self.ctx.model).reaches_namespace()

    # -- the allocator's new name ----------------------------------------------

    @property
    def module_imports(self) -> ImportMap:
        """Imports that bind names for the whole module by the time the
        allocation's code can run: statements of the module's own body, which
        always run (not inside a function, where another function cannot see
        them, nor under an ``if``, ``try`` or ``except``, which may not run:
        ``if TYPE_CHECKING: from torch import empty`` binds nothing when the
        program runs), and that come before the statement holding the
        allocation (a function the module calls while it is imported runs
        before a later import has bound its name)."""
        found = self._module_imports.get(self._holder)
        if found is None:
            found = self._module_imports[self._holder] = ImportMap.from_statements(
                stmt
                for stmt in self.ctx.tree.body[: self._holder]
                if isinstance(stmt, (ast.Import, ast.ImportFrom))
            )
        return found

    def _statement_index(self, node: ast.expr) -> int:
        """The index, in the module's body, of the statement holding ``node``."""
        if self._starts is None:
            self._starts = [
                (stmt.lineno, stmt.col_offset) for stmt in self.ctx.tree.body
            ]
        return bisect_right(self._starts, (node.lineno, node.col_offset)) - 1

    def _name_for(self, local: str, new: str) -> tuple[str, list[Edit]] | None:
        """The local name to call ``torch.<new>`` by, and the import edits it needs."""
        # A module-level name is what the call sees only where no function,
        # parameter, comprehension or other binding of the module takes it
        # (``def f(y, empty=...)`` would call the parameter).
        if self.star_imported:
            return None  # ``from m import *`` may bind any name, later too
        existing = [
            name
            for name in self.module_imports.local_names_for(f"torch.{new}")
            if name not in self.bound_otherwise
            and self.import_targets.get(name) == {f"torch.{new}"}
        ]
        if existing:
            self._globals_named.append(existing[0])
            return existing[0], []
        if new not in self.identifiers:
            edits = [
                _add_import_name(stmt, new, self.ctx)
                for stmt in _imports_binding(self.ctx.tree, local)
            ]
            if edits:
                self._globals_named.append(new)
                return new, edits
        module = self._torch_module()
        if module is not None:
            return f"{module}.{new}", []
        return None

    def _torch_module(self, call: ast.Call | None = None) -> str | None:
        """A name bound to ``torch`` itself (``torch``, ``th``) where ``call``
        is: the one the call is made through (``th.full(...)``, which the
        call's scope said is torch), else one the module imports that
        nothing else in the module binds."""
        if call is not None:
            func = call.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                return func.value.id
        if self.star_imported:
            return None
        for local, module in self.module_imports.modules.items():
            if (
                module == "torch"
                and local not in self.bound_otherwise
                and self.import_targets.get(local) == {"torch"}
            ):
                if local not in self._globals_named:
                    self._globals_named.append(local)
                return local
        return None

    @property
    def import_targets(self) -> dict[str, set[str]]:
        """What each module-level import binds each name to, over every
        such import (``from torch import empty`` and a later ``import os as
        empty`` give ``empty`` two: the call may see either)."""
        if self._import_targets is None:
            self._import_targets = _import_targets(self.ctx.tree)
        return self._import_targets

    @property
    def star_imported(self) -> bool:
        """Whether the module runs a star import, which may bind any name."""
        return "*" in self.bound_otherwise

    @property
    def bound_otherwise(self) -> set[str]:
        """Names something in the module binds other than an import at module
        level: a parameter, an assignment, a ``def``, a comprehension's
        target, an import inside a function, a star import's any name."""
        if self._bound_otherwise is None:
            self._bound_otherwise = _bound_otherwise(self.ctx.tree)
        return self._bound_otherwise

    # -- the fill argument -----------------------------------------------------

    def _fill_edit(self, allocation: Allocation) -> Edit | None:
        fill = allocation.fill
        assert fill is not None
        text = self.ctx.text
        locator = self.ctx.locator
        start, end = locator.start(fill), locator.end(fill)
        if isinstance(fill, ast.expr):
            start, end = _unparenthesize(text, start, end)
        if allocation.inferred_dtype is not None and allocation.none_dtype is None:
            module = self._torch_module(None if allocation.method else allocation.call)
            if module is None:
                return None
            return Edit(start, end, f"dtype={module}.{allocation.inferred_dtype}")
        call = allocation.call
        following = [
            locator.start(node)
            for node in (*call.args, *call.keywords)
            if locator.start(node) > start
        ]
        return _remove_argument(text, start, end, bool(following))


def _remove_argument(text: str, start: int, end: int, has_next: bool) -> Edit | None:
    """Remove the argument at ``[start, end)`` and one comma next to it."""
    previous = _previous_comma(text, start)
    if not has_next:
        if previous is None:
            return None
        return Edit(previous, end, "")  # ``, 0`` (a trailing comma stays)
    comma = _next_comma(text, end)
    if comma is None:
        return None
    cursor = comma + 1
    while cursor < len(text) and text[cursor] in " \t":
        cursor += 1
    line_start = text.rfind("\n", 0, start) + 1
    starts_line = not text[line_start:start].strip()
    at_line_end = cursor >= len(text) or text[cursor] in "#\r\n"
    if at_line_end and starts_line:
        # The argument has its own line: drop that line.
        newline = text.find("\n", cursor)
        if newline < 0:
            return None
        return Edit(line_start, newline + 1, "")
    if at_line_end and previous is not None:
        return Edit(previous, comma, "")  # ``(n,), 0,\n``: keep the line break
    return Edit(start, cursor, "")


def _previous_comma(text: str, position: int) -> int | None:
    cursor = position - 1
    while cursor >= 0 and text[cursor] in " \t\r\n\\":
        cursor -= 1
    return cursor if cursor >= 0 and text[cursor] == "," else None


def _next_comma(text: str, position: int) -> int | None:
    cursor = position
    while cursor < len(text):
        char = text[cursor]
        if char == ",":
            return cursor
        if char == "#":
            newline = text.find("\n", cursor)
            cursor = len(text) if newline < 0 else newline
            continue
        if char not in " \t\r\n\\":
            return None
        cursor += 1
    return None


def _unparenthesize(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen ``[start, end)`` over parentheses that wrap just this expression."""
    while True:
        before = start - 1
        while before >= 0 and text[before] in " \t\r\n":
            before -= 1
        after = end
        while after < len(text) and text[after] in " \t\r\n":
            after += 1
        if before < 0 or after >= len(text):
            return start, end
        if text[before] != "(" or text[after] != ")":
            return start, end
        # ``f(0)`` would also match: the call's own parentheses follow a name.
        preceding = before - 1
        while preceding >= 0 and text[preceding] in " \t":
            preceding -= 1
        if preceding >= 0 and (text[preceding].isalnum() or text[preceding] in "_)]"):
            return start, end
        start, end = before, after + 1


def _module_level_imports(tree: ast.Module):
    """Import statements run at module level (also inside ``if``/``try``)."""
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif not isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            for block in (
                getattr(node, "body", None),
                getattr(node, "orelse", None),
                getattr(node, "finalbody", None),
                *(handler.body for handler in getattr(node, "handlers", ())),
            ):
                if block and isinstance(block[0], ast.stmt):
                    stack.extend(reversed(block))


def _import_targets(tree: ast.Module) -> dict[str, set[str]]:
    """For each name a module-level import binds, what it binds it to:
    ``torch`` for ``import torch`` and ``import torch.nn``, ``torch.empty``
    for ``from torch import empty``, ``os`` for ``import os as empty``."""
    targets: dict[str, set[str]] = {}
    for node in _module_level_imports(tree):
        for alias in node.names:
            if isinstance(node, ast.Import):
                if alias.asname:
                    local, target = alias.asname, alias.name
                else:
                    local = target = alias.name.partition(".")[0]
            elif alias.name == "*":
                continue  # ``bound_otherwise`` has it
            else:
                local = alias.asname or alias.name
                target = f"{'.' * node.level}{node.module or ''}.{alias.name}"
            targets.setdefault(local, set()).add(target)
    return targets


def _imports_binding(tree: ast.Module, local: str) -> list[ast.ImportFrom]:
    """``from torch import ...`` statements that bind ``local``."""
    found = []
    for node in walk_nodes(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "torch"
            and not node.level
        ):
            if any((alias.asname or alias.name) == local for alias in node.names):
                found.append(node)
    return found


def _member_order(name: str) -> tuple[int, str]:
    """isort's order within one ``from`` import: CONSTANTS, Classes, functions."""
    if name.isupper() and len(name) > 1:
        return 0, name
    if name[:1].isupper():
        return 1, name
    return 2, name


def _add_import_name(stmt: ast.ImportFrom, name: str, ctx: Context) -> Edit:
    """An insertion that adds ``name`` to ``stmt``, in sorted place if it is sorted."""
    locator = ctx.locator
    text = ctx.text
    aliases = stmt.names
    keys = [_member_order(alias.name) for alias in aliases]
    position = len(aliases)
    if keys == sorted(keys):
        key = _member_order(name)
        position = next((i for i, k in enumerate(keys) if k > key), len(aliases))
    parenthesized = "(" in text[locator.start(stmt) : locator.start(aliases[0])]

    def own_line(alias: ast.alias) -> str | None:
        """The indentation of ``alias`` when it starts its line in parentheses."""
        start = locator.start(alias)
        line_start = locator.line_start(alias.lineno)
        prefix = text[line_start:start]
        return prefix if parenthesized and not prefix.strip() else None

    if position < len(aliases):
        alias = aliases[position]
        indent = own_line(alias)
        insert = f"{name},\n{indent}" if indent is not None else f"{name}, "
        start = locator.start(alias)
        return Edit(start, start, insert)
    last = aliases[-1]
    indent = own_line(last)
    insert = f",\n{indent}{name}" if indent is not None else f", {name}"
    end = locator.end(last)
    return Edit(end, end, insert)


def _module_identifiers(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in walk_nodes(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).partition(".")[0])
        else:
            names.update(_other_bindings(node))
    return names


def _bound_otherwise(tree: ast.Module) -> set[str]:
    """Names bound anywhere in ``tree`` other than by an import statement run
    at module level (see :meth:`EmptyRewriter.bound_otherwise`)."""
    module_level = {id(stmt) for stmt in _module_level_imports(tree)}
    names: set[str] = set()
    for node in walk_nodes(tree):
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if id(node) not in module_level:
                for alias in node.names:
                    names.add((alias.asname or alias.name).partition(".")[0])
            elif any(alias.name == "*" for alias in node.names):
                names.add("*")
        else:
            names.update(_other_bindings(node))
    return names


def _other_bindings(node: ast.AST) -> tuple[str, ...]:
    """The names ``node`` binds otherwise than as a ``Name`` or by an import:
    a parameter, a ``def`` or ``class``, ``global``/``nonlocal``, an
    ``except ... as`` and the captures of a ``match`` pattern."""
    if isinstance(node, ast.arg):
        return (node.arg,)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (node.name,)
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return tuple(node.names)
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return (node.name,) if node.name else ()
    if isinstance(node, ast.MatchMapping) and node.rest:
        return (node.rest,)
    return ()
