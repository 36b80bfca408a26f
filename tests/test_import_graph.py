"""lint_rules imports one way: no module reaches itself through imports.

Every import statement counts, wherever it is: at the top, inside a function
(lazy), or under ``if TYPE_CHECKING`` (type-only). An edge goes to the
module an import names (``from lint_rules.rules import CODES`` names the
package ``lint_rules.rules``; ``from lint_rules.rules.base import Rule``
names ``lint_rules.rules.base``, not the package above it, whose
``__init__`` Python runs first but which only re-exports).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "lint_rules"


def module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imported_modules(module: str, path: Path, known: set[str]) -> set[str]:
    """The lint_rules modules that ``module`` imports, anywhere in it."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # ``from package import module`` names the module; a name that
            # is no module is one of ``base``.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    names = module_names()
    known = set(names)
    return {name: imported_modules(name, path, known) for name, path in names.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_lazy_and_type_only_imports() -> None:
    graph = import_graph()
    # Lazy (inside a function) and type-only imports are edges too.
    assert "lint_rules.analysis.model" in graph["lint_rules.context"]
    assert "lint_rules.rules.base" in graph["lint_rules.checker"]
    assert "lint_rules.rules" in graph["lint_rules.cli"]  # ALL_RULES, in a function
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_lint_rules_has_no_import_cycle() -> None:
    assert cycles(import_graph()) == []
