"""The per-function def-use model: events in evaluation order on a statement CFG.

A function body becomes a graph of ``Block``s: one per simple statement, one
per compound-statement header (an ``if`` test, a ``for`` iterable and target,
a ``while`` test, ``with`` items, an ``except`` clause, a ``case`` pattern),
plus a synthetic entry (binding the parameters) and exit. Every occurrence of
a local name is an ``Event`` (load, store or delete) in the block that
evaluates it, in Python's evaluation order. Names used inside a nested scope
(lambda, comprehension, nested def or class) are events of the block that
creates that scope, marked ``nested``; evaluation that happens on some paths
only within one statement (the arms of ``a if c else b``, the right operands of
``and``/``or``, comprehension bodies) is marked ``conditional``.

Exceptions are followed where code can go on after one: a statement in a
``try`` body may raise into each handler and the ``finally`` clause, and one
in a ``with`` body into the code after the ``with`` when its context manager
may swallow the exception (an ``entered`` block marks the body's start, a
``with-exit`` block the manager's exit). Managers known never to swallow
(``torch.no_grad()``, ``torch.cuda.stream(s)``: see ``torch_api``) keep
their bodies straight-line; which those are, the flow's ``may_swallow``
says (by default, any manager may swallow).

Rules ask questions of this model (``first_events``, ``dominates``,
``blocks_between``); they do not walk the tree for flow themselves.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable, Iterable, Iterator

from lint_rules.analysis.nodes import (
    LEAF_TYPES,
    NODE_FIELDS,
    child_nodes,
    concrete_types,
    names_bound_by,
    node_fields,
)
from lint_rules.analysis.nodes import walk as walk_nodes
from lint_rules.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any


class Kind(enum.Enum):
    LOAD = "load"
    STORE = "store"
    DEL = "del"


class Event:
    """One occurrence of a local name: ``node`` is the Name node (or the
    statement, argument or handler binding it); ``order`` its position in the
    function's evaluation order (source order); ``augmented`` marks the load
    or store half of ``name op= value``."""

    __slots__ = (
        "name",
        "kind",
        "node",
        "block",
        "order",
        "conditional",
        "nested",
        "augmented",
    )

    def __init__(
        self,
        name: str,
        kind: Kind,
        node: ast.AST,
        block: Block,
        order: int,
        conditional: bool = False,
        nested: bool = False,
        augmented: bool = False,
    ) -> None:
        self.name = name
        self.kind = kind
        self.node = node
        self.block = block
        self.order = order
        self.conditional = conditional
        self.nested = nested
        self.augmented = augmented

    def __repr__(self) -> str:
        row = getattr(self.node, "lineno", "?")
        return f"<{self.kind.value} {self.name} @{row}>"


class Block:
    """A node of the control-flow graph. ``stmt`` is None for the synthetic
    entry and exit; ``role`` is one of "entry", "exit", "stmt", "test",
    "iter", "next", "target", "items", "entered", "with-exit", "handler",
    "finally", "case"."""

    __slots__ = ("index", "stmt", "role", "events", "succs", "preds")

    def __init__(self, index: int, stmt: ast.stmt | None, role: str) -> None:
        self.index = index
        self.stmt = stmt
        self.role = role
        self.events: list[Event] = []
        self.succs: list[Block] = []
        self.preds: list[Block] = []

    def __repr__(self) -> str:
        row = getattr(self.stmt, "lineno", "-")
        return f"<Block {self.index} {self.role} @{row}>"


class FinallyClause(Record):
    """The blocks of a ``finally`` clause, for path questions that care how it
    was entered: only from ``normal_preds`` may execution go on after its
    ``ends``; entered by a raise (or a return, break or continue) it goes on
    to the exit."""

    __slots__ = ("entry", "normal_preds", "ends")
    _fields = __slots__

    def __init__(
        self, entry: Block, normal_preds: frozenset[Block], ends: tuple[Block, ...]
    ) -> None:
        self.entry = entry
        self.normal_preds = normal_preds
        self.ends = ends


class StmtInfo(Record):
    """Where a statement sits: its block list, index in it, the enclosing
    compound statement within the function (``parent``), and its own block
    (its header block if compound)."""

    __slots__ = ("stmt", "body", "index", "parent", "block")
    _fields = __slots__
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __init__(
        self,
        stmt: ast.stmt,
        body: list[ast.stmt],
        index: int,
        parent: ast.stmt | None,
        block: Block,
    ) -> None:
        self.stmt = stmt
        self.body = body
        self.index = index
        self.parent = parent
        self.block = block


_DYNAMIC_SCOPE_CALLS = frozenset({"locals", "vars", "eval", "exec"})
# ... and this one when called without arguments (``dir()``: the local names).
_DYNAMIC_SCOPE_BARE_CALLS = frozenset({"dir"})
_DYNAMIC_SCOPE_NAMES = _DYNAMIC_SCOPE_CALLS | _DYNAMIC_SCOPE_BARE_CALLS
# Blocks that an exception may enter from the middle of a predecessor.
_ENTERED_BY_RAISE = frozenset({"handler", "finally", "with-exit"})
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
# Expressions the builder treats specially (names, conditional evaluation,
# nested scopes); every other node is just the sum of its children.
_SPECIAL_EXPRESSIONS = (
    ast.IfExp,
    ast.BoolOp,
    ast.NamedExpr,
    ast.Lambda,
    *_COMPREHENSIONS,
)
# Statement type -> the name of the builder method for it (``stmt_If``).
_HANDLERS: dict[type, str] = {}


_SPECIAL_TYPES = concrete_types(_SPECIAL_EXPRESSIONS)


class FunctionFlow:
    """The def-use model and control-flow graph of one function."""

    def __init__(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        may_swallow: Callable[[ast.expr], bool] | None = None,
        is_builtin: Callable[[str], bool] | None = None,
    ) -> None:
        self.function = function
        # Whether a name the function reads is Python's builtin of that name
        # (``range``), not one a parameter, the module or an import binds
        # (none is, unless told).
        self.is_builtin = is_builtin or _never_builtin
        # Whether the context manager ``with`` makes of an expression may
        # swallow an exception raised in the body (any may, unless told).
        self.may_swallow = may_swallow or _any_manager_may_swallow
        self.blocks: list[Block] = []
        self.events_by_name: dict[str, list[Event]] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        self.stmt_info: dict[ast.stmt, StmtInfo] = {}
        self.globals: set[str] = set()  # names declared global or nonlocal here
        self.finally_clauses: dict[Block, FinallyClause] = {}  # by entry block
        # locals()/vars()/dir()/eval/exec: names are not private
        self.dynamic_scope = False
        self._dominators: dict[Block, Block] | None = None
        # Each reachable block's interval in a walk of the dominator tree.
        self._intervals: dict[Block, tuple[int, int]] | None = None
        # The names with an event other than a load (``has_stores``).
        self._stored: frozenset[str] | None = None
        # Analyses derived from this flow, cached here by the modules that make
        # them (``invalidation_for``), so they live exactly as long as the flow.
        self.analyses: dict[str, Any] = {}
        _Builder(self).build()

    def release(self) -> None:
        """Break the graph's reference cycles (blocks and events point at each
        other), so that the flow and its analyses are freed as soon as nothing
        uses them, without waiting for the garbage collector. The flow must not
        be used afterwards."""
        for analysis in self.analyses.values():
            release = getattr(analysis, "release", None)
            if release is not None:
                release()
        self.analyses.clear()
        for block in self.blocks:
            block.events.clear()
            block.succs.clear()
            block.preds.clear()
        self.finally_clauses.clear()
        self._dominators = None
        self._intervals = None

    # -- questions about names ------------------------------------------------

    def events_of(self, name: str) -> list[Event]:
        return self.events_by_name.get(name, [])

    def stores_of(self, name: str) -> list[Event]:
        return [e for e in self.events_of(name) if e.kind is not Kind.LOAD]

    def has_stores(self, name: str) -> bool:
        """``bool(self.stores_of(name))``: from a set of such names made once
        (the analyses ask it of every name a call or a path starts with)."""
        stored = self._stored
        if stored is None:
            stored = self._stored = frozenset(
                other
                for other, events in self.events_by_name.items()
                if any(event.kind is not Kind.LOAD for event in events)
            )
        return name in stored

    def loads_of(self, name: str) -> list[Event]:
        return [e for e in self.events_of(name) if e.kind is Kind.LOAD]

    def is_private_local(self, name: str) -> bool:
        """True when ``name`` is a plain local no other scope can see or rebind."""
        return not self.dynamic_scope and name not in self.globals

    def event_for(self, node: ast.AST) -> Event | None:
        """The event recorded for a Name node."""
        for event in self.events_of(getattr(node, "id", "")):
            if event.node is node:
                return event
        return None

    def first_events(
        self, name: str, after: Event, stop: Iterable[Event] = ()
    ) -> tuple[list[Event], bool]:
        """The first event of ``name`` on each path that starts just after ``after``.

        Returns (events, reaches_exit): the distinct first events over all paths,
        and whether some path reaches the function's exit with no event of
        ``name``. Nested-scope events count as events where the scope is created.
        """
        firsts: list[Event] = []
        seen_firsts: set[int] = set()
        reaches_exit = False
        start = after.block
        # Events after ``after`` in its own block.
        for event in start.events:
            if event.order > after.order and event.name == name:
                return [event], False
        visited: set[int] = set()
        stack = list(start.succs)
        while stack:
            block = stack.pop()
            if block.index in visited:
                continue
            visited.add(block.index)
            hit = next((e for e in block.events if e.name == name), None)
            if hit is not None:
                if id(hit) not in seen_firsts:
                    seen_firsts.add(id(hit))
                    firsts.append(hit)
                continue
            if block.role == "exit":
                reaches_exit = True
                continue
            stack.extend(block.succs)
        firsts.sort(key=lambda e: e.order)
        return firsts, reaches_exit

    def bound_on_entry(self, name: str, block: Block) -> bool:
        """Whether ``name`` is bound whenever ``block`` starts: every path from
        the entry to it passes a store of ``name`` (a parameter, an
        assignment) not followed by a ``del``. A block left for a handler
        (or the code after a ``with`` that swallowed the exception) may have
        been left before its own store."""
        if block is self.entry:
            return False
        seen: set[tuple[int, bool]] = set()
        stack = [(pred, block.role in _ENTERED_BY_RAISE) for pred in block.preds]
        while stack:
            current, cut_short = stack.pop()
            if (current.index, cut_short) in seen:
                continue
            seen.add((current.index, cut_short))
            last = None
            if not cut_short:
                for event in current.events:
                    if event.name == name and not event.nested:
                        if event.kind is not Kind.LOAD:
                            last = event.kind
            if last is Kind.STORE:
                continue
            if last is Kind.DEL or current is self.entry:
                return False
            raised = current.role in _ENTERED_BY_RAISE
            stack.extend((pred, raised) for pred in current.preds)
        return True

    # -- questions about control flow -----------------------------------------

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    @property
    def exit(self) -> Block:
        return self.blocks[1]

    def block_of(self, stmt: ast.stmt) -> Block:
        return self.stmt_info[stmt].block

    def immediate_dominators(self) -> dict[Block, Block]:
        """Each reachable block's immediate dominator (the entry's is itself).

        Cooper, Harvey and Kennedy's iteration over the blocks in reverse
        postorder: a dominator tree, where a set of dominators per block
        would cost the square of the graph's size."""
        if self._dominators is None:
            entry = self.entry
            order = self._reverse_postorder(entry)
            rank = {block: index for index, block in enumerate(order)}
            idom: dict[Block, Block] = {entry: entry}
            changed = True
            while changed:
                changed = False
                for block in order[1:]:
                    new: Block | None = None
                    for pred in block.preds:
                        if pred not in idom:
                            continue  # unreachable, or not reached yet
                        if new is None:
                            new = pred
                            continue
                        # The nearest common dominator of pred and new.
                        a, b = pred, new
                        while a is not b:
                            while rank[a] > rank[b]:
                                a = idom[a]
                            while rank[b] > rank[a]:
                                b = idom[b]
                        new = a
                    if new is not None and idom.get(block) is not new:
                        idom[block] = new
                        changed = True
            self._dominators = idom
        return self._dominators

    @staticmethod
    def _reverse_postorder(entry: Block) -> list[Block]:
        postorder: list[Block] = []
        seen = {entry}
        stack: list[tuple[Block, Iterator[Block]]] = [(entry, iter(entry.succs))]
        while stack:
            block, successors = stack[-1]
            for succ in successors:
                if succ not in seen:
                    seen.add(succ)
                    stack.append((succ, iter(succ.succs)))
                    break
            else:
                stack.pop()
                postorder.append(block)
        postorder.reverse()
        return postorder

    def dominates(self, first: Block, second: Block) -> bool:
        """Every path from entry to ``second`` passes through ``first``
        (False when ``second`` cannot be reached). Told by the blocks'
        intervals in a depth-first walk of the dominator tree (a block's
        holds those of the blocks it dominates), not by climbing the tree:
        asked of many pairs of a long function, the climb cost its length
        each time."""
        intervals = self._intervals
        if intervals is None:
            intervals = self._intervals = self._dominator_intervals()
        inner = intervals.get(second)
        outer = intervals.get(first)
        if inner is None or outer is None:
            return False
        return outer[0] <= inner[0] and inner[1] <= outer[1]

    def _dominator_intervals(self) -> dict[Block, tuple[int, int]]:
        idom = self.immediate_dominators()
        children: dict[Block, list[Block]] = {}
        for block, parent in idom.items():
            if parent is not block:
                children.setdefault(parent, []).append(block)
        intervals: dict[Block, tuple[int, int]] = {}
        entry = self.entry
        if entry not in idom:
            return intervals
        starts: dict[Block, int] = {}
        clock = 0
        stack: list[tuple[Block, bool]] = [(entry, False)]
        while stack:
            block, done = stack.pop()
            if done:
                intervals[block] = (starts[block], clock)
                clock += 1
                continue
            starts[block] = clock
            clock += 1
            stack.append((block, True))
            stack.extend((child, False) for child in children.get(block, ()))
        return intervals

    def blocks_between(self, first: Block, second: Block) -> set[Block]:
        """Blocks on some path from ``first`` to ``second`` (both excluded)."""
        forward = self._search(first.succs, lambda b: b.succs, stop={first, second})
        backward = self._search(second.preds, lambda b: b.preds, stop={first, second})
        return {b for b in self.blocks if b.index in forward and b.index in backward}

    def loop_of(self, stmt: ast.stmt) -> ast.For | ast.AsyncFor | ast.While | None:
        """The innermost loop whose body (not ``else``) contains ``stmt``."""
        info = self.stmt_info.get(stmt)
        while info is not None and info.parent is not None:
            parent = info.parent
            if (
                isinstance(parent, (ast.For, ast.AsyncFor, ast.While))
                and info.body is parent.body
            ):
                return parent
            info = self.stmt_info.get(parent)
        return None

    def enclosing_statements(self, stmt: ast.stmt) -> Iterator[ast.stmt]:
        info = self.stmt_info.get(stmt)
        while info is not None and info.parent is not None:
            yield info.parent
            info = self.stmt_info.get(info.parent)

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        """The innermost statement of this function containing ``node``."""
        while node is not None and not isinstance(node, ast.stmt):
            node = self.parents.get(node)  # type: ignore[assignment]
        return node  # type: ignore[return-value]

    @staticmethod
    def _search(starts, step, stop) -> set[int]:
        seen: set[int] = set()
        stack = [b for b in starts if b not in stop]
        while stack:
            block = stack.pop()
            if block.index in seen:
                continue
            seen.add(block.index)
            stack.extend(b for b in step(block) if b not in stop)
        return seen


class _Builder:
    """Builds a FunctionFlow in one walk over the function body."""

    def __init__(self, flow: FunctionFlow) -> None:
        self.flow = flow
        self.order = 0
        self.block: Block | None = None  # the block receiving events
        self.conditional = 0
        self.nested = 0
        self.loops: list[tuple[Block, list[Block]]] = []  # (continue target, breaks)
        self.handlers: list[
            list[Block]
        ] = []  # exception targets of enclosing try bodies

    # -- graph plumbing -------------------------------------------------------

    def new_block(self, stmt: ast.stmt | None, role: str) -> Block:
        block = Block(len(self.flow.blocks), stmt, role)
        self.flow.blocks.append(block)
        if stmt is not None:
            # Any statement in a try body may raise into every enclosing handler.
            for targets in self.handlers:
                for target in targets:
                    self.link([block], target)
        return block

    @staticmethod
    def link(preds: Iterable[Block], block: Block) -> None:
        for pred in preds:
            if block not in pred.succs:
                pred.succs.append(block)
                block.preds.append(pred)

    def start(self, stmt: ast.stmt | None, role: str, preds: list[Block]) -> Block:
        block = self.new_block(stmt, role)
        self.link(preds, block)
        self.block = block
        return block

    # -- events ---------------------------------------------------------------

    def record(
        self, name: str, kind: Kind, node: ast.AST, augmented: bool = False
    ) -> None:
        block = self.block
        assert block is not None
        event = Event(
            name,
            kind,
            node,
            block,
            self.order,
            self.conditional > 0,
            self.nested > 0,
            augmented,
        )
        self.order += 1
        block.events.append(event)
        flow = self.flow
        named = flow.events_by_name.get(name)
        if named is None:
            flow.events_by_name[name] = [event]
        else:
            named.append(event)

    # -- the walk -------------------------------------------------------------

    def build(self) -> None:
        function = self.flow.function
        entry = self.start(None, "entry", [])
        exit_block = self.new_block(None, "exit")
        self.block = entry
        args = function.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            self.record(arg.arg, Kind.STORE, arg)
        for arg in (args.vararg, args.kwarg):
            if arg is not None:
                self.record(arg.arg, Kind.STORE, arg)
        ends = self.statements(function.body, [entry], None)
        self.link(ends, exit_block)

    def statements(
        self, body: list[ast.stmt], preds: list[Block], parent: ast.stmt | None
    ) -> list[Block]:
        for index, stmt in enumerate(body):
            preds = self.statement(stmt, body, index, parent, preds)
        return preds

    def info(self, stmt, body, index, parent, block) -> None:
        self.flow.stmt_info[stmt] = StmtInfo(stmt, body, index, parent, block)

    def statement(self, stmt, body, index, parent, preds) -> list[Block]:
        kind = type(stmt)
        name = _HANDLERS.get(kind)
        if name is None:
            name = _HANDLERS[kind] = "stmt_" + kind.__name__
        method = getattr(self, name, None)
        if method is not None:
            return method(stmt, body, index, parent, preds)
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        self.simple(stmt)
        return [block]

    def simple(self, stmt: ast.stmt) -> None:
        for child in child_nodes(stmt):
            self.expr(child, stmt)

    def exit_paths(self, block: Block) -> None:
        self.link([block], self.flow.exit)

    def stmt_Return(self, stmt, body, index, parent, preds):
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        if stmt.value is not None:
            self.expr(stmt.value, stmt)
        self.exit_paths(block)
        return []

    def stmt_Raise(self, stmt, body, index, parent, preds):
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        self.simple(stmt)
        self.exit_paths(block)
        return []

    def stmt_Break(self, stmt, body, index, parent, preds):
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        if self.loops:
            self.loops[-1][1].append(block)
        return []

    def stmt_Continue(self, stmt, body, index, parent, preds):
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        if self.loops:
            self.link([block], self.loops[-1][0])
        return []

    def stmt_Global(self, stmt, body, index, parent, preds):
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        self.flow.globals.update(stmt.names)
        return [block]

    stmt_Nonlocal = stmt_Global

    def stmt_Assign(self, stmt, body, index, parent, preds):
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        self.expr(stmt.value, stmt)
        for target in stmt.targets:
            self.expr(target, stmt)
        return [block]

    def stmt_AnnAssign(self, stmt, body, index, parent, preds):
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        if stmt.value is not None:
            self.expr(stmt.value, stmt)
            self.expr(stmt.target, stmt)
        return [block]

    def stmt_AugAssign(self, stmt, body, index, parent, preds):
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        target = stmt.target
        self.flow.parents[target] = stmt
        if isinstance(target, ast.Name):
            self.record(target.id, Kind.LOAD, target, augmented=True)
            self.expr(stmt.value, stmt)
            self.record(target.id, Kind.STORE, target, augmented=True)
        else:
            for child in child_nodes(target):
                self.expr(child, target)
            self.expr(stmt.value, stmt)
        return [block]

    def stmt_Import(self, stmt, body, index, parent, preds):
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        for alias in stmt.names:
            if alias.name == "*":
                self.flow.dynamic_scope = True
                continue
            local = alias.asname or alias.name.partition(".")[0]
            self.record(local, Kind.STORE, stmt)
        return [block]

    stmt_ImportFrom = stmt_Import

    def definition(self, stmt, body, index, parent, preds):
        block = self.start(stmt, "stmt", preds)
        self.info(stmt, body, index, parent, block)
        for decorator in stmt.decorator_list:
            self.expr(decorator, stmt)
        if isinstance(stmt, ast.ClassDef):
            for base in (*stmt.bases, *stmt.keywords):
                self.expr(base, stmt)
        else:
            for default in (*stmt.args.defaults, *stmt.args.kw_defaults):
                if default is not None:
                    self.expr(default, stmt)
            # Annotations are evaluated at the ``def`` too (unless the module
            # postpones them, where counting them only adds reads).
            for annotation in annotations_of(stmt):
                self.expr(annotation, stmt)
        self.nested_scope(stmt, stmt)
        self.record(stmt.name, Kind.STORE, stmt)
        return [block]

    stmt_FunctionDef = definition
    stmt_AsyncFunctionDef = definition
    stmt_ClassDef = definition

    def stmt_If(self, stmt, body, index, parent, preds):
        test = self.start(stmt, "test", preds)
        self.info(stmt, body, index, parent, test)
        self.expr(stmt.test, stmt)
        ends = self.statements(stmt.body, [test], stmt)
        if stmt.orelse:
            ends = ends + self.statements(stmt.orelse, [test], stmt)
        else:
            ends = ends + [test]
        return ends

    def stmt_For(self, stmt, body, index, parent, preds):
        head = self.start(stmt, "iter", preds)
        self.info(stmt, body, index, parent, head)
        self.expr(stmt.iter, stmt)
        # Fetching the next item: the loop ends here, before the target is
        # bound, so an exhausted (or empty) iterable leaves the target unbound.
        # A literal non-empty iterable (``range(3)``, ``(a, b)``) runs the body
        # at least once: the first item needs no check for exhaustion.
        at_least_once = nonempty_literal(stmt.iter, self.flow.is_builtin("range"))
        fetch = self.new_block(stmt, "next")
        if not at_least_once:
            self.link([head], fetch)
        target = self.start(stmt, "target", [head] if at_least_once else [fetch])
        self.link([fetch], target)
        self.expr(stmt.target, stmt)
        breaks: list[Block] = []
        self.loops.append((fetch, breaks))
        ends = self.statements(stmt.body, [target], stmt)
        self.loops.pop()
        self.link(ends, fetch)
        ends = self.statements(stmt.orelse, [fetch], stmt)
        return ends + breaks

    stmt_AsyncFor = stmt_For

    def stmt_While(self, stmt, body, index, parent, preds):
        test = self.start(stmt, "test", preds)
        self.info(stmt, body, index, parent, test)
        self.expr(stmt.test, stmt)
        breaks: list[Block] = []
        self.loops.append((test, breaks))
        ends = self.statements(stmt.body, [test], stmt)
        self.loops.pop()
        self.link(ends, test)
        always = isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)
        ends = [] if always else self.statements(stmt.orelse, [test], stmt)
        return ends + breaks

    def stmt_With(self, stmt, body, index, parent, preds):
        items = self.start(stmt, "items", preds)
        self.info(stmt, body, index, parent, items)
        for item in stmt.items:
            self.expr(item.context_expr, stmt)
            if item.optional_vars is not None:
                self.expr(item.optional_vars, stmt)
        swallows = self.flow.may_swallow
        if not any(swallows(item.context_expr) for item in stmt.items) and not (
            isinstance(stmt, ast.AsyncWith)
        ):
            return self.statements(stmt.body, [items], stmt)
        # A context manager may swallow an exception raised in the body
        # (``suppress``, an ``__exit__`` returning True): as with ``try``,
        # every statement of the body may be left for the code after it.
        leave = self.new_block(stmt, "with-exit")
        entered = self.start(stmt, "entered", [items])
        self.link([entered], leave)
        self.handlers.append([leave])
        ends = self.statements(stmt.body, [entered], stmt)
        self.handlers.pop()
        return ends + [leave]

    stmt_AsyncWith = stmt_With

    def stmt_Try(self, stmt, body, index, parent, preds):
        entry = self.start(stmt, "stmt", preds)  # a no-op marker so info has a block
        self.info(stmt, body, index, parent, entry)
        handler_blocks = [self.new_block(stmt, "handler") for _ in stmt.handlers]
        final_entry = self.new_block(stmt, "finally") if stmt.finalbody else None
        targets = handler_blocks + ([final_entry] if final_entry else [])
        for target in targets:
            self.link([entry], target)
        self.handlers.append(targets)
        ends = self.statements(stmt.body, [entry], stmt)
        self.handlers.pop()
        if final_entry is not None:
            self.handlers.append([final_entry])
        ends = self.statements(stmt.orelse, ends, stmt) if stmt.orelse else ends
        for handler, block in zip(stmt.handlers, handler_blocks, strict=True):
            self.block = block
            if handler.type is not None:
                self.expr(handler.type, handler)
            if handler.name:
                self.record(handler.name, Kind.STORE, handler)
            ends = ends + self.statements(handler.body, [block], stmt)
        if final_entry is not None:
            self.handlers.pop()
            self.link(ends, final_entry)
            normal_preds = frozenset(ends)
            self.block = final_entry
            ends = self.statements(stmt.finalbody, [final_entry], stmt)
            # The finally clause also runs on the way out of a raise or return.
            self.link(ends, self.flow.exit)
            self.flow.finally_clauses[final_entry] = FinallyClause(
                final_entry, normal_preds, tuple(ends)
            )
        return ends

    stmt_TryStar = stmt_Try

    def stmt_Match(self, stmt, body, index, parent, preds):
        subject = self.start(stmt, "test", preds)
        self.info(stmt, body, index, parent, subject)
        self.expr(stmt.subject, stmt)
        ends: list[Block] = []
        previous = [subject]
        for case in stmt.cases:
            block = self.start(stmt, "case", previous)
            self.pattern(case.pattern, case)
            if case.guard is not None:
                self.expr(case.guard, case)
            ends += self.statements(case.body, [block], stmt)
            previous = [block]
            irrefutable = (
                isinstance(case.pattern, ast.MatchAs)
                and case.pattern.pattern is None
                and case.guard is None
            )
            if irrefutable:
                previous = []
                break
        return ends + previous

    def pattern(self, pattern: ast.AST, parent: ast.AST) -> None:
        self.flow.parents[pattern] = parent
        name = getattr(pattern, "name", None) or getattr(pattern, "rest", None)
        if isinstance(name, str):
            self.record(name, Kind.STORE, pattern)
        for child in child_nodes(pattern):
            if isinstance(child, ast.pattern):
                self.pattern(child, pattern)
            else:
                self.expr(child, pattern)

    # -- expressions, in evaluation order --------------------------------------

    def name(self, node: ast.Name, parent: ast.AST) -> None:
        ctx = type(node.ctx)
        if ctx is ast.Load:
            self.record(node.id, Kind.LOAD, node)
            if (
                isinstance(parent, ast.Call)
                and parent.func is node
                and (
                    node.id in _DYNAMIC_SCOPE_CALLS
                    or (
                        node.id in _DYNAMIC_SCOPE_BARE_CALLS
                        and not parent.args
                        and not parent.keywords
                    )
                )
            ):
                self.flow.dynamic_scope = True
        else:
            self.record(node.id, Kind.DEL if ctx is ast.Del else Kind.STORE, node)

    def expr(self, node: ast.AST, parent: ast.AST) -> None:
        parents = self.flow.parents
        parents[node] = parent
        kind = type(node)
        if kind is ast.Name:
            self.name(node, parent)  # type: ignore[arg-type]
            return
        if kind not in _SPECIAL_TYPES:
            # Most nodes: only their children matter, and of those, the leaves
            # (contexts, operators, constants) have nothing to record. Names,
            # the commonest children, are handled here without a call.
            fields = NODE_FIELDS.get(kind)
            if fields is None:  # (not ``or``: a constant's fields are empty)
                fields = node_fields(kind)
            for field_name in fields:
                value = getattr(node, field_name, None)
                if value is None:
                    continue
                for child in value if type(value) is list else (value,):
                    child_kind = type(child)
                    if child_kind is ast.Name:
                        parents[child] = node
                        if (
                            type(child.ctx) is ast.Load  # type: ignore[attr-defined]
                            and child.id not in _DYNAMIC_SCOPE_NAMES  # type: ignore[attr-defined]
                        ):
                            # What ``name`` does with such a load.
                            self.record(child.id, Kind.LOAD, child)  # type: ignore[attr-defined]
                        else:
                            self.name(child, node)  # type: ignore[arg-type]
                    elif child_kind in LEAF_TYPES:
                        # No children or events: only its parent is recorded.
                        parents[child] = node
                    elif child is not None:
                        self.expr(child, node)
            return
        if isinstance(node, ast.IfExp):
            self.expr(node.test, node)
            self.conditional += 1
            self.expr(node.body, node)
            self.expr(node.orelse, node)
            self.conditional -= 1
            return
        if isinstance(node, ast.BoolOp):
            self.expr(node.values[0], node)
            self.conditional += 1
            for value in node.values[1:]:
                self.expr(value, node)
            self.conditional -= 1
            return
        if isinstance(node, ast.NamedExpr):
            self.expr(node.value, node)
            self.expr(node.target, node)
            return
        if isinstance(node, ast.Lambda):
            for default in (*node.args.defaults, *node.args.kw_defaults):
                if default is not None:
                    self.expr(default, node)
            self.nested_scope(node, node)
            return
        if isinstance(node, _COMPREHENSIONS):
            first = node.generators[0]
            self.expr(first.iter, first)
            self.flow.parents[first] = node
            self.nested_scope(node, node)
            return

    def nested_scope(self, scope: ast.AST, parent: ast.AST) -> None:
        """Record the free names of a nested scope as nested events here."""
        self.nested += 1
        self.conditional += 1
        self._free_names(scope, frozenset())
        self.conditional -= 1
        self.nested -= 1

    def _free_names(self, scope: ast.AST, enclosing: frozenset[str]) -> None:
        """Record the names of ``scope`` that are neither its own nor of a
        scope between it and the function (``enclosing``): each deeper scope
        is walked with its own locals, so a name a deeper scope binds hides
        only its own uses, and a name bound by a ``def``, ``class``,
        ``import``, ``except ... as`` or a ``case`` capture after ``nonlocal``
        is a store here as an assignment is."""
        local = _scope_locals(scope) | enclosing
        # A class's names are not visible in the scopes nested in it.
        inner = enclosing if isinstance(scope, ast.ClassDef) else local
        record = self.record
        for node in _scope_body_nodes(scope):
            if isinstance(node, ast.Name):
                if node.id not in local:
                    kind = Kind.LOAD if isinstance(node.ctx, ast.Load) else Kind.STORE
                    record(node.id, kind, node)
                continue
            for name in names_bound_by(node):
                if name not in local:
                    record(name, Kind.STORE, node)
            if isinstance(node, _SCOPES):
                self._free_names(node, inner)


def annotations_of(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    """The parameter and return annotations of ``function``, in the order
    Python evaluates them at the ``def``."""
    args = function.args
    found = [
        arg.annotation
        for arg in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs)
        if arg is not None and arg.annotation is not None
    ]
    if args.kwarg is not None and args.kwarg.annotation is not None:
        found.append(args.kwarg.annotation)
    if function.returns is not None:
        found.append(function.returns)
    return found


def _any_manager_may_swallow(context: ast.expr) -> bool:
    return True


def _never_builtin(name: str) -> bool:
    return False


def nonempty_literal(node: ast.expr, range_is_builtin: bool = True) -> bool:
    """An iterable that is certainly not empty: a non-empty tuple, list or
    string literal, or ``range`` of integer literals with at least one item
    (where ``range`` is the builtin: ``def range(*a): return []``, a
    parameter or an import of that name may give nothing)."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return bool(node.elts) and not any(
            isinstance(e, ast.Starred) for e in node.elts
        )
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes)) and bool(node.value)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and range_is_builtin
        and not node.keywords
    ):
        bounds = [_int_literal(arg) for arg in node.args]
        if None in bounds or not 1 <= len(bounds) <= 3:
            return False
        return len(range(*bounds)) > 0  # type: ignore[arg-type]
    return False


def _int_literal(node: ast.expr) -> int | None:
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    *_COMPREHENSIONS,
)


def _scope_parts(scope: ast.AST) -> list[ast.AST]:
    """The parts of a scope its enclosing scope evaluates: decorators,
    defaults, annotations, bases, a comprehension's first iterable."""
    if isinstance(scope, ast.ClassDef):
        return [
            *scope.decorator_list,
            *scope.bases,
            *(keyword.value for keyword in scope.keywords),
        ]
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = scope.args
        parts: list[ast.AST] = [
            *getattr(scope, "decorator_list", ()),
            *args.defaults,
            *(default for default in args.kw_defaults if default is not None),
        ]
        if not isinstance(scope, ast.Lambda):
            parts += annotations_of(scope)
        return parts
    return [scope.generators[0].iter]  # type: ignore[attr-defined]


def _scope_body_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """Nodes evaluated inside a nested scope (not its defaults or
    decorators); a deeper scope is given with the parts this scope evaluates
    (its defaults, decorators), not its body."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        roots: list[ast.AST] = list(scope.body)
    elif isinstance(scope, ast.Lambda):
        roots = [scope.body]
    else:  # comprehension: everything but the first iterable
        first = scope.generators[0]  # type: ignore[attr-defined]
        roots = [first.target, *first.ifs]
        roots += [
            part
            for gen in scope.generators[1:]
            for part in (gen.target, gen.iter, *gen.ifs)
        ]  # type: ignore[attr-defined]
        if isinstance(scope, ast.DictComp):
            roots += [scope.key, scope.value]
        else:
            roots.append(scope.elt)  # type: ignore[attr-defined]
    stack = roots[::-1]
    while stack:
        node = stack.pop()
        yield node
        children = (
            _scope_parts(node) if isinstance(node, _SCOPES) else child_nodes(node)
        )
        stack.extend(reversed(children))


def _scope_locals(scope: ast.AST) -> set[str]:
    """Names local to a nested scope (so not events of the enclosing function)."""
    names: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = scope.args
        for arg in (
            *args.posonlyargs,
            *args.args,
            *args.kwonlyargs,
            args.vararg,
            args.kwarg,
        ):
            if arg is not None:
                names.add(arg.arg)
    if isinstance(scope, _COMPREHENSIONS):
        for gen in scope.generators:  # type: ignore[attr-defined]
            names.update(
                n.id for n in walk_nodes(gen.target) if isinstance(n, ast.Name)
            )
        return names
    declared: set[str] = set()
    for node in _scope_body_nodes(scope):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        else:
            names.update(names_bound_by(node))
    return names - declared
