"""ATN102 zeros-persistent-buffer."""

from __future__ import annotations

import ast
import bisect
import fnmatch
import re
from collections.abc import Callable, Iterator

from lint_rules.analysis.model import FunctionNode, ModuleModel
from lint_rules.analysis.nodes import child_nodes
from lint_rules.analysis.nodes import walk as walk_nodes
from lint_rules.analysis.scopes import Scope
from lint_rules.analysis.tensor_effects import (
    Allocation,
    Detail,
    UseEffect,
    allocation_of,
    context_effect,
    literal_zero,
    own_statements,
)
from lint_rules.context import Context
from lint_rules.diagnostics import Applicability, Finding
from lint_rules.fixes.empty import EmptyRewriter
from lint_rules.records import Record
from lint_rules.rules.base import Invalid, Rule

#: The key of a buffer held directly by the attribute (``self.x``).
_WHOLE = object()
#: The key of a buffer stored under a key the analysis cannot name (``self.x[k]``).
_UNNAMED = object()

_CONFIRM = (
    "confirm with the poisoning plugin (pytest --attnlint-poison) before applying"
)


class Buffer(Record):
    """A zero-filled allocation stored into persistent state: ``attribute``
    is ``x`` of ``self.x``, ``key`` _WHOLE, _UNNAMED, or the constant key or
    index under ``self.x``."""

    __slots__ = ("attribute", "key", "allocation")
    _fields = __slots__

    def __init__(self, attribute: str, key: object, allocation: Allocation) -> None:
        self.attribute = attribute
        self.key = key
        self.allocation = allocation

    @property
    def name(self) -> str:
        """The name views of the buffer go by: its key, or its attribute."""
        return self.key if isinstance(self.key, str) else self.attribute

    @property
    def display(self) -> str:
        if self.key is _WHOLE:
            return f"self.{self.attribute}"
        if self.key is _UNNAMED:
            return f"self.{self.attribute}[...]"
        if isinstance(self.key, str):
            escaped = self.key.replace("\\", "\\\\").replace('"', '\\"')
            return f'self.{self.attribute}["{escaped}"]'
        return f"self.{self.attribute}[{self.key!r}]"


class BufferUse(Record):
    """A use of a buffer in some method of the class, and what it does."""

    __slots__ = ("node", "method", "effect", "detail")
    _fields = __slots__

    def __init__(
        self, node: ast.AST, method: FunctionNode, effect: UseEffect, detail: Detail
    ) -> None:
        self.node = node
        self.method = method
        self.effect = effect
        self.detail = detail

    @property
    def is_write(self) -> bool:
        return self.effect is UseEffect.FULL_WRITE

    @property
    def verb(self) -> str:
        if self.effect is UseEffect.READ:
            return "read"
        if self.is_write:
            return "written"
        return self.detail.value or "used"


class ZerosPersistentBuffer(Rule):
    """## What it does
    Checks for zero-filled allocations stored into persistent state
    (`self.x = ...`, a dict or list literal or comprehension assigned to
    `self.x`, `self.x[k] = ...`, a zero-filled local that ends up there,
    such as `buf` in `self.x = [buf] + [buf.clone() for _ in range(n)]`)
    inside a CUDA-graph state setup method such as `init_cuda_graph_state`.

    It stays silent where the class visibly needs the zeros on every
    replay: a buffer that some write of the class fills only from a fixed
    offset (`self.cu_seqlens_k[1 : bs + 1].copy_(...)`,
    `torch.cumsum(x, 0, out=kv_indptr[1:])`) keeps its head at zero, which
    the kernels read (element 0 of an indptr). Views of a buffer go by its
    name across the class (`kv_indptr = self.kv_indptr`,
    `metadata.cu_seqlens_k = self.meta["cu_seqlens_k"][: bs + 1]`).

    The allocators are `torch.zeros`, `torch.zeros_like`, `Tensor.new_zeros`,
    and `torch.full` / `torch.full_like` / `Tensor.new_full` with a literal
    zero. Which methods set up graph state is configurable.

    When the analysis sees the buffer used elsewhere in the class before any
    write, the message names that first use (in source order): for example a
    capture-time gather `self.meta["page_table"][req_pool_indices, :]` that
    reads the buffer. The buffer is the attribute (`self.x`), or the attribute
    and a constant key (`self.meta["page_table"]`), also through a local alias
    of the dict (`m = self.meta; m["page_table"]`).

    ## Why is this bad?
    Graph-state buffers are allocated once, at their maximum size, and each
    replay writes the part it needs. Zero-filling them costs start-up time and
    a memory pass per buffer, and the zeros are only needed if some replay (or
    the capture) reads an element that no replay wrote. Whether that happens
    depends on the rest of the backend, which is why the rewrite to
    `torch.empty` is offered as an unsafe fix: run the test suite with
    uninitialized memory poisoned (`pytest --attnlint-poison`) to confirm.
    The cost is paid at start-up (once per graph-state setup), not per step.

    ## Example
    ```python
    class Backend:
        def init_cuda_graph_state(self, max_bs):
            self.decode_metadata = {
                "cache_seqlens": torch.zeros(max_bs, dtype=torch.int32),
            }
    ```

    ## Use instead
    ```python
    class Backend:
        def init_cuda_graph_state(self, max_bs):
            self.decode_metadata = {
                "cache_seqlens": torch.empty(max_bs, dtype=torch.int32),
            }
    ```

    ## Fix safety
    The fix is unsafe: whether every element is written before it is read
    depends on capture and replay code that the analysis cannot follow. It is
    the same rewrite as ATN101 (`zeros` -> `empty`, `zeros_like` ->
    `empty_like`, `new_zeros` -> `new_empty`, `full` -> `empty` without the
    fill value, and the dtype `full` inferred from it), applied only with
    `--unsafe-fixes`. A `dtype` that may be None, or a size that may be an
    integer, is one more thing the test run has to confirm (see ATN101).

    ## Options
    - `graph-state-methods` (glob patterns of method names; default
      `init_cuda_graph_state`, `init_cuda_graph_batch_info`,
      `init_cuda_graph_moe_buffers` of SGLang and `graph_capture` of vLLM's
      attention state)
    """

    code = "ATN102"
    name = "zeros-persistent-buffer"
    triggers = ("zeros", "full")
    fix_availability = "unsafe"
    severity = "warning"

    valid = (
        # Not a graph-state setup method.
        "import torch\nclass B:\n    def __init__(self, n):\n        self.buf = torch.zeros(n)\n",
        "import torch\nclass B:\n    def forward(self, n):\n        self.buf = torch.zeros(n)\n",
        # Not stored persistently: a local.
        "import torch\nclass B:\n    def init_cuda_graph_state(self, n):\n        buf = torch.zeros(n)\n"
        "        self.use(buf)\n",
        # Not zero-filled.
        "import torch\nclass B:\n    def init_cuda_graph_state(self, n):\n        self.buf = torch.ones(n)\n"
        "        self.idx = torch.arange(n)\n        self.tmp = torch.empty(n)\n",
        "import torch\nclass B:\n    def init_cuda_graph_state(self, n):\n        self.buf = torch.full((n,), -1)\n",
        # Stored on another object.
        "import torch\nclass B:\n    def init_cuda_graph_state(self, other, n):\n        other.buf = torch.zeros(n)\n",
        # numpy.
        "import numpy as np\nclass B:\n    def init_cuda_graph_state(self, n):\n        self.buf = np.zeros(n)\n",
        # Not a method.
        "import torch\ndef init_cuda_graph_state(state, n):\n    state.buf = torch.zeros(n)\n",
        # Nested inside a call, not a dict or list literal.
        "import torch\nclass B:\n    def init_cuda_graph_state(self, n):\n        self.info = Info(lens=torch.zeros(n))\n",
        # Replays write only from an offset: element 0 must stay 0.
        "import torch\nclass B:\n    def init_cuda_graph_state(self, n):\n"
        "        self.cu_seqlens = torch.zeros(n + 1)\n"
        "    def replay(self, bs, lens):\n        self.cu_seqlens[1 : bs + 1].copy_(lens.cumsum(0))\n",
        "import torch\nclass B:\n    def init_cuda_graph_state(self, n):\n"
        "        self.meta = {'kv_indptr': torch.zeros(n + 1)}\n"
        "    def replay(self, lens):\n        kv_indptr = self.meta['kv_indptr']\n"
        "        torch.cumsum(lens, 0, out=kv_indptr[1:])\n",
    )
    invalid = (
        Invalid(
            "import torch\n\nclass Backend:\n    def init_cuda_graph_state(self, max_bs):\n"
            "        self.seq_lens = torch.zeros(max_bs, dtype=torch.int32)\n",
            fixed="import torch\n\nclass Backend:\n    def init_cuda_graph_state(self, max_bs):\n"
            "        self.seq_lens = torch.empty(max_bs, dtype=torch.int32)\n",
        ),
        Invalid(
            "import torch\n\nclass Backend:\n    def init_cuda_graph_state(self, max_bs, n):\n"
            "        self.meta = {\n"
            '            "page_table": torch.zeros(max_bs, n, dtype=torch.int32),\n'
            '            "strided": torch.arange(0, n),\n'
            '            "cu_seqlens": torch.full((max_bs + 1,), 0, dtype=torch.int32),\n'
            "        }\n\n"
            "    def capture(self, rows):\n"
            '        return self.meta["page_table"][rows, :]\n',
            fixed="import torch\n\nclass Backend:\n    def init_cuda_graph_state(self, max_bs, n):\n"
            "        self.meta = {\n"
            '            "page_table": torch.empty(max_bs, n, dtype=torch.int32),\n'
            '            "strided": torch.arange(0, n),\n'
            '            "cu_seqlens": torch.empty((max_bs + 1,), dtype=torch.int32),\n'
            "        }\n\n"
            "    def capture(self, rows):\n"
            '        return self.meta["page_table"][rows, :]\n',
            count=2,
        ),
        Invalid(
            "from torch import zeros_like\n\nclass Backend:\n"
            "    def init_cuda_graph_state(self, template):\n"
            "        self.bufs = [zeros_like(template), zeros_like(template)]\n"
            '        self.slots["k"] = template.new_zeros(4)\n',
            fixed="from torch import empty_like, zeros_like\n\nclass Backend:\n"
            "    def init_cuda_graph_state(self, template):\n"
            "        self.bufs = [empty_like(template), empty_like(template)]\n"
            '        self.slots["k"] = template.new_empty(4)\n',
            count=3,
        ),
        # Comprehensions, and a zero-filled local that ends up in state.
        Invalid(
            "import torch\n\nclass Backend:\n    def init_cuda_graph_state(self, n, k):\n"
            "        buf = torch.zeros(n, dtype=torch.int32)\n"
            "        self.kv_indices = [buf] + [buf.clone() for _ in range(k)]\n"
            "        self.lens = [torch.zeros(n) for _ in range(k)]\n",
            fixed="import torch\n\nclass Backend:\n    def init_cuda_graph_state(self, n, k):\n"
            "        buf = torch.empty(n, dtype=torch.int32)\n"
            "        self.kv_indices = [buf] + [buf.clone() for _ in range(k)]\n"
            "        self.lens = [torch.empty(n) for _ in range(k)]\n",
            count=2,
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        model = ctx.model
        patterns = tuple(getattr(ctx.settings, "graph_state_methods", ()))
        if not patterns:
            return
        rewriter: EmptyRewriter | None = None
        class_uses: dict[ast.ClassDef, _ClassUses] = {}
        offset_written: dict[ast.ClassDef, set[str]] = {}
        for info in model.functions:
            method = info.node
            if info.cls is None or not _matches(method.name, patterns):
                continue
            receiver = _receiver(method)
            if receiver is None:
                continue
            # Who ``torch`` is in the method (a local binding shadows the
            # module's import; a function-level import is one).
            buffers = list(_stored_buffers(method, receiver, model.scope(method)))
            offset = offset_written.get(info.cls)
            if offset is None:
                offset = offset_written[info.cls] = offset_written_names(info.cls)
            for buffer in buffers:
                if buffer.name in offset:
                    continue  # element 0 (or a head) must stay 0 on every replay
                uses = class_uses.get(info.cls)
                if uses is None:
                    attributes = _buffer_attributes(model, info.cls, patterns)
                    uses = class_uses[info.cls] = _ClassUses(ctx, info.cls, attributes)
                first = uses.first_use(buffer, exclude=method)
                message = _message(buffer, method, first)
                if rewriter is None:
                    rewriter = EmptyRewriter(ctx)
                fix = rewriter.fix(buffer.allocation, Applicability.UNSAFE)
                yield ctx.report(self, buffer.allocation.call, message, fix)


def _buffer_attributes(
    model: ModuleModel, cls: ast.ClassDef, patterns: tuple[str, ...]
) -> set[str]:
    """The attributes that the class's graph-state methods may store a buffer
    in (computed without their local names, which can only drop buffers)."""
    attributes: set[str] = set()
    for method in model.methods_of(cls):
        receiver = _receiver(method)
        if receiver is not None and _matches(method.name, patterns):
            for buffer in _stored_buffers(method, receiver, model.scope(method)):
                attributes.add(buffer.attribute)
    return attributes


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    matcher = _MATCHERS.get(patterns)
    if matcher is None:
        if len(_MATCHERS) > 16:
            _MATCHERS.clear()
        joined = "|".join(fnmatch.translate(pattern) for pattern in patterns)
        matcher = _MATCHERS[patterns] = re.compile(joined).match
    return matcher(name) is not None


#: Method-name patterns -> one compiled matcher for all of them.
_MATCHERS: dict[tuple[str, ...], Callable[[str], re.Match[str] | None]] = {}


def _receiver(method: FunctionNode) -> str | None:
    """The name of the instance (or class) parameter, if the method has one."""
    for decorator in method.decorator_list:
        if isinstance(decorator, ast.Name) and decorator.id == "staticmethod":
            return None
    params = (*method.args.posonlyargs, *method.args.args)
    return params[0].arg if params else None


def _stored_buffers(
    method: FunctionNode, receiver: str, names: Scope
) -> Iterator[Buffer]:
    def allocation(node: ast.AST | None) -> Allocation | None:
        found = allocation_of(node, names) if node is not None else None
        return found if found is not None and found.zero_filled else None

    statements = list(own_statements(method.body))
    # Locals bound once, to a zero-filled allocation: they may end up in state.
    bound: dict[str, list[ast.stmt]] = {}
    for stmt in statements:
        for node in walk_nodes(stmt) if isinstance(stmt, _BINDING) else ():
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bound.setdefault(node.id, []).append(stmt)
    zero_locals: dict[str, Allocation] = {}
    for name, stmts in bound.items():
        stmt = stmts[0]
        if len(stmts) == 1 and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            found = allocation(stmt.value)
            if isinstance(target, ast.Name) and found is not None:
                zero_locals[name] = found
    reported: set[int] = set()

    def through_locals(value: ast.AST) -> Iterator[Allocation]:
        """Zero-filled locals the stored value holds or is made of
        (``[buf] + [buf.clone() for _ in range(n)]``), once each."""
        for node in walk_nodes(value):
            if isinstance(node, ast.Name) and node.id in zero_locals:
                found = zero_locals[node.id]
                if id(found) not in reported:
                    reported.add(id(found))
                    yield found

    for stmt in statements:
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        for target in targets:
            attribute = _receiver_attribute(target, receiver)
            if attribute is not None:
                found = allocation(value)
                if found is not None:
                    yield Buffer(attribute, _WHOLE, found)
                elif isinstance(value, ast.Dict):
                    for key, item in zip(value.keys, value.values, strict=True):
                        found = allocation(item)
                        if found is not None:
                            yield Buffer(attribute, _constant_key(key), found)
                elif isinstance(value, (ast.List, ast.Tuple)):
                    for index, item in enumerate(value.elts):
                        found = allocation(item)
                        if found is not None:
                            yield Buffer(attribute, index, found)
                elif isinstance(value, (ast.ListComp, ast.DictComp)):
                    # ``[torch.zeros(n) for _ in range(k)]``, ``{k: torch.zeros(n) ...}``
                    item = value.elt if isinstance(value, ast.ListComp) else value.value
                    found = allocation(item)
                    if found is not None:
                        yield Buffer(attribute, _UNNAMED, found)
                for found in through_locals(value):
                    key = (
                        _WHOLE
                        if isinstance(value, ast.Name) and value.id in zero_locals
                        else _UNNAMED
                    )
                    yield Buffer(attribute, key, found)
                continue
            if isinstance(target, ast.Subscript):
                attribute = _receiver_attribute(target.value, receiver)
                found = allocation(value)
                if attribute is not None and found is not None:
                    yield Buffer(attribute, _constant_key(target.slice), found)
                elif attribute is not None:
                    for found in through_locals(value):
                        yield Buffer(attribute, _UNNAMED, found)


_BINDING = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With)


def offset_written_names(cls: ast.ClassDef) -> set[str]:
    """Names of buffers the class writes only from an offset somewhere:
    ``kv_indptr[1 : bs + 1] = ...``, ``m.cu_seqlens_k[1:].copy_(...)``,
    ``torch.cumsum(x, 0, out=self.meta["cu_seqlens_k"][1:])``. The name is
    the subscripted value's last name (a local, an attribute, a constant
    key): views of one buffer go by its name across the class. Such a buffer
    keeps the head the writes skip (element 0 of an indptr) at zero on every
    replay, so the zeros are needed."""
    found: set[str] = set()
    for node in walk_nodes(cls):
        if not isinstance(node, ast.Subscript) or not _from_offset(node.slice):
            continue
        if not _written_through(node, cls):
            continue
        value = node.value
        if isinstance(value, ast.Name):
            found.add(value.id)
        elif isinstance(value, ast.Attribute):
            found.add(value.attr)
        elif isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant):
            if isinstance(value.slice.value, str):
                found.add(value.slice.value)
    return found


def _from_offset(index: ast.expr) -> bool:
    """A first dimension sliced from a fixed positive start (``1:``,
    ``1 : bs + 1``): a head no such write reaches. (A start that varies,
    ``x[i : i + 1]`` in a loop, fills the buffer piece by piece.)"""
    first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
    if not isinstance(first, ast.Slice):
        return False
    lower = first.lower
    return (
        isinstance(lower, ast.Constant) and type(lower.value) is int and lower.value > 0
    )


def _written_through(subscript: ast.Subscript, cls: ast.ClassDef) -> bool:
    """Whether ``subscript`` is written: a store target, the receiver of an
    in-place method, or an ``out=`` argument."""
    parents = _parents_in(cls)
    parent = parents.get(subscript)
    if isinstance(subscript.ctx, ast.Store):
        # ``x[n:] = 0`` zeroes a tail (with ``x[:n]`` written, all of it).
        value = getattr(parent, "value", None)
        return not (value is not None and literal_zero(value) is not None)
    if isinstance(parent, ast.Attribute) and parent.attr.endswith("_"):
        call = parents.get(parent)
        if not isinstance(call, ast.Call):
            return False
        if parent.attr == "zero_" or (
            parent.attr == "fill_"
            and len(call.args) == 1
            and literal_zero(call.args[0]) is not None
        ):
            return False  # a tail zeroed on every replay: the write is the zeros
        return True
    return isinstance(parent, ast.keyword) and parent.arg == "out"


#: The parent of every node of the classes looked at (one map per class).
_PARENTS: dict[int, tuple[ast.ClassDef, dict[ast.AST, ast.AST]]] = {}


def _parents_in(cls: ast.ClassDef) -> dict[ast.AST, ast.AST]:
    cached = _PARENTS.get(id(cls))
    if cached is not None and cached[0] is cls:
        return cached[1]
    if len(_PARENTS) > 32:
        _PARENTS.clear()
    parents = {child: node for node in walk_nodes(cls) for child in child_nodes(node)}
    _PARENTS[id(cls)] = (cls, parents)
    return parents


def _receiver_attribute(node: ast.AST, receiver: str) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == receiver
    ):
        return node.attr
    return None


def _constant_key(node: ast.AST | None) -> object:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
        return node.value
    return _UNNAMED


class _ClassUses:
    """Where the methods of a class use ``self.<attribute>`` (and its keys),
    for the attributes that may hold a buffer.

    Each method is searched once, when first needed, for every
    ``self.<attribute>`` and every constant subscript of a local bound once
    to ``self.<attribute>``, and only where those can be: in the code
    spanning the rows where one of the attribute names (then one of the
    locals) occurs. A method whose text is not ASCII, where an identifier may
    be spelled otherwise, is searched whole.
    """

    def __init__(self, ctx: Context, cls: ast.ClassDef, attributes: set[str]) -> None:
        self.ctx = ctx
        self.model = ctx.model
        self.attributes = attributes
        # (method, receiver, its ASCII text or None, the text's offset)
        self._methods: list[tuple[FunctionNode, str, str | None, int]] = []
        for method in ctx.model.methods_of(cls):
            receiver = _receiver(method)
            if receiver is not None:
                text, offset = _ascii_text(ctx, method)
                self._methods.append((method, receiver, text, offset))
        self._found: dict[FunctionNode, _Uses] = {}

    def _uses_in(
        self, method: FunctionNode, receiver: str, text: str | None, offset: int
    ) -> _Uses:
        """``self.<attribute>`` nodes and alias subscripts of ``method`` by
        attribute, in the order of one depth-first walk, with the parents of
        their ancestors."""
        found = self._found.get(method)
        if found is not None:
            return found
        parents: dict[ast.AST, ast.AST] = {}
        uses: dict[str, list[ast.Attribute]] = {}
        aliases: dict[str, str] = {}
        rows = self._rows(text, offset, self.attributes, attributes=True)
        for node in _walk_rows(method, rows, parents):
            if isinstance(node, ast.Attribute):
                attribute = _receiver_attribute(node, receiver)
                if attribute in self.attributes:
                    uses.setdefault(attribute, []).append(node)  # type: ignore[arg-type]
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                attribute = _receiver_attribute(node.value, receiver)
                if isinstance(target, ast.Name) and attribute in self.attributes:
                    aliases[target.id] = attribute  # type: ignore[assignment]
        aliased: dict[str, list[ast.Subscript]] = {}
        if aliases:
            # Every store of such a local, and every subscript of one, is on
            # a row holding its name.
            stores: dict[str, int] = {}
            subscripts: list[ast.Subscript] = []
            rows = self._rows(text, offset, set(aliases))
            for node in _walk_rows(method, rows, parents):
                if isinstance(node, ast.Name):
                    if node.id in aliases and not isinstance(node.ctx, ast.Load):
                        stores[node.id] = stores.get(node.id, 0) + 1
                elif (
                    isinstance(node, ast.Subscript)
                    and isinstance(node.value, ast.Name)
                    and node.value.id in aliases
                ):
                    subscripts.append(node)
            for subscript in subscripts:
                name = subscript.value.id  # type: ignore[attr-defined]
                if stores.get(name) == 1:
                    aliased.setdefault(aliases[name], []).append(subscript)
        found = self._found[method] = (uses, aliased, parents)
        return found

    def _rows(
        self, text: str | None, offset: int, words: set[str], attributes: bool = False
    ) -> list[int] | None:
        """Sorted rows of ``text`` holding one of ``words`` (as ``attributes``:
        only where it may be the name after a dot); None: all rows."""
        if text is None:
            return None
        positions: list[int] = []
        for word in words:
            position = text.find(word)
            while position >= 0:
                if not attributes or _may_follow_dot(text, position, len(word)):
                    positions.append(offset + position)
                position = text.find(word, position + 1)
        return sorted(self.ctx.locator.rows_of(positions))

    def first_use(self, buffer: Buffer, exclude: FunctionNode) -> BufferUse | None:
        """The first use of ``buffer`` in source order, outside ``exclude``,
        that reads or writes its memory. Methods are disjoint and in source
        order: those after the one holding it are not looked into."""
        if buffer.key is _UNNAMED:
            return None
        # Rebinding the attribute or the slot (``self.meta = {}`` in ``__init__``)
        # neither reads nor writes the buffer's memory.
        skipped = (UseEffect.TRANSPARENT, UseEffect.REBIND)
        for method, receiver, text, offset in self._methods:
            if method is exclude:
                continue
            found = self._uses_in(method, receiver, text, offset)
            uses = self._method_uses(buffer, method, found)
            uses.sort(key=lambda use: (use.node.lineno, use.node.col_offset))  # type: ignore[attr-defined]
            for use in uses:
                if use.effect not in skipped:
                    return use
        return None

    def _method_uses(
        self, buffer: Buffer, method: FunctionNode, found: _Uses
    ) -> list[BufferUse]:
        """The uses of ``buffer`` in ``method`` (whose nodes are ``found``)."""
        by_attribute, aliased, parents = found
        uses: list[BufferUse] = []
        for node in by_attribute.get(buffer.attribute, ()):
            if not isinstance(node.ctx, ast.Load):
                uses.append(
                    BufferUse(node, method, _store_effect(node, parents), Detail.NONE)
                )
            elif buffer.key is _WHOLE:
                uses.append(self._use(node, method, parents))
            else:
                slot = parents.get(node)
                if isinstance(slot, ast.Subscript) and slot.value is node:
                    if _constant_key(slot.slice) == buffer.key:
                        uses.append(self._use(slot, method, parents))
        if buffer.key is not _WHOLE:
            for subscript in aliased.get(buffer.attribute, ()):
                if _constant_key(subscript.slice) == buffer.key:
                    uses.append(self._use(subscript, method, parents))
        return uses

    def _use(
        self, expr: ast.AST, method: FunctionNode, parents: dict[ast.AST, ast.AST]
    ) -> BufferUse:
        if isinstance(expr, ast.Subscript) and not isinstance(expr.ctx, ast.Load):
            return BufferUse(expr, method, _store_effect(expr, parents), Detail.NONE)
        effect, detail = context_effect(expr, parents, self.model.scope(method))  # type: ignore[arg-type]
        if effect is UseEffect.FULL_WRITE and _only_sometimes(expr, parents, method):
            effect, detail = UseEffect.UNKNOWN, Detail.PARTIAL
        return BufferUse(expr, method, effect, detail)


def _ascii_text(ctx: Context, method: FunctionNode) -> tuple[str | None, int]:
    """The method's source text (decorators included) if it is ASCII, else
    None; and the offset where it starts."""
    first = min(
        [method.lineno, *(decorator.lineno for decorator in method.decorator_list)]
    )
    locator = ctx.locator
    start = locator.line_start(first)
    text = ctx.text[start : locator.full_line_end(method.end_lineno or method.lineno)]
    return (text if text.isascii() else None), start


# ``self.<attribute>`` nodes and alias subscripts by attribute, and the parents
# of their ancestors.
_Uses = tuple[
    dict[str, list[ast.Attribute]],
    dict[str, list[ast.Subscript]],
    dict[ast.AST, ast.AST],
]


def _may_follow_dot(text: str, position: int, length: int) -> bool:
    """Whether the word at ``position`` may be an attribute's name: a whole
    word whose nearest character before, on its line, is a dot (past blanks
    and a continuation's backslash). A word first on its line is kept: a
    comment may stand between it and its dot."""
    end = position + length
    if end < len(text) and (text[end].isalnum() or text[end] == "_"):
        return False
    index = position - 1
    while index >= 0 and text[index] in " \t\f\\":
        index -= 1
    return index < 0 or text[index] in ".\r\n"


def _walk_rows(
    root: ast.AST, rows: list[int] | None, parents: dict[ast.AST, ast.AST]
) -> Iterator[ast.AST]:
    """The nodes under ``root`` (depth first) whose lines span one of ``rows``
    (sorted; None: every node), recording each one's parent."""
    stack: list[ast.AST] = [root]
    while stack:
        node = stack.pop()
        for child in child_nodes(node):
            if rows is None or _spans(child, rows):
                parents[child] = node
                stack.append(child)
        yield node


def _spans(node: ast.AST, rows: list[int]) -> bool:
    first = getattr(node, "lineno", None)
    if first is None:
        return True  # no position (arguments, comprehensions, ...): look inside
    decorators = getattr(node, "decorator_list", None)
    if decorators:  # above the ``def`` or ``class`` line, where lineno points
        first = min(first, *(decorator.lineno for decorator in decorators))
    index = bisect.bisect_left(rows, first)
    return index < len(rows) and rows[index] <= (node.end_lineno or first)  # type: ignore[attr-defined]


def _store_effect(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> UseEffect:
    """``self.x += 1`` reads the buffer; ``self.x = v``, ``self.x["k"] = v`` and
    ``del self.x`` replace it without touching its memory."""
    parent = parents.get(node)
    if isinstance(parent, ast.AugAssign) and parent.target is node:
        return UseEffect.READ
    return UseEffect.REBIND


def _only_sometimes(
    node: ast.AST, parents: dict[ast.AST, ast.AST], method: FunctionNode
) -> bool:
    """Whether ``node`` is evaluated on some paths only within its statement
    (an arm of ``a if c else b``, a right operand of ``and``/``or``) or in a
    nested scope."""
    child, parent = node, parents.get(node)
    while parent is not None and parent is not method:
        if isinstance(parent, ast.IfExp) and child is not parent.test:
            return True
        if isinstance(parent, ast.BoolOp) and child is not parent.values[0]:
            return True
        if isinstance(
            parent,
            (
                ast.Lambda,
                ast.FunctionDef,
                ast.AsyncFunctionDef,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
            ),
        ):
            return True
        child, parent = parent, parents.get(parent)
    return False


def _message(buffer: Buffer, method: FunctionNode, first: BufferUse | None) -> str:
    head = (
        f"Graph-state buffer `{buffer.display}` is zero-filled by "
        f"`{buffer.allocation.display}` in `{method.name}`"
    )
    if first is None:
        return (
            f"{head}; if every replay writes it before reading it, the zeros are "
            f"never seen (a start-up cost): {_CONFIRM}"
        )
    where = f"line {first.node.lineno} in `{first.method.name}`"  # type: ignore[attr-defined]
    if first.is_write:
        return (
            f"{head}; its first use elsewhere, at {where}, writes it (the zeros "
            f"are a start-up cost): {_CONFIRM}"
        )
    return f"{head}; it is {first.verb} at {where} before any write: {_CONFIRM}"
