"""ATN201 repeated-host-sync."""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Hashable, Iterator

from lint_rules import prefilter
from lint_rules.analysis.class_hooks import class_hooks
from lint_rules.analysis.flow import FunctionFlow
from lint_rules.analysis.invalidation import (
    ChangeKind,
    Invalidation,
    Point,
    invalidation_for,
    reads_grad_mode,
    takes_identities,
)
from lint_rules.analysis.nodes import LEAF_TYPES, child_nodes
from lint_rules.analysis.torch_api import SYNC_METHODS
from lint_rules.context import Context
from lint_rules.diagnostics import Applicability, Edit, Finding, Fix
from lint_rules.edits import delete_statement, inside_fstring
from lint_rules.fixes.blocks import block_key
from lint_rules.rules.base import Invalid, Rule

# What may follow a sync method's name in a call without arguments: blanks,
# line ends, continuations and comments around the parentheses.
_EMPTY_CALL = re.compile(
    r"(?:\s|\\|#[^\r\n]*(?![^\r\n]))*\((?:\s|\\|#[^\r\n]*(?![^\r\n]))*\)"
)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


class RepeatedHostSync(Rule):
    """## What it does
    Checks for a second evaluation of the same host-synchronizing chain
    (`E.item()`, `E.tolist()`, `E.cpu()`, `E.numpy()`, including reductions
    such as `E.max().item()`) in one function, when the first evaluation
    always runs before it and nothing in between can change `E`.

    ## Why is this bad?
    Each of these calls copies a value from the GPU to the host, which stalls
    the CPU until every kernel queued before it has finished. In a decode or
    CUDA-graph replay path that runs once per generated token, paying that
    stall twice for the same value is pure latency.

    The first evaluation must run whenever the second does: an earlier
    statement of the same block or of an enclosing block (not a sibling
    branch, not an earlier loop iteration, not a conditional part of an
    expression, not the body of a `try` or of a `with` whose context manager
    may swallow an exception). Between them nothing may rebind a name the
    chain reads, write its base or a prefix of its attribute chain
    (`x.add_(1)`, `x[i] = v`, `m.x = v`, `x += 1`, `del x`), also through a
    view or view attribute (`x.data[0] = v`, `v = x.T; v.zero_()`,
    `x.real.mul_(2)`) or the object's `__dict__` or `__class__`; pass the
    base or a value that may alias it to a call other than a known
    read-only builtin, method
    or `torch` function (a torch function given it as `out`, by keyword or
    by position, or with `inplace`, `training` or `max_norm` set, writes
    it); call a method on an object the chain reads through (`self.reset()`
    changes every `self.` chain); call a bound method of it (`add = x.add_`);
    format it (`print(obj)`, `f"{obj}"`, `"%s" % obj` run its `__str__`); or run
    `backward()`, which accumulates into every leaf's `.grad`. Unknown code
    (a call of a function the module cannot see, a `sorted(key=...)`, the
    body of a generator, which iterating a name that may hold one runs:
    `for v in g`, `p, q = g`, `[*g]`, `[v for v in g]`, `v in g`,
    `xs += g`, an `import`, whose first run executes the module) may
    change what it can reach: globals, names closures use, and objects that
    escaped to such code: a local bound to what an unknown function returned
    (`t = get()`) or to a global's object (`t = BUF`), or given to such
    code before, itself or a view of it (`register(t)`,
    `register(t.view(-1))`, a default value `lambda v=t: ...`, a store
    into a global's object `HOLD.t = t`). A store into an object other
    code holds may be one into the module's namespace (`ns = globals()`,
    then `ns["BUF"] = v`), which rebinds a global. A `match` capture
    (`case v:`) names the subject. Methods are
    known by their torch names; a `join` or `get` may be a thread's or a
    queue's, and is unknown code, and a `sort` or an `add`, which change
    nothing of a tensor, may be a list's or a set's, which change it (and
    `add` keeps its argument); a method a class of the module defines
    (`h.size()` where the module's `Holder` has a `size`) is that code,
    whatever torch's method of the name does. Code of the module that runs
    where nothing shows a call makes the fix unsafe (the finding stays):
    a special method of its class that an operator, a truth test or a
    builtin runs (`o + 1`, `if o:`, `len(o)`, `{o: 1}`; formatting,
    `print(o)` or `f"{o}"`, its `__repr__`, `__str__` or `__format__`), a property or
    descriptor an attribute load runs, a finalizer (`__del__`, a weakref
    callback, the `finally` or `with` around a generator's `yield` or a
    coroutine's `await`, which runs where the last reference to the
    suspended generator or coroutine drops). A class pattern of a `match`
    runs what `isinstance` runs (`__instancecheck__`, `__subclasshook__`). A
    module that replaces torch's functions or builtins
    (`torch.Tensor.item = f`, `builtins.len = g`), defines a tensor
    subclass with its own methods or a `__torch_function__`, or installs
    a trace, profile or audit hook has no safe fix of any rule.

    ## Example
    ```python
    def replay(metadata, seq_lens_cpu, step):
        max_len = seq_lens_cpu.max().item()
        metadata.max_seq_len_k = max_len + step
        metadata.page_limit = seq_lens_cpu.max().item() // 16
    ```

    ## Use instead
    ```python
    def replay(metadata, seq_lens_cpu, step):
        max_len = seq_lens_cpu.max().item()
        metadata.max_seq_len_k = max_len + step
        metadata.page_limit = max_len // 16
    ```

    ## Fix safety
    When the first value was bound by a statement of the form
    `name = <chain>` and `name` is not rebound before the repeat, the fix
    replaces the repeat with `name`. For `.item()` the fix is safe: the value
    is an immutable Python scalar and nothing changed the tensor it came from.
    For `.tolist()`, `.cpu()` and `.numpy()` the fix is unsafe: each call
    returns an object of its own (a new list, a host tensor or array), and
    after the fix both places share one object, so a later in-place change
    through one is seen through the other. The reuse makes one object of
    two, so where the function compares identities (`t is s`, `id(t)`), the
    `.item()` fix is unsafe too. No fix is offered when the first
    value is not bound to a name, or the name may have changed.

    Both the finding and the fix rest on what a reader of a replay path
    assumes too: distinct parameters (and paths from distinct roots that the
    function never connects) are distinct objects, attribute loads and
    stores are plain (no properties with side effects), and so are the
    operators and conversions applied to values (`+`, `<`, `len`, `int`). A
    call that only receives other objects cannot reach a parameter's tensor
    unless the function gave it to unknown code before. Where a class of the
    module itself defines code the chain may run (a method named as one it
    calls, `m.item()` of its own `item`; a property; `__getattr__`), that
    code would run once less, and the fix is unsafe. Where such a class
    defines a special method that code between the two may run (an
    operator's `__add__`, a subscript's `__getitem__`, a truth test's
    `__bool__` or `__len__` in `if o:` or `assert o`, a loop's
    `__iter__`, a `match` pattern's `__eq__`, `__len__` or the property
    a class pattern reads), the operators are not plain: the fix is unsafe too.
    So it is where one of torch's global modes that decide a value may
    change in between (the chain would compute another value from the
    same tensor): autocast, the default dtype, flushing denormals, the
    number of threads, set by a `torch.set_*` call (or a setter of torch's
    other modules: `torch.backends.mkldnn.set_flags`,
    `torch.cuda.set_device`), a `with` block other
    than one of autograd's mode (`torch.no_grad()`, which decides only
    whether results require grad) or `nullcontext()`, or, in a module
    that sets a mode itself (a call by the name of one of torch's setters,
    a manager entered by hand), any call of code not seen here. Code of
    other modules is taken to leave the modes as it found them.
    """

    code = "ATN201"
    name = "repeated-host-sync"
    triggers = tuple(sorted(SYNC_METHODS))
    fix_availability = "sometimes"
    severity = "error"

    valid = (
        # Mutated in place between.
        "def f(x):\n    a = x.max().item()\n    x.add_(1)\n    b = x.max().item()\n",
        # Rebound between.
        "def f(x, y):\n    a = x.item()\n    x = y\n    b = x.item()\n",
        # Sibling branches.
        "def f(x, c):\n    if c:\n        a = x.item()\n    else:\n        a = x.item()\n",
        # The first is inside an `if`, the second after it.
        "def f(x, c):\n    if c:\n        a = x.item()\n    b = x.item()\n",
        # Passed to an unknown call between.
        "def f(x):\n    a = x.sum().item()\n    update(x)\n    b = x.sum().item()\n",
        # A method of an object the chain reads through is called between.
        "class B:\n    def f(self):\n        a = self.lens.max().item()\n"
        "        self.refresh()\n        b = self.lens.max().item()\n",
        # An attribute on the chain is stored between.
        "def f(m, y):\n    a = m.lens.max().item()\n    m.lens = y\n    b = m.lens.max().item()\n",
        # Mutated through an alias (a view).
        "def f(x):\n    v = x[:2]\n    a = x.sum().item()\n    v.zero_()\n    b = x.sum().item()\n",
        # Mutated later in a loop: the next iteration sees a new value.
        "def f(x, n):\n    a = x.item()\n    for i in range(n):\n        b = x.item()\n"
        "        x.add_(1)\n",
        # Different receivers.
        "def f(x, y):\n    a = x.max().item()\n    b = y.max().item()\n",
        # Different reductions.
        "def f(x):\n    a = x.max().item()\n    b = x.min().item()\n",
        # The first evaluation is conditional (`and`).
        "def f(x, c):\n    a = c and x.item()\n    b = x.item()\n",
        # The first evaluation is in a loop that may not run.
        "def f(x, n):\n    for i in range(n):\n        a = x.item()\n    b = x.item()\n",
        # The first evaluation is in a `try` body, the second after the handler.
        "def f(x):\n    try:\n        a = x.item()\n    except ValueError:\n"
        "        x.zero_()\n    b = x.item()\n",
        # Awaiting between: other tasks may change anything.
        "async def f(x, g):\n    a = x.item()\n    await g()\n    b = x.item()\n",
        # The receiver is not a pure expression.
        "def f(x):\n    a = next_batch(x).item()\n    b = next_batch(x).item()\n",
        # A global tensor and an unknown call between.
        "def f():\n    a = LENS.max().item()\n    refresh()\n    b = LENS.max().item()\n",
        # Written through a view attribute.
        "def f(x):\n    a = x[0].item()\n    x.data[0] = 5\n    b = x[0].item()\n",
        # Written in place by a torch function asked to (`inplace` by position).
        "import torch.nn.functional as F\ndef f(x):\n    a = x.min().item()\n"
        "    F.relu(x, True)\n    b = x.min().item()\n",
        # A local returned by unknown code, which may change it later.
        "def f():\n    t = get()\n    a = t.max().item()\n    bump()\n"
        "    b = t.max().item()\n",
        # The first evaluation may not run: the manager may swallow.
        "from contextlib import suppress\ndef f(x):\n    a = 0\n"
        "    with suppress(ValueError):\n        int('x')\n        a = x.max().item()\n"
        "    b = x.max().item()\n",
    )
    invalid = (
        Invalid(
            "def replay(metadata, seq_lens_cpu, step):\n"
            "    max_len = seq_lens_cpu.max().item()\n"
            "    metadata.max_seq_len_k = max_len + step\n"
            "    metadata.page_limit = seq_lens_cpu.max().item() // 16\n",
            fixed="def replay(metadata, seq_lens_cpu, step):\n"
            "    max_len = seq_lens_cpu.max().item()\n"
            "    metadata.max_seq_len_k = max_len + step\n"
            "    metadata.page_limit = max_len // 16\n",
        ),
        # Not bound to a name: reported, not fixed.
        Invalid(
            "def f(x, m):\n    if x.sum().item() > 0:\n        m.total = int(x.sum().item())\n",
        ),
        # A read-only method between changes nothing.
        Invalid(
            "def f(s):\n    a = s.max().item()\n    s.isnan()\n    c = s.max().item()\n",
            fixed="def f(s):\n    a = s.max().item()\n    s.isnan()\n    c = a\n",
        ),
        # A mutation of an unrelated buffer does not matter.
        Invalid(
            "def f(m, s, y):\n    n = s.item()\n    m.buf.copy_(y)\n    print(n, s.item())\n",
            fixed="def f(m, s, y):\n    n = s.item()\n    m.buf.copy_(y)\n    print(n, n)\n",
        ),
        # `.tolist()`: an unsafe fix (the list is shared afterwards).
        Invalid(
            "def f(lens):\n    host = lens.tolist()\n    total = sum(lens.tolist())\n"
            "    return host, total\n",
            fixed="def f(lens):\n    host = lens.tolist()\n    total = sum(host)\n"
            "    return host, total\n",
        ),
        # Twice again in one statement, and once per loop iteration after it.
        Invalid(
            "def f(x, n):\n    a = x.item()\n    b = (x.item(), x.item())\n"
            "    for i in range(n):\n        print(x.item())\n",
            fixed="def f(x, n):\n    a = x.item()\n    b = (a, a)\n"
            "    for i in range(n):\n        print(a)\n",
            count=3,
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        model = ctx.model
        text = ctx.text
        locator = ctx.locator
        # Where a sync call's method name may be, found once: a function is
        # looked at only if two fall within its lines, and only their rows.
        found = _sync_call_names(text)
        if found is not None and len(found) < 2:
            return
        found_rows = None if found is None else locator.row_of_each(found)
        ascii_text = text.isascii()
        for info in model.functions:
            function = info.node
            end_row = function.end_lineno or function.lineno
            rows = None
            if found_rows is not None:
                first = bisect.bisect_left(found_rows, function.lineno)
                last = bisect.bisect_right(found_rows, end_row)
                if last - first < 2:
                    continue
            if found_rows is not None and (
                ascii_text
                or text[
                    locator.line_start(function.lineno) : locator.full_line_end(end_row)
                ].isascii()
            ):
                # (else an identifier may be spelled otherwise: look at all)
                rows = sorted(set(found_rows[first:last]))
            groups = _repeated_sync_calls(function, rows)
            if not groups:
                continue
            flow = model.flow(function)
            if flow.dynamic_scope:
                continue
            analysis = invalidation_for(flow, model.scope(info.node))
            yield from self._check_function(ctx, flow, analysis, groups)

    def _check_function(
        self,
        ctx: Context,
        flow: FunctionFlow,
        analysis: Invalidation,
        groups: list[list[ast.Call]],
    ) -> Iterator[Finding]:
        candidates: list[tuple[ast.Call, list[ast.Call], frozenset]] = []
        for calls in groups:
            reads = analysis.read_paths(calls[0].func.value)  # type: ignore[attr-defined]
            if reads is None or _holds_numpy_only(flow, analysis, calls[0]):
                continue
            for call in calls:
                candidates.append((call, calls, reads))
        # Outer chains first, so a chain inside a reported one is not reported again.
        candidates.sort(key=lambda c: _outer_first(c[0]))
        reported: list[tuple[tuple[int, int], tuple[int, int]]] = []
        for second, calls, reads in candidates:
            span = ((second.lineno, second.col_offset), _end_position(second))
            if any(s <= span[0] and span[1] <= e for s, e in reported):
                continue
            point2 = analysis.point(second)
            if point2 is None:
                continue
            firsts: list[tuple[ast.Call, Point]] = []
            for first in calls:
                if first is second:
                    continue
                point1 = analysis.point(first)
                if point1 is None or not analysis.executes_before(point1, point2):
                    continue
                if analysis.changed_between(reads, point1, point2) is None:
                    firsts.append((first, point1))
            if not firsts:
                continue
            reported.append(span)
            yield self._report(ctx, flow, analysis, second, point2, firsts)

    def _report(
        self,
        ctx: Context,
        flow: FunctionFlow,
        analysis: Invalidation,
        second: ast.Call,
        point2: Point,
        firsts: list[tuple[ast.Call, Point]],
    ) -> Finding:
        chain = ctx.locator.segment(second)
        if "\n" in chain or len(chain) > 60:
            chain = f"...{chain.rsplit('.', 1)[-1]}" if "." in chain else chain
        nearest = max(firsts, key=lambda item: (item[0].lineno, item[0].col_offset))[0]
        message = (
            f"Repeated host sync `{chain}`: the same value was computed at line "
            f"{nearest.lineno} and nothing in between changes it"
        )
        fix = self._fix(ctx, flow, analysis, second, point2, firsts)
        if fix is not None and class_hooks(ctx.model).load_may_run_code(second):
            # ``m.item()`` of an object of the module's own class (its
            # ``item``, a property on the way) would run once less.
            fix = Fix(fix.edits, Applicability.UNSAFE, fix.message, fix.isolation)
            message += (
                "; a class of this module defines code that the chain may run "
                "(a method of that name, a property), which would run once less"
            )
        elif fix is not None and fix.applicability is Applicability.SAFE:
            if any(analysis.class_code_between(point1, point2) for _, point1 in firsts):
                # ``if o:`` or ``o + 1`` between them runs a special method
                # of the module's own class, which may change the tensor.
                fix = Fix(fix.edits, Applicability.UNSAFE, fix.message, fix.isolation)
                message += (
                    "; code of this module may run in between (a special "
                    "method of its class: an operator's, a truth test's, one "
                    "a builtin runs: `len(o)`; a property; a finalizer), "
                    "which may change it"
                )
            elif any(
                analysis.mode_may_change_between(
                    point1, point2, values_only=not reads_grad_mode(second)
                )
                for _, point1 in firsts
            ):
                # ``with torch.autocast(...)``, ``torch.set_flush_denormal``
                # or unknown code in between: the chain's operations may
                # compute another value from the same tensor.
                fix = Fix(fix.edits, Applicability.UNSAFE, fix.message, fix.isolation)
                message += (
                    "; torch's global modes may change in between (a `with` "
                    "block, a call of code not seen here, "
                    "`torch.set_flush_denormal`: autocast, the default dtype), "
                    "which may make the chain compute another value"
                )
            elif takes_identities(flow.function):
                # ``t = s`` makes two float objects one: ``t is s``, ``id(t)``
                # told them apart before the fix.
                fix = Fix(fix.edits, Applicability.UNSAFE, fix.message, fix.isolation)
                message += (
                    "; the function compares identities (`a is b`, `id(a)`), "
                    "which tell the two values' objects apart"
                )
        return ctx.report(self, second, message, fix)

    def _fix(
        self,
        ctx: Context,
        flow: FunctionFlow,
        analysis: Invalidation,
        second: ast.Call,
        point2: Point,
        firsts: list[tuple[ast.Call, Point]],
    ) -> Fix | None:
        if inside_fstring(second, flow.parents):
            return None
        method = second.func.attr  # type: ignore[attr-defined]
        applicability = Applicability.SAFE if method == "item" else Applicability.UNSAFE
        # The latest binding first: it is the one most likely still current.
        for first, point1 in sorted(
            firsts, key=lambda item: (item[0].lineno, item[0].col_offset), reverse=True
        ):
            name = _bound_name(flow, first)
            if name is None:
                continue
            binding = flow.parents[first]
            after_binding = Point(point1.block, binding)
            if method == "item":
                # An int or float cannot change in place: only rebinding matters.
                if any(
                    effect.kind is ChangeKind.REBIND and effect.path == (name,)
                    for effect in analysis.effects_between(after_binding, point2)
                ):
                    continue
            elif analysis.changed_between([(name,)], after_binding, point2) is not None:
                continue
            statement = flow.parents.get(second)
            if isinstance(statement, ast.Assign) and _bound_name(flow, second) == name:
                # `name = <chain>` again: the statement is redundant as a whole.
                info = flow.stmt_info[statement]
                edit = delete_statement(statement, info.body, ctx.locator)
                return Fix(
                    (edit,),
                    applicability,
                    "Remove the repeated assignment",
                    isolation=block_key(info.body, ctx.locator),
                )
            edit = Edit(ctx.locator.start(second), ctx.locator.end(second), name)
            return Fix((edit,), applicability, f"Reuse `{name}`")
        return None


def _bound_name(flow: FunctionFlow, call: ast.Call) -> str | None:
    """``name`` when ``call`` is the whole value of ``name = call``, a private local."""
    statement = flow.parents.get(call)
    if not (
        isinstance(statement, ast.Assign)
        and statement.value is call
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return None
    name = statement.targets[0].id
    if not flow.is_private_local(name):
        return None
    if any(event.nested for event in flow.events_of(name)):
        return None
    return name


def _repeated_sync_calls(
    function: ast.AST, rows: list[int] | None = None
) -> list[list[ast.Call]]:
    """Sync calls of the function's own code grouped by structure, groups of two or more.

    ``rows`` (sorted), when given, are the only rows where a sync method's name
    occurs: code on other rows is not looked into.
    """
    # By method and receiver shape first; calls are compared whole
    # (``ast.dump``) only where those repeat.
    groups: dict[Hashable, list[ast.Call]] = {}
    # Depth first, in source order; a node is pushed only if it may hold a
    # call (not a context, an operator or a constant) and spans a row.
    stack: list[ast.AST] = [
        node
        for node in reversed(function.body)  # type: ignore[attr-defined]
        if rows is None or _spans_a_row(node, rows)
    ]
    leaves = LEAF_TYPES
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if (
            type(node) is ast.Call
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SYNC_METHODS
            and not node.args
            and not node.keywords
        ):
            receiver = node.func.value
            name = getattr(receiver, "id", None) or getattr(receiver, "attr", None)
            key = (node.func.attr, type(receiver), name)
            groups.setdefault(key, []).append(node)
        children = [
            child
            for child in child_nodes(node)
            if type(child) not in leaves and (rows is None or _spans_a_row(child, rows))
        ]
        children.reverse()
        stack.extend(children)
    repeated: list[list[ast.Call]] = []
    for calls in groups.values():
        if len(calls) < 2:
            continue
        equal: dict[str, list[ast.Call]] = {}
        for call in calls:
            equal.setdefault(ast.dump(call), []).append(call)
        repeated.extend(same for same in equal.values() if len(same) > 1)
    return repeated


def _sync_call_names(text: str) -> list[int] | None:
    """Sorted offsets of every sync method name (``item``...) that is a whole
    word followed by an empty argument list, however spelled (``x.item ()``,
    ``x.item(\\n)``): a sync call's name spelled in ASCII is always one of
    them. None (look everywhere) without the pre-filters, or where a name
    may be spelled with other characters that Python reads as the same
    (``ｉｔｅｍ``)."""
    if not prefilter.enabled() or prefilter.may_respell_ascii(text):
        return None
    found: list[int] = []
    call = _EMPTY_CALL.match
    for name in SYNC_METHODS:
        size = len(name)
        position = text.find(name)
        while position >= 0:
            end = position + size
            # (the empty call first: most occurrences are part of a longer
            # name, ``seq_lens_cpu``, and none of them is followed by one)
            if call(text, end):
                before = text[position - 1] if position else " "
                after = text[end : end + 1]
                if not (before.isalnum() or before == "_") and not (
                    after.isalnum() or after == "_"
                ):
                    found.append(position)
            position = text.find(name, end)
    found.sort()
    return found


def _spans_a_row(node: ast.AST, rows: list[int]) -> bool:
    """Whether ``node`` (if it has a position) spans one of ``rows``."""
    first = getattr(node, "lineno", None)
    if first is None:
        return True
    index = bisect.bisect_left(rows, first)
    return index < len(rows) and rows[index] <= (node.end_lineno or first)  # type: ignore[attr-defined]


def _end_position(node: ast.AST) -> tuple[int, int]:
    return (node.end_lineno or 0, node.end_col_offset or 0)  # type: ignore[attr-defined]


def _outer_first(node: ast.AST) -> tuple[int, int, int, int]:
    end_row, end_column = _end_position(node)
    return (node.lineno, node.col_offset, -end_row, -end_column)  # type: ignore[attr-defined]


def _holds_numpy_only(
    flow: FunctionFlow, analysis: Invalidation, call: ast.Call
) -> bool:
    """Whether the chain's receiver is a local bound only to NumPy results
    (``image = np.arange(n).reshape(4, -1)``): ``.tolist()`` of a NumPy array
    copies host memory and waits for no device."""
    receiver = call.func.value  # type: ignore[attr-defined]
    while isinstance(receiver, (ast.Attribute, ast.Subscript)):
        receiver = receiver.value
    if not isinstance(receiver, ast.Name) or not flow.is_private_local(receiver.id):
        return False
    stores = flow.stores_of(receiver.id)
    return bool(stores) and all(
        _numpy_value(flow, analysis, event.node) for event in stores
    )


def _numpy_value(flow: FunctionFlow, analysis: Invalidation, target: ast.AST) -> bool:
    """Whether ``target`` is bound (alone) to a NumPy function's result, or a
    method, attribute or item of one (``np.arange(n).reshape(4, -1)``)."""
    statement = flow.parents.get(target)
    if isinstance(statement, ast.Assign) and statement.targets == [target]:
        value: ast.expr = statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        value = statement.value
    else:
        return False
    names = analysis.names
    while names is not None:
        if isinstance(value, ast.Call):
            qualified = names.qualified_name(value.func)
            if qualified is not None:
                return qualified.startswith("numpy.")
            if not isinstance(value.func, ast.Attribute):
                return False
            value = value.func.value  # a method: what it is called on
        elif isinstance(value, (ast.Attribute, ast.Subscript)):
            value = value.value
        else:
            return False
    return False
