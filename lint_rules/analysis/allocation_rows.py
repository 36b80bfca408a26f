"""Rows that may call an allocator: the text pre-filter of the allocation
rules (ATN101, ATN103), beside what it shortcuts (``tensor_effects.
allocation_of``, which decides on the tree whether a call allocates).

It must over-approximate: every row holding a call that ``allocation_of``
recognizes is among its rows (a torch function is called by its name, or
by a local name imported for it)."""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.context import Context


def rows_naming(ctx: Context, names: tuple[str, ...]) -> set[int]:
    """1-based rows that may call a ``torch`` function whose name contains one
    of ``names``: rows holding the name, or a local alias imported for it
    (``from torch import zeros_like as zl``). A text pre-filter per function."""
    words = set(names)
    for local, qualified in ctx.model.imports.names.items():
        module, _, function = qualified.rpartition(".")
        if module == "torch" and any(name in function for name in names):
            words.add(local)
    # A call: the name (possibly a longer one, ``zeros_like``) and its parenthesis.
    # Each occurrence of a name is found by str.find (a regular expression
    # starting with alternatives would try every position of the text).
    text = ctx.text
    starts: set[int] = set()
    for word in words:
        position = text.find(word)
        while position >= 0:
            if _CALL_AFTER_NAME.match(text, position + len(word)):
                starts.add(position)
            position = text.find(word, position + 1)
    return ctx.locator.rows_of(starts)


_CALL_AFTER_NAME = re.compile(r"\w*(?:\s|\\)*\(")
