"""What kind of value a local name holds: names that always hold an
immutable Python number (a loop index, a length, ``x.item()``, arithmetic
of those). ATN301 asks it to know that evaluating an alias's value cannot
raise and that a later read sees the same number; the facts it starts from,
``range``/``enumerate`` indices and names bound to ``int(...)``/``len(...)``,
are ``tensor_effects.basic_index_names``, which the tensor rules share.
"""

from __future__ import annotations

import ast

from lint_rules.analysis.class_hooks import module_class_hooks
from lint_rules.analysis.flow import FunctionFlow, Kind
from lint_rules.analysis.tensor_effects import basic_index_names, derived

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.analysis.scopes import Scope


def number_names(
    flow: FunctionFlow, scope: Scope | None = None, annotations: bool = True
) -> frozenset[str]:
    """The local names of ``flow`` that always hold an immutable number,
    computed once per function and scope (kept with the flow). Without
    ``annotations``, a parameter annotated ``int``, ``float`` or ``bool``
    (which nothing checks at the call) is not taken at its word."""
    if not annotations:
        return derived(
            flow,
            "number_names_unannotated",
            scope,
            lambda: _number_names(flow, scope, annotations=False),
        )
    return derived(flow, "number_names", scope, lambda: _number_names(flow, scope))


def int_names(flow: FunctionFlow, scope: Scope | None = None) -> frozenset[str]:
    """The local names of ``flow`` that always hold a Python ``int`` (or a
    ``bool``): those of ``number_names`` that can hold no float (``x.item()``,
    a float literal), no slice (``slice(...)``, which ``basic_index_names``
    counts with the integers), and are no parameter (an annotation ``n: int``
    is not checked when the function is called). Adding or subtracting two of
    them cannot raise; an ``int`` and a ``float`` can (``OverflowError`` for
    an ``int`` past the floats' range), and so can a slice and anything."""
    return derived(
        flow, "int_names", scope, lambda: _number_names(flow, scope, ints=True)
    )


# Calls and methods whose result is a Python int (or another immutable number).
_INTEGER_BUILTINS = frozenset({"int", "len"})
# ... and builtins that return one of their arguments, or a function of them.
_INTEGER_OF_INTEGERS = frozenset({"min", "max", "abs"})
_INTEGER_METHODS = frozenset(
    {"item", "numel", "nelement", "dim", "size", "stride", "data_ptr"}
)
_INTEGER_OPERATORS = (
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.FloorDiv,
    ast.Mod,
    ast.LShift,
    ast.RShift,
)
_NUMBER_ANNOTATIONS = frozenset({"int", "float", "bool"})


def _number_names(
    flow: FunctionFlow,
    scope: Scope | None = None,
    ints: bool = False,
    annotations: bool = True,
) -> frozenset[str]:
    """Local names that always hold an immutable number.

    ``range`` and ``enumerate`` indices and names bound only to ``int(...)``,
    ``len(...)`` or an integer literal (``basic_index_names``), parameters
    annotated ``int``, ``float`` or ``bool``, and names every binding of which
    is ``x.item()``, ``x.numel()``, ``x.size(d)``, a literal, ``min``/``max``/
    ``abs`` of such values, or ``+ - * // % << >>`` of them (``n = end - start``).
    With ``ints``, only those that hold an ``int`` (see ``int_names``);
    without ``annotations``, no annotated parameter.
    """
    known = set(basic_index_names(flow, scope))
    if ints:
        known = {name for name in known if not _may_bind_a_slice(flow, name)}
    candidates: dict[str, list[ast.expr]] = {}
    for name, events in flow.events_by_name.items():
        if name in known:
            continue
        values: list[ast.expr] = []
        for event in events:
            if event.kind is Kind.LOAD:
                continue
            parent = flow.parents.get(event.node)
            if event.nested or event.kind is Kind.DEL:
                break
            node = event.node
            if isinstance(node, ast.arg):
                annotation = node.annotation
                if (
                    not ints
                    and annotations
                    and isinstance(annotation, ast.Name)
                    and annotation.id in _NUMBER_ANNOTATIONS
                ):
                    values.append(ast.Constant(0))  # stands for "a number"
                    continue
                break
            if isinstance(parent, ast.Assign) and event.node in parent.targets:
                values.append(parent.value)
            elif isinstance(parent, ast.AugAssign) and isinstance(
                parent.op, _INTEGER_OPERATORS
            ):
                values.append(parent.value)
            elif isinstance(parent, ast.AnnAssign) and parent.value is not None:
                values.append(parent.value)
            else:
                break
        else:
            if values:
                candidates[name] = values
    # Optimistic fixpoint: drop names whose values read a name not known to hold
    # an integer, until nothing changes.
    holding = known | set(candidates)
    changed = True
    while changed:
        changed = False
        for name in list(candidates):
            if not all(
                _integer_value(v, holding, flow, scope, ints) for v in candidates[name]
            ):
                del candidates[name]
                holding.discard(name)
                changed = True
    return frozenset(holding)


def _integer_value(
    value: ast.expr,
    names: set[str],
    flow: FunctionFlow,
    scope: Scope | None = None,
    ints: bool = False,
) -> bool:
    if isinstance(value, ast.Constant):
        return type(value.value) in ((int, bool) if ints else (int, float, bool))
    if isinstance(value, ast.Name):
        return value.id in names
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        return _integer_value(value.operand, names, flow, scope, ints)
    if isinstance(value, ast.BinOp) and isinstance(value.op, _INTEGER_OPERATORS):
        return _integer_value(value.left, names, flow, scope, ints) and _integer_value(
            value.right, names, flow, scope, ints
        )
    if isinstance(value, ast.Call) and not any(
        isinstance(a, ast.Starred) for a in value.args
    ):
        func = value.func
        if isinstance(func, ast.Name):
            # A builtin, unless the function or the module binds the name.
            if flow.has_stores(func.id) or value.keywords:
                return False
            if scope is not None and not scope.is_builtin(func.id):
                return False
            if func.id in _INTEGER_OF_INTEGERS:
                return bool(value.args) and all(
                    _integer_value(argument, names, flow, scope, ints)
                    for argument in value.args
                )
            return func.id in _INTEGER_BUILTINS
        if isinstance(func, ast.Attribute) and func.attr in _INTEGER_METHODS:
            if ints and func.attr == "item":
                return False  # (a float, a complex or a bool as well)
            if _module_class_defines(scope, func.attr):
                return False  # ``v.numel()`` of an object of the module's class
            return func.attr not in ("size", "stride") or len(value.args) == 1
    return False


def _module_class_defines(scope: Scope | None, name: str) -> bool:
    """Whether a class of the module binds ``name`` (a method, a property):
    the receiver of ``v.numel()`` may be one of its objects, whose method
    returns anything. Without a scope, the module is not known: it may."""
    if scope is None:
        return True
    return module_class_hooks(scope).defines(name)


def _may_bind_a_slice(flow: FunctionFlow, name: str) -> bool:
    """Whether a store of ``name`` may bind a slice: its value, or the
    matching item of a tuple it is unpacked from, calls ``slice``."""
    for event in flow.events_of(name):
        if event.kind is Kind.LOAD:
            continue
        node = event.node
        parent = flow.parents.get(node)
        value = None
        if isinstance(parent, ast.Assign):
            value = parent.value
        elif isinstance(parent, ast.Tuple):
            assign = flow.parents.get(parent)
            value = getattr(assign, "value", None)
            if isinstance(value, ast.Tuple) and len(value.elts) == len(parent.elts):
                value = value.elts[parent.elts.index(node)]
        if value is not None and any(
            isinstance(n, ast.Name) and n.id == "slice" for n in ast.walk(value)
        ):
            return True
    return False
