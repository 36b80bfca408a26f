"""ATN205 non-blocking-from-pageable."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from functools import partial

from lint_rules import prefilter
from lint_rules.analysis.hot_paths import GlobMatcher, _matcher
from lint_rules.analysis.nodes import LEAF_TYPES, child_nodes, spans
from lint_rules.analysis.scopes import Argument, Definition
from lint_rules.analysis.torch_api import HOST_FACTORIES
from lint_rules.context import Context
from lint_rules.diagnostics import Finding
from lint_rules.rules.base import Invalid, Rule

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from lint_rules.analysis.model import FunctionInfo
    from lint_rules.analysis.summaries import CallSite  # noqa: F401

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
#: A local's value computed from the local itself (``x = x.cumsum(0)``,
#: ``x = x * n``): the other bindings decide.
CYCLE = "cycle"
#: ``None``: nothing a copy could read (a copy from it raises).
NOTHING = "nothing"
_ON_HOST = frozenset({PAGEABLE, PINNED, HOST})
#: numpy functions whose result may be their argument or a view of it.
_NUMPY_VIEWS = frozenset(
    {
        "asarray",
        "asanyarray",
        "ascontiguousarray",
        "asfortranarray",
        "require",
        "frombuffer",
        "reshape",
        "ravel",
        "squeeze",
        "transpose",
        "expand_dims",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "broadcast_to",
        "moveaxis",
        "swapaxes",
        "lib.stride_tricks.as_strided",
        "ctypeslib.as_array",
    }
)
#: Comparisons that are not elementwise (their result is a Python bool).
_NOT_ELEMENTWISE = (ast.Is, ast.IsNot, ast.In, ast.NotIn)


#: Factories whose positional arguments are the sizes of the tensor.
_SIZED_FACTORIES = frozenset(
    {"torch.empty", "torch.zeros", "torch.ones", "torch.rand", "torch.randn"}
)


def _empty(qualified: str, call: ast.Call) -> bool:
    """Whether the factory ``call`` makes a tensor of no element, by its
    spelling: a size of literal 0 (`torch.zeros(0)`, `torch.empty((0, d))`,
    `torch.full((0,), v)`), or `torch.tensor([])` (`[[]]`: no number either)."""
    if qualified == "torch.tensor":
        return call.args != [] and _no_element(call.args[0])
    if qualified in _SIZED_FACTORIES:
        sizes = list(call.args)
    elif qualified == "torch.full":
        sizes = call.args[:1]
    else:
        return False
    sizes += [keyword.value for keyword in call.keywords if keyword.arg == "size"]
    if len(sizes) == 1 and isinstance(sizes[0], (ast.List, ast.Tuple)):
        sizes = list(sizes[0].elts)
    return any(
        type(size) is ast.Constant and type(size.value) is int and size.value == 0
        for size in sizes
    )


def _no_element(data: ast.expr) -> bool:
    """A list or tuple display of no number: empty, or of such displays
    only (``[]``, ``[[]]``, ``[(), ()]``)."""
    return isinstance(data, (ast.List, ast.Tuple)) and all(
        _no_element(element) for element in data.elts
    )


class NonBlockingFromPageable(Rule):
    """## What it does
    Checks for host-to-device copies asked to be asynchronous
    (`t.to(device, non_blocking=True)`, `t.cuda(non_blocking=True)`,
    `dst.copy_(t, non_blocking=True)`) whose source was made in host memory
    that is not pinned: a factory given no device and no `pin_memory=True`
    (`torch.tensor(lengths)`, `torch.zeros(n)`), `torch.from_numpy` of a new
    array (`np.cumsum(...)`), `torch.as_tensor` of a Python list (a display,
    or a name, slice or element that the function declares one: `ids:
    list[int]`, `gpu_ids: dict[str, list[int]]` then `gpu_ids[name]`), a `.cpu()` or `.to("cpu")` result, or host
    arithmetic on such a tensor (`torch.cat`, `+`, `t > 0`,
    `.to(torch.int32)`, `torch.cat` of a list of them), in the same function
    (on every path that binds the name to a tensor: `t = None` on another,
    or `a if c else b` with both such), returned by a function of the module
    that makes it so (`_lens(...)`, `self._host_indptr(...)`: every
    `return` of its body gives such memory), or passed as such by every
    call of a private function or method of the module, or of a nested
    function, whose parameter it is, or a private attribute every store of
    which in the module is such memory (`self._lens = torch.zeros(n)`).
    A copy of a factory of no element, made in the copy itself (a size of
    literal 0, `torch.zeros(0).to(device, non_blocking=True)`,
    `torch.empty((0, d))`, or `torch.tensor([])`), is not reported: it
    moves nothing and waits for nothing.

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
        # No element: nothing to copy.
        "import torch\ndef f(d):\n"
        "    a = torch.zeros(0, dtype=torch.int64).to(d, non_blocking=True)\n"
        "    b = torch.empty((0, 4)).to(d, non_blocking=True)\n"
        "    return a, b, torch.tensor([]).to(d, non_blocking=True)\n",
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
        # One branch is not known here.
        "import torch\ndef f(x, d, flag):\n"
        "    t = torch.tensor(x) if flag else x\n    return t.to(d, non_blocking=True)\n",
        # Computed from what is not known here.
        "def f(x, k, d):\n    t = x\n    t = t * k\n    return t.to(d, non_blocking=True)\n",
        # A list that gets what is not known here.
        "import torch\ndef f(x, d, more):\n    parts = [torch.tensor(x)]\n"
        "    parts.extend(more)\n    return torch.cat(parts).to(d, non_blocking=True)\n",
        # An array that may view pinned memory (`pinned.numpy()`).
        "import torch\ndef f(a, d):\n    return torch.from_numpy(a).to(d, non_blocking=True)\n",
        # An array may view pinned memory: `as_tensor` keeps it.
        "import torch\nimport numpy as np\ndef f(a: np.ndarray, d):\n"
        "    return torch.as_tensor(a).to(d, non_blocking=True)\n",
        # A public attribute: another module may set it.
        "import torch\nclass B:\n    def __init__(self, n):\n"
        "        self.lens = torch.zeros(n)\n"
        "    def step(self, out):\n        out.copy_(self.lens, non_blocking=True)\n",
        # A public function: another module may pass it pinned memory.
        "import torch\ndef upload(t, d):\n    return t.to(d, non_blocking=True)\n"
        "def plan(x, d):\n    return upload(torch.tensor(x), d)\n",
    )
    invalid = (
        # A size not known to be 0, or a list with an element.
        Invalid(
            "import torch\ndef f(n, d):\n"
            "    a = torch.zeros(n, 0 + 1).to(d, non_blocking=True)\n"
            "    return a, torch.tensor([0]).to(d, non_blocking=True)\n",
            count=2,
        ),
        # A list declared by its annotation: `as_tensor` copies it.
        Invalid(
            "import torch\ndef f(ids: dict[str, list[int]], device):\n"
            "    return torch.as_tensor(ids['k']).to(device, non_blocking=True)\n"
        ),
        Invalid(
            "import torch\ndef f(lengths, device):\n"
            "    indptr = torch.tensor(lengths, dtype=torch.int32)\n"
            "    return indptr.to(device, non_blocking=True)\n"
        ),
        Invalid(
            "import torch\nimport numpy as np\ndef f(a, out):\n"
            "    out.copy_(torch.from_numpy(np.array(a)), non_blocking=True)\n"
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
        # A mask compared on the host, on the path where it is not `None`.
        Invalid(
            "def f(lens_cpu, device):\n    active = None\n"
            "    if lens_cpu is not None:\n        active = lens_cpu > 0\n"
            "    if active is not None:\n"
            "        return active.to(device, non_blocking=True)\n"
        ),
        # Passed by every call of a helper (nested, or a private function or
        # method of the module).
        Invalid(
            "import torch\ndef plan(lengths, n, device):\n"
            "    def to_device(t):\n"
            "        return t.to(device, non_blocking=True)\n"
            "    return to_device(torch.tensor(lengths)), to_device(torch.zeros(n))\n"
        ),
        # A parameter replaced by a host copy before it is read.
        Invalid(
            "def plan(lens, device):\n    lens = lens.cpu()\n"
            "    return lens.to(device, non_blocking=True)\n"
        ),
        # A private attribute only ever set to pageable memory.
        Invalid(
            "import torch\nclass B:\n    def __init__(self, n):\n"
            "        self._lens = torch.zeros(n)\n"
            "    def step(self, out):\n        out.copy_(self._lens, non_blocking=True)\n"
        ),
        # Joined from a list of host tensors.
        Invalid(
            "import torch\ndef rows(starts, counts, device):\n    parts = []\n"
            "    for start, count in zip(starts, counts):\n"
            "        parts.append(torch.arange(start, start + count))\n"
            "    return torch.cat(parts).to(device, non_blocking=True)\n"
        ),
        # Either branch, then scaled on the host.
        Invalid(
            "import torch\ndef f(n, k, device):\n"
            "    indptr = torch.arange(n) if n else torch.zeros(1)\n"
            "    indptr = indptr * k\n"
            "    return indptr.to(device, non_blocking=True)\n"
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        model = ctx.model
        patterns = ctx.options.host_tensor_names
        host_names = _matcher(patterns) if patterns else None
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
            scope = model.scope(info.node)
            memory = _Memory(info.node, scope, host_names, rows_naming, returns)
            for node, source in copies:
                if type(source) is ast.Call and _empty(
                    scope.qualified_name(source.func) or "",  # type: ignore[attr-defined]
                    source,  # type: ignore[arg-type]
                ):
                    continue  # (no element: the copy moves nothing)
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
        self, ctx: Context, host_names: GlobMatcher | None, filtering: bool
    ) -> None:
        self._ctx = ctx
        self._host_names = host_names
        self._filtering = filtering
        # What a function returns, or a (function, parameter) receives.
        self._found: dict[object, tuple[str, str]] = {}
        self._reading: list[object] = []

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

    def parameter(self, function: ast.AST, name: str) -> tuple[str, str]:
        """(kind, how) of what parameter ``name`` of ``function`` receives:
        pageable when every call of the function the module holds (all of
        them: ``call_sites``) passes pageable memory or ``None``, by its
        caller's own code; not known where one passes what is not known,
        or leaves the parameter to a ``*args``."""
        key = (function, name)
        return self._ask(key, partial(self._receive, function, name))

    def _receive(self, function: ast.AST, name: str) -> tuple[str, str]:
        sites = self._call_sites(function)
        if not sites:
            return UNKNOWN, ""
        found = []
        for site in sites:
            argument = site.arguments.get(name)
            if argument is None or site.caller is None:
                return UNKNOWN, ""
            kind, how = self._memory(site.caller)._memory(argument, 0)
            if kind == NOTHING:
                continue
            if kind not in _ON_HOST:
                return UNKNOWN, ""
            found.append((kind, how, site.call.lineno))
        if not found or self._spelled_in_a_string(function):
            return UNKNOWN, ""
        if any(kind != PAGEABLE for kind, _, _ in found):
            return HOST, ""
        _, how, line = found[0]
        if not how.startswith("`"):
            how = f"the argument {how}"
        callee = function.name  # type: ignore[attr-defined]
        return (
            PAGEABLE,
            f"is what every call of `{callee}()` passes (line {line}: {how})",
        )

    def attribute(self, name: str) -> tuple[str, str]:
        """(kind, how) of what private attribute ``name`` holds: pageable
        when every store to ``<anything>.name`` in the module is a plain
        assignment in a function's own code of pageable memory (or
        ``None``), by that function's code; not known where one is made
        otherwise (unpacked, in a class body, ``setattr`` with a string
        that spells it), or of what is not known. (An attribute of another
        module's objects, or one another module sets, is public by PEP 8.)"""
        key = ("attribute", name)
        return self._ask(key, partial(self._stored, name))

    def _stored(self, name: str) -> tuple[str, str]:
        ctx = self._ctx
        model = ctx.model
        rows: list[int] | None = None
        if self._filtering:
            # (The rows where the text spells the name, as a word or not.)
            text = ctx.text
            offsets = []
            position = text.find(name)
            while position >= 0:
                offsets.append(position)
                position = text.find(name, position + len(name))
            rows = sorted(set(ctx.locator.row_of_each(offsets)))
        functions = (
            model.functions_spanning(rows) if rows is not None else model.functions
        )
        found = []
        stores = 0
        for info in functions:
            for node in _own_nodes(info.node, rows):
                if isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = (
                        node.targets if isinstance(node, ast.Assign) else [node.target]
                    )
                    if not any(
                        isinstance(target, ast.Attribute) and target.attr == name
                        for target in targets
                    ):
                        continue
                    if len(targets) != 1 or node.value is None:
                        return UNKNOWN, ""
                    stores += 1
                    kind, how = self._memory(info.node)._memory(node.value, 0)
                    if kind == NOTHING:
                        continue
                    if kind not in _ON_HOST:
                        return UNKNOWN, ""
                    found.append((kind, how, node.lineno))
        if not found:
            return UNKNOWN, ""
        stores -= sum(
            1
            for node in _all_nodes(model.tree, rows)
            if isinstance(node, ast.Attribute)
            and node.attr == name
            and isinstance(node.ctx, ast.Store)
        )
        if stores:
            return UNKNOWN, ""  # (stored some other way, or somewhere else)
        from lint_rules.analysis.summaries import module_summaries

        if module_summaries(model).spelled_in_a_string(name):
            return UNKNOWN, ""
        if any(kind != PAGEABLE for kind, _, _ in found):
            return HOST, ""
        _, how, line = found[0]
        if not how.startswith("`"):
            how = f"the value {how}"
        return PAGEABLE, f"is set only to pageable memory (line {line}: {how})"

    def _spelled_in_a_string(self, function: ast.AST) -> bool:
        """Whether a module function or method's name is spelled in a
        string, where ``getattr(obj, "_m")(...)`` may call it too (asked
        last: it reads every string of the module)."""
        from lint_rules.analysis.summaries import module_summaries

        model = self._ctx.model
        info = model._info_of(function)  # type: ignore[arg-type]
        if info is not None and info.parent is not None:
            return False  # (a nested function: only its own scope names it)
        name = function.name  # type: ignore[attr-defined]
        return module_summaries(model).spelled_in_a_string(name)

    def _memory(self, function: ast.AST) -> _Memory:
        ctx = self._ctx
        return _Memory(
            function,
            ctx.model.scope(function),  # type: ignore[arg-type]
            self._host_names,
            _rows_naming(ctx, function) if self._filtering else None,
            self,
        )

    def _call_sites(self, function: ast.AST) -> list[CallSite] | None:
        """Every call of ``function`` (None: not all known): a private
        function or method of the module (``ModuleSummaries.call_sites``),
        or a function nested in another whose every mention of its name is
        a call in that one's own code."""
        from lint_rules.analysis.summaries import (
            CallSite,
            bind_arguments,
            module_summaries,
        )

        model = self._ctx.model
        info = model._info_of(function)  # type: ignore[arg-type]
        if info is None:
            return None
        if info.parent is None:
            return module_summaries(model).call_sites(function)  # type: ignore[arg-type]
        outer = info.parent.node
        name = function.name  # type: ignore[attr-defined]
        bindings = model.scope(outer).bindings.get(name, ())
        if (
            len(bindings) != 1
            or not isinstance(bindings[0], Definition)
            or bindings[0].node is not function
            or function.decorator_list  # type: ignore[attr-defined]
        ):
            return None
        calls = [
            node
            for node in _own_nodes(outer)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == name
        ]
        mentions = sum(
            1
            for node in ast.walk(outer)
            if isinstance(node, ast.Name) and node.id == name
        )
        if mentions != len(calls):
            return None  # (stored, passed on, or called from elsewhere)
        return [
            CallSite(outer, call, bind_arguments(function, call, False))  # type: ignore[arg-type]
            for call in calls
        ]

    def _ask(
        self, key: object, answer: Callable[[], tuple[str, str]]
    ) -> tuple[str, str]:
        """``answer()`` for the question ``key``, kept once no question is
        being answered around it (an answer under a cut might differ); not
        known for a question met again while it is being answered, or
        beyond ``MAX_DEPTH``."""
        found = self._found.get(key)
        if found is not None:
            return found
        if key in self._reading or len(self._reading) >= self.MAX_DEPTH:
            return UNKNOWN, ""
        self._reading.append(key)
        try:
            found = answer()
        finally:
            self._reading.pop()
        if not self._reading:
            self._found[key] = found
        return found

    def returned(self, callee: ast.AST) -> tuple[str, str]:
        """(kind, how) of what ``callee`` returns."""
        return self._ask(callee, partial(self._read, callee))

    def _read(self, callee: ast.AST) -> tuple[str, str]:
        memory = self._memory(callee)
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
        host_names: GlobMatcher | None,
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
        self._replacements: dict[str, ast.stmt | None] = {}
        self._lists: set[str] = set()  # (the lists being read)
        self._annotations: dict[str, ast.expr | None] | None = None
        # The names being read (outermost first), and the lowest level of
        # one of them read again below the name being read.
        self._reading: list[str] = []
        self._lowest = 0

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
            return self._memory_of_name(self._key(expr), expr.id, depth)
        if isinstance(expr, ast.Attribute):
            kind, how = UNKNOWN, ""
            if self.returns is not None and _private(expr.attr):
                kind, how = self.returns.attribute(expr.attr)
                if kind == PAGEABLE:
                    return PAGEABLE, f"`.{expr.attr}` {how}"
            if self._host_name(expr.attr):
                return HOST, ""
            return (kind, "") if kind in _ON_HOST else (UNKNOWN, "")
        if isinstance(expr, ast.Subscript):
            return self._memory(expr.value, depth + 1)
        if isinstance(expr, ast.Constant) and expr.value is None:
            return NOTHING, ""
        if isinstance(expr, ast.IfExp):
            kind, how = _either(
                [
                    self._memory(expr.body, depth + 1),
                    self._memory(expr.orelse, depth + 1),
                ]
            )
            return kind, how
        if isinstance(expr, ast.Compare):
            # (``t > 0`` is a new tensor; ``t is None``, ``x in t`` are not.)
            if any(isinstance(op, _NOT_ELEMENTWISE) for op in expr.ops):
                return UNKNOWN, ""
            return self._new(
                [
                    self._memory(operand, depth + 1)
                    for operand in (expr.left, *expr.comparators)
                ],
                f"was computed on the host at line {expr.lineno}",
            )
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

    def _array_memory(self, expr: ast.expr | None, depth: int) -> tuple[str, str]:
        """What memory a numpy array (or a tensor, or a list) that
        ``torch.from_numpy`` or ``torch.as_tensor`` is given lies in: new
        pageable memory for a list and for what a ``numpy`` function makes
        (``np.array``, ``np.arange``, ``np.cumsum``...); the memory of the
        array or tensor it views for ``np.asarray``-like views and
        ``t.numpy()`` (a pinned tensor's array is pinned memory); a local's
        every binding's; not known otherwise."""
        if expr is None or depth > 20:
            return UNKNOWN, ""
        if isinstance(expr, (ast.List, ast.Tuple, ast.ListComp)):
            return PAGEABLE, ""
        if self._declared_list(expr):
            return PAGEABLE, ""
        if isinstance(expr, ast.Name):
            values = self.bindings_of(expr.id)
            if values and expr.id not in self.params:
                kind, _ = _either(
                    [self._array_memory(value, depth + 1) for value in values]
                )
                if kind != UNKNOWN:
                    return kind, ""
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Attribute) and func.attr == "numpy":
                return self._memory(func.value, depth + 1)
            qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
            if qualified is not None and qualified.startswith("numpy."):
                if qualified[len("numpy.") :] in _NUMPY_VIEWS:
                    kind, _ = self._array_memory(
                        expr.args[0] if expr.args else None, depth + 1
                    )
                    return (kind, "") if kind in _ON_HOST else (UNKNOWN, "")
                return PAGEABLE, ""
        return self._memory(expr, depth + 1)

    def _declared_list(self, expr: ast.expr) -> bool:
        """Whether ``expr`` is a Python list or tuple by what the function
        declares (which a tensor or an array never is: ``torch.as_tensor``
        copies it into new memory): a name annotated so (``ids:
        list[int]``, a parameter's or a local's), a slice of one, or an
        element of a name whose annotation holds such values (``gpu_ids:
        dict[str, list[int]]``, ``rows: list[list[int]]``)."""
        if isinstance(expr, ast.Name):
            return _list_annotation(self._annotation(expr.id))
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
            annotation = self._annotation(expr.value.id)
            if isinstance(expr.slice, ast.Slice):
                return _list_annotation(annotation)
            return _list_annotation(_value_annotation(annotation))
        return False

    def _annotation(self, name: str) -> ast.expr | None:
        """The annotation of the local or parameter ``name`` (the one it is
        given; none where several differ)."""
        found = self._annotations
        if found is None:
            found = self._annotations = {}
            args = self.function.args  # type: ignore[attr-defined]
            for arg in (
                *args.posonlyargs,
                *args.args,
                *args.kwonlyargs,
                args.vararg,
                args.kwarg,
            ):
                if arg is not None and arg.annotation is not None:
                    # (``*args: list[int]`` is a tuple of lists.)
                    if arg is args.vararg or arg is args.kwarg:
                        found[arg.arg] = None
                    else:
                        found[arg.arg] = arg.annotation
            # A name bound otherwise too (``ids = torch.tensor(ids,
            # pin_memory=True)``) may hold what that binding gives: its
            # annotation is no longer what it holds.
            annotated: set[int] = set()
            rebound: set[str] = set()
            for node in _own_nodes(self.function):
                if isinstance(node, ast.AnnAssign) and isinstance(
                    node.target, ast.Name
                ):
                    annotated.add(id(node.target))
                    name_ = node.target.id
                    if name_ not in found:
                        found[name_] = node.annotation
                    elif found[name_] is None or ast.dump(found[name_]) != ast.dump(
                        node.annotation
                    ):
                        found[name_] = None
                elif isinstance(node, ast.Name):
                    if type(node.ctx) is not ast.Load and id(node) not in annotated:
                        rebound.add(node.id)
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    rebound.update(
                        (alias.asname or alias.name).partition(".")[0]
                        for alias in node.names
                    )
                elif isinstance(node, ast.ExceptHandler) and node.name:
                    rebound.add(node.name)
            for name_ in rebound:
                if name_ in found:
                    found[name_] = None
        return found.get(name)

    def _memory_of_list(self, name: str, depth: int) -> tuple[str, str]:
        """On the host when ``name`` is a local list (or tuple) every element
        of which, wherever it is put in, is a host tensor: a display
        (``[a, b]``, a comprehension) bound to it, or what ``.append``,
        ``.insert`` and ``.extend([...])`` put in; and the function reads it
        nowhere else but as the argument of a ``torch`` function or of
        ``len``, a truth test or a loop's iterable (where nothing is put
        in). Not known otherwise."""
        values = self.bindings_of(name)
        if not values or name in self.params or name in self._lists:
            return UNKNOWN, ""
        self._lists.add(name)
        try:
            return self._memory_of_elements(name, values, depth)
        finally:
            self._lists.discard(name)

    def _memory_of_elements(
        self, name: str, values: list[ast.expr | None], depth: int
    ) -> tuple[str, str]:
        elements: list[ast.expr] = []
        for value in values:
            if isinstance(value, (ast.List, ast.Tuple)):
                elements.extend(value.elts)
            elif isinstance(value, ast.ListComp):
                elements.append(value.elt)
            else:
                return UNKNOWN, ""
        rows = self.rows_naming(name) if self.rows_naming is not None else None
        reads = 0
        for node in _all_nodes(self.function, rows):
            if isinstance(node, ast.Name) and node.id == name:
                if not isinstance(node.ctx, ast.Store):
                    reads += 1
                continue
            read = _read_without_adding(node, name, self.scope)
            if read is None:
                added = _added(node, name)
                if added is None:
                    continue
                if added is False:
                    return UNKNOWN, ""
                elements.extend(added)
            reads -= 1
        if reads or not elements:
            return UNKNOWN, ""  # (read, or changed, some other way)
        kind, _ = _either([self._memory(element, depth + 1) for element in elements])
        if kind not in _ON_HOST:
            return UNKNOWN, ""
        return HOST, ""

    def _key(self, node: ast.Name) -> str:
        """The name ``node`` reads, marked where it reads a parameter after
        the statement that replaces it (``_replacement``)."""
        name = node.id
        if name not in self.params:
            return name
        statement = self._replacements.get(name, False)
        if statement is False:
            statement = self._replacements[name] = self._replacement(name)
        if statement is not None and (node.lineno, node.col_offset) > (
            statement.end_lineno,  # type: ignore[attr-defined]
            statement.end_col_offset,  # type: ignore[attr-defined]
        ):
            return f"{name} (replaced)"
        return name

    def _memory_of_name(self, key: str, name: str, depth: int) -> tuple[str, str]:
        memo = self._memo.get(key)
        if memo is not None:
            if memo[0] == CYCLE:
                # (A value read while the name's own bindings are read: what
                # it is depends on them. A name read below it that sees it
                # is not known until it is.)
                self._lowest = min(self._lowest, self._reading.index(key))
            return memo
        self._memo[key] = (CYCLE, "")
        level = len(self._reading)
        self._reading.append(key)
        outer, self._lowest = self._lowest, level
        try:
            if name in self.params and all(
                isinstance(binding, Argument)
                for binding in self.scope.bindings.get(name, ())  # type: ignore[attr-defined]
            ):
                values = []  # (a parameter the function never binds again)
            else:
                values = self.bindings_of(name) or []
            found = [self._memory(value, depth + 1) for value in values]
            # (Read after the body's ``name = ...`` that replaces it, a
            # parameter is no longer what the caller passed.)
            incoming = name in self.params and key == name
            if incoming:
                found.insert(0, self._received(name))
            kind, how = _either(found)
            if kind == UNKNOWN and self._host_name(name):
                # (A parameter or a name bound elsewhere: its name says.)
                if not values or incoming:
                    kind = HOST
            result = (kind, f"`{name}` {how}" if kind == PAGEABLE else "")
        finally:
            self._reading.pop()
            lowest, self._lowest = self._lowest, min(outer, self._lowest)
        if lowest < level:
            # Read while a name it depends on was being read: what it is
            # holds only if that name is what it was taken to be.
            del self._memo[key]
        else:
            self._memo[key] = result
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
        if qualified == "torch.from_numpy" or qualified == "torch.as_tensor":
            # (The array's own memory, or the tensor itself: what it is
            # decides. A list is copied into new memory.)
            if any(
                keyword.arg == "device" and not _is_cpu(keyword.value)
                for keyword in call.keywords
            ):
                return UNKNOWN, ""
            kind, _ = self._array_memory(call.args[0] if call.args else None, depth)
            if kind == PAGEABLE:
                return PAGEABLE, f"was made by `{qualified}` {where}"
            return (HOST, "") if kind in _ON_HOST else (UNKNOWN, "")
        if qualified in _FACTORIES:
            for keyword in call.keywords:
                if keyword.arg == "pin_memory" and not _is_false(keyword.value):
                    return PINNED, ""
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
            elif tensors and isinstance(tensors[0], (ast.ListComp, ast.GeneratorExp)):
                tensors[0] = tensors[0].elt
            found = [self._memory(arg, depth + 1) for arg in tensors]
            if found and found[0][0] == UNKNOWN and isinstance(tensors[0], ast.Name):
                found[0] = self._memory_of_list(tensors[0].id, depth)
            return self._new(
                found, f"was computed by `{qualified}` {where} on the host"
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

    def _replacement(self, name: str) -> ast.stmt | None:
        """The first ``name = value`` that is a statement of the function's
        body (not nested in a block or a loop: the code after it runs after
        it, once): what the caller passed as parameter ``name`` reaches no
        code after it. None where there is none."""
        body = self.function.body  # type: ignore[attr-defined]
        first: ast.stmt | None = None
        for binding in self.scope.bindings.get(name, ()):  # type: ignore[attr-defined]
            statement = binding.node
            if (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and any(statement is top for top in body)
                and (
                    first is None
                    or (statement.lineno, statement.col_offset)
                    < (first.lineno, first.col_offset)
                )
            ):
                first = statement
        return first

    def _received(self, name: str) -> tuple[str, str]:
        """What parameter ``name`` receives from the calls of the function."""
        if self.returns is None:
            return UNKNOWN, ""
        return self.returns.parameter(self.function, name)

    def _host_name(self, name: str) -> bool:
        return self.host_names is not None and self.host_names.match(name) is not None

    @staticmethod
    def _new(found: list[tuple[str, str]], how: str) -> tuple[str, str]:
        """A new tensor computed from ``found``: in pageable host memory when
        a host tensor takes part (torch never pins a result; an operand on
        the device would make it fail, or be a Python value). Computed from
        a name being read (``x = x * n``): on the host when that name is."""
        kinds = [kind for kind, _ in found]
        if any(kind in _ON_HOST for kind in kinds):
            return PAGEABLE, how
        if CYCLE in kinds:
            return CYCLE, ""
        return UNKNOWN, ""


def _either(found: list[tuple[str, str]]) -> tuple[str, str]:
    """What a value that is one of ``found`` is (a local's bindings, the
    branches of ``a if c else b``): pageable when each is, on the host when
    each is; a ``None`` (nothing a copy reads) and a value computed from the
    name being read (its other values decide) do not count."""
    found = [item for item in found if item[0] != CYCLE and item[0] != NOTHING]
    if not found:
        return UNKNOWN, ""
    if all(kind == PAGEABLE for kind, _ in found):
        return PAGEABLE, found[0][1]
    if all(kind in _ON_HOST for kind, _ in found):
        return HOST, ""
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


def _all_nodes(function: ast.AST, rows: list[int] | None) -> Iterator[ast.AST]:
    """The nodes of the function's (or module's) body, nested scopes
    included; with ``rows`` (sorted), only those spanning one of them."""
    stack: list[ast.AST] = list(reversed(function.body))  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if rows is not None and not spans(node, rows):
            continue
        yield node
        stack.extend(reversed(child_nodes(node)))


def _added(node: ast.AST, name: str) -> list[ast.expr] | bool | None:
    """What a call ``name.append(x)`` (``.insert(i, x)``,
    ``.extend([x, y])``) puts in list ``name``; False for another method
    of ``name``, or a form whose elements are not seen; None for another
    node."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == name
    ):
        return None
    method, args = node.func.attr, node.args
    if node.keywords or any(isinstance(arg, ast.Starred) for arg in args):
        return False
    if method == "append" and len(args) == 1:
        return [args[0]]
    if method == "insert" and len(args) == 2:
        return [args[1]]
    if method == "extend" and len(args) == 1:
        if isinstance(args[0], (ast.List, ast.Tuple)):
            return list(args[0].elts)
    return False


def _read_without_adding(node: ast.AST, name: str, scope: object) -> bool | None:
    """True where ``node`` reads list ``name`` in a way that changes
    nothing in it (a ``torch`` function's or ``len``'s argument, a truth
    test, a loop's iterable); None for another node."""

    def named(expr: ast.AST) -> bool:
        return isinstance(expr, ast.Name) and expr.id == name

    if isinstance(node, ast.Call):
        if not any(named(arg) for arg in node.args):
            return None
        func = node.func
        if isinstance(func, ast.Name) and func.id == "len":
            return True if scope.is_builtin("len") else None  # type: ignore[attr-defined]
        qualified = scope.qualified_name(func)  # type: ignore[attr-defined]
        if qualified is not None and qualified.startswith(_HOST_OPS_PREFIX):
            return True
        return None
    if isinstance(node, (ast.If, ast.While, ast.IfExp)) and named(node.test):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True if named(node.operand) else None
    if isinstance(node, (ast.For, ast.comprehension)) and named(node.iter):
        return True
    return None


#: Annotations of Python lists and tuples (``list[int]``, ``List[int]``).
_LIST_TYPES = frozenset({"list", "List", "tuple", "Tuple"})
#: Containers whose last subscript is the type of their values.
_CONTAINER_TYPES = frozenset(
    {
        "dict",
        "Dict",
        "defaultdict",
        "DefaultDict",
        "OrderedDict",
        "Mapping",
        "MutableMapping",
        "list",
        "List",
        "Sequence",
        "MutableSequence",
    }
)


def _annotation_head(annotation: ast.expr | None) -> str | None:
    node = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr  # (``typing.List``)
    return None


def _list_annotation(annotation: ast.expr | None) -> bool:
    """``list[...]``, ``List[int]``, ``tuple[int, ...]``, bare or
    subscripted (not ``Optional``: it may be None, which is no memory)."""
    return _annotation_head(annotation) in _LIST_TYPES


def _value_annotation(annotation: ast.expr | None) -> ast.expr | None:
    """The type of the values of a container annotation (``dict[str,
    list[int]]`` -> ``list[int]``); None when not one."""
    if not isinstance(annotation, ast.Subscript):
        return None
    if _annotation_head(annotation) not in _CONTAINER_TYPES:
        return None
    index = annotation.slice
    if isinstance(index, ast.Tuple):
        return index.elts[-1] if index.elts else None
    return index


def _private(name: str) -> bool:
    """A name PEP 8 marks as internal: one leading underscore, not a dunder."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_false(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is False
