"""Hot paths: which functions of a module run per step, and at what cost.

An attention backend has two kinds of code: what runs once (``__init__``,
CUDA-graph state set-up, capture and warm-up) and what runs for every decode
step, every graph replay and every layer (``forward_decode``,
``init_forward_metadata``, a metadata builder's ``build``, a FlashInfer
wrapper's ``plan`` and ``run``). Waste costs something only in the second.

Entry points are named by glob patterns on ``method`` or ``Class.method``
(``hot-path-methods``); start-up entries are ``__init__``, the
``graph-state-methods`` and the capture and warm-up patterns below, and win
over a hot pattern on the same method (``init_forward_metadata_capture_cuda_graph``
matches ``init_forward_metadata*`` and runs once per batch size at start-up).
Both spread along a small call graph of the module's own code: ``self.m()``
(a method of the class or of a base class defined in the module), ``f()`` (a
module function), ``Class.m()``, and ``obj.m()`` where ``m`` is a method of
exactly one class of the module (``self.indices_updater.update()``); a
function nested in another has its cost. Per step wins when both reach a
function: a helper called from capture and from replay runs per step.
A call that runs once per object spreads nothing: one in the arm of ``if
self.F:`` that clears its flag (``self.F = False``), or of a method that
clears the flag guarding the call (``if self.calculate_kv_scales:
self.calc_kv_scales(k)``, which sets it False), where no other code of the
module sets the flag again (``_CallGraph.once_calls``). Nor does a call of
a memoized function (``@functools.cache``, ``@functools.lru_cache``) whose
parameters are all declared values that hash by what they hold (``int``,
``tuple[int, ...]``, ``torch.device``: ``memoized``): its body runs once
for each distinct set of arguments, a geometry or a shape, not once per
call; a tensor, an object or an undeclared parameter hashes by identity
(or may), and a call with a new one runs the body again.

Nothing here imports more than ``ast``, ``fnmatch`` and the node walks: it is on the
check path.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from bisect import bisect_left
from collections import deque
from collections.abc import Callable
from functools import partial

from lint_rules import prefilter
from lint_rules.analysis.nodes import (
    COMPOUND_STATEMENTS,
    LEAF_TYPES,
    NODE_FIELDS,
    dotted_name,
    names_bound_by,
    node_fields,
    walk_rows,
)
from lint_rules.config import DEFAULT_GRAPH_STATE_METHODS, DEFAULT_HOT_PATH_METHODS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.analysis.model import FunctionInfo, FunctionNode, ModuleModel

_AST = ast.AST

#: Methods that run at start-up even when a hot pattern matches them: CUDA-graph
#: capture (SGLang's ``init_forward_metadata_capture_cuda_graph``, vLLM's
#: ``build_for_cudagraph_capture``) and warm-up runs.
CAPTURE_AND_WARMUP_METHODS: tuple[str, ...] = (
    "__init__",
    "capture*",
    "*_capture",
    "*_capture_*",
    "*warmup*",
)

PER_STEP = "per step"
START_UP = "start-up"
UNKNOWN = "unknown"


class Cost:
    """When a function runs: ``per step`` (with the chain of calls from the
    entry point), ``start-up`` (with its entry) or ``unknown``."""

    __slots__ = ("kind", "chain")

    def __init__(self, kind: str, chain: tuple[str, ...] = ()) -> None:
        self.kind = kind
        self.chain = chain

    @property
    def per_step(self) -> bool:
        return self.kind == PER_STEP

    def __str__(self) -> str:
        """``per step (forward_decode -> _update_metadata)``, ``start-up
        (init_cuda_graph_state)``, ``unknown``."""
        if self.kind == PER_STEP:
            return f"per step ({' -> '.join(self.chain)})"
        if self.kind == START_UP:
            return f"start-up ({self.chain[0]})"
        return UNKNOWN

    def describe_where(self) -> str:
        """For a message: ``runs per step: forward -> _update``, ``runs at
        start-up: __init__``, ``not known to run per step``."""
        if self.kind == PER_STEP:
            return f"runs per step: {' -> '.join(self.chain)}"
        if self.kind == START_UP:
            return f"runs at start-up: {self.chain[0]}"
        return "not known to run per step"

    def __repr__(self) -> str:
        return f"Cost({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Cost):
            return (self.kind, self.chain) == (other.kind, other.chain)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.kind, self.chain))


UNKNOWN_COST = Cost(UNKNOWN)


class GlobMatcher:
    """A tuple of globs (``fnmatch``), compiled into one pattern, with the
    answer for each name asked kept: the same names (``forward``,
    ``seq_lens_cpu``) are asked in every module, and a match of the
    alternation of a few globs costs microseconds."""

    __slots__ = ("pattern", "limit", "_answers")

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.pattern = _compile_globs(patterns)
        #: Names kept at most (then forgotten at once: a long-lived server).
        self.limit = 1 << 16
        self._answers: dict[str, bool] = {}

    def match(self, name: str) -> bool | None:
        """True where a glob matches the whole of ``name``, else None (as
        ``self.pattern.match(name)`` finds a match or None)."""
        answers = self._answers
        found = answers.get(name)
        if found is None:
            if len(answers) >= self.limit:
                answers.clear()
            found = answers[name] = self.pattern.match(name) is not None
        return True if found else None


_MATCHERS: dict[tuple[str, ...], GlobMatcher] = {}


def _matcher(patterns: tuple[str, ...]) -> GlobMatcher:
    """One matcher for a tuple of globs (compiled once per process)."""
    found = _MATCHERS.get(patterns)
    if found is None:
        found = _MATCHERS[patterns] = GlobMatcher(patterns)
    return found


def _compile_globs(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))


def _matches(pattern: GlobMatcher, info: FunctionInfo) -> bool:
    name = info.node.name
    if pattern.match(name):
        return True
    cls = info.cls
    return cls is not None and pattern.match(f"{cls.name}.{name}") is not None


class HotPaths:
    """The cost of every function of one module, computed on first ask and
    only as far as asked: whether a function runs per step walks the code of
    the functions reachable from the per-step entries only; the start-up
    costs (for a finding's cost elsewhere) are spread when first needed."""

    def __init__(
        self,
        model: ModuleModel,
        hot_methods: tuple[str, ...] = DEFAULT_HOT_PATH_METHODS,
        startup_methods: tuple[str, ...] = DEFAULT_GRAPH_STATE_METHODS,
        rows: Callable[[frozenset[str], int, int], list[int]] | None = None,
    ) -> None:
        """``rows(names, first, last)``: the rows from ``first`` to ``last``
        that hold one of ``names`` (``Context.rows_naming``), for the
        pre-filter of the call graph (off without it, or with the
        pre-filters off)."""
        self._model = model
        self._text_rows = rows if prefilter.enabled() else None
        self._hot = _matcher(hot_methods) if hot_methods else None
        self._startup = _matcher(CAPTURE_AND_WARMUP_METHODS + tuple(startup_methods))
        self._graph: _CallGraph | None = None
        self._per_step: dict[FunctionNode, Cost] | None = None
        self._costs: dict[FunctionNode, Cost] | None = None
        self._rows: list[tuple[int, int, FunctionNode]] | None = None

    def per_step(self, function: FunctionNode) -> Cost | None:
        """The per-step cost of ``function`` (with its chain from the entry),
        or None when it is not known to run per step."""
        if self._per_step is None:
            self._per_step = self._compute_per_step()
        return self._per_step.get(function)

    def cost(self, function: FunctionNode) -> Cost:
        """When ``function`` (a function of this module) runs."""
        found = self.per_step(function)
        if found is not None:
            return found
        if self._costs is None:
            self._costs = self._compute_rest()
        return self._costs.get(function, UNKNOWN_COST)

    def once_arms(self, info: FunctionInfo) -> list[list[ast.stmt]]:
        """The bodies of the ``if`` statements of a method's own code that
        run once per object: the test says a flag of the instance
        (``if self.F:``, ``if not self.done:``) and the body itself sets it
        to a constant that makes the test false (``self.F = False``), where
        nothing else in the module sets it again (``_CallGraph.
        flag_cleared_only``)."""
        if info.cls is None or "self" not in _parameter_names(info.node):
            return []
        graph = self._call_graph()
        if not graph.may_test_a_flag(info.node):
            return []
        clearing = graph.clearing()
        return [
            stmt.body
            for stmt, flag, truth in flag_ifs(info.node)
            if (flag, not truth) in clearing
            and clears(stmt.body, flag, not truth)
            and graph.flag_cleared_only(flag, not truth)
        ]

    def function_at(self, row: int) -> FunctionNode | None:
        """The innermost function whose lines include ``row``."""
        if self._rows is None:
            self._rows = [
                (info.node.lineno, info.node.end_lineno or info.node.lineno, info.node)
                for info in self._model.functions
            ]
        found = None
        for start, end, node in self._rows:  # in source order: inner ones later
            if start > row:
                break
            if row <= end:
                found = node
        return found

    def cost_at(self, row: int) -> Cost:
        """The cost of the code at ``row``: its innermost function's (module
        code outside functions: unknown, as a script's or an import's)."""
        function = self.function_at(row)
        if function is None:
            return UNKNOWN_COST
        return self.cost(function)

    # ------------------------------------------------------------------ graph

    def _entries(self) -> tuple[list[FunctionInfo], list[FunctionInfo]]:
        """The per-step and the start-up entries (start-up wins on a method
        both match)."""
        hot_entries: list[FunctionInfo] = []
        startup_entries: list[FunctionInfo] = []
        for info in self._model.functions:
            if info.parent is not None:
                continue  # a nested function has its parent's cost
            if _matches(self._startup, info):
                startup_entries.append(info)
            elif self._hot is not None and _matches(self._hot, info):
                hot_entries.append(info)
        return hot_entries, startup_entries

    def _call_graph(self) -> _CallGraph:
        if self._graph is None:
            self._graph = _CallGraph(
                self._model.functions,
                self._text_rows,
                self._model.tree,
                partial(_spelled_in_a_string, self._model),
                partial(memoized, model=self._model),
            )
        return self._graph

    def _compute_per_step(self) -> dict[FunctionNode, Cost]:
        """Per step, breadth first from the entries: the shortest chain."""
        hot_entries, _ = self._entries()
        costs: dict[FunctionNode, Cost] = {}
        if not hot_entries:
            return costs
        queue: deque[FunctionInfo] = deque()
        for info in hot_entries:
            costs[info.node] = Cost(PER_STEP, (_label(info),))
            queue.append(info)
        _spread(queue, self._call_graph(), costs, per_step=True)
        _inherit(self._model.functions, costs)
        return costs

    def _compute_rest(self) -> dict[FunctionNode, Cost]:
        """Start-up costs of what the per-step spread did not reach."""
        per_step = self._per_step or {}
        _, startup_entries = self._entries()
        costs: dict[FunctionNode, Cost] = dict(per_step)
        queue: deque[FunctionInfo] = deque()
        for info in startup_entries:
            if info.node not in costs:
                costs[info.node] = Cost(START_UP, (_label(info),))
                queue.append(info)
        if queue:
            _spread(queue, self._call_graph(), costs, per_step=False)
        _inherit(self._model.functions, costs)
        return costs


def _spread(
    queue: deque[FunctionInfo],
    graph: _CallGraph,
    costs: dict[FunctionNode, Cost],
    per_step: bool,
) -> None:
    while queue:
        caller = queue.popleft()
        cost = costs[caller.node]
        for callee in graph.callees(caller):
            if callee.node in costs:
                continue
            if per_step:
                costs[callee.node] = Cost(PER_STEP, cost.chain + (callee.node.name,))
            else:
                costs[callee.node] = cost
            queue.append(callee)


def _inherit(functions: list[FunctionInfo], costs: dict[FunctionNode, Cost]) -> None:
    """Nested functions: their parent's cost (parents come first in source order)."""
    for info in functions:
        parent = info.parent
        if parent is not None and parent.node in costs:
            costs[info.node] = costs[parent.node]


def _label(info: FunctionInfo) -> str:
    return info.node.name


class _CallGraph:
    """For a top-level function or method, the module's functions it may
    call (its nested functions' calls included), in the order a breadth-first
    walk of its code meets the calls; each function's code is walked when
    its callees are first asked."""

    def __init__(
        self,
        functions: list[FunctionInfo],
        rows: Callable[[frozenset[str], int, int], list[int]] | None = None,
        tree: ast.Module | None = None,
        spelled: Callable[[str], bool] | None = None,
        memoized: Callable[[FunctionInfo], tuple[ast.arg, ...] | None] | None = None,
    ) -> None:
        #: Whether a function's body runs once per distinct arguments
        #: (``memoized``: its parameters keyed by identity, or None): a call
        #: of it spreads nothing where those get what they got before.
        self._memoized = memoized
        self._memo: dict[FunctionInfo, tuple[ast.arg, ...] | None] = {}
        #: The rows holding one of some names (``HotPaths``); None: every
        #: expression is walked (the pre-filters are off).
        self._rows = rows
        self.module_functions: dict[str, FunctionInfo] = {}
        self.methods: dict[ast.ClassDef, dict[str, FunctionInfo]] = {}
        self.classes_by_name: dict[str, ast.ClassDef] = {}
        self.by_method_name: dict[str, list[FunctionInfo]] = {}
        for info in functions:
            if info.parent is not None:
                continue
            if info.cls is None:
                self.module_functions.setdefault(info.node.name, info)
            else:
                self.methods.setdefault(info.cls, {}).setdefault(info.node.name, info)
                self.classes_by_name.setdefault(info.cls.name, info.cls)
                self.by_method_name.setdefault(info.node.name, []).append(info)
        # ``self.a = Class(...)`` and ``self.a = self.m`` in any method (its
        # nested functions and classes included): what ``self.a.x()`` and
        # ``self.a()`` call. Read off the binding statements the model
        # collected, in source order: no walk of the code.
        self.attribute_classes: dict[ast.ClassDef, dict[str, str]] = {}
        self.attribute_methods: dict[ast.ClassDef, dict[str, list[str]]] = {}
        for info in functions:
            top = info
            while top.parent is not None:
                top = top.parent
            cls = top.cls
            if cls is None:
                continue
            for stmt, _ in info.bindings:
                if type(stmt) is ast.Assign:
                    self._note_attribute(cls, stmt)
        self._callees: dict[FunctionInfo, list[FunctionInfo]] = {}
        self._functions = functions
        self._tree = tree
        #: Whether a string constant of the module spells a name (None: any
        #: may).
        self._spelled = spelled
        self._flag_stores: dict[tuple[str, bool], bool] = {}
        self._cleared: set[tuple[str, bool]] | None = None
        self._flag_names: frozenset[str] | None = None
        #: ``may_test_a_flag``'s answers (asked of a method by ``once_arms``
        #: and again by ``once_calls``).
        self._tests_a_flag: dict[FunctionNode, bool] = {}
        #: Every name a call of the module's own code must hold.
        self.names = frozenset(
            (
                *self.module_functions,
                *self.classes_by_name,
                *self.by_method_name,
                *(
                    name
                    for aliases in self.attribute_methods.values()
                    for name in aliases
                ),
            )
        )

    def _note_attribute(self, cls: ast.ClassDef, node: ast.Assign) -> None:
        # (the value first: most assignments are of neither kind)
        value = node.value
        kind = type(value)
        if kind is ast.Call:
            func = value.func  # type: ignore[attr-defined]
            if type(func) is not ast.Name or func.id not in self.classes_by_name:
                return
        elif kind is ast.Attribute:
            owner = value.value  # type: ignore[attr-defined]
            if type(owner) is not ast.Name or owner.id != "self":
                return
        else:
            return
        for target in node.targets:
            if not (
                type(target) is ast.Attribute
                and type(target.value) is ast.Name  # type: ignore[attr-defined]
                and target.value.id == "self"  # type: ignore[attr-defined]
            ):
                continue
            if kind is ast.Call:
                self.attribute_classes.setdefault(cls, {})[target.attr] = func.id  # type: ignore[attr-defined]
            else:
                self.attribute_methods.setdefault(cls, {}).setdefault(
                    target.attr,  # type: ignore[attr-defined]
                    [],
                ).append(value.attr)  # type: ignore[attr-defined]

    def method_of(self, cls: ast.ClassDef, name: str) -> FunctionInfo | None:
        """``cls.name``: defined in the class or in a base class of the
        module, depth first as the MRO is for single inheritance."""
        seen: set[str] = set()
        stack = [cls]
        while stack:
            current = stack.pop()
            found = self.methods.get(current, {}).get(name)
            if found is not None:
                return found
            seen.add(current.name)
            for base in reversed(current.bases):
                base_name = base.id if isinstance(base, ast.Name) else None
                base_cls = self.classes_by_name.get(base_name) if base_name else None
                if base_cls is not None and base_cls.name not in seen:
                    stack.append(base_cls)
        return None

    def methods_named(self, cls: ast.ClassDef, name: str) -> list[FunctionInfo]:
        """What ``obj.name()`` may run for an instance of ``cls``: the method,
        or the methods stored under that name (``self.update = self.update_single``)."""
        found = self.method_of(cls, name)
        aliased = [found] if found is not None else []
        for other in self.attribute_methods.get(cls, {}).get(name, ()):
            target = self.method_of(cls, other)
            if target is not None:
                aliased.append(target)
        return aliased

    def subclass_methods(self, cls: ast.ClassDef, name: str) -> list[FunctionInfo]:
        """Overrides of ``name`` in the module's subclasses of ``cls``: a
        ``self.m()`` of a base class may run any of them."""
        found = []
        for other in self.by_method_name.get(name, ()):
            other_cls = other.cls
            if other_cls is not None and other_cls is not cls:
                if _derives_from(other_cls, cls, self.classes_by_name):
                    found.append(other)
        return found

    def callees(self, info: FunctionInfo) -> list[FunctionInfo]:
        found = self._callees.get(info)
        if found is None:
            found = self._callees[info] = self._find_callees(info)
        return found

    def _find_callees(self, info: FunctionInfo) -> list[FunctionInfo]:
        classes_by_name = self.classes_by_name
        targets: list[FunctionInfo] = []
        # Memoized methods called on an object that may be new at each step
        # (``meta.total()``): their cache is keyed on it too.
        missed: set[FunctionInfo] = set()
        calls = self._calls(info.node)
        if calls and info.cls is not None:
            once = self.once_calls(info)
            if once:
                calls = [node for node in calls if node not in once]
        for node in calls:
            func = node.func
            if isinstance(func, ast.Name):
                target = self.module_functions.get(func.id)
                if target is not None:
                    if self._memoized is not None and self._hits_again(
                        info, target, node
                    ):
                        continue
                    targets.append(target)
                elif func.id in classes_by_name:  # constructing: __init__
                    init = self.method_of(classes_by_name[func.id], "__init__")
                    if init is not None:
                        targets.append(init)
            elif isinstance(func, ast.Attribute):
                found = self._method_targets(info, func)
                if found and not self._kept_receiver(func.value):
                    missed.update(found)
                targets.extend(found)
        if self._memoized is not None and targets:
            targets = [
                target
                for target in targets
                if not self._is_memoized(target)
                or target in missed
                and _instance_method(target)
            ]
        return targets

    def _kept_receiver(self, receiver: ast.expr) -> bool:
        """Whether a method called on ``receiver`` gets the caller's own
        instance or class (``self``, ``cls``, ``super()``), a class of the
        module, or an object kept on the instance (``self.meta``): the same
        object at each step, where a memoized method's cache, keyed on it
        too, hits again."""
        if type(receiver) is ast.Name:
            return receiver.id in ("self", "cls") or receiver.id in self.classes_by_name
        if type(receiver) is ast.Attribute:
            value = receiver.value
            return type(value) is ast.Name and value.id == "self"
        return (
            type(receiver) is ast.Call
            and type(receiver.func) is ast.Name
            and receiver.func.id == "super"
        )

    def _is_memoized(self, info: FunctionInfo) -> bool:
        return self._keyed_by(info) == ()

    def _keyed_by(self, info: FunctionInfo) -> tuple[ast.arg, ...] | None:
        """None where ``info``'s function is not memoized (``memoized``),
        else its parameters not declared values (a call hits the cache
        again only when each of them is given the same object)."""
        if info in self._memo:
            return self._memo[info]
        found = None
        if info.node.decorator_list:
            found = self._memoized(info)  # type: ignore[misc]
        self._memo[info] = found
        return found

    def _hits_again(
        self, caller: FunctionInfo, target: FunctionInfo, call: ast.Call
    ) -> bool:
        """Whether ``call`` (of the module function ``target``, by name)
        runs ``target``'s body only once per distinct set of values: the
        function is memoized, and each parameter not declared a value is
        given a result of a memoized function of values of the module
        (``sizes = block_sizes(shape, device)``, then ``index(sizes,
        n)``): a cache hit returns the object it returned before, so the
        outer cache hits again too (``_stable``). A parameter left to its
        default gets the one object the ``def`` made."""
        keyed = self._keyed_by(target)
        if not keyed:
            return False  # (not memoized, or of values: ``_is_memoized``)
        args = target.node.args
        if any(type(arg) is ast.Starred for arg in call.args) or any(
            keyword.arg is None for keyword in call.keywords
        ):
            return False
        given: dict[str, ast.expr] = {}
        positional = [*args.posonlyargs, *args.args]
        if len(call.args) > len(positional):
            return False
        for parameter, arg in zip(positional, call.args, strict=False):
            given[parameter.arg] = arg
        for keyword in call.keywords:
            given[keyword.arg] = keyword.value  # type: ignore[index]
        return all(
            parameter.arg not in given or self._stable(caller, given[parameter.arg])
            for parameter in keyed
        )

    def _stable(self, caller: FunctionInfo, value: ast.expr) -> bool:
        """Whether ``value`` is the result of a call of a memoized function
        of values of the module (``_stable_call``), or a name ``caller``
        binds only to such results, each by a plain assignment of that name
        alone (in its own code or a nested function's; no parameter,
        ``global`` or ``nonlocal`` of that name)."""
        if type(value) is ast.Call:
            return self._stable_call(value)  # type: ignore[arg-type]
        if type(value) is not ast.Name:
            return False
        name = value.id  # type: ignore[attr-defined]
        stores = assigned = 0
        for node in ast.walk(caller.node):
            kind = type(node)
            if kind is ast.Name:
                if node.id == name and type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                    stores += 1
            elif kind is ast.Assign:
                targets = node.targets  # type: ignore[attr-defined]
                if (
                    len(targets) == 1
                    and type(targets[0]) is ast.Name
                    and targets[0].id == name
                ):
                    if type(node.value) is not ast.Call or not self._stable_call(  # type: ignore[attr-defined]
                        node.value  # type: ignore[attr-defined]
                    ):
                        return False
                    assigned += 1
            elif kind is ast.arg:
                if node.arg == name:  # type: ignore[attr-defined]
                    return False
            elif kind is ast.Global or kind is ast.Nonlocal:
                if name in node.names:  # type: ignore[attr-defined]
                    return False
            elif name in names_bound_by(node):
                return False  # (``case name:``, ``except E as name``, a ``def``)
        return stores > 0 and stores == assigned

    def _stable_call(self, call: ast.Call) -> bool:
        """Whether ``call`` calls a memoized function of values of the
        module by name (no ``*args`` or ``**kwargs``): on a hit, the object
        it returned before."""
        func = call.func
        if type(func) is not ast.Name:
            return False
        target = self.module_functions.get(func.id)  # type: ignore[attr-defined]
        return (
            target is not None
            and self._is_memoized(target)
            and not any(type(arg) is ast.Starred for arg in call.args)
            and all(keyword.arg is not None for keyword in call.keywords)
        )

    def once_calls(self, info: FunctionInfo) -> set[ast.Call]:
        """The calls of ``info``'s own code that run once per object: those
        of a once arm (``once_arms``), and a call of a method of the class
        under ``if self.F:`` (in its body, at any depth) that itself clears
        the flag ``F`` before it can leave (``self.calculate_kv_scales =
        False`` in ``calc_kv_scales``): after its first run the test is
        false, and the method is not called again."""
        found: set[ast.Call] = set()
        method = info.node
        cls = info.cls
        if cls is None or "self" not in _parameter_names(method):
            return found
        if not self.may_test_a_flag(method):
            return found
        clearing = self.clearing()
        for stmt, flag, truth in flag_ifs(method):
            if (flag, not truth) not in clearing:
                continue  # (no method, and so no arm, clears it)
            calls = [
                node
                for inner in stmt.body
                for node in _breadth_first_calls(inner, None)
            ]
            if not calls:
                continue
            if clears(stmt.body, flag, not truth):
                once = calls
            else:
                once = []
                for node in calls:
                    func = node.func
                    if (
                        type(func) is ast.Attribute
                        and type(func.value) is ast.Name
                        and func.value.id == "self"
                    ):
                        targets = self.methods_named(cls, func.attr)
                        targets += self.subclass_methods(cls, func.attr)
                        if targets and all(
                            clears(target.node.body, flag, not truth)
                            for target in targets
                        ):
                            once.append(node)
            # (asked last: it walks the module, once per flag)
            if once and self.flag_cleared_only(flag, not truth):
                found.update(once)
        return found

    def may_test_a_flag(self, function: FunctionNode) -> bool:
        """Whether ``function`` may test a flag some method clears
        (``clearing``): with the pre-filter, whether its text names one
        (each function's answer kept)."""
        found = self._tests_a_flag.get(function)
        if found is None:
            found = self._tests_a_flag[function] = self._may_test_a_flag(function)
        return found

    def _may_test_a_flag(self, function: FunctionNode) -> bool:
        clearing = self.clearing()
        if not clearing:
            return False
        if self._rows is None:
            return True
        names = self._flag_names
        if names is None:
            names = self._flag_names = frozenset(flag for flag, _ in clearing)
        return bool(self._rows(names, function.lineno, function.end_lineno or 0))

    def clearing(self) -> set[tuple[str, bool]]:
        """(F, truth) of each ``self.F = constant`` statement of the
        module's methods (their own code, a nested block's included): the
        only flags an arm or a method can clear (``clears``), found once."""
        found = self._cleared
        if found is None:
            found = self._cleared = set()
            for info in self._functions:
                if info.cls is None:
                    continue
                for stmt, _ in info.bindings:
                    if type(stmt) is not ast.Assign:
                        continue
                    value = stmt.value  # type: ignore[attr-defined]
                    if type(value) is not ast.Constant or not _flag_constant(value):
                        continue
                    for target in stmt.targets:  # type: ignore[attr-defined]
                        if (
                            type(target) is ast.Attribute
                            and type(target.value) is ast.Name
                            and target.value.id == "self"
                        ):
                            found.add((target.attr, bool(value.value)))
        return found

    def flag_cleared_only(self, flag: str, cleared: bool) -> bool:
        """Whether every store of an attribute named ``flag`` in the module
        (of any object; but a constructor's own, ``self.flag`` in
        ``__init__``) is a constant of the truth ``cleared``: no code sets
        the flag again (a dirty flag set every step would make its arm run
        every step), no string spells the name (``setattr(obj, "flag",
        True)``) and no ``setattr`` is given a name computed when it runs
        (``setattr(layer, name, True)``; but the constructor's own object's)."""
        found = self._flag_stores.get((flag, cleared))
        if found is None:
            found = self._flag_stores[(flag, cleared)] = self._cleared_only(
                flag, cleared
            )
        return found

    def _cleared_only(self, flag: str, cleared: bool) -> bool:
        tree = self._tree
        if tree is None or self._spelled is None or self._spelled(flag):
            return False
        allowed: set[ast.AST] = set()  # the stores of the clearing constant
        for info in self._functions:
            # (a constructor's stores into its own object: the first value)
            at_start = info.node.name == "__init__" and info.cls is not None
            for stmt, _ in info.bindings:
                kind = type(stmt)
                if kind is ast.Assign:
                    targets = stmt.targets  # type: ignore[attr-defined]
                elif kind is ast.AnnAssign:
                    targets = [stmt.target]  # type: ignore[attr-defined]
                else:
                    continue
                value = stmt.value  # type: ignore[attr-defined]
                clearing = _flag_constant(value) and bool(value.value) is cleared
                for target in targets:
                    if type(target) is ast.Attribute and (
                        clearing or (at_start and _of_self(target))
                    ):
                        allowed.add(target)
        rows = None
        if self._rows is not None:  # (the rows spelling the flag: a pre-filter)
            last = max(tree.body[-1].end_lineno or 1, 1) if tree.body else 1
            rows = self._rows(frozenset({flag, "setattr"}), 1, last)
        parents: dict[ast.AST, ast.AST] = {}
        for node in walk_rows(tree, rows, parents):
            kind = type(node)
            if kind is ast.Call:
                # ``setattr(obj, name, value)`` with a name known only when
                # it runs may set the flag (but for a constructor's own
                # object: ``setattr(self, key, value)`` in ``__init__``).
                func = node.func  # type: ignore[attr-defined]
                args = node.args  # type: ignore[attr-defined]
                if (
                    type(func) is ast.Name
                    and func.id == "setattr"
                    and not (
                        len(args) > 1
                        and type(args[1]) is ast.Constant
                        and type(args[1].value) is str
                    )
                    and not (
                        args
                        and type(args[0]) is ast.Name
                        and args[0].id == "self"
                        and _in_constructor(node, parents)
                    )
                ):
                    return False
            elif kind is ast.Attribute:
                if (
                    node.attr == flag  # type: ignore[attr-defined]
                    and type(node.ctx) is not ast.Load  # type: ignore[attr-defined]
                    and node not in allowed
                ):
                    return False
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                # A method (a property) by that name: ``self.flag = False``
                # runs its setter, and its getter need not then be false.
                if node.name == flag and type(parents.get(node)) is ast.ClassDef:  # type: ignore[attr-defined]
                    return False
            elif kind is ast.Name:
                # ... and so does a class attribute bound to other than a
                # flag's constant (``flag = property(...)``, a descriptor).
                if node.id == flag and type(node.ctx) is ast.Store:  # type: ignore[attr-defined]
                    stmt = parents.get(node)
                    if (
                        type(parents.get(stmt)) is ast.ClassDef  # type: ignore[arg-type]
                        and not _flag_constant(getattr(stmt, "value", None))
                    ):
                        return False
        return True

    def _calls(self, function: FunctionNode) -> list[ast.Call]:
        """The calls in ``function`` (decorators and nested code included)
        that may name one of the module's functions, in the order of a
        breadth-first walk (``nodes.walk``). With the rows holding one of
        the module's names (``names``, a pre-filter), a node is walked only
        where its lines span one of them: a call of the module's code names
        it (``f(``, ``self.f(``), and that name's row lies within the call
        and so within each node around it."""
        rows_matching = self._rows
        if rows_matching is None:
            return _breadth_first_calls(function, None)
        if not self.names:
            return []  # (no call can name a function of the module)
        first = min(
            [function.lineno, *(node.lineno for node in function.decorator_list)]
        )
        rows = rows_matching(self.names, first, function.end_lineno or first)
        if not rows:
            return []
        return _breadth_first_calls(function, rows)

    def _method_targets(
        self, info: FunctionInfo, func: ast.Attribute
    ) -> list[FunctionInfo]:
        classes_by_name = self.classes_by_name
        name = func.attr
        receiver = func.value
        if (
            isinstance(receiver, ast.Name)
            and receiver.id in ("self", "cls")
            and info.cls is not None
        ):
            return self.methods_named(info.cls, name) + self.subclass_methods(
                info.cls, name
            )
        if isinstance(receiver, ast.Name) and receiver.id in classes_by_name:
            target = self.method_of(classes_by_name[receiver.id], name)
            return [target] if target is not None else []
        if (
            isinstance(receiver, ast.Call)
            and isinstance(receiver.func, ast.Name)
            and receiver.func.id == "super"
            and info.cls is not None
        ):
            for base in info.cls.bases:
                if isinstance(base, ast.Name) and base.id in classes_by_name:
                    target = self.method_of(classes_by_name[base.id], name)
                    if target is not None:
                        return [target]
            return []
        attributes = self.attribute_classes.get(info.cls, {}) if info.cls else {}
        if (
            isinstance(receiver, ast.Attribute)
            and isinstance(receiver.value, ast.Name)
            and receiver.value.id == "self"
            and receiver.attr in attributes
        ):
            owner = classes_by_name[attributes[receiver.attr]]
            return self.methods_named(owner, name)
        candidates = self.by_method_name.get(name, ())
        if len(candidates) == 1 and not name.startswith("__"):
            return [candidates[0]]
        return []


#: Nodes that hold no call: names and constants, contexts and operators.
_NO_CALLS = LEAF_TYPES | {ast.Name}
#: The fields of each node type that may hold a node holding a call.
_CALL_FIELDS: dict[type, tuple[str, ...]] = {}
#: Node types whose first row is that of their first decorator.
_DECORATED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _breadth_first_calls(root: ast.AST, rows: list[int] | None) -> list[ast.Call]:
    """The calls under ``root`` in the order ``nodes.walk`` meets them;
    with ``rows`` (sorted), only those under nodes whose lines span one of
    them (a node without a position, an ``arguments``, always counts; an
    f-string's nodes are all walked, their positions not being trusted on
    every Python). Nodes that hold no call are not looked into."""
    found: list[ast.Call] = []
    queue: list[ast.AST] = [root]
    push = queue.append
    call = ast.Call
    no_calls = _NO_CALLS
    fields_of = _CALL_FIELDS
    loose: set[ast.AST] = set()  # (the nodes in an f-string)
    count = len(rows) if rows is not None else 0
    decorated = _DECORATED
    for node in queue:  # (a list read as it grows: breadth first)
        kind = type(node)
        if kind is call:
            found.append(node)  # type: ignore[arg-type]
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = tuple(
                name
                for name in NODE_FIELDS.get(kind) or node_fields(kind)
                if name not in ("ctx", "op", "ops")
            )
        free = rows is None or (bool(loose) and node in loose)
        for name in fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            for child in value if type(value) is list else (value,):
                child_kind = type(child)
                if child_kind in no_calls or not isinstance(child, _AST):
                    continue
                if free:
                    if rows is not None:
                        loose.add(child)
                    push(child)
                    continue
                # (whether the child's lines, its decorators' included, span one
                # of the rows; a node without a position always does)
                first = getattr(child, "lineno", None)
                if first is not None:
                    if child_kind in decorated and child.decorator_list:  # type: ignore[attr-defined]
                        first = min(first, *(d.lineno for d in child.decorator_list))  # type: ignore[attr-defined]
                    index = bisect_left(rows, first)  # type: ignore[arg-type]
                    if index == count or rows[index] > (child.end_lineno or first):  # type: ignore[attr-defined,index]
                        continue
                if child_kind is ast.JoinedStr:
                    loose.add(child)
                push(child)
    return found


#: Statements that open a new scope: their code is not the function's own.
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


#: Statements holding blocks of statements (``flag_ifs``).
_BLOCK_STATEMENTS = frozenset(COMPOUND_STATEMENTS)


def _flag_constant(value: ast.expr | None) -> bool:
    """``True``, ``False`` or ``None``: what a flag is set to."""
    return type(value) is ast.Constant and (
        value.value is None or type(value.value) is bool  # type: ignore[attr-defined]
    )


def _of_self(target: ast.expr) -> bool:
    """Whether ``target`` is an attribute of ``self`` (``self.F``)."""
    value = target.value  # type: ignore[attr-defined]
    return type(value) is ast.Name and value.id == "self"


def _in_constructor(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether the innermost function around ``node`` (its ``parents``, as
    ``walk_rows`` records them) is the ``__init__`` of a class."""
    parent = parents.get(node)
    while parent is not None and type(parent) not in _SCOPES:
        parent = parents.get(parent)
    return (
        type(parent) in (ast.FunctionDef, ast.AsyncFunctionDef)
        and parent.name == "__init__"  # type: ignore[union-attr]
        and type(parents.get(parent)) is ast.ClassDef
    )


def _parameter_names(function: FunctionNode) -> set[str]:
    args = function.args
    return {arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


def _flag_of(test: ast.expr) -> tuple[str, bool] | None:
    """(F, the truth of ``self.F`` where the test holds) for a test that is
    ``self.F``, ``not self.F``, or an ``and`` one operand of which is one
    (the body runs only where each operand holds)."""
    kind = type(test)
    if (
        kind is ast.Attribute
        and type(test.value) is ast.Name  # type: ignore[attr-defined]
        and test.value.id == "self"  # type: ignore[attr-defined]
    ):
        return test.attr, True  # type: ignore[attr-defined]
    if kind is ast.UnaryOp and type(test.op) is ast.Not:  # type: ignore[attr-defined]
        operand = test.operand  # type: ignore[attr-defined]
        if type(operand) is ast.Attribute:
            found = _flag_of(operand)
            return None if found is None else (found[0], not found[1])
        return None
    if kind is ast.BoolOp and type(test.op) is ast.And:  # type: ignore[attr-defined]
        for value in test.values:  # type: ignore[attr-defined]
            found = _flag_of(value)
            if found is not None:
                return found
    return None


def flag_ifs(function: FunctionNode) -> list[tuple[ast.If, str, bool]]:
    """The ``if`` statements of the function's own code (nested scopes
    apart) whose test says a flag of the instance (``_flag_of``), with the
    flag and its truth in the body."""
    found: list[tuple[ast.If, str, bool]] = []
    blocks = [function.body]
    while blocks:
        for stmt in blocks.pop():
            kind = type(stmt)
            if kind in _SCOPES:
                continue
            if kind is ast.If:
                flag = _flag_of(stmt.test)  # type: ignore[attr-defined]
                if flag is not None:
                    found.append((stmt, *flag))  # type: ignore[arg-type]
            elif kind not in _BLOCK_STATEMENTS:
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if inner and type(inner) is list:
                    blocks.append(inner)
            for handler in getattr(stmt, "handlers", ()):
                blocks.append(handler.body)
            for case in getattr(stmt, "cases", ()):
                blocks.append(case.body)
    return found


def clears(block: list[ast.stmt], flag: str, cleared: bool) -> bool:
    """Whether a statement of ``block`` itself sets ``self.<flag>`` to a
    constant of the truth ``cleared``, no statement before it able to leave
    the block early (``return``, ``break``, ``continue``; ``raise`` is an
    error path)."""
    for stmt in block:
        if type(stmt) is ast.Assign:
            value = stmt.value
            if _flag_constant(value) and bool(value.value) is cleared:  # type: ignore[attr-defined]
                for target in stmt.targets:
                    if (
                        type(target) is ast.Attribute
                        and target.attr == flag
                        and type(target.value) is ast.Name
                        and target.value.id == "self"
                    ):
                        return True
        if may_leave(stmt):
            return False
    return False


def may_leave(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` holds a ``return``, ``break`` or ``continue`` of its
    own code (nested scopes apart)."""
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Return or kind is ast.Break or kind is ast.Continue:
            return True
        if kind in _SCOPES or isinstance(node, ast.expr):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _derives_from(
    cls: ast.ClassDef, base: ast.ClassDef, classes_by_name: dict[str, ast.ClassDef]
) -> bool:
    seen: set[str] = set()
    stack = [cls]
    while stack:
        current = stack.pop()
        for expr in current.bases:
            name = expr.id if isinstance(expr, ast.Name) else None
            if name is None or name in seen:
                continue
            seen.add(name)
            if name == base.name:
                return True
            parent = classes_by_name.get(name)
            if parent is not None:
                stack.append(parent)
    return False


#: JIT compilers whose functions run as PyTorch code on the host (a sync in
#: them still waits): not kernels, for ``jit_compiled(..., kernels_only=True)``.
HOST_COMPILERS: tuple[str, ...] = ("torch.compile", "torch.jit.*", "torch._dynamo.*")


def jit_compiled(
    info: FunctionInfo,
    model: ModuleModel,
    patterns: tuple[str, ...],
    kernels_only: bool = False,
) -> bool:
    """Whether ``info``'s function, or one it is nested in, has a decorator
    naming a JIT compiler (``jit-decorators``: ``@triton.jit``,
    ``@triton.autotune(...)``, ``@numba.njit``). ``kernels_only``: not one
    of ``HOST_COMPILERS`` (``@torch.compile`` traces PyTorch code that still
    runs on tensors; Triton, TileLang, CuTe, Numba and Helion compile the
    body into code of their own, where no PyTorch tensor is read)."""

    def compiler(target: ast.expr, scope) -> bool:
        qualified = scope.qualified_name(target)
        if qualified is None:
            return False
        if kernels_only and any(
            fnmatch.fnmatchcase(qualified, pattern) for pattern in HOST_COMPILERS
        ):
            return False
        return any(fnmatch.fnmatchcase(qualified, pattern) for pattern in patterns)

    current = info
    while current is not None:
        decorators = current.node.decorator_list
        # (the scope is built only to read a decorator: most have none)
        scope = model.scope(current.node) if decorators else None
        for decorator in decorators:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if compiler(target, scope):
                return True
        if current.parent is None and current.cls is None:
            # Compiled by a call at the top of the module, a decorator
            # applied by hand: ``fp32 = helion.kernel(_body, config=...)``.
            name = current.node.name
            for stmt in model.tree.body:
                value = getattr(stmt, "value", None)
                if (
                    type(stmt) in (ast.Assign, ast.AnnAssign, ast.Expr)
                    and type(value) is ast.Call
                    and value.args
                    and type(value.args[0]) is ast.Name
                    and value.args[0].id == name
                    and compiler(value.func, model.module_scope)
                ):
                    return True
        current = current.parent
    return False


#: Decorators that memoize a function on its arguments.
MEMOIZERS: frozenset[str] = frozenset(("functools.cache", "functools.lru_cache"))

#: Types whose values hash by what they hold (a cache on them hits again
#: when the same value comes back): as declared, bare or dotted.
_VALUE_TYPES: frozenset[str] = frozenset(
    (
        "int",
        "float",
        "bool",
        "str",
        "bytes",
        "None",
        "torch.device",
        "torch.dtype",
        "torch.Size",
    )
)
#: Containers of them that hash by their items.
_VALUE_CONTAINERS: frozenset[str] = frozenset(
    ("tuple", "Tuple", "typing.Tuple", "frozenset", "FrozenSet", "typing.FrozenSet")
)
_OPTIONAL: frozenset[str] = frozenset(("Optional", "typing.Optional"))
_LITERAL: frozenset[str] = frozenset(("Literal", "typing.Literal"))


def _instance_method(info: FunctionInfo) -> bool:
    """Whether ``info`` is a method given the instance (its first
    parameter, not a ``staticmethod`` or ``classmethod``)."""
    if info.cls is None:
        return False
    for decorator in info.node.decorator_list:
        if type(decorator) is ast.Name and decorator.id in (
            "staticmethod",
            "classmethod",
        ):
            return False
    args = info.node.args
    return bool(args.posonlyargs or args.args)


def memoized(info: FunctionInfo, model: ModuleModel) -> tuple[ast.arg, ...] | None:
    """None where ``info``'s function is not memoized (``@functools.cache``,
    ``@functools.lru_cache``, ``@lru_cache(maxsize=n)`` but not
    ``maxsize=0``, which keeps nothing; nor one of ``*args`` or
    ``**kwargs``); else its parameters (but ``self`` and ``cls`` of a
    method: ``_kept_receiver`` asks of the object a call gives it) not
    declared a value that hashes by what it holds
    (``_VALUE_TYPES``, a tuple or frozenset of them, ``Optional`` or ``|
    None`` of one, a ``Literal``): none, and a call runs the body only for
    arguments not seen before; some, and only where each of them is given
    the object it was given before (``_CallGraph._hits_again``)."""
    decorators = info.node.decorator_list
    if not decorators:
        return None
    scope = model.scope(info.node)
    cached = False
    for decorator in decorators:
        target = decorator.func if type(decorator) is ast.Call else decorator
        if scope.qualified_name(target) not in MEMOIZERS:
            continue
        if type(decorator) is ast.Call and not _keeps_entries(decorator):
            return None
        cached = True
    if not cached:
        return None
    args = info.node.args
    if args.vararg is not None or args.kwarg is not None:
        return None
    parameters = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if info.cls is not None and parameters and parameters[0].arg in ("self", "cls"):
        parameters = parameters[1:]
    return tuple(
        parameter
        for parameter in parameters
        if parameter.annotation is None or not _value_type(parameter.annotation)
    )


def _keeps_entries(call: ast.Call) -> bool:
    """Whether ``lru_cache(...)`` keeps entries: not ``maxsize=0`` (nor a
    size the code does not say)."""
    size = call.args[0] if call.args else None
    for keyword in call.keywords:
        if keyword.arg == "maxsize":
            size = keyword.value
        elif keyword.arg is None:
            return False  # (``**options``: not known)
    if size is None:
        return True
    if type(size) is ast.Constant:
        return size.value is None or (type(size.value) is int and size.value > 0)
    return False


def _value_type(annotation: ast.expr) -> bool:
    """Whether ``annotation`` declares a value that hashes by what it holds."""
    if type(annotation) is ast.Constant:
        if annotation.value is None:
            return True
        if type(annotation.value) is str:
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return False
            return _value_type(annotation)
        return annotation.value is Ellipsis
    if type(annotation) is ast.BinOp and type(annotation.op) is ast.BitOr:
        return _value_type(annotation.left) and _value_type(annotation.right)
    if type(annotation) is ast.Subscript:
        outer = dotted_name(annotation.value)
        if outer in _LITERAL:
            return True
        if outer in _OPTIONAL or outer in _VALUE_CONTAINERS:
            inner = annotation.slice
            items = inner.elts if type(inner) is ast.Tuple else [inner]
            return all(_value_type(item) for item in items)
        return False
    return dotted_name(annotation) in _VALUE_TYPES


def _spelled_in_a_string(model: ModuleModel, name: str) -> bool:
    """Whether a string constant of the module spells ``name`` as a word
    (``setattr(obj, "flag", True)``, joined or escaped spellings too)."""
    from lint_rules.analysis.summaries import module_summaries

    return module_summaries(model).spelled_in_a_string(name)
