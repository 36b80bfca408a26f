"""The module-level model: imports, functions and their flows, built on demand."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from lint_rules.analysis.flow import FunctionFlow
from lint_rules.analysis.imports import ImportMap

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True, slots=True)
class FunctionInfo:
    """A function definition and the class it is a method of (if any)."""

    node: FunctionNode
    cls: ast.ClassDef | None


class ModuleModel:
    """What rules ask about a module. Every part is computed once, when first asked."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self._flows: dict[FunctionNode, FunctionFlow] = {}

    @cached_property
    def imports(self) -> ImportMap:
        return ImportMap(self.tree)

    @cached_property
    def functions(self) -> list[FunctionInfo]:
        """Every function and method, nested ones included, in source order."""
        found: list[FunctionInfo] = []
        _collect_functions(self.tree.body, None, found)
        found.sort(key=lambda info: (info.node.lineno, info.node.col_offset))
        return found

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


# Statements that hold other statements; the rest (most of them) are skipped at once.
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
)


def _collect_functions(
    body: list[ast.stmt], cls: ast.ClassDef | None, found: list[FunctionInfo]
) -> None:
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(FunctionInfo(stmt, cls))
            _collect_functions(stmt.body, None, found)
        elif isinstance(stmt, ast.ClassDef):
            _collect_functions(stmt.body, stmt, found)
        elif isinstance(stmt, _COMPOUND):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(stmt, field, None)
                if block:
                    _collect_functions(block, cls, found)
            for handler in getattr(stmt, "handlers", ()):
                _collect_functions(handler.body, cls, found)
            for case in getattr(stmt, "cases", ()):
                _collect_functions(case.body, cls, found)
