"""Code a module's own classes run when an expression is evaluated.

An attribute store runs ``__setattr__`` or a property's setter, an attribute
load ``__getattr__``, ``__getattribute__`` or a property's getter, a
subscript ``__getitem__``, an operator its ``__add__``... The rules assume
those are plain (no side effect, a load gives the object stored) for objects
of classes they cannot see; a class of the module itself that defines them
is seen: evaluating an expression once less, or storing once less, may then
change what the program computes (ATN202's deletion of a repeated ``T = V``).
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Iterable

from lint_rules import prefilter
from lint_rules.analysis.model import ModuleModel, module_texts
from lint_rules.analysis.nodes import (
    TryStar,
    statements_under,
    string_values,
    walk,
    walk_rows,
)
from lint_rules.analysis.scopes import Scope

#: The special methods an operator may call (besides ``__bool__`` of a chained
#: comparison's parts).
_BINARY = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.MatMult: "matmul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
    ast.BitOr: "or",
    ast.BitXor: "xor",
    ast.BitAnd: "and",
}
_UNARY = {
    ast.USub: ("__neg__",),
    ast.UAdd: ("__pos__",),
    ast.Invert: ("__invert__",),
    ast.Not: ("__bool__", "__len__"),
}
_ORDERING = ("__lt__", "__le__", "__gt__", "__ge__", "__eq__")
_COMPARE = {
    ast.Eq: ("__eq__",),
    ast.NotEq: ("__ne__", "__eq__"),
    # (an ordering may run any other: ``functools.total_ordering`` makes
    # ``__ge__`` of ``__lt__``, ``__le__`` of ``__lt__`` and ``__eq__``)
    ast.Lt: _ORDERING,
    ast.LtE: _ORDERING,
    ast.Gt: _ORDERING,
    ast.GtE: _ORDERING,
    # (``o in d`` of a dict or a set hashes ``o``)
    ast.In: ("__contains__", "__iter__", "__getitem__", "__eq__", "__hash__"),
    ast.NotIn: ("__contains__", "__iter__", "__getitem__", "__eq__", "__hash__"),
    ast.Is: (),
    ast.IsNot: (),
}
_LOAD_HOOKS = ("__getattr__", "__getattribute__")
_STORE_HOOKS = ("__setattr__", "__delattr__")
#: A subscript runs the container's ``__getitem__`` (``__setitem__``,
#: ``__delitem__``; a class's ``__class_getitem__``; a dict subclass's
#: ``__missing__`` for a key it lacks) and the key's ``__index__``, or its
#: ``__hash__`` and ``__eq__`` for a dict.
_SUBSCRIPT_HOOKS = (
    "__getitem__",
    "__missing__",
    "__setitem__",
    "__delitem__",
    "__class_getitem__",
    "__index__",
    "__hash__",
    "__eq__",
)
#: Special methods only a class statement or a call of the class runs (each
#: seen where it stands), that a ``with`` runs (read as such; a builtin or a
#: torch function enters no context), or ``__call__``, which a call of the
#: object shows (unknown code) and builtins run only by ``key=`` or when
#: their lazy result is iterated (both read as running code); ``__del__`` is
#: read as a finalizer and ``__torch_function__`` makes the module's fixes
#: unsafe (``torch_overrides``). Any other may run inside a builtin or a
#: torch function given the object (``len(o)``, ``range(o)``, ``hash(o)``,
#: ``max(o, 1)``; ``print(o)``, ``str(o)`` and ``"{}".format(o)`` its
#: ``__str__``, ``__repr__`` or ``__format__``).
_NOT_RUN_BY_CALLS = frozenset(
    {
        "__call__",
        "__enter__",
        "__exit__",
        "__aenter__",
        "__aexit__",
        "__del__",
        "__torch_function__",
        "__torch_dispatch__",
        "__init__",
        "__new__",
        "__post_init__",
        "__init_subclass__",
        "__set_name__",
        "__class_getitem__",
    }
)
#: What formatting a value runs (an f-string's ``{o}``, ``str(o)``).
FORMATTING_HOOKS = frozenset({"__str__", "__repr__", "__format__"})
#: Iterating an object (``xs += o``, ``[*o]``) runs its ``__iter__``, or
#: its ``__len__`` and ``__getitem__`` (and ``__length_hint__``).
_ITERATION_HOOKS = ("__iter__", "__getitem__", "__len__", "__length_hint__")
#: What ``isinstance`` (a class pattern) may run of the module's classes.
_ISINSTANCE_HOOKS = ("__instancecheck__", "__subclasscheck__", "__subclasshook__")
#: A sequence or mapping pattern takes the subject's length and items.
_SEQUENCE_HOOKS = ("__len__", "__getitem__", "__iter__")
#: A mapping pattern calls the subject's ``get`` (``keys`` for ``**rest``).
_MAPPING_METHODS = ("get", "keys")
#: Formatting by ``%`` runs these of the operand: ``%s`` and ``%r`` its
#: ``__str__`` and ``__repr__``, ``%d`` its ``__index__`` or ``__int__``
#: (``__trunc__`` before Python 3.12), ``%f`` its ``__float__``, a bytes
#: ``%s`` its ``__bytes__``, and ``%(key)s`` the mapping's ``__getitem__``.
_FORMAT_HOOKS = (
    "__str__",
    "__repr__",
    "__format__",
    "__index__",
    "__int__",
    "__trunc__",
    "__float__",
    "__bytes__",
    "__getitem__",
)


#: Class-level values that may be a descriptor (``property(...)``, ``Field()``,
#: another name for one).
_MAY_BE_DESCRIPTOR = (
    ast.Call,
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.IfExp,
    ast.BoolOp,
    ast.NamedExpr,
)


class ClassHooks:
    """What the module's classes define: special methods, and the names their
    bodies bind otherwise than by a plain method (a property, a descriptor
    instance, a decorated function), which an attribute access may run."""

    __slots__ = ("dunders", "active", "methods", "run_by_calls")

    def __init__(
        self, class_defs: list[ast.ClassDef], tree: ast.AST | None = None
    ) -> None:
        dunders: set[str] = set()
        active: set[str] = set()
        methods: set[str] = set()
        for node in class_defs:
            # (the class's own block, and the blocks of its ``if``, ``try``,
            # ``with``... statements, which bind in the class namespace too)
            for stmt in class_block(node.body):
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    name = stmt.name
                    if name.startswith("__") and name.endswith("__"):
                        dunders.add(name)
                    elif stmt.decorator_list:
                        active.add(name)
                    else:
                        methods.add(name)
                elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                    targets = (
                        stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    )
                    value = stmt.value
                    # A lambda is a plain method (``__bool__ = lambda self:
                    # ...``); a literal or a display is no descriptor and
                    # runs nothing (``__hash__ = None``, ``__slots__ = ()``).
                    lambda_ = isinstance(value, ast.Lambda)
                    if not lambda_ and not isinstance(value, _MAY_BE_DESCRIPTOR):
                        continue
                    for target in targets:
                        for name in ast.walk(target):
                            if isinstance(name, ast.Name):
                                if name.id.startswith("__"):
                                    dunders.add(name.id)
                                if lambda_:
                                    methods.add(name.id)
                                else:
                                    active.add(name.id)
        if tree is not None:
            outside = _OUTSIDE.get(tree)
            if outside is None:
                outside = _OUTSIDE[tree] = _bound_from_outside(
                    tree, {c.name for c in class_defs}
                )
            dunders |= outside[0]
            active |= outside[1]
        self.dunders = frozenset(dunders)
        self.active = frozenset(active)
        self.methods = frozenset(methods)
        #: Special methods a call of a builtin (or of any function) given an
        #: object of the class may run: ``len(o)`` its ``__len__``.
        self.run_by_calls = self.dunders - _NOT_RUN_BY_CALLS

    def __bool__(self) -> bool:
        return bool(self.dunders or self.active or self.methods)

    def defines(self, name: str) -> bool:
        """Whether a class of the module binds ``name`` (a method, a property,
        a class attribute that may be a descriptor): an object of it may be
        the receiver of a method known by torch's name (``h.clone()``)."""
        return name in self.methods or name in self.active or name in self.dunders

    def store_may_run_code(self, target: ast.expr) -> bool:
        """Whether storing into ``target`` (a name or an attribute chain) may
        run code of the module's classes: its ``__setattr__``, a property's
        setter or a descriptor's ``__set__``, or what loading the chain's
        prefix runs."""
        if isinstance(target, ast.Subscript):
            # ``c[k] = v`` runs ``__setitem__`` (and the key's ``__hash__``).
            return self.runs_code(target) or self.load_may_run_code(target)
        if not isinstance(target, ast.Attribute):
            return False
        if "__setattr__" in self.dunders or target.attr in self.active:
            return True
        return self.load_may_run_code(target.value)

    def load_may_run_code(self, value: ast.expr) -> bool:
        """Whether evaluating ``value`` may run code of the module's classes."""
        return any(self._runs_code(node) for node in ast.walk(value))

    def pattern_may_run_code(self, pattern: ast.pattern) -> bool:
        """Whether matching ``pattern`` (a ``case`` of a ``match``) may run
        code of the module's classes on the subject or its parts: a value
        pattern compares with ``==`` (``__eq__``), a sequence pattern takes
        the length and items (``__len__``, ``__getitem__``, ``__iter__``), a
        mapping pattern the length and ``get`` (``keys`` and items for
        ``**rest``), a class pattern ``isinstance`` (a metaclass's
        ``__instancecheck__`` or ``__subclasscheck__``, an ABC's
        ``__subclasshook__``) and attributes, named (``C(v=1)``) or by
        ``__match_args__`` (``C(1)``): a property's getter, ``__getattr__``."""
        dunders = self.dunders
        loads = any(h in dunders for h in _LOAD_HOOKS)
        for node in ast.walk(pattern):
            if isinstance(node, ast.MatchValue):
                if "__eq__" in dunders or self.load_may_run_code(node.value):
                    return True
            elif isinstance(node, ast.MatchSequence):
                if any(h in dunders for h in _SEQUENCE_HOOKS):
                    return True
            elif isinstance(node, ast.MatchMapping):
                if any(h in dunders for h in _SEQUENCE_HOOKS) or any(
                    self.defines(name) for name in _MAPPING_METHODS
                ):
                    return True
                if any(self.load_may_run_code(key) for key in node.keys):
                    return True
            elif isinstance(node, ast.MatchClass):
                if any(h in dunders for h in _ISINSTANCE_HOOKS) or (
                    self.load_may_run_code(node.cls)
                ):
                    return True
                if node.patterns and (loads or self.active):
                    return True  # ``__match_args__`` may name any attribute
                if node.kwd_attrs and (
                    loads or any(name in self.active for name in node.kwd_attrs)
                ):
                    return True
        return False

    def getattr_runs_code(self, call: ast.Call) -> bool:
        """Whether ``call`` is ``getattr(o, "k")`` or ``hasattr(o, "k")``
        that may run code of the module's classes: a property's getter or a
        descriptor's ``__get__`` of that name (of any name where the name is
        not spelled), ``__getattr__`` or ``__getattribute__``, as the
        attribute load ``o.k`` does."""
        func = call.func
        if not (
            isinstance(func, ast.Name)
            and func.id in ("getattr", "hasattr")
            and len(call.args) >= 2
        ):
            return False
        if any(h in self.dunders for h in _LOAD_HOOKS):
            return True
        name = call.args[1]
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return name.value in self.active
        return bool(self.active)

    def _mapping_runs_code(self) -> bool:
        """Whether taking the keys and items of an object (``{**o}``,
        ``f(**o)``, ``d |= o``) may run code of the module's classes."""
        return self.defines("keys") or any(h in self.dunders for h in _ITERATION_HOOKS)

    def runs_code(self, node: ast.AST) -> bool:
        """Whether evaluating ``node`` itself (not its parts) may run code of
        the module's classes."""
        return self._runs_code(node)

    def _runs_code(self, node: ast.AST) -> bool:
        dunders = self.dunders
        names: tuple[str, ...]
        if isinstance(node, ast.Attribute):
            hooks = _LOAD_HOOKS if isinstance(node.ctx, ast.Load) else _STORE_HOOKS
            return node.attr in self.active or any(h in dunders for h in hooks)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                return func.attr in self.methods
            return self.getattr_runs_code(node)
        if isinstance(node, ast.Subscript):
            return any(h in dunders for h in _SUBSCRIPT_HOOKS)
        if isinstance(node, ast.BinOp):
            op = _BINARY.get(type(node.op))
            if op is None:
                return True
            names = (f"__{op}__", f"__r{op}__")
            if isinstance(node.op, ast.Mod):
                names = (*names, *_FORMAT_HOOKS)
            elif isinstance(node.op, ast.Mult):
                names = (*names, "__index__")  # ``[0] * o``: a repeat count
            return any(h in dunders for h in names)
        if isinstance(node, ast.AugAssign):
            op = _BINARY.get(type(node.op))
            if op is None:
                return True
            names = (f"__i{op}__", f"__{op}__", f"__r{op}__")
            if isinstance(node.op, ast.Mult):
                names = (*names, "__index__")
            elif isinstance(node.op, ast.Add):
                # ``xs += o`` of a list extends it by iterating ``o``
                names = (*names, *_ITERATION_HOOKS)
            elif isinstance(node.op, ast.BitOr):
                # ``d |= o`` of a dict updates it from ``o``'s keys and items
                if self._mapping_runs_code():
                    return True
            return any(h in dunders for h in names)
        if isinstance(node, ast.Starred):
            return any(h in dunders for h in _ITERATION_HOOKS)
        if isinstance(node, ast.Dict):
            # ``{**o}`` takes ``o``'s keys and items
            return None in node.keys and self._mapping_runs_code()
        if isinstance(node, ast.keyword):
            # ``f(**o)`` too
            return node.arg is None and self._mapping_runs_code()
        if isinstance(node, ast.UnaryOp):
            unary = _UNARY.get(type(node.op))
            return unary is None or any(h in dunders for h in unary)
        if isinstance(node, ast.Compare):
            if len(node.ops) > 1 and "__bool__" in dunders:
                return True
            for op in node.ops:
                compared = _COMPARE.get(type(op))
                if compared is None or any(h in dunders for h in compared):
                    return True
        return False


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def class_block(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that bind in a class's namespace: those of its block
    and of the blocks of its compound statements (``if``, ``try``,
    ``with``, ``for``, ``match``), not those of a nested ``def`` or
    ``class``."""
    found: list[ast.stmt] = []
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.stmt):
            found.append(node)
        if isinstance(node, _NESTED_SCOPES):
            continue
        for field in _BLOCKS:
            block = getattr(node, field, None)
            if type(block) is list:
                stack.extend(reversed(block))
    return found


#: Dunder attributes a store into which binds no special method (data of the
#: object or the class: ``o.__dict__`` and ``o.__class__`` are read as
#: namespace stores by the invalidation analysis).
_DATA_DUNDERS = frozenset(
    {
        "__dict__",
        "__class__",
        "__doc__",
        "__name__",
        "__qualname__",
        "__module__",
        "__annotations__",
        "__wrapped__",
        "__signature__",
        "__slots__",
        "__all__",
        "__version__",
        "__file__",
        "__path__",
        "__spec__",
        "__loader__",
        "__package__",
        "__builtins__",
        "__match_args__",
    }
)
#: The special methods Python runs where no call shows (operators, truth
#: tests, builtins, formatting, iteration, attribute access, finalizers):
#: a class given a name the module does not spell may bind any of them.
_ANY_SPECIAL = frozenset(
    {f"__{op}__" for op in _BINARY.values()}
    | {f"__r{op}__" for op in _BINARY.values()}
    | {f"__i{op}__" for op in _BINARY.values()}
    | {h for hooks in _UNARY.values() for h in hooks}
    | {h for hooks in _COMPARE.values() for h in hooks}
    | set(_LOAD_HOOKS)
    | set(_STORE_HOOKS)
    | set(_SUBSCRIPT_HOOKS)
    | set(_FORMAT_HOOKS)
    | {
        "__missing__",
        "__len__",
        "__iter__",
        "__next__",
        "__reversed__",
        "__contains__",
        "__hash__",
        "__int__",
        "__complex__",
        "__round__",
        "__abs__",
        "__get__",
        "__set__",
        "__delete__",
        "__del__",
        "__enter__",
        "__exit__",
        "__call__",
        "__instancecheck__",
        "__subclasscheck__",
        "__torch_function__",
        "__torch_dispatch__",
    }
)


# A module's tree -> what ``_bound_from_outside`` found in it (once per
# tree: the rules' ``class_hooks`` and the analyses' ``module_class_hooks``
# both ask).
_OUTSIDE: weakref.WeakKeyDictionary[ast.AST, tuple[frozenset[str], frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)


def _bound_from_outside(
    tree: ast.AST, classes: set[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """The special methods and the other names that statements outside the
    class bodies bind on a class: a
    special method stored into any object (``C.__bool__ = f``,
    ``setattr(C, "__len__", g)``: an object's own special methods are
    looked up on its type, so the object is taken for a class), any name
    stored into a class of the module (``C.size = f``), a special method
    stored into a mapping (``ns["__bool__"] = f``, ``ns.update(__len__=g)``:
    the namespace a metaclass makes a class of), and what a class made by
    ``type(name, bases, namespace)`` binds (every special method
    where the namespace is no dict display of constant keys). A name not
    spelled (``setattr(C, name, f)`` of a class of the module) may be any
    special method."""
    dunders: set[str] = set()
    active: set[str] = set()
    kinds = _OUTSIDE_KINDS
    statements = [node for node in statements_under(tree) if type(node) in kinds]
    classes = set(classes)
    for stmt in statements:
        if isinstance(stmt, ast.Assign) and _made_by_type(stmt.value):
            classes.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    for stmt in statements:
        value = getattr(stmt, "value", None)
        if isinstance(stmt, ast.Assign):
            targets: list[ast.expr] = stmt.targets
        elif isinstance(stmt, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
            # (``for C.__bool__ in fs:`` binds as an assignment does)
            targets = [stmt.target]
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            targets = [i.optional_vars for i in stmt.items if i.optional_vars]
            value = None
        else:
            targets = []
        for target in targets:
            _bind_target(target, classes, dunders, active)
        if not isinstance(value, ast.Call):
            continue
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in ("update", "setdefault"):
            # ``ns.update(__bool__=f)``, ``ns.setdefault("__bool__", f)``
            for keyword in value.keywords:
                if keyword.arg is not None:
                    _bind(keyword.arg, func.value, set(), dunders, active)
            for argument in value.args[:1]:
                if isinstance(argument, ast.Constant) and isinstance(
                    argument.value, str
                ):
                    _bind(argument.value, func.value, set(), dunders, active)
        if isinstance(func, ast.Name) and func.id == "setattr" and len(value.args) >= 2:
            name = value.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                _bind(name.value, value.args[0], classes, dunders, active)
            elif isinstance(value.args[0], ast.Name) and value.args[0].id in classes:
                dunders.update(_ANY_SPECIAL)
        elif _made_by_type(value):
            namespace = value.args[2]
            if isinstance(namespace, ast.Dict) and all(
                isinstance(key, ast.Constant) and isinstance(key.value, str)
                for key in namespace.keys
            ):
                for key in namespace.keys:
                    name = key.value  # type: ignore[union-attr]
                    if name.startswith("__"):
                        dunders.add(name)
                    active.add(name)
            else:
                dunders.update(_ANY_SPECIAL)
    if _runs_a_factory(tree):
        # ``d[k]`` of a ``defaultdict`` the module gave a factory of its own
        # runs that factory for a key it lacks, as a ``__missing__`` would.
        dunders.add("__missing__")
    for target in _comprehension_targets(tree):
        _bind_target(target, classes, dunders, active)
    return frozenset(dunders), frozenset(active)


def _bind_target(
    target: ast.expr, classes: set[str], dunders: set[str], active: set[str]
) -> None:
    """Note what storing into ``target`` binds on a class or a namespace."""
    kind = type(target)
    if kind is ast.Name:
        return  # (stores no attribute, no item)
    if kind is ast.Attribute and type(target.value) is ast.Name:  # type: ignore[attr-defined]
        # (``C.x = f``, ``self.x = v``: the one store under it)
        _bind(target.attr, target.value, classes, dunders, active)  # type: ignore[attr-defined]
        return
    for node in ast.walk(target):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            _bind(node.attr, node.value, classes, dunders, active)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            # ``ns["__bool__"] = f``: a namespace a metaclass's
            # ``__new__`` or ``__prepare__`` makes the class of
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                _bind(key.value, node.value, set(), dunders, active)


#: Factories of a ``defaultdict`` that run no code of the module (a builtin
#: type, another of ``collections``): ``defaultdict(list)``.
_PLAIN_FACTORIES = frozenset(
    {
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "int",
        "float",
        "complex",
        "str",
        "bytes",
        "bytearray",
        "bool",
        "object",
        "deque",
        "OrderedDict",
        "Counter",
        "defaultdict",
        "ChainMap",
    }
)


def _runs_a_factory(tree: ast.AST) -> bool:
    """Whether the module makes a ``defaultdict`` (``collections``') with a
    factory that may run its own code (a lambda that calls something, a
    function or class of the module, a bound method), or sets one
    (``d.default_factory = f``): a subscript of it, for a key it lacks,
    then calls that code where nothing shows a call. ``defaultdict`` is
    known by any name an import or an assignment gives it
    (``from collections import defaultdict as dd``); a class of the module
    derived from it, or the type handed to a call other than ``isinstance``
    or ``issubclass`` (``partial(defaultdict, f)``), may be given any
    factory. A module whose text spells neither ``defaultdict`` nor
    ``default_factory`` makes none (where the pre-filters run)."""
    text = module_texts.get(tree)
    if (
        text is not None
        and prefilter.enabled()
        and "defaultdict" not in text
        and "default_factory" not in text
        and not prefilter.may_respell_ascii(text)
    ):
        return False
    module_names = {
        name for stmt in getattr(tree, "body", ()) for name in _top_level_names(stmt)
    }
    names = {"defaultdict"}
    for stmt in statements_under(tree):
        if isinstance(stmt, ast.ImportFrom):
            names.update(
                alias.asname
                for alias in stmt.names
                if alias.name == "defaultdict" and alias.asname
            )
        elif isinstance(stmt, ast.Assign) and _names_defaultdict(stmt.value, names):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.ClassDef) and any(
            _names_defaultdict(base, names) for base in stmt.bases
        ):
            return True
    for node in walk(tree):
        if isinstance(node, ast.Attribute):
            if node.attr == "default_factory" and isinstance(node.ctx, ast.Store):
                return True
            continue
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if not _names_defaultdict(func, names) and not _made_from_a_value(func):
            if not (isinstance(func, ast.Name) and func.id in _TYPE_TESTS) and any(
                _names_defaultdict(argument, names)
                for argument in (*node.args, *(k.value for k in node.keywords))
            ):
                return True  # (``partial(defaultdict, f)``: made elsewhere)
            continue
        factories = [*node.args[:1]]
        for keyword in node.keywords:
            if keyword.arg is None or keyword.arg == "default_factory":
                factories.append(keyword.value)
        if any(isinstance(a, ast.Starred) for a in node.args):
            return True
        if any(not _plain_factory(f, module_names) for f in factories):
            return True
    return False


#: Calls that take ``defaultdict`` as a type to test against, not to make.
_TYPE_TESTS = frozenset({"isinstance", "issubclass"})


def _made_from_a_value(func: ast.expr) -> bool:
    """Whether ``func`` is the type of a value (``type(d)``,
    ``d.__class__``), which may be a ``defaultdict``: ``type(d)(f)`` makes
    one with the factory ``f``."""
    if isinstance(func, ast.Attribute):
        return func.attr == "__class__"
    return (
        isinstance(func, ast.Call)
        and isinstance(func.func, ast.Name)
        and func.func.id == "type"
        and len(func.args) == 1
    )


def _names_defaultdict(expr: ast.AST, names: set[str]) -> bool:
    """Whether ``expr`` is ``defaultdict`` by one of ``names`` or as an
    attribute (``collections.defaultdict``)."""
    if isinstance(expr, ast.Name):
        return expr.id in names
    return isinstance(expr, ast.Attribute) and expr.attr == "defaultdict"


def _top_level_names(stmt: ast.stmt) -> list[str]:
    """The names a statement of the module's block binds to something other
    than a type of the builtins or of ``collections``."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [stmt.name]
    if isinstance(stmt, ast.ImportFrom):
        if stmt.module in ("collections", "builtins") and not stmt.level:
            return []
        return [alias.asname or alias.name for alias in stmt.names]
    if isinstance(stmt, ast.Import):
        return [
            alias.asname or alias.name.partition(".")[0]
            for alias in stmt.names
            if alias.name not in ("collections", "builtins")
        ]
    return [
        node.id
        for node in walk(stmt)
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)
    ]


def _plain_factory(factory: ast.expr, module_names: set[str]) -> bool:
    """Whether calling ``factory`` runs no code of the module: ``None``, a
    builtin type or one of ``collections`` (that the module does not bind
    otherwise), or a lambda returning a constant, a display of such or a
    call of such a type (``lambda: {"n": 0, "xs": []}``, ``lambda:
    defaultdict(list)``)."""
    if isinstance(factory, ast.Constant):
        return factory.value is None
    if isinstance(factory, ast.Lambda):
        return _plain_value(factory.body, module_names)
    if isinstance(factory, ast.Name):
        return factory.id in _PLAIN_FACTORIES and factory.id not in module_names
    return (
        isinstance(factory, ast.Attribute)
        and factory.attr in _PLAIN_FACTORIES
        and isinstance(factory.value, ast.Name)
        and factory.value.id in ("collections", "builtins")
        and factory.value.id not in module_names
    )


def _plain_value(value: ast.expr, module_names: set[str]) -> bool:
    """Whether evaluating ``value`` (a factory lambda's body) runs no code of
    the module."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        return all(_plain_value(e, module_names) for e in value.elts)
    if isinstance(value, ast.Dict):
        return all(
            key is not None and _plain_value(key, module_names) for key in value.keys
        ) and all(_plain_value(item, module_names) for item in value.values)
    if isinstance(value, ast.Call):
        arguments = [*value.args, *(keyword.value for keyword in value.keywords)]
        return (
            _plain_factory(value.func, module_names)
            and not isinstance(value.func, ast.Constant | ast.Lambda)
            and all(keyword.arg is not None for keyword in value.keywords)
            and all(
                _plain_value(a, module_names) or _plain_factory(a, module_names)
                for a in arguments
            )
        )
    return False


#: The statements that may bind on a class from outside its body
#: (``_bound_from_outside``): those with targets, and calls.
_OUTSIDE_KINDS = frozenset(
    {
        ast.Assign,
        ast.AugAssign,
        ast.AnnAssign,
        ast.Expr,
        ast.For,
        ast.AsyncFor,
        ast.With,
        ast.AsyncWith,
    }
)


def _comprehension_targets(tree: ast.AST) -> list[ast.expr]:
    """The targets of the comprehensions under ``tree`` that store into
    something other than a name (``[0 for C.__eq__ in fs]``). Where the
    module's text is known (``module_texts``), only the statements spanning
    a row that holds the word ``for`` are walked (a comprehension's ``for``
    is on such a row, and the node holding it spans that row); else every
    node."""
    rows = _for_rows(tree)
    if rows is None:
        nodes: Iterable[ast.AST] = walk(tree)
    else:
        if not rows:
            return []
        nodes = walk_rows(tree, rows, {})
    return [
        node.target
        for node in nodes
        if type(node) is ast.comprehension and type(node.target) is not ast.Name
    ]


#: What follows a ``for`` whose target is names only (``for k, v in``):
#: a comprehension there stores into no attribute and no item.
_NAME_TARGETS = re.compile(
    r"[ \t]+[A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*[ \t]+in\b"
)


def _for_rows(tree: ast.AST) -> list[int] | None:
    """The rows (from 1, sorted) of the module's text that hold ``for`` as
    a word not followed, on its row, by names only and ``in``; None where that is not known (no text, the pre-filters off, a
    carriage return, or names Python may read as ASCII ones)."""
    text = module_texts.get(tree)
    if text is None or not prefilter.enabled() or "\r" in text:
        return None
    if prefilter.may_respell_ascii(text):
        return None
    rows: list[int] = []
    row, counted = 1, 0
    position = text.find("for")
    while position >= 0:
        before = text[position - 1] if position else " "
        after = text[position + 3 : position + 4]
        if (
            not before.isidentifier()  # (``[0for ...]``: a number ends there)
            and not (after and (after.isidentifier() or after.isdigit()))
            and not _NAME_TARGETS.match(text, position + 3)
        ):
            row += text.count("\n", counted, position)
            counted = position
            if not rows or rows[-1] != row:
                rows.append(row)
        position = text.find("for", position + 3)
    return rows


def _made_by_type(value: ast.expr) -> bool:
    """Whether ``value`` is ``type(name, bases, namespace)``: a new class."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "type"
        and len(value.args) == 3
    )


def _bind(
    name: str,
    receiver: ast.expr,
    classes: set[str],
    dunders: set[str],
    active: set[str],
) -> None:
    if name.startswith("__") and name.endswith("__"):
        if name not in _DATA_DUNDERS:
            dunders.add(name)
    elif isinstance(receiver, ast.Name) and receiver.id in classes:
        active.add(name)


def class_hooks(model: ModuleModel) -> ClassHooks:
    """The module's ``ClassHooks`` (computed once per model)."""
    found = model.derived.get("class hooks")
    if found is None:
        found = model.derived["class hooks"] = ClassHooks(model.class_defs, model.tree)
    return found  # type: ignore[return-value]


_FINALIZING: weakref.WeakKeyDictionary[Scope, bool] = weakref.WeakKeyDictionary()


def module_runs_finalizers(scope: Scope) -> bool:
    """Whether code of the module may run when a reference is dropped: a
    class of it defines ``__del__``, a generator of it has a ``finally``,
    handlers or a ``with`` around a ``yield`` (closed when dropped while
    suspended there), it imports ``weakref`` (a callback of
    ``weakref.ref``, ``finalize``) or ``gc`` (``gc.callbacks``), by an
    import statement or by name (``importlib.import_module("gc")``), or it
    installs an asynchronous generators' ``finalizer``
    (``sys.set_asyncgen_hooks``). Such
    code runs at any rebinding, ``del`` or temporary, where nothing shows
    a call."""
    module = scope.module
    found = _FINALIZING.get(module)
    if found is None:
        found = "__del__" in module_class_hooks(scope).dunders
        if not found:
            found = any(
                _cleans_up_a_yield(node) for node in statements_under(module.node)
            )
        if not found:
            found = _installs_asyncgen_hooks(module.node)
        if not found:
            # (an import is a statement, never part of an expression: those
            # a model's scan collected, else a walk of the statements)
            statements = getattr(module, "import_statements", None)
            if statements is None:
                statements = statements_under(module.node)
            for node in statements:
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level:
                    names = [node.module or ""]
                else:
                    continue
                if any(name.partition(".")[0] in _FINALIZER_MODULES for name in names):
                    found = True
                    break
        if not found:
            found = _imports_by_string(module.node)
        _FINALIZING[module] = found
    return found


_FINALIZER_MODULES = frozenset({"weakref", "gc"})


def _imports_by_string(tree: ast.AST) -> bool:
    """Whether the module imports ``weakref`` or ``gc`` by a name given as a
    string (``importlib.import_module("weakref")``, ``__import__("gc")``,
    ``import_module(name="weakref")``, ``sys.modules["weakref"]``): a
    string of the module that names one is taken for such an import where
    the module names a way to import by a string at all (as a name, an
    attribute or a string itself: ``getattr(importlib, "import_module")``);
    a string alone (``{"gc": 1}``) imports nothing."""
    values = string_values(tree)
    strings = {value.partition(".")[0] for value in values}
    if not strings & _FINALIZER_MODULES:
        return False
    if _IMPORTING & set(values):
        return True
    for node in walk(tree):
        if type(node) is ast.Name:
            if node.id in _IMPORTING:  # type: ignore[attr-defined]
                return True
        elif type(node) is ast.Attribute:
            if node.attr in _IMPORTING:  # type: ignore[attr-defined]
                return True
        elif type(node) is ast.alias and node.name.rpartition(".")[2] in _IMPORTING:  # type: ignore[attr-defined]
            return True
    return False


#: What imports a module given by a string, or finds one imported
#: (``sys.modules[name]``).
_IMPORTING = frozenset(
    {"import_module", "__import__", "modules", "module_from_spec", "load_module"}
)


def _installs_asyncgen_hooks(tree: ast.AST) -> bool:
    """Whether the module names ``sys.set_asyncgen_hooks`` anywhere (a call,
    an import, an alias, a string given to ``getattr``): its ``finalizer``
    runs where an asynchronous generator that has started and not
    finished is dropped, whatever its body."""
    text = module_texts.get(tree)
    if (
        text is not None
        and prefilter.enabled()
        and not prefilter.may_respell_ascii(text)
    ):
        return _ASYNCGEN_HOOKS in text
    if _ASYNCGEN_HOOKS in string_values(tree):
        return True
    for node in walk(tree):
        if isinstance(node, ast.Name):
            if node.id == _ASYNCGEN_HOOKS:
                return True
        elif isinstance(node, ast.Attribute):
            if node.attr == _ASYNCGEN_HOOKS:
                return True
        elif isinstance(node, ast.alias) and node.name == _ASYNCGEN_HOOKS:
            return True
    return False


_ASYNCGEN_HOOKS = "set_asyncgen_hooks"


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
#: Where a generator or a coroutine is suspended.
_SUSPENSIONS = (ast.Yield, ast.YieldFrom, ast.Await, ast.AsyncFor, ast.AsyncWith)


def _cleans_up_a_yield(node: ast.AST) -> bool:
    """Whether ``node`` is a ``try`` with a ``finally`` or handlers, or a
    ``with``, around a ``yield`` of its own scope, or an ``await`` (``async
    for``, ``async with``): a generator or coroutine suspended there runs
    that code when it is closed, which dropping its last reference does
    (``g = None``, ``del g``, ``gens.clear()``)."""
    if isinstance(node, ast.With | ast.AsyncWith):
        parts: list[ast.AST] = list(node.body)
    elif isinstance(node, ast.Try | TryStar):
        if not (node.finalbody or node.handlers):
            return False
        parts = [*node.body, *node.handlers, *node.orelse]
    else:
        return False
    stack = parts
    while stack:
        child = stack.pop()
        if isinstance(child, _SUSPENSIONS):
            return True
        if isinstance(child, _SCOPES):
            continue
        stack.extend(ast.iter_child_nodes(child))
    return False


# The module's scope -> its ``ClassHooks``, for analyses that have a scope
# and no model (the invalidation analysis, the kinds of values).
_BY_MODULE: weakref.WeakKeyDictionary[Scope, ClassHooks] = weakref.WeakKeyDictionary()


def module_class_hooks(scope: Scope) -> ClassHooks:
    """The ``ClassHooks`` of the module ``scope`` is in (once per module):
    of the class statements a model's scan collected where it made the
    scope, else of a walk of the statements."""
    module = scope.module
    found = _BY_MODULE.get(module)
    if found is None:
        class_defs = getattr(module, "class_defs", None)
        if class_defs is None:
            class_defs = class_statements(module.node)
        found = _BY_MODULE[module] = ClassHooks(class_defs, module.node)
    return found


def class_statements(tree: ast.AST) -> list[ast.ClassDef]:
    """Every class statement under ``tree``, found by a walk of statements
    only (a class statement is never part of an expression): the blocks of
    compound statements, handlers and ``match`` cases."""
    return [node for node in statements_under(tree) if type(node) is ast.ClassDef]
