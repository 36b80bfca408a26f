"""Which part of a graph-state buffer the class writes, and which it reads
(ATN102).

A graph-state buffer is allocated at its maximum size; a replay writes the
rows its batch needs. When every write of the class is a *prefix box*
(``self.buf[:bs].copy_(x)``, ``self.buf[:bs] = y``, ``out=self.buf[:bs]``,
``self.buf[:, :n]``: each dimension whole or cut at an upper bound), the
elements past those bounds keep whatever the buffer was made with. If some
use then reads past them (``kernel(self.buf)``, ``self.buf.sum()``,
``return self.buf``, ``self.buf[idx]``, ``self.buf[: bs + 1]``), the padded
rows it sees are the zeros of the allocation, on every replay.

``reads_past_prefix_writes`` answers that question from the uses
``ClassUses.accesses`` finds; bounds are compared as written
(``self.buf[:bs]`` in one method and ``[:bs]`` in another are taken to be the
same rows).
"""

from __future__ import annotations

import ast

from lint_rules.analysis.class_uses import Buffer, ClassUses
from lint_rules.analysis.tensor_effects import Detail, UseEffect, context_effect

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.analysis.scopes import Scope

#: A dimension taken whole (``:``), and one indexed otherwise (an element,
#: a gather, an offset: ``i``, ``idx``, ``1:``).
_ALL = ""
_SOME = "?"

#: Per leading dimension, ``_ALL``, ``_SOME`` or an upper bound as written.
Region = tuple[str, ...]


def reads_past_prefix_writes(uses: ClassUses, buffer: Buffer) -> bool:
    """Whether every write of ``buffer`` in the class is a prefix box (one at
    least), and some use may read an element outside all of them."""
    boxes: list[Region] = []
    reads: list[Region] = []
    for node, method, parents in uses.accesses(buffer):
        access = _access(node, parents, uses.model.scope(method))
        if access is None:
            continue
        region, writes, reads_it = access
        if writes:
            if not _bounded(region):
                return False  # a write that may reach past every bound
            boxes.append(region)
        if reads_it:
            reads.append(region)
    if not boxes:
        return False
    return any(not _within(region, boxes) for region in reads)


def _access(
    node: ast.AST, parents: dict[ast.AST, ast.AST], names: Scope
) -> tuple[Region, bool, bool] | None:
    """The region ``node`` (standing for the buffer) touches, whether the use
    may write it and whether it may read it; None for a use that does
    neither to its elements (a rebinding, metadata, a plain alias)."""
    if isinstance(node, (ast.Attribute, ast.Subscript, ast.Name)) and not isinstance(
        node.ctx, ast.Load
    ):
        return None  # ``self.x = ...``: rebinds, the elements are not touched
    parent = parents.get(node)
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node:
        return None  # an alias or a store of the whole: followed, or not seen
    target: ast.expr = node  # type: ignore[assignment]
    region: Region = ()
    if isinstance(parent, ast.Subscript) and parent.value is node:
        target = parent
        region = _region(parent.slice)
        if isinstance(parent.ctx, ast.Store):
            augmented = isinstance(parents.get(parent), ast.AugAssign)
            return region, True, augmented
        if isinstance(parent.ctx, ast.Del):
            return region, True, False
    effect, detail = context_effect(target, parents, names)
    if effect in (UseEffect.TRANSPARENT, UseEffect.REBIND):
        return None
    if effect is UseEffect.FULL_WRITE:
        return region, True, False
    if effect is UseEffect.READ:
        return region, False, True
    if detail is Detail.PARTIAL:
        return region, True, True  # written in place in part (``scatter_``)
    if _out_argument(target, parents):
        return region, True, False  # a kernel's ``out=``: written, maybe in part
    if _assigned(target, parents) and _bounded(region):
        # A view of a box bound to a name (``v = self.buf[:bs]``): written
        # and read through it, inside the box.
        return region, True, True
    # Passed on, returned, viewed: may be read. (Whatever writes there are
    # through it, the reads through it see them or the zeros.)
    return region, False, True


def _assigned(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    parent = parents.get(node)
    return isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node


def _region(index: ast.expr) -> Region:
    """What ``index`` selects, per leading dimension."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts):
        return () if len(parts) == 1 else (_SOME,)  # ``x[...]``; dimensions shift
    region: list[str] = []
    for part in parts:
        if (
            isinstance(part, ast.Slice)
            and part.step is None
            and _zero_or_none(part.lower)
        ):
            region.append(_ALL if part.upper is None else ast.dump(part.upper))
        else:
            region.append(_SOME)
    while region and region[-1] == _ALL:
        region.pop()
    return tuple(region)


def _zero_or_none(node: ast.expr | None) -> bool:
    return node is None or (
        isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0
    )


def _bounded(region: Region) -> bool:
    """Whether the region stays below an upper bound in some dimension (a
    prefix box, or a part of one)."""
    return any(entry not in (_ALL, _SOME) for entry in region)


def _within(region: Region, boxes: list[Region]) -> bool:
    """Whether ``region`` lies inside one of ``boxes``: in each dimension a
    box bounds, the region has the same bound as written."""
    for box in boxes:
        if all(
            bound in (_ALL, _SOME) or (index < len(region) and region[index] == bound)
            for index, bound in enumerate(box)
        ):
            return True
    return False


def _out_argument(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether ``node`` (maybe through views) is the value of ``out=``."""
    parent = parents.get(node)
    while isinstance(parent, ast.Subscript) and parent.value is node:
        node, parent = parent, parents.get(parent)
    return isinstance(parent, ast.keyword) and parent.arg == "out"
