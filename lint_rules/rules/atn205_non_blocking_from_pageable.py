"""ATN205 non-blocking-from-pageable."""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Callable, Iterable, Iterator
from functools import partial

from lint_rules import prefilter
from lint_rules.analysis.nodes import LEAF_TYPES, child_nodes, spans
from lint_rules.analysis.scopes import Argument
from lint_rules.analysis.torch_api import HOST_FACTORIES
from lint_rules.context import Context
from lint_rules.diagnostics import Finding
from lint_rules.rules.base import Invalid, Rule

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.analysis.model import FunctionInfo

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

_FACTORIES = HOST_FACTORIES
#: Functions whose result is a new host tensor when their tensor inputs are
#: host tensors (``torch.cat`` of host lengths, ``torch.cumsum`` of them).
_HOST_OPS_PREFIX = "torch."
#: Methods whose result may be the receiver itself or a view of it (a cast
#: to the dtype it has returns it): memory of the receiver's kind.
_SELF_OR_VIEW_METHODS = frozenset(
    {
        "to",
        "int",
        "long",
        "float",
        "half",
        "bfloat16",
        "type",
        "view",
        "reshape",
        "contiguous",
        "flatten",
        "unsqueeze",
        "squeeze",
        "expand",
        "narrow",
        "t",
        "transpose",
        "permute",
    }
)
#: Methods whose result is new memory: on the host when the receiver is,
#: and pageable (torch never pins a result).
_NEW_TENSOR_METHODS = frozenset(
    {
        "clone",
        "cumsum",
        "diff",
        "sum",
        "repeat",
        "repeat_interleave",
        "index_select",
        "nonzero",
        "masked_fill",
        "clamp",
        "argsort",
        "new_tensor",
        "new_zeros",
        "new_empty",
        "new_full",
    }
)

#: Host memory whose pinning is unknown (a name matching ``host-tensor-names``).
PAGEABLE, PINNED, HOST, UNKNOWN = "pageable", "pinned", "host", "unknown"
#: A local's value computed from the local itself (``x = x.cumsum(0)``):
#: the other bindings decide.
CYCLE = "cycle"
_ON_HOST = frozenset({PAGEABLE, PINNED, HOST})


class NonBlockingFromPageable(Rule):
    """## What it does
    Checks for host-to-device copies asked to be asynchronous
    (`t.to(device, non_blocking=True)`, `t.cuda(non_blocking=True)`,
    `dst.copy_(t, non_blocking=True)`) whose source was made in host memory
    that is not pinned: a factory given no device and no `pin_memory=True`
    (`torch.tensor(lengths)`, `torch.zeros(n)`), `torch.from_numpy`, a
    `.cpu()` or `.to("cpu")` result, or host arithmetic on such a tensor
    (`torch.cat`, `+`, `.to(torch.int32)`), in the same function, or
    returned by a function of the module that makes it so (`_lens(...)`,
    `self._host_indptr(...)`: every `return` of its body gives such memory).

    ## Why is this bad?
    CUDA copies asynchronously only from page-locked (pinned) memory. From
    pageable memory the driver first stages the data through a pinned
    buffer, and `non_blocking=True` silently becomes a synchronous copy: the
    CPU waits, and the overlap the code asks for does not happen. The flag
    documents an intention the memory does not allow.

    ## Example
    ```python
    def plan(lengths, device):
        indptr = torch.tensor(lengths, dtype=torch.int32)
        return indptr.to(device, non_blocking=True)
    ```

    ## Use instead
    ```python
    def plan(lengths, device):
        indptr = torch.tensor(lengths, dtype=torch.int32, pin_memory=True)
        return indptr.to(device, non_blocking=True)
    ```

    ## Fix safety
    No fix: pinning costs an allocation of page-locked memory (and a pinned
    buffer reused across steps must not be written while a copy from it is
    in flight), a trade the rule cannot weigh.

    ## Options
    - `host-tensor-names` (host memory whose pinning is unknown: what the
      function computes from it is new, pageable memory)
    """

    code = "ATN205"
    name = "non-blocking-from-pageable"
    triggers = ("non_blocking",)
    fix_availability = "none"
    severity = "warning"

    valid = (
        # Pinned.
        "import torch\ndef f(x, d):\n"
        "    t = torch.tensor(x, pin_memory=True)\n    return t.to(d, non_blocking=True)\n",
        "import torch\ndef f(x, d):\n"
        "    t = torch.tensor(x).pin_memory()\n    return t.to(d, non_blocking=True)\n",
        # Made on the device.
        "import torch\ndef f(n, d):\n"
        "    t = torch.zeros(n, device=d)\n    return t.to(d, non_blocking=True)\n",
        # Where the source was made is not known here.
        "def f(t, d):\n    return t.to(d, non_blocking=True)\n",
        # Blocking.
        "import torch\ndef f(x, d):\n    return torch.tensor(x).to(d)\n",
        # A copy to the host.
        "import torch\ndef f(x):\n    return torch.tensor(x).to('cpu', non_blocking=True)\n",
        # Rebound through unpacking to what is not known here.
        "import torch\ndef f(x, d, g):\n    t = torch.tensor(x)\n    t, n = g()\n"
        "    return t.to(d, non_blocking=True)\n",
    )
    invalid = (
        Invalid(
            "import torch\ndef f(lengths, device):\n"
            "    indptr = torch.tensor(lengths, dtype=torch.int32)\n"
            "    return indptr.to(device, non_blocking=True)\n"
        ),
        Invalid(
            "import torch\nimport numpy as np\ndef f(a, out):\n"
            "    out.copy_(torch.from_numpy(np.asarray(a)), non_blocking=True)\n"
        ),
        # Host arithmetic on a `.cpu()` copy.
        Invalid(
            "import torch\ndef f(lens):\n    host = lens.cpu()\n"
            "    indptr = torch.cumsum(host, 0)\n"
            "    return indptr.cuda(non_blocking=True)\n"
        ),
        # Made by a helper of the module.
        Invalid(
            "import torch\ndef _lens(x):\n    return torch.tensor(x)\n"
            "def plan(x, device):\n"
            "    return _lens(x).to(device, non_blocking=True)\n"
        ),
        # Written into after it is made: the memory is still pageable.
        Invalid(
            "import torch\ndef plan(self, n, lens, non_blocking=True):\n"
            "    indptr = torch.zeros(n + 1, dtype=torch.int32, device='cpu')\n"
            "    indptr[1:] = torch.cumsum(lens, dim=0)\n"
            "    self.buf.copy_(indptr, non_blocking=non_blocking)\n"
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        model = ctx.model
        patterns = ctx.options.host_tensor_names
        host_names = (
            re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))
            if patterns
            else None
        )
        # Only functions whose lines hold a ``non_blocking`` keyword, and
        # only those with such a copy, are read further: where each
        # identifier is spelled as Python reads it (``ｎon_blocking`` is
        # ``non_blocking``), and the pre-filters are on. Within a function,
        # only the code spanning those rows can hold such a keyword (and its
        # call).
        text = ctx.text
        filtering = prefilter.enabled() and not prefilter.may_respell_ascii(text)
        rows: list[int] | None = None
        functions: Iterable[FunctionInfo] = model.functions
        if filtering:
            offsets = []
            position = text.find("non_blocking")
            while position >= 0:
                offsets.append(position)
                position = text.find("non_blocking", position + 1)
            rows = ctx.locator.row_of_each(offsets)
            functions = model.functions_spanning(rows)
        returns = _Returns(ctx, host_names, filtering)
        for info in functions:
            copies = [
                (node, source)
                for node in _own_nodes(info.node, rows)
                if isinstance(node, ast.Call)
                and _non_blocking(node)
                and (source := _copied_source(node)) is not None
            ]
            if not copies:
                continue
            rows_naming = _rows_naming(ctx, info.node) if filtering else None
            memory = _Memory(
                info.node, model.scope(info.node), host_names, rows_naming, returns
            )
            for node, source in copies:
                made = memory.made_pageable(source)
                if made is not None:
                    message = (
                        "Non-blocking copy from pageable host memory: the source "
                        f"{made} without `pin_memory=True`, so the copy is "
                        "synchronous"
                    )
                    yield ctx.report(self, node, message)


def _rows_naming(ctx: Context, function: ast.AST) -> Callable[[str], list[int]] | None:
    """The rows of ``function`` where a name may be written (for
    ``_Memory``), where its rows are ASCII; None: all of them."""
    first = function.lineno  # type: ignore[attr-defined]
    last = function.end_lineno or first  # type: ignore[attr-defined]
    if not _ascii_rows(ctx, first, last):
        return None

    def rows_naming(name: str) -> list[int]:
        return ctx.rows_naming(frozenset((name,)), first, last)

    return rows_naming


class _Returns:
    """What a call of one of the module's own functions returns, by its
    body: a module function called by name (``_make(...)``) or a method of
    the class called on the instance (``self._make(...)``), each one the
    summaries would read (a plain ``def``, bound once: ``ModuleSummaries``),
    and a method no other class of the module defines (an override might
    return other memory). Its result is pageable when every ``return``
    with a value gives pageable memory by the callee's own code (a path
    that returns ``None`` gives nothing a copy could read); a callee that
    calls back into one being read, or past ``MAX_DEPTH``, is not known."""

    MAX_DEPTH = 4

    def __init__(
        self, ctx: Context, host_names: re.Pattern[str] | None, filtering: bool
    ) -> None:
        self._ctx = ctx
        self._host_names = host_names
        self._filtering = filtering
        self._found: dict[ast.AST, tuple[str, str]] = {}
        self._reading: list[ast.AST] = []

    def callee(self, call: ast.Call, function: ast.AST) -> ast.AST | None:
        """The function of the module that ``call``, in ``function``, runs."""
        from lint_rules.analysis.summaries import module_summaries

        model = self._ctx.model
        func = call.func
        summaries = module_summaries(model)
        if isinstance(func, ast.Name):
            return summaries.module_function(func.id, model.scope(function))  # type: ignore[arg-type]
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return None
        info = model._info_of(function)  # type: ignore[arg-type]
        if info is None or info.cls is None or info.parent is not None:
            return None
        args = (*function.args.posonlyargs, *function.args.args)  # type: ignore[attr-defined]
        if not args or func.value.id != args[0].arg or function.decorator_list:  # type: ignore[attr-defined]
            return None
        scope = model.scope(function)  # type: ignore[arg-type]
        if any(
            not isinstance(binding, Argument)
            for binding in scope.bindings.get(func.value.id, ())
        ):
            return None  # (the instance parameter bound again)
        method = summaries.method(info.cls, func.attr)
        if method is None or any(
            other.node is not method and other.node.name == func.attr
            for other in model.functions
            if other.cls is not None and other.parent is None
        ):
            return None
        return method

    def returned(self, callee: ast.AST) -> tuple[str, str]:
        """(kind, how) of what ``callee`` returns."""
        found = self._found.get(callee)
        if found is not None:
            return found
        if callee in self._reading or len(self._reading) >= self.MAX_DEPTH:
            return UNKNOWN, ""
        self._reading.append(callee)
        try:
            found = self._read(callee)
        finally:
            self._reading.pop()
        if not self._reading:  # (an answer under a cut might differ)
            self._found[callee] = found
        return found

    def _read(self, callee: ast.AST) -> tuple[str, str]:
        ctx = self._ctx
        memory = _Memory(
            callee,
            ctx.model.scope(callee),  # type: ignore[arg-type]
            self._host_names,
            _rows_naming(ctx, callee) if self._filtering else None,
            self,
        )
        found = []
        for node in _own_nodes(callee):
            if isinstance(node, ast.Return) and node.value is not None:
                if isinstance(node.value, ast.Constant) and node.value.value is None:
                    continue
                kind, how = memory._memory(node.value, 0)
                if kind != PAGEABLE:
                    return UNKNOWN, ""
                found.append(how)
        if not found:
            return UNKNOWN, ""
        return PAGEABLE, found[0]


def _non_blocking(call: ast.Call) -> bool:
    """``non_blocking=`` anything but a literal false (a flag passed on,
    ``non_blocking=non_blocking``, asks for an asynchronous copy too)."""
    return any(
        keyword.arg == "non_blocking"
        and not (isinstance(keyword.value, ast.Constant) and not keyword.value.value)
        for keyword in call.keywords
    )


def _copied_source(call: ast.Call) -> ast.expr | None:
    """The tensor a host-to-device copy reads: the receiver of ``.to(device)``
    and ``.cuda()``, the first argument of ``copy_``."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "cuda":
        return func.value
    if func.attr == "copy_" and call.args:
        return call.args[0]
    if func.attr == "to":
        target = call.args[0] if call.args else None
        for keyword in call.keywords:
            if keyword.arg == "device":
                target = keyword.value
        if target is None or _is_cpu(target) or _is_dtype(target):
            return None
        return func.value
    return None


def _is_cpu(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str) and expr.value.split(":")[0] == "cpu"
    if isinstance(expr, ast.Call) and expr.args:
        return _is_cpu(expr.args[0])
    return False


def _is_dtype(expr: ast.expr) -> bool:
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
    name = ".".join(reversed(parts))
    return name.startswith("torch.") and not name.startswith("torch.device")


def _own_nodes(function: ast.AST, rows: list[int] | None = None) -> Iterator[ast.AST]:
    """The nodes of the function's own code (depth first, in source order),
    but the ``LEAF_TYPES`` ones (contexts, operators, constants: the callers
    look for calls, returns and bindings, which are none of them nor inside
    one); with ``rows`` (sorted), only those spanning one of them."""
    stack: list[ast.AST] = list(reversed(function.body))  # type: ignore[attr-defined]
    if rows is not None:
        stack = [node for node in stack if spans(node, rows)]
    leaves = LEAF_TYPES
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        yield node
        if rows is None:
            stack.extend(
                [
                    child
                    for child in reversed(child_nodes(node))
                    if type(child) not in leaves
                ]
            )
        else:
            stack.extend(
                [
                    child
                    for child in reversed(child_nodes(node))
                    if type(child) not in leaves and spans(child, rows)
                ]
            )


def _ascii_rows(ctx: Context, first: int, last: int) -> bool:
    """Whether the rows from ``first`` to ``last`` are ASCII (where a name is
    a maximal run of word characters)."""
    if ctx.text.isascii():
        return True
    locator = ctx.locator
    return ctx.text[locator.line_start(first) : locator.full_line_end(last)].isascii()


class _Memory:
    """What memory the values of one function were made in, as far as its
    own code shows (a local: every binding of it the same)."""

    def __init__(
        self,
        function: ast.AST,
        scope: object,
        host_names: re.Pattern[str] | None,
        rows_naming: Callable[[str], list[int]] | None = None,
        returns: _Returns | None = None,
    ) -> None:
        """``rows_naming(name)``: the sorted rows of the function where
        ``name`` may be written (a pre-filter; None: all of them);
        ``returns``: what calls of the module's own functions return."""
        self.scope = scope
        self.returns = returns
        self.host_names = host_names
        self.function = function
        self.rows_naming = rows_naming
        # Every name's bindings (one walk of the function), or each one's,
        # found on the rows naming it.
        self._all: dict[str, list[ast.expr | None]] | None = None
        self._of_name: dict[str, list[ast.expr | None] | None] = {}
        args = function.args  # type: ignore[attr-defined]
        self.params = {
            arg.arg for arg in args.posonlyargs + args.args + args.kwonlyargs
        }
        self._memo: dict[str, tuple[str, str]] = {}

    def bindings_of(self, name: str) -> list[ast.expr | None] | None:
        """The values bound to ``name`` in the function's own code, in
        source order (None: one that is not known, a loop target...); None
        for a name it never binds. A binding's statement spans the row of
        its target's name: the walk for one name looks at those rows only."""
        if self.rows_naming is None:
            if self._all is None:
                self._all = _bindings(self.function, None)
            return self._all.get(name)
        if name in self._of_name:
            return self._of_name[name]
        found = self._of_name[name] = _bindings(
            self.function, self.rows_naming(name)
        ).get(name)
        return found

    def made_pageable(self, expr: ast.expr) -> str | None:
        """How ``expr`` was made, when in pageable host memory (``was made by
        `torch.tensor(...)` at line 3``); None when pinned, on the device or
        not known."""
        kind, how = self._memory(expr, 0)
        return how if kind == PAGEABLE else None

    def _memory(self, expr: ast.expr | None, depth: int) -> tuple[str, str]:
        if expr is None or depth > 20:
            return UNKNOWN, ""
        if isinstance(expr, ast.Name):
            return self._memory_of_name(expr.id, depth)
        if isinstance(expr, ast.Attribute):
            if self._host_name(expr.attr):
                return HOST, ""
            return UNKNOWN, ""
        if isinstance(expr, ast.Subscript):
            return self._memory(expr.value, depth + 1)
        if isinstance(expr, ast.UnaryOp):
            return self._new(
                [self._memory(expr.operand, depth + 1)],
                f"was computed on the host at line {expr.lineno}",
            )
        if isinstance(expr, ast.BinOp):
            return self._new(
                [
                    self._memory(expr.left, depth + 1),
                    self._memory(expr.right, depth + 1),
                ],
                f"was computed on the host at line {expr.lineno}",
            )
        if isinstance(expr, ast.Call):
            return self._memory_of_call(expr, depth)
        return UNKNOWN, ""

    def _memory_of_name(self, name: str, depth: int) -> tuple[str, str]:
        memo = self._memo.get(name)
        if memo is not None:
            return memo
        self._memo[name] = (CYCLE, "")
        values = self.bindings_of(name)
        if not values or name in self.params:
            result = (HOST, "") if self._host_name(name) else (UNKNOWN, "")
        else:
            found = [self._memory(value, depth + 1) for value in values]
            found = [item for item in found if item[0] != CYCLE]
            if not found:
                result = (UNKNOWN, "")
            elif all(kind == PAGEABLE for kind, _ in found):
                result = (PAGEABLE, f"`{name}` {found[0][1]}")
            elif all(kind in _ON_HOST for kind, _ in found):
                result = (HOST, "")
            else:
                result = (UNKNOWN, "")
        self._memo[name] = result
        return result

    def _memory_of_call(self, call: ast.Call, depth: int) -> tuple[str, str]:
        func = call.func
        where = f"at line {call.lineno}"
        if isinstance(func, ast.Attribute):
            method = func.attr
            if method == "pin_memory":
                return PINNED, ""
            if method == "cpu" and not call.args:
                return PAGEABLE, f"was made by `.cpu()` {where}"
            if method == "to" and call.args and _is_cpu(call.args[0]):
                return PAGEABLE, f'was made by `.to("cpu")` {where}'
            if method == "to" and any(
                keyword.arg == "device" and _is_cpu(keyword.value)
                for keyword in call.keywords
            ):
                return PAGEABLE, f'was made by `.to("cpu")` {where}'
        qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
        if qualified == "torch.from_numpy":
            return PAGEABLE, f"was made by `torch.from_numpy` {where}"
        if qualified in _FACTORIES:
            for keyword in call.keywords:
                if keyword.arg == "pin_memory":
                    return PINNED if not _is_false(keyword.value) else UNKNOWN, ""
                if keyword.arg == "device" and not _is_cpu(keyword.value):
                    return UNKNOWN, ""
            return PAGEABLE, f"was made by `{qualified}(...)` {where}"
        if qualified is not None and qualified.startswith(_HOST_OPS_PREFIX):
            if any(
                keyword.arg in ("out", "device", "pin_memory")
                for keyword in call.keywords
            ):
                return UNKNOWN, ""
            tensors = list(call.args)
            if tensors and isinstance(tensors[0], (ast.List, ast.Tuple)):
                tensors = list(tensors[0].elts)
            return self._new(
                [self._memory(arg, depth + 1) for arg in tensors],
                f"was computed by `{qualified}` {where} on the host",
            )
        if qualified is None and self.returns is not None:
            callee = self.returns.callee(call, self.function)
            if callee is not None:
                kind, how = self.returns.returned(callee)
                if kind == PAGEABLE:
                    name = callee.name  # type: ignore[attr-defined]
                    if not how.startswith("`"):
                        how = f"its result {how}"
                    return PAGEABLE, (
                        f"was returned by `{name}()` {where}, where {how}"
                    )
                return UNKNOWN, ""
        if qualified is None and isinstance(func, ast.Attribute):
            if func.attr in _SELF_OR_VIEW_METHODS:
                if func.attr == "to" and (
                    any(keyword.arg == "device" for keyword in call.keywords)
                    or (call.args and not _is_dtype(call.args[0]))
                ):
                    return UNKNOWN, ""
                return self._memory(func.value, depth + 1)
            if func.attr in _NEW_TENSOR_METHODS:
                return self._new(
                    [self._memory(func.value, depth + 1)],
                    f"was computed by `.{func.attr}()` {where} on the host",
                )
        return UNKNOWN, ""

    def _host_name(self, name: str) -> bool:
        return self.host_names is not None and self.host_names.match(name) is not None

    @staticmethod
    def _new(found: list[tuple[str, str]], how: str) -> tuple[str, str]:
        """A new tensor computed from ``found``: in pageable host memory when
        a host tensor takes part (torch never pins a result; an operand on
        the device would make it fail, or be a Python value)."""
        kinds = [kind for kind, _ in found]
        if any(kind in _ON_HOST for kind in kinds):
            return PAGEABLE, how
        if kinds and all(kind == CYCLE for kind in kinds):
            return CYCLE, ""
        return UNKNOWN, ""


def _bindings(
    function: ast.AST, rows: list[int] | None
) -> dict[str, list[ast.expr | None]]:
    """Name -> the values bound to it by the function's own code (see
    ``_Memory.bindings_of``), in the code spanning ``rows`` (None: all)."""
    bindings: dict[str, list[ast.expr | None]] = {}
    bind = partial(_bind, bindings)
    for node in _own_nodes(function, rows):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                bind(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            if isinstance(node.target, ast.Name):
                value = node.value if not isinstance(node, ast.AugAssign) else None
                bindings.setdefault(node.target.id, []).append(value)
        elif isinstance(node, (ast.For, ast.comprehension, ast.With)):
            targets = (
                [item.optional_vars for item in node.items]
                if isinstance(node, ast.With)
                else [node.target]
            )
            for target in targets:
                if target is not None:
                    bind(target, None)
    return bindings


def _bind(
    bindings: dict[str, list[ast.expr | None]],
    target: ast.AST,
    value: ast.expr | None,
) -> None:
    """Record in ``bindings`` what assigning ``value`` to ``target`` binds.
    (A module function, not a closure: a recursive closure is a reference
    cycle, which workers without the cyclic collector would keep.)"""
    # An element unpacked from a value: not known. A subscript or an
    # attribute binds no name: it writes into an object, whose memory stays
    # what it was.
    if isinstance(target, ast.Name):
        bindings.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _bind(bindings, element, None)
    elif isinstance(target, ast.Starred):
        _bind(bindings, target.value, None)


def _is_false(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is False
