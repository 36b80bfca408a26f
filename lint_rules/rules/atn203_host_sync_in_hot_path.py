"""ATN203 host-sync-in-hot-path."""

from __future__ import annotations

import ast
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from functools import cached_property, partial
from operator import itemgetter

from lint_rules import prefilter
from lint_rules.analysis.hot_paths import (
    Cost,
    GlobMatcher,
    _matcher,
    jit_compiled,
    may_leave,
)
from lint_rules.analysis.nodes import (
    COMPOUND_STATEMENTS,
    LEAF_TYPES,
    NODE_FIELDS,
    TryStar,
    any_row_between,
    child_nodes,
    concrete_types,
    dotted_name,
    names_bound_by,
    node_fields,
    walk,
    walk_rows,
)
from lint_rules.analysis.summaries import _private, module_summaries
from lint_rules.analysis.torch_api import HOST_FACTORIES
from lint_rules.context import Context
from lint_rules.diagnostics import Finding
from lint_rules.rules.base import Invalid, Rule

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

#: Methods whose result is a host value (a Python number or list, a NumPy
#: array, a host tensor).
_TO_HOST_METHODS = frozenset({"item", "tolist", "cpu", "numpy", "pin_memory"})
#: Methods that move a value to the device.
_TO_DEVICE_METHODS = frozenset({"cuda", "to"})
#: Reductions whose result, read on the host, is one sync each.
_REDUCTIONS = frozenset(
    {"sum", "max", "min", "amax", "amin", "mean", "prod", "any", "all", "argmax"}
)
#: The ``torch`` functions of the reductions (``torch.sum(x)``): a tensor.
_REDUCTION_FUNCTIONS = frozenset(f"torch.{name}" for name in _REDUCTIONS)
#: Tensor methods that, in a truth test, make the host wait for the value.
_TRUTH_METHODS = frozenset({"any", "all"})
_TRUTH_FUNCTIONS = frozenset({"torch.any", "torch.all"})
#: Functions and methods that give a Python bool read off the device: a
#: sync wherever they are called, in a test or not.
_BOOL_FUNCTIONS = {
    "torch.equal": "torch.equal()",
    "torch.allclose": "torch.allclose()",
    "torch.is_nonzero": "torch.is_nonzero()",
}
_BOOL_METHODS = frozenset({"equal", "allclose", "is_nonzero"})
#: The last part of each: what a call's name must end in to be one.
_TRUTH_NAMES = _TRUTH_METHODS | {name.rpartition(".")[2] for name in _TRUTH_FUNCTIONS}
#: Functions whose output size depends on the values: the host waits for them.
_DATA_DEPENDENT_FUNCTIONS = {
    "torch.nonzero": "torch.nonzero()",
    "torch.argwhere": "torch.argwhere()",
    "torch.unique": "torch.unique()",
    "torch.unique_consecutive": "torch.unique_consecutive()",
    "torch.masked_select": "torch.masked_select()",
}
_DATA_DEPENDENT_METHODS = frozenset(
    {"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select"}
)
_FACTORIES = HOST_FACTORIES
#: Factories whose arguments are sizes (``torch.empty(n, d)``): how many
#: positional arguments are (None: all of them) and the keywords that are.
#: Python reads a tensor given as a size (``__index__``): a sync.
_SIZED_FUNCTIONS: dict[str, tuple[int | None, tuple[str, ...]]] = {
    "torch.empty": (None, ("size",)),
    "torch.zeros": (None, ("size",)),
    "torch.ones": (None, ("size",)),
    "torch.rand": (None, ("size",)),
    "torch.randn": (None, ("size",)),
    "torch.full": (1, ("size",)),
    "torch.arange": (None, ("start", "end", "step")),
}
#: Tensor methods that make a tensor of a given size (``x.new_empty(n)``).
_SIZED_METHODS: dict[str, tuple[int | None, tuple[str, ...]]] = {
    "new_empty": (None, ("size",)),
    "new_zeros": (None, ("size",)),
    "new_ones": (None, ("size",)),
    "new_full": (1, ("size",)),
}
_SIZED_NAMES = frozenset(
    {name.rpartition(".")[2] for name in _SIZED_FUNCTIONS} | set(_SIZED_METHODS)
)
#: Operations that take a Python integer (a count, a dimension, a
#: position): Python reads a tensor given there with ``__index__`` (or the
#: operation with ``.item()``: ``narrow``'s tensor ``start``), a sync. The
#: name of each such parameter by its position after the tensor operated
#: on (``torch.topk(x, k)``, ``x.topk(k)``; keywords by these names).
_INT_PARAMETERS: dict[str, tuple[str, ...]] = {
    "topk": ("k", "dim"),
    "kthvalue": ("k", "dim"),
    "narrow": ("dim", "start", "length"),
}
#: Builtins that compare the elements of an iterable, or read the truth of
#: each (``max(t)`` runs ``bool(b > a)`` on its items): given a tensor, they
#: read its elements on the host (``_elementwise_builtin``).
_COMPARING_BUILTINS = frozenset({"max", "min", "sorted", "any", "all"})
#: Methods and functions whose call may be a sync (``sync`` decides).
_SYNC_CALL_NAMES = frozenset(
    {"item", "tolist", "numpy", "cpu", "to", "synchronize", "int", "float", "bool"}
    | {"repeat_interleave", "range", "where"}
    | _COMPARING_BUILTINS
    | _DATA_DEPENDENT_METHODS
    | _BOOL_METHODS
    | _SIZED_NAMES
    | set(_INT_PARAMETERS)
)
#: Methods of a tensor whose result is not a tensor (``is_tensor``): its
#: storage is no tensor either (``x.untyped_storage().nbytes()``).
_NOT_TENSOR_METHODS = frozenset(
    {
        "item",
        "tolist",
        "numpy",
        "equal",
        "allclose",
        "type",
        "__len__",
    }
)
#: Methods that give a tensor's storage (``x.untyped_storage()``).
_STORAGE_METHODS = frozenset({"untyped_storage", "storage", "_typed_storage"})
_NOT_TENSOR_METHODS |= _STORAGE_METHODS
#: Functions of ``torch`` whose result is not a tensor (``is_tensor``; and
#: any whose name starts ``is_``, ``get_``, ``set_`` or ``can_``).
_NOT_TENSOR_FUNCTIONS = frozenset(
    {
        "numel",
        "equal",
        "allclose",
        "result_type",
        "promote_types",
        "device",
        "dtype",
        "Size",
        "finfo",
        "iinfo",
        "typename",
    }
)
#: Functions whose result is always on the host.
_HOST_FUNCTIONS = frozenset({"torch.from_numpy"})
#: Methods that give back a value stored in a container (``d.get(k)``).
_ELEMENT_METHODS = frozenset({"get", "pop", "setdefault", "popitem"})
#: Builtins whose result is a Python value (``getattr`` gives the
#: attribute's value: ``_where_getattr``).
_HOST_BUILTINS = frozenset(
    {
        "len",
        "int",
        "float",
        "bool",
        "str",
        "range",
        "list",
        "tuple",
        "dict",
        "set",
        "sorted",
        "enumerate",
        "zip",
        "isinstance",
        "hasattr",
        "round",
        "abs",
        "divmod",
        "min",
        "max",
        "sum",
        "any",
        "all",
    }
)
_HOST_ANNOTATIONS = frozenset({"int", "float", "bool", "str", "list", "tuple", "dict"})

#: Methods that read a tensor's metadata, not its elements: a host value.
_METADATA_METHODS = frozenset(
    {
        "dim",
        "ndimension",
        "dim_order",
        "has_names",
        "nbytes",
        "size",
        "numel",
        "nelement",
        "stride",
        "element_size",
        "data_ptr",
        "is_contiguous",
        "get_device",
        "storage_offset",
        "is_pinned",
    }
)

#: Attributes of a tensor, or of the named tuple a torch function returns
#: (``torch.max(x, dim=1).values``), that are a tensor where it is.
_SAME_PLACE_ATTRIBUTES = frozenset({"values", "indices", "T", "mT", "data"})
#: Nodes whose value is a Python object, never a tensor (``where``): a
#: constant, an f-string, a display, a comprehension (not a generator).
_PYTHON_NODES = frozenset(
    {
        ast.Constant,
        ast.JoinedStr,
        ast.List,
        ast.Tuple,
        ast.Dict,
        ast.Set,
        ast.ListComp,
        ast.SetComp,
        ast.DictComp,
    }
)

#: Where a value lives: a host tensor or array, a Python value, the device.
HOST, PYTHON, DEVICE, UNKNOWN = "host", "python", "device", "unknown"
_ON_HOST = frozenset({HOST, PYTHON})


class HostSyncInHotPath(Rule):
    """## What it does
    Checks for device-to-host synchronizations in functions that run per
    step: `.item()`, `.tolist()`, `.cpu()`, `.numpy(force=True)`, `.to("cpu")`,
    `int()`/`float()`/`bool()` of a tensor, a tensor as the test of `if`,
    `while`, `assert`, `and`/`or`/`not` (`if x.any():`, `while
    torch.max(lens):`, `if t.sum():` or `if mask[i]:` of a tensor known to
    be one; the last operand of an `and` that is a test is one too: `if
    flag and x.any():`; and the `if` of a comprehension, `[s for i, s in
    enumerate(seqs) if mask[i]]`), the
    Python bool of `torch.equal`, `torch.allclose` and `torch.is_nonzero`
    (in a test or not), `nonzero` (and `torch.where(cond)` of one
    argument, which is `nonzero`),
    `unique`, `masked_select`, boolean-mask indexing (`q[lens > 0]`, a
    mask as one element of a tuple index, `q[m, :]`; a mask is a
    comparison, `~` of one, or a local bound to one or to a tensor of
    booleans torch makes, `torch.tensor(f, dtype=torch.bool, device=d)`,
    `x.bool()`), `synchronize()` (a device module's also given its device,
    `torch.cuda.synchronize(d)`), a tensor as a slice bound (`x[:indptr[-1]]`), as a
    factory's size (`torch.empty(indptr[-1])`, `torch.arange(n)`), as an
    integer an operation takes (`torch.topk(x, k=n)`, `x.narrow(0, start,
    n)`, `kthvalue`) or as a
    bound of the builtin `range` (`for i in range(lens.max()):`), a tensor
    given to the builtin `max`, `min` or `sorted` (which compare its
    elements, or it with another value: `max(t)`, `min(m, n)`) or to `any`
    or `all` (which read each element's truth), without a `key=`, and
    `repeat_interleave` with tensor repeats and no `output_size=`, on values
    not known to live on the host.

    A slice bound, a size, an integer argument or a `range` bound is read
    by Python (`__index__`), which copies a
    tensor's value to the host; `repeat_interleave` reads the sum of its
    repeats to size its output. These, and the builtins' arguments, are
    reported only where the value is known to be a tensor: an element or slice of a tensor (`indptr[-1]`; of
    a list it would be a Python value), a reduction, arithmetic with a
    tensor, a comparison of one (`t = lens.max() > 0`; not `is`, `in` or a
    chain), a `torch` function's result, a name declared `torch.Tensor`
    (or one of torch's typed tensor classes, `torch.LongTensor`), or
    a local every binding of which is one, an attribute `self.X` every
    assignment of which in the class's methods (and in its bases' and
    subclasses' of the module) is a tensor not on the host (`None` too,
    where it is indexed) or that the class body declares `torch.Tensor`.
    A module's buffer or parameter that the constructor makes
    (`self.register_buffer("pos", torch.arange(n))`,
    `self.register_parameter(...)`, `self.w = nn.Parameter(...)`, and a
    constructor's later store to a name it registers) is such a tensor
    whatever device its factory names: `model.to(device)` moves it (or a
    `with torch.device(d):` made it there), and a module whose methods run
    per step is taken to run on the accelerator (no module is known to
    stay on the CPU); in-place updates and `-=` keep it, a store of a
    host value in another method makes it unknown, and one registered or
    stored after construction is judged as any store. A
    parameter not declared a tensor (`def f(indptr):`) may hold a list or
    an int, and so may an attribute assigned a list, a host tensor or an
    unknown value in any method, or written through `setattr`, `__dict__`,
    a `register_buffer` of a name computed when it runs or a nested
    function: their elements are not reported (a `del self.x` binds no
    value: a read after it fails, or reads what a later store or the class
    body binds, which count). A base class of another module is not seen: the class's own
    assignments decide. A tensor as an index (`x[t]`) is not a sync: it is
    gathered on the device.

    A function runs per step when its name matches `hot-path-methods`
    (`forward`, `forward_*`, `init_forward_metadata*`, `*replay*`,
    `*MetadataBuilder.build`, FlashInfer's `*Wrapper.plan`/`run`), or when
    such a function of the module calls it (`self.m()`, `m()`); capture and
    warm-up methods (`capture*`, `*_capture_*`, `*warmup*`), `__init__` and
    the `graph-state-methods` run at start-up. A memoized function
    (`@functools.cache`, `@functools.lru_cache`) whose parameters are all
    declared values that hash by what they hold (`int`, `tuple[int, ...]`,
    `torch.device`) runs once per distinct arguments, a shape or a
    geometry: a call of it does not make it, or what only it calls, run
    per step (a tensor, an object or an undeclared parameter hashes by
    identity, or may: a cache on one may miss every step, and stays per
    step, unless the call gives it what a memoized function of values of
    the module returned, the same object on a hit).

    A value lives on the host when it is a Python number, list or literal
    (a global the module binds only to numbers, `STEPS = 1000`, too; an
    item of a list is where its items are known to be: of `[t.cuda() for
    ...]`, of a list the function appends device tensors to, of `zip()`
    or `enumerate()` of such, on the device; the element of a pair of
    `zip()` or `enumerate()` that comes from a tensor is a row of it, where
    the tensor is), a tensor's metadata
    (`.size()`, `.ndimension()`, `.untyped_storage().nbytes()`),
    the result of `.cpu()`, `.numpy()`, `.tolist()`, `.item()` or
    `torch.from_numpy`, a factory given no device or `device="cpu"` (any
    `torch` function told `device=`/`map_location="cpu"`), a
    local bound only to such values (in a loop, a binding that only
    reshapes the local's own value, `x = x.view(n, -1)`, keeps it; the
    bindings that may reach the read count, and an `if`/`else` before it
    that binds the local in each arm ends those before it, and a binding
    that a later assignment of its own block rebinds, with no `break`,
    `continue`, `try` or `with` that may leave the block between them,
    reaches no read outside that block; inside a loop,
    the last binding on the read's own path before it ends those the loop
    makes after the read, unless a loop that holds the read starts after
    it: `rotation = [t]` at the top of a pass, then `rotation[0]`, then
    `rotation = rotation.to(device)`, reads the list; a `while` test reads
    what its body binds; a comprehension's variable is its own, in it and
    after it; a parameter
    rebound on the read's own path, `x = x.cpu()`, before the read or the
    loop that holds it, no longer holds the caller's value), a parameter
    declared a NumPy array (`x: np.ndarray`, `npt.NDArray[...]`), the result of a call that names the CPU as its device
    (`get_for_device(params, "ids", "cpu")`, `load(f, map_location="cpu")`;
    a function the rule does not read; not where another device is given
    too, `copy_blocks(x, "cpu", "cuda")`, `x.device`, `device=dev`), a
    name matching `host-tensor-names`
    (`getattr(batch, "lens_cpu", None)` is where `batch.lens_cpu` is; what
    a dict's `.get()` gives may be a tensor)
    (`seq_lens_cpu`, `self.kv_indptr_host`), or a parameter of a function
    private to the module (`_update`, `self._plan`: one leading underscore)
    that every call of the module passes such a value. A public function
    may be called from another module with a device tensor: its parameters
    are not known, unless it runs per step only through the module's own
    calls (its chain from an entry point passes through a caller, and it
    is no entry point itself): on that chain its parameters hold what the
    module's calls pass, and where every mention of its name is such a
    call (`self.update = self.update_single_wrapper` making every call of
    an attribute `update` one), these are read as a private function's. A `torch` function's result is where its arguments are,
    and a list of tensors given to it where its elements are
    (`torch.cat([a, b])`, `torch.stack([s.lens for s in seqs])`: not a
    Python list's place); a 0-d tensor made on the host from one number
    (`torch.tensor(w + 1)`, of a name declared `int` or `float`, of
    `len(...)`) counts as that number beside a tensor not known
    to be on the host (PyTorch moves it to the other's device:
    `torch.minimum(lens, torch.tensor(w + 1))` is where `lens` is). A device guard on a local or a parameter (`x.is_cuda`,
    `x.is_cpu`, `x.device.type == "cpu"`, negated or not; the `else` of
    `isinstance(x, torch.Tensor)`: no tensor; each operand of `and` says
    so of the body, `if q.is_cpu and lens.is_cpu:`, of `or` of the
    `else`) says where it
    lives in each arm of its `if`, and after an `if` one arm of which always
    leaves (`raise`, `return`, `continue`, `break`), in the rest of the
    block, until the name is rebound: `x.item()` in the `else` of `if
    x.is_cuda:`, or after `if x.is_cuda: raise ...`, is a host read.

    The per-request loops of reference backends (`x[start:end]` with
    0-d length tensors) are reported: each bound is one sync per request.

    Not reported: the body of a kernel a JIT compiler compiles (a function
    decorated with one of `jit-decorators`, `@triton.jit`, or nested in
    one, or compiled by a call of one at the top of the module, `fp32 =
    helion.kernel(_body, ...)`: its values are the compiler's, not tensors, and it runs on the
    device; not `@torch.compile` or `torch.jit`, whose functions run
    PyTorch code where a sync still waits), `.numpy()` without
    `force=True` (on a tensor not on the
    CPU it raises: it never waits for the GPU), a branch taken when a CUDA
    graph is captured (`if in_capture:`) or while `torch.jit.trace` records
    the function (`if torch.jit.is_tracing() and ...:`: the trace keeps the
    value read as a constant), also where such a test is one operand of an
    `and`, a branch that fills a cache on the first call (it runs
    once per object, not per step): the arm of an `if` whose test says a
    slot is empty (`self.x is None`, `not hasattr(self, "x")`, `k not in
    self.d`, or a local just read from it, `c = getattr(layer, "_x",
    None)`, `c = self.d.get(k)`) and that stores into that slot itself
    (`self.x = t.item()`, `self.d[k] = ...`) before it can leave, or the
    rest of the block after `if c is not None: return c`, where the slot is
    an attribute of the instance, an item of one, an item of a module
    global, or a private attribute of a method's other parameter
    (`layer._x`: a per-step batch's fields are public); a local, a deeper
    chain (`self.metadata.x`: the object between may be new each step) or
    an arm that does not store the slot is reported; the arm of a flag of
    the instance that the arm itself clears (`if self.F: ...; self.F =
    False`, `if not self.done: ...; self.done = True`), and a method of the
    class called under such a flag that clears it itself before it can
    leave (vLLM's `calc_kv_scales`), where no other code of the module sets
    the flag again (but a constructor's `self.F = ...`; not named in a
    string, as `setattr` could, nor a `setattr` of a name computed when it
    runs): both run once per object, what is evaluated only to be logged or raised
    (`logger.warning(...)`, `raise ValueError(...)`, the message of an
    `assert`, evaluated only when its test fails), a body the author
    marks as an accepted sync (`with gpu_sync_allowed():`), and a fallback
    for a missing host copy: the arm of an `if`, or of a conditional
    expression, taken only where a copy matching `host-tensor-names` is
    None (the `else` of `if batch.seq_lens_cpu is not None:`, the rest of
    the block after `if lens_cpu is not None: return ...`), where the copy
    is a field of an object, a local read from one, or a parameter with no
    default or of a private function: the per-step path reads the copy. A
    public function's parameter that defaults to None (`lens_cpu=None`) is
    an optional copy: a caller that leaves it out takes the fallback on
    every call, so that fallback is reported; unless the function runs per
    step only through the module's own calls and each of them passes a
    field of an object matching `host-tensor-names`
    (`lens_cpu=batch.seq_lens_cpu`), or passes a constant that keeps it
    out of the fallback (`use_ragged=False` where the fallback lies under
    `if use_ragged:`). A method stored on the instance
    (`self.update = self.update_single_wrapper`) is called by every call of
    that attribute.

    ## Why is this bad?
    Each of these stalls the CPU until the GPU has finished every kernel
    queued before it. In code that runs once per decode step, the CPU can
    no longer run ahead to launch the next kernels, and the GPU idles while
    the host prepares the next step. Serving engines chase these by hand:
    removing syncs from attention metadata preparation is a common
    throughput win. Not every removal wins (a host copy costs a transfer
    too): the rule reports and explains, and does not rewrite.

    The message names the sync and the chain of calls from the per-step
    entry point (`forward_decode -> _update_metadata`). Where one function
    reads several reductions of one tensor on the host, it says so: one
    transfer of them all would do, or the host copy the function already
    has (`seq_lens_cpu`) gives the values without waiting (not the copy the
    sync itself makes: `seq_lens_cpu = seq_lens.cpu()` names none).

    ## Example
    ```python
    class Backend:
        def init_forward_metadata(self, batch):
            max_len = batch.seq_lens.max().item()
            self.metadata.max_seq_len_k = max_len
    ```

    ## Use instead
    ```python
    class Backend:
        def init_forward_metadata(self, batch):
            max_len = batch.seq_lens_cpu.max().item()
            self.metadata.max_seq_len_k = max_len
    ```

    ## Fix safety
    No fix: the cure (a host copy kept beside the device tensor, a value
    computed on the host earlier) depends on code the rule cannot see.

    ## Options
    - `hot-path-methods`
    - `graph-state-methods`
    - `host-tensor-names`
    - `jit-decorators`
    """

    code = "ATN203"
    name = "host-sync-in-hot-path"
    # Every finding is in a function: a text without one has nothing to report.
    triggers = ("def",)
    fix_availability = "none"
    severity = "warning"

    valid = (
        # Start-up code.
        "class B:\n    def __init__(self, lens):\n        self.n = lens.max().item()\n",
        # Capture runs once per batch size, at start-up.
        "class B:\n    def init_forward_metadata_capture_cuda_graph(self, lens):\n"
        "        self.n = lens.max().item()\n",
        # A host copy.
        "class B:\n    def forward(self, batch):\n"
        "        return batch.seq_lens_cpu.max().item()\n",
        # A tensor made on the host.
        "import torch\nclass B:\n    def forward(self, n):\n"
        "        lens = torch.arange(n)\n        return lens.tolist()\n",
        # Values derived from a host copy.
        "import numpy as np\nclass B:\n    def forward(self, lens_cpu):\n"
        "        host = np.asarray(lens_cpu.numpy())\n"
        "        return host.tolist(), int(host[0])\n",
        # A private helper every call of the module passes a host copy.
        "class B:\n    def forward(self, batch):\n"
        "        return self._n(batch.seq_lens_cpu)\n"
        "    def _n(self, lens):\n        return lens.max().item()\n",
        # A function nothing per step calls.
        "def summarize(lens):\n    return lens.max().item()\n",
        # A memoized function of values: it runs once per geometry.
        "import functools\nimport torch\n"
        "@functools.lru_cache(maxsize=8)\n"
        "def geometry(shape: tuple[int, ...], device: torch.device):\n"
        "    sizes = torch.tensor(shape, device=device)\n"
        "    assert int(sizes.min()) > 0\n    return sizes\n"
        "class B:\n    def forward(self, x):\n"
        "        return geometry(tuple(x.shape), x.device)\n",
        # A Python truth test.
        "class B:\n    def forward(self, q, use_cache):\n"
        "        if use_cache and q is not None:\n            return q\n",
        # Slice bounds and sizes that are Python ints, or elements of a list
        # or of a host tensor; a tensor as an index (a gather on the device).
        "import torch\nclass B:\n    def forward(self, x: torch.Tensor, lens: list):\n"
        "        n = x.shape[0] - 1\n        m = lens[-1]\n"
        "        k = torch.tensor(lens)[-1]\n"
        "        return x[:n], x[:m], x[:k], torch.empty(m), x[x[0]]\n",
        # A parameter not declared a tensor: it may be a list.
        "class B:\n    def forward(self, x, indptr):\n        return x[: indptr[-1]]\n",
        # An attribute one method assigns a host tensor.
        "import torch\nclass B:\n    def __init__(self, n):\n"
        "        self.indptr = torch.zeros(n + 1, device='cuda')\n"
        "    def reset(self, n):\n        self.indptr = torch.zeros(n + 1)\n"
        "    def forward(self, x):\n        return x[: self.indptr[-1]]\n",
        # A device guard: the `else` of `is_cuda`, after an arm that raises.
        "class B:\n    def forward(self, lens, n):\n"
        "        if n.is_cuda:\n            n = 0\n"
        "        else:\n            n = n.item()\n"
        "        if lens.is_cuda:\n            raise ValueError('on the host')\n"
        "        return n, lens.tolist()\n",
        # A cache filled on the first call, kept on the instance or a layer.
        "class B:\n    def forward(self, layer, scale):\n"
        "        if self.n is None:\n            self.n = scale.item()\n"
        "        cached = getattr(layer, '_s', None)\n"
        "        if cached is not None:\n            return cached\n"
        "        layer._s = scale.item()\n        return self.n\n",
        # A fallback for a missing host copy: the per-step path reads the copy.
        "class B:\n    def forward(self, batch):\n"
        "        if batch.seq_lens_cpu is not None:\n"
        "            return batch.seq_lens_cpu.tolist()\n"
        "        return batch.seq_lens.tolist()\n",
        # `repeat_interleave` with an int, or with `output_size=`.
        "import torch\nclass B:\n    def forward(self, x, lens: torch.Tensor, n: int):\n"
        "        a = x.repeat_interleave(2)\n"
        "        return a, torch.repeat_interleave(x, lens, output_size=n)\n",
        # `.numpy()` raises on a tensor not on the CPU: it never waits.
        "class B:\n    def forward(self, out):\n        return out.ids.numpy()\n",
        # A value a function was told to give on the CPU; a branch taken
        # only while `torch.jit.trace` records the function.
        "import torch\nclass B:\n    def forward(self, params, causal):\n"
        "        slots = get_for_device(params, 'slots', 'cpu').tolist()\n"
        "        if torch.jit.is_tracing() and isinstance(causal, torch.Tensor):\n"
        "            causal = causal.item()\n"
        "        return slots, causal\n",
        # In a loop, a list bound again at the top of each pass: the device
        # tensor bound at the end of the pass never reaches the test.
        "class B:\n    def forward(self, pages, x):\n"
        "        for target in pages:\n            rotation = [target]\n"
        "            while target != rotation[0]:\n"
        "                rotation.append(target)\n"
        "            rotation = x.new_tensor(rotation).cuda()\n",
    )
    invalid = (
        # A 0-d CPU tensor of one number is moved to the device of the
        # tensor it is combined with: the result is not a host tensor.
        Invalid(
            "import torch\nclass B:\n    def forward(self, lens, w: int):\n"
            "        t = torch.minimum(lens, torch.tensor(w + 1))\n"
            "        return t.sum().item()\n"
        ),
        # ... but a list bound before the loop meets the device tensor the
        # pass binds, on the next pass.
        Invalid(
            "class B:\n    def forward(self, pages, x):\n"
            "        rotation = [0]\n        for target in pages:\n"
            "            if target != rotation[0]:\n                pass\n"
            "            rotation = x.new_tensor([target]).cuda()\n"
        ),
        Invalid(
            "class B:\n    def init_forward_metadata(self, batch):\n"
            "        self.max_len = batch.seq_lens.max().item()\n"
        ),
        # Reached from the entry point through a helper.
        Invalid(
            "class B:\n    def forward_decode(self, q, lens):\n"
            "        self._update(lens)\n"
            "    def _update(self, lens):\n        self.n = lens.tolist()\n"
        ),
        # A public method the engine calls itself (an entry point): another
        # module may pass it a device tensor.
        Invalid(
            "class B:\n    def forward(self, batch):\n"
            "        return self.forward_decode(batch.seq_lens_cpu)\n"
            "    def forward_decode(self, lens):\n        return lens.max().item()\n"
        ),
        # A truth test, boolean-mask indexing, and an explicit synchronize.
        Invalid(
            "import torch\nclass B:\n    def forward(self, q, lens):\n"
            "        if (lens > 0).any():\n            q = q[lens > 0]\n"
            "        torch.cuda.synchronize()\n        return q\n",
            count=3,
        ),
        # A 0-d device tensor as a slice bound and as a size, tensor repeats.
        Invalid(
            "import torch\nclass B:\n"
            "    def forward(self, x, indptr: torch.Tensor, lens: torch.Tensor):\n"
            "        last = indptr[-1]\n        y = x[:last]\n"
            "        z = torch.empty(indptr[-1], device=x.device)\n"
            "        return y, z, torch.repeat_interleave(x, lens)\n",
            count=3,
        ),
        # An attribute every assignment of which is a device tensor.
        Invalid(
            "import torch\nclass B:\n    def __init__(self, n):\n"
            "        self.indptr = torch.zeros(n + 1, device='cuda')\n"
            "    def forward(self, x):\n        return x[: self.indptr[-1]]\n"
        ),
        # A cache keyed by a tensor (its identity) may miss every step.
        Invalid(
            "import functools\nimport torch\n"
            "@functools.lru_cache(maxsize=8)\n"
            "def check(sizes: torch.Tensor):\n    return int(sizes.min())\n"
            "class B:\n    def forward(self, x):\n        return check(x)\n"
        ),
        # A "cache" in a local, or an arm that does not store it, runs per step.
        Invalid(
            "class B:\n    def forward(self, scale):\n        n = None\n"
            "        if n is None:\n            n = scale.item()\n"
            "        if self.m is None:\n            return scale.item()\n",
            count=2,
        ),
        # An optional copy of a public function: callers may leave it out.
        Invalid(
            "class B:\n    def forward(self, lens, lens_cpu=None):\n"
            "        if lens_cpu is None:\n            lens_cpu = lens.cpu()\n"
            "        return lens_cpu.tolist()\n"
        ),
        # A parameter replaced by its host copy: one sync, the `.cpu()`; the
        # reads after it are of the copy.
        Invalid(
            "import torch\nclass B:\n    def forward(self, token: torch.Tensor):\n"
            "        token = token.cpu()\n"
            "        return token.item(), token.tolist()\n"
        ),
        # What `getattr` or a dict's `.get()` gives may be a device tensor.
        Invalid(
            "class B:\n    def forward(self, batch, params):\n"
            "        lens = getattr(batch, 'extend_seq_lens', None)\n"
            "        conf = params.get('draft_conf')\n"
            "        return int(lens.sum().item()), conf.cpu()\n",
            count=2,
        ),
        # `.numpy(force=True)` copies a device tensor to the host first.
        Invalid(
            "class B:\n    def forward(self, out):\n"
            "        return out.ids.numpy(force=True)\n"
        ),
        # Several reductions of one tensor: one transfer would do.
        Invalid(
            "class B:\n    def forward(self, lens):\n"
            "        return lens.max().item(), lens.min().item()\n",
            count=2,
        ),
    )

    def check(self, ctx: Context) -> Iterator[Finding]:
        host_names = _host_name_matcher(ctx.options.host_tensor_names)
        callers = _Callers(ctx, host_names)
        try:
            yield from self._check_functions(ctx, host_names, callers)
        finally:
            # Workers check without the cyclic collector: the two lookups
            # refer to each other (and their provenances to them).
            callers.close()

    def _check_functions(
        self, ctx: Context, host_names: GlobMatcher | None, callers: _Callers
    ) -> Iterator[Finding]:
        model = ctx.model
        hot_paths = ctx.hot_paths
        attributes = callers.attributes
        literals = _glob_literals(ctx.options.host_tensor_names)
        scanned: list[tuple[int, int, _Marks]] = []  # (``_TextGate.marks``)
        for info in model.functions:
            cost = hot_paths.per_step(info.node)
            if cost is None:
                continue
            # Where values live is asked only of a node that has the shape
            # of a sync (most per-step functions have none).
            gate = _TextGate(ctx, info.node, scanned)
            assigned, masks = _local_names(info.bindings)
            candidates = _candidates(
                info.node,
                assigned,
                masks,
                gate,
                model.imported_names if gate.enabled else None,
            )
            if not candidates:
                continue
            if jit_compiled(info, model, ctx.options.jit_decorators, kernels_only=True):
                # A kernel's body (``@triton.jit``) runs on the device: its
                # values are the compiler's, not tensors, and nothing in it
                # waits for the GPU (a Triton kernel named ``*replay*``).
                continue
            # A sync that fills a cache kept on an object runs once per
            # object, not per step.
            rows = sorted({_extent(node)[0][0] for node in candidates})
            # (the ``if``s both kinds of fill are read off, found once)
            ifs = list(_ifs_over(info.node, rows))
            fills = _cache_fills(
                info.node,
                assigned,
                info.cls is not None,
                rows,
                gate.span if gate.enabled else None,
                ifs,
            )
            # ... and so does the arm of a flag of the instance that the arm
            # clears (``if self.F: ...; self.F = False``).
            fills += [_block_span(arm) for arm in hot_paths.once_arms(info)]
            if host_names is not None:
                # A fallback for a missing host copy: the path that has the
                # copy is the one taken per step.
                text = host_rows = None
                if gate.enabled:
                    text = gate.span([info.node])
                    if "None" in text and literals is not None:
                        host_rows = _rows_holding(
                            ctx.text,
                            ctx.locator.line_starts,
                            literals,
                            info.node.lineno,  # type: ignore[attr-defined]
                            info.node.end_lineno,  # type: ignore[attr-defined]
                        )
                fills += _host_fallbacks(
                    info.node,
                    rows,
                    host_names,
                    text,
                    host_rows,
                    info.bindings,
                    partial(_passed_by_callers, ctx, host_names)
                    if len(cost.chain) > 1
                    else None,
                    ifs,
                )
            if fills:
                candidates = [node for node in candidates if not _in_fill(node, fills)]
                if not candidates:
                    continue
            provenance = _Provenance(
                info.node,
                partial(model.scope, info.node),
                host_names,
                gate,
                model.imported_names if gate.enabled else None,
                callers.parameter,
                attributes,
                callers.shared_bindings,
                partial(_namespace_reached, model),
            )
            yield from self._check_function(ctx, candidates, cost, provenance)

    def _check_function(
        self, ctx: Context, candidates: list[ast.AST], cost: Cost, where: _Provenance
    ) -> Iterator[Finding]:
        syncs: list[tuple[ast.AST, str, ast.expr | None]] = []
        for node in candidates:
            found = where.sync(node)
            if found is not None:
                syncs.append((node, *found))
        if not syncs:
            return
        chain = " -> ".join(cost.chain)
        reduced: dict[str, list[str]] = {}
        for _, _, base in syncs:
            key = _reduction_key(base)
            if key is not None:
                reduced.setdefault(key[0], []).append(key[1])
        for node, what, base in syncs:
            if what == "(a tensor's truth value)" and base is not None:
                node, base = base, None  # point at the test
            message = (
                f"Host sync {what} in per-step code ({chain}): the CPU waits "
                "for the GPU"
            )
            hint = where.host_copy_hint(base, node)
            key = _reduction_key(base)
            if hint is not None:
                message += f"; the function already has `{hint}` on the host"
            elif key is not None and len(set(reduced[key[0]])) > 1:
                kinds = ", ".join(sorted(set(reduced[key[0]])))
                message += (
                    f"; `{key[0]}` is reduced {len(reduced[key[0]])} times here "
                    f"({kinds}): one transfer would do "
                    f"(`torch.stack([...]).tolist()`)"
                )
            yield ctx.report(self, node, message)


def _host_name_matcher(patterns: tuple[str, ...]) -> GlobMatcher | None:
    return _matcher(patterns) if patterns else None


#: ``_own_nodes``: leave out the code where a sync is not worth a report.
_SKIP_UNREPORTED = True


class _TextGate:
    """A look at the text of a function's expressions before they are
    walked (``Context.node_text``): a pre-filter (``lint_rules.prefilter``),
    a necessary condition only."""

    __slots__ = (
        "span",
        "rows_matching",
        "enabled",
        "text",
        "_starts",
        "_scan",
        "_scanned",
    )

    def __init__(
        self,
        ctx: Context,
        function: ast.AST,
        scanned: list[tuple[int, int, _Marks]] | None = None,
    ) -> None:
        """``scanned``: the marks found so far in the module's functions
        (shared by the gates of one module: a nested function's are read
        off its parent's), None: each gate scans its own."""
        self._scanned = scanned
        self.span = ctx.node_text
        self.rows_matching = ctx.rows_matching
        self.enabled = prefilter.enabled() and not prefilter.may_respell_ascii(ctx.text)
        self.text = ctx.text
        self._starts = ctx.locator.line_starts
        #: The text in which ``ast``'s columns are offsets in the rows, and
        #: where its rows start: the text itself where it is ASCII, else its
        #: UTF-8 bytes (None: rows may end otherwise than in a line feed).
        self._scan: tuple[str | bytes, list[int]] | None = (
            (ctx.text, self._starts) if ctx.text.isascii() else ctx.utf8
        )

    @property
    def marking(self) -> bool:
        """Whether ``marks`` may be asked (the pre-filters on, and columns
        that are offsets in a text)."""
        return self.enabled and self._scan is not None

    def marks(self, first: int, last: int) -> _Marks:
        """Where each match of ``_SYNC_ROWS`` starts from row ``first`` to
        row ``last`` (a scan for the words, one for the ``[``s). In UTF-8
        bytes, ``\\b`` is a boundary between ASCII word characters and the
        rest: a match in the text is a match in its bytes (and some more
        may be: more is walked)."""
        text, starts = self._scan  # type: ignore[misc]
        count = len(starts)
        end = starts[last] if last < count else len(text)
        begin = starts[first - 1]
        scanned = self._scanned
        if scanned is not None:
            for outer_begin, outer_end, outer in reversed(scanned):
                if outer_begin <= begin and end <= outer_end and outer.text is text:
                    return outer.within(begin, end, first, last)
        found = self._scan_marks(text, starts, begin, end)
        if scanned is not None:
            scanned.append((begin, end, found))
        return found

    @staticmethod
    def _scan_marks(
        text: str | bytes, starts: list[int], begin: int, end: int
    ) -> _Marks:
        """``marks`` of the text from offset ``begin`` to ``end`` (each the
        start of a row, or the end of the text), scanned."""
        if type(text) is str:
            word_list, bracket = _SYNC_WORD_LIST, _BRACKET
        else:
            word_list, bracket = _SYNC_WORD_BYTES_LIST, _BRACKET_BYTES  # type: ignore[assignment]
        # (the words and the ``[``s of ``_SYNC_ROWS`` apart: a ``[`` is no
        # word character, so no match of one overlaps one of the other)
        words = _word_starts(text, begin, end, word_list)
        brackets = [match.start() for match in bracket.finditer(text, begin, end)]  # type: ignore[arg-type]
        every = sorted(words + brackets) if words and brackets else words or brackets
        rows = sorted(set(map(partial(bisect_right, starts), every)))
        return _Marks(text, starts, every, words, brackets, rows)

    def search(self, pattern: re.Pattern[str], nodes: list[ast.expr]) -> bool:
        """Whether ``pattern`` occurs in the text of ``nodes`` (always True
        with the pre-filters off)."""
        if not self.enabled:
            return True
        return pattern.search(self.span(nodes)) is not None  # type: ignore[arg-type]

    def binder_rows(self, first: int, last: int) -> list[int]:
        """The rows from ``first`` to ``last`` that hold a match of
        ``_EXPRESSION_BINDERS`` (``rows_matching`` of it): each ``:=`` and
        each ``for`` is found by ``str.find`` (far faster than the regular
        expression's scan), and a ``for`` kept where the expression
        matches there (a whole word: the characters around it are read)."""
        text, starts = self.text, self._starts
        count = len(starts)
        start = starts[first - 1]
        end = starts[last] if last < count else len(text)
        found: set[int] = set()
        find = text.find
        position = find(":=", start, end)
        while position >= 0:
            found.add(bisect_right(starts, position))
            position = find(":=", position + 2, end)
        match = _EXPRESSION_BINDERS.match
        position = find("for", start, end)
        while position >= 0:
            if match(text, position, end) is not None:
                found.add(bisect_right(starts, position))
            position = find("for", position + 3, end)
        return sorted(found)


def _word_starts(
    text: str | bytes, begin: int, end: int, words: list[str] | tuple[bytes, ...]
) -> list[int]:
    """Where a match of ``_SYNC_WORDS`` (in bytes, of its bytes pattern: an ASCII ``\\b``)
    starts from offset ``begin`` to ``end``, in order, in an ASCII text or
    in bytes. ``begin`` and ``end`` are where rows start (or the text's
    ends): a row break lies before each, and no word crosses it. (Whole
    words cannot overlap, nor one be two of the ``words``.)

    The span's units that are no ASCII word character become spaces (at C
    speed, its UTF-8 bytes for a text), with a space at each end: a whole
    word is then one of the ``words`` between two spaces, found by one
    scan of a pattern that starts with a literal space (the engine skips
    to each space, and tries the words only where one of their first
    letters follows). Each unit keeps its offset. A text that is not ASCII
    (which the gate never scans: it scans the text's bytes) is searched
    word by word (``_word_starts_by_find``)."""
    span = text[begin:end]
    if type(span) is str:
        if not span.isascii():
            return _word_starts_by_find(text, begin, end, words)
        span = span.encode("ascii")
    key = words if type(words) is tuple else tuple(words)
    pattern = _WORD_PATTERNS.get(key)
    if pattern is None:
        pattern = _WORD_PATTERNS[key] = _spaced_words(key)
    runs = b" " + span.translate(_ASCII_RUNS) + b" "  # type: ignore[arg-type]
    return [begin + match.start() for match in pattern.finditer(runs)]


def _spaced_words(words: tuple[str, ...] | tuple[bytes, ...]) -> re.Pattern[bytes]:
    """A pattern matching a space and one of ``words`` followed by a space
    (looked at, not taken: the next word's own space): where it starts, in
    a text whose units that are no ASCII word character are spaces and
    with a space before it, is where the word starts in the text."""
    encoded = sorted(
        {word if type(word) is bytes else word.encode("ascii") for word in words},  # type: ignore[union-attr]
        key=lambda word: (-len(word), word),
    )
    first = bytes(sorted({word[0] for word in encoded}))
    return re.compile(
        b" (?=["
        + re.escape(first)
        + b"])(?:"
        + b"|".join(map(re.escape, encoded))
        + b")(?= )"
    )


#: ``_spaced_words`` of each list of words asked (``_word_starts``).
_WORD_PATTERNS: dict[tuple, re.Pattern[bytes]] = {}


def _word_starts_by_find(
    text: str | bytes, begin: int, end: int, words: list[str] | tuple[bytes, ...]
) -> list[int]:
    """``_word_starts``, each occurrence of one of the ``words`` found by
    ``find`` and kept where it is a whole word, its neighbours no ASCII
    word character. Only the ``words`` that are a run of the span's ASCII
    word characters are looked for: its runs are split off at C speed
    (each unit that is no ASCII word character a space). A whole word is
    such a run (its neighbours are no word characters; at the span's ends,
    a run may be cut short, which keeps more words, never fewer)."""
    found: list[int] = []
    find = text.find
    units = _WORD_UNITS
    size_of_text = len(text)
    span = text[begin:end]
    if type(span) is str:
        runs = (
            span.encode("utf-8", "surrogatepass")
            .translate(_ASCII_RUNS)
            .decode()
            .split()
        )
    else:
        runs = span.translate(_ASCII_RUNS).split()  # type: ignore[arg-type]
    present = frozenset(words).intersection(runs)  # type: ignore[arg-type]
    for word in words:
        if word not in present:
            continue  # (no whole word of the span)
        size = len(word)
        position = find(word, begin, end)  # type: ignore[arg-type]
        while position >= 0:
            after = position + size
            if (position == 0 or text[position - 1] not in units) and (
                after >= size_of_text or text[after] not in units
            ):
                found.append(position)
            position = find(word, position + 1, end)  # type: ignore[arg-type]
    found.sort()
    return found


#: Each byte kept where it is an ASCII word character, else a space
#: (``_word_starts``: the span's runs of them are its ``split()``).
_ASCII_RUNS = bytes(
    code if code < 128 and (chr(code).isalnum() or chr(code) == "_") else ord(" ")
    for code in range(256)
)
#: The ASCII word characters (``\\w``: letters, digits, ``_``), as
#: characters and as byte values (``_word_starts``).
_WORD_UNITS = frozenset(
    unit
    for code in range(128)
    if chr(code).isalnum() or chr(code) == "_"
    for unit in (chr(code), code)
)


class _Marks:
    """Where the matches of ``_SYNC_ROWS`` start in a function's text
    (``_TextGate.marks``): all, the words, the ``[``s, and their rows; the
    text (or its UTF-8 bytes) and where its rows start."""

    def segment(self, begin: int, end: int) -> str:
        """The text from offset ``begin`` to ``end`` (node boundaries)."""
        text = self.text
        if type(text) is str:
            return text[begin:end]
        return text[begin:end].decode("utf-8")  # type: ignore[union-attr]

    def within(self, begin: int, end: int, first: int, last: int) -> _Marks:
        """The marks from offset ``begin`` to ``end``, rows ``first`` to
        ``last`` (a function within the span these were scanned in): those
        a scan of that span alone finds. Each bound is the start of a row
        (or the text's end): a row break lies before it, where neither a
        sync word nor a ``[`` can be, nor a ``\\b`` be judged otherwise,
        so no match crosses it or differs on its side of it."""
        every, words, brackets, rows = self.all, self.words, self.brackets, self.rows
        return _Marks(
            self.text,
            self.starts,
            every[bisect_left(every, begin) : bisect_left(every, end)],
            words[bisect_left(words, begin) : bisect_left(words, end)],
            brackets[bisect_left(brackets, begin) : bisect_left(brackets, end)],
            rows[bisect_left(rows, first) : bisect_right(rows, last)],
        )

    __slots__ = ("text", "starts", "all", "words", "brackets", "rows")

    def __init__(
        self,
        text: str | bytes,
        starts: list[int],
        every: list[int],
        words: list[int],
        brackets: list[int],
        rows: list[int],
    ) -> None:
        self.text = text
        self.starts = starts
        self.all = every
        self.words = words
        self.brackets = brackets
        self.rows = rows


#: What a branch of a path is an arm of (``_structure``): an ``if`` or a
#: ``match`` (one arm runs), a loop, a ``try``.
_IF, _LOOP, _TRY = "if", "loop", "try"
#: A branch of a binding within an expression that may run without it
#: (``_maybe_unrun``), or a comprehension's scope: no use is on it.
_EXPR = "expr"


def _maybe_unrun(root: ast.AST) -> set[int]:
    """The ids of the nodes of the expression ``root`` that may not run
    when it does: the arms of a conditional expression, the operands of
    ``and``/``or`` after the first, what a comprehension holds (lambdas
    left out, as ``_expression_nodes`` leaves them)."""
    found: set[int] = set()
    stack: list[tuple[ast.AST, bool]] = [(root, False)]
    while stack:
        node, maybe = stack.pop()
        kind = type(node)
        if kind is ast.Lambda:
            continue
        if maybe:
            found.add(id(node))
        if kind is ast.IfExp:
            stack.append((node.test, maybe))  # type: ignore[attr-defined]
            stack.append((node.body, True))  # type: ignore[attr-defined]
            stack.append((node.orelse, True))  # type: ignore[attr-defined]
        elif kind is ast.BoolOp:
            values = node.values  # type: ignore[attr-defined]
            stack.append((values[0], maybe))
            stack.extend((value, True) for value in values[1:])
        else:
            inner = maybe or kind in _COMPREHENSIONS
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return found


_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp})


#: The statements that bind their target names whenever they complete (not
#: a loop's target, not an ``AugAssign``, which reads the name first).
_CERTAIN_BINDERS = frozenset({ast.Assign, ast.AnnAssign, ast.With, ast.AsyncWith})


def _certainly_bound(node: ast.AST) -> list[str]:
    """The plain names an assignment or a ``with ... as`` binds (the
    elements of a tuple or list target, a starred one; not an attribute or
    a subscript)."""
    if type(node) is ast.Assign:
        targets = list(node.targets)  # type: ignore[attr-defined]
    elif type(node) is ast.AnnAssign:
        targets = [node.target] if node.value is not None else []  # type: ignore[attr-defined]
    else:
        targets = [
            item.optional_vars
            for item in node.items  # type: ignore[attr-defined]
            if item.optional_vars is not None
        ]
    names: list[str] = []
    while targets:
        target = targets.pop()
        if type(target) is ast.Name:
            names.append(target.id)  # type: ignore[attr-defined]
        elif type(target) in (ast.Tuple, ast.List):
            targets.extend(target.elts)  # type: ignore[attr-defined]
        elif type(target) is ast.Starred:
            targets.append(target.value)  # type: ignore[attr-defined]
    return names


def _in_with_body(
    node: ast.AST, withs: list[ast.AST], path: tuple, with_paths: dict[int, tuple]
) -> bool:
    """Whether ``node`` lies in the body of a ``with`` statement of the same
    branch path (its context manager may swallow an exception raised before
    the node binds its names, and the block then goes on without them)."""
    return _with_body_end(node, withs, path, with_paths) is not None


def _with_body_end(
    node: ast.AST, withs: list[ast.AST], path: tuple, with_paths: dict[int, tuple]
) -> tuple[int, int] | None:
    """The end of the innermost ``with`` statement of the same branch path
    whose body holds ``node`` (None: none does)."""
    row = node.lineno  # type: ignore[attr-defined]
    found: tuple[int, int] | None = None
    for statement in withs:
        if (
            statement is not node
            and statement.lineno <= row <= (statement.end_lineno or row)  # type: ignore[attr-defined]
            and with_paths.get(id(statement)) == path
        ):
            end = (statement.end_lineno, statement.end_col_offset)  # type: ignore[attr-defined]
            if found is None or end < found:
                found = end
    return found


def _holds_position(statement: ast.AST, position: tuple[int, int]) -> bool:
    """Whether ``position`` lies in ``statement`` after its start (in its
    body, for a ``with``)."""
    return (
        (statement.lineno, statement.col_offset)  # type: ignore[attr-defined]
        < position
        <= (statement.end_lineno, statement.end_col_offset)  # type: ignore[attr-defined]
    )


def _exclusive(bound: tuple, path: tuple) -> bool:
    """Whether a binding on the path of branches ``bound`` cannot run before
    a use on ``path`` that follows it in the source: they are in two arms of
    one statement of which only one runs (two arms of an ``if`` or cases of
    a ``match``; two handlers of a ``try``, or a handler and its ``else``).
    A binding in a statement that ended before the use's (an earlier
    ``if``), or in one the use's is nested in, may reach it."""
    for mine, theirs in zip(bound, path, strict=False):
        if mine == theirs:
            continue
        if mine[0] != theirs[0]:
            return False  # an earlier statement of the same block
        kind = mine[3]
        if kind == _IF:
            return True
        if kind == _TRY:
            return mine[1] != 0 and theirs[1] != 0  # (neither in the body)
        return False
    return False


def _structure(
    function: ast.AST,
    skip_unreported: bool,
    rows: list[int] | None = None,
) -> Iterator[tuple[ast.AST, tuple, list[ast.expr]]]:
    """The function's own code above its expressions: each statement (and
    handler, ``with`` item, ``match`` case), in source order, with its path
    of branches and its expression children,
    which are not walked here. With ``skip_unreported``, the code where a
    sync is not worth a report is left out (as ``_own_nodes`` with
    ``where``). With ``rows``, a simple statement (not an ``assert``) on
    none of those rows is left out too. (The operators and the other
    leaves below a statement, ``+`` of ``x += 1``, hold nothing and are not
    given.)"""
    stack: list[tuple[ast.AST, tuple]] = [
        (stmt, ())
        for stmt in reversed(function.body)  # type: ignore[attr-defined]
    ]
    pop, push = stack.pop, stack.append
    roots_of = _ROOTS.get
    while stack:
        node, path = pop()
        kind = type(node)
        if kind in _SCOPE_TYPES:
            continue
        if skip_unreported:
            if kind is ast.Raise or (kind is ast.Expr and _is_logging_call(node)):
                continue
            if (kind is ast.With or kind is ast.AsyncWith) and any(
                _allows_sync(item.context_expr)
                for item in node.items  # type: ignore[attr-defined]
            ):
                continue
        if (
            rows is not None
            and kind not in _COMPOUND
            and kind in _STATEMENT_TYPES
            and not any_row_between(rows, node.lineno, node.end_lineno or node.lineno)  # type: ignore[attr-defined]
        ):
            continue
        getter = roots_of(kind)
        if getter is not None:
            # (a statement whose children are expressions and blocks only)
            roots = getter(node)
            if skip_unreported and kind is ast.Assert and len(roots) > 1:
                # (an ``assert``'s message is evaluated only when the test
                # fails, to be raised: an error path, as ``raise``)
                roots = roots[:1]
            yield node, path, roots
            if kind is ast.If:
                skipped = _skipped_branch(node.test) if skip_unreported else None  # type: ignore[attr-defined]
                if skipped != "orelse":
                    block_path = path + ((id(node), 1, False, _IF),)
                    for child in reversed(node.orelse):  # type: ignore[attr-defined]
                        push((child, block_path))
                if skipped != "body":
                    block_path = path + ((id(node), 0, False, _IF),)
                    for child in reversed(node.body):  # type: ignore[attr-defined]
                        push((child, block_path))
            elif kind in _LOOPS:
                block_path = path + ((id(node), 1, False, _LOOP),)
                for child in reversed(node.orelse):  # type: ignore[attr-defined]
                    push((child, block_path))
                block_path = path + ((id(node), 0, True, _LOOP),)
                for child in reversed(node.body):  # type: ignore[attr-defined]
                    push((child, block_path))
            elif kind is ast.Try or kind is TryStar:
                for child in reversed(node.finalbody):  # type: ignore[attr-defined]
                    push((child, path))
                block_path = path + ((id(node), -1, False, _TRY),)
                for child in reversed(node.orelse):  # type: ignore[attr-defined]
                    push((child, block_path))
                handlers = node.handlers  # type: ignore[attr-defined]
                for number in range(len(handlers), 0, -1):
                    push(
                        (
                            handlers[number - 1],
                            path + ((id(node), number, False, _TRY),),
                        )
                    )
                block_path = path + ((id(node), 0, False, _TRY),)
                for child in reversed(node.body):  # type: ignore[attr-defined]
                    push((child, block_path))
            elif kind is ast.Match:
                cases = node.cases  # type: ignore[attr-defined]
                for number in range(len(cases) - 1, -1, -1):
                    push((cases[number], path + ((id(node), number, False, _IF),)))
            continue
        children = child_nodes(node)
        roots = [child for child in children if isinstance(child, ast.expr)]
        yield node, path, roots
        for child in reversed(children):
            if not isinstance(child, ast.expr) and type(child) not in LEAF_TYPES:
                push((child, path))


def _expression_nodes(root: ast.AST, skip_unreported: bool) -> Iterator[ast.AST]:
    """The nodes of one expression, depth first in source order, nested
    scopes left out (and, with ``skip_unreported``, the capture arm of a
    conditional expression), and below the root the leaves no question is
    about (contexts, operators, constants: ``LEAVES``)."""
    stack = [root]
    pop, extend = stack.pop, stack.extend
    leaves = LEAF_TYPES
    while stack:
        node = pop()
        kind = type(node)
        if kind is ast.Lambda:
            continue
        yield node
        if kind is ast.IfExp and skip_unreported:
            skipped = _skipped_branch(node.test)  # type: ignore[attr-defined]
            if skipped is not None:
                stack.append(node.orelse if skipped == "body" else node.body)  # type: ignore[attr-defined]
                stack.append(node.test)  # type: ignore[attr-defined]
                continue
        children = child_nodes(node)
        if children:
            children.reverse()
            extend([child for child in children if type(child) not in leaves])


#: The nested scopes (their code is not the function's own).
_SCOPE_TYPES = frozenset(_SCOPES)
#: The concrete statement types.
_STATEMENT_TYPES = concrete_types((ast.stmt,))
#: The loops: a body and an ``else``.
_LOOPS = frozenset({ast.For, ast.AsyncFor, ast.While})


def _no_roots(node: ast.AST) -> list[ast.expr]:
    return []


#: The expression children (``child_nodes`` that are expressions) of the
#: statements whose other children are blocks of statements, handlers,
#: ``match`` cases or leaves (``_structure`` builds their branches), and
#: of ``AnnAssign`` its target and value only (not its annotation).
_ROOTS: dict[type, Callable[..., list[ast.expr]]] = {
    ast.Expr: lambda node: [node.value],
    ast.Assign: lambda node: [*node.targets, node.value],
    ast.AugAssign: lambda node: [node.target, node.value],
    ast.AnnAssign: lambda node: (
        [node.target, node.value] if node.value else [node.target]
    ),
    ast.Return: lambda node: [node.value] if node.value else [],
    ast.If: lambda node: [node.test],
    ast.While: lambda node: [node.test],
    ast.For: lambda node: [node.target, node.iter],
    ast.AsyncFor: lambda node: [node.target, node.iter],
    ast.Raise: lambda node: [
        child for child in (node.exc, node.cause) if child is not None
    ],
    ast.Assert: lambda node: [node.test, node.msg] if node.msg else [node.test],
    ast.Delete: lambda node: list(node.targets),
    ast.Try: _no_roots,
    TryStar: _no_roots,
    ast.Match: lambda node: [node.subject],
    ast.Pass: _no_roots,
    ast.Break: _no_roots,
    ast.Continue: _no_roots,
    ast.Global: _no_roots,
    ast.Nonlocal: _no_roots,
}


#: Words a row must hold for one of its expressions to have the shape of a
#: sync (``_may_sync``): a sync call's name, or the keywords of a conditional
#: expression and of the operators whose operands are truth values.
_SYNC_WORD_LIST = sorted(_SYNC_CALL_NAMES | {"if", "and", "or", "not"})
#: (a look ahead at the first character first, one of the words' first
#: letters: ``\b`` and the alternation are tried only where a word may
#: start, a scan a quarter faster)
_SYNC_FIRST = "".join(sorted({word[0] for word in _SYNC_WORD_LIST}))
_SYNC_WORDS = re.compile(
    f"(?=[{_SYNC_FIRST}])" + r"\b(?:" + "|".join(_SYNC_WORD_LIST) + r")\b"
)
#: What a row must also hold, beside a ``[``, for boolean-mask indexing: a
#: comparison or ``~`` (a local bound to a comparison is looked for by name).
_MASK_SIGNS = re.compile(r"[<>~]|==|!=|\bin\b|\bis\b")
#: The rows where one of the two may start: a statement on none of them is
#: not looked at further.
_SYNC_ROWS = re.compile(
    f"(?=[{_SYNC_FIRST}\\[])" + r"(?:\b(?:" + "|".join(_SYNC_WORD_LIST) + r")\b|\[)"
)
#: ``_SYNC_WORD_LIST`` in bytes, and ``[`` (``_TextGate.marks``), and the
#: same in bytes.
_SYNC_WORD_BYTES_LIST = tuple(word.encode("ascii") for word in _SYNC_WORD_LIST)
_BRACKET = re.compile(r"\[")
_BRACKET_BYTES = re.compile(rb"\[")
#: Statements never left out by rows: those with blocks of statements, and
#: ``assert`` (judged by itself).
_COMPOUND = frozenset(
    {
        *COMPOUND_STATEMENTS,
        ast.Assert,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
    }
)


def _candidates(
    function: ast.AST,
    assigned: frozenset[str],
    masks: frozenset[str],
    gate: _TextGate,
    imported: frozenset[str] | None = None,
) -> list[ast.AST]:
    """The nodes of the function's own code (``_own_nodes`` with ``where``)
    that have the shape of a sync (``_may_sync``): statements are judged as
    they come; an expression is walked only where its rows hold a word or
    sign such a node needs. Where ``ast``'s columns are offsets in a text
    (an ASCII text, or the UTF-8 bytes of another), where each sync word
    and ``[`` starts is known
    (``_TextGate.marks``): a statement's expressions are judged by them,
    and below an expression's root only the nodes spanning one are walked
    (a node of a sync's shape spans its word or its ``[``, and so does
    every node above it). ``imported``: as ``_may_sync``'s."""
    found: list[ast.AST] = []
    mask_words = (
        re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(masks))) + r")\b")
        if masks
        else None
    )
    rows = None
    marks = None
    if gate.enabled:  # the rows holding a sync word or a ``[``
        first, last = function.lineno, function.end_lineno  # type: ignore[attr-defined]
        if gate.marking:
            marks = gate.marks(first, last)
            rows = marks.rows
        else:
            rows = gate.rows_matching(_SYNC_ROWS, first, last)
    for node, _, roots in _structure(function, _SKIP_UNREPORTED, rows):
        if _may_sync(node, assigned, masks, imported):
            found.append(node)
        if not roots:
            continue
        if marks is not None:
            starts = marks.starts
            root = roots[0]
            begin = starts[root.lineno - 1] + root.col_offset
            end = starts[root.end_lineno - 1] + root.end_col_offset  # type: ignore[operator]
            for root in roots[1:]:  # (the span of them all)
                offset = starts[root.lineno - 1] + root.col_offset
                if offset < begin:
                    begin = offset
                offset = starts[root.end_lineno - 1] + root.end_col_offset  # type: ignore[operator]
                if offset > end:
                    end = offset
            if not _any_between(marks.words, begin, end):
                if not _any_between(marks.brackets, begin, end):
                    continue
                segment = marks.segment(begin, end)
                if not (
                    ":" in segment  # (a slice)
                    or _MASK_SIGNS.search(segment) is not None
                    or (mask_words is not None and mask_words.search(segment))
                ):
                    continue
            _marked_candidates(roots, marks, assigned, masks, found, imported)
            continue
        if gate.enabled:
            segment = gate.span(roots)
            if _SYNC_WORDS.search(segment) is None and not (
                "[" in segment
                and (
                    ":" in segment  # (a slice)
                    or _MASK_SIGNS.search(segment) is not None
                    or (mask_words is not None and mask_words.search(segment))
                )
            ):
                continue
        for root in roots:
            for child in _expression_nodes(root, _SKIP_UNREPORTED):
                if type(child) in _SHAPES and _may_sync(
                    child, assigned, masks, imported
                ):
                    found.append(child)
    return found


def _any_between(offsets: list[int], begin: int, end: int) -> bool:
    """Whether the sorted ``offsets`` hold one from ``begin`` (included) to
    ``end`` (excluded)."""
    index = bisect_left(offsets, begin)
    return index < len(offsets) and offsets[index] < end


def _marked_candidates(
    roots: list[ast.expr],
    marks: _Marks,
    assigned: frozenset[str],
    masks: frozenset[str],
    found: list[ast.AST],
    imported: frozenset[str] | None = None,
) -> None:
    """Add the nodes of ``roots`` (one after the other) that have the shape
    of a sync, in the order of ``_expression_nodes`` (with
    ``skip_unreported``), to ``found``; below a root, a node spanning no
    mark (no sync word, no ``[``) is not walked: no node under it can have
    the shape. (Each node's children are read field by field, last first,
    as ``child_nodes`` lists them, without the list.)"""
    starts, offsets = marks.starts, marks.all
    count = len(offsets)
    leaves, shapes = LEAF_TYPES, _SHAPES
    fields_of = _REVERSED_FIELDS
    stack = roots[::-1]
    pop, push = stack.pop, stack.append
    node_type = _AST
    while stack:
        node = pop()
        kind = type(node)
        if kind is ast.Lambda:
            continue
        if kind in shapes and _may_sync(node, assigned, masks, imported):
            found.append(node)
        if kind is ast.IfExp and _SKIP_UNREPORTED:
            skipped = _skipped_branch(node.test)  # type: ignore[attr-defined]
            if skipped is not None:
                push(node.orelse if skipped == "body" else node.body)  # type: ignore[attr-defined]
                push(node.test)  # type: ignore[attr-defined]
                continue
        fields = fields_of.get(kind)
        if fields is None:
            fields = fields_of[kind] = _reversed_fields(kind)
        for name in fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                children = value[::-1]
            elif isinstance(value, node_type):
                children = (value,)
            else:
                continue
            for child in children:
                if type(child) in leaves or not isinstance(child, node_type):
                    continue
                line = getattr(child, "lineno", None)
                if line is not None:
                    position = bisect_left(
                        offsets,
                        starts[line - 1] + child.col_offset,  # type: ignore[attr-defined]
                    )
                    if (
                        position == count
                        or offsets[position]
                        >= starts[child.end_lineno - 1] + child.end_col_offset  # type: ignore[attr-defined]
                    ):
                        continue
                push(child)


#: ``node_fields`` of each node type, last first, without those that hold
#: only contexts or operators (``LEAVES``, never walked): for
#: ``_marked_candidates``.
_REVERSED_FIELDS: dict[type, tuple[str, ...]] = {}


def _reversed_fields(kind: type) -> tuple[str, ...]:
    return tuple(
        name
        for name in reversed(NODE_FIELDS.get(kind) or node_fields(kind))
        if name not in ("ctx", "op", "ops")
    )


_AST = ast.AST


#: The node types ``_may_sync`` may accept.
_SHAPES = frozenset(
    {
        ast.Call,
        ast.If,
        ast.While,
        ast.Assert,
        ast.IfExp,
        ast.BoolOp,
        ast.UnaryOp,
        ast.Subscript,
        ast.comprehension,
    }
)


#: Tensor methods whose result is of the ``dtype`` they are told (or, for
#: ``bool``, of booleans).
_BOOLEAN_METHODS = frozenset(
    {"to", "bool", "new_ones", "new_zeros", "new_full", "new_empty", "new_tensor"}
)


def _made_boolean_shape(value: ast.AST | None) -> bool:
    """A call told ``dtype=torch.bool`` (or ``bool``), or ``x.bool()``: by
    its form, a tensor of booleans where the callee is torch's."""
    if type(value) is not ast.Call:
        return False
    func = value.func  # type: ignore[attr-defined]
    if type(func) is ast.Attribute and func.attr == "bool":
        return not value.args and not value.keywords  # type: ignore[attr-defined]
    for keyword in value.keywords:  # type: ignore[attr-defined]
        if keyword.arg == "dtype":
            return dotted_name(keyword.value) in ("torch.bool", "bool")
    return False


def _mask_names(bindings: list) -> frozenset[str]:
    """The names a binding statement of the function binds to a comparison
    (alone or as an element of a tuple): the only names that may hold a
    boolean mask as far as ``_Provenance._boolean_mask`` can tell
    (``_local_names``)."""
    return _local_names(bindings)[1]


def _local_names(bindings: list) -> tuple[frozenset[str], frozenset[str]]:
    """``_assigned_names`` and ``_mask_names`` of ``bindings``, in one pass
    over them (a target's names are walked only where it is no plain
    name)."""
    names: set[str] = set()
    masks: set[str] = set()
    name_type, compare = ast.Name, ast.Compare
    for stmt, _ in bindings:
        value = getattr(stmt, "value", None)
        kind = type(value)
        mask = (
            kind is compare
            or (
                (kind is ast.Tuple or kind is ast.List)
                and any(type(element) is compare for element in value.elts)  # type: ignore[union-attr]
            )
            or (kind is ast.Call and _made_boolean_shape(value))
        )
        targets = stmt.targets if type(stmt) is ast.Assign else (stmt.target,)
        for target in targets:
            target_kind = type(target)
            if target_kind is name_type:
                names.add(target.id)
                if mask:
                    masks.add(target.id)
                continue
            unpacking = target_kind in _UNPACKING
            if not (unpacking or mask):
                continue
            walked = [node.id for node in walk(target) if type(node) is name_type]
            if unpacking:
                names.update(walked)
            if mask:
                masks.update(walked)
    return frozenset(names), frozenset(masks)


#: The targets whose names ``_assigned_names`` takes (``a, b = ...``).
_UNPACKING = frozenset({ast.Tuple, ast.List, ast.Starred})


def _skipped_branch(test: ast.expr) -> str | None:
    """ "body" or "orelse": the branch of an ``if`` whose syncs are not worth
    a report: it runs when a CUDA graph is captured, at start-up, or while
    ``torch.jit.trace`` records the function (once: the trace keeps what a
    sync read as a constant, and replays without it). The body of an
    ``and`` one operand of which is such a test runs only then too. (A
    branch taken when a host copy is missing, ``if seq_lens_cpu is None:``,
    is reported: whether callers pass the copy is theirs to say.)"""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    if _mentions_capture(test) or _mentions_tracing(test):
        return "orelse" if negated else "body"
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for value in test.values:
            if _skipped_branch(value) == "body":
                return "body"
    return None


def _mentions_tracing(test: ast.expr) -> bool:
    """Whether a branch's test asks if ``torch.jit`` is tracing
    (``torch.jit.is_tracing()``, ``torch._C._get_tracing_state()``), alone
    or negated."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if not (isinstance(test, ast.Call) and not test.args and not test.keywords):
        return False
    func = test.func
    name = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else ""
    )
    return name in ("is_tracing", "_get_tracing_state")


#: Objects whose methods write logs (``logger.warning(...)``, ``log.debug``).
_LOGGERS = ("logger", "logging", "log", "_logger", "LOGGER", "warnings")


def _is_logging_call(node: ast.AST) -> bool:
    """``logger.warning(...)`` and the like: a message built on a path that
    reports a problem, not the step's work."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    func = node.value.func
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value
    name = (
        owner.id
        if isinstance(owner, ast.Name)
        else owner.attr
        if isinstance(owner, ast.Attribute)
        else ""
    )
    return name in _LOGGERS


def _allows_sync(manager: ast.expr) -> bool:
    """A context manager that marks its body as an accepted sync
    (``with gpu_sync_allowed():``)."""
    if isinstance(manager, ast.Call):
        manager = manager.func
    name = (
        manager.id
        if isinstance(manager, ast.Name)
        else manager.attr
        if isinstance(manager, ast.Attribute)
        else ""
    ).lower()
    return "sync" in name and "allow" in name


def _assigned_names(bindings: list) -> frozenset[str]:
    """The names the function's own statements bind (where a local lives on
    the device: a parameter or attribute never is, as far as a module shows;
    ``_local_names``)."""
    return _local_names(bindings)[0]


def _may_sync(
    node: ast.AST,
    assigned: frozenset[str],
    masks: frozenset[str],
    imported: frozenset[str] | None = None,
) -> bool:
    """Whether ``node`` has the shape of a sync ``_Provenance.sync`` may
    report: a shortcut beside it (``tests/rules/test_atn203.py`` checks the two
    agree). ``imported``: the names an import of the module binds (None:
    any name may be; ``_may_be_tensor_test``)."""
    kind = type(node)
    if kind is ast.Call:
        func = node.func  # type: ignore[attr-defined]
        name = func.attr if type(func) is ast.Attribute else getattr(func, "id", None)
        return name in _SYNC_CALL_NAMES
    if kind in (ast.If, ast.While, ast.Assert, ast.IfExp):
        return _may_be_tensor_test(_tested(node.test), assigned, imported)  # type: ignore[attr-defined]
    if kind is ast.BoolOp:
        return any(
            _may_be_tensor_test(_tested(value), assigned, imported)
            for value in node.values[:-1]  # type: ignore[attr-defined]
        )
    if kind is ast.UnaryOp:
        return type(node.op) is ast.Not and _may_be_tensor_test(  # type: ignore[attr-defined]
            _tested(node.operand),  # type: ignore[attr-defined]
            assigned,
            imported,
        )
    if kind is ast.comprehension:
        return any(
            _may_be_tensor_test(_tested(test), assigned, imported)
            for test in node.ifs  # type: ignore[attr-defined]
        )
    if kind is ast.Subscript:
        index = node.slice  # type: ignore[attr-defined]
        # (a mask may be one element of a tuple index: ``x[mask, :]``)
        parts = index.elts if type(index) is ast.Tuple else (index,)  # type: ignore[attr-defined]
        return (
            any(
                type(part) is ast.Compare
                or (type(part) is ast.UnaryOp and type(part.op) is ast.Invert)
                or (type(part) is ast.Name and part.id in masks)
                for part in parts
            )
            or next(_slice_bounds(index), None) is not None
        )
    return False


#: What a slice bound that may be a tensor looks like (``_slice_bounds``):
#: a name, an element, arithmetic, a call.
_BOUND_SHAPES = frozenset({ast.Name, ast.Subscript, ast.BinOp, ast.UnaryOp, ast.Call})


def _slice_bounds(index: ast.expr) -> Iterator[ast.expr]:
    """The bounds of the slices of a subscript's index (``x[a:b]``,
    ``x[:, a:b]``) that may be tensors, by their form."""
    parts = index.elts if type(index) is ast.Tuple else (index,)  # type: ignore[attr-defined]
    for part in parts:
        if type(part) is ast.Slice:
            for bound in (part.lower, part.upper, part.step):  # type: ignore[attr-defined]
                if bound is not None and type(bound) in _BOUND_SHAPES:
                    yield bound


def _tested(test: ast.expr) -> ast.expr:
    """What a truth test of ``test`` reads last: of ``a and b`` (``or``),
    the truth of ``b`` when ``a`` lets it through (``a``'s own is read by
    the ``and``), down nested ``and``/``or``."""
    while type(test) is ast.BoolOp:
        test = test.values[-1]  # type: ignore[attr-defined]
    return test


def _may_be_tensor_test(
    test: ast.expr, assigned: frozenset[str], imported: frozenset[str] | None = None
) -> bool:
    """Whether ``_Provenance._tensor_truth`` may find ``test`` a tensor: the
    forms it answers no to before asking where a value lives are left out
    (a comparison by ``is`` or ``in``; a call whose name no scope can make
    a truth function or a reduction, or, called by a bare name, that no
    import of the module binds: ``imported``, None: any name may be)."""
    kind = type(test)
    if kind is ast.Subscript:
        return True
    if kind is ast.Compare:
        return not any(type(op) in _IDENTITY_OPS for op in test.ops)  # type: ignore[attr-defined]
    if kind is ast.Call:
        func = test.func  # type: ignore[attr-defined]
        if type(func) is ast.Attribute:
            return func.attr in _TRUTH_NAMES or func.attr in _REDUCTIONS
        return type(func) is ast.Name and (imported is None or func.id in imported)
    return kind is ast.Name and test.id in assigned  # type: ignore[attr-defined]


def _mentions_capture(test: ast.expr) -> bool:
    """Whether a branch's test says "CUDA-graph capture" (``in_capture``,
    ``self.is_capturing``, ``torch.cuda.is_current_stream_capturing()``),
    alone or negated."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Call) and not test.args:
        test = test.func
    name = (
        test.id
        if isinstance(test, ast.Name)
        else test.attr
        if isinstance(test, ast.Attribute)
        else ""
    )
    return "captur" in name.lower()


def _reduction_key(base: ast.expr | None) -> tuple[str, str] | None:
    """(``lens``, ``max``) for a sync of ``lens.max()``."""
    if (
        isinstance(base, ast.Call)
        and isinstance(base.func, ast.Attribute)
        and base.func.attr in _REDUCTIONS
        and not base.args
    ):
        name = dotted_name(base.func.value)
        if name is not None:
            return name, base.func.attr
    return None


#: Statements that bind names (``_Provenance.bindings``).
_BINDING_KINDS = frozenset(
    {
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
        ast.For,
        ast.AsyncFor,
        ast.With,
        ast.AsyncWith,
    }
)
#: What the rows of an expression hold where it may bind a name.
_EXPRESSION_BINDERS = re.compile(r":=|\bfor\b")


class _Provenance:
    """Where the values of one function live: the host, the device or unknown
    (by what its locals are bound to, flow-insensitively: a local is on the
    host when every binding of it is)."""

    def __init__(
        self,
        function: ast.AST,
        scope: Callable[[], object],
        host_names: GlobMatcher | None,
        gate: _TextGate | None = None,
        imported_names: frozenset[str] | None = None,
        parameter: Callable[[ast.AST, str], str] | None = None,
        attributes: _Attributes | None = None,
        shared: dict[ast.AST, tuple] | None = None,
        namespace_reached: Callable[[], bool] | None = None,
    ) -> None:
        self._function = function
        #: Whether the module's code may rebind a global with no statement
        #: that binds it (``globals()["N"] = t``; ``summaries.REBINDERS``);
        #: None: it may.
        self._namespace_reached = namespace_reached
        #: What ``bindings`` finds, kept per function for the other
        #: provenances of the check (it depends on the function's code only).
        self._shared = shared
        #: The kind and place of ``self.<name>`` by the class's assignments
        #: (None: not known).
        self._attributes = attributes
        #: Where a parameter lives by what the module's calls pass it
        #: (``_Callers.parameter``); None: not known.
        self._parameter = parameter
        #: Every name an import of the module binds (None: any name may be).
        self._imported_names = imported_names
        self._scope_factory = scope
        self.host_names = host_names
        self._gate = gate
        self.params: dict[str, ast.expr | None] = {}
        args = function.args  # type: ignore[attr-defined]
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            self.params[arg.arg] = arg.annotation
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                self.params[extra.arg] = None
        self._memo: dict[tuple, str] = {}
        #: name -> the annotation it is declared with (a parameter's, or
        #: ``x: T = ...`` in the body; filled with the bindings).
        self.declared: dict[str, ast.expr] = {
            name: annotation
            for name, annotation in self.params.items()
            if annotation is not None
        }
        self._tensor_memo: dict[tuple, bool] = {}
        #: Names being asked whether they hold a tensor (a cycle: not known),
        #: and how many times a cycle was met (an answer that met one is not
        #: kept: it depends on where the question started).
        self._tensor_asking: set[tuple] = set()
        self._tensor_cycles = 0
        #: ``_reaching`` per name and use, with whether the value the name
        #: had on entry (a parameter's argument) may reach the use too.
        self._reaching_memo: dict[
            tuple[str, ast.Name | None], tuple[tuple[int, ...], bool]
        ] = {}
        #: The ``if`` statements whose test says where a name lives
        #: (``_device_guard``): (statement, branch path, name, place in the
        #: body, place in the ``else``); the ``with`` statements; the names
        #: a guard says nothing of (``global``, ``nonlocal``, ``except ...
        #: as``). Filled with the bindings.
        self._guards: list[tuple[ast.If, tuple, str, str | None, str | None]] = []
        self._withs: list[ast.AST] = []
        self._not_guarded: set[str] = set()
        #: The scopes of the comprehensions whose variables are bound:
        #: (start, end, start and end of the first iterable, which is read
        #: in the function's scope, the ids of its ``comprehension`` nodes).
        #: Filled with the bindings.
        self._comprehension_scopes: list[
            tuple[
                tuple[int, int],
                tuple[int, int],
                tuple[int, int],
                tuple[int, int],
                frozenset[int],
            ]
        ] = []
        #: The names a statement binds whenever it completes (an assignment,
        #: a ``with ... as``), by the branch path of the block it is in; and
        #: the ``if`` statements with an ``else``, by the path of their
        #: block: (the statement's id, its start, its end, the end of the
        #: innermost ``with`` of the same path whose body holds it, or None).
        #: Filled with the bindings, for ``_covered_before``.
        self._certain: dict[tuple, set[str]] = {}
        self._ifs_at: dict[
            tuple,
            list[tuple[int, tuple[int, int], tuple[int, int], tuple[int, int] | None]],
        ] = {}
        #: The positions of the bindings made by statements that may
        #: complete without binding their names, or bind them from their
        #: own value (a loop's target, ``+=``), and of the ``break`` and
        #: ``continue`` statements: for ``_overwritten``. Filled with the
        #: bindings.
        self._uncertain_at: set[tuple[int, int]] = set()
        self._exits: list[tuple[int, int]] = []

    def imported(self, name: str) -> bool:
        """Whether ``name`` may be bound by an import (a necessary condition
        for the scope to resolve it to an imported name)."""
        names = self._imported_names
        return names is None or name in names

    @cached_property
    def scope(self) -> object:
        """The function's scope, built when a name's meaning is first asked."""
        return self._scope_factory()

    @cached_property
    def bindings(self) -> dict[str, list[tuple[object, tuple, tuple[int, int]]]]:
        """name -> [(value, branch path, position)] of each binding, in
        source order (built when a question first needs it: most candidate
        syncs are decided without). Statements are read as they come; an
        expression is walked only where its rows may bind a name in it
        (``:=``, a comprehension's ``for``)."""
        shared = self._shared
        if shared is not None:
            found = shared.get(self._function)
            if found is not None:
                (
                    bindings,
                    self._spans,
                    self._span_starts,
                    self._guards,
                    self._withs,
                    self._not_guarded,
                    self.declared,
                    self._certain,
                    self._ifs_at,
                    self._uncertain_at,
                    self._exits,
                    self._comprehension_scopes,
                    while_tests,
                    loop_extents,
                ) = found
                self.__dict__["bindings"] = bindings
                self.__dict__["_while_tests"] = while_tests
                self.__dict__["_loop_extents"] = loop_extents
                return bindings
        bindings: dict[str, list[tuple[object, tuple, tuple[int, int]]]] = {}
        self.__dict__["bindings"] = bindings
        spans: list[tuple[tuple[int, int], tuple[int, int], tuple]] = []
        binder_rows = self._binder_rows()
        guards = self._guards
        with_paths: dict[int, tuple] = {}
        # (``_while_tests`` and ``_loop_extents``, read off the same walk)
        while_tests: list[tuple[tuple[int, int], tuple[int, int]]] = []
        loop_extents: list[tuple[tuple[int, int], tuple[int, int]]] = []
        self.__dict__["_while_tests"] = while_tests
        self.__dict__["_loop_extents"] = loop_extents
        for node, path, roots in _structure(self._function, False):
            kind = type(node)
            if kind in _LOOPS:
                loop_extents.append(
                    (
                        (node.lineno, node.col_offset),  # type: ignore[attr-defined]
                        (node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
                    )
                )
                if kind is ast.While:
                    test = node.test  # type: ignore[attr-defined]
                    while_tests.append(
                        (
                            (test.lineno, test.col_offset),
                            (test.end_lineno, test.end_col_offset),
                        )
                    )
            if kind in _BINDING_KINDS:
                self._bind_statement(node, kind, path)
                if kind is ast.With or kind is ast.AsyncWith:
                    self._withs.append(node)
                if kind in _CERTAIN_BINDERS and not _in_with_body(
                    node, self._withs, path, with_paths
                ):
                    names = _certainly_bound(node)
                    if names:
                        self._certain.setdefault(path, set()).update(names)
                elif kind is ast.AugAssign:
                    self._uncertain_at.add((node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]
                elif kind is ast.For or kind is ast.AsyncFor:
                    self._uncertain_at.add((node.lineno, node.col_offset))  # type: ignore[attr-defined]
                if kind is ast.With or kind is ast.AsyncWith:
                    with_paths[id(node)] = path
            elif kind is ast.If:
                for guard in _device_guards(node.test):  # type: ignore[attr-defined]
                    guards.append((node, path, *guard))
                if node.orelse:  # type: ignore[attr-defined]
                    self._ifs_at.setdefault(path, []).append(
                        (
                            id(node),
                            (node.lineno, node.col_offset),  # type: ignore[attr-defined]
                            (node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
                            _with_body_end(node, self._withs, path, with_paths),
                        )
                    )
            elif kind is ast.Break or kind is ast.Continue:
                self._exits.append((node.lineno, node.col_offset))  # type: ignore[attr-defined]
            elif kind is ast.Global or kind is ast.Nonlocal:
                self._not_guarded.update(node.names)  # type: ignore[attr-defined]
            elif kind is ast.ExceptHandler and node.name:  # type: ignore[attr-defined]
                self._not_guarded.add(node.name)  # type: ignore[attr-defined]
            if not roots:
                continue
            first = last = roots[0].lineno
            for root in roots:
                start = root.lineno
                end = root.end_lineno or start
                if start < first:
                    first = start
                if end > last:
                    last = end
                if type(root) is ast.Lambda:
                    continue
                spans.append(
                    ((start, root.col_offset), (end, root.end_col_offset or 0), path)
                )
            if binder_rows is None or any_row_between(binder_rows, first, last):
                for root in roots:
                    unrun: set[int] | None = None
                    for child in _expression_nodes(root, False):
                        kind = type(child)
                        if kind is ast.NamedExpr:
                            # Bound once its value is computed (a read of
                            # the name in the value sees the earlier
                            # bindings), and on a branch of its own where
                            # the statement may run without it (an arm of
                            # ``a if c else b``, an operand of ``and``/``or``
                            # after the first, a comprehension's body).
                            if unrun is None:
                                unrun = _maybe_unrun(root)
                            position = (child.end_lineno, child.end_col_offset)  # type: ignore[attr-defined]
                            self._bind(
                                child.target,  # type: ignore[attr-defined]
                                child.value,  # type: ignore[attr-defined]
                                path + ((id(child), 0, False, _EXPR),)
                                if id(child) in unrun
                                else path,
                                position,
                            )
                        elif kind in _COMPREHENSIONS:
                            first = child.generators[0].iter  # type: ignore[attr-defined]
                            self._comprehension_scopes.append(
                                (
                                    (child.lineno, child.col_offset),  # type: ignore[attr-defined]
                                    (child.end_lineno, child.end_col_offset),  # type: ignore[attr-defined]
                                    (first.lineno, first.col_offset),
                                    (first.end_lineno, first.end_col_offset),
                                    frozenset(map(id, child.generators)),  # type: ignore[attr-defined]
                                )
                            )
                        elif kind is ast.comprehension:
                            # (its own scope: a branch no later read is on,
                            # so it never ends the bindings before it; the
                            # reads in it see it alone: ``_find_reaching``)
                            self._bind(
                                child.target,  # type: ignore[attr-defined]
                                _loop_item(child.iter),  # type: ignore[attr-defined]
                                path + ((id(child), 0, False, _EXPR),),
                                (0, 0),
                            )
        spans.sort(key=itemgetter(0))
        self._spans = spans
        self._span_starts = [span[0] for span in spans]
        if shared is not None:
            shared[self._function] = (
                bindings,
                spans,
                self._span_starts,
                self._guards,
                self._withs,
                self._not_guarded,
                self.declared,
                self._certain,
                self._ifs_at,
                self._uncertain_at,
                self._exits,
                self._comprehension_scopes,
                while_tests,
                loop_extents,
            )
        return bindings

    def _binder_rows(self) -> list[int] | None:
        """The rows of the function that hold a ``:=`` or a ``for`` (where
        an expression may bind a name: ``_EXPRESSION_BINDERS``), found once
        for the whole function; None: any row may (no text gate, or the
        pre-filters off)."""
        gate = self._gate
        if gate is None or not gate.enabled:
            return None
        function = self._function
        return gate.binder_rows(function.lineno, function.end_lineno)  # type: ignore[attr-defined]

    def _bind_statement(self, node: ast.AST, kind: type, path: tuple) -> None:
        position = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign:
            # The names are bound after the value is computed: a read of the
            # name in the value (``t = torch.cat(t) if t else e``) sees the
            # bindings before the statement, not this one.
            position = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        if kind is ast.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                self._bind(target, node.value, path, position)  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign:
            if type(node.target) is ast.Name:  # type: ignore[attr-defined]
                self.declared[node.target.id] = node.annotation  # type: ignore[attr-defined]
            if node.value is not None:  # type: ignore[attr-defined]
                self._bind(node.target, node.value, path, position)  # type: ignore[attr-defined]
        elif kind is ast.AugAssign:
            self._bind(node.target, node.value, path, position)  # type: ignore[attr-defined]
        elif kind is ast.For or kind is ast.AsyncFor:
            self._bind(node.target, _loop_item(node.iter), path, position)  # type: ignore[attr-defined]
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in node.items:  # type: ignore[attr-defined]
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, None, path, position)

    def _use(self, use: ast.Name) -> tuple[tuple, tuple[int, int]] | None:
        """(branch path, position) of a Name read in the function's own code:
        the path of the statement whose expression holds it."""
        if type(use.ctx) is not ast.Load:
            return None
        self.bindings  # noqa: B018 (builds the spans)
        position = (use.lineno, use.col_offset)
        index = bisect_right(self._span_starts, position) - 1
        if index < 0:
            return None
        start, end, path = self._spans[index]
        if position >= end:
            return None
        return path, position

    @cached_property
    def names_used(self) -> set[str]:
        """The names and attribute names the function's own code reads or
        writes (for a host copy's name: asked only where a sync is found)."""
        names: set[str] = set()
        for _, _, roots in _structure(self._function, False):
            for root in roots:
                for node in _expression_nodes(root, False):
                    kind = type(node)
                    if kind is ast.Name:
                        names.add(node.id)  # type: ignore[attr-defined]
                    elif kind is ast.Attribute:
                        names.add(node.attr)  # type: ignore[attr-defined]
        return names

    def _bind(
        self, target: ast.AST, value: object, path: tuple, position: tuple[int, int]
    ) -> None:
        if isinstance(target, ast.Name):
            self.bindings.setdefault(target.id, []).append((value, path, position))
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = (
                value.elts
                if isinstance(value, (ast.Tuple, ast.List))
                and len(value.elts) == len(target.elts)
                else None
            )
            pairs = _pair_sources(value, len(target.elts)) if values is None else None
            for index, element in enumerate(target.elts):
                if values is not None:
                    self._bind(element, values[index], path, position)
                elif pairs is not None:
                    # An element of a pair of ``zip`` or ``enumerate``.
                    part = _PairPart(_Part(value), pairs[0], pairs[1][index])  # type: ignore[arg-type]
                    self._bind(element, part, path, position)
                else:
                    # One of several results: host when the whole is.
                    part = _Part(value) if value is not None else None  # type: ignore[arg-type]
                    self._bind(element, part, path, position)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, None, path, position)

    def values_of(self, name: str) -> list[object]:
        return [value for value, _, _ in self.bindings.get(name, ())]

    def _reaching(self, name: str, use: ast.Name | None) -> tuple[int, ...]:
        """The bindings of ``name`` that may reach ``use`` (indexes into
        ``bindings[name]``), by branch structure and source order: the last
        one before it on its own path of branches, and those after that
        which may run before it (not in an arm ``_exclusive`` of its own).
        Inside a loop, or without a use: all. (Kept per name and use: it
        depends on the function's code alone, its bindings all built.)"""
        return self._reaching_entry(name, use)[0]

    def _entry_reaches(self, name: str, use: ast.Name | None) -> bool:
        """Whether the value ``name`` had when the function was entered (a
        parameter's argument) may reach ``use``: not where a binding on the
        use's own path of branches, or an ``if``/``else`` binding it in each
        arm, certainly ran before it (``x = x.cpu()`` then ``x.item()``)."""
        return self._reaching_entry(name, use)[1]

    def _reaching_entry(
        self, name: str, use: ast.Name | None
    ) -> tuple[tuple[int, ...], bool]:
        key = (name, use)
        found = self._reaching_memo.get(key)
        if found is None:
            reaching, entry = self._find_reaching(name, use)
            found = self._reaching_memo[key] = (tuple(reaching), entry)
        return found

    def _find_reaching(self, name: str, use: ast.Name | None) -> tuple[list[int], bool]:
        found = self.bindings.get(name, [])
        every = list(range(len(found)))
        where = self._use(use) if use is not None else None
        if where is None:
            return every, True
        own = (
            [index for index, (_, _, at) in enumerate(found) if at == (0, 0)]
            if self._comprehension_scopes
            else None
        )
        if own:
            # A comprehension's variable is its own scope's: a read in it
            # sees its bindings alone, a read outside it never does (unless
            # the name is bound nowhere else).
            inner = self._comprehension_bindings(found, own, use)  # type: ignore[arg-type]
            if inner is not None:
                return inner, False
            if len(own) < len(found):
                every = [index for index in every if found[index][2] != (0, 0)]
            else:
                own = None
        path, position = where
        if any(entry[2] for entry in path) or any(
            start <= position < end for start, end in self._while_tests
        ):
            # (in a loop's body, or in a ``while``'s test, which its body's
            # bindings reach on the next pass)
            reaching, entry = self._reaching_in_loop(name, found, path, position)
            if own:
                reaching = [index for index in reaching if found[index][2] != (0, 0)]
            return self._overwritten(name, found, reaching, path, position), entry
        before = [
            index
            for index in every
            if found[index][2] < position and not _exclusive(found[index][1], path)
        ]
        covered = self._covered_before(name, path, position)
        if covered is not None:
            # An ``if``/``else`` before the use binds the name in each arm:
            # no binding that ran before it reaches the use.
            before = [index for index in before if found[index][2] >= covered]
        on_path = [
            index for index in before if found[index][1] == path[: len(found[index][1])]
        ]
        if not on_path:
            # None certainly ran: those that may have (a parameter's value too).
            if covered is not None:
                return self._overwritten(name, found, before, path, position), False
            if before and name not in self.params:
                return self._overwritten(name, found, before, path, position), True
            return every, True
        last = on_path[-1]
        reaching = [index for index in before if index >= last]
        return self._overwritten(name, found, reaching, path, position), False

    def _overwritten(
        self,
        name: str,
        found: list,
        reaching: list[int],
        path: tuple,
        position: tuple[int, int],
    ) -> list[int]:
        """``reaching`` without the bindings made in a block that does not
        hold the use (at ``position``, on ``path``) and bound again later in
        that same block by a statement that binds the name whenever it
        completes (``x = t[i]`` then ``x = x.to("cpu")`` in an ``if`` arm,
        the use after the ``if``): control leaves the block, toward the use,
        only past that statement. Not where it may leave between them: a
        ``break`` or ``continue`` between the two, a ``try`` whose body,
        handler or ``else`` holds the block but not the use (an exception
        raised between them goes to its handlers, its ``finally`` or past
        it), a ``with`` whose body holds the later statement but not the use
        (its manager may swallow the exception); nor for a name a call may
        rebind (``global``, ``nonlocal``, a nested function's)."""
        if len(reaching) < 2:
            return reaching
        if name in self._not_guarded or name in self._closure_names:
            return reaching
        return [
            index
            for index in reaching
            if found[index][1] == path[: len(found[index][1])]
            or not self._rebound_after(name, found, index, path, position)
        ]

    def _rebound_after(
        self,
        name: str,
        found: list,
        index: int,
        path: tuple,
        position: tuple[int, int],
    ) -> bool:
        """Whether binding ``index`` is bound again by a later binding of
        the same block that control cannot leave it before, toward a use at
        ``position`` on ``path`` (``_overwritten``)."""
        _, bound, at = found[index]
        if any(entry[3] == _TRY and entry not in path for entry in bound):
            return False
        uncertain = self._uncertain_at
        for _, other_bound, other_at in found:
            if other_at <= at or other_bound != bound or other_at in uncertain:
                continue
            if any(at < exit_at < other_at for exit_at in self._exits):
                continue
            if any(
                _holds_position(statement, other_at)
                and not _holds_position(statement, position)
                for statement in self._withs
            ):
                continue
            return True
        return False

    def _comprehension_bindings(
        self, found: list, own: list[int], use: ast.Name
    ) -> list[int] | None:
        """The bindings of the innermost comprehension whose scope holds
        ``use`` (not its first iterable, read outside it) and binds its
        name (``own``: the indexes of the comprehensions' bindings of
        it); None: no such comprehension."""
        position = (use.lineno, use.col_offset)
        best: tuple[tuple[int, int], tuple[int, int]] | None = None
        chosen: list[int] | None = None
        for start, end, first, first_end, generators in self._comprehension_scopes:
            if not start <= position < end or first <= position < first_end:
                continue
            if best is not None and (start, (-end[0], -end[1])) <= best:
                continue  # (an enclosing comprehension of one found)
            indexes = [index for index in own if found[index][1][-1][0] in generators]
            if indexes:
                best = (start, (-end[0], -end[1]))
                chosen = indexes
        return chosen

    def _reaching_in_loop(
        self, name: str, found: list, path: tuple, position: tuple[int, int]
    ) -> list[int]:
        """The bindings that may reach a use inside a loop. The last binding
        on the use's own path of branches before it (an assignment of a
        block that encloses the use) runs again before the use on every
        pass of each loop it is inside of, so a binding made after the use
        in such a loop (``rotation = [t]`` at the top of the body,
        ``rotation = rotation.to(device)`` at its end) comes back to the use
        only through it: what reaches is that binding, those after it that
        may run before the use, and every binding inside a loop that holds
        the use and starts after it (its back edge reaches the use without
        passing it; a ``while`` whose test holds the use counts). All of
        them where there is none such, and for a name a call may rebind
        (``global``, ``nonlocal``). With whether the value the name had on
        entry (a parameter's argument) may reach the use: not past such a
        binding (``x = x.cpu()`` before the loop, ``x[i].tolist()`` in it)."""
        every = list(range(len(found)))
        if name in self._not_guarded or name in self._closure_names:
            return every, True
        on_path = [
            index
            for index, (_, bound, at) in enumerate(found)
            if at < position
            and at != (0, 0)  # (a comprehension's variable)
            and bound == path[: len(bound)]
        ]
        if not on_path:
            return every, True
        last_at = found[on_path[-1]][2]
        open_loops = [
            (start, end)
            for start, end in self._loop_extents
            if last_at < start <= position < end
        ]
        return [
            index
            for index, (_, bound, at) in enumerate(found)
            if (last_at <= at < position and not _exclusive(bound, path))
            or any(start <= at <= end for start, end in open_loops)
        ], False

    @cached_property
    def _while_tests(self) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """(start, end) of the test of each ``while`` of the function's own
        code (found with the bindings, which set it: this walk is their
        test's reference)."""
        return [
            (
                (node.test.lineno, node.test.col_offset),  # type: ignore[attr-defined]
                (node.test.end_lineno, node.test.end_col_offset),  # type: ignore[attr-defined]
            )
            for node, _, _ in _structure(self._function, False)
            if type(node) is ast.While
        ]

    @cached_property
    def _loop_extents(self) -> list[tuple[tuple[int, int], tuple[int, int]]]:
        """(start, end) of each loop statement of the function's own code
        (found with the bindings, which set it: this walk is their test's
        reference)."""
        return [
            (
                (node.lineno, node.col_offset),  # type: ignore[attr-defined]
                (node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
            )
            for node, _, _ in _structure(self._function, False)
            if type(node) in _LOOPS
        ]

    def _covered_before(
        self, name: str, path: tuple, position: tuple[int, int]
    ) -> tuple[int, int] | None:
        """The start of the last ``if`` statement, ended before a use at
        ``position`` on ``path`` and in a block that encloses the use
        (every run that reaches the use has run it), each arm of which
        binds ``name`` whenever it completes (``_arm_binds``); None: no
        such statement. Every binding of ``name`` that ran before that
        statement is then rebound before the use. (Not for a name a call
        may rebind: ``global``, ``nonlocal``, a nested function's.)"""
        ifs_at = self._ifs_at
        if not ifs_at or name in self._not_guarded:
            return None
        found: tuple[int, int] | None = None
        for depth in range(len(path) + 1):
            statements = ifs_at.get(path[:depth])
            if not statements:
                continue
            enclosing = path[depth][0] if depth < len(path) else None
            for statement, start, end, within in statements:
                if statement == enclosing or end >= position:
                    continue
                if within is not None and position > within:
                    continue  # (a ``with`` may swallow what the arm raised)
                if (found is None or start > found) and self._arm_binds(
                    name, statement, path[:depth]
                ):
                    found = start
        if found is not None and name in self._closure_names:
            return None
        return found

    def _arm_binds(self, name: str, statement: int, block: tuple) -> bool:
        """Whether both arms of the ``if`` ``statement`` (in the block on
        ``block``) bind ``name`` when they complete: by a statement of the
        arm itself (not one nested in a further branch or loop), or by an
        ``if``/``else`` of the arm that does so in both of its arms."""
        for arm in (0, 1):
            arm_path = (*block, (statement, arm, False, _IF))
            if name in self._certain.get(arm_path, ()):
                continue
            if not any(
                self._arm_binds(name, nested, arm_path)
                for nested, _, _, _ in self._ifs_at.get(arm_path, ())
            ):
                return False
        return True

    # ------------------------------------------------------------ where values live

    def is_host_name(self, name: str) -> bool:
        return self.host_names is not None and self.host_names.match(name) is not None

    def where(self, expr: ast.expr | None, depth: int = 0) -> str:
        if expr is None or depth > 20:
            return UNKNOWN
        # (by the node's type, the commonest first; a part and a parameter,
        # which are no nodes, last)
        kind = type(expr)
        if kind is ast.Name:
            return self._where_name(expr.id, depth, expr)  # type: ignore[union-attr]
        if kind is ast.Attribute:
            if self.is_host_name(expr.attr):  # type: ignore[union-attr]
                return HOST
            if expr.attr in ("shape", "ndim", "dtype", "device", "is_cuda"):  # type: ignore[union-attr]
                return PYTHON
            if expr.attr in _SAME_PLACE_ATTRIBUTES:  # type: ignore[union-attr]
                # ``lens.max(dim=1).values``, ``t.T``: where the value is.
                return self.where(expr.value, depth + 1)  # type: ignore[union-attr]
            if self._instance_attribute(expr):
                place = self._attributes.place(self._function, expr.attr)  # type: ignore[union-attr]
                if place == DEVICE and self._receiver_kept():
                    return DEVICE
            return UNKNOWN
        if kind is ast.Call:
            return self._where_call(expr, depth)  # type: ignore[arg-type]
        if kind is ast.Subscript or kind is ast.Starred:
            return self.where(expr.value, depth + 1)  # type: ignore[union-attr]
        if kind in _PYTHON_NODES:
            return PYTHON
        if kind is ast.UnaryOp:
            return self.where(expr.operand, depth + 1)  # type: ignore[union-attr]
        if kind is ast.BinOp:
            return self._combined(
                [expr.left, expr.right],  # type: ignore[union-attr]
                [self.where(expr.left, depth + 1), self.where(expr.right, depth + 1)],  # type: ignore[union-attr]
            )
        if kind is ast.BoolOp:
            return _join(*(self.where(value, depth + 1) for value in expr.values))  # type: ignore[union-attr]
        if kind is ast.Compare:
            if any(
                isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                for op in expr.ops  # type: ignore[union-attr]
            ):
                return HOST
            return _operands(
                *(
                    self.where(value, depth + 1)
                    for value in [expr.left, *expr.comparators]  # type: ignore[union-attr]
                )
            )
        if kind is ast.IfExp:
            return _join(
                self.where(expr.body, depth + 1),  # type: ignore[union-attr]
                self.where(expr.orelse, depth + 1),  # type: ignore[union-attr]
            )
        if isinstance(expr, _Part):
            if type(expr) is _PairPart and self._tensor_pair_source(expr):
                return self._where_part(expr.source, depth + 1)  # type: ignore[attr-defined]
            return self._where_part(expr.whole, depth + 1)
        if isinstance(expr, _Parameter):
            return self.parameter(expr.name)
        return UNKNOWN

    def _where_name(self, name: str, depth: int, use: ast.Name | None = None) -> str:
        if self.is_host_name(name):
            return HOST
        if use is not None and self._guarded_place is not None:
            guarded = self._guarded_place(name, use)
            if guarded is not None:
                return guarded
        reaching, entry = self._reaching_entry(name, use)
        key = (name, reaching, entry)
        memo = self._memo.get(key)
        if memo is not None:
            return memo
        self._memo[key] = UNKNOWN  # (a cycle through the bindings: unknown)
        found = self.bindings.get(name)
        if found is None:
            if name in self.params:
                result = self.parameter(name)
            else:
                result = PYTHON if self._module_number(name) else UNKNOWN
        else:
            values = [found[index][0] for index in reaching]
            every = len(reaching) == len(found)
            if name in self.params and entry:
                values = [*values, _Parameter(name)]
            result = self._join_bindings(name, values, every, depth)
        self._memo[key] = result
        return result

    def _where_part(self, whole: object, depth: int) -> str:
        """Where an item of ``whole`` lives (what a loop over it, or an
        unpacking of it, binds): on the device where every item is a device
        value (``_device_items``), not known where some may be, and else
        where ``whole`` is when that is the host (the items of a host
        tensor, of ``range()``, of a list of numbers), else not known."""
        items = self._device_items(whole, depth)
        if items == DEVICE:
            return DEVICE
        if items == _MAYBE_DEVICE:
            return UNKNOWN
        place = self.where(whole, depth)  # type: ignore[arg-type]
        return place if place in _ON_HOST else UNKNOWN

    def _tensor_pair_source(self, part: _PairPart) -> bool:
        """Whether ``part`` is a row of a tensor: an element of a pair of
        Python's ``zip`` or ``enumerate`` whose iterable is a tensor
        (``for m, e in zip(masks, experts)``, ``masks`` a comparison), where
        a loop over that tensor alone would bind its rows. (Of any other
        iterable the pair is judged as a whole, as before.)"""
        source = part.source
        return (
            source is not None
            and self.scope.is_builtin(part.builtin)  # type: ignore[attr-defined]
            and self.is_tensor(source, maybe_none=True)  # (None is no iterable)
        )

    def _device_items(self, whole: object, depth: int) -> str | None:
        """DEVICE where every item of ``whole`` is known to be a device
        value, ``_MAYBE_DEVICE`` where some part may be one, None where
        nothing says so: the rows of a device tensor; the elements of a
        display or the element of a comprehension (``[t.cuda() for t in
        ts]``); of a name, those of its bindings and what the function adds
        to it (``xs.append(t)``, ``d[k] = t``); of ``list(x)``,
        ``sorted(x)``, a slice ``x[1:]``, those of ``x``; of a dict's
        ``.values()``, what is stored into it; the parts of the pairs of
        ``enumerate(x)`` (an index, a Python value), ``zip(x, y)`` and a
        dict's ``.items()`` (a key: not known)."""
        if depth > 20 or whole is None:
            return None
        kind = type(whole)
        if kind is _PairPart and self._tensor_pair_source(whole):  # type: ignore[arg-type]
            return self._device_items(_Part(whole.source), depth + 1)  # type: ignore[attr-defined]
        if kind is _Part or kind is _PairPart:  # (an item of an item)
            inner = whole.whole  # type: ignore[attr-defined]
            parts = self._pair_parts(inner, depth + 1)
            if parts is not None:
                return _device_parts(parts)
            return self._device_items(inner, depth + 1)
        if kind is ast.List or kind is ast.Tuple or kind is ast.Set:
            elements = whole.elts  # type: ignore[attr-defined]
            if not elements:
                return None
            return _device_parts(
                [
                    self._device_items(element.value, depth + 1)
                    if type(element) is ast.Starred
                    else self._device_tensor(element, depth)
                    for element in elements
                ]
            )
        if kind is ast.ListComp or kind is ast.SetComp or kind is ast.GeneratorExp:
            return self._device_tensor(whole.elt, depth)  # type: ignore[attr-defined]
        if kind is ast.Name:
            return self._device_items_of_name(whole.id, depth)  # type: ignore[attr-defined]
        if kind is ast.Subscript and type(whole.slice) is ast.Slice:  # type: ignore[attr-defined]
            return self._device_items(whole.value, depth + 1)  # type: ignore[attr-defined]
        if kind is ast.Call:
            func = whole.func  # type: ignore[attr-defined]
            args = whole.args  # type: ignore[attr-defined]
            if type(func) is ast.Name and func.id in _ITEM_BUILTINS:
                if not self.scope.is_builtin(func.id):  # type: ignore[attr-defined]
                    return None
                if func.id in ("enumerate", "zip", "range") or not args:
                    return None  # (a pair, asked as such; a number)
                return self._device_items(args[0], depth + 1)
            if type(func) is ast.Attribute and func.attr == "values" and not args:
                if type(func.value) is ast.Name:
                    return self._device_stored(func.value.id, depth)
                return None
        return self._device_tensor(whole, depth)  # type: ignore[arg-type]

    def _device_tensor(self, expr: object, depth: int) -> str | None:
        """DEVICE for a value known to be a tensor on the device: a name,
        element or attribute ``is_tensor`` knows, a ``torch`` function's
        tensor, ``.cuda()`` or ``.to(...)`` of such (not what any method of
        a device value gives: ``module.to(device).named_modules()``)."""
        if not isinstance(expr, ast.expr) or self.where(expr, depth + 1) != DEVICE:
            return None
        node = expr
        while type(node) is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
            if qualified is not None:
                return DEVICE if _tensor_function(qualified) else None
            if type(func) is not ast.Attribute or func.attr not in _TO_DEVICE_METHODS:
                return None
            node = func.value
        return DEVICE if self.is_tensor(node) else None  # type: ignore[arg-type]

    def _pair_parts(self, pair: object, depth: int) -> list[str | None] | None:
        """``_device_items`` of each part of a pair of ``enumerate(x)``,
        ``zip(x, y)`` or a dict's ``.items()``; None: ``pair`` is none of
        them."""
        if type(pair) is not ast.Call:
            return None
        func = pair.func  # type: ignore[attr-defined]
        args = pair.args  # type: ignore[attr-defined]
        if type(func) is ast.Name and func.id in ("enumerate", "zip"):
            if not self.scope.is_builtin(func.id) or not args:  # type: ignore[attr-defined]
                return None
            if any(type(arg) is ast.Starred for arg in args):
                return None
            if func.id == "enumerate":
                return [None, self._device_items(args[0], depth + 1)]
            return [self._device_items(arg, depth + 1) for arg in args]
        if (
            type(func) is ast.Attribute
            and func.attr == "items"
            and not args
            and type(func.value) is ast.Name
        ):
            return [None, self._device_stored(func.value.id, depth)]
        return None

    def _device_items_of_name(self, name: str, depth: int) -> str | None:
        """``_device_items`` of a name: of each of its bindings (a
        parameter's value: nothing known), and of what the function adds to
        it."""
        if self.is_host_name(name):
            return None
        parts = [
            self._device_items(value, depth + 1)
            for value, _, _ in self.bindings.get(name, ())
        ]
        if not parts:
            return None
        added = self._added.get(name)
        if added is not None:
            parts += [
                None if value is None else self._device_tensor(value, depth)
                for value in added
            ]
        if name in self.params:
            parts.append(None)
        return _device_parts(parts)

    def _device_stored(self, name: str, depth: int) -> str | None:
        """``_device_items`` of the values a dict bound to ``name`` holds:
        those of its displays and what the function stores into it."""
        parts: list[str | None] = []
        for value, _, _ in self.bindings.get(name, ()):
            if type(value) is ast.Dict:
                parts += [
                    self._device_tensor(item, depth)
                    for item in value.values  # type: ignore[attr-defined]
                ]
            else:
                parts.append(None)
        for value in self._added.get(name, ()):
            parts.append(None if value is None else self._device_tensor(value, depth))
        return _device_parts(parts) if parts else None

    @cached_property
    def _added(self) -> dict[str, list[ast.expr | None]]:
        """What the function adds to each name that holds a container: the
        argument of ``.append(x)``, ``.insert(i, x)``, the value of a store
        ``xs[k] = x``; None for what ``.extend``, ``.update``,
        ``.setdefault`` or ``+=`` add (not read)."""
        added: dict[str, list[ast.expr | None]] = {}
        for node in walk(self._function):
            kind = type(node)
            if kind is ast.Call:
                func = node.func  # type: ignore[attr-defined]
                if type(func) is not ast.Attribute or type(func.value) is not ast.Name:
                    continue
                method = func.attr
                args = node.args  # type: ignore[attr-defined]
                if method == "append" and len(args) == 1:
                    added.setdefault(func.value.id, []).append(args[0])
                elif method == "insert" and len(args) == 2:
                    added.setdefault(func.value.id, []).append(args[1])
                elif method in _GROWING_METHODS:
                    added.setdefault(func.value.id, []).append(None)
            elif kind is ast.Assign:
                for target in node.targets:  # type: ignore[attr-defined]
                    if type(target) is ast.Subscript and type(target.value) is ast.Name:
                        added.setdefault(target.value.id, []).append(node.value)  # type: ignore[attr-defined]
            elif kind is ast.AugAssign and type(node.target) is ast.Name:  # type: ignore[attr-defined]
                added.setdefault(node.target.id, []).append(None)  # type: ignore[attr-defined]
        return added

    def _module_number(self, name: str) -> bool:
        """Whether ``name``, which the function does not bind, is a global of
        the module every binding of which is an assignment of a number
        (``NUM_STEPS = 1000``): a Python value; not where the module's code
        may rebind it another way (``globals()["NUM_STEPS"] = t``)."""
        scope, found = self.scope.lookup(name)  # type: ignore[attr-defined]
        if scope is None or scope.kind != "module" or not found:
            return False
        for binding in found:
            node = binding.node
            if type(node) is ast.AnnAssign:
                value = node.value
            elif type(node) is ast.Assign and len(node.targets) == 1:
                value = node.value
            else:
                return False
            if value is None or not _numeric(value):
                return False
        # (asked last: finding it reads the whole module, once)
        return self._namespace_reached is not None and not self._namespace_reached()

    def _join_bindings(
        self, name: str, values: list[object], every: bool, depth: int
    ) -> str:
        """Where ``name`` is, by the values of its bindings. Where every
        binding counts (in a loop), one that only reshapes the name's own
        value (``x = x.reshape(n, -1)``, ``x = x[1:].T``: ``_same_place``)
        keeps whatever place the others give it: a host tensor reshaped
        stays a host tensor. Without that, its value would be a cycle, and
        not known."""
        if every and name not in self._not_guarded and name not in self._closure_names:
            others = [
                value
                for value in values
                if not (isinstance(value, ast.expr) and self._same_place(value, name))
            ]
            if others and len(others) < len(values):
                place = _join(*(self.where(value, depth + 1) for value in others))  # type: ignore[arg-type]
                if place != PYTHON:
                    return place
        return _join(*(self.where(value, depth + 1) for value in values))  # type: ignore[arg-type]

    def _same_place(self, value: ast.expr, name: str) -> bool:
        """Whether ``where`` puts ``value`` where ``name`` is, for a tensor on
        the host or the device (and a value not known: not known): ``name``
        itself, an element or slice of it, a same-place attribute (``.T``),
        a dtype cast, or a method of it that ``where`` judges by its
        receiver alone."""
        node: ast.expr = value
        while True:
            kind = type(node)
            if kind is ast.Name:
                return node.id == name  # type: ignore[attr-defined]
            if kind is ast.Subscript:
                node = node.value  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                attr = node.attr  # type: ignore[attr-defined]
                if attr not in _SAME_PLACE_ATTRIBUTES or self.is_host_name(attr):
                    return False
                node = node.value  # type: ignore[attr-defined]
            elif kind is ast.Call and type(node.func) is ast.Attribute:  # type: ignore[attr-defined]
                func = node.func  # type: ignore[attr-defined]
                method = func.attr
                if method == "to":
                    if _to_cpu(node) or not _is_dtype_cast(node):  # type: ignore[arg-type]
                        return False
                elif (
                    method in _TO_HOST_METHODS
                    or method in _METADATA_METHODS
                    or method == "cuda"
                    or self.scope.qualified_name(func) is not None  # type: ignore[attr-defined]
                ):
                    return False
                node = func.value
            else:
                return False

    @property
    def _guarded_place(self) -> Callable[[str, ast.Name], str | None] | None:
        """``_guard_place`` where the function has a device guard (None: it
        has none, most functions)."""
        self.bindings  # noqa: B018 (finds the guards)
        return self._guard_place if self._guards else None

    def _guard_place(self, name: str, use: ast.Name) -> str | None:
        """Where ``name`` lives at ``use`` by a device guard
        (``_device_guard``) of an ``if``: inside one of its arms, the place
        that arm implies; after an ``if`` one arm of which always leaves
        (``_leaves``), in the rest of its block, the place the other arm
        implies. Only while the name is not rebound between the guard's test
        and the use (in an arm the use is not in of an ``if`` it is in, a
        binding does not run before it; inside a loop after the test: not
        rebound after the test at all), for a
        parameter or a local of the function (not ``global``, ``nonlocal``,
        a comprehension's variable, nor rebound by a nested function), and
        not past the end of a ``with`` (which may swallow a ``raise``).
        None: no guard says."""
        if name in self._not_guarded or (
            name not in self.params and name not in self.bindings
        ):
            return None
        where = self._use(use)
        if where is None:
            return None
        path, position = where
        found = self.bindings.get(name, ())
        if any(at == (0, 0) for _, _, at in found):
            return None  # (a comprehension's variable)
        for statement, guard_path, guarded, body, orelse in reversed(self._guards):
            if guarded != name:
                continue
            depth = len(guard_path)
            if path[:depth] != guard_path:
                continue
            start = (statement.lineno, statement.col_offset)
            if start >= position:
                continue
            if len(path) > depth and path[depth][0] == id(statement):
                place = body if path[depth][1] == 0 else orelse
                if place is None:
                    continue  # (an arm the guard does not tell of)
                inner = path[depth + 1 :]
            else:
                end = (statement.end_lineno, statement.end_col_offset)
                if position < end:
                    continue  # (in the test)
                if _leaves(statement.body):
                    place = orelse
                elif _leaves(statement.orelse):
                    place = body
                else:
                    continue
                if place is None:
                    continue
                if any(
                    (w.lineno, w.col_offset)  # type: ignore[attr-defined]
                    < start
                    < (w.end_lineno, w.end_col_offset)  # type: ignore[attr-defined]
                    <= position
                    for w in self._withs
                ):
                    continue  # (a ``with`` around the guard ended before the use)
                inner = path[depth:]
            if any(entry[2] for entry in inner):
                if any(start < at for _, _, at in found):
                    continue  # (rebound after the test: may run before the use)
            elif any(
                start < at < position and not _exclusive(bound, path)
                for _, bound, at in found
            ):
                continue  # (rebound between the test and the use)
            if name in self._closure_names:
                return None
            return place
        return None

    @cached_property
    def _closure_names(self) -> set[str]:
        """The names a nested function of this one declares ``nonlocal``
        (it may rebind them when called): asked only where a guard holds.
        A ``nonlocal`` statement spells its keyword, in the function's text
        (a statement of a nested function's body): without it there (the
        pre-filters on), there is none to walk for. (The function's text,
        not the module's: a question of each provenance.)"""
        gate = self._gate
        if (
            gate is not None
            and gate.enabled
            and "nonlocal" not in gate.span([self._function])
        ):
            return set()
        return {
            name
            for node in walk(self._function)
            if type(node) is ast.Nonlocal
            for name in node.names  # type: ignore[attr-defined]
        }

    def parameter(self, name: str) -> str:
        """Where the value a parameter receives lives: a Python value by its
        annotation (``n: int``), else what every call of the module passes
        it, where the function is private to the module or runs per step
        only through its calls (``_Callers``)."""
        annotation = self.params[name]
        if annotation is not None:
            if _host_annotation(annotation):
                return PYTHON
            if _numpy_annotation(annotation, self.scope):
                return HOST
        if self._parameter is None:
            return UNKNOWN
        return self._parameter(self._function, name)

    def _where_call(self, call: ast.Call, depth: int) -> str:
        func = call.func
        if isinstance(func, ast.Attribute):
            method = func.attr
            if method in ("item", "tolist"):
                return PYTHON
            if method in _TO_HOST_METHODS:
                return HOST
            if method == "to":
                if _to_cpu(call):
                    return HOST
                if _is_dtype_cast(call):
                    return self.where(func.value, depth + 1)
                return DEVICE
            if method == "cuda":
                return DEVICE
            if method in _METADATA_METHODS:
                return PYTHON
            if method in _STORAGE_METHODS:
                return UNKNOWN  # (a storage: no tensor, its handles no values)
            qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
            if qualified is not None:
                return self._where_function(qualified, call, depth)
            # A method of a value: where that value is.
            receiver = self.where(func.value, depth + 1)
            if receiver == PYTHON and method in _ELEMENT_METHODS:
                # A value stored in a dict or list (``params.get("x")``,
                # ``d.pop(k)``): what was put in, which may be a tensor.
                return HOST if _names_cpu(call) else UNKNOWN
            if receiver in _ON_HOST:
                return HOST
            if receiver == DEVICE:
                return DEVICE
            return HOST if _names_cpu(call) else UNKNOWN
        if isinstance(func, ast.Name):
            qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
            if qualified is not None and qualified != func.id:
                return self._where_function(qualified, call, depth)
            if func.id == "getattr" and self.scope.is_builtin(func.id):  # type: ignore[attr-defined]
                return self._where_getattr(call, depth)
            if func.id in _HOST_BUILTINS and self.scope.is_builtin(func.id):  # type: ignore[attr-defined]
                return PYTHON
        return HOST if _names_cpu(call) else UNKNOWN

    def _where_getattr(self, call: ast.Call, depth: int) -> str:
        """``getattr(obj, "x", default)``: where ``obj.x`` is, or the
        default (an attribute may hold a tensor: a Python value only where
        both are one)."""
        args = call.args
        if call.keywords or not 2 <= len(args) <= 3:
            return UNKNOWN
        name = _constant_string(args[1])
        if name is None or not name.isidentifier():
            return UNKNOWN
        attribute = ast.Attribute(value=args[0], attr=name, ctx=ast.Load())
        ast.copy_location(attribute, call)
        places = [self.where(attribute, depth + 1)]
        if len(args) == 3:
            places.append(self.where(args[2], depth + 1))
        return _join(*places)

    def _where_function(self, qualified: str, call: ast.Call, depth: int) -> str:
        if qualified.startswith("math."):
            return PYTHON
        if qualified.startswith("numpy.") or qualified in _HOST_FUNCTIONS:
            return HOST
        if qualified in _FACTORIES or qualified.endswith("_like"):
            for keyword in call.keywords:
                if keyword.arg == "device":
                    device = keyword.value
                    if isinstance(device, ast.Attribute) and device.attr == "device":
                        # ``device=x.device``: where ``x`` is.
                        return self.where(device.value, depth + 1)
                    return HOST if _is_cpu(device) else DEVICE
            if qualified.endswith("_like") and call.args:
                return self.where(call.args[0], depth + 1)
            return HOST
        if qualified.startswith("torch."):
            if any(
                keyword.arg in ("device", "map_location") and _is_cpu(keyword.value)
                for keyword in call.keywords
            ):
                # (told the CPU: ``torch.load(f, map_location="cpu")``)
                return HOST
            places = [self._where_argument(arg, depth + 1) for arg in call.args]
            tensors = [place for place in places if place not in _ON_HOST]
            if not call.args:
                return UNKNOWN
            if not tensors:
                # Every argument on the host (Python values or host tensors).
                return HOST if HOST in places else _join(*places)
            return self._combined(call.args, places)
        return HOST if _names_cpu(call) else UNKNOWN

    def _combined(self, operands: list[ast.expr], places: list[str]) -> str:
        """Where the result of an operation on ``operands`` (at ``places``)
        is. A 0-d host tensor made from one number (``torch.tensor(n +
        1)``, ``_scalar_tensor``) does not keep the result on the host:
        PyTorch moves a 0-d CPU tensor to the device of the tensors it is
        combined with (``torch.minimum(lens, torch.tensor(w + 1))`` is on
        the device of ``lens``). It counts as the number it holds where
        another operand is not known to be on the host."""
        if HOST in places and any(place not in _ON_HOST for place in places):
            places = [
                PYTHON if place == HOST and _scalar_tensor(operand, self) else place
                for operand, place in zip(operands, places, strict=True)
            ]
        return _operands(*places)

    def _where_argument(self, arg: ast.expr, depth: int) -> str:
        """Where a ``torch`` function's argument is, as its result reads it:
        a list or tuple of tensors (``torch.cat([a, b])``, ``torch.stack(
        [t for t in ts])``) is where its elements are, not a Python value."""
        kind = type(arg)
        if kind is ast.List or kind is ast.Tuple:
            elements = arg.elts  # type: ignore[attr-defined]
            if any(type(element) is ast.Starred for element in elements):
                return UNKNOWN
            return _operands(*(self.where(element, depth) for element in elements))
        if kind is ast.ListComp or kind is ast.GeneratorExp:
            return _operands(self.where(arg.elt, depth))  # type: ignore[attr-defined]
        return self.where(arg, depth)

    # ------------------------------------------------------------ what values are

    def is_tensor(self, expr: ast.expr, maybe_none: bool = False) -> bool:
        """Whether ``expr`` is a tensor whenever it evaluates (what kind of
        value, not where it lives): a call ``where`` puts on the device; a
        name declared ``torch.Tensor`` (a parameter's or a local's
        annotation; ``Optional[torch.Tensor]`` too with ``maybe_none``, for
        a value that is indexed or computed with, which None cannot be), or
        whose every binding that may reach the use is a tensor; an element
        or slice of a tensor (``indptr[-1]``: of a list it would be a list's
        element); arithmetic with a tensor or a comparison of one (one
        operator, not ``is``/``in``); a tensor method's result (not
        ``item``, ``tolist``, metadata); a ``torch`` function's (not
        ``numel``, ``is_*``, ...). A parameter not declared a tensor is not
        known to be one."""
        return self._is_tensor(expr, maybe_none, 0)

    def _is_tensor(self, expr: object, maybe_none: bool, depth: int) -> bool:
        kind = type(expr)
        if depth > 20 or kind not in _TENSOR_FORMS:
            return False
        if kind is ast.Name:
            return self._tensor_name(expr, maybe_none, depth)  # type: ignore[arg-type]
        if kind is ast.Subscript:
            return self._is_tensor(expr.value, True, depth + 1)  # type: ignore[attr-defined]
        if kind is ast.Attribute:
            if expr.attr in _SAME_PLACE_ATTRIBUTES:  # type: ignore[attr-defined]
                return self._is_tensor(expr.value, True, depth + 1)  # type: ignore[attr-defined]
            return (
                self._instance_attribute(expr)  # type: ignore[arg-type]
                and self._attributes.tensor(  # type: ignore[union-attr]
                    self._function,
                    expr.attr,  # type: ignore[attr-defined]
                    maybe_none,
                )
                and self._receiver_kept()
            )
        if kind is ast.UnaryOp:
            return type(expr.op) is not ast.Not and self._is_tensor(  # type: ignore[attr-defined]
                expr.operand,  # type: ignore[attr-defined]
                True,
                depth + 1,
            )
        if kind is ast.BinOp:
            left, right = expr.left, expr.right  # type: ignore[attr-defined]
            if type(left) is ast.Constant and isinstance(left.value, str):
                return False  # ("%d" % t)
            return self._is_tensor(left, True, depth + 1) or self._is_tensor(
                right, True, depth + 1
            )
        if kind is ast.Compare:
            # (``t > 0`` of a tensor is a tensor; ``is``/``in`` and a chain,
            # which reads the first comparison's truth, give a Python bool)
            ops = expr.ops  # type: ignore[attr-defined]
            if len(ops) != 1 or type(ops[0]) in _IDENTITY_OPS:
                return False
            left, right = expr.left, expr.comparators[0]  # type: ignore[attr-defined]
            if _is_none(left) or _is_none(right):
                return False
            return self._is_tensor(left, True, depth + 1) or self._is_tensor(
                right, True, depth + 1
            )
        if kind is ast.IfExp:
            return self._is_tensor(
                expr.body,  # type: ignore[attr-defined]
                maybe_none,
                depth + 1,
            ) and self._is_tensor(expr.orelse, maybe_none, depth + 1)  # type: ignore[attr-defined]
        # A call: one that puts a value on the device makes a tensor
        # (``.cuda()``, ``.to(device)``, a factory given a device).
        if self.where(expr) == DEVICE:  # type: ignore[arg-type]
            return True
        func = expr.func  # type: ignore[attr-defined]
        if type(func) is ast.Attribute:
            qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
            if qualified is not None:
                return _tensor_function(qualified)
            method = func.attr
            if (
                method in _NOT_TENSOR_METHODS
                or method in _METADATA_METHODS
                or method.startswith("is_")
            ):
                return False
            return self._is_tensor(func.value, True, depth + 1)
        if type(func) is ast.Name and self.imported(func.id):
            qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
            return qualified is not None and _tensor_function(qualified)
        return False

    def _instance_attribute(self, expr: ast.Attribute) -> bool:
        """Whether ``expr`` is ``self.<name>`` in a method (``self`` its
        instance parameter; ``_receiver_kept`` says it is never rebound)."""
        attributes = self._attributes
        if attributes is None or type(expr.value) is not ast.Name:
            return False
        receiver = attributes.receiver(self._function)
        return receiver is not None and expr.value.id == receiver

    def _receiver_kept(self) -> bool:
        """Whether the method never rebinds its instance parameter (asked
        after the attribute's answer: the bindings are built only then)."""
        return self._attributes.receiver(self._function) not in self.bindings  # type: ignore[union-attr]

    def _tensor_name(self, use: ast.Name, maybe_none: bool, depth: int) -> bool:
        name = use.id
        found = self.bindings.get(name)  # (fills ``declared`` too)
        declared = self.declared.get(name)
        if declared is not None and _tensor_annotation(declared, maybe_none):
            return True
        if not found:
            return False
        reaching, entry = self._reaching_entry(name, use)
        if name in self.params and entry:
            return False  # the parameter's own value may reach the use
        key = (name, reaching, maybe_none)
        memo = self._tensor_memo.get(key)
        if memo is not None:
            return memo
        if key in self._tensor_asking:
            self._tensor_cycles += 1
            return False
        cycles = self._tensor_cycles
        self._tensor_asking.add(key)
        try:
            result = all(
                self._is_tensor(found[index][0], maybe_none, depth + 1)
                for index in reaching
            )
        finally:
            self._tensor_asking.discard(key)
        if self._tensor_cycles == cycles:
            self._tensor_memo[key] = result
        return result

    def _tensor_on_device(self, expr: ast.expr) -> bool:
        """A tensor not known to live on the host (as ``.item()``'s receiver
        is judged): reading it on the host is a sync."""
        return self.is_tensor(expr) and self.where(expr) not in _ON_HOST

    # --------------------------------------------------------------------- syncs

    def sync(self, node: ast.AST) -> tuple[str, ast.expr | None] | None:
        """(what, base) when ``node`` makes the host wait for a device value."""
        if isinstance(node, ast.Call):
            return self._sync_call(node)
        if isinstance(node, (ast.If, ast.While, ast.Assert, ast.IfExp)):
            # (of ``a and t``, the test reads the last operand's truth too)
            test = _tested(node.test)
            if self._tensor_truth(test):
                return "(a tensor's truth value)", test
        if isinstance(node, ast.BoolOp):
            for value in node.values[:-1]:
                value = _tested(value)
                if self._tensor_truth(value):
                    return "(a tensor's truth value)", value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operand = _tested(node.operand)
            if self._tensor_truth(operand):
                return (
                    "(a tensor's truth value)",
                    None if operand is node.operand else operand,
                )
        if isinstance(node, ast.comprehension):
            # (each ``if`` of a comprehension tests its truth, pass by pass)
            for test in node.ifs:
                test = _tested(test)
                if self._tensor_truth(test):
                    return "(a tensor's truth value)", test
        if isinstance(node, ast.Subscript):
            if self._boolean_mask(node):
                return "(boolean-mask indexing)", None
            for bound in _slice_bounds(node.slice):
                if self._tensor_on_device(bound):
                    return f"(the tensor `{_short(bound)}` as a slice bound)", bound
        return None

    def _sync_call(self, call: ast.Call) -> tuple[str, ast.expr | None] | None:
        func = call.func
        name = func.attr if type(func) is ast.Attribute else getattr(func, "id", None)
        if name == "repeat_interleave":
            return self._repeat_interleave(call)
        if name in _SIZED_NAMES:
            return self._tensor_size(call, name)  # type: ignore[arg-type]
        if name in _INT_PARAMETERS:
            return self._int_argument(call, name)  # type: ignore[arg-type]
        if isinstance(func, ast.Attribute):
            method = func.attr
            receiver = func.value
            if method in ("item", "tolist") and not call.args:
                if self.where(receiver) not in _ON_HOST:
                    return f"`.{method}()`", receiver
                return None
            if method == "numpy" and not call.args:
                # ``Tensor.numpy()`` raises on a tensor not on the CPU: it
                # never waits for the GPU. ``force=True`` copies it first.
                if _forced(call) and self.where(receiver) not in _ON_HOST:
                    return "`.numpy(force=True)`", receiver
                return None
            if method == "cpu" and not call.args and not call.keywords:
                if self.where(receiver) not in _ON_HOST:
                    return "`.cpu()`", receiver
                return None
            if method == "to" and _to_cpu(call) and not _non_blocking(call):
                if self.where(receiver) not in _ON_HOST:
                    return '`.to("cpu")`', receiver
                return None
            if method == "synchronize" and (
                not call.args or self._device_synchronize(func)
            ):
                return f"`{dotted_name(func) or 'synchronize'}()`", None
            if method in _BOOL_METHODS:
                return self._bool_sync(call)
            if method == "where":
                # ``torch.where(cond)``, of one argument, is
                # ``torch.nonzero(cond, as_tuple=True)``.
                if (
                    len(call.args) == 1
                    and not call.keywords
                    and type(call.args[0]) is not ast.Starred
                    and self.scope.qualified_name(func) == "torch.where"  # type: ignore[attr-defined]
                    and self.where(call.args[0]) not in _ON_HOST
                ):
                    return "`torch.where()` of one argument", call.args[0]
                return None
            if method in _DATA_DEPENDENT_METHODS:
                qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
                if qualified in _DATA_DEPENDENT_FUNCTIONS:
                    if call.args and self.where(call.args[0]) not in _ON_HOST:
                        return f"`{_DATA_DEPENDENT_FUNCTIONS[qualified]}`", call.args[0]
                    return None
                if qualified is None and self.where(receiver) not in _ON_HOST:
                    if _looks_like_tensor(receiver, self):
                        return f"`.{method}()`", receiver
                return None
        if isinstance(func, ast.Name) and func.id in _BOOL_METHODS:
            if self.imported(func.id):
                return self._bool_sync(call)
            return None
        if isinstance(func, ast.Name) and func.id == "range":
            return self._range_bound(call)
        if isinstance(func, ast.Name) and func.id in _COMPARING_BUILTINS:
            return self._elementwise_builtin(call, func.id)
        if isinstance(func, ast.Name) and func.id in ("int", "float", "bool"):
            if (
                len(call.args) == 1
                and not call.keywords
                and self.scope.is_builtin(func.id)  # type: ignore[attr-defined]
            ):
                arg = call.args[0]
                if self.where(arg) == DEVICE or (
                    self.where(arg) == UNKNOWN and _tensor_result(arg, self)
                ):
                    return f"`{func.id}()` of a tensor", arg
        return None

    def _device_synchronize(self, func: ast.Attribute) -> bool:
        """Whether ``func`` is a device module's ``synchronize``, which waits
        for the device named by its argument as it does without one
        (``torch.cuda.synchronize(device)``); ``torch.cpu``'s waits for nothing."""
        qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
        if qualified is None or qualified == "torch.cpu.synchronize":
            return False
        module, _, last = qualified.rpartition(".")
        return last == "synchronize" and module.partition(".")[0] in (
            "torch",
            "torch_npu",
        )

    def _bool_sync(self, call: ast.Call) -> tuple[str, None] | None:
        """``torch.equal(a, b)``, ``torch.allclose``, ``torch.is_nonzero``
        (or as imported) with a tensor not on the host, or ``a.equal(b)`` of
        one known to be a tensor (``equal`` is a common method name: of
        ``self`` or a parameter not declared a tensor it may be any
        object's): a Python bool read off the device."""
        func = call.func
        qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
        if qualified in _BOOL_FUNCTIONS:
            if any(
                self.where(arg) not in _ON_HOST and _looks_like_tensor(arg, self)
                for arg in call.args[:2]
                if type(arg) is not ast.Starred
            ):
                return f"`{_BOOL_FUNCTIONS[qualified]}`", None
            return None
        if qualified is None and type(func) is ast.Attribute:
            if self._tensor_on_device(func.value):
                return f"`.{func.attr}()`", None
        return None

    def _repeat_interleave(self, call: ast.Call) -> tuple[str, ast.expr] | None:
        """``torch.repeat_interleave(x, repeats)``, ``x.repeat_interleave(
        repeats)`` and ``torch.repeat_interleave(repeats)`` with tensor
        repeats and no ``output_size=``: torch reads the output's size back."""
        if any(
            keyword.arg is None
            or (
                keyword.arg == "output_size"
                # (``output_size=None`` is none given: the size is read back)
                and not (
                    type(keyword.value) is ast.Constant and keyword.value.value is None
                )
            )
            for keyword in call.keywords
        ):
            return None
        if any(type(arg) is ast.Starred for arg in call.args):
            return None
        func = call.func
        qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
        if qualified == "torch.repeat_interleave":
            position = 1 if len(call.args) >= 2 else 0
        elif qualified is None and type(func) is ast.Attribute:
            position = 0
        else:
            return None
        repeats = next(
            (keyword.value for keyword in call.keywords if keyword.arg == "repeats"),
            call.args[position] if len(call.args) > position else None,
        )
        if repeats is None or not self._tensor_on_device(repeats):
            return None
        return (
            f"(`repeat_interleave()` with the tensor `{_short(repeats)}` as "
            "repeats and no `output_size=`: the output's size is read back)",
            repeats,
        )

    def _range_bound(self, call: ast.Call) -> tuple[str, ast.expr] | None:
        """The builtin ``range`` given a tensor (``range(n)`` where ``n =
        lens.max()``): it reads each argument with ``__index__``, as a slice
        bound is read, and ``__index__`` of a tensor copies its value to
        the host."""
        if call.keywords or not self.scope.is_builtin("range"):  # type: ignore[attr-defined]
            return None
        for arg in call.args:
            if type(arg) is not ast.Starred and self._tensor_on_device(arg):
                return f"(the tensor `{_short(arg)}` as a bound of `range()`)", arg
        return None

    def _elementwise_builtin(
        self, call: ast.Call, name: str
    ) -> tuple[str, ast.expr] | None:
        """The builtin ``max``, ``min`` or ``sorted`` given a tensor (its
        only argument, an iterable of 0-d tensors, or one of the values
        compared: ``min(m, n)``), or ``any``/``all`` given one: Python reads
        the truth of each comparison (``bool(b > a)``), or of each element,
        and a tensor's truth is read on the host. Not with a ``key=`` (what
        is compared is the key's; ``**`` may hold one) or a shadowed
        builtin. ``reverse=`` and ``default=`` change no comparison, and
        ``max(*t)`` compares the elements of ``t`` as ``max(t)`` does."""
        if any(keyword.arg in ("key", None) for keyword in call.keywords):
            return None
        if not self.scope.is_builtin(name):  # type: ignore[attr-defined]
            return None
        arguments = call.args if name in ("max", "min") else call.args[:1]
        for given in arguments:
            arg = given.value if type(given) is ast.Starred else given
            if self._tensor_on_device(arg):
                what = (
                    "reads its elements one by one"
                    if len(call.args) == 1
                    else "reads the truth of a comparison with it"
                )
                return f"(`{name}()` of the tensor `{_short(arg)}`: Python {what})", arg
        return None

    def _tensor_size(self, call: ast.Call, name: str) -> tuple[str, ast.expr] | None:
        """A factory given a tensor as a size (``torch.empty(indptr[-1])``,
        ``torch.arange(n)``, ``x.new_zeros(n)``): Python reads it."""
        func = call.func
        qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
        if qualified in _SIZED_FUNCTIONS:
            count, keywords = _SIZED_FUNCTIONS[qualified]
        elif (
            qualified is None and type(func) is ast.Attribute and name in _SIZED_METHODS
        ):
            count, keywords = _SIZED_METHODS[name]
        else:
            return None
        sizes = list(call.args if count is None else call.args[:count])
        sizes += [keyword.value for keyword in call.keywords if keyword.arg in keywords]
        for size in sizes:
            parts = size.elts if type(size) in (ast.Tuple, ast.List) else [size]  # type: ignore[attr-defined]
            for part in parts:
                if type(part) is not ast.Starred and self._tensor_on_device(part):
                    return (
                        f"(the tensor `{_short(part)}` as a size of `{name}()`)",
                        part,
                    )
        return None

    def _int_argument(self, call: ast.Call, name: str) -> tuple[str, ast.expr] | None:
        """An operation given a tensor where it takes a Python integer
        (``torch.topk(x, k=n)``, ``x.narrow(0, start, length)`` where ``n``,
        ``start`` or ``length`` is a tensor): Python reads it. The
        ``torch`` function, or the method of a value known to be a tensor
        (``self.topk(x, logits)`` may be a module's own ``topk``)."""
        func = call.func
        qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
        if qualified == f"torch.{name}":
            args = (
                call.args[1:]
                if call.args[:1] and type(call.args[0]) is not ast.Starred
                else []
            )
        elif (
            qualified is None
            and type(func) is ast.Attribute
            and self.is_tensor(func.value)
        ):
            args = call.args
        else:
            return None
        parameters = _INT_PARAMETERS[name]
        given: list[tuple[str, ast.expr]] = []
        for parameter, arg in zip(parameters, args, strict=False):
            if type(arg) is ast.Starred:
                break  # (what follows is at a position not known)
            given.append((parameter, arg))
        given += [
            (keyword.arg, keyword.value)
            for keyword in call.keywords
            if keyword.arg in parameters
        ]
        for parameter, arg in given:
            if self._tensor_on_device(arg):
                return (
                    f"(the tensor `{_short(arg)}` as `{parameter}` of `{name}()`)",
                    arg,
                )
        return None

    def _tensor_truth(self, test: ast.expr) -> bool:
        """Whether ``test`` is a tensor (not a Python value) as a truth value."""
        if isinstance(test, ast.BoolOp):
            return False  # its operands are judged on their own
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return False
        if isinstance(test, ast.Call):
            func = test.func
            # What no scope can make a truth function or method (the name
            # it ends in, or, called by a bare name, an import binding it):
            # decided without building the scope.
            if type(func) is ast.Attribute:
                if func.attr not in _TRUTH_NAMES and func.attr not in _REDUCTIONS:
                    return False
            elif type(func) is not ast.Name or not self.imported(func.id):
                return False
            qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
            if qualified in _TRUTH_FUNCTIONS or qualified in _REDUCTION_FUNCTIONS:
                return self.where(test) not in _ON_HOST
            if (
                type(func) is ast.Attribute
                and func.attr in _REDUCTIONS
                and func.attr not in _TRUTH_METHODS
                and qualified is None
            ):
                # (``if lens.sum():``: a reduction of a tensor known to be one;
                # ``sum``/``max`` are common method names)
                return self._tensor_on_device(func.value)
            if qualified in _BOOL_FUNCTIONS and type(func) is ast.Name:
                # ``torch.equal`` imported under another name (``from torch
                # import equal as same``), which ``_sync_call`` does not see
                # (it looks for the name): its truth, read here.
                return (
                    func.id not in _BOOL_METHODS and self._bool_sync(test) is not None
                )
            if (
                isinstance(func, ast.Attribute)
                and func.attr in _TRUTH_METHODS
                and qualified is None
            ):
                return self.where(func.value) not in _ON_HOST and _looks_like_tensor(
                    func.value, self
                )
            return False
        if isinstance(test, ast.Compare):
            if any(
                isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                for op in test.ops
            ):
                return False
            if self.where(test) in _ON_HOST:
                return False
            return any(
                _tensor_result(value, self)
                or self.where(value) == DEVICE
                or self.is_tensor(value)
                for value in [test.left, *test.comparators]
            )
        if isinstance(test, ast.Name):
            return self.where(test) == DEVICE or self._tensor_on_device(test)
        if isinstance(test, ast.Subscript):
            # (an element of a tensor: a 0-d tensor, ``if mask[i]:``)
            return self._tensor_on_device(test)
        return False

    def _boolean_mask(self, node: ast.Subscript) -> bool:
        """Whether the index of ``node`` is, or holds as an element of a
        tuple (``x[mask, :]``, ``x[:, lens > 0]``), a boolean mask of a
        tensor not known to live on the host: PyTorch finds its true
        elements with ``nonzero``."""
        index = node.slice
        if type(index) is ast.Tuple:
            return any(
                self._boolean_mask_index(node, part)
                for part in index.elts
                if type(part) is not ast.Slice
            )
        return self._boolean_mask_index(node, index)

    def _boolean_mask_index(self, node: ast.Subscript, index: ast.expr) -> bool:
        if not (
            isinstance(index, (ast.Compare, ast.Name))
            or (isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.Invert))
        ):
            return False  # (no mask: where the value lives is not asked)
        if self.where(node.value) in _ON_HOST:
            return False
        if isinstance(index, ast.Compare):
            if any(
                isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                for op in index.ops
            ):
                return False
            return self.where(index) not in _ON_HOST and _looks_like_tensor(
                index.left, self
            )
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.Invert):
            return self.where(index) not in _ON_HOST and _looks_like_tensor(
                index.operand, self
            )
        if isinstance(index, ast.Name):
            values = self.values_of(index.id)
            if not values or index.id in self.params:
                return False
            return all(
                (
                    (
                        isinstance(value, ast.Compare)
                        and not any(
                            isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                            for op in value.ops
                        )
                        and _looks_like_tensor(value.left, self)
                    )
                    or self._made_boolean(value)
                )
                and self.where(value) not in _ON_HOST
                for value in values
            )
        return False

    def _made_boolean(self, value: ast.expr) -> bool:
        """A tensor of booleans made by a ``torch`` function or a tensor's
        method told ``dtype=torch.bool`` (``torch.tensor(flags,
        dtype=torch.bool, device=d)``, ``x.to(dtype=torch.bool)``,
        ``x.new_ones(n, dtype=torch.bool)``) or by ``x.bool()``."""
        if not _made_boolean_shape(value):
            return False
        func = value.func  # type: ignore[attr-defined]
        qualified = self.scope.qualified_name(func)  # type: ignore[attr-defined]
        if qualified is not None:
            return qualified.startswith("torch.")
        return (
            isinstance(func, ast.Attribute)
            and func.attr in _BOOLEAN_METHODS
            and _looks_like_tensor(func.value, self)
        )

    def host_copy_hint(
        self, base: ast.expr | None, sync: ast.AST | None = None
    ) -> str | None:
        """The name of a host copy of ``base`` the function already reads
        (``seq_lens_cpu`` for ``seq_lens``, ``forward_batch.seq_lens``), not
        the local that ``sync`` itself makes (``seq_lens_cpu =
        seq_lens.cpu()``: ``_made_by``)."""
        root = base
        while isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute):
            root = root.func.value
        while isinstance(root, ast.Subscript):
            root = root.value
        name = (
            root.id
            if isinstance(root, ast.Name)
            else root.attr
            if isinstance(root, ast.Attribute)
            else None
        )
        if name is None or self.host_names is None:
            return None
        gate = self._gate
        for suffix in ("_cpu", "_host"):
            candidate = name + suffix
            if gate is not None and gate.enabled:
                if candidate not in gate.span([self._function]):  # type: ignore[list-item]
                    continue  # (a necessary condition: saves the walk)
            if candidate in self.names_used and self.is_host_name(candidate):
                if sync is not None and self._made_by(candidate, sync):
                    continue
                return candidate
        return None

    def _made_by(self, name: str, sync: ast.AST) -> bool:
        """Whether the local ``name`` holds only what ``sync`` makes: every
        binding of it in the function is a value that holds ``sync``
        (``seq_lens_cpu = seq_lens.cpu()``, ``... if c else None``) or one
        that brings no copy of its own (``seq_lens_cpu = None`` before it,
        ``seq_lens_cpu = seq_lens_cpu[:n]`` after: ``_no_copy_of_its_own``),
        at least one of them holding ``sync``, and it
        is no parameter, no ``global`` or ``nonlocal``, no name a nested
        function rebinds; and every attribute of that name the function
        names is the target of such an assignment (``out.lens_cpu =
        out.lens.cpu()``; ``batch.seq_lens_cpu`` read may come with the
        batch). Such a name is no host copy the function had before the
        sync."""
        if name in self.params or name in self._not_guarded:
            return False
        found = self.bindings.get(name, ())
        if found and name in self._closure_names:
            return False
        made_here = False
        for value, _, _ in found:
            if isinstance(value, _Part):
                value = value.whole
            if not isinstance(value, ast.expr):
                return False
            if _holds(value, sync):
                made_here = True
            elif not _no_copy_of_its_own(value, name):
                return False
        if found and not made_here:
            return False
        made: set[int] = set()
        named = False
        for node in ast.walk(self._function):
            kind = type(node)
            if kind is ast.Assign and _holds(node.value, sync):  # type: ignore[attr-defined]
                made.update(map(id, node.targets))  # type: ignore[attr-defined]
            elif kind is ast.Attribute and node.attr == name:  # type: ignore[attr-defined]
                if id(node) not in made:
                    return False
                named = True
        return bool(found) or named


def _no_copy_of_its_own(value: ast.expr, name: str) -> bool:
    """Whether binding ``name`` to ``value`` brings no host copy of its
    own: ``None`` (a placeholder, ``x_cpu = None`` before ``x_cpu =
    x.cpu()``) or a value made from ``name`` itself (``x_cpu =
    x_cpu[:n]``, ``x_cpu = x_cpu.long()``: what the name held before)."""
    if type(value) is ast.Constant:
        return value.value is None
    while True:
        kind = type(value)
        if kind is ast.Subscript:
            value = value.value  # type: ignore[attr-defined]
        elif kind is ast.Call and type(value.func) is ast.Attribute:  # type: ignore[attr-defined]
            value = value.func.value  # type: ignore[attr-defined]
        else:
            break
    return type(value) is ast.Name and value.id == name  # type: ignore[attr-defined]


def _holds(outer: ast.expr, inner: ast.AST) -> bool:
    """Whether ``inner`` lies within ``outer`` in the source (by position)."""
    start = getattr(inner, "lineno", None)
    if start is None or outer.end_lineno is None:
        return False
    return (outer.lineno, outer.col_offset) <= (
        start,
        inner.col_offset,  # type: ignore[attr-defined]
    ) and (inner.end_lineno, inner.end_col_offset) <= (  # type: ignore[attr-defined]
        outer.end_lineno,
        outer.end_col_offset,
    )


def _new_provenance(
    ctx: Context,
    function: ast.AST,
    host_names: GlobMatcher | None,
    parameter: Callable[[ast.AST, str], str] | None,
    attributes: _Attributes | None,
    shared: dict[ast.AST, tuple] | None = None,
) -> _Provenance:
    """Where the values of ``function`` live, for a question asked from
    another function (a caller's arguments, an attribute's assignments)."""
    model = ctx.model
    gate = _TextGate(ctx, function)
    return _Provenance(
        function,
        partial(model.scope, function),
        host_names,
        gate,
        model.imported_names if gate.enabled else None,
        parameter,
        attributes,
        shared,
        partial(_namespace_reached, model),
    )


def _namespace_reached(model) -> bool:
    """Whether the module's code may rebind one of its globals with no
    statement that binds it (``summaries.REBINDERS``), found once."""
    from lint_rules.analysis.summaries import module_summaries

    return module_summaries(model).reaches_namespace()


class _Part:
    """One element of a value unpacked into several targets, or an item of
    a loop over it: on the host when the whole is."""

    __slots__ = ("whole",)

    def __init__(self, whole: ast.expr) -> None:
        self.whole = whole


class _PairPart(_Part):
    """One element of an item of ``zip(a, b, ...)`` or ``enumerate(a)``
    unpacked into as many targets (``for m, e in zip(masks, experts)``):
    where the builtin is Python's, the element is an item of the iterable
    it comes from (``source``; None for ``enumerate``'s count, a Python
    number), as a loop over that iterable alone would bind; else one
    element of an item of ``whole``, as any unpacking."""

    __slots__ = ("builtin", "source")

    def __init__(self, whole: _Part, builtin: str, source: ast.expr | None) -> None:
        super().__init__(whole)  # type: ignore[arg-type]
        self.builtin = builtin
        self.source = source


def _pair_sources(value: object, count: int) -> tuple[str, list] | None:
    """(the builtin's name, the iterable each of ``count`` targets takes an
    item of) where ``value`` is what a loop over ``zip(...)`` or
    ``enumerate(...)`` binds and the targets match its items (no starred
    argument; ``enumerate``'s count: None); else None."""
    if type(value) is not _Part:
        return None
    call = value.whole
    if type(call) is not ast.Call or type(call.func) is not ast.Name:
        return None
    args = call.args
    if not args or any(type(arg) is ast.Starred for arg in args):
        return None
    name = call.func.id
    if name == "zip":
        if len(args) != count or any(k.arg != "strict" for k in call.keywords):
            return None
        return name, list(args)
    if name == "enumerate":
        if len(args) != 1 or count != 2 or any(k.arg != "start" for k in call.keywords):
            return None
        return name, [None, args[0]]
    return None


class _Parameter:
    """The value a parameter receives, among the bindings of its name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class _Callers:
    """Where the parameters of the module's private functions live, by what
    every call of the module passes them (``summaries.CALLERS`` says which
    functions' calls are all known), and of its public functions that run
    per step only through the module's calls (``_via_the_module``): a parameter is on the host when every
    call passes it a host value (``kv_lens_cpu``, a ``.cpu()`` result, a
    Python number, a default of ``None``), on the device when one may pass
    a device value; a call whose argument is not known (``*args``, a call
    from a lambda or the module's code) makes it unknown, and so does a
    function the module never calls.

    A caller's argument is judged by the caller's own bindings, and its
    parameters by its own callers in turn, as deep as ``MAX_DEPTH``; a cycle
    of calls is unknown. Each question from a rule starts afresh (its answer
    kept), so that an answer never depends on the order of the questions."""

    MAX_DEPTH = 4

    def __init__(self, ctx: Context, host_names: GlobMatcher | None) -> None:
        self._ctx = ctx
        self._host_names = host_names
        self._answers: dict[tuple[ast.AST, str], str] = {}
        #: The question under way: the parameters asked, outermost first,
        #: and the callers' provenances made for it.
        self._asking: list[tuple[ast.AST, str]] | None = None
        self._provenances: dict[ast.AST, _Provenance] = {}
        #: ``_Provenance.bindings`` per function, for every provenance of
        #: the check (the attributes' too).
        self.shared_bindings: dict[ast.AST, tuple] = {}
        self.attributes = _Attributes(ctx, host_names)
        self.attributes.callers = self

    @property
    def asking(self) -> bool:
        """Whether a question is under way."""
        return self._asking is not None

    def close(self) -> None:
        """Drop what refers back to this lookup (it and ``attributes`` refer
        to each other), so reference counting alone frees both."""
        self._provenances = {}
        self.attributes.close()

    def parameter(self, function: ast.AST, name: str) -> str:
        key = (function, name)
        found = self._answers.get(key)
        if found is not None:
            return found
        if self._asking is not None:
            return self._place(function, name)
        self._asking = []
        try:
            found = self._place(function, name)
        finally:
            self._asking = None
            self._provenances = {}
        if not self.attributes.asking:
            # (an answer given inside an attribute's question may have met
            # its cycle: not kept)
            self._answers[key] = found
        return found

    def _place(self, function: ast.AST, name: str) -> str:
        from lint_rules.analysis.summaries import module_summaries

        asking = self._asking
        key = (function, name)
        if key in asking or len(asking) >= self.MAX_DEPTH:  # type: ignore[arg-type, operator]
            return UNKNOWN
        summaries = module_summaries(self._ctx.model)
        sites = summaries.call_sites(function)  # type: ignore[arg-type]
        if sites is None and self._via_the_module(function):
            sites = summaries.module_call_sites(function)  # type: ignore[arg-type]
        if not sites:
            return UNKNOWN
        defaults = {id(d) for d in function.args.defaults} | {  # type: ignore[attr-defined]
            id(d)
            for d in function.args.kw_defaults  # type: ignore[attr-defined]
            if d is not None
        }
        asking.append(key)  # type: ignore[union-attr]
        try:
            places = []
            for site in sites:
                value = site.arguments.get(name)
                if value is None:
                    return UNKNOWN
                if id(value) in defaults or site.caller is None:
                    place = _constant_place(value)
                else:
                    place = self._provenance(site.caller).where(value)
                if place == UNKNOWN:
                    return UNKNOWN
                places.append(place)
        finally:
            asking.pop()  # type: ignore[union-attr]
        joined = _join(*places)
        if joined != UNKNOWN and summaries.spelled_in_a_string(function.name):  # type: ignore[attr-defined]
            return UNKNOWN  # a call by a string may pass anything
        return joined

    def _via_the_module(self, function: ast.AST) -> bool:
        """Whether ``function`` (a public one) runs per step only through
        the module's own calls: its chain from an entry point passes through
        a caller. On that chain its parameters hold what those calls pass,
        whatever code elsewhere may pass it."""
        cost = self._ctx.hot_paths.per_step(function)  # type: ignore[arg-type]
        return cost is not None and len(cost.chain) > 1

    def _provenance(self, function: ast.AST) -> _Provenance:
        found = self._provenances.get(function)
        if found is None:
            found = self._provenances[function] = _new_provenance(
                self._ctx,
                function,
                self._host_names,
                self.parameter,
                self.attributes,
                self.shared_bindings,
            )
        return found


#: Names through which a class may set its attributes without ``self.X =``
#: (``setattr(self, name, v)``, ``self.__dict__[name] = v``, ``vars(self)``):
#: a class that spells one has no attribute known.
_INDIRECT_WRITERS = ("setattr", "__setattr__", "__dict__", "vars")

#: An ``nn.Module``'s registering methods (``self.register_buffer("pos",
#: t)``): read as a store of ``t`` to ``self.pos`` where every spelling of
#: the family is such a call of a method's receiver with a literal name
#: (``_registrations``); a class that spells one otherwise has no attribute
#: known. The keyword that names the value.
_REGISTERING = {"register_buffer": "tensor", "register_parameter": "param"}

#: ``nn.Parameter`` (a tensor a module's ``to()`` moves).
_PARAMETER_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})


class _ClassAttribute:
    """What the classes of one family (a class, its bases and its
    subclasses in the module) assign to ``self.<name>``: each assigned value
    with the method that assigns it, the annotations it is declared with,
    and whether ``None`` is assigned; ``known`` is False where some
    assignment is not of that form (a tuple target, a closure's store, a
    class-body default that is not ``None``, a method or property of that
    name; ``del`` binds nothing)."""

    __slots__ = (
        "known",
        "values",
        "declared",
        "none",
        "family",
        "confirmed",
        "moved",
    )

    def __init__(self) -> None:
        self.known = True
        self.values: list[tuple[ast.AST, ast.expr]] = []
        #: The values that are a module's buffers or parameters, stored in
        #: a constructor: tensors on the device.
        self.moved: set[ast.expr] = set()
        self.declared: list[ast.expr] = []
        self.none = False
        self.family: list[ast.ClassDef] | None = None
        #: Whether no class of the family stores it otherwise than by an
        #: assignment statement (None: not asked yet).
        self.confirmed: bool | None = None


class _Attributes:
    """The kind and place of ``self.<name>`` in a method of a class, from
    the assignments of the class's own methods (and of its bases and
    subclasses in the module): a tensor when every value assigned is one
    (``None`` too, for a value that is indexed), or when the class body or
    an assignment declares it ``torch.Tensor``; on the device when the
    values joined are (as a local bound to them would be). Each value is
    judged in the method that assigns it.

    Not known: an attribute the class (family) never assigns, one assigned
    otherwise than by ``self.<name> = ...`` / ``self.<name>: T = ...`` in a
    method (a tuple target, a nested function's store), a class
    that spells ``setattr``, ``__dict__``, ``vars``, or ``register_buffer``
    otherwise than as a call of the receiver with a literal name. A buffer
    or parameter a constructor makes is on the device (the module's
    ``to()`` moves it), whatever its factory names.
    What the code the module does not show assigns is not seen: a base
    class of another module (the class's own assignments still decide: its
    methods are written against them), a subclass of another module, a
    store through another name (``backend.kv_indptr = ...``). Only what
    reports a sync is drawn from this (a tensor on the device), never that
    a value lives on the host."""

    def __init__(self, ctx: Context, host_names: GlobMatcher | None) -> None:
        self._ctx = ctx
        self._host_names = host_names
        self._infos: dict[ast.AST, object] | None = None
        self._families: dict[ast.ClassDef, list[ast.ClassDef] | None] = {}
        self._facts: dict[tuple[ast.ClassDef, str], _ClassAttribute] = {}
        self._class_stores: dict[ast.ClassDef, tuple] = {}
        self._binders: dict[ast.ClassDef, dict[str, list[ast.stmt]]] = {}
        self._registered: dict[
            ast.ClassDef, dict[str, list[tuple[ast.AST, ast.expr]]] | None
        ] = {}
        self._by_class: dict[ast.ClassDef, list] | None = None
        self._provenances: dict[ast.AST, _Provenance] = {}
        #: Answers kept (outermost questions only), and the questions under
        #: way (a cycle: not known).
        self._answers: dict[tuple, object] = {}
        self.asking: list[tuple] = []
        self._cycle = False
        #: Where the parameters of the module's functions live (set by it).
        self.callers: _Callers | None = None

    def close(self) -> None:
        """Drop what refers back to this lookup (see ``_Callers.close``)."""
        self._provenances = {}
        self.callers = None

    def method_class(self, function: ast.AST) -> ast.ClassDef | None:
        """The class ``function`` is a method of (its own statement)."""
        infos = self._infos
        if infos is None:
            infos = self._infos = {
                info.node: info.cls for info in self._ctx.model.functions
            }
        return infos.get(function)  # type: ignore[return-value]

    def receiver(self, function: ast.AST) -> str | None:
        if self.method_class(function) is None:
            return None
        return _instance_parameter(function)

    # ------------------------------------------------------------- questions

    def tensor(self, function: ast.AST, name: str, maybe_none: bool) -> bool:
        """Whether ``self.<name>`` in method ``function`` is a tensor."""
        return bool(self._ask(("tensor", function, name, maybe_none)))

    def place(self, function: ast.AST, name: str) -> str:
        """DEVICE where ``self.<name>`` lives on the device, else UNKNOWN."""
        return self._ask(("place", function, name))  # type: ignore[return-value]

    def _ask(self, key: tuple) -> object:
        found = self._answers.get(key)
        if found is not None:
            return found
        if key in self.asking:
            self._cycle = True
            return False if key[0] == "tensor" else UNKNOWN
        outermost = not self.asking
        if outermost:
            self._cycle = False
        self.asking.append(key)
        try:
            found = self._answer(key)
        finally:
            self.asking.pop()
        if outermost:
            callers = self.callers
            if self._cycle or (callers is not None and callers.asking):
                # What the provenances of the values learnt may depend on
                # where the question started (a cycle cut, a parameter's
                # question under way): neither they nor the answer are kept.
                self._provenances = {}
            else:
                self._answers[key] = found
        return found

    def _answer(self, key: tuple) -> object:
        function, name = key[1], key[2]
        cls = self.method_class(function)
        facts = self._class_facts(cls, name) if cls is not None else None
        if facts is None or not facts.known:
            return False if key[0] == "tensor" else UNKNOWN
        # Where each value lives: one on the host makes the attribute not
        # known (a host tensor: reading it is no sync).
        moved = facts.moved
        places = [
            DEVICE if value in moved else self._provenance(method).where(value)
            for method, value in facts.values
        ]
        if any(place in _ON_HOST for place in places):
            return False if key[0] == "tensor" else UNKNOWN
        if key[0] == "place":
            # On the device: every value is (a tensor not known to be
            # elsewhere is a tensor on the device only as far as ``tensor``).
            if places and all(p == DEVICE for p in places):
                return DEVICE if self._confirm(facts, name) else UNKNOWN
            return UNKNOWN
        maybe_none = key[3]
        if any(_tensor_annotation(a, maybe_none) for a in facts.declared):
            return self._confirm(facts, name)
        if not facts.values or (facts.none and not maybe_none):
            return False
        return all(
            (value in moved and (maybe_none or self._is_parameter(value, method)))
            or self._provenance(method).is_tensor(value, maybe_none)
            for method, value in facts.values
        ) and self._confirm(facts, name)

    def _confirm(self, facts: _ClassAttribute, name: str) -> bool:
        """Whether no class of the family stores ``name`` otherwise than by
        an assignment statement (``with ... as``, a comprehension's target:
        ``_stored_otherwise``), asked only of an attribute the rest
        makes a tensor: the rows of the family spelling ``.name`` are
        walked once."""
        if facts.confirmed is None:
            from lint_rules.analysis.summaries import module_summaries

            summaries = module_summaries(self._ctx.model)
            facts.confirmed = not any(
                _stored_otherwise(summaries, member, name)
                for member in facts.family or ()
            )
        return facts.confirmed

    def _provenance(self, function: ast.AST) -> _Provenance:
        found = self._provenances.get(function)
        if found is None:
            found = self._provenances[function] = _new_provenance(
                self._ctx,
                function,
                self._host_names,
                None if self.callers is None else self.callers.parameter,
                self,
                None if self.callers is None else self.callers.shared_bindings,
            )
        return found

    # ----------------------------------------------------------------- facts

    def _family(self, cls: ast.ClassDef) -> list[ast.ClassDef] | None:
        """``cls``, its bases and its subclasses of the module (by a name
        one class of the module has), each one's bases and subclasses in
        turn; None: a class spells an indirect writer (``setattr``...)."""
        if cls in self._families:
            return self._families[cls]
        model = self._ctx.model
        classes = list(model.classes)
        classes += [
            stmt
            for stmt in model.tree.body
            if type(stmt) is ast.ClassDef and stmt not in classes
        ]
        by_name: dict[str, list[ast.ClassDef]] = {}
        for other in classes:
            by_name.setdefault(other.name, []).append(other)
        family = [cls]
        index = 0
        while index < len(family):
            member = family[index]
            index += 1
            related = [
                found[0]
                for base in member.bases
                if isinstance(base, ast.Name)
                and len(found := by_name.get(base.id, ())) == 1
            ]
            related += [
                other
                for other in classes
                if any(
                    isinstance(base, ast.Name) and base.id == member.name
                    for base in other.bases
                )
                and len(by_name[member.name]) == 1
            ]
            for other in related:
                if other not in family:
                    family.append(other)
        from lint_rules.analysis.summaries import module_summaries

        summaries = module_summaries(model)
        result: list[ast.ClassDef] | None = family
        for member in family:
            if any(
                _spells(summaries, member, word, False) for word in _INDIRECT_WRITERS
            ) or (self._registrations(summaries, member) is None):
                result = None
                break
        for member in family:
            self._families[member] = result
        return result

    def _class_facts(self, cls: ast.ClassDef, name: str) -> _ClassAttribute:
        key = (cls, name)
        found = self._facts.get(key)
        if found is not None:
            return found
        facts = _ClassAttribute()
        family = self._family(cls)
        if family is None:
            facts.known = False
        else:
            # A buffer or parameter registered in a constructor: the other
            # stores of a constructor keep it one (``Module.__setattr__``).
            registered = any(
                _constructor(method)
                for member in family
                for method, _ in self._registered[member].get(name, ())
            )
            for member in family:
                stores = self._stores(member)
                if name in stores[1] or not _class_body_facts(
                    self._body_binders(member).get(name, ()), facts
                ):
                    facts.known = False
                    break
                for method, value, annotation in stores[0].get(name, ()):
                    if annotation is not None:
                        facts.declared.append(annotation)
                    if value is None:
                        continue
                    if _is_none(value):
                        facts.none = True
                        continue
                    facts.values.append((method, value))
                    if _constructor(method) and (
                        registered or self._is_parameter(value, method)
                    ):
                        facts.moved.add(value)
                for method, value in self._registered[member].get(name, ()):
                    if _is_none(value):
                        facts.none = True
                        continue
                    facts.values.append((method, value))
                    if _constructor(method):
                        facts.moved.add(value)
        facts.family = family
        for member in family or (cls,):
            self._facts[(member, name)] = facts
        return facts

    def _is_parameter(self, value: ast.expr, method: ast.AST) -> bool:
        """Whether ``value`` makes an ``nn.Parameter``."""
        return type(value) is ast.Call and (
            self._ctx.model.scope(method).qualified_name(value.func)  # type: ignore[attr-defined]
            in _PARAMETER_CLASSES
        )

    def _registrations(
        self, summaries: object, cls: ast.ClassDef
    ) -> dict[str, list[tuple[ast.AST, ast.expr]]] | None:
        """name -> [(method, value)] of each ``self.register_buffer(name,
        value)`` or ``self.register_parameter(name, value)`` of the class
        (found once per class); None where the class spells one otherwise
        (a name computed when it runs, another object's, a nested
        function's, the method not called)."""
        if cls in self._registered:
            return self._registered[cls]
        found: dict[str, list[tuple[ast.AST, ast.expr]]] | None = {}
        for word, keyword in _REGISTERING.items():
            rows = summaries.spelled_rows(cls, word, False)  # type: ignore[attr-defined]
            if rows == []:
                continue
            parents: dict[ast.AST, ast.AST] = {}
            for node in walk_rows(cls, rows, parents):
                if type(node) is ast.Name and node.id == word:  # type: ignore[attr-defined]
                    found = None
                elif type(node) is ast.Attribute and node.attr == word:  # type: ignore[attr-defined]
                    registration = _registration(node, parents, cls, keyword)  # type: ignore[arg-type]
                    if registration is None:
                        found = None
                    elif found is not None:
                        method, name, value = registration
                        found.setdefault(name, []).append((method, value))
        self._registered[cls] = found
        return found

    def _body_binders(self, cls: ast.ClassDef) -> dict[str, list[ast.stmt]]:
        """name -> the statements of the class body that bind it, in order
        (found once per class)."""
        found = self._binders.get(cls)
        if found is None:
            from lint_rules.analysis.summaries import _names_bound_by

            found = self._binders[cls] = {}
            for stmt in cls.body:
                for name in dict.fromkeys(_names_bound_by(stmt)):
                    found.setdefault(name, []).append(stmt)
        return found

    def _stores(
        self, cls: ast.ClassDef
    ) -> tuple[
        dict[str, list[tuple[ast.AST, ast.expr | None, ast.expr | None]]], set[str]
    ]:
        """One pass over the class's methods: name -> [(method, value,
        annotation)] of each ``self.<name> = value`` (``self.<name>:
        annotation = value``, ``self.<name> += value`` as no value) of a
        method's own code, and the names ``self.<name>`` of which is
        stored otherwise (a tuple or loop target, ``del``, ``with ... as``,
        a comprehension's, a nested function's store). The binding
        statements are the model's (``_stored_otherwise`` finds the others:
        ``del``, ``with ... as``, a comprehension's target)."""
        found = self._class_stores.get(cls)
        if found is not None:
            return found
        stores: dict[str, list[tuple[ast.AST, ast.expr | None, ast.expr | None]]] = {}
        other: set[str] = set()
        found = self._class_stores[cls] = (stores, other)
        by_class = self._by_class
        if by_class is None:
            by_class = self._by_class = {}
            for info in self._ctx.model.functions:
                method = info
                while method.parent is not None and method.cls is None:
                    method = method.parent
                if method.cls is not None:
                    by_class.setdefault(method.cls, []).append((info, method))
        for info, method in by_class.get(cls, ()):
            receiver = _instance_parameter(method.node)
            if receiver is None:
                continue
            nested = method is not info
            for statement, _ in info.bindings:
                kind = type(statement)
                if kind is ast.Assign:
                    targets = statement.targets  # type: ignore[attr-defined]
                elif kind is ast.For or kind is ast.AsyncFor:
                    targets = [statement.target]  # type: ignore[attr-defined]
                else:
                    targets = [statement.target]  # type: ignore[attr-defined]
                for target in targets:
                    if type(target) is ast.Attribute:
                        if (
                            type(target.value) is not ast.Name
                            or target.value.id != receiver
                        ):
                            continue  # another object's attribute
                        if nested or kind is ast.For or kind is ast.AsyncFor:
                            other.add(target.attr)
                        elif kind is ast.AugAssign:
                            # (the value's kind and place stay: ``t += 1``)
                            stores.setdefault(target.attr, [])
                        else:
                            stores.setdefault(target.attr, []).append(
                                (
                                    method.node,
                                    statement.value,  # type: ignore[attr-defined]
                                    getattr(statement, "annotation", None),
                                )
                            )
                    elif type(target) is not ast.Name:
                        for node in walk(target):
                            if (
                                type(node) is ast.Attribute
                                and type(
                                    node.ctx  # type: ignore[attr-defined]
                                )
                                is not ast.Load
                            ):
                                other.add(node.attr)  # type: ignore[attr-defined]
        return found


def _constructor(method: ast.AST) -> bool:
    """Whether ``method`` is a constructor (``__init__``): what it makes a
    module's buffer or parameter is moved with the module (``to()``,
    ``cuda()``) or made under the device it runs on (``with
    torch.device(d):``)."""
    return method.name == "__init__"  # type: ignore[attr-defined]


def _registration(
    node: ast.Attribute,
    parents: dict[ast.AST, ast.AST],
    cls: ast.ClassDef,
    keyword: str,
) -> tuple[ast.AST, str, ast.expr] | None:
    """(method, name, value) of ``self.register_buffer("name", value)``
    spelled by ``node`` (the method's receiver's, in a method of ``cls``
    itself, a literal name and a value given); else None."""
    call = parents.get(node)
    if type(call) is not ast.Call or call.func is not node:  # type: ignore[attr-defined]
        return None
    args = call.args  # type: ignore[attr-defined]
    keywords = {k.arg: k.value for k in call.keywords}  # type: ignore[attr-defined]
    if any(type(arg) is ast.Starred for arg in args) or None in keywords:
        return None
    name = args[0] if args else keywords.get("name")
    value = args[1] if len(args) > 1 else keywords.get(keyword)
    if (
        value is None
        or type(name) is not ast.Constant
        or not isinstance(name.value, str)  # type: ignore[attr-defined]
    ):
        return None
    method = parents.get(call)
    while method is not None and type(method) not in _SCOPE_TYPES:
        method = parents.get(method)
    if (
        type(method) not in (ast.FunctionDef, ast.AsyncFunctionDef)
        or parents.get(method) is not cls  # type: ignore[arg-type]
        or type(node.value) is not ast.Name
        or node.value.id != _instance_parameter(method)  # type: ignore[arg-type]
    ):
        return None
    return method, name.value, value  # type: ignore[return-value,attr-defined]


#: The statements whose attribute targets ``_Attributes._stores`` reads from
#: the model's binding statements.
_PLAIN_STORES = frozenset({ast.Assign, ast.AnnAssign, ast.AugAssign})


def _stored_otherwise(summaries: object, cls: ast.ClassDef, name: str) -> bool:
    """Whether the class stores an attribute ``name`` of anything otherwise
    than as the target of an assignment statement (the model's binding
    statements hold those): ``with ... as x.name``, a comprehension's
    target. ``del x.name`` stores nothing: a read after it raises, or reads
    what a later store or the class body binds (as a read before the first
    store would), and those are judged. Only the rows where ``name`` may
    follow a dot are walked (every row without a text or the pre-filters)."""
    parents: dict[ast.AST, ast.AST] = {}
    rows = summaries.spelled_rows(cls, name, True)  # type: ignore[attr-defined]
    return any(
        type(node) is ast.Attribute
        and node.attr == name  # type: ignore[attr-defined]
        and type(node.ctx) is ast.Store  # type: ignore[attr-defined]
        and type(parents.get(node)) not in _PLAIN_STORES
        for node in walk_rows(cls, rows, parents)
    )


def _class_body_facts(statements: list[ast.stmt], facts: _ClassAttribute) -> bool:
    """Add what the statements of a class body that bind a name
    (``_Attributes._body_binders``) bind it to (``name: T``, ``name: T =
    None``, ``name = None``); False where one binds it otherwise (a default
    that is not None, a method, a property)."""
    for stmt in statements:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            facts.declared.append(stmt.annotation)
            if stmt.value is None:
                continue
            if _is_none(stmt.value):
                facts.none = True
                continue
        elif (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and _is_none(stmt.value)
        ):
            facts.none = True
            continue
        return False
    return True


def _instance_parameter(method: ast.AST) -> str | None:
    """The instance parameter of a method (not of a static or class method)."""
    for decorator in method.decorator_list:  # type: ignore[attr-defined]
        if isinstance(decorator, ast.Name) and decorator.id in (
            "staticmethod",
            "classmethod",
        ):
            return None
    args = method.args  # type: ignore[attr-defined]
    params = (*args.posonlyargs, *args.args)
    return params[0].arg if params else None


def _spells(summaries: object, cls: ast.ClassDef, word: str, after_dot: bool) -> bool:
    """Whether the class has a name or an attribute named ``word``."""
    rows = summaries.spelled_rows(cls, word, after_dot)  # type: ignore[attr-defined]
    if rows == []:
        return False
    return any(
        (type(node) is ast.Name and node.id == word)  # type: ignore[attr-defined]
        or (type(node) is ast.Attribute and node.attr == word)  # type: ignore[attr-defined]
        for node in walk_rows(cls, rows, {})
    )


def _device_guards(test: ast.expr) -> list[tuple[str, str | None, str | None]]:
    """The ``_device_guard`` of a test and, of an ``and``/``or``, of each
    operand (``if x.is_cpu and y.is_cpu:`` tells of both): as an operand of
    ``and`` a guard tells the body only (``if isinstance(x, torch.Tensor)
    and x.device.type == "cpu":``), of ``or`` the ``else`` only; ``not``
    swaps the arms of each."""
    kind = type(test)
    if kind is ast.BoolOp:
        conjunction = type(test.op) is ast.And  # type: ignore[attr-defined]
        found = []
        for value in test.values:  # type: ignore[attr-defined]
            for name, body, orelse in _device_guards(value):
                told = body if conjunction else orelse
                if told is not None:
                    found.append(
                        (name, told, None) if conjunction else (name, None, told)
                    )
        return found
    if kind is ast.UnaryOp and type(test.op) is ast.Not:  # type: ignore[attr-defined]
        return [
            (name, orelse, body)
            for name, body, orelse in _device_guards(test.operand)  # type: ignore[attr-defined]
        ]
    guard = _device_guard(test)
    return [] if guard is None else [guard]


def _device_guard(test: ast.expr) -> tuple[str, str | None, str | None] | None:
    """(name, place in the body, place in the ``else``) for a test that says
    where a plain name lives: ``x.is_cuda``, ``x.is_cpu``,
    ``x.device.type == "cpu"`` (or ``"cuda"``, ``!=``, either side),
    ``isinstance(x, torch.Tensor)`` (not a tensor in the ``else``: a host
    value; None: the arm is not told); ``not``, ``and`` and ``or`` of them:
    ``_device_guards``."""
    kind = type(test)
    if kind is ast.Call:
        func, args = test.func, test.args  # type: ignore[attr-defined]
        if (
            type(func) is ast.Name
            and func.id == "isinstance"
            and len(args) == 2
            and not test.keywords  # type: ignore[attr-defined]
            and type(args[0]) is ast.Name
            and _tensor_annotation(args[1], False)
        ):
            return args[0].id, None, HOST
        return None
    if kind is ast.Attribute:
        value = test.value  # type: ignore[attr-defined]
        if type(value) is ast.Name:
            if test.attr == "is_cuda":  # type: ignore[attr-defined]
                return value.id, DEVICE, HOST
            if test.attr == "is_cpu":  # type: ignore[attr-defined]
                return value.id, HOST, DEVICE
        return None
    if kind is not ast.Compare or len(test.ops) != 1:  # type: ignore[attr-defined]
        return None
    op = type(test.ops[0])  # type: ignore[attr-defined]
    if op is not ast.Eq and op is not ast.NotEq:
        return None
    left, right = test.left, test.comparators[0]  # type: ignore[attr-defined]
    if type(left) is ast.Constant:
        left, right = right, left
    if not (
        type(right) is ast.Constant
        and right.value in ("cpu", "cuda")
        and type(left) is ast.Attribute
        and left.attr == "type"
        and type(left.value) is ast.Attribute
        and left.value.attr == "device"
        and type(left.value.value) is ast.Name
    ):
        return None
    places = (HOST, DEVICE) if right.value == "cpu" else (DEVICE, HOST)
    if op is ast.NotEq:
        places = places[::-1]
    return left.value.value.id, *places


#: Statements after which the rest of a block does not run.
_EXITS = frozenset({ast.Raise, ast.Return, ast.Continue, ast.Break})


def _leaves(block: list[ast.stmt]) -> bool:
    """Whether a block always leaves the function or the loop: it ends in
    ``raise``, ``return``, ``continue`` or ``break``, or in an ``if`` both
    arms of which do."""
    if not block:
        return False
    last = block[-1]
    if type(last) in _EXITS:
        return True
    if type(last) is ast.If:
        return _leaves(last.body) and _leaves(last.orelse)
    return False


def _constant_place(value: ast.expr) -> str:
    """Where a value the module's code gives (a default, an argument of a
    call outside functions) lives, by its form alone."""
    if isinstance(value, (ast.Constant, ast.JoinedStr)):
        return PYTHON
    return UNKNOWN


def _loop_item(iterable: ast.expr) -> ast.expr:
    """What a loop over ``iterable`` binds, for where it lives: the items of
    a host value are on the host (``range``, a list, ``.tolist()``)."""
    return _Part(iterable)


#: Builtins whose items are those of their first argument, or a Python
#: value (``range``), or pairs (``enumerate``, ``zip``: ``_pair_parts``).
_ITEM_BUILTINS = frozenset(
    {"range", "list", "tuple", "sorted", "reversed", "set", "frozenset", "iter"}
    | {"enumerate", "zip"}
)
#: Methods that add to a container what the rule does not read
#: (``_Provenance._added``).
_GROWING_METHODS = frozenset({"extend", "add", "update", "setdefault", "__setitem__"})
#: ``_device_items``: some part may be a device value.
_MAYBE_DEVICE = "maybe device"


def _device_parts(parts: list[str | None]) -> str | None:
    """DEVICE where every part is on the device, ``_MAYBE_DEVICE`` where
    some may be, else None."""
    if parts and all(part == DEVICE for part in parts):
        return DEVICE
    if DEVICE in parts or _MAYBE_DEVICE in parts:
        return _MAYBE_DEVICE
    return None


def _join(*places: str) -> str:
    if not places:
        return UNKNOWN
    if all(place == PYTHON for place in places):
        return PYTHON
    if all(place in _ON_HOST for place in places):
        return HOST
    if DEVICE in places:
        return DEVICE
    return UNKNOWN


def _operands(*places: str) -> str:
    """Where the result of an operation on values in ``places`` is: a host
    tensor combined with values not known to be on the device stays on the
    host (a device operand of more than one element would be an error)."""
    if DEVICE in places:
        return DEVICE
    if HOST in places:
        return HOST
    if all(place == PYTHON for place in places):
        return PYTHON
    return UNKNOWN


#: The factories of a tensor from the data they are given.
_DATA_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor", "torch.scalar_tensor"})


def _scalar_tensor(expr: ast.expr, where: _Provenance) -> bool:
    """Whether ``expr`` is a 0-d host tensor: a ``torch.tensor``,
    ``torch.as_tensor`` or ``torch.scalar_tensor`` of one number (a
    numeric constant, or arithmetic with one: ``n + 1``, ``-2.0``; a name
    declared ``int`` or ``float``, ``len()``, ``int()`` or ``float()``
    of anything: ``_one_number``; not another name, which may hold a
    list) with no ``device=``."""
    if type(expr) is not ast.Call or len(expr.args) != 1:  # type: ignore[attr-defined]
        return False
    if any(keyword.arg in (None, "device") for keyword in expr.keywords):  # type: ignore[attr-defined]
        return False
    if where.scope.qualified_name(expr.func) not in _DATA_FACTORIES:  # type: ignore[attr-defined]
        return False
    argument = expr.args[0]  # type: ignore[attr-defined]
    return _numeric(argument) or _one_number(argument, where)


#: Annotations of one number; builtins whose result is one.
_NUMBER_ANNOTATIONS = frozenset({"int", "float"})
_NUMBER_BUILTINS = frozenset({"len", "int", "float"})


def _one_number(node: ast.expr, where: _Provenance) -> bool:
    """A number by what the function says of it: a name it declares
    ``int`` or ``float`` (``n: int``, a parameter's annotation), or the
    builtin ``len``, ``int`` or ``float`` of anything."""
    kind = type(node)
    if kind is ast.Name:
        where.bindings  # noqa: B018 (fills ``declared``)
        annotation = where.declared.get(node.id)  # type: ignore[attr-defined]
        return (
            type(annotation) is ast.Name and annotation.id in _NUMBER_ANNOTATIONS  # type: ignore[attr-defined]
        )
    if kind is ast.Call:
        func = node.func  # type: ignore[attr-defined]
        return (
            type(func) is ast.Name
            and func.id in _NUMBER_BUILTINS
            and where.scope.is_builtin(func.id)  # type: ignore[attr-defined]
        )
    return False


def _numeric(node: ast.expr) -> bool:
    """A number by its spelling: a numeric constant, a sign of one, or
    arithmetic one operand of which is one (a list or tuple cannot be
    added to or multiplied by a float, nor subtracted from anything; a
    list times an int is a list: ``*`` needs a float or a number on both
    sides)."""
    kind = type(node)
    if kind is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is ast.UnaryOp:
        return type(node.op) in (ast.USub, ast.UAdd) and _numeric(node.operand)  # type: ignore[attr-defined]
    if kind is ast.BinOp:
        op = type(node.op)  # type: ignore[attr-defined]
        left, right = node.left, node.right  # type: ignore[attr-defined]
        if op in (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow):
            return _numeric(left) or _numeric(right)
        if op is ast.Add:
            return _numeric(left) or _numeric(right)
        if op is ast.Mult:
            return (_numeric(left) and _numeric(right)) or any(
                type(side) is ast.Constant and type(side.value) is float  # type: ignore[attr-defined]
                for side in (left, right)
            )
    return False


def _host_annotation(annotation: ast.expr) -> bool:
    """Whether a value declared ``annotation`` is a Python value, its parts
    too: ``int``, ``list[int]``, ``int | None``; not a container declared
    to hold tensors (``tuple[torch.Tensor, torch.Tensor]``,
    ``list["Tensor"]``: each where it was made)."""
    if isinstance(annotation, ast.Name):
        return annotation.id in _HOST_ANNOTATIONS
    if isinstance(annotation, ast.Subscript):
        return _host_annotation(annotation.value) and not _names_a_tensor(
            annotation.slice
        )
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:  # (a forward reference: ``"list[int]"``)
            parsed = ast.parse(annotation.value.strip(), mode="eval").body
        except (SyntaxError, ValueError):
            return False
        return not isinstance(parsed, ast.Constant) and _host_annotation(parsed)
    if isinstance(annotation, ast.BinOp):  # int | None
        return all(
            _host_annotation(side) or _is_none(side)
            for side in (annotation.left, annotation.right)
        )
    return False


def _names_a_tensor(annotation: ast.expr) -> bool:
    """Whether a type annotation spells ``Tensor`` (``torch.Tensor``, a
    forward reference ``"torch.Tensor"``) anywhere in it."""
    for node in ast.walk(annotation):
        kind = type(node)
        if (
            (kind is ast.Name and node.id == "Tensor")  # type: ignore[attr-defined]
            or (kind is ast.Attribute and node.attr == "Tensor")  # type: ignore[attr-defined]
            or (
                kind is ast.Constant
                and isinstance(node.value, str)  # type: ignore[attr-defined]
                and "Tensor" in node.value  # type: ignore[attr-defined]
            )
        ):
            return True
    return False


#: NumPy's array types, as an annotation names them (``np.ndarray``,
#: ``npt.NDArray[np.int32]``): a value in host memory.
_NUMPY_ARRAY_TYPES = frozenset({"numpy.ndarray", "numpy.typing.NDArray"})


def _numpy_annotation(annotation: ast.expr, scope) -> bool:
    """Whether ``annotation`` declares a NumPy array (``np.ndarray``,
    ``npt.NDArray[...]``, ``Optional[...]`` or ``... | None`` of one, as an
    expression or a string), its names resolved through the module's
    imports."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = (annotation.left, annotation.right)
        return all(
            _is_none(side) or _numpy_annotation(side, scope) for side in sides
        ) and not all(_is_none(side) for side in sides)
    if isinstance(annotation, ast.Subscript):
        container = scope.qualified_name(annotation.value)
        if container in ("typing.Optional",):
            return _numpy_annotation(annotation.slice, scope)
        annotation = annotation.value
    return scope.qualified_name(annotation) in _NUMPY_ARRAY_TYPES


def _is_cpu(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str) and expr.value.split(":")[0] == "cpu"
    if isinstance(expr, ast.Call) and dotted_name(expr.func) in (
        "torch.device",
        "device",
    ):
        return bool(expr.args) and _is_cpu(expr.args[0])
    return False


def _names_cpu(call: ast.Call) -> bool:
    """A call of code the rule does not read that names the CPU as the
    device of what it gives (``get_for_device(params, "ids", "cpu")``,
    ``load(path, device="cpu")``, ``map_location="cpu"``): a device given
    as a string or ``torch.device`` among its arguments, or as its
    ``device`` or ``map_location`` keyword. A function told to put its
    result on the CPU puts it there; where a result could be anywhere,
    its device is not spelled out. One that is also given another device
    (``copy_blocks(src, "cpu", "cuda")``, a tensor's ``x.device``, a
    keyword that names a device, ``device=dev``, ``to_device=d``, with a
    value not known to be the CPU) may put it there: not known."""
    named = False
    for arg in call.args:
        if _is_cpu(arg):
            named = True
        elif _is_other_device(arg) or _device_of(arg):
            return False
    for keyword in call.keywords:
        value = keyword.value
        if _is_other_device(value) or _device_of(value):
            return False
        arg = keyword.arg or ""
        if "device" not in arg and arg != "map_location":
            continue
        if _is_cpu(value):
            named = True
        elif type(value) in _VARIABLE_DEVICES or (
            arg == "device" and type(value) is ast.Constant and type(value.value) is int  # type: ignore[attr-defined]
        ):
            return False  # (the device it is told may be another: ``device=0``)
    return named


#: Values that may hold a device not spelled out (``device=dev``,
#: ``to_device=self.device``, ``device=torch.device(kind)``): not a display
#: (``device_ids=[0, 1]``) nor a constant (``device_map="auto"``).
_VARIABLE_DEVICES = frozenset(
    {ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.IfExp, ast.BoolOp}
)


def _device_of(expr: ast.expr) -> bool:
    """A tensor's device (``x.device``): where it is, not known."""
    return type(expr) is ast.Attribute and expr.attr == "device"  # type: ignore[attr-defined]


#: The device types a string may name other than the CPU.
_OTHER_DEVICES = frozenset(
    {"cuda", "xpu", "mps", "hip", "npu", "hpu", "xla", "meta", "mtia", "privateuseone"}
)


def _is_other_device(expr: ast.expr) -> bool:
    """A device other than the CPU, spelled out: ``"cuda"``, ``"cuda:1"``,
    ``torch.device("cuda", 0)``."""
    if isinstance(expr, ast.Constant):
        value = expr.value
        return isinstance(value, str) and value.split(":")[0] in _OTHER_DEVICES
    if isinstance(expr, ast.Call) and dotted_name(expr.func) in (
        "torch.device",
        "device",
    ):
        return bool(expr.args) and _is_other_device(expr.args[0])
    return False


def _to_cpu(call: ast.Call) -> bool:
    if call.args and _is_cpu(call.args[0]):
        return True
    return any(
        keyword.arg == "device" and _is_cpu(keyword.value) for keyword in call.keywords
    )


def _non_blocking(call: ast.Call) -> bool:
    return any(
        keyword.arg == "non_blocking"
        and not (isinstance(keyword.value, ast.Constant) and not keyword.value.value)
        for keyword in call.keywords
    )


def _forced(call: ast.Call) -> bool:
    """``x.numpy(force=...)`` with a value that may be true (it copies a
    tensor on the device to the host first)."""
    for keyword in call.keywords:
        if keyword.arg is None:
            return True  # (``**options``: may hold ``force=True``)
        if keyword.arg == "force":
            value = keyword.value
            return not (type(value) is ast.Constant and not value.value)  # type: ignore[attr-defined]
    return False


def _is_dtype_cast(call: ast.Call) -> bool:
    """``x.to(torch.int32)``, ``x.to(dtype=...)``: no change of device."""
    if any(keyword.arg == "device" for keyword in call.keywords):
        return False
    if call.args:
        first = call.args[0]
        dotted = dotted_name(first)
        return dotted is not None and (
            dotted.startswith("torch.") or "dtype" in dotted.lower()
        )
    return any(keyword.arg == "dtype" for keyword in call.keywords)


#: The forms ``_Provenance.is_tensor`` may accept.
_TENSOR_FORMS = frozenset(
    {
        ast.Compare,
        ast.Name,
        ast.Subscript,
        ast.Attribute,
        ast.UnaryOp,
        ast.BinOp,
        ast.IfExp,
        ast.Call,
    }
)


#: Comparisons whose result is a Python bool whatever the operands.
_IDENTITY_OPS = frozenset({ast.Is, ast.IsNot, ast.In, ast.NotIn})


def _is_none(expr: ast.expr) -> bool:
    return type(expr) is ast.Constant and expr.value is None  # type: ignore[attr-defined]


def _tensor_function(qualified: str) -> bool:
    """A function of ``torch`` (``torch.cumsum``) whose result is a tensor."""
    namespace, _, name = qualified.rpartition(".")
    if namespace != "torch" or not name or name in _NOT_TENSOR_FUNCTIONS:
        return False
    if name[0].isupper():
        return name.endswith("Tensor")  # (not ``torch.Size``, ``torch.Generator``)
    return not name.startswith(("is_", "get_", "set_", "can_", "_"))


#: torch's typed tensor classes (``torch.LongTensor``: a tensor of that
#: dtype, on the CPU when made by calling the class, but a name declared
#: one may hold any tensor of the dtype, as Hugging Face's models declare
#: their ``input_ids``).
_TYPED_TENSORS = frozenset(
    f"{kind}Tensor"
    for kind in (
        "Long",
        "Int",
        "Short",
        "Char",
        "Byte",
        "Bool",
        "Float",
        "Double",
        "Half",
        "BFloat16",
    )
)


def _tensor_annotation(annotation: ast.expr, maybe_none: bool) -> bool:
    """``torch.Tensor``, ``torch.LongTensor`` (``_TYPED_TENSORS``) or
    ``Tensor`` (and, with ``maybe_none``,
    ``Optional[...]`` or ``... | None`` of it), as an expression or a string."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(annotation, ast.Name):
        return annotation.id == "Tensor"
    if isinstance(annotation, ast.Attribute):
        dotted = dotted_name(annotation)
        return dotted in ("torch.Tensor", "th.Tensor") or (
            dotted is not None
            and dotted.startswith(("torch.", "th."))
            and dotted.split(".", 1)[1] in _TYPED_TENSORS
        )
    if not maybe_none:
        return False
    if isinstance(annotation, ast.Subscript):
        return dotted_name(annotation.value) in (
            "Optional",
            "typing.Optional",
        ) and _tensor_annotation(annotation.slice, False)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = (annotation.left, annotation.right)
        return any(_is_none(side) for side in sides) and any(
            _tensor_annotation(side, False) for side in sides
        )
    return False


def _short(expr: ast.expr) -> str:
    """The source of a short expression (a message names it)."""
    text = ast.unparse(expr)
    return text if len(text) <= 40 else text[:37] + "..."


def _tensor_result(expr: ast.expr, where: _Provenance) -> bool:
    """Whether ``expr`` computes a tensor from a value not on the host: a
    reduction or an element of one (``lens.max()``, ``indptr[-1]`` of a
    local tensor), a torch function's result."""
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in _REDUCTIONS:
            qualified = where.scope.qualified_name(func)  # type: ignore[attr-defined]
            if qualified is None:
                return where.where(func.value) not in _ON_HOST and _looks_like_tensor(
                    func.value, where
                )
            return qualified.startswith("torch.") and where.where(expr) not in _ON_HOST
        return False
    if isinstance(expr, ast.Subscript):
        return where.where(expr.value) == DEVICE
    return False


def _looks_like_tensor(expr: ast.expr, where: _Provenance) -> bool:
    """Not a Python value for all the function shows: a device value, a
    tensor method's or torch function's result, a parameter or attribute
    that is not annotated as a Python type, or an element of one."""
    place = where.where(expr)
    if place == DEVICE:
        return True
    if place in _ON_HOST:
        return False
    if isinstance(expr, ast.Compare):
        return _looks_like_tensor(expr.left, where)
    if isinstance(expr, ast.BinOp):
        return _looks_like_tensor(expr.left, where) or _looks_like_tensor(
            expr.right, where
        )
    while isinstance(expr, (ast.Subscript, ast.Call)):
        expr = expr.value if isinstance(expr, ast.Subscript) else expr.func
        if isinstance(expr, ast.Attribute) and isinstance(
            getattr(expr, "ctx", None), ast.Load
        ):
            expr = expr.value
    return isinstance(expr, (ast.Name, ast.Attribute))


#: A cache slot (``_cache_fills``): ``("attr", root, a, b)`` for
#: ``root.a.b``, ``("item", container, key)`` for ``container[key]`` (the
#: container a slot, the key ``ast.dump`` of its expression).
_Slot = tuple


def _cache_fills(
    function: ast.AST,
    assigned: frozenset[str],
    method: bool,
    rows: list[int],
    span: Callable[[list[ast.AST]], str] | None = None,
    ifs: list[tuple[ast.If, list[ast.stmt], int]] | None = None,
) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The spans (start and end row and column) of the blocks of the
    function's own code that fill a cache slot kept on an object that
    outlives the call, and so run once per object, not per step: the arm of
    an ``if`` whose test says the slot is empty (``S is None``, ``not
    hasattr(obj, "x")``, ``k not in D``; through a local just bound to the
    slot, ``c = getattr(obj, "x", None)``, ``c = D.get(k)``) and which
    stores into the same slot (``S = ...``, ``setattr(obj, "x", ...)``,
    ``D[k] = ...``) in its own block, no ``return``, ``break`` or
    ``continue`` before the store; or the rest of the block after an ``if``
    whose test says the slot is full and whose body always leaves (``if c
    is not None: return c``). A slot lives on the instance (``self.x``), in
    a module global (``_CACHE[k]``), or in a private attribute of another
    parameter of a method (``layer._scale_float``: a value the caller keeps
    on an object it is handed each step, a layer; a per-step batch's own
    fields are public; a function that is no method may be handed a per-call cache
    object). A deeper chain (``self.metadata.x``) is not known to outlive
    the call. A local's slot is no cache: it is empty again each call.

    Only the spans that hold one of the sorted ``rows`` (the candidates')
    matter: an ``if`` is read only where one lies from it to its block's
    end, which holds every span it can give. ``span`` gives the text of
    statements, for a pre-filter (``_alias_value``); None without one.
    ``ifs``: ``_ifs_over(function, rows)``, where already found."""
    args = function.args  # type: ignore[attr-defined]
    parameters = {arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    instance = _instance_parameter(function) if method and parameters else None
    fills: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for stmt, block, index in _ifs_over(function, rows) if ifs is None else ifs:
        found = _slot_test(stmt.test, block, index, assigned, span)  # type: ignore[attr-defined]
        if found is None:
            continue
        slot, empty_when_true = found
        if not _persistent(slot, parameters, instance, assigned):
            continue
        arm = _arm_when(stmt, block, index, empty_when_true)
        if arm and _stores_slot(arm, slot):
            fills.append(_block_span(arm))
    return fills


def _ifs_over(
    function: ast.AST, rows: list[int]
) -> Iterator[tuple[ast.If, list[ast.stmt], int]]:
    """The ``if`` statements of the function's own code (nested scopes
    apart) from which one of the sorted ``rows`` lies to the end of their
    block, with the block and their place in it: the only ones whose arm,
    or the rest of whose block, can hold a node on those rows."""
    blocks = [function.body]  # type: ignore[attr-defined]
    while blocks:
        block = blocks.pop()
        for index, stmt in enumerate(block):
            kind = type(stmt)
            if kind in _SCOPE_TYPES:
                continue
            if kind is ast.If and any_row_between(
                rows,
                stmt.lineno,
                block[-1].end_lineno,  # type: ignore[arg-type]
            ):
                yield stmt, block, index  # type: ignore[misc]
            if kind not in _BLOCK_HOLDERS or not any_row_between(
                rows,
                stmt.lineno,
                stmt.end_lineno,  # type: ignore[arg-type]
            ):
                # (no block; or none of the rows, and so none from any
                # ``if`` of its blocks to its block's end)
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if inner:
                    blocks.append(inner)
            for handler in getattr(stmt, "handlers", ()):
                blocks.append(handler.body)
            for case in getattr(stmt, "cases", ()):
                blocks.append(case.body)


def _arm_when(
    stmt: ast.If, block: list[ast.stmt], index: int, when_true: bool
) -> list[ast.stmt]:
    """The statements that run only where the ``if``'s test is
    ``when_true``: its body, or its ``else``; with no ``else``, the rest of
    the block after a body that always leaves (``if c is not None:
    return c``). Empty where no statement does."""
    if when_true:
        return stmt.body
    if stmt.orelse:
        return stmt.orelse
    if _leaves(stmt.body):
        return block[index + 1 :]
    return []


def _block_span(block: list[ast.stmt]) -> tuple[tuple[int, int], tuple[int, int]]:
    last = block[-1]
    return (
        (block[0].lineno, block[0].col_offset),
        (last.end_lineno, last.end_col_offset),  # type: ignore[return-value]
    )


def _host_fallbacks(
    function: ast.AST,
    rows: list[int],
    host_names: GlobMatcher,
    text: str | None,
    host_rows: list[int] | None,
    bindings: list,
    passed: Callable[[ast.AST, str, list[tuple[ast.expr, bool]]], bool] | None = None,
    ifs: list[tuple[ast.If, list[ast.stmt], int]] | None = None,
) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The spans of the function's own code that run only where a host copy
    is missing, a fallback beside the path that reads the copy: the arm of an
    ``if`` whose test says a name or attribute matching ``host-tensor-names``
    is None (the body of ``if seq_lens_cpu is None:``, the ``else`` of ``if
    batch.seq_lens_cpu is not None:``, the rest of the block after ``if
    lens_cpu is not None: return ...``; in ``and``/``or`` as
    ``_slot_test`` reads them), and the arm of a conditional expression
    that does (``lens_cpu if lens_cpu is not None else lens.cpu()``).
    ``text`` is the function's, for a pre-filter (no ``None``, no such
    test; no ``else``, no conditional expression), None without one.

    Only a copy the per-step caller is expected to hand over counts
    (``_provided_copy``): a field of an object (``batch.seq_lens_cpu``, what
    the engine fills per step), a local read only from one, a parameter
    of a function private to the module, or one with no default. A public
    function's parameter that defaults to None (``lens_cpu=None``) is an
    optional copy: a caller that leaves it out takes the fallback on every
    call, and so it is reported.

    Only the spans that hold one of the sorted ``rows`` (the candidates')
    are looked for. ``host_rows``, for a pre-filter, are the function's
    rows that may hold a name matching ``host-tensor-names`` (those holding
    a literal part of the globs, ``_glob_literals``), None without the
    pre-filter: a test naming a copy holds one, and so does each
    node spanning it (a conditional expression among them). A conditional
    expression sought spans both one of ``rows`` and one of ``host_rows``:
    the walk follows the shorter list. ``ifs``: ``_ifs_over(function,
    rows)``, where already found."""
    if text is not None and "None" not in text or host_rows == []:
        return []

    # (the ``if`` whose test is read: its guards, for ``passed``)
    current: list[ast.stmt | None] = [None]

    def provided(subject: ast.expr) -> bool:
        if passed is None:
            return _provided_copy(subject, function, host_names, bindings)
        stmt = current[0]
        return _provided_copy(
            subject,
            function,
            host_names,
            bindings,
            lambda f, name: passed(
                f, name, [] if stmt is None else _guards(function, stmt)
            ),
        )

    spans: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for stmt, block, index in _ifs_over(function, rows) if ifs is None else ifs:
        current[0] = stmt
        missing = _host_missing(stmt.test, host_names, provided)  # type: ignore[attr-defined]
        if missing is not None:
            arm = _arm_when(stmt, block, index, missing)
            if arm:
                spans.append(_block_span(arm))
    current[0] = None
    if text is not None and "else" not in text:
        return spans
    # (a conditional expression spanning a row is found with its ancestors,
    # each spanning the row too)
    for node in walk_rows(
        function,
        rows if host_rows is None or len(rows) <= len(host_rows) else host_rows,
        {},
        leaves=False,
    ):
        if type(node) is not ast.IfExp or not any_row_between(
            rows,
            node.lineno,  # type: ignore[attr-defined]
            node.end_lineno,  # type: ignore[attr-defined]
        ):
            continue
        missing = _host_missing(node.test, host_names, provided)  # type: ignore[attr-defined]
        if missing is not None:
            arm = node.body if missing else node.orelse  # type: ignore[attr-defined]
            spans.append(
                (
                    (arm.lineno, arm.col_offset),
                    (arm.end_lineno, arm.end_col_offset),
                )
            )
    return spans


def _glob_literals(globs: tuple[str, ...]) -> tuple[str, ...] | None:
    """A text every name matching one of the ``globs`` holds (for each glob,
    its longest run of characters that are no wildcard): a name matching
    ``host-tensor-names`` lies on a row holding one of them. None where a
    glob has none, holds a ``[`` or ``]`` (a class of characters, not
    parsed here) or is not ASCII (a name's other spellings are not looked
    for): any row may then hold one."""
    found = _GLOB_LITERALS.get(globs, False)
    if found is not False:
        return found  # type: ignore[return-value]
    literals: list[str] = []
    for glob in globs:
        if "[" in glob or "]" in glob or not glob.isascii():
            literals = []
            break
        longest = max(re.split(r"[*?]", glob), key=len)
        if not longest:
            literals = []
            break
        literals.append(longest)
    found = _GLOB_LITERALS[globs] = tuple(sorted(set(literals))) or None
    return found


_GLOB_LITERALS: dict[tuple[str, ...], tuple[str, ...] | None] = {}


def _rows_holding(
    text: str, starts: list[int], literals: tuple[str, ...], first: int, last: int
) -> list[int]:
    """The rows from ``first`` to ``last`` of ``text`` (its rows starting at
    ``starts``) that hold one of ``literals``, in order."""
    begin = starts[first - 1]
    end = starts[last] if last < len(starts) else len(text)
    find = text.find
    found: set[int] = set()
    for literal in literals:
        position = find(literal, begin, end)
        while position >= 0:
            found.add(bisect_right(starts, position))
            position = find(literal, position + 1, end)
    return sorted(found)


def _host_missing(
    test: ast.expr, host_names: GlobMatcher, provided: Callable[[ast.expr], bool]
) -> bool | None:
    """Whether ``test`` is true (True) or false (False) only where a host
    copy (a name or attribute matching ``host-tensor-names`` that
    ``provided`` accepts) is None (``lens_cpu is None``,
    ``batch.seq_lens_cpu is not None``); None where it says nothing of one."""
    found = _test_says(
        test, partial(_host_leaf, host_names=host_names, provided=provided)
    )
    return None if found is None else found[1]


def _host_leaf(
    test: ast.expr, host_names: GlobMatcher, provided: Callable[[ast.expr], bool]
) -> tuple[ast.expr, bool] | None:
    """(the copy, whether ``test`` is true where it is None) for ``copy is
    None`` or ``copy is not None`` (``_host_missing``)."""
    if type(test) is not ast.Compare or len(test.ops) != 1:  # type: ignore[attr-defined]
        return None
    op = type(test.ops[0])  # type: ignore[attr-defined]
    if op is not ast.Is and op is not ast.IsNot:
        return None
    subject = _none_compared(test)
    if subject is None:
        return None
    kind = type(subject)
    if kind is ast.Name:
        name = subject.id  # type: ignore[attr-defined]
    elif kind is ast.Attribute:
        name = subject.attr  # type: ignore[attr-defined]
    else:
        return None
    if host_names.match(name) is None or not provided(subject):
        return None
    return subject, op is ast.Is


def _none_compared(test: ast.expr) -> ast.expr | None:
    """The side of a one-operator comparison that is compared with
    ``None`` (``x is None``, ``None != x``: ``x``), None where neither is."""
    left, right = test.left, test.comparators[0]  # type: ignore[attr-defined]
    if _is_none(right):
        return left
    if _is_none(left):
        return right
    return None


def _provided_copy(
    subject: ast.expr,
    function: ast.AST,
    host_names: GlobMatcher,
    bindings: list,
    passed: Callable[[ast.AST, str], bool] | None = None,
) -> bool:
    """Whether the host copy ``subject`` (``_host_fallbacks``) is one the
    per-step caller is expected to hand over: an attribute; a local every
    binding of which reads an attribute matching ``host_names``
    (``lens_cpu = batch.seq_lens_cpu``); a parameter with no default, or
    of a function private to the module (``_plan``: its callers are the
    module's own)."""
    if type(subject) is not ast.Name:
        return True
    name = subject.id  # type: ignore[attr-defined]
    args = function.args  # type: ignore[attr-defined]
    positional = [*args.posonlyargs, *args.args]
    for index, arg in enumerate(positional):
        if arg.arg == name:
            default_at = index - (len(positional) - len(args.defaults))
            if default_at < 0 or _private(function.name):  # type: ignore[attr-defined]
                return True
            return passed is not None and passed(function, name)
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if arg.arg == name:
            if default is None or _private(function.name):  # type: ignore[attr-defined]
                return True
            return passed is not None and passed(function, name)
    found = False
    for stmt, _ in bindings:
        if type(stmt) is not ast.Assign:
            if any(
                type(target) is ast.Name and target.id == name
                for target in (getattr(stmt, "target", None),)
            ):
                return False
            continue
        if not any(
            type(target) is ast.Name and target.id == name for target in stmt.targets
        ):
            continue
        value = stmt.value
        if type(value) is not ast.Attribute or host_names.match(value.attr) is None:
            return False
        found = True
    return found


def _passed_by_callers(
    ctx: Context,
    host_names: GlobMatcher,
    function: ast.AST,
    name: str,
    guards: list[tuple[ast.expr, bool]],
) -> bool:
    """Whether every call of ``function`` the module holds (at least one;
    ``module_call_sites``) that can reach the fallback passes its parameter
    ``name`` a host copy its own caller is handed per step: a field of an
    object matching ``host_names`` (``forward_batch.extend_prefix_lens_cpu``).
    A call cannot reach it where it passes a constant that makes one of
    the fallback's ``guards`` (the tests of the ``if`` statements around
    it, each with the arm it lies in) false: ``use_ragged=False`` under
    ``if use_ragged:``, where the function never rebinds the parameter.
    Asked of a function per step only through the module's own calls (its
    chain from an entry point passes through a caller): on that chain the
    copy is there, whatever a caller elsewhere may leave out."""
    sites = module_summaries(ctx.model).module_call_sites(function)  # type: ignore[arg-type]
    if not sites:
        return False
    switches = _parameter_switches(function, guards)
    for site in sites:
        if site.caller is None:
            return False
        value = site.arguments.get(name)
        if value is None:
            call = site.call
            if any(type(a) is ast.Starred for a in call.args) or any(
                k.arg is None for k in call.keywords
            ):
                return False
            # (a call that does not fit the signature raises before the
            # body runs: ``bind_arguments`` binds nothing of it)
            continue
        if type(value) is ast.Attribute and host_names.match(value.attr) is not None:  # type: ignore[attr-defined]
            continue
        if any(
            type(argument) is ast.Constant and bool(argument.value) is not needed  # type: ignore[attr-defined]
            for argument, needed in (
                (site.arguments.get(switch), needed) for switch, needed in switches
            )
        ):
            continue  # (this call never reaches the fallback)
        return False
    return True


def _parameter_switches(
    function: ast.AST, guards: list[tuple[ast.expr, bool]]
) -> list[tuple[str, bool]]:
    """(parameter, the truth it must have) for each of the ``guards`` that
    tests a parameter alone (``if use_ragged:``, ``if not flag:``) the
    function never rebinds: a call passing the other truth never gets
    past it."""
    args = function.args  # type: ignore[attr-defined]
    names = {arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    switches: list[tuple[str, bool]] = []
    for test, truth in guards:
        while type(test) is ast.UnaryOp and type(test.op) is ast.Not:  # type: ignore[attr-defined]
            test, truth = test.operand, not truth  # type: ignore[attr-defined]
        if type(test) is ast.Name and test.id in names:  # type: ignore[attr-defined]
            switches.append((test.id, truth))  # type: ignore[attr-defined]
    if not switches:
        return switches
    rebound: set[str] = set()
    for node in ast.walk(function):
        if type(node) is ast.Name:
            if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                rebound.add(node.id)  # type: ignore[attr-defined]
        else:  # (``case use_cpu:``, ``except E as flag``, a ``def``)
            rebound.update(names_bound_by(node))
    return [(name, truth) for name, truth in switches if name not in rebound]


def _guards(function: ast.AST, target: ast.stmt) -> list[tuple[ast.expr, bool]]:
    """The tests of the ``if`` statements of the function's own code that
    hold ``target``, outermost first, each with whether ``target`` lies in
    its body (True) or its ``else`` (False)."""
    row = target.lineno
    guards: list[tuple[ast.expr, bool]] = []
    block = function.body  # type: ignore[attr-defined]
    while True:
        for stmt in block:
            if stmt is target:
                return guards
            if not (stmt.lineno <= row <= stmt.end_lineno):  # type: ignore[operator]
                continue
            if type(stmt) in _SCOPE_TYPES:
                return []
            inner = None
            if type(stmt) is ast.If:
                for field, truth in (("body", True), ("orelse", False)):
                    arm = getattr(stmt, field)
                    if arm and arm[0].lineno <= row <= arm[-1].end_lineno:
                        guards.append((stmt.test, truth))
                        inner = arm
                        break
            else:
                blocks = [
                    getattr(stmt, field, None) or []
                    for field in ("body", "orelse", "finalbody")
                ]
                blocks += [h.body for h in getattr(stmt, "handlers", ())]
                blocks += [c.body for c in getattr(stmt, "cases", ())]
                for candidate in blocks:
                    if (
                        candidate
                        and candidate[0].lineno <= row <= candidate[-1].end_lineno
                    ):
                        inner = candidate
                        break
            if inner is None:
                return []
            block = inner
            break
        else:
            return []


#: The statements holding blocks of statements (nested scopes apart).
_BLOCK_HOLDERS = frozenset(COMPOUND_STATEMENTS)


def _in_fill(node: ast.AST, fills: list) -> bool:
    """Whether ``node`` lies inside one of the spans ``_cache_fills`` gives."""
    start, end = _extent(node)
    return any(first <= start and end <= last for first, last in fills)


def _extent(node: ast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
    """(start, end) of a candidate: of a ``comprehension`` (which has no
    position of its own), from its target to its last ``if``."""
    if type(node) is ast.comprehension:
        first, last = node.target, node.ifs[-1]  # type: ignore[attr-defined]
        return (first.lineno, first.col_offset), (last.end_lineno, last.end_col_offset)  # type: ignore[return-value]
    return (
        (node.lineno, node.col_offset),  # type: ignore[attr-defined]
        (node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
    )


def _slot_test(
    test: ast.expr,
    block: list[ast.stmt],
    index: int,
    assigned: frozenset[str],
    span: Callable[[list[ast.AST]], str] | None = None,
) -> tuple[_Slot, bool] | None:
    """(slot, whether the test is true when it is empty) for a test that
    says whether a cache slot is filled (``_cache_fills``); a local in it
    stands for the slot the nearest binding before the ``if`` in its block
    reads, when nothing between rebinds it (only a name among ``assigned``,
    the function's assigned names, can have such a binding)."""
    return _test_says(
        test,
        partial(_slot_leaf, block=block, index=index, assigned=assigned, span=span),
    )


def _test_says(
    test: ast.expr, leaf: Callable[[ast.expr], tuple[object, bool] | None]
) -> tuple[object, bool] | None:
    """(what, whether ``test`` is true where it holds) for a test that
    ``leaf`` reads, or that holds ``leaf``'s reading under ``not``, or as an
    operand of ``and`` (the body runs only where each operand is true) or of
    ``or`` (the ``else`` only where each is false)."""
    kind = type(test)
    if kind is ast.UnaryOp and type(test.op) is ast.Not:  # type: ignore[attr-defined]
        found = _test_says(test.operand, leaf)  # type: ignore[attr-defined]
        return None if found is None else (found[0], not found[1])
    if kind is ast.BoolOp:
        wanted = type(test.op) is ast.And  # type: ignore[attr-defined]
        for value in test.values:  # type: ignore[attr-defined]
            found = _test_says(value, leaf)
            if found is not None and found[1] is wanted:
                return found
        return None
    return leaf(test)


def _slot_leaf(
    test: ast.expr,
    block: list[ast.stmt],
    index: int,
    assigned: frozenset[str],
    span: Callable[[list[ast.AST]], str] | None = None,
) -> tuple[_Slot, bool] | None:
    """``_slot_test`` of a test that is no ``not``, ``and`` or ``or``."""
    kind = type(test)
    if kind is ast.Compare and len(test.ops) == 1:  # type: ignore[attr-defined]
        op = type(test.ops[0])  # type: ignore[attr-defined]
        left, right = test.left, test.comparators[0]  # type: ignore[attr-defined]
        if op in (ast.Is, ast.IsNot, ast.Eq, ast.NotEq):
            subject = _none_compared(test)
            if subject is None:
                return None
            alias = type(subject) is not ast.Name or subject.id in assigned  # type: ignore[attr-defined]
            slot = _slot_of(subject, block, index, alias, span)
            return None if slot is None else (slot, op in (ast.Is, ast.Eq))
        if op in (ast.In, ast.NotIn):
            container = _slot_of(right, block, index, alias=False)
            if container is None:
                return None
            return ("item", container, ast.dump(left)), op is ast.NotIn
        return None
    if (
        kind is ast.Call
        and type(test.func) is ast.Name  # type: ignore[attr-defined]
        and test.func.id == "hasattr"  # type: ignore[attr-defined]
        and len(test.args) == 2  # type: ignore[attr-defined]
        and not test.keywords  # type: ignore[attr-defined]
    ):
        owner = _slot_of(test.args[0], block, index, alias=False)  # type: ignore[attr-defined]
        name = _constant_string(test.args[1])  # type: ignore[attr-defined]
        if owner is None or name is None or owner[0] != "attr":
            return None
        return (*owner, name), False
    return None


def _constant_string(expr: ast.expr) -> str | None:
    if type(expr) is ast.Constant and type(expr.value) is str:  # type: ignore[attr-defined]
        return expr.value  # type: ignore[attr-defined]
    return None


def _slot_of(
    expr: ast.expr,
    block: list[ast.stmt],
    index: int,
    alias: bool = True,
    span: Callable[[list[ast.AST]], str] | None = None,
) -> _Slot | None:
    """The slot ``expr`` reads: an attribute chain on a name, an item of
    one (``D[k]``), or, with ``alias``, a local just bound to one
    (``getattr(obj, "x", None)``, ``D.get(k)``, ``obj.x``)."""
    kind = type(expr)
    if kind is ast.Name:
        if alias:
            value = _alias_value(expr.id, block, index, span)  # type: ignore[attr-defined]
            if value is not None:
                return _alias_slot(value, block, index)
        return ("attr", expr.id)  # type: ignore[attr-defined]
    if kind is ast.Attribute:
        owner = _slot_of(expr.value, block, index, alias=False)  # type: ignore[attr-defined]
        if owner is None or owner[0] != "attr":
            return None
        return (*owner, expr.attr)  # type: ignore[attr-defined]
    if kind is ast.Subscript:
        container = _slot_of(expr.value, block, index, alias=False)  # type: ignore[attr-defined]
        if container is None:
            return None
        return ("item", container, ast.dump(expr.slice))  # type: ignore[attr-defined]
    return None


def _alias_value(
    name: str,
    block: list[ast.stmt],
    index: int,
    span: Callable[[list[ast.AST]], str] | None = None,
) -> ast.expr | None:
    """The value of the nearest ``name = value`` before ``block[index]``
    in the block, when no statement between binds ``name``. With ``span``
    (at least the text of statements, ``Context.node_text``: a pre-filter),
    a statement whose text does not hold the name is not walked: no name
    in it is that one."""
    for position in range(index - 1, -1, -1):
        stmt = block[position]
        if (
            type(stmt) is ast.Assign
            and len(stmt.targets) == 1
            and type(stmt.targets[0]) is ast.Name
            and stmt.targets[0].id == name
        ):
            return stmt.value
        if span is not None and name not in span([stmt]):
            continue
        if any(
            type(node) is ast.Name
            and node.id == name
            and type(node.ctx) is not ast.Load
            for node in walk(stmt)
        ):
            return None
    return None


def _alias_slot(value: ast.expr, block: list[ast.stmt], index: int) -> _Slot | None:
    kind = type(value)
    if kind is ast.Attribute or kind is ast.Subscript:
        return _slot_of(value, block, index, alias=False)
    if kind is not ast.Call:
        return None
    func, args = value.func, value.args  # type: ignore[attr-defined]
    if value.keywords:  # type: ignore[attr-defined]
        return None
    if type(func) is ast.Name and func.id == "getattr" and len(args) == 3:
        owner = _slot_of(args[0], block, index, alias=False)
        name = _constant_string(args[1])
        if owner is None or name is None or owner[0] != "attr" or not _is_none(args[2]):
            return None
        return (*owner, name)
    if (
        type(func) is ast.Attribute
        and func.attr == "get"
        and (len(args) == 1 or (len(args) == 2 and _is_none(args[1])))
    ):
        container = _slot_of(func.value, block, index, alias=False)
        if container is None:
            return None
        return ("item", container, ast.dump(args[0]))
    return None


def _persistent(
    slot: _Slot, parameters: set[str], instance: str | None, assigned: frozenset[str]
) -> bool:
    """Whether a slot outlives the call (``_cache_fills``): an attribute of
    the instance or an item of one (``self.x``, ``self.d[k]``), an item of
    a module global (``_CACHE[k]``) or an attribute of one, or a private
    attribute of another parameter of a method (``layer._x``) or an item
    of one. A deeper chain (``self.metadata.x``) is not known to: the
    object between may be built anew each step."""
    container = slot
    while container[0] == "item":
        container = container[1]
    if len(container) > 3:
        return False
    root = container[1]
    if root in assigned:
        return False  # a local (or a rebound parameter)
    if len(container) == 2:
        # a bare name: a module global's container only (``k in _CACHE``)
        return slot[0] == "item" and root not in parameters
    if root == instance or root not in parameters:
        return True
    first = container[2]
    return instance is not None and first.startswith("_") and not first.startswith("__")


def _stores_slot(arm: list[ast.stmt], slot: _Slot) -> bool:
    """Whether a statement of ``arm`` itself stores into ``slot``, no
    statement before it able to leave the arm early (``return``, ``break``,
    ``continue``: ``raise`` is an error path)."""
    for stmt in arm:
        kind = type(stmt)
        if kind is ast.Assign or kind is ast.AnnAssign:
            targets = stmt.targets if kind is ast.Assign else [stmt.target]  # type: ignore[attr-defined]
            for target in targets:
                elements = (
                    target.elts  # type: ignore[attr-defined]
                    if type(target) in (ast.Tuple, ast.List)
                    else [target]
                )
                for element in elements:
                    if (
                        type(element) in (ast.Attribute, ast.Subscript)
                        and _slot_of(element, arm, 0, alias=False) == slot
                    ):
                        return True
        elif kind is ast.Expr and type(stmt.value) is ast.Call:  # type: ignore[attr-defined]
            call = stmt.value  # type: ignore[attr-defined]
            func = call.func
            if (
                type(func) is ast.Name
                and func.id == "setattr"
                and len(call.args) == 3
                and slot[0] == "attr"
            ):
                owner = _slot_of(call.args[0], arm, 0, alias=False)
                name = _constant_string(call.args[1])
                if owner is not None and name is not None and (*owner, name) == slot:
                    return True
        if may_leave(stmt):
            return False
    return False
