"""ATN103 uninitialized-read."""

from __future__ import annotations

from collections.abc import Iterator

from lint_rules.analysis.allocation_rows import functions_to_analyze
from lint_rules.analysis.flow import Event, FunctionFlow
from lint_rules.analysis.tensor_effects import (
    Allocation,
    Detail,
    TensorUses,
    Use,
    UseEffect,
    local_allocations,
    tensor_uses_for,
)
from lint_rules.analysis.use_forms import may_read
from lint_rules.context import Context
from lint_rules.diagnostics import Finding
from lint_rules.rules.base import Invalid, Rule

#: Names of the uninitialized allocators (``empty`` also finds ``empty_like``, ...).
_EMPTY_NAMES = ("empty",)


class UninitializedRead(Rule):
    """## What it does
    Checks for uninitialized tensors (`torch.empty`, `empty_like`,
    `empty_strided`, `new_empty`) bound to a local whose first use, on some
    path, reads them.

    Reads are `x += y`, `x + 1`, `x > 0`, `x.add_(y)`, `x.index_add_(...)`,
    `x.sum()`, `x.item()`, `x.clone()`, `y = x[idx]` and the like, also
    through a conversion (`x.to(device).sum()`). The finding points at the read.

    ## Why is this bad?
    `torch.empty` returns whatever the allocator's memory held last: stale
    activations, another request's KV indices, NaN. A read before the first
    write makes the result depend on that garbage, usually only sometimes
    (the caching allocator often hands back zeroed or identical memory in
    tests), which makes the bug hard to reproduce. It is the classic way a
    zeros -> empty change goes wrong.

    Uses the analysis cannot see through (passing the tensor or an indexed
    part of it to a function, storing it, returning it, taking a view or a
    conversion that may alias it such as `x.numpy()`, writing part of it) are
    not reported; uses that see only metadata (`x.shape`, `x.size()`) are
    skipped over. Nor is a read that some path reaches only by skipping writes
    of parts of the tensor (`x[a:b] = v` in a loop that may not run): whether
    the parts cover it, and whether that path can happen, depends on values.

    ## Example
    ```python
    def count_tokens(seq_lens, n):
        counts = torch.empty(n, dtype=torch.int32)
        counts += seq_lens
        return counts
    ```

    ## Use instead
    ```python
    def count_tokens(seq_lens, n):
        counts = torch.zeros(n, dtype=torch.int32)
        counts += seq_lens
        return counts
    ```
    or write every element first (`counts.copy_(seq_lens)`).

    ## Fix safety
    There is no fix: whether the buffer needs zeros, another fill value, or
    a full write first depends on what the code means.
    """

    code = "ATN103"
    name = "uninitialized-read"
    triggers = ("empty",)
    fix_availability = "none"
    severity = "error"

    valid = (
        # Written before it is read.
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    x.copy_(y)\n    return x.sum()\n",
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    x[:] = y\n    x += 1\n    return x\n",
        "import torch\ndef f(y):\n    x = torch.empty_like(y)\n    torch.mul(y, 2, out=x)\n    return x + 1\n",
        # Written on every path.
        "import torch\ndef f(y, n, c):\n    x = torch.empty(n)\n    if c:\n        x.fill_(0)\n"
        "    else:\n        x.copy_(y)\n    return x.sum()\n",
        # Escapes before any read: the analysis cannot tell.
        "import torch\ndef f(kernel, n):\n    x = torch.empty(n)\n    kernel(x)\n    return x.sum()\n",
        "import torch\ndef f(n):\n    x = torch.empty(n)\n    return x\n",
        # A partial write through a view first.
        "import torch\ndef f(y, n, m):\n    x = torch.empty(n)\n    x[:m].copy_(y)\n    return x.sum()\n",
        # Metadata only.
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    print(x.shape, x.size(0))\n    x.zero_()\n"
        "    return x.sum()\n",
        # Rebound before any use.
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    x = y.clone()\n    return x.sum()\n",
        # numpy's empty is not torch's.
        "import numpy as np\ndef f(n):\n    x = np.empty(n)\n    x += 1\n    return x\n",
        # No elements, or no data: nothing to read.
        "import torch\ndef f(y):\n    x = torch.empty(0, dtype=torch.int32)\n    y.copy_(x)\n",
        "import torch\ndef f(y):\n    x = torch.empty(y.shape, device='meta')\n    return y.copy_(x)\n",
        # Zero-filled: nothing uninitialized.
        "import torch\ndef f(n):\n    x = torch.zeros(n)\n    x += 1\n    return x\n",
    )
    invalid = (
        Invalid(
            "import torch\n\ndef f(seq_lens, n):\n    counts = torch.empty(n, dtype=torch.int32)\n"
            "    counts += seq_lens\n    return counts\n"
        ),
        Invalid(
            "import torch\n\ndef f(n):\n    x = torch.empty(n)\n    return x.sum().item()\n"
        ),
        Invalid("def f(y, n):\n    x = y.new_empty(n)\n    x.add_(y)\n    return x\n"),
        Invalid(
            "from torch import empty_like\n\ndef f(y, c):\n    x = empty_like(y)\n"
            "    if c:\n        x.copy_(y)\n    return x > 0\n"
        ),
        Invalid(
            "import torch\n\ndef f(idx, n):\n    x = torch.empty_strided((n,), (1,))\n"
            "    rows = x[idx]\n    return rows\n"
        ),
        # A loop that may not run: the read after it sees garbage.
        Invalid(
            "import torch\n\ndef f(ys, n):\n    x = torch.empty(n)\n    for y in ys:\n"
            "        x.copy_(y)\n    return x.max()\n"
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        model = ctx.model
        # Before the flow: a buffer whose name is never used in a form that
        # can read it (an operand, ``x.sum()``, ``y.copy_(x)``, ...) cannot be
        # reported.
        for info in functions_to_analyze(ctx, _EMPTY_NAMES, _uninitialized, may_read):
            flow = model.flow(info.node)
            scope = model.scope(info.node)
            uses = tensor_uses_for(flow, scope)
            for local in local_allocations(flow, scope):
                allocation = local.allocation
                if allocation.zero_filled or allocation.has_no_data:
                    continue
                name = local.target.id
                row = local.stmt.lineno
                for use in uses.first_reads_on_some_path(name, local.binding):
                    if _partly_written_before(flow, uses, name, local.binding, use):
                        continue
                    message = (
                        f"`{name}` is read before anything writes it; "
                        f"`{allocation.display}` at line {row} leaves its memory uninitialized"
                    )
                    yield ctx.report(self, use.event.node, message)


def _uninitialized(allocation: Allocation) -> bool:
    return not allocation.zero_filled and not allocation.has_no_data


def _partly_written_before(
    flow: FunctionFlow, uses: TensorUses, name: str, binding: Event, read: Use
) -> bool:
    """Whether part of the tensor may be written between its allocation and
    ``read`` on some path (``x[a:b] = v`` in a loop, ``x[:n] = v`` in a branch).

    The tensor is then being filled piece by piece, and whether the pieces
    cover it, or whether the path that skips them can run at all (a loop over
    the very pieces whose sizes make up the tensor's size), depends on values
    the analysis does not see.
    """
    start, end = binding.block, read.event.block
    between = flow.blocks_between(start, end) if start is not end else set()
    for event in flow.loads_of(name):
        if uses.effect(event) != (UseEffect.UNKNOWN, Detail.PARTIAL):
            continue
        block = event.block
        if (
            block is start
            and event.order > binding.order
            and (block is not end or event.order < read.event.order)
        ):
            return True
        if block is end and block is not start and event.order < read.event.order:
            return True
        if block in between:
            return True
    return False
