"""pyproject.toml declares what attnlint uses, and nothing it does not.

An install extra or dependency that no module imports costs users a download
(libcst is several megabytes) for nothing, and tells readers of pyproject.toml
something false about how attnlint works.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from lint_rules.config import toml_module

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = toml_module().loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _distribution(requirement: str) -> str:
    """The distribution a requirement names (each one here imports under that name)."""
    return re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0].lower()


def _imported_top_level_names() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "lint_rules").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    return names


def test_every_dependency_and_extra_outside_tests_is_imported_by_attnlint() -> None:
    project = PYPROJECT["project"]
    declared = list(project.get("dependencies", []))
    for extra, requirements in project.get("optional-dependencies", {}).items():
        if extra != "test":
            declared.extend(requirements)
    imported = _imported_top_level_names()
    unused = [
        requirement
        for requirement in declared
        if _distribution(requirement) not in imported
    ]
    assert unused == []
