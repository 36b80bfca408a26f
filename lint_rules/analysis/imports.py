"""Resolve names to what they were imported as (``th.zeros`` -> ``torch.zeros``)."""

from __future__ import annotations

import ast
from collections.abc import Iterable


class ImportMap:
    """The module's imports: local names bound to modules and to imported names.

    Imports anywhere in the module count (function-level imports are common in
    backends that import optional kernels lazily).
    """

    __slots__ = ("modules", "names")

    def __init__(self) -> None:
        # local name -> dotted module path ("th" -> "torch", "F" -> "torch.nn.functional")
        self.modules: dict[str, str] = {}
        # local name -> dotted qualified name ("zl" -> "torch.zeros_like")
        self.names: dict[str, str] = {}

    @classmethod
    def from_statements(
        cls, statements: Iterable[ast.Import | ast.ImportFrom]
    ) -> ImportMap:
        """The map of these import statements (in source order)."""
        imports = cls()
        imports._add(statements)
        return imports

    def _add(self, statements: Iterable[ast.Import | ast.ImportFrom]) -> None:
        for node in statements:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.modules[alias.asname] = alias.name
                    else:
                        head = alias.name.partition(".")[0]
                        self.modules[head] = head
            elif node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        local = alias.asname or alias.name
                        self.names[local] = f"{node.module}.{alias.name}"

    def qualified_name(self, expr: ast.expr) -> str | None:
        """``torch.zeros`` for ``th.zeros`` / ``zeros`` / ``torch.zeros``; else None."""
        parts: list[str] = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        base = self.modules.get(expr.id) or self.names.get(expr.id)
        if base is None:
            return None
        parts.append(base)
        return ".".join(reversed(parts))

    def is_builtin(self, name: str) -> bool:
        """Whether no import anywhere in the module binds ``name`` (the
        shortcut of a scope's answer: other bindings are not seen)."""
        return name not in self.modules and name not in self.names

    def local_names_for(self, qualified: str) -> list[str]:
        """Local names bound directly to ``qualified`` by a from-import."""
        return [local for local, name in self.names.items() if name == qualified]
