"""ATN101 zeros-overwritten."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from lint_rules.analysis.allocation_rows import functions_to_analyze
from lint_rules.analysis.class_hooks import class_hooks
from lint_rules.analysis.flow import FunctionFlow
from lint_rules.analysis.summaries import (
    CallEffects,
    call_effects,
    enclosing_call,
    module_summaries,
    overwritten_after_store,
)
from lint_rules.analysis.tensor_effects import (
    EMPTY_COUNTERPART,
    Allocation,
    Detail,
    LocalAllocation,
    TensorUses,
    Use,
    UseEffect,
    enclosing_managers,
    local_allocations,
    local_list_allocations,
    tensor_uses_for,
)
from lint_rules.analysis.torch_api import CAPTURE_MANAGERS
from lint_rules.analysis.use_forms import (
    called_method_names,
    may_be_stored_to_attribute,
    may_fully_write,
)
from lint_rules.context import Context
from lint_rules.diagnostics import Applicability, Finding
from lint_rules.fixes.empty import EmptyRewriter
from lint_rules.rules.base import Invalid, Rule

#: Names of the zero-filled allocators (``zeros`` also finds ``zeros_like``, ...).
ZERO_FILL_NAMES = ("zeros", "full")


class ZerosOverwritten(Rule):
    """## What it does
    Checks for zero-filled tensors (`torch.zeros`, `zeros_like`, `new_zeros`,
    `full(..., 0)`) bound to a local whose first use, on every path,
    overwrites all of it.

    The allocators are `torch.zeros`, `torch.zeros_like`, `Tensor.new_zeros`,
    and `torch.full` / `torch.full_like` / `Tensor.new_full` with a literal
    zero; the full overwrites are `x.copy_(...)`, `x.fill_(...)`, `x.zero_()`,
    an in-place random fill such as `x.uniform_()`, `x[:] = ...`,
    `x[...] = ...`, `x[:, :] = ...`, and `out=x` of a function that resizes
    and writes all of `out`: one of torch's own (`torch.mul`,
    `torch.linalg.norm`) or an ATen operator (`torch.ops.aten.mul.out`). A
    custom operator's `out=` (`torch.ops.mylib.kernel(..., out=x)`) is not a
    full write: attention kernels leave padding rows of `out` unwritten. Who
    `torch` is, the function's scope says: a function-level `import torch`
    is the module, a parameter or local named `torch` is not.

    The write may also go through a call: a function of the same module
    (`_fill(dst, src)` whose body first overwrites `dst` on every path, see
    the summaries of the module's functions), a method of the same class
    called on `self`, a `torch.distributed` collective whose output is
    written whole (`all_gather_into_tensor`, `reduce_scatter_tensor`,
    `reduce_scatter`, `all_to_all_single`, `recv`, `scatter`; not with
    `async_op`), or a call the project declares in `full-write-calls` (a
    Triton launch `kernel[grid](...)` by its kernel's name).

    A list of zero fills that a comprehension makes
    (`gathered = [torch.zeros_like(x) for _ in range(world_size)]`) is
    reported the same way when its first use, on every path, writes every
    tensor of it: a collective that writes each tensor of its output list
    whole, `all_gather(gathered, x)` or `all_to_all(gathered, inputs)`
    (directly or through a helper of the module). Not `gather`, whose
    `gather_list` is written on the destination rank only; nor a list read,
    passed on or written in part first (`gathered[0].copy_(x)`).

    A buffer stored to `self` first (`self._table = table`) still counts
    when the full write follows in the same block and nothing in between
    can read the attribute. That write may be a call of a method of the class (`self._fill(host)`) whose
    first use of `self._table`, on every path, writes all of it, and which
    runs nothing else that could reach it: it calls only torch, the
    builtins and such methods of the class, and passes `self` nowhere (see
    the summaries of what methods do to `self`'s attributes). A method that
    writes only part of it (`self._table[:n].copy_(host)`) keeps the zeros.

    ## Why is this bad?
    Zero-filling is a kernel launch and a full pass over the memory; when
    every element is overwritten before anything reads it, the zeros are never
    seen. `torch.empty` and its family allocate the same tensor without the
    fill. In a decode step that runs thousands of times a second, the wasted
    launches add up.

    A use that reads the buffer (`x += y`, `x.add_(y)`, `x.index_add_(...)`,
    `x.sum()`, `x[i]`), writes only part of it (`x[:n] = y`, `x[1:] = y`,
    `x[:n].copy_(y)`, `x.scatter_(...)`), or lets it escape (passing it to a
    function, storing it, returning it, taking a view) keeps the zeros, as
    does a write that happens in one branch only, in a loop that may not
    run, in an `assert` (which `python -O` drops), in a `try` body, or in the body of a `with` whose context manager
    may swallow an exception (`contextlib.suppress`, a class whose
    `__exit__` returns True, any manager but those torch's vocabulary knows
    never to, such as `torch.no_grad()` or `torch.cuda.stream(s)`). So
    does a write captured into a CUDA graph (`with torch.cuda.graph(g):`)
    that the allocation is outside of: it runs at each replay, not before
    the code after the capture. Uses that see only metadata (`x.shape`,
    `x.size()`, `len(x)`) are skipped over.

    ## Example
    ```python
    def gather_pages(req_to_token, rows, out_len):
        page_table = torch.zeros(len(rows), out_len, dtype=torch.int32)
        page_table.copy_(req_to_token[rows, :out_len])
        return page_table
    ```

    ## Use instead
    ```python
    def gather_pages(req_to_token, rows, out_len):
        page_table = torch.empty(len(rows), out_len, dtype=torch.int32)
        page_table.copy_(req_to_token[rows, :out_len])
        return page_table
    ```

    ## Fix safety
    The fix is safe: no element of the zero-filled tensor is observed before
    it is overwritten. It renames `zeros` to `empty`, `zeros_like` to
    `empty_like`, `new_zeros` to `new_empty`, and `full`/`full_like`/
    `new_full` to `empty`/`empty_like`/`new_empty` without the fill value,
    keeping every other argument as written (in a list comprehension, the
    call that makes each element). A collective without a `group` runs in
    the default group, of which every rank is a member, and writes its
    output there before it returns. `torch.full` with an integer or
    boolean zero and no `dtype`, or `dtype=None`, gets the dtype it inferred
    (`dtype=torch.int64` or `dtype=torch.bool`). An allocator imported by name
    (`from torch import zeros`) gets its counterpart added to that import.
    A name the fix calls or writes is taken only from an import of the
    module's own body, which always runs (not one under `if TYPE_CHECKING:`,
    in a `try` body or an `except` handler, which may bind nothing), before
    the statement holding the allocation (a function the module calls while
    it is imported runs before a later import), and only where no other
    import of the module binds that name to something else, before or
    after (`import os as empty` after the function rebinds it by the time
    the function runs), and no star import may bind it: otherwise the call
    keeps the name it was made through, or no fix is offered.

    The fix is unsafe where the uninitialized counterpart may not be the same
    tensor: `torch.full` with an integer or boolean zero and a `dtype` that
    is not a torch dtype constant (`dtype=dt` may be None, and then `full`
    makes int64 where `empty` makes the default float), and `full` or
    `new_full` with a size that may be an integer (`full(n, 0)` raises a
    `TypeError`; `empty(n)` does not), `torch.zeros` or `torch.full`
    given `memory_format` (they raise a `TypeError`; `torch.empty` takes
    it), any allocator given a quantized `dtype` (`torch.qint8`: the
    zero-filled ones raise, having no `zero_` for it, the uninitialized
    ones take it), `full` given a bit or sub-byte `dtype` (`torch.bits8`,
    `torch.uint4`: it has no fill kernel for them, `empty` takes them),
    and any allocator given a `layout` other than
    `torch.strided`
    (`empty_like` refuses a sparse layout that `zeros_like` takes, `full`
    one that `empty` takes). It is unsafe, too, where the write
    rests on what attnlint cannot prove: a method of the class (a subclass
    may override it), a collective given a `group` (`group=pg`: on a rank
    outside the group it returns without writing), a public function of
    the module (`fill(dst, src)`: another module may replace it; a private
    `_fill` is taken to be the module's own), a `full-write-calls`
    declaration (the message names it: vLLM's and FlashInfer's kernels
    leave padding rows unwritten, so a declaration must be right for every
    shape), a store to `self` before the write (if the write raises, the
    attribute keeps the zeros), or a tensor method known by name
    (`h.new_zeros(n)`) where a class of the module defines a method of that
    name or `new_empty` (the receiver may be one of its objects), or where
    the fix reads a module name the call did not (`empty`, or `torch` for a
    dtype) in a module that reaches its own namespace (`globals()["empty"]
    = g`, `vars()`, `exec`, `setattr` of the module object), which may
    rebind that name with no statement that binds it.

    ## Options
    - `full-write-calls`: a table of call names (as written, or as
      imported; for a Triton launch `kernel[grid](...)`, the kernel's name)
      to the arguments each writes in full, by position from 0 or keyword:
      `full-write-calls = { "decode_attention_fwd" = [3] }`.
    """

    code = "ATN101"
    name = "zeros-overwritten"
    triggers = ("zeros", "full")
    fix_availability = "sometimes"
    severity = "error"

    valid = (
        # Accumulation reads the zeros.
        "import torch\ndef f(y, n):\n    x = torch.zeros(n)\n    x += y\n    return x\n",
        "import torch\ndef f(y, n):\n    x = torch.zeros(n)\n    x.add_(y)\n    return x\n",
        "import torch\ndef f(y, idx, n):\n    x = torch.zeros(n)\n    x.index_add_(0, idx, y)\n    return x\n",
        "import torch\ndef f(y, idx, n):\n    x = torch.zeros(n)\n    x.scatter_add_(0, idx, y)\n    return x\n",
        # Partial writes keep the other zeros.
        "import torch\ndef f(y, n, m):\n    x = torch.zeros(n)\n    x[:m] = y\n    return x\n",
        "import torch\ndef f(y, n):\n    x = torch.zeros(n)\n    x[1:] = y\n    return x\n",
        "import torch\ndef f(y, n, m):\n    x = torch.zeros(n)\n    x[:m].copy_(y)\n    return x\n",
        "import torch\ndef f(y, idx, n):\n    x = torch.zeros(n)\n    x.scatter_(0, idx, y)\n    return x\n",
        # A write in one branch only.
        "import torch\ndef f(y, n, c):\n    x = torch.zeros(n)\n    if c:\n        x.copy_(y)\n    return x\n",
        # A write inside a loop that may not run.
        "import torch\ndef f(ys, n):\n    x = torch.zeros(n)\n    for y in ys:\n        x.copy_(y)\n    return x\n",
        # Read before the write.
        "import torch\ndef f(y, n):\n    x = torch.zeros(n)\n    print(x.sum())\n    x.copy_(y)\n    return x\n",
        # Escapes: an unknown kernel, an object, a return.
        "import torch\ndef f(kernel, n):\n    x = torch.zeros(n)\n    kernel(x)\n    x.fill_(1)\n",
        "import torch\ndef f(state, y, n):\n    x = torch.zeros(n)\n    state.buf = x\n    x.copy_(y)\n",
        "import torch\ndef f(n):\n    x = torch.zeros(n)\n    return x\n",
        # A view or an alias.
        "import torch\ndef f(y, n):\n    x = torch.zeros(n)\n    v = x.view(-1)\n    x.copy_(y)\n    return v\n",
        "import torch\ndef f(y, n):\n    x = torch.zeros(n)\n    z = x\n    x.copy_(y)\n    return z\n",
        # The copy's source is the buffer itself.
        "import torch\ndef f(n):\n    x = torch.zeros(n)\n    x.copy_(x + 1)\n    return x\n",
        # numpy and user functions named zeros are not torch.
        "import numpy as np\ndef f(y, n):\n    x = np.zeros(n)\n    x[:] = y\n    return x\n",
        "from numpy import zeros\ndef f(y, n):\n    x = zeros(n)\n    x[:] = y\n    return x\n",
        "def zeros(n):\n    return [0] * n\ndef f(y, n):\n    x = zeros(n)\n    x[:] = y\n    return x\n",
        # A non-zero fill.
        "import torch\ndef f(y, n):\n    x = torch.full((n,), 1)\n    x.copy_(y)\n    return x\n",
        # A closure could read it.
        "import torch\ndef f(y, n):\n    g = lambda: x.sum()\n    x = torch.zeros(n)\n    g()\n    x.copy_(y)\n    return x\n",
        # Not a local: a global.
        "import torch\ndef f(y, n):\n    global x\n    x = torch.zeros(n)\n    x.copy_(y)\n",
        # A write in an assert, which `python -O` drops.
        "import torch\ndef f(y, n):\n    x = torch.zeros(n)\n"
        "    assert x.copy_(y) is not None\n    return x\n",
        # A write only in the arm of a conditional expression.
        "import torch\ndef f(y, n, c):\n    x = torch.zeros(n)\n    x.copy_(y) if c else None\n    return x\n",
        # A custom operator may write part of `out`.
        "import torch\ndef f(y, n):\n    x = torch.zeros(n)\n    torch.ops.mylib.kernel(y, out=x)\n    return x\n",
        # A context manager may swallow the exception of a failed copy.
        "import torch\nfrom contextlib import suppress\ndef f(y, n):\n    x = torch.zeros(n)\n"
        "    with suppress(RuntimeError):\n        x.copy_(y)\n    return x\n",
        # `torch` here is a parameter, not the module.
        "def f(torch, y, n):\n    x = torch.zeros(n)\n    x[:] = y\n    return x\n",
        # A helper that writes its parameter only sometimes, or after reading it.
        "import torch\ndef fill(dst, src, c):\n    if c:\n        dst.copy_(src)\n"
        "def f(y, n, c):\n    x = torch.zeros(n)\n    fill(x, y, c)\n    return x\n",
        "import torch\ndef fill(dst, src):\n    dst += src\n    dst.copy_(src)\n"
        "def f(y, n):\n    x = torch.zeros(n)\n    fill(x, y)\n    return x\n",
        # A decorated helper may not run its body as written.
        "import torch, functools\n@functools.lru_cache\ndef fill(dst):\n    dst.fill_(1)\n"
        "def f(n):\n    x = torch.zeros(n)\n    fill(x)\n    return x\n",
        # A kernel attnlint cannot see into, not declared in `full-write-calls`.
        "import torch\nfrom kernels import decode_attention_fwd\n"
        "def f(q, k, v, n):\n    o = torch.zeros(n)\n    decode_attention_fwd(q, k, v, o)\n"
        "    return o\n",
        # `broadcast` reads the tensor on the source rank; `async_op` writes later.
        "import torch\nimport torch.distributed as dist\ndef f(n):\n    x = torch.zeros(n)\n"
        "    dist.broadcast(x, 0)\n    return x\n",
        "import torch\nimport torch.distributed as dist\ndef f(y, n):\n    x = torch.zeros(n)\n"
        "    work = dist.all_gather_into_tensor(x, y, async_op=True)\n    return x, work\n",
        # `gather` writes its `gather_list` on the destination rank only.
        "import torch\nimport torch.distributed as dist\ndef f(y, n):\n"
        "    gathered = [torch.zeros_like(y) for _ in range(n)]\n"
        "    dist.gather(y, gathered, dst=0)\n    return gathered\n",
        # A list read before the collective writes it, or written in part.
        "import torch\nimport torch.distributed as dist\ndef f(y, n):\n"
        "    gathered = [torch.zeros_like(y) for _ in range(n)]\n"
        "    print(gathered[0].sum())\n    dist.all_gather(gathered, y)\n"
        "    return gathered\n",
        "import torch\nimport torch.distributed as dist\ndef f(y, n):\n"
        "    gathered = [torch.zeros_like(y) for _ in range(n)]\n"
        "    dist.all_gather(gathered[:2], y)\n    return gathered\n",
        # Stored to `self`, then a call that may read `self._table` before the write.
        "import torch\nclass P:\n    def plan(self, host, n):\n"
        "        table = torch.zeros(n)\n        self._table = table\n"
        "        self.refresh()\n        table.copy_(host)\n",
        # Stored to `self`, then a method of the class that writes a part of it.
        "import torch\nclass P:\n    def _fill(self, host, n):\n"
        "        self._table[:n].copy_(host)\n"
        "    def plan(self, host, n):\n        table = torch.zeros(2 * n)\n"
        "        self._table = table\n        self._fill(host, n)\n        return table\n",
    )
    invalid = (
        Invalid(
            "import torch\n\ndef f(y, n):\n    x = torch.zeros(n, dtype=torch.int32)\n"
            "    x.copy_(y)\n    return x\n",
            fixed="import torch\n\ndef f(y, n):\n    x = torch.empty(n, dtype=torch.int32)\n"
            "    x.copy_(y)\n    return x\n",
        ),
        Invalid(
            "import torch as th\n\ndef f(y):\n    x = th.zeros_like(y)\n    x[:] = y * 2\n"
            "    return x\n",
            fixed="import torch as th\n\ndef f(y):\n    x = th.empty_like(y)\n    x[:] = y * 2\n"
            "    return x\n",
        ),
        Invalid(
            "def f(y, n):\n    x = y.new_zeros(n, 4)\n    x[:, :] = 1\n    return x\n",
            fixed="def f(y, n):\n    x = y.new_empty(n, 4)\n    x[:, :] = 1\n    return x\n",
        ),
        Invalid(
            "from torch import zeros\n\ndef f(y, n, c):\n    x = zeros(n)\n    if c:\n"
            "        x.fill_(1)\n    else:\n        x.uniform_()\n    return x\n",
            fixed="from torch import empty, zeros\n\ndef f(y, n, c):\n    x = empty(n)\n"
            "    if c:\n        x.fill_(1)\n    else:\n        x.uniform_()\n    return x\n",
        ),
        Invalid(
            "import torch\n\ndef f(y, n):\n    x = torch.full((n,), 0.0, device=y.device)\n"
            "    torch.mul(y, 2, out=x)\n    return x\n",
            fixed="import torch\n\ndef f(y, n):\n    x = torch.empty((n,), device=y.device)\n"
            "    torch.mul(y, 2, out=x)\n    return x\n",
        ),
        Invalid(
            "import torch\n\ndef f(y, n):\n    x = torch.full((n,), 0)\n    x[...] = y\n"
            "    return x\n",
            fixed="import torch\n\ndef f(y, n):\n    x = torch.empty((n,), dtype=torch.int64)\n"
            "    x[...] = y\n    return x\n",
        ),
        # A function-level import of torch, and a manager that never swallows.
        Invalid(
            "def f(y, n):\n    import torch\n    x = torch.zeros(n)\n"
            "    with torch.no_grad():\n        x[:] = y\n    return x\n",
            fixed="def f(y, n):\n    import torch\n    x = torch.empty(n)\n"
            "    with torch.no_grad():\n        x[:] = y\n    return x\n",
        ),
        # `dtype=None`: `full` infers int64 from the fill, and the fix says so.
        Invalid(
            "import torch\n\ndef f(y, n):\n    x = torch.full((n,), 0, dtype=None)\n"
            "    x.copy_(y)\n    return x\n",
            fixed="import torch\n\ndef f(y, n):\n    x = torch.empty((n,), dtype=torch.int64)\n"
            "    x.copy_(y)\n    return x\n",
        ),
        # A dtype that may be None: the fix is unsafe.
        Invalid(
            "import torch\n\ndef f(y, n, dt=None):\n    x = torch.full((n,), 0, dtype=dt)\n"
            "    x.copy_(y)\n    return x\n",
            fixed="import torch\n\ndef f(y, n, dt=None):\n    x = torch.empty((n,), dtype=dt)\n"
            "    x.copy_(y)\n    return x\n",
        ),
        # Through a helper of the module that writes its parameter whole.
        Invalid(
            "import torch\n\ndef _fill(dst, src):\n    dst.copy_(src)\n\n"
            "def f(y, n):\n    x = torch.zeros(n)\n    _fill(x, y)\n    return x\n",
            fixed="import torch\n\ndef _fill(dst, src):\n    dst.copy_(src)\n\n"
            "def f(y, n):\n    x = torch.empty(n)\n    _fill(x, y)\n    return x\n",
        ),
        # A collective whose output is written whole.
        Invalid(
            "import torch\nimport torch.distributed as dist\n\ndef f(y, n):\n"
            "    x = torch.zeros(n)\n    dist.all_gather_into_tensor(x, y)\n    return x\n",
            fixed="import torch\nimport torch.distributed as dist\n\ndef f(y, n):\n"
            "    x = torch.empty(n)\n    dist.all_gather_into_tensor(x, y)\n    return x\n",
        ),
        # A list of zero fills, each tensor written whole by the collective.
        Invalid(
            "import torch\nimport torch.distributed as dist\n\ndef f(y, world_size):\n"
            "    gathered = [torch.zeros_like(y) for _ in range(world_size)]\n"
            "    dist.all_gather(gathered, y)\n    return torch.cat(gathered)\n",
            fixed="import torch\nimport torch.distributed as dist\n\n"
            "def f(y, world_size):\n"
            "    gathered = [torch.empty_like(y) for _ in range(world_size)]\n"
            "    dist.all_gather(gathered, y)\n    return torch.cat(gathered)\n",
        ),
        Invalid(
            "import torch\nimport torch.distributed as dist\n\ndef f(inputs):\n"
            "    outputs = [torch.zeros(t.shape, dtype=t.dtype) for t in inputs]\n"
            "    dist.all_to_all(outputs, inputs)\n    return outputs\n",
            fixed="import torch\nimport torch.distributed as dist\n\ndef f(inputs):\n"
            "    outputs = [torch.empty(t.shape, dtype=t.dtype) for t in inputs]\n"
            "    dist.all_to_all(outputs, inputs)\n    return outputs\n",
        ),
        # In a process group (unsafe: a rank outside it gets nothing written).
        Invalid(
            "import torch\nimport torch.distributed as dist\n\n"
            "def f(y, world_size, pg):\n"
            "    gathered = [torch.zeros_like(y) for _ in range(world_size)]\n"
            "    dist.all_gather(gathered, y, group=pg)\n    return gathered\n",
            fixed="import torch\nimport torch.distributed as dist\n\n"
            "def f(y, world_size, pg):\n"
            "    gathered = [torch.empty_like(y) for _ in range(world_size)]\n"
            "    dist.all_gather(gathered, y, group=pg)\n    return gathered\n",
        ),
        # `scatter` writes its output tensor on every rank.
        Invalid(
            "import torch\nimport torch.distributed as dist\n\ndef f(chunks, n):\n"
            "    out = torch.zeros(n)\n    dist.scatter(out, chunks, src=0)\n"
            "    return out\n",
            fixed="import torch\nimport torch.distributed as dist\n\ndef f(chunks, n):\n"
            "    out = torch.empty(n)\n    dist.scatter(out, chunks, src=0)\n"
            "    return out\n",
        ),
        # A method of the same class (unsafe: a subclass may override it).
        Invalid(
            "import torch\n\nclass B:\n    def _fill(self, dst):\n        dst.fill_(1)\n\n"
            "    def f(self, n):\n        x = torch.zeros(n)\n        self._fill(x)\n"
            "        return x\n",
            fixed="import torch\n\nclass B:\n    def _fill(self, dst):\n        dst.fill_(1)\n\n"
            "    def f(self, n):\n        x = torch.empty(n)\n        self._fill(x)\n"
            "        return x\n",
        ),
        # Stored to `self` first, nothing reading it before the write (unsafe).
        Invalid(
            "import torch\n\nclass P:\n    def plan(self, host, n):\n"
            "        table = torch.zeros(n, dtype=torch.int32)\n        self._table = table\n"
            "        table.copy_(host)\n",
            fixed="import torch\n\nclass P:\n    def plan(self, host, n):\n"
            "        table = torch.empty(n, dtype=torch.int32)\n        self._table = table\n"
            "        table.copy_(host)\n",
        ),
        # Stored to `self`, then written whole by a method of the class (unsafe).
        Invalid(
            "import torch\n\nclass P:\n    def _fill(self, host):\n"
            "        self._table.copy_(host)\n\n    def plan(self, host, n):\n"
            "        table = torch.zeros(n, dtype=torch.int32)\n        self._table = table\n"
            "        self._fill(host)\n        return table\n",
            fixed="import torch\n\nclass P:\n    def _fill(self, host):\n"
            "        self._table.copy_(host)\n\n    def plan(self, host, n):\n"
            "        table = torch.empty(n, dtype=torch.int32)\n        self._table = table\n"
            "        self._fill(host)\n        return table\n",
        ),
        Invalid(
            "import torch\n\ndef f(y, n):\n    x: torch.Tensor = torch.zeros(n)\n"
            "    m = x.shape[0]\n    x.zero_()\n    return x, m\n",
            fixed="import torch\n\ndef f(y, n):\n    x: torch.Tensor = torch.empty(n)\n"
            "    m = x.shape[0]\n    x.zero_()\n    return x, m\n",
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        model = ctx.model
        declarations = tuple(ctx.options.full_write_calls)
        summaries = module_summaries(model)

        def may_be_written(text: str, name: str) -> bool:
            # Before the flow: a zero-filled buffer whose name is never used in
            # a form that can write it whole (``x.copy_``, ``x[:] =``, ``out=x``)
            # nor passed to a call that may (a function of the module that may
            # write a parameter whole, given the name between its call's
            # parentheses; a collective or a declared kernel, which any name
            # may call) cannot be reported.
            if (
                may_fully_write(text, name)
                or bool(declarations)
                or summaries.may_pass_to_writer(text, name)
            ):
                return True
            # Stored to ``self.x``, then written through a method of the class.
            if not may_be_stored_to_attribute(text, name):
                return False
            called = called_method_names(text)
            return called is None or summaries.may_write_attributes(called)

        rewriter = EmptyRewriter(ctx)
        for info in functions_to_analyze(
            ctx, ZERO_FILL_NAMES, _zero_filled, may_be_written
        ):
            flow = model.flow(info.node)
            scope = model.scope(info.node)
            calls = call_effects(model, info, declarations)
            uses = tensor_uses_for(flow, scope, calls)
            receiver = calls.receiver
            lists = local_list_allocations(flow, scope)
            for local in (*local_allocations(flow, scope), *lists):
                allocation = local.allocation
                if not allocation.zero_filled:
                    continue
                name = local.target.id
                listed = allocation.call is not local.stmt.value
                stored = None
                if not uses.first_use_is_full_write_on_every_path(name, local.binding):
                    stored = _stored_then_overwritten(uses, name, local, receiver)
                    if stored is None:
                        continue
                    writes = [stored[1]]
                else:
                    firsts, _ = uses.first_uses(name, local.binding)
                    writes = [u for u in firsts if u.effect is UseEffect.FULL_WRITE]
                captures = enclosing_managers(
                    allocation.call, flow, scope, CAPTURE_MANAGERS
                )
                if any(
                    enclosing_managers(u.event.node, flow, scope, CAPTURE_MANAGERS)
                    != captures
                    for u in writes
                ):
                    continue  # captured: the write runs at each replay, not now
                assumed = sorted(
                    {u.detail for u in writes if u.detail is not Detail.NONE},
                    key=lambda detail: detail.value,
                )
                # ``h.new_zeros(n)`` of an object of the module's own class,
                # whose method (or ``new_empty``) may be another.
                redefined = allocation.method and any(
                    class_hooks(ctx.model).defines(method)
                    for method in (
                        allocation.call.func.attr,  # type: ignore[attr-defined]
                        EMPTY_COUNTERPART[allocation.function],
                    )
                )
                unsafe = bool(assumed) or stored is not None or redefined
                applicability = Applicability.UNSAFE if unsafe else Applicability.SAFE
                fix = rewriter.fix(allocation, applicability)
                rows_written = sorted({u.row for u in writes})
                where = ", ".join(str(row) for row in rows_written)
                lines = f"line{'s' if len(rows_written) > 1 else ''} {where}"
                if listed:
                    message = (
                        f"`{name}` is a list of tensors zero-filled by "
                        f"`{allocation.display}`, each then overwritten completely "
                        f"({lines}) before any read: the zeros are never seen"
                    )
                else:
                    message = (
                        f"`{name}` is zero-filled by `{allocation.display}`, then "
                        f"overwritten completely ({lines}) before any read: the "
                        "zeros are never seen"
                    )
                for detail in assumed:
                    message += f"; {_assumption(detail, writes, flow, calls)}"
                if redefined:
                    message += (
                        "; a class of this module defines a method of that name "
                        "or of its counterpart, which the call may reach"
                    )
                if stored is not None:
                    message += (
                        f"; it is stored to `self.{stored[0]}` first, which nothing "
                        "reads before the write (if the write raises, "
                        f"`self.{stored[0]}` keeps the zeros)"
                    )
                yield ctx.report(self, allocation.call, message, fix)


def _stored_then_overwritten(
    uses: TensorUses, name: str, local: LocalAllocation, receiver: str | None
) -> tuple[str, Use] | None:
    """The attribute of ``self`` the buffer is stored to first, and the full
    write that follows with nothing reading the attribute in between."""
    firsts, _ = uses.first_uses(name, local.binding)
    if len(firsts) != 1:
        return None
    return overwritten_after_store(uses.flow, uses, name, firsts[0], receiver)


def _zero_filled(allocation: Allocation) -> bool:
    return allocation.zero_filled


def _assumption(
    detail: Detail, writes: list[Use], flow: FunctionFlow, calls: CallEffects | None
) -> str:
    """What the writes of the kind ``detail`` rest on, for the message: the
    ``full-write-calls`` entries, or the methods a subclass may override."""
    assumed = [u for u in writes if u.detail is detail]
    rows = ", ".join(str(row) for row in sorted({u.row for u in assumed}))
    named: list[str] = []
    for use in assumed:
        call = enclosing_call(use.event.node, flow.parents)
        if call is None:
            call = _method_call(use.event.node, flow.parents)  # ``self.m(...)``
        if call is None:
            continue
        if detail is Detail.DECLARED and calls is not None:
            entry = calls.declaration(call)
            if entry is not None:
                shown = ", ".join(repr(item) for item in entry[1]).replace("'", '"')
                named.append(f'`full-write-calls` declares `"{entry[0]}" = [{shown}]`')
        elif detail is Detail.METHOD and isinstance(call.func, ast.Attribute):
            named.append(f"`{call.func.attr}` is a method a subclass may override")
    reasons = "; ".join(dict.fromkeys(named)) or detail.value
    return (
        f"the write at line {rows} rests on a declaration: {reasons}"
        if (detail is Detail.DECLARED)
        else f"the write at line {rows} is assumed: {reasons}"
    )


def _method_call(node: ast.AST | None, parents) -> ast.Call | None:
    """The call ``node.m(...)`` whose receiver ``node`` is."""
    parent = parents.get(node)
    if isinstance(parent, ast.Attribute) and parent.value is node:
        call = parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent:
            return call
    return None
