"""ATN202 redundant-reassignment."""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable, Iterator

from lint_rules import prefilter
from lint_rules.analysis.class_hooks import ClassHooks, class_hooks
from lint_rules.analysis.flow import Block, FunctionFlow, nonempty_literal
from lint_rules.analysis.invalidation import (
    SUBSCRIPT,
    Change,
    ChangeKind,
    Invalidation,
    Path,
    Point,
    access_path,
    invalidation_for,
    paths_conflict,
    reads_grad_mode,
    takes_identities,
)
from lint_rules.analysis.nodes import COMPOUND_STATEMENTS, TryStar
from lint_rules.analysis.torch_api import VIEW_ATTRIBUTES
from lint_rules.context import Context
from lint_rules.diagnostics import Applicability, Finding, Fix
from lint_rules.edits import delete_statement
from lint_rules.fixes.blocks import block_key
from lint_rules.rules.base import Invalid, Rule

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# The types a pure value (see ``_value_key``) may have at its top besides an
# ``.item()`` call.
_PURE_TOPS = frozenset(
    {
        ast.Name,
        ast.Constant,
        ast.Attribute,
        ast.Subscript,
        ast.BinOp,
        ast.UnaryOp,
        ast.Compare,
        ast.Tuple,
    }
)


class RedundantReassignment(Rule):
    """## What it does
    Checks for an assignment `T = V` that repeats an earlier `T = V` (the same
    target, a name or an attribute chain, and the same value) when the
    earlier one always runs first and nothing in between can change `T` or
    anything `V` reads, in code that runs per step (a function
    `hot-path-methods` names, or one it calls; set `hot-paths-only = false`
    to report everywhere, start-up and capture code included).

    ## Why is this bad?
    The later statement stores the value the target already holds. In a
    replay path that runs for every decode step it is wasted work, and a
    reader has to check twice that the two values really are the same. Such
    pairs often appear when one of two identical computations was replaced
    by a variable (for instance by ATN201's fix) and the other was not.

    The value must be pure: names, attributes, constants, arithmetic and
    comparisons, subscripts and tuples of those, and `.item()` chains over
    them (`s.max().item()`), so evaluating it again gives the same value when
    nothing it reads has changed. It must not read the target itself
    (`x = x + 1` twice is not redundant). The earlier one must run whenever
    the later one does, to its end: not in a branch, a loop that may not
    run, a `try` body, or the body of a `with` whose context manager may
    swallow an exception. Between the two statements nothing may rebind or
    write the target or anything the value reads, in place or through an
    alias, nor pass them to a call that might change them; the rules are
    those of ATN201 (a number held by the target, from `.item()` or a
    constant, cannot change in place: only a store replaces it).

    ## Example
    ```python
    def replay(metadata, max_len, step, y):
        metadata.max_seq_len_k = max_len + (step + 1)
        metadata.cache_seqlens.copy_(y)
        metadata.max_seq_len_k = max_len + (step + 1)
    ```

    ## Use instead
    ```python
    def replay(metadata, max_len, step, y):
        metadata.max_seq_len_k = max_len + (step + 1)
        metadata.cache_seqlens.copy_(y)
    ```

    ## Fix safety
    The fix deletes the later statement (a block left empty gets `pass`). It
    is safe under the analysis's assumptions: attribute stores and loads on
    the target and value are plain (no property or `__setattr__` with side
    effects), and distinct parameters are distinct objects. Where a class of
    the module itself defines code that the store or the value may run (a
    property, descriptor or decorated method named as the target's or a
    read attribute, `__setattr__`, `__getattr__`, `__getitem__`, an
    operator's method, a method the value calls), that code would run once
    less, and the fix is unsafe; so it is where such a class defines a
    special method that code between the two statements may run (an
    operator's, a subscript's, a truth test's `__bool__`, a loop's
    `__iter__`, a `match` pattern's), which may change what the value reads.

    It is unsafe, too, where the value computes (a call, an operator, a
    subscript, a view attribute: not a name, a constant or a plain
    attribute) and one of torch's global modes may change in between:
    the same operations then give another value (`x * 2` does not
    require grad under `torch.no_grad()`, is bfloat16 under autocast;
    `n / 3` of integers follows the default dtype). A mode changes at a
    `torch.set_*` call (or a setter of torch's other modules:
    `torch.backends.mkldnn.set_flags`, `torch.cuda.set_device`), entering
    or leaving a `with` block (but for `nullcontext()` and
    `suppress(...)`) and, in a module that sets a
    mode itself (a call by the name of one of torch's setters, a manager
    entered by hand), at any call of code not seen here. Code of other
    modules is taken to leave the modes as it found them.

    It is unsafe when the value makes a new object each time (`x * 2`,
    `(a, b)`, a slice `a[1:]` of a list, `t[0]` or `t.T` of a tensor, each a
    new view object) and the first one got another reference in between
    (`b = a`, a call it was passed to): without the later statement the target keeps
    that object, so a change made through the other reference (`b.add_(1)`)
    shows through the target, and the two are now one object. So it is
    where the first one's identity was taken in between (`id(a)`,
    `hash(a)`, `a is b`, `a.data_ptr()`): it told the two objects apart,
    and now matches the target.

    A number made anew each time (`s.max().item()`, `n + 1`) cannot change
    in place, but the deletion keeps the first object where there were two:
    where the function compares identities (`a is b`, `id(a)`), the fix is
    unsafe.

    ## Options
    - `hot-path-methods`
    - `hot-paths-only`
    """

    code = "ATN202"
    name = "redundant-reassignment"
    # Only functions are analyzed, so a file without one cannot have a finding.
    triggers = ("def",)
    fix_availability = "sometimes"
    severity = "error"

    valid = (
        # The stored value's inputs change between.
        "def forward(m, a):\n    m.k = a + 1\n    a = 2\n    m.k = a + 1\n",
        # The value reads the target.
        "def forward(x):\n    x = x + 1\n    x = x + 1\n",
        # The target is written between.
        "def forward(m, a):\n    m.k = a\n    m.k = 0\n    m.k = a\n",
        # The target is changed in place between.
        "def forward(m, a):\n    m.k = a + 1\n    m.k.add_(1)\n    m.k = a + 1\n",
        # The target's object is passed to an unknown call between.
        "def forward(m, a):\n    m.k = a\n    reset(m)\n    m.k = a\n",
        # A method of the target's object is called between.
        "class B:\n    def f(self, a):\n        self.k = a\n        self.reset()\n"
        "        self.k = a\n",
        # An impure value (a call).
        "def forward(m, a):\n    m.k = make(a)\n    m.k = make(a)\n",
        # A fresh mutable value.
        "def forward(m):\n    m.k = []\n    m.k = []\n",
        # Sibling branches.
        "def forward(m, a, c):\n    if c:\n        m.k = a\n    else:\n        m.k = a\n",
        # The first is inside an `if`, the second after it.
        "def forward(m, a, c):\n    if c:\n        m.k = a\n    m.k = a\n",
        # In a loop: the first iteration's store is not redundant.
        "def forward(m, xs):\n    for x in xs:\n        m.k = x\n",
        # A value read in place between.
        "def forward(m, t):\n    m.k = t.sum().item()\n    t.add_(1)\n    m.k = t.sum().item()\n",
        # Different targets.
        "def forward(m, a):\n    m.k = a\n    m.j = a\n",
        # The first store is in a `try` body, the second after the handler.
        "def forward(m, a):\n    try:\n        m.k = a\n    except ValueError:\n        pass\n"
        "    m.k = a\n",
        # In a `while` loop whose body changes the value's input.
        "def forward(m, a):\n    m.k = a\n    while a < 4:\n        a += 1\n        m.k = a\n",
        # The first is in an `if` whose `else` may loop forever, not leave.
        "def forward(m, a, c):\n    if c:\n        m.k = a\n    else:\n"
        "        while c:\n            pass\n    m.k = a\n",
        # The first is in a `try` body, the second in its handler.
        "def forward(m, a):\n    try:\n        m.k = a\n    except ValueError:\n"
        "        m.k = a\n",
        # The first is in a `with` body its manager may leave early.
        "from contextlib import suppress\ndef f(m, a):\n    with suppress(ValueError):\n"
        "        int('x')\n        m.k = a\n    m.k = a\n",
        # The first is in a loop over an iterable that may be empty.
        "def forward(m, a, xs):\n    for x in xs:\n        m.k = a\n    m.k = a\n",
        # Not known to run per step (``hot-paths-only``, the default).
        "def __init__(self, s):\n    self.n = s.max()\n    self.n = s.max()\n",
    )

    invalid = (
        Invalid(
            "def replay(metadata, max_len, step, y):\n"
            "    metadata.max_seq_len_k = max_len + (step + 1)\n"
            "    metadata.cache_seqlens.copy_(y)\n"
            "    metadata.max_seq_len_k = max_len + (step + 1)\n",
            fixed="def replay(metadata, max_len, step, y):\n"
            "    metadata.max_seq_len_k = max_len + (step + 1)\n"
            "    metadata.cache_seqlens.copy_(y)\n",
        ),
        # The second store is the only statement of its block.
        Invalid(
            "def forward(a, c):\n    x = a * 2\n    if c:\n        x = a * 2\n    return x\n",
            fixed="def forward(a, c):\n    x = a * 2\n    if c:\n        pass\n    return x\n",
        ),
        # An `.item()` chain whose tensor is unchanged.
        Invalid(
            "def forward(m, s):\n    m.n = s.max().item()\n    print(m.n)\n    m.n = s.max().item()\n",
            fixed="def forward(m, s):\n    m.n = s.max().item()\n    print(m.n)\n",
        ),
        # The `else` branch returns: every path to the second runs the first.
        Invalid(
            "def forward(m, a, c):\n    if c:\n        m.k = a\n    else:\n        return\n"
            "    m.k = a\n",
            fixed="def forward(m, a, c):\n    if c:\n        m.k = a\n    else:\n        return\n",
        ),
        # A loop over a non-empty literal runs its body at least once.
        Invalid(
            "def forward(m, a):\n    for _ in range(2):\n        m.k = a\n    m.k = a\n",
            fixed="def forward(m, a):\n    for _ in range(2):\n        m.k = a\n",
        ),
        # The first value got another name: deleting the second is unsafe.
        Invalid(
            "def forward(x):\n    a = x * 2\n    b = a\n    a = x * 2\n    b.add_(1)\n    return a\n",
            fixed="def forward(x):\n    a = x * 2\n    b = a\n    b.add_(1)\n    return a\n",
        ),
        # Three times: both repeats go, one per fixer pass.
        Invalid(
            "def forward(m, a):\n    m.k = a\n    m.k = a\n    m.k = a\n",
            fixed="def forward(m, a):\n    m.k = a\n",
            count=2,
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        model = ctx.model
        functions = model.functions
        if ctx.options.hot_paths_only:
            # Waste worth a commit only where it runs per step. Asked first:
            # the per-step set is one lookup a function (ATN203 needs it
            # anyway), and most functions are not in it.
            per_step = ctx.hot_paths.per_step
            functions = [info for info in functions if per_step(info.node) is not None]
        for info in functions:
            candidates = _equal_assignments(info.bindings)
            if not candidates:
                continue
            groups = _repeated_assignments(info.node, candidates)
            if not groups:
                continue
            flow = model.flow(info.node)
            if flow.dynamic_scope:
                continue
            analysis = invalidation_for(flow, model.scope(info.node))
            hooks = class_hooks(model)
            yield from self._check_function(ctx, flow, analysis, groups, hooks)

    def _check_function(
        self,
        ctx: Context,
        flow: FunctionFlow,
        analysis: Invalidation,
        groups: list[list[ast.Assign]],
        hooks: ClassHooks,
    ) -> Iterator[Finding]:
        for statements in groups:
            # Code of the module's classes that the store or the value runs
            # (a property's setter, ``__setattr__``, ``__getitem__``) runs
            # once less without the second statement.
            runs_code = bool(hooks) and (
                hooks.store_may_run_code(statements[0].targets[0])
                or hooks.load_may_run_code(statements[0].value)
            )
            # A value that runs code (``x * 2``, ``t.sum()``, ``t[0]``) may
            # run tensor operations, which read torch's global modes.
            computes = _may_compute(statements[0].value)
            # A Python number (``t.max().item()``) carries no grad mode.
            values_only = (
                computes
                and _plain_scalar(statements[0].value)
                and not reads_grad_mode(statements[0].value)
            )
            # second -> (its chain's first, whether a mode may change between
            # them), asked along the chain as ``_group_pairs`` asks its
            # questions: thousands of equal statements cost thousands of
            # questions over short stretches, not their square.
            # A constant bound to a local nothing else sees or rebinds: no
            # code of the module that runs in between (a finalizer, a special
            # method) can change the value or the name.
            constant = _constant(statements[0].value) and _private_name(
                flow, statements[0].targets[0]
            )
            modes: dict[ast.Assign, tuple[ast.Assign, bool]] = {}
            for first, near, second, applicability in _group_pairs(
                flow, analysis, statements
            ):
                between = mode = False
                if runs_code:
                    applicability = Applicability.UNSAFE
                elif applicability is Applicability.SAFE:
                    point1, point2 = analysis.point(first), analysis.point(second)
                    # ``if o:`` or ``o + 1`` in between runs a special method
                    # of the module's own class, which may change what the
                    # value reads.
                    between = (
                        point1 is None
                        or point2 is None
                        or not constant
                        and analysis.class_code_between(point1, point2)
                    )
                    # ``with torch.no_grad():``, ``torch.set_default_dtype``
                    # or unknown code in between: the same operations may
                    # compute another value.
                    if not between and computes:
                        mode = _mode_may_change(
                            analysis, modes, first, near, second, values_only
                        )
                    if between or mode:
                        applicability = Applicability.UNSAFE
                yield self._report(
                    ctx, flow, first, second, applicability, runs_code, between, mode
                )

    def _report(
        self,
        ctx: Context,
        flow: FunctionFlow,
        first: ast.Assign,
        second: ast.Assign,
        applicability: Applicability,
        runs_code: bool = False,
        between: bool = False,
        mode: bool = False,
    ) -> Finding:
        target = ctx.locator.segment(second.targets[0])
        value = ctx.locator.segment(second.value)
        if "\n" in value or len(value) > 60:
            value = "the same value"
        else:
            value = f"`{value}`"
        message = (
            f"Redundant reassignment: `{target}` already holds {value}, "
            f"assigned at line {first.lineno}"
        )
        if runs_code:
            message += (
                "; a class of this module defines code that the store or the "
                "value may run (a property, `__setattr__`, `__getitem__`, an "
                "operator), which would run once less"
            )
        elif between:
            message += (
                "; code of this module may run in between (a special method "
                "of its class: an operator's, a truth test's, one a builtin "
                "runs: `len(o)`; a property; a finalizer), which may change "
                "what the value reads"
            )
        elif mode:
            message += (
                "; torch's global modes may change in between (a `with` block, "
                "a call of code not seen here, `torch.set_grad_enabled`: grad "
                "mode, autocast, the default dtype), which may make the same "
                "operations compute another value"
            )
        info = flow.stmt_info[second]
        fix = Fix(
            (delete_statement(second, info.body, ctx.locator),),
            applicability,
            "Remove the redundant assignment",
            isolation=block_key(info.body, ctx.locator),
        )
        return ctx.report(self, second, message, fix)


def _group_pairs(
    flow: FunctionFlow, analysis: Invalidation, statements: list[ast.Assign]
) -> Iterator[tuple[ast.Assign, ast.Assign | None, ast.Assign, Applicability]]:
    """(first, near, second, how safe deleting ``second`` is): ``second``
    repeats ``first``, in one group of equal statements; ``near`` is the
    chain's statement before ``second`` (see :func:`_redundant_pairs`)."""
    first_stmt = statements[0]
    target = access_path(first_stmt.targets[0])
    reads = analysis.read_paths(first_stmt.value)
    if target is None or reads is None:
        return
    watched = [*reads, target]
    # Stores by the group's own statements put back the same value.
    own_stores = {statement.targets[0] for statement in statements}
    # A number cannot change in place: only a store replaces it.
    immutable = (
        frozenset({target}) if _holds_immutable(first_stmt.value) else frozenset()
    )

    def unchanged(point1: Point, point2: Point) -> bool:
        changed = analysis.changed_between(
            watched, point1, point2, ignore=own_stores, immutable=immutable
        )
        return changed is None

    # Whether storing to the target can change what the value reads is asked
    # once with every alias counted; only if it can is it asked again at each
    # statement (aliases made where the statement cannot be reached from do
    # not count there: fewer, never more).
    anywhere = _reads_target(analysis, reads, target, None)

    def reads_target(point2: Point) -> bool:
        return anywhere and _reads_target(analysis, reads, target, point2)

    new_object = not immutable and _makes_new_object(first_stmt.value)
    shared_identity = (
        bool(immutable)
        and not isinstance(first_stmt.value, ast.Constant)
        and takes_identities(flow.function)
    )
    # second -> whether the target may get another name between the first
    # statement of its chain and it, found step by step along the chain.
    referenced: dict[ast.Assign, bool] = {}

    def referenced_between(first: ast.Assign, second: ast.Assign) -> bool:
        if _consecutive(flow, first, second):
            return False
        return (
            analysis.referenced_between(
                target,
                Point(flow.block_of(first), first),
                Point(flow.block_of(second), second),
            )
            is not None
        )

    for first, near, second in _redundant_pairs(
        flow, analysis, statements, unchanged, reads_target
    ):
        applicability = Applicability.SAFE
        if new_object:
            if near is None or near is first:
                referenced[second] = referenced_between(first, second)
            else:
                before = referenced.get(near)
                if before is None:
                    before = referenced_between(first, near)
                referenced[second] = before or referenced_between(near, second)
            if referenced[second]:
                # The first value is a new object that got another name:
                # without the second, the target keeps it, and a change
                # through the other name shows.
                applicability = Applicability.UNSAFE
        elif shared_identity:
            # A number made anew each time (``s.max().item()``, ``n + 1``):
            # without the second, the target keeps the first object, which
            # ``id(a)`` or ``a is b`` told apart from the second one.
            applicability = Applicability.UNSAFE
        yield first, near, second, applicability


def _mode_may_change(
    analysis: Invalidation,
    modes: dict[ast.Assign, tuple[ast.Assign, bool]],
    first: ast.Assign,
    near: ast.Assign | None,
    second: ast.Assign,
    values_only: bool,
) -> bool:
    """Whether one of torch's global modes may change between ``first`` and
    ``second`` (their points known), asked from ``near``, the chain's
    statement before ``second``, where the answer up to ``near`` is known:
    every path from ``first`` to ``second`` passes ``near``, so the stretch
    is the two parts, ``near``'s own evaluation in the second."""
    point2 = analysis.point(second)
    known = modes.get(near) if near is not None and near is not first else None
    if known is not None and known[0] is first:
        point_near = analysis.point(near)  # type: ignore[arg-type]
        mode = known[1] or (
            point_near is None
            or analysis.mode_may_change_between(
                point_near,
                point2,  # type: ignore[arg-type]
                values_only=values_only,
                with_first=True,
            )
        )
    else:
        mode = analysis.mode_may_change_between(
            analysis.point(first),  # type: ignore[arg-type]
            point2,  # type: ignore[arg-type]
            values_only=values_only,
        )
    modes[second] = (first, mode)
    return mode


# -- which statement repeats which ----------------------------------------------

# (point of an earlier statement, point of a later one) -> nothing between
# them changes the target or what the value reads.
Unchanged = Callable[[Point, Point], bool]
# point of a statement -> storing to the target there changes the value.
ReadsTarget = Callable[[Point], bool]


def _redundant_pairs(
    flow: FunctionFlow,
    analysis: Invalidation,
    statements: list[ast.Assign],
    unchanged: Unchanged,
    reads_target: ReadsTarget,
) -> Iterator[tuple[ast.Assign, ast.Assign | None, ast.Assign]]:
    """(first, near, second) for each statement of the group (equal
    ``T = V``, in source order) that repeats an earlier one: ``first`` is the
    earliest statement that always runs before ``second`` with nothing
    between them changing the target or the value's reads, ``near`` the
    nearest one of that chain before ``second``; ``second`` must not read
    its own target.

    The statements that always run before a statement form a chain (its
    dominators), ordered as in the source. Each statement is compared with
    the nearest one only: if something between them may change the value,
    so may something between it and any earlier one; if nothing does, the
    earliest one holding the value is the nearest one's. So each statement
    costs one comparison, and thousands of equal statements in one function
    cost thousands of comparisons, not their square. The pairwise search,
    every earlier statement against every later one
    (:func:`_redundant_pairs_pairwise`), is its slow oracle
    (tests/test_atn202_scaling.py).
    """
    points = {
        statement: Point(flow.block_of(statement), statement)
        for statement in statements
    }
    nearest = _nearest_before(flow, analysis, statements, points)
    origin: dict[ast.Assign, ast.Assign] = {}
    for second in statements:  # the nearest one comes first
        near = nearest.get(second)
        if near is None or not (
            _consecutive(flow, near, second) or unchanged(points[near], points[second])
        ):
            origin[second] = second
            continue
        origin[second] = origin[near]
        if not reads_target(points[second]):
            yield origin[near], near, second


def _redundant_pairs_pairwise(
    flow: FunctionFlow,
    analysis: Invalidation,
    statements: list[ast.Assign],
    unchanged: Unchanged,
    reads_target: ReadsTarget,
) -> Iterator[tuple[ast.Assign, ast.Assign | None, ast.Assign]]:
    """What :func:`_redundant_pairs` yields (with no ``near``), found by
    comparing every later statement with every other one (quadratic: the
    tests' oracle)."""
    for second in statements[1:]:
        point2 = Point(flow.block_of(second), second)
        for first in statements:
            if first is second:
                continue
            point1 = Point(flow.block_of(first), first)
            if not analysis.executes_before(point1, point2):
                continue
            if reads_target(point2):
                break
            if unchanged(point1, point2):
                yield first, None, second
                break


def _nearest_before(
    flow: FunctionFlow,
    analysis: Invalidation,
    statements: list[ast.Assign],
    points: dict[ast.Assign, Point],
) -> dict[ast.Assign, ast.Assign]:
    """For each statement, the latest other one that always runs before it
    (if any): found by walking up the dominator tree from its block, from
    one block holding statements of the group to the next (remembered per
    block, so the walks share their steps)."""
    idom = flow.immediate_dominators()
    in_block: dict[Block, list[ast.Assign]] = {}
    for statement in statements:
        in_block.setdefault(points[statement].block, []).append(statement)
    # block -> the nearest block at or above it in the dominator tree that
    # holds statements of the group (None: none).
    holder: dict[Block, Block | None] = {}

    def holding(block: Block | None) -> Block | None:
        passed: list[Block] = []
        found: Block | None = None
        while block is not None:
            if block in holder:
                found = holder[block]
                break
            if block in in_block:
                found = block
                break
            passed.append(block)
            parent = idom.get(block)
            block = None if parent is None or parent is block else parent
        for seen in passed:
            holder[seen] = found
        if block is not None:
            holder[block] = found
        return found

    def above(block: Block) -> Block | None:
        parent = idom.get(block)
        return None if parent is None or parent is block else parent

    nearest: dict[ast.Assign, ast.Assign] = {}
    for statement in statements:
        point = points[statement]
        block: Block | None = point.block
        candidates = [s for s in in_block[point.block] if s is not statement]
        while True:
            found = next(
                (
                    candidate
                    for candidate in reversed(candidates)
                    if analysis.executes_before(points[candidate], point)
                ),
                None,
            )
            if found is not None:
                nearest[statement] = found
                break
            if block is None or block not in idom:
                break  # unreachable: nothing runs before it
            block = holding(above(block))
            if block is None:
                break
            candidates = in_block[block]
    return nearest


def _consecutive(flow: FunctionFlow, first: ast.stmt, second: ast.stmt) -> bool:
    """``second`` directly follows ``first`` (an assignment) in one statement
    list: nothing is evaluated between them (asking the analysis would cost
    a walk over the rest of the function)."""
    info1, info2 = flow.stmt_info[first], flow.stmt_info[second]
    return info1.body is info2.body and info2.index == info1.index + 1


def _reads_target(
    analysis: Invalidation, reads: frozenset[Path], target: Path, at: Point | None
) -> bool:
    """Whether storing to the target changes what the value, read at ``at``
    (None: anywhere, every alias counted), reads (``x = x + 1``; ``m.k = n.k``
    after ``n = m``)."""
    # Reading the target itself, or a path inside or around it, is such a
    # read whatever the aliases: no need to follow them. Rebinding a name
    # changes no object: only a read of the name itself sees it.
    if len(target) == 1:
        return any(path[0] == target[0] for path in reads)
    if any(paths_conflict(target, path) for path in reads):
        return True
    watched = analysis.watch(reads, before=at.block if at is not None else None)
    if watched is None:
        return True
    return analysis.changes(Change(ChangeKind.STORE, target), watched)


# Values that make a new object each time they are evaluated.
_NEW_OBJECTS = frozenset({ast.BinOp, ast.UnaryOp, ast.Compare, ast.Tuple, ast.Call})


#: Nodes of a value that compute nothing: names, constants, displays and
#: plain attribute loads (not a view attribute: ``t.T`` under ``no_grad``
#: does not require grad).
_INERT = (
    ast.Name,
    ast.Constant,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.Starred,
    ast.Load,
)


def _constant(value: ast.expr) -> bool:
    """Whether ``value`` is a constant or a tuple of them: an immutable
    value that reads nothing."""
    if isinstance(value, ast.Tuple):
        return all(_constant(item) for item in value.elts)
    return isinstance(value, ast.Constant)


def _private_name(flow: FunctionFlow, target: ast.expr) -> bool:
    """Whether ``target`` is a local name no other scope sees or rebinds."""
    return (
        isinstance(target, ast.Name)
        and flow.is_private_local(target.id)
        and not any(event.nested for event in flow.events_of(target.id))
    )


def _may_compute(value: ast.expr) -> bool:
    """Whether evaluating ``value`` may run a tensor operation, whose
    result depends on torch's global modes as well as on what it reads."""
    for node in ast.walk(value):
        if isinstance(node, ast.Attribute):
            if node.attr in VIEW_ATTRIBUTES:
                return True
        elif not isinstance(node, _INERT):
            return True
    return False


#: Methods whose result is a Python number or list: whether a tensor
#: required grad does not show in it.
_SCALAR_METHODS = frozenset({"item", "tolist"})


def _plain_scalar(value: ast.expr) -> bool:
    """Whether ``value`` is a Python number made of tensors' values
    (``t.max().item() + 1``): grad mode, which decides only whether a
    result requires grad, cannot change it. (A method of the module's own
    class named ``item`` makes the deletion unsafe anyway.)"""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.BinOp):
        return _plain_scalar(value.left) and _plain_scalar(value.right)
    if isinstance(value, ast.UnaryOp):
        return _plain_scalar(value.operand)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _SCALAR_METHODS
    )


def _makes_new_object(value: ast.expr) -> bool:
    """Whether evaluating a pure value may make a new object each time: the
    kinds of ``_NEW_OBJECTS``, a subscript (a slice of a list is a new list;
    indexing a tensor, ``t[0]``, makes a new view object each time), and a
    view attribute of a tensor (``t.T``, ``t.data``)."""
    kind = type(value)
    if kind in _NEW_OBJECTS or kind is ast.Subscript:
        return True
    return kind is ast.Attribute and value.attr in VIEW_ATTRIBUTES  # type: ignore[attr-defined]


def _holds_immutable(value: ast.expr) -> bool:
    """Whether a pure value is certainly an immutable one: a constant, an
    ``.item()`` (a Python number), arithmetic and tuples of those."""
    kind = type(value)
    if kind is ast.Constant:
        return True
    if kind is ast.Call:
        return _is_item_call(value)  # type: ignore[arg-type]
    if kind is ast.BinOp:
        return _holds_immutable(value.left) and _holds_immutable(value.right)  # type: ignore[attr-defined]
    if kind is ast.UnaryOp:
        return _holds_immutable(value.operand)  # type: ignore[attr-defined]
    if kind is ast.Tuple:
        return all(_holds_immutable(element) for element in value.elts)  # type: ignore[attr-defined]
    return False


def _value_key(node: ast.AST) -> Hashable | None:
    """A key that pure values share exactly when they are equal (equal
    ``ast.dump``), or None for a value that is not pure.

    Pure: names, attributes, constants, arithmetic, comparisons, subscripts
    and slices, tuples, and `.item()` chains. An `.item()` chain's receiver
    may use read-only methods (`s.max().item()`); ``Invalidation.read_paths``
    checks those.
    """
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined]
    if kind is ast.Constant:
        return (kind, type(node.value), node.value, node.kind)  # type: ignore[attr-defined]
    if kind is ast.Attribute:
        inner = _value_key(node.value)  # type: ignore[attr-defined]
        return None if inner is None else (kind, inner, node.attr)  # type: ignore[attr-defined]
    if kind is ast.Call:
        if not _is_item_call(node):  # type: ignore[arg-type]
            return None
        # Any receiver: read_paths looks at it.
        return (kind, ast.dump(node.func.value))  # type: ignore[attr-defined]
    if kind is ast.BinOp:
        left = _value_key(node.left)  # type: ignore[attr-defined]
        right = _value_key(node.right)  # type: ignore[attr-defined]
        if left is None or right is None:
            return None
        return (kind, left, type(node.op), right)  # type: ignore[attr-defined]
    if kind is ast.UnaryOp:
        inner = _value_key(node.operand)  # type: ignore[attr-defined]
        return None if inner is None else (kind, type(node.op), inner)  # type: ignore[attr-defined]
    if kind is ast.Subscript:
        value = _value_key(node.value)  # type: ignore[attr-defined]
        index = _value_key(node.slice)  # type: ignore[attr-defined]
        if value is None or index is None:
            return None
        return (kind, value, index)
    if kind is ast.Slice:
        parts = [kind]
        for part in (node.lower, node.upper, node.step):  # type: ignore[attr-defined]
            if part is None:
                parts.append(None)
                continue
            key = _value_key(part)
            if key is None:
                return None
            parts.append((key,))  # apart from an absent part
        return tuple(parts)
    if kind is ast.Tuple or kind is ast.Compare:
        parts = [kind]
        if kind is ast.Compare:
            parts.extend(type(op) for op in node.ops)  # type: ignore[attr-defined]
            elements = [node.left, *node.comparators]  # type: ignore[attr-defined]
        else:
            elements = node.elts  # type: ignore[attr-defined]
        for element in elements:
            key = _value_key(element)
            if key is None:
                return None
            parts.append(key)
        return tuple(parts)
    return None


def _is_item_call(call: ast.Call) -> bool:
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "item"
        and not call.args
        and not call.keywords
    )


# Where a statement sits: for each enclosing statement list, from the
# function body down, (the list's id, the index in it of the statement that
# is, or contains, the assignment).
Ancestry = tuple[tuple[int, int], ...]
_JUMPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_COMPOUND = COMPOUND_STATEMENTS


def _repeated_assignments(
    function: ast.AST, candidates: list[list[ast.Assign]]
) -> list[list[ast.Assign]]:
    """The groups of ``candidates`` (equal ``T = V`` statements of the
    function's own code) in which one statement may dominate another."""
    placement = _Placement(function)
    groups: list[list[ast.Assign]] = []
    for statements in candidates:
        members = sorted(
            ((statement, placement.ancestry(statement)) for statement in statements),
            key=lambda member: (member[0].lineno, member[0].col_offset),
        )
        # A large group goes to the flow graph without this test of every
        # pair (its cost would grow with the square of the group's size).
        if (
            not prefilter.enabled()
            or len(members) > _PAIRS_TESTED_UP_TO
            or any(
                _may_dominate(first, second, placement.owners)
                for i, (_, first) in enumerate(members)
                for _, second in members[i + 1 :]
            )
        ):
            groups.append([statement for statement, _ in members])
    return groups


#: Groups of up to this many equal statements are pre-filtered pair by pair.
_PAIRS_TESTED_UP_TO = 32


class _Placement:
    """Where the assignments and compound statements of a function's own code
    sit: each one's place (the id of the list holding it, its index there)
    and the statement owning that list."""

    def __init__(self, function: ast.AST) -> None:
        self._placed: dict[ast.stmt, tuple[tuple[int, int], ast.stmt | None]] = {}
        _place_assignments(function.body, None, self._placed)  # type: ignore[attr-defined]
        # The statement at each place seen by ``ancestry`` so far.
        self.owners: dict[tuple[int, int], ast.stmt] = {}

    def ancestry(self, statement: ast.stmt | None) -> Ancestry:
        chain: list[tuple[int, int]] = []
        while statement is not None:
            place, holder = self._placed[statement]
            self.owners[place] = statement
            chain.append(place)
            statement = holder
        return tuple(reversed(chain))


def _equal_assignments(
    bindings: list[tuple[ast.stmt, bool]],
) -> list[list[ast.Assign]]:
    """``T = V`` statements of the function's own code (``bindings``) with a
    name or attribute chain target and a pure value, grouped when their
    targets and values are equal; only groups of two or more.

    Most targets are assigned once: values are compared (purity, then
    ``ast.dump``) only where a cheap key (the target's last name) repeats,
    then only where the target and the value's shape match."""
    # The target's last name -> its assignments, names and attributes apart;
    # a value that is a call other than ``.item()`` is never pure.
    names: dict[str, list[ast.Assign]] = {}
    attributes: dict[str, list[ast.Assign]] = {}
    for stmt, _ in bindings:
        if type(stmt) is not ast.Assign:
            continue
        targets = stmt.targets  # type: ignore[attr-defined]
        if len(targets) != 1:
            continue
        value = stmt.value  # type: ignore[attr-defined]
        top = type(value)
        if top not in _PURE_TOPS:
            if top is not ast.Call:
                continue
            func = value.func
            if type(func) is not ast.Attribute or func.attr != "item":
                continue  # (the arguments are looked at with the value)
        target = targets[0]
        kind = type(target)
        if kind is ast.Name:
            table, key = names, target.id
        elif kind is ast.Attribute:
            table, key = attributes, target.attr
        else:
            continue  # subscripts and unpacking: never a candidate
        same = table.get(key)
        if same is None:
            table[key] = [stmt]  # type: ignore[list-item]
        else:
            same.append(stmt)  # type: ignore[arg-type]
    groups: list[list[ast.Assign]] = []
    for table in (names, attributes):
        for statements in table.values():
            if len(statements) > 1:
                _group_equal(statements, groups)
    return groups


def _group_equal(statements: list[ast.Assign], groups: list[list[ast.Assign]]) -> None:
    """Append to ``groups`` those of ``statements`` (one target key) that are
    equal, target and pure value, in groups of two or more."""
    by_shape: dict[Hashable, list[ast.Assign]] = {}
    for stmt in statements:
        path = access_path(stmt.targets[0])
        if path is None or SUBSCRIPT in path:
            continue
        by_shape.setdefault((path, _shape(stmt.value)), []).append(stmt)
    for similar in by_shape.values():
        if len(similar) < 2:
            continue
        by_value: dict[Hashable, list[ast.Assign]] = {}
        for stmt in similar:
            key = _value_key(stmt.value)
            if key is not None:
                by_value.setdefault(key, []).append(stmt)
        groups.extend(equal for equal in by_value.values() if len(equal) > 1)


def _shape(value: ast.expr) -> Hashable:
    """A cheap summary of ``value`` that equal values (equal ``ast.dump``) share."""
    if isinstance(value, ast.Name):
        return ("Name", value.id)
    if isinstance(value, ast.Constant):
        return ("Constant", type(value.value), value.value)
    if isinstance(value, ast.Attribute):
        return ("Attribute", value.attr)
    if isinstance(value, (ast.BinOp, ast.UnaryOp)):
        return (type(value), type(value.op))
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return ("Call", value.func.attr)
    return type(value)


def _place_assignments(
    block: list[ast.stmt],
    owner: ast.stmt | None,
    placed: dict[ast.stmt, tuple[tuple[int, int], ast.stmt | None]],
) -> None:
    """Record the place of each assignment and compound statement of ``block``
    and the lists below it (not in nested scopes)."""
    for index, node in enumerate(block):
        if isinstance(node, ast.Assign):
            placed[node] = ((id(block), index), owner)
        elif isinstance(node, _COMPOUND):  # not a simple statement nor a scope
            placed[node] = ((id(block), index), owner)
            for inner in _statement_lists(node):
                _place_assignments(inner, node, placed)


def _statement_lists(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    for field in ("body", "orelse", "finalbody"):
        block = getattr(stmt, field, None)
        if block:
            yield block
    for part in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
        yield part.body


def _may_dominate(
    first: Ancestry, second: Ancestry, owners: dict[tuple[int, int], ast.stmt]
) -> bool:
    """A cheap necessary condition for ``first`` (earlier in the source) to
    dominate ``second``, so that most functions need no flow graph: ``first``
    is in a statement list enclosing ``second``, or it is nested in statements
    that every path to ``second`` must enter (a ``with`` body; an ``if``
    branch whose other branch may not fall through) or that may jump (a loop,
    a ``try``...), where only the flow graph can tell."""
    for level, (place1, place2) in enumerate(zip(first, second, strict=False)):
        if place1[0] != place2[0]:
            # Different parts of one compound statement: sibling branches
            # unless it is a ``try`` (its ``else`` follows its body) or a
            # loop (its ``else`` follows the last iteration).
            owner = owners[first[level - 1]]
            if type(owner) is ast.For or type(owner) is ast.AsyncFor:
                return nonempty_literal(owner.iter)
            if type(owner) is ast.Try or type(owner) is TryStar:
                # Handlers and ``finally`` are entered from the ``try`` itself.
                return place1[0] == id(owner.body) and place2[0] == id(owner.orelse)
            return type(owner) is ast.While
        if place1[1] > place2[1]:
            return False
        if place1[1] < place2[1]:
            return _always_entered(first, level, owners)
    return True


def _always_entered(
    first: Ancestry, level: int, owners: dict[tuple[int, int], ast.stmt]
) -> bool:
    """Whether the statements enclosing ``first`` below ``level`` may be
    impossible to pass without running ``first``'s list: for an ``if``, the
    other branch must exist and may not fall through (a jump or a ``while``
    in it); ``with`` bodies always run; loops, ``try`` and ``match`` need the
    flow graph when they may jump."""
    for depth in range(level, len(first) - 1):
        outer = owners[first[depth]]
        kind = type(outer)
        if kind is ast.If:
            inner_list = first[depth + 1][0]
            other = outer.orelse if inner_list == id(outer.body) else outer.body
            if not other or not any(_may_leave(stmt) for stmt in other):
                return False
        elif kind is ast.For or kind is ast.AsyncFor:
            if first[depth + 1][0] != id(outer.body):
                return True  # the ``else``: skipped only by a ``break``
            # The body is skipped when the iterable is empty, unless the
            # ``else`` leaves.
            return nonempty_literal(outer.iter) or _may_leave(outer)
        elif kind is ast.Match:
            # Other cases, and no match at all, skip it unless they leave.
            return _may_leave(outer)
        elif kind is not ast.With and kind is not ast.AsyncWith:
            return True  # ``while`` and ``try``: the flow graph tells
    return True


def _may_leave(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` may not fall through to the next statement: it is or
    holds a jump or a ``while`` loop (which may never end)."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (*_JUMPS, ast.While)):
            return True
        stack.extend(child for block in _statement_lists(node) for child in block)
    return False
