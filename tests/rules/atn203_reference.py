"""Reference walks for ATN203: every node of a function's own code, the
plain way. The rule walks less (text pre-filters, statements read as they
come); the tests check that it finds what these find."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from lint_rules.analysis.nodes import TryStar, child_nodes
from lint_rules.rules.atn203_host_sync_in_hot_path import (
    _SCOPES,
    _allows_sync,
    _is_logging_call,
    _skipped_branch,
)

#: ``_own_nodes``: leave out the code where a sync is not worth a report.
_SKIP_UNREPORTED = True


def _own_nodes(function: ast.AST, where: object = None) -> Iterator[ast.AST]:
    """The nodes of the function's own code (not nested functions, classes
    or lambdas), decorators and annotations left out. With ``where``, the
    code where a sync is not worth a report is left out too: what runs at
    CUDA-graph capture only (``if in_capture:``), code the author marks as
    an accepted sync (``with gpu_sync_allowed():``), and what is
    evaluated only to be logged or raised (``logger.warning(...)``,
    ``raise ValueError(...)``)."""
    stack: list[ast.AST] = list(reversed(function.body))  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if where is not None:
            if isinstance(node, ast.Raise) or _is_logging_call(node):
                continue
            if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                _allows_sync(item.context_expr) for item in node.items
            ):
                continue
        yield node
        if where is not None and isinstance(node, (ast.If, ast.IfExp)):
            skipped = _skipped_branch(node.test)
            if skipped is not None:
                body, orelse = (
                    (node.body, node.orelse)
                    if isinstance(node, ast.If)
                    else ([node.body], [node.orelse])
                )
                stack.append(node.test)
                stack.extend(reversed(orelse if skipped == "body" else body))
                continue
        if isinstance(node, ast.AnnAssign):
            children = [node.target] + ([node.value] if node.value else [])
        else:
            children = child_nodes(node)
        stack.extend(reversed(children))


def _nodes_with_branches(function: ast.AST) -> Iterator[tuple[ast.AST, tuple]]:
    """The nodes of the function's own code, each with its path of branches:
    ``((id(if), 0, False, "if"), ...)`` for the body of an ``if`` (1 for its
    ``else``), ``(id(loop), 0, True, "loop")`` for a loop body, the arms of
    a ``try`` (``"try"``) and the cases of a ``match`` (``"if"``: one runs)
    likewise. Expressions have their statement's path."""
    stack: list[tuple[ast.AST, tuple]] = [
        (stmt, ())
        for stmt in reversed(function.body)  # type: ignore[attr-defined]
    ]
    while stack:
        node, path = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        yield node, path
        arms: list[tuple[list[ast.AST], tuple]] = []
        if isinstance(node, ast.If):
            arms = [
                (node.body, path + ((id(node), 0, False, "if"),)),
                (node.orelse, path + ((id(node), 1, False, "if"),)),
            ]
            heads: list[ast.AST] = [node.test]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            arms = [
                (node.body, path + ((id(node), 0, True, "loop"),)),
                (node.orelse, path + ((id(node), 1, False, "loop"),)),
            ]
            heads = (
                [node.test] if isinstance(node, ast.While) else [node.target, node.iter]
            )
        elif isinstance(node, (ast.Try, TryStar)):
            arms = [(node.body, path + ((id(node), 0, False, "try"),))]  # type: ignore[attr-defined]
            for number, handler in enumerate(node.handlers, 1):  # type: ignore[attr-defined]
                arms.append(([handler], path + ((id(node), number, False, "try"),)))
            arms.append((node.orelse, path + ((id(node), -1, False, "try"),)))  # type: ignore[attr-defined]
            arms.append((node.finalbody, path))  # type: ignore[attr-defined]
            heads = []
        elif isinstance(node, ast.Match):
            arms = [
                ([case], path + ((id(node), number, False, "if"),))
                for number, case in enumerate(node.cases)
            ]
            heads = [node.subject]
        if arms:
            for block, block_path in reversed(arms):
                stack.extend((child, block_path) for child in reversed(block))
            stack.extend((head, path) for head in reversed(heads))
            continue
        if isinstance(node, ast.AnnAssign):
            children = [node.target] + ([node.value] if node.value else [])
        else:
            children = child_nodes(node)
        stack.extend((child, path) for child in reversed(children))
