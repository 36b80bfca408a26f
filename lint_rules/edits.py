"""Building edits that keep the file valid: deleting statements, inlining values."""

from __future__ import annotations

import ast
import sys

from lint_rules.diagnostics import Edit
from lint_rules.source import Locator

_TIGHTER_THAN_ADD = (ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.MatMult, ast.Pow)


def delete_statement(stmt: ast.stmt, body: list[ast.stmt], locator: Locator) -> Edit:
    """An edit that removes ``stmt`` from ``body``, leaving valid code.

    A statement alone on its logical line loses its rows (line endings
    included); one joined to others by ``;`` loses itself and one separator,
    also where a backslash continues the row of the separator into the
    statement's (``previous; \\`` then ``stmt``: deleting the statement's row
    would join the previous statement to the next row, moving that into the
    block); the only statement of a block becomes ``pass``.
    """
    text = locator.text
    start, end = locator.start(stmt), locator.end(stmt)
    if len(body) == 1:
        return Edit(start, end, "pass")
    separator = _joined_separator(stmt, body, locator)
    if separator is not None:
        # ``previous; stmt``, on one row or continued: drop the separator
        # before it (and the blanks and continuations between).
        cursor = separator
        while cursor > 0 and text[cursor - 1] in " \t\f":
            cursor -= 1
        return Edit(cursor, end, "")
    line_start = locator.line_start(stmt.lineno)
    before = text[line_start:start]
    after_end = locator.line_end(stmt.end_lineno or stmt.lineno)
    after = text[end:after_end]
    after_code = after.split("#", 1)[0].strip()
    if not before.strip() and not after_code:
        return Edit(
            _continued_blank_rows(text, line_start),
            locator.full_line_end(stmt.end_lineno or stmt.lineno),
            "",
        )
    if after_code.startswith(";"):
        # ``stmt; next``: drop through the separator and the blanks after it,
        # and a continuation into the next row (``stmt; \\`` then ``next``).
        cursor = _past_blanks(text, end + after.index(";") + 1)
        return Edit(start, cursor, "")
    return Edit(start, end, "pass")


def _past_blanks(text: str, cursor: int) -> int:
    """``cursor`` moved past blanks and backslash continuations."""
    while cursor < len(text):
        if text[cursor] in " \t\f":
            cursor += 1
        elif text.startswith("\\\r\n", cursor):
            cursor += 3
        elif text.startswith("\\\n", cursor) or text.startswith("\\\r", cursor):
            cursor += 2
        else:
            break
    return cursor


def _continued_blank_rows(text: str, line_start: int) -> int:
    """The start of the rows before ``line_start`` that hold only blanks and
    a backslash continuing into it (part of the statement's logical line):
    left alone, they would continue into the next statement's row."""
    while line_start > 0:
        row_end = line_start - (2 if text.startswith("\r\n", line_start - 2) else 1)
        if row_end < 1 or text[row_end - 1] != "\\":
            break
        row_start = max(text.rfind("\n", 0, row_end), text.rfind("\r", 0, row_end)) + 1
        if text[row_start : row_end - 1].strip(" \t\f"):
            break
        line_start = row_start
    return line_start


def _joined_separator(
    stmt: ast.stmt, body: list[ast.stmt], locator: Locator
) -> int | None:
    """The offset of the ``;`` joining ``stmt`` to the statement before it on
    one logical line (the same row, or rows a backslash continues), or None
    where ``stmt`` starts its logical line."""
    index = next((i for i, other in enumerate(body) if other is stmt), 0)
    if index == 0:
        return None
    text = locator.text
    cursor = _past_blanks(text, locator.end(body[index - 1]))
    if not text.startswith(";", cursor):
        return None
    return cursor if _past_blanks(text, cursor + 1) == locator.start(stmt) else None


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
