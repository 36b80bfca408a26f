"""The module-level model: imports, functions and their flows, built on demand."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

from lint_rules.analysis.flow import FunctionFlow
from lint_rules.analysis.imports import ImportMap

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


#: Statements of a function's own code that bind targets: what the rules'
#: pre-filters look at before building a flow.
BindingStatement = ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor


@dataclass(frozen=True, slots=True)
class FunctionInfo:
    """A function definition, the class it is a method of (if any), and the
    binding statements of its own code (nested blocks included, nested scopes
    not) in source order, each with whether it sits in a loop body."""

    node: FunctionNode
    cls: ast.ClassDef | None
    bindings: list[tuple[BindingStatement, bool]] = field(
        default_factory=list, compare=False
    )


class ModuleModel:
    """What rules ask about a module. Every part is computed once, when first asked."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self._flows: dict[FunctionNode, FunctionFlow] = {}

    @cached_property
    def imports(self) -> ImportMap:
        return ImportMap.from_statements(self._scan[1])

    @cached_property
    def functions(self) -> list[FunctionInfo]:
        """Every function and method, nested ones included, in source order."""
        return self._scan[0]

    @cached_property
    def _scan(self) -> tuple[list[FunctionInfo], list[ast.Import | ast.ImportFrom]]:
        """One walk over the module's statements (never its expressions): the
        functions, with their binding statements, and the import statements."""
        functions: list[FunctionInfo] = []
        imports: list[ast.Import | ast.ImportFrom] = []
        _scan(self.tree.body, None, None, False, functions, imports)
        functions.sort(key=lambda info: (info.node.lineno, info.node.col_offset))
        return functions, imports

    @cached_property
    def classes(self) -> list[ast.ClassDef]:
        return sorted(
            {info.cls for info in self.functions if info.cls is not None},
            key=lambda cls: cls.lineno,
        )

    def methods_of(self, cls: ast.ClassDef) -> list[FunctionNode]:
        return [info.node for info in self.functions if info.cls is cls]

    def release(self) -> None:
        """Free the flows built so far at once (see ``FunctionFlow.release``);
        the model must not be used afterwards."""
        for flow in self._flows.values():
            flow.release()
        self._flows.clear()

    def flow(self, function: FunctionNode) -> FunctionFlow:
        """The def-use model of ``function`` (built once)."""
        flow = self._flows.get(function)
        if flow is None:
            flow = self._flows[function] = FunctionFlow(function)
        return flow

    def functions_spanning(self, rows: set[int]) -> Iterator[FunctionInfo]:
        """Functions whose own lines include one of ``rows`` (a text pre-filter)."""
        ordered = sorted(rows)
        for info in self.functions:
            node = info.node
            index = bisect.bisect_left(ordered, node.lineno)
            if index < len(ordered) and ordered[index] <= (
                node.end_lineno or node.lineno
            ):
                yield info


def _scan(
    body: list[ast.stmt],
    cls: ast.ClassDef | None,
    own: list[tuple[BindingStatement, bool]] | None,
    in_loop: bool,
    functions: list[FunctionInfo],
    imports: list[ast.Import | ast.ImportFrom],
) -> None:
    """Depth first, in source order. ``own`` receives the binding statements
    of the enclosing function's own code (None outside functions and in class
    bodies); ``in_loop`` tells whether ``body`` is (inside) a loop body."""
    for stmt in body:
        kind = type(stmt)
        if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign:
            if own is not None:
                own.append((stmt, in_loop))  # type: ignore[arg-type]
        elif kind is ast.Import or kind is ast.ImportFrom:
            imports.append(stmt)  # type: ignore[arg-type]
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            info = FunctionInfo(stmt, cls)  # type: ignore[arg-type]
            functions.append(info)
            _scan(stmt.body, None, info.bindings, False, functions, imports)
        elif kind is ast.ClassDef:
            _scan(stmt.body, stmt, None, False, functions, imports)  # type: ignore[arg-type]
        elif kind is ast.For or kind is ast.AsyncFor or kind is ast.While:
            if own is not None and kind is not ast.While:
                own.append((stmt, in_loop))  # type: ignore[arg-type]
            _scan(stmt.body, cls, own, True, functions, imports)
            if stmt.orelse:
                _scan(stmt.orelse, cls, own, in_loop, functions, imports)
        elif kind in _BLOCKS:
            for field_name in ("body", "orelse", "finalbody"):
                block = getattr(stmt, field_name, None)
                if block:
                    _scan(block, cls, own, in_loop, functions, imports)
            for part in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
                _scan(part.body, cls, own, in_loop, functions, imports)


# The other statements that hold statement lists.
_BLOCKS = frozenset({ast.If, ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match})
