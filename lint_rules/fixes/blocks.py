"""Isolation keys: which fixes may not be applied in the same fixer pass."""

from __future__ import annotations

import ast

from lint_rules.source import Locator


def block_key(body: list[ast.stmt], locator: Locator) -> int:
    """A stable key of the statement list ``body``: the offset of its first
    statement (no two lists share one). Fixes that each delete a statement
    of one list carry it, so that one pass applies only one of them and the
    list is never left empty; unlike ``id(body)``, the key is the same in
    every run, and so in the cache."""
    return locator.start(body[0])
