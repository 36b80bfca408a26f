"""ATN102 zeros-persistent-buffer."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from lint_rules.analysis.buffer_extents import reads_past_prefix_writes
from lint_rules.analysis.class_uses import (
    Buffer,
    BufferUse,
    ClassUses,
    buffer_attributes,
    method_matches,
    offset_written_names,
    receiver_of,
    stored_buffers,
    viewed_names,
)
from lint_rules.analysis.model import FunctionNode
from lint_rules.context import Context
from lint_rules.diagnostics import Applicability, Finding
from lint_rules.fixes.empty import EmptyRewriter
from lint_rules.rules.base import Invalid, Rule

_CONFIRM = (
    "confirm with the poisoning plugin (pytest --attnlint-poison) before applying"
)


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
    `metadata.cu_seqlens_k = self.meta["cu_seqlens_k"][: bs + 1]`), and a
    view under another name is followed back to it, through an assignment
    (`qo_indptr = self.qo_indptr_[: bs + 1]; qo_indptr[1 : bs + 1] = ...`)
    or a keyword argument (`self._fill(out=self.kv_indptr)` where `_fill`
    writes `out[1:]`).

    It stays silent, too, where every write of the class is a prefix
    (`self.buf[:bs].copy_(x)`, `self.buf[:bs] = y`, `out=self.buf[:bs]`,
    `self.buf[:, :n]`: each dimension whole or cut at an upper bound) and
    some use may read past it: the buffer passed on whole
    (`kernel(self.buf)`, `Meta(mask=self.buf)`), read whole
    (`self.buf.sum()`), returned, indexed (`self.buf[idx]`), or sliced to
    another bound (`self.buf[: bs + 1]`). The padded rows it reads are the
    zeros, on every replay. Bounds are compared as written: a read of
    `self.buf[:bs]` stays inside a write of `self.buf[:bs]`, and such a
    buffer is still reported. A write that is not a prefix (the tail zeroed
    by `self.buf[n:].zero_()`, a whole `copy_`) keeps it reported too. The
    uses are those of `self.buf`, `self.meta["k"]`, and of a local bound
    once to either (`mask = self.mask; mask[:n] = x`); a view of a prefix
    bound to a name (`view = self.buf[:bs]`) counts as written inside it.
    As with offset writes, this holds whatever the first use is: the zeros
    are read on every replay, not only at capture.

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
        # ... through a view under another name.
        "import torch\nclass B:\n    def init_cuda_graph_state(self, n):\n"
        "        self.qo_indptr_ = torch.zeros(n + 1)\n"
        "    def replay(self, bs, lens):\n        qo_indptr = self.qo_indptr_[: bs + 1]\n"
        "        qo_indptr[1 : bs + 1] = torch.cumsum(lens, dim=0)\n",
        # Every write is a prefix and some use reads past it: the padded rows
        # it reads are the zeros, on every replay.
        "import torch\nclass B:\n    def init_cuda_graph_state(self, max_bs, n):\n"
        "        self.buf = torch.zeros(max_bs, n)\n"
        "    def replay(self, bs, x):\n        self.buf[:bs].copy_(x)\n"
        "    def forward(self, kernel):\n        return kernel(self.buf)\n",
        "import torch\nclass B:\n    def init_cuda_graph_state(self, max_bs):\n"
        "        self.meta = {'lens': torch.zeros(max_bs)}\n"
        "    def replay(self, bs, lens):\n        m = self.meta\n"
        "        torch.cumsum(lens, 0, out=m['lens'][:bs])\n"
        "    def forward(self, bs):\n        return self.meta['lens'][: bs + 1].sum()\n",
        "import torch\nclass B:\n    def init_cuda_graph_state(self, max_bs):\n"
        "        self.mask = torch.zeros(max_bs)\n"
        "    def replay(self, n, x):\n        mask = self.mask\n        mask[:n] = x\n"
        "        return Meta(mask=mask)\n",
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
        # Every write is a prefix, and every read stays inside it.
        Invalid(
            "import torch\n\nclass Backend:\n    def init_cuda_graph_state(self, max_bs):\n"
            "        self.lens = torch.zeros(max_bs, dtype=torch.int32)\n\n"
            "    def replay(self, bs, lens):\n        self.lens[:bs].copy_(lens)\n\n"
            "    def forward(self, bs, kernel):\n        return kernel(self.lens[:bs])\n",
            fixed="import torch\n\nclass Backend:\n    def init_cuda_graph_state(self, max_bs):\n"
            "        self.lens = torch.empty(max_bs, dtype=torch.int32)\n\n"
            "    def replay(self, bs, lens):\n        self.lens[:bs].copy_(lens)\n\n"
            "    def forward(self, bs, kernel):\n        return kernel(self.lens[:bs])\n",
        ),
        # Read whole, but the tail is written too (zeroed): not only prefixes.
        Invalid(
            "import torch\n\nclass Backend:\n    def init_cuda_graph_state(self, max_bs):\n"
            "        self.loc = torch.zeros(max_bs, dtype=torch.int64)\n\n"
            "    def replay(self, n, loc):\n        self.loc[:n].copy_(loc)\n"
            "        self.loc[n:].zero_()\n        return self.loc\n",
            fixed="import torch\n\nclass Backend:\n    def init_cuda_graph_state(self, max_bs):\n"
            "        self.loc = torch.empty(max_bs, dtype=torch.int64)\n\n"
            "    def replay(self, n, loc):\n        self.loc[:n].copy_(loc)\n"
            "        self.loc[n:].zero_()\n        return self.loc\n",
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        model = ctx.model
        patterns = ctx.options.graph_state_methods
        if not patterns:
            return
        rewriter: EmptyRewriter | None = None
        class_uses: dict[ast.ClassDef, ClassUses] = {}
        offset_written: dict[ast.ClassDef, set[str]] = {}
        offset_viewed: dict[ast.ClassDef, set[str]] = {}
        # method -> its stored buffers (each method's found once, for the
        # method and for the class's buffer attributes).
        stored: dict[FunctionNode, list[Buffer]] = {}

        def buffers_of(method: FunctionNode, receiver: str) -> list[Buffer]:
            found = stored.get(method)
            if found is None:
                # Who ``torch`` is in the method (a local binding shadows the
                # module's import; a function-level import is one).
                found = stored[method] = list(
                    stored_buffers(method, receiver, model.scope(method))
                )
            return found

        for info in model.functions:
            method = info.node
            if info.cls is None or not method_matches(method.name, patterns):
                continue
            receiver = receiver_of(method)
            if receiver is None:
                continue
            for buffer in buffers_of(method, receiver):
                offset = offset_written.get(info.cls)
                if offset is None:
                    offset = offset_written[info.cls] = offset_written_names(
                        info.cls, ctx.locator
                    )
                if buffer.name in offset:
                    continue  # element 0 (or a head) must stay 0 on every replay
                viewed = offset_viewed.get(info.cls)
                if viewed is None:
                    viewed = offset_viewed[info.cls] = viewed_names(
                        info.cls, offset, ctx.locator
                    )
                if buffer.name in viewed:
                    continue  # ... written from an offset through a view
                uses = class_uses.get(info.cls)
                if uses is None:
                    attributes = buffer_attributes(
                        model, info.cls, patterns, buffers_of
                    )
                    uses = class_uses[info.cls] = ClassUses(ctx, info.cls, attributes)
                if reads_past_prefix_writes(uses, buffer):
                    continue  # the rows past every write are read: zeros needed
                first = uses.first_use(buffer, exclude=method)
                message = _message(buffer, method, first)
                if rewriter is None:
                    rewriter = EmptyRewriter(ctx)
                fix = rewriter.fix(buffer.allocation, Applicability.UNSAFE)
                yield ctx.report(self, buffer.allocation.call, message, fix)


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
