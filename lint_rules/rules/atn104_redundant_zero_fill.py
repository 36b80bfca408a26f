"""ATN104 redundant-zero-fill."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from lint_rules import prefilter
from lint_rules.analysis.class_hooks import ClassHooks, class_hooks
from lint_rules.analysis.flow import Event, FunctionFlow, Kind
from lint_rules.analysis.nodes import walk_rows
from lint_rules.analysis.scopes import Scope
from lint_rules.analysis.summaries import call_effects, enclosing_call
from lint_rules.analysis.tensor_effects import (
    Detail,
    TensorUses,
    UseEffect,
    allocation_of,
    enclosing_managers,
    is_quantized_dtype,
    is_unfillable_dtype,
    literal_zero,
    tensor_uses_for,
)
from lint_rules.analysis.torch_api import (
    CAPTURE_MANAGERS,
    GRAD_MODE_MANAGERS,
    READING_METHODS,
    SHARING_IN_PLACE_METHODS,
)
from lint_rules.context import Context
from lint_rules.diagnostics import Applicability, Finding, Fix
from lint_rules.edits import delete_statement
from lint_rules.fixes.blocks import block_key
from lint_rules.rules.base import Invalid, Rule

#: Calls that return a new tensor no other name shares (besides the
#: allocators of ``tensor_effects``).
_FRESH_FUNCTIONS = frozenset(
    {
        "torch.ones",
        "torch.ones_like",
        "torch.tensor",
        "torch.arange",
        "torch.rand",
        "torch.randn",
        "torch.rand_like",
        "torch.randn_like",
    }
)


class RedundantZeroFill(Rule):
    """## What it does
    Checks for `x.zero_()` and `x.fill_(0)` of an existing tensor whose next
    use, on every path, overwrites all of it (`x.copy_(...)`, `x[:] = ...`,
    `out=x`, a helper of the module that writes its parameter whole).

    ## Why is this bad?
    The fill is a kernel launch and a full pass over the tensor's memory,
    and the zeros are overwritten before anything can see them. In a
    method that prepares each decode step (a `plan()` that clears a table,
    then copies the new one in), the launch runs every step.

    ## Example
    ```python
    def plan(host_table, n):
        table = torch.empty(n, dtype=torch.int32)
        table.zero_()
        table.copy_(host_table)
        return table
    ```

    ## Use instead
    ```python
    def plan(host_table, n):
        table = torch.empty(n, dtype=torch.int32)
        table.copy_(host_table)
        return table
    ```

    ## Fix safety
    The fix deletes the call (a block left empty gets `pass`). It is safe
    when no other name can share the tensor's memory: the name is a local
    bound only to new tensors (`torch.empty(...)`, `torch.ones(...)`,
    `y.clone()`; not given `out=`, whose tensor they return, and not a
    method a class of the module defines, `h.clone()` of which may return a
    tensor it keeps), and nothing ever makes a view of it (`x.set_(buf)`
    makes it one of `buf`), stores it, passes it to a call or returns it
    (only in-place methods and reductions on it, whole-tensor operands,
    writes through `x[...] = ...`, and `out=x` of torch's functions whose
    result is dropped). Otherwise (a parameter, a tensor read from `self`,
    one a view was taken of) another name may read
    the zeros between the fill and the write, or the write may copy from
    memory it shares with `x` (`x.copy_(v)` where `v` is a view of `x`), and
    the fix is unsafe. The fix is unsafe, too, where the write rests on a
    `full-write-calls` declaration, a method a subclass may override or a
    public function another module may replace, and
    where the fill may raise an error that the write does not: an in-place
    change of a leaf that requires grad raises in grad mode only, of an
    inference tensor outside inference mode only, so the tensor may require
    grad (`requires_grad=True`, `x.requires_grad_()`), or the write runs
    inside `with torch.no_grad():` (or another manager of autograd's mode)
    that the fill is outside of, or the other way round, or the module
    enters a manager by hand (`m.__enter__()`, `stack.enter_context(m)`),
    which no `with` shows; and where the tensor is made with a quantized
    `dtype` (`torch.qint8`), which `zero_` and `fill_` refuse, or, for
    `fill_`, a bit or sub-byte one (`torch.bits8`, `torch.uint4`).

    A fill or a write captured into a CUDA graph (`with torch.cuda.graph(g):`)
    apart from the other is not reported: the captured one runs at each
    replay, not in order with the code outside the capture.

    ## Options
    - `full-write-calls` (see ATN101): calls declared to write an argument
      in full count as the write, with an unsafe fix.
    """

    code = "ATN104"
    name = "redundant-zero-fill"
    triggers = ("zero_", "fill_")
    fix_availability = "sometimes"

    valid = (
        # Read between the fill and the write.
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    x.zero_()\n"
        "    print(x.sum())\n    x.copy_(y)\n    return x\n",
        # Only part overwritten.
        "import torch\ndef f(y, n, m):\n    x = torch.empty(n)\n    x.zero_()\n"
        "    x[:m] = y\n    return x\n",
        # The write happens in one branch only.
        "import torch\ndef f(y, n, c):\n    x = torch.empty(n)\n    x.zero_()\n"
        "    if c:\n        x.copy_(y)\n    return x\n",
        # A parameter that nothing overwrites afterwards: the caller sees the zeros.
        "def f(x):\n    x.zero_()\n",
        # Accumulation reads the zeros.
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    x.fill_(0)\n"
        "    x.add_(y)\n    return x\n",
        # Not a zero fill.
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    x.fill_(1)\n"
        "    x.copy_(y)\n    return x\n",
        # The fill's result is used.
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    z = x.zero_()\n"
        "    x.copy_(y)\n    return z\n",
        # A closure may read it between the fill and the write.
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    g = lambda: x.sum()\n"
        "    x.zero_()\n    print(g())\n    x.copy_(y)\n    return x\n",
        # A custom operator may write part of `out`.
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    x.zero_()\n"
        "    torch.ops.mylib.kernel(y, out=x)\n    return x\n",
    )
    invalid = (
        Invalid(
            "import torch\n\ndef f(y, n):\n    x = torch.empty(n)\n    x.zero_()\n"
            "    x.copy_(y)\n    return x\n",
            fixed="import torch\n\ndef f(y, n):\n    x = torch.empty(n)\n"
            "    x.copy_(y)\n    return x\n",
        ),
        Invalid(
            "import torch\n\ndef f(y, n, c):\n    x = torch.ones(n)\n    if c:\n"
            "        x.fill_(0)\n    x[:] = y\n    return x\n",
            fixed="import torch\n\ndef f(y, n, c):\n    x = torch.ones(n)\n    if c:\n"
            "        pass\n    x[:] = y\n    return x\n",
        ),
        # Through a helper of the module that writes its parameter whole.
        Invalid(
            "import torch\n\ndef _fill(dst, src):\n    dst.copy_(src)\n\n"
            "def f(y, n):\n    x = torch.empty(n)\n    x.zero_()\n    _fill(x, y)\n"
            "    return x\n",
            fixed="import torch\n\ndef _fill(dst, src):\n    dst.copy_(src)\n\n"
            "def f(y, n):\n    x = torch.empty(n)\n    _fill(x, y)\n    return x\n",
        ),
        # A tensor the method did not make: the fix is unsafe.
        Invalid(
            "class Plan:\n    def plan(self, host):\n        table = self.table\n"
            "        table.zero_()\n        table.copy_(host, non_blocking=True)\n",
            fixed="class Plan:\n    def plan(self, host):\n        table = self.table\n"
            "        table.copy_(host, non_blocking=True)\n",
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        model = ctx.model
        declarations = tuple(ctx.options.full_write_calls)
        fill_rows = _fill_rows(ctx)
        functions = (
            model.functions
            if fill_rows is None
            else model.functions_spanning(fill_rows)
        )
        for info in functions:
            if fill_rows is not None and not _may_zero_fill(info.node, fill_rows):
                continue
            flow = model.flow(info.node)
            fills = list(_zero_fills(flow))
            if not fills:
                continue
            scope = model.scope(info.node)
            calls = call_effects(model, info, declarations)
            uses = tensor_uses_for(flow, scope, calls)
            for event, stmt in fills:
                name = event.name
                if not flow.is_private_local(name):
                    continue
                if any(other.nested for other in flow.events_of(name)):
                    continue  # a closure may read it whenever it is called
                firsts, reaches_exit = uses.first_uses(name, event)
                kinds = {use.effect for use in firsts}
                if UseEffect.FULL_WRITE not in kinds:
                    continue
                fresh = _unshared(flow, uses, scope, name, event, class_hooks(model))
                if fresh:
                    # Nothing else holds the tensor: a rebinding or the exit
                    # drops it.
                    if not kinds <= {UseEffect.FULL_WRITE, UseEffect.REBIND}:
                        continue
                elif kinds != {UseEffect.FULL_WRITE} or reaches_exit:
                    continue
                writes = [u for u in firsts if u.effect is UseEffect.FULL_WRITE]
                if _captured_apart(flow, scope, stmt, writes):
                    continue
                assumed = any(u.detail is not Detail.NONE for u in writes)
                raises_alone = _enters_by_hand(ctx) or _may_raise_alone(
                    flow, scope, name, stmt, writes
                )
                safe = fresh and not assumed and not raises_alone
                info_stmt = flow.stmt_info[stmt]
                fix = Fix(
                    (delete_statement(stmt, info_stmt.body, ctx.locator),),
                    Applicability.SAFE if safe else Applicability.UNSAFE,
                    f"Delete `{name}.{_method(stmt)}(...)`",
                    isolation=block_key(info_stmt.body, ctx.locator),
                )
                rows = ", ".join(str(r) for r in sorted({u.row for u in writes}))
                message = (
                    f"`{name}` is zero-filled, then overwritten completely "
                    f"(line{'s' if len(writes) > 1 else ''} {rows}) before any "
                    "read: the fill is never seen"
                )
                if not fresh:
                    message += (
                        f"; `{name}` may share memory with another tensor, "
                        "which nothing here must read in between"
                    )
                elif assumed:
                    message += f"; {writes[0].detail.value}"
                elif raises_alone:
                    message += (
                        f"; the fill may raise where the write does not (`{name}` "
                        "may require grad, or the write runs in another autograd "
                        "mode), and deleting it deletes that error"
                    )
                yield ctx.report(self, stmt, message, fix)


def _captured_apart(
    flow: FunctionFlow, scope: Scope, fill: ast.stmt, writes: list
) -> bool:
    """Whether the fill or a write is in the body of a CUDA graph capture
    (``with torch.cuda.graph(g):``) the other is not in: the captured one runs
    at each replay, not in order with the other."""
    captures = enclosing_managers(fill, flow, scope, CAPTURE_MANAGERS)
    return any(
        enclosing_managers(use.event.node, flow, scope, CAPTURE_MANAGERS) != captures
        for use in writes
    )


def _may_raise_alone(
    flow: FunctionFlow, scope: Scope, name: str, fill: ast.stmt, writes: list
) -> bool:
    """Whether the fill may raise where the write would not: an in-place
    change of a leaf that requires grad raises in grad mode only, and one of
    an inference tensor outside inference mode only. So the tensor may
    require grad (made with ``requires_grad=`` other than False, or given
    ``requires_grad_()``), or a write runs inside a manager of autograd's
    mode (``with torch.no_grad():``) that the fill is outside of, or the other
    way round. And ``zero_`` and ``fill_`` have no kernel for a quantized
    tensor (``dtype=torch.qint8``), nor ``fill_`` for a bit or sub-byte one
    (``dtype=torch.bits8``): the fill raises, the write may not."""
    parents = flow.parents
    for event in flow.events_of(name):
        node = event.node
        parent = parents.get(node)
        if event.kind is Kind.LOAD:
            if isinstance(parent, ast.Attribute) and parent.attr == "requires_grad_":
                return True
            continue
        value = getattr(parent, "value", None)
        if isinstance(value, ast.Call):
            for keyword in value.keywords:
                if keyword.arg is None or (
                    keyword.arg == "requires_grad"
                    and not (
                        isinstance(keyword.value, ast.Constant)
                        and keyword.value.value is False
                    )
                ):
                    return True
                if keyword.arg == "dtype" and is_quantized_dtype(keyword.value, scope):
                    return True
                if (
                    keyword.arg == "dtype"
                    and not _zero_fill(fill)
                    and is_unfillable_dtype(keyword.value, scope)
                ):
                    return True  # ``fill_`` has no kernel for ``torch.bits8``
    modes = enclosing_managers(fill, flow, scope, GRAD_MODE_MANAGERS)
    return any(
        enclosing_managers(use.event.node, flow, scope, GRAD_MODE_MANAGERS) != modes
        for use in writes
    )


#: Attributes that enter a context manager without a ``with``.
_ENTERING = frozenset(
    {"__enter__", "__aenter__", "enter_context", "enter_async_context"}
)


def _enters_by_hand(ctx: Context) -> bool:
    """Whether the module enters a context manager without a ``with``
    (``m.__enter__()``, ``stack.enter_context(m)``): then an autograd mode
    (``torch.inference_mode()``) may hold around the write and not around
    the fill with no ``with`` showing it (computed once per module)."""
    found = ctx.model.derived.get("ATN104 enters by hand")
    if found is None:
        text = ctx.text
        if (
            prefilter.enabled()
            and not prefilter.may_respell_ascii(text)
            and "enter_" not in text
        ):
            found = False
        else:
            found = any(
                type(node) is ast.Attribute and node.attr in _ENTERING
                for node in ast.walk(ctx.model.tree)
            )
        ctx.model.derived["ATN104 enters by hand"] = found
    return found  # type: ignore[return-value]


def _fill_rows(ctx: Context) -> list[int] | None:
    """Sorted rows where a ``.zero_(`` or ``.fill_(`` call may end its
    method's name: the whole word, then its parenthesis (spaced, continued
    or commented between), found by str.find (a pre-filter: ``_zero_fills``
    finds such calls only); None
    with the pre-filters off, or in a text that may spell an identifier
    otherwise (``x.ｚero_()`` is ``x.zero_()``)."""
    text = ctx.text
    if not prefilter.enabled() or prefilter.may_respell_ascii(text):
        return None
    positions: list[int] = []
    for word in ("zero_", "fill_"):
        position = text.find(word)
        while position >= 0:
            end = position + len(word)
            if (
                position == 0 or text[position - 1] not in _WORD_CHARS
            ) and _AFTER_METHOD.match(text, end):
                positions.append(position)
            position = text.find(word, end)
    return sorted(ctx.locator.rows_of(positions))


def _may_zero_fill(function: ast.AST, rows: list[int]) -> bool:
    """Whether the code spanning ``rows`` in ``function`` holds a statement
    ``x.zero_()`` or ``x.fill_(0)`` (as ``_zero_fills`` reads them): the
    attribute ends on such a row, so the walk that skips the other rows
    finds every one."""
    for node in walk_rows(function, rows, {}):
        if type(node) is not ast.Expr:
            continue
        call = node.value
        if not (type(call) is ast.Call and not call.keywords):
            continue
        func = call.func
        if not (type(func) is ast.Attribute and type(func.value) is ast.Name):
            continue
        if func.attr == "zero_" and not call.args:
            return True
        if (
            func.attr == "fill_"
            and len(call.args) == 1
            and literal_zero(call.args[0]) is not None
        ):
            return True
    return False


_WORD_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
)
#: After the method's name: its call's parenthesis, maybe a line, comments
#: and the closing parenthesis of a group apart (``(x.zero_)()``).
_AFTER_METHOD = re.compile(r"(?:\s|\\|\)|#[^\r\n]*(?![^\r\n]))*\(")


def _method(stmt: ast.stmt) -> str:
    return stmt.value.func.attr  # type: ignore[attr-defined]


def _zero_fills(flow: FunctionFlow) -> Iterator[tuple[Event, ast.Expr]]:
    """``x.zero_()`` and ``x.fill_(0)`` statements of the function's own code:
    the event of ``x`` and the statement."""
    parents = flow.parents
    for events in flow.events_by_name.values():
        for event in events:
            if event.kind is not Kind.LOAD or event.nested or event.conditional:
                continue
            attribute = parents.get(event.node)
            if not (
                isinstance(attribute, ast.Attribute)
                and attribute.value is event.node
                and attribute.attr in ("zero_", "fill_")
            ):
                continue
            call = parents.get(attribute)
            stmt = parents.get(call)
            if not (
                isinstance(call, ast.Call)
                and call.func is attribute
                and isinstance(stmt, ast.Expr)
                and stmt.value is call
                and stmt in flow.stmt_info
                and not call.keywords
            ):
                continue
            if attribute.attr == "zero_" and call.args:
                continue
            if attribute.attr == "fill_" and not (
                len(call.args) == 1 and literal_zero(call.args[0]) is not None
            ):
                continue
            yield event, stmt


def _unshared(
    flow: FunctionFlow,
    uses: TensorUses,
    scope: Scope,
    name: str,
    fill: Event,
    hooks: ClassHooks,
) -> bool:
    """Whether no other name can share the memory ``name`` holds: every
    binding of it is a new tensor, and no use of it makes a view, an alias
    or an escape (see the rule's Fix safety)."""
    events = flow.events_of(name)
    if any(event.nested for event in events):
        return False
    parents = flow.parents
    for event in events:
        if event.kind is not Kind.LOAD:
            if not _binds_new_tensor(event, parents, scope, hooks):
                return False
            continue
        if event is fill or event.augmented:
            continue
        effect, detail = uses.effect(event)
        if effect is UseEffect.TRANSPARENT:
            if isinstance(parents.get(event.node), ast.Attribute | ast.Call):
                continue  # ``x.shape``, ``x.size()``, ``len(x)``
            return False
        if not _keeps_no_alias(event.node, effect, detail, parents, scope):
            return False
    return True


def _binds_new_tensor(event: Event, parents, scope: Scope, hooks: ClassHooks) -> bool:
    node = event.node
    stmt = parents.get(node)
    if not (
        isinstance(node, ast.Name)
        and isinstance(stmt, ast.Assign | ast.AnnAssign)
        and (stmt.targets == [node] if isinstance(stmt, ast.Assign) else True)
        and getattr(stmt, "target", node) is node
        and isinstance(stmt.value, ast.Call)
    ):
        return False
    value = stmt.value
    func = value.func
    if (
        isinstance(func, ast.Attribute)
        and hooks.defines(func.attr)
        and scope.qualified_name(func) is None
    ):
        # ``h.clone()``, ``h.new_empty(n)`` of an object of the module's own
        # class, whose method of that name may return a tensor it keeps.
        return False
    if allocation_of(value, scope) is not None:
        return True
    if any(keyword.arg in (None, "out") for keyword in value.keywords):
        # ``torch.ones(n, out=buf)`` returns ``buf``; ``**kwargs`` may hold
        # ``out=``.
        return False
    if isinstance(func, ast.Attribute) and func.attr == "clone":
        return True
    return scope.qualified_name(func) in _FRESH_FUNCTIONS


def _keeps_no_alias(
    node: ast.AST, effect: UseEffect, detail: Detail, parents, scope: Scope
) -> bool:
    """Whether the use of the tensor's name at ``node`` leaves no other name
    (nor a result) sharing its memory."""
    parent = parents.get(node)
    if isinstance(parent, ast.Attribute) and parent.value is node:
        call = parents.get(parent)
        if not (isinstance(call, ast.Call) and call.func is parent):
            return False
        if parent.attr in SHARING_IN_PLACE_METHODS:
            return False  # ``x.set_(buf)``: ``x`` shares ``buf``'s memory
        if parent.attr.endswith("_"):
            # In place: returns the tensor itself, so the result must be dropped.
            return isinstance(parents.get(call), ast.Expr)
        return parent.attr in READING_METHODS and effect is UseEffect.READ
    if isinstance(parent, ast.Subscript) and parent.value is node:
        # ``x[...] = v`` writes through the view and keeps nothing.
        return isinstance(parent.ctx, ast.Store) and isinstance(
            parents.get(parent), ast.Assign | ast.AugAssign
        )
    if isinstance(parent, ast.BinOp | ast.UnaryOp | ast.Compare):
        return effect is UseEffect.READ
    if isinstance(parent, ast.keyword) and parent.arg == "out":
        call = enclosing_call(node, parents)
        qualified = scope.qualified_name(call.func) if call is not None else None
        return (
            effect is UseEffect.FULL_WRITE
            and qualified is not None
            and qualified.partition(".")[0] == "torch"
            and isinstance(parents.get(call), ast.Expr)
        )
    if isinstance(parent, ast.Call) and node in parent.args:
        func = parent.func
        if isinstance(func, ast.Attribute) and func.attr == "copy_":
            return parent.args[0] is node  # the source of a copy
    return False


def _zero_fill(fill: ast.stmt) -> bool:
    """Whether the fill statement is a ``zero_()`` call (not ``fill_``)."""
    value = getattr(fill, "value", None)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "zero_"
    )
