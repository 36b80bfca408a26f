"""The module-level model: imports, functions and their flows, built on demand."""

from __future__ import annotations

import ast
import bisect
import weakref
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property

from lint_rules import prefilter
from lint_rules.analysis.flow import FunctionFlow
from lint_rules.analysis.imports import ImportMap
from lint_rules.analysis.nodes import TryStar, walk_rows
from lint_rules.analysis.scopes import Scope, function_scope, module_scope
from lint_rules.analysis.tensor_effects import Allocation, bound_allocations
from lint_rules.analysis.torch_api import NON_SWALLOWING_MANAGERS
from lint_rules.records import Record

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


#: Statements of a function's own code that bind targets: what the rules'
#: pre-filters look at before building a flow.
BindingStatement = ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor


#: Names (attributes, or imported) that reach a frame object, whose locals
#: code may then read or change by name (``ModuleModel._reads_frames``).
_FRAME_NAMES = frozenset(
    {
        "_getframe",
        "currentframe",
        "f_locals",
        "f_back",
        "tb_frame",
        "gi_frame",
        "cr_frame",
        "ag_frame",
        "walk_stack",
        "walk_tb",
        "getouterframes",
        "getinnerframes",
    }
)
#: ``inspect``'s functions that return frames under common names.
_INSPECT_FRAME_NAMES = frozenset({"stack", "trace"})
_FRAME_AND_INSPECT_NAMES = _FRAME_NAMES | _INSPECT_FRAME_NAMES
#: What the text must hold for the module to reach a frame by those names.
_FRAME_WORDS = (*_FRAME_NAMES, "inspect")
#: A part of each of ``_FRAME_WORDS``: a text holding none holds none of
#: them (five scans of the text rather than thirteen, where none is found).
_FRAME_PARTS = ("frame", "f_locals", "f_back", "walk_", "inspect")


class FunctionInfo(Record):
    """A function definition, the class it is a method of (if any), the
    binding statements of its own code (nested blocks included, nested scopes
    not) in source order, each with whether it sits in a loop body, and the
    function it is nested in (if any)."""

    __slots__ = ("node", "cls", "bindings", "parent")
    _fields = __slots__
    _compared = ("node", "cls")

    def __init__(
        self,
        node: FunctionNode,
        cls: ast.ClassDef | None,
        bindings: list[tuple[BindingStatement, bool]] | None = None,
        parent: FunctionInfo | None = None,
    ) -> None:
        self.node = node
        self.cls = cls
        self.bindings: list[tuple[BindingStatement, bool]] = (
            [] if bindings is None else bindings
        )
        self.parent = parent


#: A module's tree -> its text, for the pre-filters of analyses that are
#: handed the tree alone (a ``ModuleModel`` made with the text notes it).
module_texts: weakref.WeakKeyDictionary[ast.AST, str] = weakref.WeakKeyDictionary()


class ModuleModel:
    """What rules ask about a module. Every part is computed once, when first asked."""

    def __init__(
        self,
        tree: ast.Module,
        text: str | None = None,
        rows_naming: Callable[[frozenset[str], int, int], list[int]] | None = None,
    ) -> None:
        self.tree = tree
        self._flows: dict[FunctionNode, FunctionFlow] = {}
        self._scopes: dict[ast.AST, Scope] = {}
        self._text = text
        if text is not None:
            module_texts[tree] = text
        #: The rows of the text that hold one of some names as a word
        #: (``Context.rows_naming``), for pre-filters; None: not known.
        self._rows_naming = rows_naming
        #: Analyses of the whole module kept with it (``summaries.module_summaries``).
        self.derived: dict[str, object] = {}

    @cached_property
    def imports(self) -> ImportMap:
        """Every import of the module, wherever it is: the shortcut of the
        rules' pre-filters (``scope`` says what a name is in one function)."""
        return ImportMap.from_statements(self._scan.imports)

    @cached_property
    def imported_names(self) -> frozenset[str]:
        """Every name an import statement of the module binds, wherever it
        is (``import *`` binds none by name)."""
        names: set[str] = set()
        for stmt in self._scan.imports:
            for alias in stmt.names:
                if alias.asname:
                    names.add(alias.asname)
                elif type(stmt) is ast.Import:
                    names.add(alias.name.partition(".")[0])
                elif alias.name != "*":
                    names.add(alias.name)
        return frozenset(names)

    @cached_property
    def functions(self) -> list[FunctionInfo]:
        """Every function and method, nested ones included, in source order."""
        return self._scan.functions

    @cached_property
    def _scan(self) -> _Scan:
        """One walk over the module's statements (never its expressions): the
        functions, with their binding statements, the class statements, the
        import statements and the names declared ``global``."""
        scan = _Scan()
        _scan(self.tree.body, None, None, False, scan, None)
        scan.functions.sort(key=lambda info: (info.node.lineno, info.node.col_offset))
        return scan

    # -- scopes ---------------------------------------------------------------

    @property
    def module_scope(self) -> Scope:
        scope = self._scopes.get(self.tree)
        if scope is None:
            scan = self._scan
            scope = self._scopes[self.tree] = module_scope(
                self.tree,
                scan.global_names,
                self._walrus_rows,
                scan.class_defs,
                scan.imports,
            )
        return scope

    @cached_property
    def _walrus_rows(self) -> list[int] | None:
        """The rows where the text has a ``:=`` (a binding in an expression);
        None without the text, or without the pre-filters: any row may."""
        text = self._text
        if text is None or "\r" in text or not prefilter.enabled():
            return None  # (rows are not counted in newlines alone)
        rows: list[int] = []
        row, counted = 1, 0
        position = text.find(":=")
        while position >= 0:
            row += text.count("\n", counted, position)
            counted = position
            rows.append(row)
            position = text.find(":=", position + 2)
        return rows

    def scope(self, function: FunctionNode) -> Scope:
        """The scope of ``function``: who each name used in it is."""
        scope = self._scopes.get(function)
        if scope is None:
            info = self._info_of(function)
            parent = info.parent if info is not None else None
            if parent is None:
                factory = lambda: self.module_scope  # noqa: E731
            else:
                factory = lambda: self.scope(parent.node)  # noqa: E731
            scope = self._scopes[function] = function_scope(
                function, factory, self._walrus_rows
            )
        return scope

    def _info_of(self, function: FunctionNode) -> FunctionInfo | None:
        by_node = self.__dict__.get("_infos")
        if by_node is None:
            by_node = self.__dict__["_infos"] = {
                info.node: info for info in self.functions
            }
        return by_node.get(function)

    @property
    def class_defs(self) -> list[ast.ClassDef]:
        """Every class statement of the module, nested ones included (those
        without methods too), outer ones before the classes they hold."""
        return self._scan.class_defs

    @cached_property
    def classes(self) -> list[ast.ClassDef]:
        return sorted(
            {info.cls for info in self.functions if info.cls is not None},
            key=lambda cls: cls.lineno,
        )

    @property
    def text(self) -> str | None:
        """The module's source text, when the model was made with it."""
        return self._text

    @property
    def rows_naming(self) -> Callable[[frozenset[str], int, int], list[int]] | None:
        """``Context.rows_naming`` of the module's text, when the model was
        made with it (for pre-filters)."""
        return self._rows_naming

    @property
    def walrus_rows(self) -> list[int] | None:
        """The rows where the text has a ``:=``; None where not known (no
        text, a carriage return, the pre-filters off)."""
        return self._walrus_rows

    def methods_of(self, cls: ast.ClassDef) -> list[FunctionNode]:
        return [info.node for info in self.functions if info.cls is cls]

    def release(self) -> None:
        """Free the flows built so far at once (see ``FunctionFlow.release``);
        the model must not be used afterwards."""
        for flow in self._flows.values():
            flow.may_swallow = None  # type: ignore[assignment]  # (refers to this model)
            flow.release()
        self._flows.clear()
        for value in self.derived.values():
            # (what is kept here may refer back to itself: module summaries)
            release = getattr(value, "release", None)
            if release is not None:
                release()
        self.derived.clear()
        for scope in self._scopes.values():
            scope.release()
        self._scopes.clear()

    def flow(self, function: FunctionNode) -> FunctionFlow:
        """The def-use model of ``function`` (built once)."""
        flow = self._flows.get(function)
        if flow is None:
            flow = self._flows[function] = FunctionFlow(
                function,
                self._swallow_test(function),
                self.scope(function).is_builtin,
            )
            if self._reads_frames:
                flow.dynamic_scope = True
        return flow

    @cached_property
    def _reads_frames(self) -> bool:
        """Whether code of the module may reach a frame of its own functions,
        and so read or change their locals by name (``f_locals``): its own
        (``sys._getframe().f_locals``, ``inspect.currentframe()``) or its
        caller's (``sys._getframe(1)``, ``frame.f_back``), from a helper any
        function of the module may call. Then no function's locals are
        private, as with ``locals()`` (``FunctionFlow.dynamic_scope``).
        A name given as a string counts (``getattr(sys, "_getframe")``).
        Frames reached only through a traceback given to other code
        (``traceback.TracebackException(..., capture_locals=True)``), or by
        a name computed at run time, are not seen."""
        text = self._text
        if (
            text is not None
            and prefilter.enabled()
            and not prefilter.may_respell_ascii(text)
        ):
            if not any(part in text for part in _FRAME_PARTS) or not any(
                word in text for word in _FRAME_WORDS
            ):
                return False
            if self._rows_naming is not None:
                # Each node sought spells one of the names on a row it spans
                # (an attribute's name, a name, an imported one), as does
                # each node around it: only those rows are walked.
                rows = self._rows_naming(_FRAME_AND_INSPECT_NAMES, 1, len(text) + 1)
                return any(
                    self._reaches_frame(node)
                    for node in walk_rows(self.tree, rows, {}, leaves=False)
                )
        return any(self._reaches_frame(node) for node in ast.walk(self.tree))

    @staticmethod
    def _reaches_frame(node: ast.AST) -> bool:
        """Whether ``node`` names a way to a frame (``_reads_frames``)."""
        if type(node) is ast.Attribute:
            if node.attr in _FRAME_NAMES or (
                node.attr in _INSPECT_FRAME_NAMES
                and isinstance(node.value, ast.Name)
                and node.value.id == "inspect"
            ):
                return True
        elif type(node) is ast.Name:
            if node.id in _FRAME_NAMES:
                return True
        elif type(node) is ast.ImportFrom and node.module == "inspect":
            if any(alias.name in _INSPECT_FRAME_NAMES for alias in node.names):
                return True
        elif type(node) is ast.Call:
            # ``getattr(sys, "_getframe")``, ``attrgetter("f_locals")``
            for argument in node.args:
                if (
                    type(argument) is ast.Constant
                    and isinstance(argument.value, str)
                    and argument.value in _FRAME_NAMES
                ):
                    return True
        return False

    def _swallow_test(self, function: FunctionNode) -> Callable[[ast.expr], bool]:
        """Whether ``with`` may swallow exceptions through a context manager
        made by an expression in ``function``: not one made by a call of a
        manager the torch vocabulary knows never to (``torch.no_grad()``)."""

        def may_swallow(context: ast.expr) -> bool:
            if not isinstance(context, ast.Call):
                return True
            qualified = self.scope(function).qualified_name(context.func)
            return qualified not in NON_SWALLOWING_MANAGERS

        return may_swallow

    def allocations(
        self, info: FunctionInfo, rows: list[int] | None = None
    ) -> list[tuple[str, Allocation]]:
        """``bound_allocations`` of the function's own binding statements;
        with ``rows`` (sorted), of those spanning one of them only (where a
        text pre-filter found an allocator's name)."""
        bindings = info.bindings
        if rows is not None:
            node = info.node
            low = bisect.bisect_left(rows, node.lineno)
            high = bisect.bisect_right(rows, node.end_lineno or node.lineno)
            bindings = _spanning(bindings, rows[low:high])
        return bound_allocations(bindings, self.imports)

    def functions_spanning(self, rows: Iterable[int]) -> Iterator[FunctionInfo]:
        """Functions whose own lines include one of ``rows`` (a text pre-filter)."""
        ordered = sorted(rows)
        for info in self.functions:
            node = info.node
            index = bisect.bisect_left(ordered, node.lineno)
            if index < len(ordered) and ordered[index] <= (
                node.end_lineno or node.lineno
            ):
                yield info


def _spanning(
    bindings: list[tuple[BindingStatement, bool]], rows: list[int]
) -> list[tuple[BindingStatement, bool]]:
    """The simple binding statements (not loops) among ``bindings`` (in
    source order) whose lines include one of ``rows``, in source order.

    Simple statements do not nest: those spanning a row end the run of
    bindings that start on or before it (a statement after a semicolon on
    an assignment's last row spans it too)."""
    found: list[tuple[BindingStatement, bool]] = []
    first = bindings[0][0].lineno if bindings else 0
    for row in rows:
        if row < first:
            continue
        index = bisect.bisect_right(bindings, row, key=_start_row) - 1
        run: list[tuple[BindingStatement, bool]] = []
        while index >= 0:
            binding = bindings[index]
            stmt = binding[0]
            if type(stmt) in _LOOPS or (stmt.end_lineno or stmt.lineno) < row:
                break
            run.append(binding)
            index -= 1
        found.extend(reversed(run))
    if len(rows) > 1:  # a statement spanning two rows is found twice
        unique = {id(stmt): (stmt, loop) for stmt, loop in found}
        found = sorted(unique.values(), key=lambda b: (b[0].lineno, b[0].col_offset))
    return found


def _start_row(binding: tuple[BindingStatement, bool]) -> int:
    return binding[0].lineno


_LOOPS = frozenset({ast.For, ast.AsyncFor})


class _Scan:
    """What the walk over the module's statements collects."""

    __slots__ = ("functions", "class_defs", "imports", "global_names")

    def __init__(self) -> None:
        self.functions: list[FunctionInfo] = []
        self.class_defs: list[ast.ClassDef] = []
        self.imports: list[ast.Import | ast.ImportFrom] = []
        self.global_names: set[str] = set()


def _scan(
    body: list[ast.stmt],
    cls: ast.ClassDef | None,
    own: list[tuple[BindingStatement, bool]] | None,
    in_loop: bool,
    scan: _Scan,
    function: FunctionInfo | None,
) -> None:
    """Depth first, in source order. ``own`` receives the binding statements
    of the enclosing function's own code (None outside functions and in class
    bodies); ``in_loop`` tells whether ``body`` is (inside) a loop body;
    ``function`` is the innermost enclosing function."""
    for stmt in body:
        role = _ROLES.get(type(stmt))
        if role is None:  # expressions, returns, raises...: nothing to see
            continue
        if role == _BINDING:
            if own is not None:
                own.append((stmt, in_loop))  # type: ignore[arg-type]
        elif role == _IMPORT:
            scan.imports.append(stmt)  # type: ignore[arg-type]
        elif role == _GLOBAL:
            scan.global_names.update(stmt.names)  # type: ignore[attr-defined]
        elif role == _FUNCTION:
            info = FunctionInfo(stmt, cls, None, function)  # type: ignore[arg-type]
            scan.functions.append(info)
            _scan(stmt.body, None, info.bindings, False, scan, info)  # type: ignore[attr-defined]
        elif role == _CLASS:
            scan.class_defs.append(stmt)  # type: ignore[arg-type]
            _scan(stmt.body, stmt, None, False, scan, function)  # type: ignore[arg-type, attr-defined]
        elif role == _LOOP:
            if own is not None and type(stmt) is not ast.While:
                own.append((stmt, in_loop))  # type: ignore[arg-type]
            _scan(stmt.body, cls, own, True, scan, function)  # type: ignore[attr-defined]
            if stmt.orelse:  # type: ignore[attr-defined]
                _scan(stmt.orelse, cls, own, in_loop, scan, function)  # type: ignore[attr-defined]
        elif role == _IF:
            _scan(stmt.body, cls, own, in_loop, scan, function)  # type: ignore[attr-defined]
            if stmt.orelse:  # type: ignore[attr-defined]
                _scan(stmt.orelse, cls, own, in_loop, scan, function)  # type: ignore[attr-defined]
        elif role == _WITH:
            _scan(stmt.body, cls, own, in_loop, scan, function)  # type: ignore[attr-defined]
        elif role == _TRY:
            _scan(stmt.body, cls, own, in_loop, scan, function)  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                _scan(handler.body, cls, own, in_loop, scan, function)
            for block in (stmt.orelse, stmt.finalbody):  # type: ignore[attr-defined]
                if block:
                    _scan(block, cls, own, in_loop, scan, function)
        else:  # match
            for case in stmt.cases:  # type: ignore[attr-defined]
                _scan(case.body, cls, own, in_loop, scan, function)


# What the scan does with each kind of statement (it skips the others).
_BINDING, _IMPORT, _FUNCTION, _CLASS, _LOOP, _IF, _WITH, _TRY, _MATCH, _GLOBAL = range(
    10
)
_ROLES: dict[type, int] = {
    ast.Assign: _BINDING,
    ast.AnnAssign: _BINDING,
    ast.AugAssign: _BINDING,
    ast.Import: _IMPORT,
    ast.ImportFrom: _IMPORT,
    ast.FunctionDef: _FUNCTION,
    ast.AsyncFunctionDef: _FUNCTION,
    ast.ClassDef: _CLASS,
    ast.For: _LOOP,
    ast.AsyncFor: _LOOP,
    ast.While: _LOOP,
    ast.If: _IF,
    ast.With: _WITH,
    ast.AsyncWith: _WITH,
    ast.Try: _TRY,
    TryStar: _TRY,
    ast.Match: _MATCH,
    ast.Global: _GLOBAL,
}
