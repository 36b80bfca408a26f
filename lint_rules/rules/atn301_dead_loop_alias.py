"""ATN301 dead-loop-alias."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterator

from lint_rules import prefilter
from lint_rules.analysis.class_hooks import module_runs_finalizers
from lint_rules.analysis.flow import FunctionFlow, Kind, annotations_of
from lint_rules.analysis.hot_paths import jit_compiled as _jit_compiled
from lint_rules.analysis.invalidation import (
    Point,
    invalidation_for,
    takes_identities,
)
from lint_rules.analysis.value_kinds import int_names, number_names
from lint_rules.context import Context
from lint_rules.diagnostics import Applicability, Edit, Finding, Fix
from lint_rules.edits import delete_statement, inline_text, inside_fstring
from lint_rules.fixes.blocks import block_key
from lint_rules.rules.base import Invalid, Rule


class DeadLoopAlias(Rule):
    """## What it does
    Checks for assignments inside a loop body that only give another name to a
    loop-local value (`start = idx`, `end = idx + 1`) when every use of the new
    name follows in the same iteration, in code that runs per step (a
    function `hot-path-methods` names, or one it calls; set `hot-paths-only
    = false` to report everywhere). Functions compiled by a JIT compiler
    (`@triton.jit`, `@numba.njit`, the `jit-decorators`) are left alone: the
    compiler removes the alias. A name for a bare constant
    (`k_alpha = 0.7978845608028654`) is a named value, not an alias.

    ## Why is this bad?
    In a per-request loop of a decode or replay path, each alias is one more
    store and load per iteration and one more name for a reader to track. The
    aliased expression can stand in its place at each use: the value is the
    same, because nothing it reads changes in between.

    A name is only reported when it is bound nowhere else in the function,
    every use of it comes after the assignment in the same block of the same
    iteration, it is not used after the loop, nor in a nested function,
    lambda or comprehension, and no name the value reads is rebound between
    the assignment and its last use. The value must be a name, a constant, or
    names and constants joined by `+` or `-`.

    A sum or difference makes a new object at each use once inlined: used more
    than once, its names must hold numbers (literals, `int(...)`, `len(...)`,
    `x.item()`, `x.numel()`, `x.size(d)`, `range` and `enumerate` indices, and
    sums, differences and products of those), since repeating tensor
    arithmetic repeats its kernels, and a list or tensor result changed in
    place through the alias would no longer be shared. Used once, nothing
    between the assignment and the use may change what its names hold (an
    in-place method, a store into it, passing it to an unknown call, unknown
    code that can reach it: a closure that uses it, or any call once it
    came from or was given to unknown code).

    ## Example
    ```python
    for idx, seq_len in enumerate(seq_lens):
        start = idx
        end = idx + 1
        page_table[start:end, :seq_len] = req_to_token[start:end, :seq_len]
    ```

    ## Use instead
    ```python
    for idx, seq_len in enumerate(seq_lens):
        page_table[idx : idx + 1, :seq_len] = req_to_token[idx : idx + 1, :seq_len]
    ```

    ## Fix safety
    The fix puts the aliased expression at each use, in parentheses where the
    surrounding operator binds tighter (`xs[i] * (i + 1)`), and deletes the
    assignment. A slice whose bound becomes an expression is spaced as ruff
    format writes it (`idx : idx + 1`). An alias that is never used is deleted. It is safe when the
    value cannot raise: a constant, a name bound on every path to the
    assignment, a sum or difference of integers (names that hold an `int`:
    `range` and `enumerate` indices, `int(...)`, `len(...)`, `x.numel()`,
    and integer constants).

    A value that may raise (`v + 1` of a string, a name that may be unbound,
    `i + "x"`, a slice, `i + 0.5` or `i + x.item()`: an `int` past the
    floats' range and a float raise `OverflowError`)
    raises at the assignment; once inlined it raises at the first use
    instead, and once deleted not at all. The fix is then unsafe, unless the
    first use is what the very next statement evaluates first, outside any
    `try` or other body, with nothing before it that has an effect or may
    raise another exception first: only names and constants (`print(s)`,
    `d[s] = 0`; not `out.append(s)`, which looks `append` up before, nor
    `print(d["k"], s)`).

    A sum inlined at several uses is computed at each; that is safe for
    numbers, which are immutable, and unsafe where a name is a number only by
    its parameter's annotation (`def f(n: int)`): nothing checks it at the
    call, and `i + n` of lists would be a new list at each use. It is unsafe,
    too, where the function compares identities (`a is b`, `id(a)`): the
    alias shared one number object, the uses then each make their own.

    No fix is offered where the alias's name is part of the output
    (`f"{alias=}"` prints `alias=`), or where a string or bytes value, or
    a value written over several lines (a line break, a comment, a
    backslash continuation), would go inside an f-string on Python before
    3.12 (which does not allow the same quotes, a backslash, a comment or,
    in a single-quoted f-string, a line break there).

    ## Options
    - `hot-path-methods`
    - `hot-paths-only`
    - `jit-decorators`
    """

    code = "ATN301"
    name = "dead-loop-alias"
    triggers = ("for", "while")
    fix_availability = "sometimes"
    severity = "error"

    valid = (
        # Used after the loop.
        "def forward(xs):\n    for i in xs:\n        last = i\n    return last\n",
        # A name the value reads is rebound before the use.
        "def forward(xs):\n    for i in xs:\n        j = i\n        i = i + 1\n        print(j, i)\n",
        # Used in a lambda.
        "def forward(xs, fs):\n    for i in xs:\n        j = i\n        fs.append(lambda: j)\n",
        # Used in a comprehension.
        "def forward(xs, n):\n    for i in xs:\n        j = i\n        print([j + k for k in range(n)])\n",
        # The alias is rebound elsewhere.
        "def forward(xs):\n    for i in xs:\n        j = i\n        print(j)\n        j = 0\n",
        # A global.
        "def forward(xs):\n    global j\n    for i in xs:\n        j = i\n        print(j)\n",
        # The value is a call, not a name.
        "def forward(xs):\n    for i in xs:\n        j = len(i)\n        print(j)\n",
        # Used before the assignment (the previous iteration's value).
        "def forward(xs):\n    j = 0\n    for i in xs:\n        print(j)\n        j = i\n",
        # Used in another branch, not after it in the same block.
        "def forward(xs, c):\n    for i in xs:\n        if c:\n            j = i\n        else:\n            print(j)\n",
        # Module level: the alias is a global.
        "for i in range(3):\n    j = i\n    print(j)\n",
        # Not in a loop.
        "def forward(i):\n    j = i\n    return j\n",
        # locals() can see every name.
        "def forward(xs):\n    for i in xs:\n        j = i\n        print(locals())\n",
        # Tensor arithmetic used twice: inlining would run its kernel twice.
        "def forward(rows, first):\n    for row in rows:\n        rel = row - first\n"
        "        print(rel.max(), rel.min())\n",
        # A closure changes an operand between the alias and its use.
        "def forward(rows, extra):\n    acc = [0]\n    def bump():\n        acc.append(9)\n"
        "    for r in rows:\n        before = acc + extra\n        bump()\n"
        "        print(before)\n",
        # A name the value reads is changed in place before the use.
        "def forward(rows, acc):\n    for row in rows:\n        before = acc + row\n"
        "        acc.add_(row)\n        print(before)\n",
        # Not known to run per step (``hot-paths-only``, the default).
        "def copy_rows(xs):\n    for i in xs:\n        j = i\n        print(j)\n",
        # A JIT-compiled kernel: the compiler removes the alias (``jit-decorators``).
        "import triton\n@triton.jit\ndef forward(xs):\n    for i in xs:\n"
        "        j = i\n        print(j)\n",
        # A named constant, not an alias.
        "def forward(xs):\n    for i in xs:\n        k_alpha = 0.7978845608028654\n"
        "        print(i * k_alpha)\n",
    )

    invalid = (
        Invalid(
            "def forward(table, cache, lens):\n"
            "    for idx, n in enumerate(lens):\n"
            "        start = idx\n"
            "        end = idx + 1\n"
            "        table[start:end, :n] = cache[start:end, :n]\n",
            fixed="def forward(table, cache, lens):\n"
            "    for idx, n in enumerate(lens):\n"
            "        table[idx : idx + 1, :n] = cache[idx : idx + 1, :n]\n",
            count=2,
        ),
        Invalid(
            "def forward(xs, i):\n    while i < 4:\n        j = i + 1\n        xs[i] = xs[i] * j\n"
            "        i += 1\n",
            fixed="def forward(xs, i):\n    while i < 4:\n        xs[i] = xs[i] * (i + 1)\n"
            "        i += 1\n",
        ),
        Invalid(
            "def forward(xs):\n    for i in xs:\n        unused = i\n        print(i)\n",
            fixed="def forward(xs):\n    for i in xs:\n        print(i)\n",
        ),
        Invalid(
            "def forward(n):\n    for i in range(n):\n        j = i - 1\n        print(-j, j - 1, 1 - j)\n",
            fixed="def forward(n):\n    for i in range(n):\n        print(-(i - 1), i - 1 - 1, 1 - (i - 1))\n",
        ),
        # Self-documenting f-string: the name is printed, no fix.
        Invalid(
            "def forward(n):\n    for i in range(n):\n        s = i + 1\n        print(f'{s=}')\n"
        ),
        # May raise (a string plus one): deleting it is unsafe.
        Invalid(
            "def forward(vs):\n    for v in vs:\n        s = v + 1\n        print(v)\n",
            fixed="def forward(vs):\n    for v in vs:\n        print(v)\n",
        ),
        Invalid(
            "def forward(xs):\n    for i in xs:\n        j = i; print(j)\n",
            fixed="def forward(xs):\n    for i in xs:\n        print(i)\n",
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        model = ctx.model
        for info in model.functions:
            # Assignments of an alias-shaped value to one name, in a loop body.
            candidates = [
                stmt
                for stmt, in_loop in info.bindings
                if in_loop and type(stmt) is ast.Assign and _is_alias(stmt)
            ]
            if not candidates:
                continue
            # Before the flow: an alias that another statement of the function
            # also binds is not an alias of one value (most candidates).
            if prefilter.enabled():
                stored = _statement_stores(info.bindings)
                candidates = [
                    stmt for stmt in candidates if stored[stmt.targets[0].id] == 1
                ]
                if not candidates:
                    continue
            if ctx.options.hot_paths_only and ctx.hot_paths.per_step(info.node) is None:
                continue  # waste worth a commit only where it runs per step
            if _jit_compiled(info, model, ctx.options.jit_decorators):
                continue  # the kernel compiler removes the alias anyway
            flow = model.flow(info.node)
            for stmt in candidates:
                finding = self._check_alias(ctx, flow, stmt)
                if finding is not None:
                    yield finding

    def _check_alias(
        self, ctx: Context, flow: FunctionFlow, stmt: ast.Assign
    ) -> Finding | None:
        target = stmt.targets[0]
        assert isinstance(target, ast.Name)
        alias, value = target.id, stmt.value
        if not flow.is_private_local(alias):
            return None
        if [e.node for e in flow.stores_of(alias)] != [target]:
            return None
        info = flow.stmt_info[stmt]
        loads = flow.loads_of(alias)
        last_index = info.index
        for load in loads:
            if load.nested:
                return None
            index = _index_in_body(flow, load.node, info.body)
            if index is None or index <= info.index:
                return None
            last_index = max(last_index, index)
        read_names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
        if loads and _rebound_between(
            flow, read_names, info.body[info.index + 1 : last_index + 1]
        ):
            return None
        for name in read_names:
            # The value must be the function's own, unshared local.
            if not flow.is_private_local(name) or not flow.has_stores(name):
                return None
            if any(e.nested for e in flow.stores_of(name)):
                return None
        numbers = read_names <= number_names(flow, ctx.model.scope(flow.function))
        if isinstance(value, ast.BinOp) and loads and not numbers:
            # Inlined, the sum is computed anew at each use.
            if len(loads) > 1:
                return None  # tensor arithmetic repeated, or a fresh list shared
            if self._changed_before_use(ctx, flow, stmt, loads[0].node):
                return None
        value_text = ctx.locator.segment(value)
        fix = self._fix(ctx, flow, stmt, info.body, value, value_text, loads)
        if (
            fix is not None
            and numbers
            and isinstance(value, ast.BinOp)
            and len(loads) > 1
            and not read_names
            <= number_names(flow, ctx.model.scope(flow.function), annotations=False)
        ):
            # Numbers only by a parameter's annotation, which the call does
            # not check: lists passed as ``n: int`` make ``i + n`` a new list
            # at each use, where the alias shared one.
            fix = Fix(fix.edits, Applicability.UNSAFE, fix.message, fix.isolation)
        elif (
            fix is not None
            and isinstance(value, ast.BinOp)
            and len(loads) > 1
            and takes_identities(flow.function)
        ):
            # ``i + 1000`` inlined at two uses makes two int objects where the
            # alias shared one: ``a is b``, ``id(a)`` tell them apart.
            fix = Fix(fix.edits, Applicability.UNSAFE, fix.message, fix.isolation)
        if fix is not None and self._may_raise(ctx, flow, stmt, read_names):
            # The value may raise (``v + 1`` of a string, an unbound name):
            # deleting it drops the exception; inlining moves it to the first
            # use, which must then come first in the very next statement.
            if not loads or not self._raises_in_place(ctx, flow, stmt, loads):
                fix = Fix(fix.edits, Applicability.UNSAFE, fix.message, fix.isolation)
        if loads:
            message = f"Loop alias `{alias}` only renames `{value_text}`; use `{value_text}` directly"
        else:
            message = f"Loop alias `{alias}` is assigned but never used"
        if (
            fix is not None
            and fix.applicability is Applicability.SAFE
            and module_runs_finalizers(ctx.model.scope(flow.function))
            and not read_names
            <= number_names(flow, ctx.model.scope(flow.function), annotations=False)
        ):
            # The alias keeps its object alive until it is rebound: without
            # it, a finalizer of the module (``__del__``, a weakref callback)
            # runs at another point of the loop. (A number, of names that
            # always hold one, refers to nothing and has no finalizer.)
            fix = Fix(fix.edits, Applicability.UNSAFE, fix.message, fix.isolation)
            message += (
                "; this module has finalizers (`__del__`, weakref or gc "
                "callbacks, a generator's or coroutine's cleanup around its "
                "`yield` or `await`), which "
                "the alias's hold on its value may delay"
            )
        return ctx.report(self, stmt, message, fix)

    @staticmethod
    def _may_raise(
        ctx: Context, flow: FunctionFlow, stmt: ast.Assign, read_names: set[str]
    ) -> bool:
        """Whether evaluating the alias's value may raise: a sum or difference
        of anything but integers (a string and an int, an int and ``"x"`` or
        ``None``, a slice, an int past the floats' range and a float), or a
        name that may be unbound there."""
        if isinstance(stmt.value, ast.BinOp) and not _integer_sum(
            stmt.value, int_names(flow, ctx.model.scope(flow.function))
        ):
            return True
        block = flow.block_of(stmt)
        return not all(flow.bound_on_entry(name, block) for name in read_names)

    @staticmethod
    def _raises_in_place(
        ctx: Context, flow: FunctionFlow, stmt: ast.Assign, loads: list
    ) -> bool:
        """Whether the first use of the alias, once inlined, raises where the
        assignment did: it is evaluated first, unconditionally, by the very
        next statement of the same block (not inside a ``try`` or any other
        body), with nothing evaluated before it that has an effect."""
        info = flow.stmt_info[stmt]
        if info.index + 1 >= len(info.body):
            return False
        following = info.body[info.index + 1]
        first = min(loads, key=lambda load: load.order).node
        analysis = invalidation_for(flow, ctx.model.scope(flow.function))
        at = analysis.point(first)
        if at is None or at.block is not flow.block_of(following):
            return False
        if analysis.conditional(at):
            return False
        after = Point(flow.block_of(stmt), stmt)
        if next(iter(analysis.effects_between(after, at)), None) is not None:
            return False
        # Nor may anything evaluated before it raise another exception first
        # (``out.append(s)`` looks ``append`` up, ``d[k][s]`` reads ``d[k]``).
        block = flow.block_of(following)
        scope = ctx.model.scope(flow.function)

        def cannot_raise(node: ast.AST) -> bool:
            if isinstance(node, ast.Constant):
                return True
            if isinstance(node, ast.Name):
                if not isinstance(node.ctx, ast.Load):
                    return True  # a target name: binding it raises nothing
                found, _ = scope.lookup(node.id)
                if found is None:
                    return True  # a builtin
                if found is scope:
                    return flow.bound_on_entry(node.id, block)
                return True  # the module's, or an enclosing function's
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                # ``out.append`` of a local that only ever holds a list.
                kind = _container_kind(flow, node.value.id)
                return (
                    kind is not None
                    and hasattr(kind, node.attr)
                    and cannot_raise(node.value)
                )
            return False

        return _evaluated_first(following, first, cannot_raise)

    def _changed_before_use(
        self, ctx: Context, flow: FunctionFlow, stmt: ast.Assign, use: ast.AST
    ) -> bool:
        """Whether code between the alias and its use may change what the
        value reads: an in-place method or a store on one of its names, or a
        call they are passed to (``acc.add_(row)``, ``kernel(acc)``). Code
        that is merely unknown, with none of them in reach, is not counted."""
        analysis = invalidation_for(flow, ctx.model.scope(flow.function))
        reads = analysis.read_paths(stmt.value)
        after = Point(flow.block_of(stmt), stmt)
        at = analysis.point(use)
        if reads is None or at is None:
            return True
        changed = analysis.changed_between(reads, after, at)
        return changed is not None

    def _fix(self, ctx, flow, stmt, body, value, value_text, loads) -> Fix | None:
        # What an f-string's replacement field cannot hold before Python
        # 3.12: a string's quotes or backslashes, and a value written over
        # several lines (a line break, a comment, a continuation).
        not_in_fstring = any(
            isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes))
            for n in ast.walk(value)
        ) or any(mark in value_text for mark in "\r\n\\#")
        edits = [delete_statement(stmt, body, ctx.locator)]
        in_slices: dict[ast.Slice, dict[ast.AST, str]] = {}
        for load in loads:
            if not_in_fstring and inside_fstring(load.node, flow.parents):
                return None
            if self_documenting(load.node, flow.parents, ctx):
                return None  # ``f"{alias=}"`` prints the name itself
            if in_annotation(load.node, flow.parents):
                # ``def g(a: alias)`` keeps the value in ``__annotations__``,
                # or, postponed, the text itself.
                return None
            parent = flow.parents.get(load.node)
            text = inline_text(value, value_text, load.node, parent)
            bounds = _enclosing_slice(load.node, flow.parents)
            if bounds is not None:
                in_slices.setdefault(bounds, {})[load.node] = text
                continue
            edits.append(
                Edit(ctx.locator.start(load.node), ctx.locator.end(load.node), text)
            )
        for bounds, texts in in_slices.items():
            edits.extend(_slice_edits(bounds, texts, ctx))
        if loads:
            message = f"Replace with `{value_text}` and remove the assignment"
        else:
            message = "Remove the assignment"
        return Fix(
            tuple(edits),
            Applicability.SAFE,
            message,
            isolation=block_key(body, ctx.locator),
        )


def in_annotation(node: ast.AST, parents: dict) -> bool:
    """Whether ``node`` is part of a parameter or return annotation of a
    ``def`` (evaluated there and kept, or kept as text when postponed)."""
    child, parent = node, parents.get(node)
    while parent is not None and not isinstance(parent, ast.stmt):
        child, parent = parent, parents.get(parent)
    if not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(child is annotation for annotation in annotations_of(parent))


def self_documenting(node: ast.AST, parents: dict, ctx: Context) -> bool:
    """Whether ``node`` is the expression of ``f"{node=}"``, which prints its
    own text."""
    if not isinstance(parents.get(node), ast.FormattedValue):
        return False
    text = ctx.text
    cursor = ctx.locator.end(node)
    while cursor < len(text) and text[cursor] in " \t\r\n":
        cursor += 1
    return text.startswith("=", cursor) and not text.startswith("==", cursor)


def _statement_stores(bindings: list[tuple[ast.stmt, bool]]) -> Counter[str]:
    """How many times statements of the function's own code bind each name as
    a whole target: ``x = ...``, ``x += ...``, ``x: T = v``, ``for x in``,
    tuples of names included. Every one is a store of the name in its flow."""
    counts: Counter[str] = Counter()
    for stmt, _ in bindings:
        if type(stmt) is ast.Assign:
            for target in stmt.targets:
                _count_names(target, counts)
        elif type(stmt) is not ast.AnnAssign or stmt.value is not None:
            _count_names(stmt.target, counts)  # type: ignore[attr-defined]
    return counts


def _count_names(target: ast.expr, counts: Counter[str]) -> None:
    if type(target) is ast.Name:
        counts[target.id] += 1
    elif type(target) is ast.Tuple or type(target) is ast.List:
        for element in target.elts:
            _count_names(element, counts)


def _is_alias(stmt: ast.Assign) -> bool:
    return (
        len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and _is_alias_value(stmt.value)
        # A bare constant (``to_drop = False``, ``kAlpha = 0.79788``) names
        # a value: inlining it writes ``if False:`` and loses the name.
        and any(isinstance(node, ast.Name) for node in ast.walk(stmt.value))
    )


def _integer_sum(value: ast.expr, ints: frozenset[str]) -> bool:
    """Whether every name and constant of an alias's value holds an ``int``
    (or a ``bool``): their sum or difference cannot raise."""
    if isinstance(value, ast.Name):
        return value.id in ints
    if isinstance(value, ast.Constant):
        return type(value.value) in (int, bool)
    if isinstance(value, ast.UnaryOp):
        return _integer_sum(value.operand, ints)
    if isinstance(value, ast.BinOp):
        return _integer_sum(value.left, ints) and _integer_sum(value.right, ints)
    return False


def _is_alias_value(value: ast.expr) -> bool:
    if isinstance(value, ast.Name):
        return True
    if isinstance(value, ast.Constant):
        return (
            isinstance(value.value, (int, float, complex, str, bytes, bool))
            or value.value is None
        )
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        return isinstance(value.operand, ast.Constant) and isinstance(
            value.operand.value, (int, float)
        )
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)):
        return _is_alias_value(value.left) and _is_alias_value(value.right)
    return False


_CONTAINER_DISPLAYS: dict[type, type] = {
    ast.List: list,
    ast.ListComp: list,
    ast.Dict: dict,
    ast.DictComp: dict,
    ast.Set: set,
    ast.SetComp: set,
}


def _container_kind(flow: FunctionFlow, name: str) -> type | None:
    """``list``, ``dict`` or ``set`` when every binding of the local ``name``
    is a display or comprehension of that kind (``out = []``), else None:
    looking up one of that type's methods on it cannot raise."""
    kinds = set()
    for event in flow.stores_of(name):
        parent = flow.parents.get(event.node)
        if (
            event.kind is not Kind.STORE
            or event.nested
            or not isinstance(parent, ast.Assign)
            or parent.targets != [event.node]
        ):
            return None
        kind = _CONTAINER_DISPLAYS.get(type(parent.value))
        if kind is None:
            return None
        kinds.add(kind)
    return kinds.pop() if len(kinds) == 1 else None


def _evaluated_first(
    node: ast.AST, use: ast.AST, cannot_raise: Callable[[ast.AST], bool]
) -> bool:
    """Whether evaluating ``node`` evaluates ``use`` before anything that may
    raise: everything Python evaluates before it (the callee before the
    arguments, the left operand before the right, an assignment's value
    before its targets) is a constant or a name ``cannot_raise`` accepts."""
    if node is use:
        return True
    kind = type(node)
    parts: list[ast.AST | None]
    if kind is ast.Assign:
        # The value, then each target's own parts (``d[s] = 0``: ``d``, ``s``).
        parts = [node.value, *node.targets]  # type: ignore[attr-defined]
    elif kind in (ast.Expr, ast.Return, ast.Await, ast.Yield):
        parts = [node.value]  # type: ignore[attr-defined]
    elif kind is ast.AnnAssign:
        parts = [node.value]  # type: ignore[attr-defined]
    elif kind in (ast.Attribute, ast.Starred, ast.keyword, ast.FormattedValue):
        parts = [node.value]  # type: ignore[attr-defined]
    elif kind is ast.UnaryOp:
        parts = [node.operand]  # type: ignore[attr-defined]
    elif kind in (ast.If, ast.While, ast.Assert):
        parts = [node.test]  # type: ignore[attr-defined]
    elif kind in (ast.For, ast.AsyncFor):
        parts = [node.iter]  # type: ignore[attr-defined]
    elif kind is ast.Subscript:
        parts = [node.value, node.slice]  # type: ignore[attr-defined]
    elif kind is ast.Slice:
        parts = [node.lower, node.upper, node.step]  # type: ignore[attr-defined]
    elif kind is ast.BinOp:
        parts = [node.left, node.right]  # type: ignore[attr-defined]
    elif kind is ast.Compare:
        # A second comparison runs the first one's operator before it.
        parts = [node.left, node.comparators[0]]  # type: ignore[attr-defined]
        if len(node.comparators) > 1:  # type: ignore[attr-defined]
            parts = parts[:1]
    elif kind is ast.BoolOp or kind is ast.IfExp:
        # The first value's truth is asked before the others are evaluated.
        parts = [node.values[0] if kind is ast.BoolOp else node.test]  # type: ignore[attr-defined]
    elif kind in (ast.Tuple, ast.List, ast.Set):
        parts = list(node.elts)  # type: ignore[attr-defined]
    elif kind is ast.Dict:
        parts = []
        for key, value in zip(node.keys, node.values, strict=True):  # type: ignore[attr-defined]
            parts.extend((key, value))
    elif kind is ast.Call:
        # Positional arguments (``*args`` among them) before keywords.
        parts = [node.func, *node.args, *node.keywords]  # type: ignore[attr-defined]
    elif kind is ast.JoinedStr:
        parts = list(node.values)  # type: ignore[attr-defined]
    else:
        return False
    for part in parts:
        if part is None:
            continue
        if any(inner is use for inner in ast.walk(part)):
            return _evaluated_first(part, use, cannot_raise)
        if not cannot_raise(part):
            return False
    return False


def _index_in_body(
    flow: FunctionFlow, node: ast.AST, body: list[ast.stmt]
) -> int | None:
    """Index in ``body`` of the statement that is, or encloses, ``node``."""
    stmt = flow.statement_of(node)
    while stmt is not None:
        info = flow.stmt_info.get(stmt)
        if info is None:
            return None
        if info.body is body:
            return info.index
        stmt = info.parent
    return None


def _rebound_between(
    flow: FunctionFlow, names: set[str], stmts: list[ast.stmt]
) -> bool:
    """Whether any of ``names`` is stored or deleted within ``stmts``."""
    if not stmts:
        return False
    first, last = stmts[0], stmts[-1]
    begin = (first.lineno, first.col_offset)
    end = (last.end_lineno, last.end_col_offset)
    for name in names:
        for event in flow.stores_of(name):
            node = event.node
            position = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
            if event.kind in (Kind.STORE, Kind.DEL) and begin <= position <= end:
                return True
    return False


def _enclosing_slice(node: ast.AST, parents: dict) -> ast.Slice | None:
    """The slice (``a:b``) whose bounds hold ``node``, if any, in its statement."""
    current = parents.get(node)
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, ast.Slice):
            return current
        current = parents.get(current)
    return None


def _slice_edits(
    bounds: ast.Slice, texts: dict[ast.AST, str], ctx: Context
) -> list[Edit]:
    """Edits putting ``texts`` where their nodes are in the bounds of a slice,
    the slice written as ruff format writes it: a bound that is more than a
    name or a number (``idx + 1``) spaces the colons (``idx : idx + 1``)."""
    locator = ctx.locator
    plain = [
        Edit(locator.start(node), locator.end(node), text)
        for node, text in texts.items()
    ]
    source = locator.segment(bounds)
    if "\n" in source or "\r" in source or "#" in source or "\\" in source:
        return plain
    parts: list[str | None] = []
    simple = True
    for part in (bounds.lower, bounds.upper, bounds.step):
        if part is None:
            parts.append(None)
            continue
        start = locator.start(part)
        text = locator.segment(part)
        inside = sorted(
            (
                (locator.start(node) - start, locator.end(node) - start, new)
                for node, new in texts.items()
                if start <= locator.start(node)
                and locator.end(node) <= locator.end(part)
            ),
            reverse=True,
        )
        for begin, end, new in inside:
            text = text[:begin] + new + text[end:]
        parts.append(text)
        simple = simple and _simple_bound_text(text)
    if simple:
        return plain
    if bounds.step is None and source.count(":") < 2:
        parts = parts[:2]
    formatted = ""
    for index, text in enumerate(parts):
        if index:
            if formatted and not formatted.endswith(":"):
                formatted += " "
            formatted += ":"
        if text:
            if formatted:
                formatted += " "
            formatted += text
    return [Edit(locator.start(bounds), locator.end(bounds), formatted)]


def _simple_bound(node: ast.expr) -> bool:
    """A slice bound ruff format keeps tight (``a:b``): a name, a number,
    ``None``, or a sign applied to one."""
    if isinstance(node, ast.UnaryOp) and isinstance(
        node.op, (ast.UAdd, ast.USub, ast.Invert)
    ):
        return _simple_bound(node.operand)
    if isinstance(node, ast.Constant):
        return node.value is None or (
            isinstance(node.value, (int, float, complex))
            and not isinstance(node.value, bool)
        )
    return isinstance(node, ast.Name)


def _simple_bound_text(text: str) -> bool:
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False
    return _simple_bound(node)
