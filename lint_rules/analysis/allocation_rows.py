"""Which functions the allocation rules (ATN101, ATN103) build a flow for:
rows that may call an allocator (``rows_naming``), beside what it shortcuts
(``tensor_effects.allocation_of``, which decides on the tree whether a call
allocates), and the uses the rule asks about (``use_forms``).

Each must over-approximate: every row holding a call that ``allocation_of``
recognizes is among the rows (a torch function is called by its name, or by
a local name imported for it), and with the pre-filters off
(``lint_rules.prefilter``) every function goes through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lint_rules import prefilter
from lint_rules.analysis.use_forms import function_text

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.analysis.model import FunctionInfo
    from lint_rules.analysis.tensor_effects import Allocation
    from lint_rules.context import Context


def functions_to_analyze(
    ctx: Context,
    allocator_names: tuple[str, ...],
    wanted: Callable[[Allocation], bool],
    may_use: Callable[[str, str], bool],
) -> Iterator[FunctionInfo]:
    """The functions of the module whose flow a tensor rule must build: those
    that may call a ``torch`` allocator whose name contains one of
    ``allocator_names`` (``rows_naming``) and bind its result, an allocation
    the rule looks at (``wanted``), to a name that some use may affect as the
    rule asks (``may_use(text, name)``: ``may_fully_write``, ``may_read``).
    Every function when the pre-filters are off."""
    model = ctx.model
    if not prefilter.enabled():
        yield from model.functions
        return
    rows = sorted(rows_naming(ctx, allocator_names))
    if not rows:
        return
    for info in model.functions_spanning(rows):
        names = {
            name
            for name, allocation in model.allocations(info, rows)
            if wanted(allocation)
        }
        if not names:
            continue
        text = function_text(ctx.locator, info.node)
        if any(may_use(text, name) for name in names):
            yield info


def rows_naming(ctx: Context, names: tuple[str, ...]) -> set[int]:
    """1-based rows that may call a ``torch`` function whose name contains one
    of ``names``: rows holding the name, or a local alias imported for it
    (``from torch import zeros_like as zl``). A text pre-filter per function;
    a text that may spell an identifier otherwise (``may_respell_ascii``)
    gives every row."""
    text = ctx.text
    if prefilter.may_respell_ascii(text):
        return set(range(1, len(ctx.locator.line_starts) + 1))
    words = set(names)
    for local, qualified in ctx.model.imports.names.items():
        module, _, function = qualified.rpartition(".")
        if module == "torch" and any(name in function for name in names):
            words.add(local)
    # A call: the name (possibly a longer one, ``zeros_like``) and its
    # parenthesis, maybe a line, comments and the end of a group apart
    # (inside brackets; ``(torch.zeros)(n)``). Each
    # occurrence of a name is found by str.find (a regular expression starting
    # with alternatives would try every position of the text).
    starts: set[int] = set()
    for word in words:
        position = text.find(word)
        while position >= 0:
            if _CALL_AFTER_NAME.match(text, position + len(word)):
                starts.add(position)
            position = text.find(word, position + 1)
    return ctx.locator.rows_of(starts)


_CALL_AFTER_NAME = re.compile(r"\w*(?:\s|\\|\)|#[^\r\n]*(?![^\r\n]))*\(")
