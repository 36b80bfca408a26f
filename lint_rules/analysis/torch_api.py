"""The torch vocabulary: what each tensor method and torch function does.

One table per kind of callee, each the only source of its facts:

- ``METHODS``: for a tensor method or attribute, what it does to the
  receiver and what its result is (flags below): reads the elements, writes
  them (some or all), returns a view or the receiver itself, synchronizes
  with the host, sees metadata only. The analyses read the sets derived from
  it: the effect of a use of a tensor (``tensor_effects``, ATN101-ATN103) and
  what code between two points may change (``invalidation``, ATN201,
  ATN202, ATN301).
- The functions of torch's namespaces: which honour the ``out=`` contract
  (``out`` is resized and written whole), which change some of their
  arguments and when (``inplace``, ``training``, ``max_norm``, an ``out``
  given by position), which leave them alone.
- Context managers that never swallow an exception raised in their body.

``tests/test_torch_api.py`` checks every entry against torch itself: each
name exists, in-place names end in ``_`` and no other writes, the positions
of ``inplace`` and ``out`` are those of the real signatures, and no public
torch function whose schema writes an argument is taken for a pure one.

A method is recognized by its name alone (the receiver's type is unknown):
the names here are torch's, and a receiver of another type with a method of
the same name is assumed to behave alike. Names that other common types use
for something else (``join``, ``get``, ``items``) are not here.
"""

from __future__ import annotations

import ast

# --------------------------------------------------------------------------- methods

#: The result depends on the receiver's elements.
READS = 1
#: Changes the receiver's elements in place (some of them, or all keeping
#: their old values in the result: ``add_``).
WRITES = 2
#: Overwrites every element whatever it held (``copy_``, ``fill_``).
OVERWRITES = 4
#: The result may share memory with the receiver: a view (``view``,
#: ``transpose``, ``x.T``) or a conversion that returns the receiver itself
#: when there is nothing to convert (``to``, ``cpu``, ``contiguous``).
ALIASES = 8
#: One of those conversions: what is done with the result is done with the
#: receiver or with a copy of it.
CONVERTS = 16
#: Copies to host memory: waits for the device (``item``, ``tolist``).
SYNCS = 32
#: Sees only metadata (shape, dtype, device, strides): no element is read.
METADATA = 64
#: The result is new memory whose contents are undefined (``new_empty``).
UNDEFINED = 128
#: Accumulates into the ``.grad`` of every leaf the result depends on.
ACCUMULATES_GRAD = 256
#: Python's own types (or numpy's) have a method of this name that changes
#: its receiver: ``list.sort()``, ``set.add(v)`` (which also keeps ``v``),
#: ``ndarray.sort()``. Recognized by its name alone, the receiver may be one
#: of those: such a method is not taken to change nothing.
MUTATES_OTHER_TYPES = 512

_IN_PLACE_READING = READS | WRITES  # ``add_``: the old values survive in the result
_OVERWRITING = WRITES | OVERWRITES
_CONVERSION = READS | ALIASES | CONVERTS
_VIEW = ALIASES

#: Tensor methods (and, where noted, attributes) and what they do.
METHODS: dict[str, int] = {
    # in place, every element overwritten
    "copy_": _OVERWRITING,
    "fill_": _OVERWRITING,
    "zero_": _OVERWRITING,
    "uniform_": _OVERWRITING,
    "normal_": _OVERWRITING,
    "random_": _OVERWRITING,
    "bernoulli_": _OVERWRITING,
    "exponential_": _OVERWRITING,
    "geometric_": _OVERWRITING,
    "cauchy_": _OVERWRITING,
    "log_normal_": _OVERWRITING,
    # in place, keeping (part of) the old contents
    **dict.fromkeys(
        (
            "add_",
            "sub_",
            "mul_",
            "div_",
            "true_divide_",
            "floor_divide_",
            "remainder_",
            "fmod_",
            "pow_",
            "neg_",
            "abs_",
            "exp_",
            "log_",
            "sqrt_",
            "rsqrt_",
            "sigmoid_",
            "tanh_",
            "relu_",
            "clamp_",
            "clamp_min_",
            "clamp_max_",
            "lerp_",
            "addcmul_",
            "addcdiv_",
            "addmm_",
            "baddbmm_",
            "cumsum_",
            "index_add_",
            "scatter_add_",
            "scatter_reduce_",
            "masked_fill_",
        ),
        _IN_PLACE_READING,
    ),
    # reductions, copies and elementwise arithmetic: a new tensor (or number)
    **dict.fromkeys(
        (
            "sum",
            "max",
            "min",
            "mean",
            "prod",
            "std",
            "var",
            "norm",
            "amax",
            "amin",
            "argmax",
            "argmin",
            "any",
            "all",
            "count_nonzero",
            "cumsum",
            "cumprod",
            "nonzero",
            "unique",
            "argsort",
            "topk",
            "median",
            "bincount",
            "clone",
            "sub",
            "mul",
            "div",
            "neg",
            "abs",
            "exp",
            "log",
            "sqrt",
            "rsqrt",
            "pow",
            "sign",
            "floor",
            "ceil",
            "round",
            "clamp",
            "clip",
            "logical_not",
            "eq",
            "ne",
            "lt",
            "le",
            "gt",
            "ge",
            "equal",
            "allclose",
            "isnan",
            "isinf",
            "isfinite",
            "matmul",
            "mm",
            "bmm",
            "dot",
            "gather",
            "index_select",
            "masked_select",
            "masked_fill",
            "take",
            "repeat",
            "repeat_interleave",
        ),
        READS,
    ),
    # the same names change a list, a set, an array in place
    "sort": READS | MUTATES_OTHER_TYPES,
    "add": READS | MUTATES_OTHER_TYPES,
    # copies to the host
    "item": READS | SYNCS,
    "tolist": READS | SYNCS,
    # conversions that may return the receiver itself
    "to": _CONVERSION,
    "cpu": _CONVERSION | SYNCS,
    "numpy": _CONVERSION | SYNCS,
    **dict.fromkeys(
        (
            "cuda",
            "float",
            "half",
            "double",
            "bfloat16",
            "int",
            "long",
            "short",
            "bool",
            "byte",
            "char",
            "type",
            "type_as",
            "contiguous",
            "detach",
        ),
        _CONVERSION,
    ),
    # views: the result shares the receiver's memory (or may, for reshape)
    **dict.fromkeys(
        (
            "view",
            "view_as",
            "reshape",
            "reshape_as",
            "flatten",
            "unflatten",
            "squeeze",
            "unsqueeze",
            "expand",
            "expand_as",
            "permute",
            "transpose",
            "t",
            "narrow",
            "select",
            "split",
            "chunk",
            "unbind",
            "as_strided",
            "diagonal",
            "unfold",
            "movedim",
            "values",
        ),
        _VIEW,
    ),
    # metadata only
    **dict.fromkeys(
        (
            "size",
            "dim",
            "ndimension",
            "numel",
            "nelement",
            "stride",
            "element_size",
            "is_contiguous",
            "is_floating_point",
            "get_device",
            "storage_offset",
        ),
        METADATA,
    ),
    # the address of the memory: code given it may write there
    # (``ctypes.memset(x.data_ptr(), 0, n)``, a kernel's pointer argument)
    "data_ptr": METADATA | ALIASES,
    # new tensors shaped like the receiver
    "new_empty": UNDEFINED,
    "new_zeros": METADATA,
    "new_ones": METADATA,
    "new_full": METADATA,
    "new_tensor": METADATA,
    # autograd
    "backward": ACCUMULATES_GRAD,
}

#: Tensor attributes that see only metadata (``x.shape``).
METADATA_ATTRIBUTES = frozenset(
    {"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad"}
)
#: Tensor attributes that are views of the tensor's own memory: a write
#: through ``x.data``, ``x.T`` or ``x.real`` writes ``x``.
VIEW_ATTRIBUTES = frozenset({"data", "T", "mT", "H", "mH", "real", "imag"})
#: Attributes through which a store reaches every attribute of the object:
#: ``o.__dict__[k] = v`` stores one, and ``o.__class__ = C`` changes what
#: every attribute load and store of ``o`` runs (``C``'s properties,
#: its ``__setattr__``).
NAMESPACE_ATTRIBUTES = frozenset({"__dict__", "__class__"})


def _having(flag: int, without: int = 0) -> frozenset[str]:
    return frozenset(
        name for name, flags in METHODS.items() if flags & flag and not flags & without
    )


#: In-place methods that overwrite every element regardless of its old value.
OVERWRITING_METHODS = _having(OVERWRITES)
#: Methods whose result (or the receiver afterwards) depends on the current
#: elements and is not the receiver itself: in-place accumulation,
#: reductions, copies out of the tensor, elementwise arithmetic.
READING_METHODS = _having(READS, without=CONVERTS)
#: Conversions that may return the receiver itself (``x.to(d)``).
CONVERSION_METHODS = _having(CONVERTS)
#: Methods that see only metadata.
METADATA_METHODS = _having(METADATA, without=READS | UNDEFINED | ALIASES)
#: Methods that copy to the host, synchronizing with the device.
SYNC_METHODS = _having(SYNCS)
#: In-place methods that make the receiver share another tensor's memory
#: (``x.set_(buf)``: ``x`` is then a view of ``buf``'s storage).
SHARING_IN_PLACE_METHODS = frozenset({"set_"})
#: Methods that change nothing and return a value sharing nothing with the receiver.
FRESH_METHODS = frozenset(
    name
    for name, flags in METHODS.items()
    if not flags & (WRITES | ALIASES | ACCUMULATES_GRAD | MUTATES_OTHER_TYPES)
)
#: Methods that change nothing but whose result may share memory with the receiver.
VIEW_METHODS = _having(ALIASES, without=WRITES | MUTATES_OTHER_TYPES)
#: Methods that change nothing.
NO_EFFECT_METHODS = FRESH_METHODS | VIEW_METHODS
#: Methods that change nothing and whose result is a function of what they read.
DETERMINISTIC_METHODS = frozenset(
    name for name in NO_EFFECT_METHODS if not METHODS[name] & UNDEFINED
)
#: Methods that change the ``.grad`` of tensors they are not called on.
GRADIENT_METHODS = _having(ACCUMULATES_GRAD)


def is_inplace_method(name: str) -> bool:
    """PyTorch's convention: ``add_``, ``copy_``, ``fill_`` change their receiver."""
    return name.endswith("_") and not name.startswith("__")


#: torch's functions that run code they are given: ``torch.save(obj, f)``
#: calls ``f.write`` (and what pickling ``obj`` runs), ``torch.load(f)``
#: ``f.read`` and what unpickling runs, ``torch.cond`` its branches.
RUNNING_CODE_FUNCTIONS = frozenset({"torch.save", "torch.load", "torch.cond"})
#: torch's functions written in Python that call their argument's own
#: methods or attributes by name when it is no tensor (``torch.split(o, 2)``
#: is ``o.split(2)``), found by calling each of ``torch.functional`` with an
#: object recording what is asked of it: where a class of the module binds
#: one of these names, the call may run the module's code.
DUCK_CALLS: dict[str, tuple[str, ...]] = {
    "torch.split": ("split",),
    "torch.norm": ("dim", "layout"),
    "torch.stft": ("dim",),
    "torch.istft": ("dim",),
    "torch.tensordot": ("dim",),
    "torch.pca_lowrank": ("shape",),
    "torch.svd_lowrank": ("shape",),
    "torch.unravel_index": ("dtype", "is_complex", "is_floating_point"),
    "torch.lobpcg": ("requires_grad", "mT"),
}
#: torch's functions that iterate an argument of any kind (``torch.Size(g)``
#: runs a generator ``g``'s code); the others take sequences only.
ITERATING_FUNCTIONS = frozenset({"torch.Size"})
#: In-place methods that call a function they are given, once per element
#: (``x.apply_(f)``, ``x.map_(y, f)``): that function's code runs there.
CALLING_METHODS = frozenset({"apply_", "map_", "map2_"})


#: The dtypes torch names as attributes (``torch.int32``): an expression
#: naming one of them is a dtype, never None.
DTYPE_NAMES = frozenset(
    {
        "bool",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "int8",
        "int16",
        "int32",
        "int64",
        "short",
        "int",
        "long",
        "float16",
        "half",
        "bfloat16",
        "float32",
        "float",
        "float64",
        "double",
        "complex32",
        "chalf",
        "complex64",
        "cfloat",
        "complex128",
        "cdouble",
        "float8_e4m3fn",
        "float8_e4m3fnuz",
        "float8_e5m2",
        "float8_e5m2fnuz",
    }
)


# --------------------------------------------------------------------------- functions

#: Namespaces whose functions follow PyTorch's ``out=`` contract: the
#: ``out`` tensor is resized to the result and every element written.
_OUT_CONTRACT_NAMESPACES = frozenset(
    {"torch", "torch.linalg", "torch.special", "torch.fft", "torch.nn.functional"}
)
#: ... except those that allocate without writing.
_UNINITIALIZED = frozenset(
    {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty"}
)


def honours_out_contract(qualified: str) -> bool:
    """Whether ``out=`` of the function ``qualified`` is resized and written
    whole: a function of torch's own namespaces (``torch.mul``,
    ``torch.linalg.norm``) or an ATen operator (``torch.ops.aten.mul.out``),
    not an allocator of uninitialized memory. A custom operator
    (``torch.ops.mylib.kernel``) writes what its kernel writes: attention
    kernels leave padding rows of ``out`` alone."""
    parts = qualified.split(".")
    if len(parts) >= 4 and parts[0] == "torch" and parts[1] == "ops":
        return parts[2] == "aten" and parts[3] not in _UNINITIALIZED
    module, _, name = qualified.rpartition(".")
    return (
        module in _OUT_CONTRACT_NAMESPACES
        and not name.startswith("_")
        and name not in _UNINITIALIZED
    )


#: Namespaces whose public functions leave their arguments alone unless
#: ``ARGUMENT_WRITES`` says otherwise, their name ends in ``_``, or they are
#: given ``out=``.
PURE_NAMESPACES = frozenset({"torch", "torch.nn.functional"})

# How a function changes its arguments: (written arguments, flag, when).
# Each argument is (position, keyword). The flag is (position, keyword,
# default) or None when the arguments are written whenever they are passed;
# ``when`` is "true" (written when the flag is true) or "given" (when it is
# not None).
_INPUT = ((0, "input"),)


def _inplace(position: int) -> tuple:
    return (_INPUT, (position, "inplace", False), "true")


ARGUMENT_WRITES: dict[str, tuple] = {
    # ``inplace=True``, by keyword or by position
    "torch.nn.functional.relu": _inplace(1),
    "torch.nn.functional.relu6": _inplace(1),
    "torch.nn.functional.selu": _inplace(1),
    "torch.nn.functional.silu": _inplace(1),
    "torch.nn.functional.mish": _inplace(1),
    "torch.nn.functional.hardswish": _inplace(1),
    "torch.nn.functional.hardsigmoid": _inplace(1),
    "torch.nn.functional.elu": _inplace(2),
    "torch.nn.functional.celu": _inplace(2),
    "torch.nn.functional.leaky_relu": _inplace(2),
    "torch.nn.functional.hardtanh": _inplace(3),
    "torch.nn.functional.threshold": _inplace(3),
    "torch.nn.functional.dropout": _inplace(3),
    "torch.nn.functional.dropout1d": _inplace(3),
    "torch.nn.functional.dropout2d": _inplace(3),
    "torch.nn.functional.dropout3d": _inplace(3),
    "torch.nn.functional.alpha_dropout": _inplace(3),
    "torch.nn.functional.feature_alpha_dropout": _inplace(3),
    "torch.nn.functional.rrelu": _inplace(4),
    # ``out`` by position
    "torch.nn.functional.normalize": (((4, "out"),), None, "given"),
    "torch.norm": (((4, "out"),), None, "given"),
    "torch.tensordot": (((3, "out"),), None, "given"),
    "torch.fbgemm_linear_fp16_weight": (((3, "output"),), None, "given"),
    "torch.fbgemm_linear_fp16_weight_fp32_activation": (
        ((3, "output"),),
        None,
        "given",
    ),
    # running statistics updated in training
    "torch.nn.functional.batch_norm": (
        ((1, "running_mean"), (2, "running_var")),
        (5, "training", False),
        "true",
    ),
    "torch.nn.functional.instance_norm": (
        ((1, "running_mean"), (2, "running_var")),
        (5, "use_input_stats", True),
        "true",
    ),
    "torch.batch_norm": (
        ((3, "running_mean"), (4, "running_var")),
        (5, "training", True),
        "true",
    ),
    "torch.instance_norm": (
        ((3, "running_mean"), (4, "running_var")),
        (5, "use_input_stats", True),
        "true",
    ),
    "torch.native_batch_norm": (
        ((3, "running_mean"), (4, "running_var")),
        (5, "training", True),
        "true",
    ),
    "torch.cudnn_batch_norm": (
        ((3, "running_mean"), (4, "running_var")),
        (5, "training", True),
        "true",
    ),
    "torch.miopen_batch_norm": (
        ((3, "running_mean"), (4, "running_var")),
        (5, "training", True),
        "true",
    ),
    "torch.fused_moving_avg_obs_fake_quant": (
        ((3, "running_min"), (4, "running_max"), (5, "scale"), (6, "zero_point")),
        None,
        "given",
    ),
    # rows of the weight renormalized in place
    "torch.nn.functional.embedding": (((1, "weight"),), (3, "max_norm", None), "given"),
    "torch.nn.functional.embedding_bag": (
        ((1, "weight"),),
        (3, "max_norm", None),
        "given",
    ),
}

#: Functions that accumulate into the ``.grad`` of tensors not passed to them.
GRADIENT_FUNCTIONS = frozenset({"torch.autograd.backward"})


def written_arguments(qualified: str, call: ast.Call) -> list[ast.expr] | None:
    """The arguments of ``call`` (a call of the function ``qualified``) that it
    may change in place; None when the function is not known to leave the
    others alone (it is outside ``PURE_NAMESPACES``, private, in place by its
    name, or its arguments cannot be matched: ``*args``, ``**kwargs``)."""
    module, _, name = qualified.rpartition(".")
    if module not in PURE_NAMESPACES or name.startswith("_") or name.endswith("_"):
        return None
    if qualified in RUNNING_CODE_FUNCTIONS:
        return None
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
        keyword.arg is None for keyword in call.keywords
    ):
        return None
    written: list[ast.expr] = [kw.value for kw in call.keywords if kw.arg == "out"]
    entry = ARGUMENT_WRITES.get(qualified)
    if entry is None:
        if any(kw.arg == "inplace" for kw in call.keywords):
            return None  # an ``inplace`` flag this table does not know
        return written
    arguments, flag, when = entry
    if flag is not None:
        position, keyword, default = flag
        value = _argument(call, position, keyword)
        if value is None:
            active = default is not None and default is not False
        elif isinstance(value, ast.Constant):
            active = value.value is not None if when == "given" else bool(value.value)
        else:
            active = True  # not a literal: it may be set
        if not active:
            return written
    for position, keyword in arguments:
        value = _argument(call, position, keyword)
        if value is not None:
            written.append(value)
    return written


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if position < len(call.args):
        return call.args[position]
    return next((kw.value for kw in call.keywords if kw.arg == keyword), None)


# --------------------------------------------------------------------------- context managers

#: Context managers (made by calling these) whose ``__exit__`` never swallows
#: an exception raised in the ``with`` body. Any other may (``suppress``, a
#: class whose ``__exit__`` returns True): its body may not finish.
NON_SWALLOWING_MANAGERS = frozenset(
    {
        "torch.no_grad",
        "torch.enable_grad",
        "torch.inference_mode",
        "torch.set_grad_enabled",
        "torch.autocast",
        "torch.amp.autocast",
        "torch.cuda.amp.autocast",
        "torch.cpu.amp.autocast",
        "torch.device",
        "torch.cuda.device",
        "torch.cuda.stream",
        "torch.cuda.graph",
        "torch.profiler.record_function",
        "torch.autograd.profiler.record_function",
        "contextlib.nullcontext",
    }
)

#: Context managers that set autograd's mode for their body: an in-place
#: change that raises outside them (of a leaf that requires grad, of an
#: inference tensor) may not raise inside, and the other way round.
GRAD_MODE_MANAGERS = frozenset(
    {
        "torch.no_grad",
        "torch.enable_grad",
        "torch.inference_mode",
        "torch.set_grad_enabled",
        "torch.autograd.no_grad",
        "torch.autograd.enable_grad",
        "torch.autograd.inference_mode",
        "torch.autograd.set_grad_enabled",
        "torch.autograd.grad_mode.no_grad",
        "torch.autograd.grad_mode.enable_grad",
        "torch.autograd.grad_mode.inference_mode",
        "torch.autograd.grad_mode.set_grad_enabled",
    }
)
#: Context managers that change no global mode a tensor operation reads
#: (grad mode, autocast, the default dtype or device): a value computed in
#: their body is the one computed outside.
MODE_NEUTRAL_MANAGERS = frozenset(
    {
        "contextlib.nullcontext",
        "contextlib.suppress",
        "torch.profiler.record_function",
        "torch.autograd.profiler.record_function",
    }
)
#: torch's functions that set a global mode later tensor operations read
#: (every ``torch.set_*`` and ``torch.use_*`` of torch 2.13, and autocast's
#: nesting; the backends' flags: ``torch.backends.mkldnn.set_flags(False)``
#: changes what a CPU convolution computes, ``enable_flash_sdp`` the
#: kernel of attention; the current device, ``torch.cuda.set_device``):
#: by these names, with any receiver, they tell that a module's own code
#: may change a mode (``module_sets_torch_modes``).
MODE_SETTER_NAMES = frozenset(
    {
        "set_anomaly_enabled",
        "set_autocast_cache_enabled",
        "set_autocast_cpu_dtype",
        "set_autocast_cpu_enabled",
        "set_autocast_dtype",
        "set_autocast_enabled",
        "set_autocast_gpu_dtype",
        "set_autocast_ipu_dtype",
        "set_autocast_ipu_enabled",
        "set_autocast_xla_dtype",
        "set_autocast_xla_enabled",
        "set_default_device",
        "set_default_dtype",
        "set_default_tensor_type",
        "set_deterministic_debug_mode",
        "set_detect_anomaly",
        "set_float32_matmul_precision",
        "set_flush_denormal",
        "set_grad_enabled",
        "set_num_interop_threads",
        "set_num_threads",
        "set_printoptions",
        "set_rng_state",
        "set_warn_always",
        "use_deterministic_algorithms",
        "clear_autocast_cache",
        "autocast_increment_nesting",
        "autocast_decrement_nesting",
        "enter_autocast",
        "exit_autocast",
        "set_flags",
        "set_device",
        "set_fastpath_enabled",
        "enable_cudnn_sdp",
        "enable_flash_sdp",
        "enable_math_sdp",
        "enable_mem_efficient_sdp",
        "allow_fp16_bf16_reduction_math_sdp",
        "preferred_blas_library",
        "preferred_linalg_library",
        "preferred_rocm_fa_library",
    }
)
#: How the names of torch's mode setters outside ``torch`` itself begin
#: (``torch.backends.cuda.enable_flash_sdp``, ``torch.cuda.set_device``).
_MODE_SETTER_PREFIXES = ("set_", "use_", "enable_", "disable_", "preferred_", "allow_")


def sets_global_mode(qualified: str) -> bool:
    """Whether the torch function ``qualified`` changes a global mode that
    later tensor operations read: ``torch.set_grad_enabled`` (whether
    results require grad), ``torch.set_default_dtype`` (``x / 3`` of
    integers), ``torch.set_flush_denormal``, ``torch.set_num_threads`` (the
    order a reduction adds in), ``torch.use_deterministic_algorithms``
    (what ``torch.empty`` holds); any ``torch.set_*`` or ``torch.use_*``.
    Not ``torch.manual_seed``: no random result is taken for the same value
    twice. The vocabulary takes torch's functions for ones that change only
    their ``out``: these change no tensor, but a value computed before one
    is not the value computed after.

    So does a function of torch's other modules named so: the backends'
    flags (``torch.backends.mkldnn.set_flags(False)``: a CPU convolution
    computes another value; ``torch.backends.cuda.enable_flash_sdp``), the
    current device (``torch.cuda.set_device``: where ``device="cuda"``
    allocates), ``torch.autograd.set_grad_enabled``."""
    module, _, name = qualified.rpartition(".")
    if module in PURE_NAMESPACES:
        return name.startswith(("set_", "use_")) or name in MODE_SETTER_NAMES
    if not module.startswith("torch."):
        return False
    name = name.lstrip("_")
    return name.startswith(_MODE_SETTER_PREFIXES) or name in MODE_SETTER_NAMES


#: Attributes and functions that read what grad or inference mode decided
#: (``(x * 2).requires_grad`` is False under ``torch.no_grad()``): a value
#: made with one depends on those modes, even a Python number.
GRAD_MODE_READERS = frozenset(
    {
        "requires_grad",
        "grad_fn",
        "is_leaf",
        "is_inference",
        "output_nr",
        "_version",
        "is_grad_enabled",
        "is_inference_mode_enabled",
    }
)


#: The grad-mode setter among them: it changes whether results require grad,
#: not their values.
GRAD_MODE_SETTERS = frozenset({"torch.set_grad_enabled"})


#: Context managers that capture the kernels their body launches into a CUDA
#: graph instead of running them: a write there happens at each replay, not
#: before the code after the ``with``, and not in order with the code outside.
CAPTURE_MANAGERS = frozenset({"torch.cuda.graph", "torch.cuda.graphs.graph"})


# --------------------------------------------------------------------------- collectives

#: ``torch.distributed`` collectives whose output tensor is written whole on
#: every rank when the call returns: (position, keyword) of that output.
#: ``all_gather_into_tensor`` concatenates every rank's input into it,
#: ``reduce_scatter_tensor`` and ``reduce_scatter`` write each rank's reduced
#: chunk into it, ``all_to_all_single`` concatenates the chunks received
#: (their sizes must add up to its first dimension), ``recv`` fills it, and
#: ``scatter`` stores in it, on every rank the source's included, the
#: tensor of the source's ``scatter_list`` meant for that rank ("Each
#: process will receive exactly one tensor and store its data in the
#: ``tensor`` argument"; a size that differs raises).
#: Not here: ``broadcast`` and ``all_reduce`` (their tensor is read, on the
#: source rank or on all), ``gather`` (its ``gather_list`` is written on the
#: destination rank only), the ``isend``/``irecv`` family (asynchronous).
COLLECTIVE_OUTPUTS: dict[str, tuple[int, str]] = {
    "torch.distributed.all_gather_into_tensor": (0, "output_tensor"),
    "torch.distributed.reduce_scatter_tensor": (0, "output"),
    "torch.distributed.reduce_scatter": (0, "output"),
    "torch.distributed.all_to_all_single": (0, "output"),
    "torch.distributed.recv": (0, "tensor"),
    "torch.distributed.scatter": (0, "tensor"),
}
#: Collectives whose output is a list of tensors each written whole on every
#: rank when the call returns: (position, keyword) of that list.
#: ``all_gather`` stores rank i's input in the list's i-th tensor ("Output
#: list. It should contain correctly-sized tensors to be used for output of
#: the collective"), ``all_to_all`` the tensor rank i sends this rank ("List
#: of tensors to be gathered one per rank"); a size that differs raises. A
#: tensor (or a tuple) given there raises a ``TypeError`` before anything is
#: written or read, so the rules may take the list's place for a full write
#: of whatever is passed: what carries on is a list, every tensor of it
#: written. Not here: ``gather``'s ``gather_list``, which is written on the
#: destination rank only (on the others torch refuses a list that is not
#: empty, but ``gather_list = [...] if rank == dst else None`` is how it is
#: called, and nothing in the documentation promises the refusal).
COLLECTIVE_LIST_OUTPUTS: dict[str, tuple[int, str]] = {
    "torch.distributed.all_gather": (0, "tensor_list"),
    "torch.distributed.all_to_all": (0, "output_tensor_list"),
}
#: The position and keyword of ``async_op`` in each collective with one.
_ASYNC_OP = {
    "torch.distributed.all_gather_into_tensor": 3,
    "torch.distributed.reduce_scatter_tensor": 4,
    "torch.distributed.reduce_scatter": 4,
    "torch.distributed.all_to_all_single": 5,
    "torch.distributed.scatter": 4,
    "torch.distributed.all_gather": 3,
    "torch.distributed.all_to_all": 3,
}


#: The position of ``group`` in each collective (keyword ``group``).
_GROUP = {
    "torch.distributed.all_gather_into_tensor": 2,
    "torch.distributed.reduce_scatter_tensor": 3,
    "torch.distributed.reduce_scatter": 3,
    "torch.distributed.all_to_all_single": 4,
    "torch.distributed.recv": 2,
    "torch.distributed.scatter": 3,
    "torch.distributed.all_gather": 2,
    "torch.distributed.all_to_all": 2,
}


def collective_in_a_group(qualified: str, call: ast.Call) -> bool:
    """Whether ``call`` of the collective ``qualified`` may run in a group
    other than the default one (a ``group`` that is not ``None``, or
    ``*args``/``**kwargs`` that may give one): on a rank outside that group
    (``dist.new_group(ranks)`` gives such a rank ``NON_GROUP_MEMBER``) the
    collective returns without writing its output."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
        keyword.arg is None for keyword in call.keywords
    ):
        return True
    group = _argument(call, _GROUP.get(qualified, len(call.args)), "group")
    return group is not None and not (
        isinstance(group, ast.Constant) and group.value is None
    )


def collective_output(qualified: str, call: ast.Call) -> tuple[int, str] | None:
    """Where the output of the collective ``qualified`` (a tensor, or a list
    of tensors each written whole) is passed, when ``call`` certainly
    returns with it written: not with ``async_op`` set
    (the write then happens later, at ``wait()``) or ``*args``/``**kwargs``
    that may set it."""
    output = COLLECTIVE_OUTPUTS.get(qualified) or COLLECTIVE_LIST_OUTPUTS.get(qualified)
    if output is None:
        return None
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
        keyword.arg is None for keyword in call.keywords
    ):
        return None
    position = _ASYNC_OP.get(qualified)
    if position is not None:
        flag = _argument(call, position, "async_op")
        if flag is not None and not (
            isinstance(flag, ast.Constant) and flag.value is False
        ):
            return None
    return output


#: Factories whose result lives where ``device=`` says: in (pageable) host
#: memory without it, pinned only with ``pin_memory=True`` (ATN203, ATN205).
HOST_FACTORIES = frozenset(
    {
        "torch.tensor",
        "torch.as_tensor",
        "torch.zeros",
        "torch.ones",
        "torch.empty",
        "torch.full",
        "torch.arange",
        "torch.linspace",
        "torch.randn",
        "torch.rand",
        "torch.randint",
    }
)
