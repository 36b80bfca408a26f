"""Building edits that keep the file valid: deleting statements, inlining values."""

from __future__ import annotations

import ast
import sys

from lint_rules.diagnostics import Edit
from lint_rules.source import Locator

_TIGHTER_THAN_ADD = (ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.MatMult, ast.Pow)


def delete_statement(stmt: ast.stmt, body: list[ast.stmt], locator: Locator) -> Edit:
    """An edit that removes ``stmt`` from ``body``, leaving valid code.

    A statement alone on its lines loses those whole lines (line endings
    included); one joined to others by ``;`` loses itself and one separator;
    the only statement of a block becomes ``pass``.
    """
    text = locator.text
    start, end = locator.start(stmt), locator.end(stmt)
    if len(body) == 1:
        return Edit(start, end, "pass")
    line_start = locator.line_start(stmt.lineno)
    before = text[line_start:start]
    after_end = locator.line_end(stmt.end_lineno or stmt.lineno)
    after = text[end:after_end]
    after_code = after.split("#", 1)[0].strip()
    if not before.strip() and not after_code:
        return Edit(
            line_start, locator.full_line_end(stmt.end_lineno or stmt.lineno), ""
        )
    if after_code.startswith(";"):
        # ``stmt; next``: drop through the separator and the space after it.
        cursor = end + after.index(";") + 1
        while cursor < after_end and text[cursor] in " \t":
            cursor += 1
        return Edit(start, cursor, "")
    # ``previous; stmt``: drop the separator before it.
    cursor = start
    while cursor > line_start and text[cursor - 1] in " \t":
        cursor -= 1
    if cursor > line_start and text[cursor - 1] == ";":
        cursor -= 1
        while cursor > line_start and text[cursor - 1] in " \t":
            cursor -= 1
        return Edit(cursor, end, "")
    return Edit(start, end, "pass")


def needs_parentheses(value: ast.expr, use: ast.expr, parent: ast.AST | None) -> bool:
    """Whether ``value`` must be parenthesized to stand where ``use`` stands."""
    if isinstance(value, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        return False
    if isinstance(value, ast.Constant):
        # ``1.real`` is a syntax error; ``(1).real`` is not.
        return isinstance(parent, ast.Attribute) and isinstance(
            value.value, (int, float)
        )
    if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is use:
        return True
    if isinstance(parent, ast.Call) and parent.func is use:
        return True
    if isinstance(parent, (ast.UnaryOp, ast.Await)):
        return True
    if isinstance(parent, ast.BinOp):
        if isinstance(value, ast.UnaryOp):
            return isinstance(parent.op, ast.Pow) and parent.left is use
        if isinstance(parent.op, _TIGHTER_THAN_ADD):
            return True
        if isinstance(parent.op, (ast.Add, ast.Sub)):
            return parent.right is use
    return False


def inline_text(
    value: ast.expr, value_text: str, use: ast.expr, parent: ast.AST | None
) -> str:
    """The text to put where ``use`` stands so that it means ``value``."""
    if (
        "\n" in value_text
        or "\r" in value_text
        or needs_parentheses(value, use, parent)
    ):
        return f"({value_text})"
    return value_text


def inside_fstring(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """True when ``node`` sits in an f-string, where positions were unreliable before 3.12."""
    if sys.version_info >= (3, 12):
        return False
    current = parents.get(node)
    while current is not None:
        if isinstance(current, ast.JoinedStr):
            return True
        current = parents.get(current)
    return False
