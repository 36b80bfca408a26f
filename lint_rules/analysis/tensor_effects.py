"""What a use of a tensor does to its memory: the effect model of ATN101-ATN103.

A use of a tensor-valued local is a *definite full write* (``x.copy_(y)``,
``x.fill_(v)``, ``x.zero_()``, in-place random fills, ``x[:] = v``,
``x[...] = v``, ``x[:, :] = v``, ``out=x`` to a function that honours the
``out=`` contract: torch's own namespaces and ATen operators, not a custom
operator such as ``torch.ops.mylib.kernel``, whose kernel may leave part of
``out`` unwritten), a
*definite read* (``x += 1``, ``x + 1``, ``x < y``, in-place accumulation such
as ``x.add_(y)`` or ``x.index_add_(...)``, reductions and copies such as
``x.sum()``, ``x.item()`` or ``x.clone()``, an indexing read ``y = x[idx]``;
a conversion that may return the tensor itself, ``x.to(d)``, ``x.numpy()``,
takes the effect of what is done with its result), *transparent* (it
sees only metadata: ``x.shape``, ``x.size()``, ``len(x)``), a *rebinding* of
the name (the old value is no longer reachable through it), or *unknown*
(anything else: the tensor escapes into an unknown call, a container, a
return value or another name, a view of it is taken, part of it is written).

Evaluation that happens on some paths only within a statement (the arms of
``a if c else b``, the right operands of ``and``/``or``, the test of an
``assert``, which ``python -O`` drops) and uses inside a nested scope are
never definite writes; nested uses are always unknown.

On top of the per-function flow (``FunctionFlow``) this module answers the
two path questions the rules ask: is the first effective use after a binding
a definite full write on every path, and is it a definite read on some path.
It also recognizes the allocations involved: the zero-filled family
(``torch.zeros``, ``zeros_like``, ``Tensor.new_zeros``, ``torch.full`` /
``full_like`` / ``Tensor.new_full`` with a literal zero) and the
uninitialized family (``torch.empty``, ``empty_like``, ``empty_strided``,
``Tensor.new_empty``), resolved through the function's scope (a local
``torch`` is not the module; a function-level ``import torch`` is). What each
method does comes from the torch vocabulary (``torch_api``).

A conditional exit is a path too: a statement in a ``try`` body, or in the
body of a ``with`` whose context manager may swallow an exception, may be
the last one run before the code after it (see ``flow``).
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable, Container, Iterable, Iterator, Mapping

from lint_rules.analysis.flow import Block, Event, FunctionFlow, Kind
from lint_rules.analysis.nodes import walk as walk_nodes
from lint_rules.analysis.torch_api import (
    CONVERSION_METHODS,
    DTYPE_NAMES,
    METADATA_ATTRIBUTES,
    METADATA_METHODS,
    OVERWRITING_METHODS,
    READING_METHODS,
    honours_out_contract,
)
from lint_rules.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from lint_rules.analysis.imports import ImportMap
    from lint_rules.analysis.scopes import Scope

    #: Who names are: a function's scope, or the module-wide imports (the
    #: shortcut of the pre-filters, which see every import everywhere).
    Names = Scope | ImportMap


class UseEffect(enum.Enum):
    """What one use of a tensor-valued name does to the tensor's elements
    (``invalidation.Change`` is the other question: what evaluated code may
    change about a later read)."""

    FULL_WRITE = "full write"
    READ = "read"
    UNKNOWN = "unknown"
    REBIND = "rebind"  # a store or ``del`` of the name itself
    TRANSPARENT = "transparent"  # metadata only: neither reads nor writes elements


class Detail(enum.Enum):
    """Why a use is unknown (for messages); other effects carry ``NONE``."""

    NONE = ""
    PARTIAL = "partly written"  # in place through a view or a partial index
    ESCAPE = "sliced or passed on"  # bound, passed, stored, returned, viewed
    # A full write that rests on an assumption the fix must not take as proven:
    DECLARED = "written by a call declared in `full-write-calls`"
    METHOD = "written by a method that a subclass may override"
    GROUP = "written by a collective only on the ranks of its group"
    PUBLIC = "written by a public function of the module, which other code may replace"


#: Builtins that look only at the object (or its length), not its elements.
_METADATA_BUILTINS = frozenset({"len", "isinstance", "type", "id"})
#: Methods whose result is the address of the tensor's elements (in
#: ``torch_api`` a view's: code given it may write there): compared, it
#: tells tensors apart; handed on, it is the memory itself.
_POINTER_METHODS = frozenset({"data_ptr"})


class Use(Record):
    """The first effective use of a name on some path."""

    __slots__ = ("event", "effect", "detail")
    _fields = __slots__

    def __init__(
        self, event: Event, effect: UseEffect, detail: Detail = Detail.NONE
    ) -> None:
        self.event = event
        self.effect = effect
        self.detail = detail

    @property
    def row(self) -> int:
        return getattr(self.event.node, "lineno", 0)


# --------------------------------------------------------------------------- allocations

_ZERO_FUNCTIONS = {
    "torch.zeros": "zeros",
    "torch.zeros_like": "zeros_like",
    "torch.full": "full",
    "torch.full_like": "full_like",
}
_EMPTY_FUNCTIONS = {
    "torch.empty": "empty",
    "torch.empty_like": "empty_like",
    "torch.empty_strided": "empty_strided",
}
_ZERO_METHODS = {"new_zeros": "new_zeros", "new_full": "new_full"}
_EMPTY_METHODS = {"new_empty": "new_empty"}
# The last name of every allocator reached through an attribute (``torch.zeros``,
# ``x.new_zeros``): a call whose attribute is not one of them allocates nothing.
_ALLOCATOR_ATTRIBUTES = frozenset(
    {
        *(name.rpartition(".")[2] for name in (*_ZERO_FUNCTIONS, *_EMPTY_FUNCTIONS)),
        *_ZERO_METHODS,
        *_EMPTY_METHODS,
    }
)
#: Where the fill value of a ``full`` function sits: positional index, keyword.
_FILL_POSITION = 1
_FILL_KEYWORD = "fill_value"

#: The uninitialized counterpart of each zero-filled allocator.
EMPTY_COUNTERPART = {
    "zeros": "empty",
    "zeros_like": "empty_like",
    "new_zeros": "new_empty",
    "full": "empty",
    "full_like": "empty_like",
    "new_full": "new_empty",
}


class Allocation(Record):
    """A call that allocates a fresh tensor: zero-filled or uninitialized.

    ``function`` is "zeros", "zeros_like", "new_zeros", "full", ..., "empty",
    ...; ``method`` tells a tensor method (``x.new_zeros(...)``); ``fill`` is
    the zero fill argument of ``full``. ``torch.full`` infers its dtype from
    the fill when none is given (``0`` -> int64, ``False`` -> bool), and
    ``torch.empty`` would not: ``inferred_dtype`` is that dtype, and
    ``none_dtype`` the ``dtype=None`` keyword that asks for it explicitly.
    ``uncertain`` says why the uninitialized counterpart may not be the same
    tensor (a ``dtype`` that may be None, a size that may be an integer,
    which ``full`` refuses), None when it is.
    """

    __slots__ = (
        "call",
        "function",
        "method",
        "fill",
        "inferred_dtype",
        "none_dtype",
        "uncertain",
    )
    _fields = __slots__

    def __init__(
        self,
        call: ast.Call,
        function: str,
        method: bool,
        fill: ast.expr | ast.keyword | None = None,
        inferred_dtype: str | None = None,
        none_dtype: ast.keyword | None = None,
        uncertain: str | None = None,
    ) -> None:
        self.call = call
        self.function = function
        self.method = method
        self.fill = fill
        self.inferred_dtype = inferred_dtype
        self.none_dtype = none_dtype
        self.uncertain = uncertain

    @property
    def zero_filled(self) -> bool:
        return self.function in EMPTY_COUNTERPART

    @property
    def has_no_data(self) -> bool:
        """Whether the tensor holds no element values: a literal zero in its
        shape (``torch.empty(0, n)``) or the ``meta`` device."""
        for keyword in self.call.keywords:
            device = keyword.value
            if (
                keyword.arg == "device"
                and isinstance(device, ast.Call)
                and len(device.args) == 1
            ):
                device = device.args[0]  # ``torch.device("meta")``
            if keyword.arg == "device" and isinstance(device, ast.Constant):
                if device.value == "meta":
                    return True
        if self.function in ("zeros_like", "full_like", "empty_like"):
            return False
        sizes: list[ast.expr] = list(self.call.args)
        if self.function not in ("zeros", "empty"):
            # The size is the first argument: ``full(size, v)``, ``new_empty(size)``.
            sizes = sizes[:1]
        sizes += [k.value for k in self.call.keywords if k.arg == "size"]
        for size in sizes:
            parts = size.elts if isinstance(size, (ast.Tuple, ast.List)) else [size]
            for part in parts:
                if isinstance(part, ast.Constant) and type(part.value) is int:
                    if part.value == 0:
                        return True
        return False

    @property
    def display(self) -> str:
        """How messages name the allocator: ``torch.zeros``, ``Tensor.new_zeros``."""
        return f"Tensor.{self.function}" if self.method else f"torch.{self.function}"


def allocation_of(node: ast.AST, names: Names) -> Allocation | None:
    """The allocation ``node`` makes, if it is a call to a known allocator.

    ``names`` says who the called name is: a function's scope (a local
    binding of ``torch`` is not the module), or the module's imports.
    """
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    # Most calls are not allocations: the called name tells at once.
    if type(func) is ast.Attribute:
        if func.attr not in _ALLOCATOR_ATTRIBUTES:
            return None
    elif type(func) is not ast.Name:
        return None
    if any(keyword.arg is None or keyword.arg == "out" for keyword in node.keywords):
        return (
            None  # ``**kwargs`` may hide ``out=``; with ``out=`` nothing is allocated
        )
    qualified = names.qualified_name(func)
    method = False
    if qualified in _ZERO_FUNCTIONS:
        function = _ZERO_FUNCTIONS[qualified]
    elif qualified in _EMPTY_FUNCTIONS:
        function = _EMPTY_FUNCTIONS[qualified]
    elif qualified is None and isinstance(func, ast.Attribute):
        # A tensor method, recognized by name (the receiver's type is unknown).
        function = _ZERO_METHODS.get(func.attr) or _EMPTY_METHODS.get(func.attr) or ""
        method = True
        if not function:
            return None
    else:
        return None
    # ``torch.zeros`` and ``torch.full`` refuse ``memory_format`` (a
    # ``TypeError``), which ``torch.empty`` takes: the rewrite would make a
    # call that raised succeed.
    refused = (
        f"`torch.{function}` refuses `memory_format`, which `torch.empty` takes"
        if function in ("zeros", "full")
        and not method
        and any(keyword.arg == "memory_format" for keyword in node.keywords)
        else None
    )
    # A layout other than strided: ``full`` refuses a sparse one that
    # ``empty`` takes, ``empty_like`` one that ``zeros_like`` takes.
    if refused is None and function in EMPTY_COUNTERPART:
        layout = next((k.value for k in node.keywords if k.arg == "layout"), None)
        if layout is not None and not (
            isinstance(layout, ast.Attribute)
            and layout.attr == "strided"
            and names.qualified_name(layout) == "torch.strided"
        ):
            refused = (
                "its `layout` may be sparse, which the zero-filled and the "
                "uninitialized allocators do not take alike"
            )
    # A quantized dtype: ``zeros``, ``full`` and their ``_like`` and ``new_``
    # forms raise (``zero_`` has no quantized kernel), ``empty`` takes it.
    if refused is None and function in EMPTY_COUNTERPART:
        dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
        if dtype is not None and is_quantized_dtype(dtype, names):
            refused = (
                f"its `dtype` is quantized: `{function}` refuses it, the "
                "uninitialized allocator takes it"
            )
    # A bit or sub-byte dtype: ``full`` raises (no ``fill_`` for it),
    # ``empty`` takes it.
    if refused is None and function in ("full", "full_like", "new_full"):
        dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
        if dtype is None:
            # (or the input's: ``full_like(y.view(torch.bits8), 0)``)
            source = func.value if method else (node.args or [None])[0]  # type: ignore[union-attr]
            dtype = _converted_to(source)
        if dtype is not None and is_unfillable_dtype(dtype, names):
            refused = (
                f"its `dtype` has no fill kernel: `{function}` refuses it, the "
                "uninitialized allocator takes it"
            )
    if function not in ("full", "full_like", "new_full"):
        return Allocation(node, function, method, uncertain=refused)
    fill = _fill_argument(node)
    if fill is None:
        return None
    value = fill.value if isinstance(fill, ast.keyword) else fill
    zero = literal_zero(value)
    if zero is None:
        return None
    uncertain = refused
    if function != "full_like" and not _is_sequence(_size_argument(node), names):
        uncertain = uncertain or "its size may be an integer, which `full` refuses"
    inferred = none_dtype = None
    if function == "full" and zero in ("int", "bool"):
        # ``full`` infers int64 or bool from the fill; ``empty`` would not.
        dtype = next((k for k in node.keywords if k.arg == "dtype"), None)
        if dtype is None or _is_none(dtype.value):
            inferred = {"int": "int64", "bool": "bool"}[zero]
            none_dtype = dtype
        elif not _is_dtype(dtype.value, names):
            uncertain = (
                uncertain or "its `dtype` may be None, and the fill's then decides"
            )
    return Allocation(node, function, method, fill, inferred, none_dtype, uncertain)


#: torch's quantized dtypes.
_QUANTIZED_DTYPES = frozenset({"qint8", "quint8", "qint32", "quint4x2", "quint2x4"})
#: torch's bit and sub-byte dtypes, which ``fill_`` (so ``full``) has no
#: kernel for, where ``zero_``, ``zeros`` and ``empty`` take them.
_UNFILLABLE_DTYPES = frozenset(
    {
        "bits8",
        "bits16",
        "bits1x8",
        "bits2x4",
        "bits4x2",
        "float4_e2m1fn_x2",
        *(f"int{n}" for n in range(1, 8)),
        *(f"uint{n}" for n in range(1, 8)),
    }
)


def is_quantized_dtype(node: ast.expr, names: Names) -> bool:
    """Whether ``node`` names one of torch's quantized dtypes
    (``torch.qint8``), which ``zero_`` has no kernel for."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr in _QUANTIZED_DTYPES
        and names.qualified_name(node) == f"torch.{node.attr}"
    )


def is_unfillable_dtype(node: ast.expr, names: Names) -> bool:
    """Whether ``node`` names one of torch's bit or sub-byte dtypes
    (``torch.bits8``, ``torch.uint4``), which ``fill_`` and ``full`` have no
    kernel for (``zero_`` and ``zeros`` have)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr in _UNFILLABLE_DTYPES
        and names.qualified_name(node) == f"torch.{node.attr}"
    )


def _converted_to(value: ast.expr | None) -> ast.expr | None:
    """The dtype ``value`` is converted to by its last call
    (``y.view(torch.bits8)``, ``y.to(dtype=torch.uint4)``), or None."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
        return None
    if value.func.attr not in ("view", "to", "type"):
        return None
    keyword = next((k.value for k in value.keywords if k.arg == "dtype"), None)
    if keyword is not None:
        return keyword
    return next((a for a in value.args if isinstance(a, ast.Attribute)), None)


def _size_argument(call: ast.Call) -> ast.expr | None:
    if call.args and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "size"), None)


def _is_sequence(size: ast.expr | None, names: Names) -> bool:
    """A size that is certainly a sequence: a tuple or list display,
    ``x.shape``, ``x.size()``, ``torch.Size(...)``."""
    if isinstance(size, (ast.Tuple, ast.List)):
        return True
    if isinstance(size, ast.Attribute):
        return size.attr == "shape"
    if isinstance(size, ast.Call):
        func = size.func
        if isinstance(func, ast.Attribute) and func.attr == "size":
            return not size.args and not size.keywords
        return names.qualified_name(func) == "torch.Size"
    return False


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_dtype(node: ast.expr, names: Names) -> bool:
    """``torch.int32`` and the like: an expression that is certainly a dtype."""
    qualified = names.qualified_name(node)
    if qualified is None:
        return False
    module, _, name = qualified.rpartition(".")
    return module == "torch" and name in DTYPE_NAMES


def _fill_argument(call: ast.Call) -> ast.expr | ast.keyword | None:
    positional = call.args
    if any(isinstance(arg, ast.Starred) for arg in positional):
        return None
    if len(positional) > _FILL_POSITION:
        return positional[_FILL_POSITION]
    return next((k for k in call.keywords if k.arg == _FILL_KEYWORD), None)


def literal_zero(node: ast.expr) -> str | None:
    """``"int"``, ``"float"`` or ``"bool"`` for a literal zero (``0``, ``0.0``,
    ``False``, ``-0.0``, ``+0``), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
        if isinstance(node, ast.Constant) and type(node.value) is bool:
            return None  # ``-False`` is an int; keep the rewrite to plain literals
    if not isinstance(node, ast.Constant):
        return None
    value = node.value
    kind = type(value)
    if kind in (int, float, bool) and value == 0:
        return kind.__name__
    return None


# --------------------------------------------------------------------------- effects


class CallOracle:
    """What calls do to the tensors passed to them, where more is known than
    "anything" (``summaries.CallEffects`` answers for the module's own
    functions, collectives and declared kernels). This base knows nothing."""

    __slots__ = ()

    def effect(
        self, call: ast.Call, argument: ast.expr, whole: bool
    ) -> tuple[UseEffect, Detail] | None:
        """The effect of ``call`` on ``argument`` (``whole``: the argument is
        the whole tensor, not a view of part of it); None: not known."""
        return None


class LocalFacts(Record):
    """What the enclosing function tells about names used around a tensor:
    the names it binds, and those holding an int or a slice."""

    __slots__ = ("bound", "basic_indices", "calls")
    _fields = __slots__

    def __init__(
        self,
        bound: Container[str] = frozenset(),
        basic_indices: Container[str] = frozenset(),
        calls: CallOracle | None = None,
    ) -> None:
        self.bound = bound
        self.basic_indices = basic_indices
        #: What calls of the module's own functions (and declared kernels,
        #: collectives) do to an argument: ``summaries.CallEffects``.
        self.calls = calls


NO_FACTS = LocalFacts()


def index_kind(index: ast.expr, basic_indices: Container[str] = frozenset()) -> str:
    """``"full"`` (every component a bare ``:`` or ``...``), ``"view"`` (slices,
    ``...``, ``None``, integer literals and ``basic_indices`` names: basic
    indexing), or ``"gather"``."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if all(_is_full_component(part) for part in parts):
        return "full"
    if all(
        _is_view_component(part)
        or (isinstance(part, ast.Name) and part.id in basic_indices)
        for part in parts
    ):
        return "view"
    return "gather"


def _is_full_component(part: ast.expr) -> bool:
    if isinstance(part, ast.Slice):
        return part.lower is None and part.upper is None and part.step is None
    return isinstance(part, ast.Constant) and part.value is Ellipsis


def _is_view_component(part: ast.expr) -> bool:
    if isinstance(part, ast.Slice):
        return True
    if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
        part = part.operand
    return isinstance(part, ast.Constant) and (
        part.value is Ellipsis or part.value is None or type(part.value) is int
    )


def context_effect(
    expr: ast.expr,
    parents: Mapping[ast.AST, ast.AST],
    names: Names,
    whole: bool = True,
    facts: LocalFacts = NO_FACTS,
) -> tuple[UseEffect, Detail]:
    """The effect of the context around ``expr``, whose value is the tensor.

    ``whole`` says whether ``expr`` stands for all of the tensor's elements
    (the name itself, ``x[:]``) rather than a part of them. ``names`` says
    who called names are (``len`` may not be the builtin); ``facts`` tell
    which names the function binds and which hold integers or slices (so
    ``x[i]`` is a view, not a gather).
    """
    parent = parents.get(expr)
    if isinstance(parent, ast.Attribute) and parent.value is expr:
        call = parents.get(parent)
        if (
            parent.attr in CONVERSION_METHODS
            and isinstance(call, ast.Call)
            and call.func is parent
        ):
            effect, detail = context_effect(call, parents, names, False, facts)
            if effect is UseEffect.TRANSPARENT:
                return UseEffect.UNKNOWN, Detail.ESCAPE  # a conversion may copy
            return effect, detail
        return _attribute_effect(parent, parents, whole)
    if isinstance(parent, ast.Subscript) and parent.value is expr:
        return _subscript_effect(parent, parents, names, whole, facts)
    if isinstance(parent, ast.Compare) and all(
        isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops
    ):
        return UseEffect.TRANSPARENT, Detail.NONE  # ``x is None``: identity only
    if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)):
        return UseEffect.READ, Detail.NONE
    if isinstance(parent, ast.AugAssign):
        # ``y += x`` reads x; ``x += y`` is recorded as an augmented event.
        return UseEffect.READ, Detail.NONE
    if isinstance(parent, ast.keyword):
        call = parents.get(parent)
        if parent.arg == "out" and isinstance(call, ast.Call):
            qualified = names.qualified_name(call.func)
            if qualified is not None and honours_out_contract(qualified):
                if whole:
                    return UseEffect.FULL_WRITE, Detail.NONE
                return UseEffect.UNKNOWN, Detail.PARTIAL
        if facts.calls is not None and isinstance(call, ast.Call):
            known = facts.calls.effect(call, expr, whole)
            if known is not None:
                return known
        return UseEffect.UNKNOWN, Detail.ESCAPE
    if isinstance(parent, ast.Call) and expr in parent.args:
        func = parent.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "copy_"
            and parent.args[0] is expr
        ):
            return UseEffect.READ, Detail.NONE  # the source of a copy
        if (
            isinstance(func, ast.Name)
            and func.id in _METADATA_BUILTINS
            and func.id not in facts.bound
            and names.is_builtin(func.id)
        ):
            return UseEffect.TRANSPARENT, Detail.NONE
        if facts.calls is not None:
            known = facts.calls.effect(parent, expr, whole)
            if known is not None:
                return known
    return UseEffect.UNKNOWN, Detail.ESCAPE


def _attribute_effect(
    attribute: ast.Attribute, parents: Mapping[ast.AST, ast.AST], whole: bool
) -> tuple[UseEffect, Detail]:
    name = attribute.attr
    if name in METADATA_ATTRIBUTES and isinstance(attribute.ctx, ast.Load):
        return UseEffect.TRANSPARENT, Detail.NONE
    call = parents.get(attribute)
    if not (isinstance(call, ast.Call) and call.func is attribute):
        return UseEffect.UNKNOWN, Detail.ESCAPE
    if name in _POINTER_METHODS:
        if _only_compared(call, parents):
            return UseEffect.TRANSPARENT, Detail.NONE
        # The address of the elements handed on (``op(x.data_ptr())``,
        # ``ptr = x.data_ptr()``): code given it may read or write them.
        return UseEffect.UNKNOWN, Detail.ESCAPE
    if name in METADATA_METHODS:
        return UseEffect.TRANSPARENT, Detail.NONE
    if name in OVERWRITING_METHODS:
        if whole:
            return UseEffect.FULL_WRITE, Detail.NONE
        return UseEffect.UNKNOWN, Detail.PARTIAL
    if name in READING_METHODS:
        return UseEffect.READ, Detail.NONE
    if name.endswith("_"):
        return (
            UseEffect.UNKNOWN,
            Detail.PARTIAL,
        )  # another in-place method (scatter_, ...)
    return UseEffect.UNKNOWN, Detail.ESCAPE


def _only_compared(call: ast.Call, parents: Mapping[ast.AST, ast.AST]) -> bool:
    """Whether the value of ``call`` is only an operand of a comparison
    (``a.data_ptr() == b.data_ptr()``, ``x.data_ptr() in seen``)."""
    return isinstance(parents.get(call), ast.Compare)


def _subscript_effect(
    subscript: ast.Subscript,
    parents: Mapping[ast.AST, ast.AST],
    names: Names,
    whole: bool,
    facts: LocalFacts,
) -> tuple[UseEffect, Detail]:
    kind = index_kind(subscript.slice, facts.basic_indices)
    if isinstance(subscript.ctx, ast.Store):
        if _augmented_target(subscript, parents):
            return UseEffect.READ, Detail.NONE
        if whole and kind == "full":
            return UseEffect.FULL_WRITE, Detail.NONE
        return UseEffect.UNKNOWN, Detail.PARTIAL
    if isinstance(subscript.ctx, ast.Del):
        return UseEffect.UNKNOWN, Detail.PARTIAL
    if kind != "gather":
        # A view: what happens to the view happens to (part of) the tensor.
        full = whole and kind == "full"
        return context_effect(subscript, parents, names, full, facts)
    # An element or gather index: bound to a name, ``x[i]`` holds the tensor's
    # values (``y = x[idx]`` reads x). Passed to a call it may be a view that
    # the call writes into (``kernel(out=x[i])`` with an integer or slice i).
    effect, detail = context_effect(subscript, parents, names, False, facts)
    if effect is UseEffect.READ:
        return UseEffect.READ, Detail.NONE
    if detail is Detail.ESCAPE and _assigned_value(subscript, parents):
        return UseEffect.READ, Detail.NONE
    if effect is UseEffect.TRANSPARENT:
        return UseEffect.UNKNOWN, Detail.ESCAPE  # ``x[i].shape``: a view or a gather
    return effect, detail


def _assigned_value(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> bool:
    """Whether ``node`` is the whole value of an assignment (``y = node``)."""
    parent = parents.get(node)
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
        return parent.value is node
    return False


def _augmented_target(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> bool:
    parent = parents.get(node)
    return isinstance(parent, ast.AugAssign) and parent.target is node


def enclosing_managers(
    node: ast.AST, flow: FunctionFlow, names: Names, among: Container[str]
) -> frozenset[ast.AST]:
    """The ``with`` statements of the function whose body holds ``node`` and
    whose manager is made by a call of one of ``among`` (qualified names:
    ``torch.no_grad``, ``torch.cuda.graph``)."""
    stmt = flow.statement_of(node)
    if stmt is None:
        return frozenset()
    found: list[ast.AST] = []
    for outer in flow.enclosing_statements(stmt):
        if isinstance(outer, (ast.With, ast.AsyncWith)):
            for item in outer.items:
                manager = item.context_expr
                if (
                    isinstance(manager, ast.Call)
                    and names.qualified_name(manager.func) in among
                ):
                    found.append(outer)
                    break
    return frozenset(found)


# --------------------------------------------------------------------------- paths


def tensor_uses_for(
    flow: FunctionFlow, names: Names, calls: CallOracle | None = None
) -> TensorUses:
    """The (cached) ``TensorUses`` of ``flow``: the rules of one file share
    it, and the effects it has classified. ``names`` is the function's scope;
    ``calls`` what is known of the calls (rules that ask the same oracle,
    ``summaries.call_effects``, share one)."""
    if calls is None:
        return derived(flow, "tensor_uses", names, lambda: TensorUses(flow, names))
    return derived(
        flow,
        "tensor_uses with calls",
        (names, calls),
        lambda: TensorUses(flow, names, calls),
    )


def _same(kept: object, names: object) -> bool:
    if isinstance(names, tuple):  # (names, calls): each the same object
        return isinstance(kept, tuple) and all(
            a is b for a, b in zip(kept, names, strict=True)
        )
    return kept is names


def derived(
    flow: FunctionFlow, key: str, names: object, compute: Callable[[], Any]
) -> Any:
    """``compute()``, once per flow and ``names`` (the function's scope, or
    the module's imports): kept with the flow, which frees it with itself."""
    found = flow.analyses.get(key)
    if found is not None and _same(found[0], names):
        return found[1]
    value = compute()
    flow.analyses[key] = (names, value)
    return value


class TensorUses:
    """Effects of the uses of names in one function, and the path questions
    (``tensor_uses_for`` shares one per function)."""

    def __init__(
        self, flow: FunctionFlow, names: Names, calls: CallOracle | None = None
    ) -> None:
        self.flow = flow
        self.names = names
        self._effects: dict[int, tuple[UseEffect, Detail]] = {}
        self.facts = LocalFacts(
            bound_names(flow), basic_index_names(flow, names), calls
        )

    def effect(self, event: Event) -> tuple[UseEffect, Detail]:
        """The effect of one event on the tensor its name holds."""
        cached = self._effects.get(id(event))
        if cached is None:
            cached = self._effects[id(event)] = self._event_effect(event)
        return cached

    def _event_effect(self, event: Event) -> tuple[UseEffect, Detail]:
        if event.kind is not Kind.LOAD:
            return UseEffect.REBIND, Detail.NONE
        if event.nested:
            return UseEffect.UNKNOWN, Detail.ESCAPE
        if event.augmented:
            return UseEffect.READ, Detail.NONE
        effect, detail = context_effect(
            event.node,  # type: ignore[arg-type]
            self.flow.parents,
            self.names,
            facts=self.facts,
        )
        if effect is UseEffect.FULL_WRITE and (
            event.conditional
            # ``python -O`` drops assert statements, and the write with them.
            or isinstance(self.flow.statement_of(event.node), ast.Assert)
        ):
            return UseEffect.UNKNOWN, Detail.PARTIAL
        return effect, detail

    def first_uses(self, name: str, after: Event) -> tuple[list[Use], bool]:
        """The first effective (not transparent) use of ``name`` on each path
        starting just after ``after``, and whether some path reaches the exit
        with none.

        A path that enters a ``finally`` clause by a raise (or a return, break
        or continue) leaves it towards the exit only: code after the ``try``
        statement does not run while an exception is pending.
        """
        found: list[Use] = []
        seen: set[int] = set()
        use = self._first_in_block(after.block, name, after.order)
        if use is not None:
            return [use], False
        reaches_exit = False
        visited: set[tuple[int, frozenset[Block]]] = set()
        none: frozenset[Block] = frozenset()
        stack = [
            (succ, pending)
            for succ in after.block.succs
            if (pending := self._step(after.block, succ, none)) is not None
        ]
        while stack:
            block, pending = stack.pop()
            if (block.index, pending) in visited:
                continue
            visited.add((block.index, pending))
            use = self._first_in_block(block, name, -1)
            if use is not None:
                if id(use.event) not in seen:
                    seen.add(id(use.event))
                    found.append(use)
                continue
            if block is self.flow.exit:
                reaches_exit = True
                continue
            for succ in block.succs:
                following = self._step(block, succ, pending)
                if following is not None:
                    stack.append((succ, following))
        found.sort(key=lambda u: u.event.order)
        return found, reaches_exit

    def _step(
        self, block: Block, succ: Block, pending: frozenset[Block]
    ) -> frozenset[Block] | None:
        """The ``finally`` clauses entered by a raise after the edge from
        ``block`` to ``succ``, or None when no execution takes that edge."""
        clauses = self.flow.finally_clauses
        for entry in pending:
            if block in clauses[entry].ends:
                # The end of a finally entered by a raise: the raise goes on.
                if succ is not self.flow.exit and succ.role not in (
                    "handler",
                    "finally",
                    "with-exit",
                ):
                    return None
                pending = pending - {entry}
        clause = clauses.get(succ)
        if clause is not None:
            if block in clause.normal_preds:
                return pending - {succ}
            return pending | {succ}
        return pending

    def _first_in_block(self, block: Block, name: str, after_order: int) -> Use | None:
        events = [e for e in block.events if e.name == name and e.order > after_order]
        for index, event in enumerate(events):
            effect, detail = self.effect(event)
            if effect is UseEffect.TRANSPARENT:
                continue
            if effect is UseEffect.FULL_WRITE:
                # ``x.copy_(f(x))``: the arguments are evaluated before the write.
                inner = self._inside_write(event, events[index + 1 :])
                if inner is not None:
                    return inner
            return Use(event, effect, detail)
        return None

    def _inside_write(self, event: Event, later: list[Event]) -> Use | None:
        call = _writing_call(event.node, self.flow.parents)
        if call is None:
            return None
        arguments = {
            id(node)
            for argument in (*call.args, *call.keywords)
            for node in walk_nodes(argument)
        }
        for other in later:
            if id(other.node) not in arguments:
                break
            effect, detail = self.effect(other)
            if effect is UseEffect.TRANSPARENT:
                continue
            if effect is UseEffect.FULL_WRITE:
                return Use(other, UseEffect.UNKNOWN, Detail.PARTIAL)
            return Use(other, effect, detail)
        return None

    # -- the questions of the rules -------------------------------------------

    def first_use_is_full_write_on_every_path(self, name: str, after: Event) -> bool:
        """Whether every path from ``after`` first uses ``name`` by a full write.

        A path that reaches the exit without a use, or that rebinds the name,
        does not count against it; at least one full write must exist.
        """
        uses, _ = self.first_uses(name, after)
        effects = {use.effect for use in uses}
        return UseEffect.FULL_WRITE in effects and effects <= {
            UseEffect.FULL_WRITE,
            UseEffect.REBIND,
        }

    def first_reads_on_some_path(self, name: str, after: Event) -> list[Use]:
        """The uses that are, on some path from ``after``, a definite read of
        ``name`` before anything else touches it."""
        uses, _ = self.first_uses(name, after)
        return [use for use in uses if use.effect is UseEffect.READ]


def _writing_call(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> ast.Call | None:
    """The call that performs a full write through ``node``: its method
    (``x.copy_(...)``), or the call it is an argument of (``out=x``, a
    helper's ``fill(x, src)``), whose arguments after it (``alpha=x.sum()``)
    are evaluated before the call writes."""
    parent = parents.get(node)
    while isinstance(parent, ast.Subscript) and parent.value is node:
        node, parent = parent, parents.get(parent)  # ``x[:].copy_(...)``
    if isinstance(parent, ast.Attribute) and parent.value is node:
        call = parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent:
            return call
        return None
    if isinstance(parent, ast.keyword):
        parent = parents.get(parent)
        return parent if isinstance(parent, ast.Call) else None
    if isinstance(parent, ast.Call) and parent.func is not node:
        return parent
    return None


def bound_names(flow: FunctionFlow) -> frozenset[str]:
    """Names the function itself binds (parameters included); computed once
    per flow."""
    return derived(flow, "bound_names", None, lambda: _bound_names(flow))


def _bound_names(flow: FunctionFlow) -> frozenset[str]:
    return frozenset(
        name
        for name, events in flow.events_by_name.items()
        if any(e.kind is not Kind.LOAD and not e.nested for e in events)
    )


_INT_OR_SLICE_BUILTINS = frozenset({"int", "len", "slice"})


def basic_index_names(flow: FunctionFlow, names: Names | None = None) -> frozenset[str]:
    """Names every binding of which is an integer or a slice: a literal,
    ``int(...)``, ``len(...)``, ``slice(...)``, the target of
    ``for i in range(...)`` or the index of ``for i, v in enumerate(...)``.
    Indexing a tensor with them is basic indexing (a view), not a gather.
    Computed once per flow and ``names``."""
    return derived(
        flow, "basic_index_names", names, lambda: _basic_index_names(flow, names)
    )


def _basic_index_names(flow: FunctionFlow, names: Names | None) -> frozenset[str]:
    bound = bound_names(flow)
    found: set[str] = set()
    for name, events in flow.events_by_name.items():
        stores = [e for e in events if e.kind is Kind.STORE]
        if stores and all(_binds_int_or_slice(e, flow, bound, names) for e in stores):
            found.add(name)
    return frozenset(found)


def _binds_int_or_slice(
    event: Event, flow: FunctionFlow, bound: frozenset[str], names: Names | None
) -> bool:
    node = event.node
    if event.nested or not isinstance(node, ast.Name):
        return False
    parent = flow.parents.get(node)
    if isinstance(parent, ast.AugAssign):
        return _is_int_literal(parent.value)
    if isinstance(parent, ast.Assign) and node in parent.targets:
        return _is_int_or_slice(parent.value, bound, names)
    if isinstance(parent, ast.Tuple):
        # ``i, j = 0, slice(None)``: the matching element of a tuple literal.
        assign = flow.parents.get(parent)
        value = getattr(assign, "value", None)
        if (
            isinstance(assign, ast.Assign)
            and parent in assign.targets
            and isinstance(value, ast.Tuple)
            and len(value.elts) == len(parent.elts)
            and not any(isinstance(e, ast.Starred) for e in parent.elts)
        ):
            return _is_int_or_slice(value.elts[parent.elts.index(node)], bound, names)
    loop = parent
    first_of_tuple = False
    if isinstance(parent, ast.Tuple) and parent.elts and parent.elts[0] is node:
        loop, first_of_tuple = flow.parents.get(parent), True
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    target = loop.target
    iterable = loop.iter
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)):
        return False
    function = iterable.func.id
    if function in bound or (names is not None and not names.is_builtin(function)):
        return False
    if target is node:
        return function == "range"
    return first_of_tuple and target is parent and function == "enumerate"


def _is_int_or_slice(
    value: ast.expr, bound: frozenset[str], names: Names | None
) -> bool:
    if _is_int_literal(value):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in _INT_OR_SLICE_BUILTINS
        and value.func.id not in bound
        and (names is None or names.is_builtin(value.func.id))
    )


def _is_int_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def bound_local(stmt: ast.stmt) -> ast.Name | None:
    """The single plain name an assignment binds (``x = ...``, ``x: T = ...``)."""
    if isinstance(stmt, ast.Assign):
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            return stmt.targets[0]
        return None
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        if isinstance(stmt.target, ast.Name):
            return stmt.target
    return None


class LocalAllocation(Record):
    """``name = <allocation>`` in a function, with the event binding the name."""

    __slots__ = ("stmt", "target", "allocation", "binding")
    _fields = __slots__

    def __init__(
        self,
        stmt: ast.Assign | ast.AnnAssign,
        target: ast.Name,
        allocation: Allocation,
        binding: Event,
    ) -> None:
        self.stmt = stmt
        self.target = target
        self.allocation = allocation
        self.binding = binding


def own_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a function body, nested blocks included, nested scopes not."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if block and isinstance(block[0], ast.stmt):
                yield from own_statements(block)
        for handler in getattr(stmt, "handlers", ()):
            yield from own_statements(handler.body)
        for case in getattr(stmt, "cases", ()):
            yield from own_statements(case.body)


def bound_allocations(
    bindings: Iterable[tuple[ast.stmt, bool]], imports: ImportMap
) -> list[tuple[str, Allocation]]:
    """A cheap look before building the function's flow: the plain names its
    own statements (``FunctionInfo.bindings``) bind to an allocation, with the
    allocation (the names of :func:`local_allocations` are among them)."""
    found: list[tuple[str, Allocation]] = []
    for stmt, _ in bindings:
        kind = type(stmt)
        if kind is ast.Assign:
            targets = stmt.targets  # type: ignore[attr-defined]
            if len(targets) != 1:
                continue
            target = targets[0]
        elif kind is ast.AnnAssign:
            target = stmt.target  # type: ignore[attr-defined]
        else:
            continue
        value = stmt.value  # type: ignore[attr-defined]
        # bound_local's plain name, and a call (the only allocations), or a
        # list comprehension of them (``list_allocation``).
        if type(target) is ast.Name:
            if type(value) is ast.Call:
                allocation = allocation_of(value, imports)
            elif type(value) is ast.ListComp:
                allocation = list_allocation(value, imports)
            else:
                continue
            if allocation is not None:
                found.append((target.id, allocation))
    return found


def list_allocation(value: ast.expr, names: Names) -> Allocation | None:
    """The allocation that makes each element of a list comprehension
    (``[torch.zeros_like(x) for _ in range(n)]``): a fresh tensor per
    element. None when the element is not an allocator's call, or when the
    comprehension binds the name it calls the allocator through
    (``[torch.zeros(2) for torch in mods]``: not the module)."""
    if type(value) is not ast.ListComp:
        return None
    allocation = allocation_of(value.elt, names)  # type: ignore[attr-defined]
    if allocation is None:
        return None
    func = allocation.call.func
    while isinstance(func, ast.Attribute):
        func = func.value
    if not allocation.method and isinstance(func, ast.Name):
        bound = {
            node.id
            for node in walk_nodes(value)
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)
        }
        if func.id in bound:
            return None
    return allocation


def local_allocations(flow: FunctionFlow, names: Names) -> list[LocalAllocation]:
    """Allocations bound directly to one private local of the function;
    ``names`` is the function's scope (who ``torch`` is there). Computed once
    per flow and ``names`` (the caller must not change the list).

    A name that a nested scope uses anywhere in the function is left out: a
    closure defined earlier could read the buffer at any call.
    """
    return derived(
        flow, "local_allocations", names, lambda: _local_allocations(flow, names)
    )


def local_list_allocations(flow: FunctionFlow, names: Names) -> list[LocalAllocation]:
    """Lists of fresh tensors bound directly to one private local of the
    function, made by a comprehension (``list_allocation``), on the terms of
    ``local_allocations``; the allocation is the comprehension's element."""
    return derived(
        flow,
        "local_list_allocations",
        names,
        lambda: _local_allocations(flow, names, list_allocation),
    )


def _local_allocations(
    flow: FunctionFlow,
    names: Names,
    allocation_in: Callable[[ast.expr, Names], Allocation | None] = allocation_of,
) -> list[LocalAllocation]:
    found: list[LocalAllocation] = []
    for stmt in flow.stmt_info:
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            continue
        target = bound_local(stmt)
        if target is None:
            continue
        allocation = allocation_in(stmt.value, names)  # type: ignore[arg-type]
        if allocation is None:
            continue
        name = target.id
        if not flow.is_private_local(name):
            continue
        if any(event.nested for event in flow.events_of(name)):
            continue
        binding = flow.event_for(target)
        if binding is None:
            continue
        found.append(LocalAllocation(stmt, target, allocation, binding))
    found.sort(key=lambda item: item.binding.order)
    return found
