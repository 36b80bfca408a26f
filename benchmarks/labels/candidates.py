"""Every candidate site for the zero-fill and host-sync labels, found mechanically.

    python -m benchmarks.labels.candidates --set dev|heldout [--counts]

The labels in this folder are written by reading the code around each site this
finder lists; the finder only decides *where to look*, generously, so that a
site missing from the labels is a site nobody looked at, not one a person
skipped. It reads each file with ``ast`` and records calls and expressions by
their spelling (no types, no imports followed), so the same run on the same
files always lists the same sites.

Zero-fill family (``family = "zero_fill"``):

- ``zeros``, ``zeros_like``, ``new_zeros``: any call whose callee is a name or
  attribute spelled so (``torch.zeros``, ``x.new_zeros``, ``zeros`` imported).
- ``full``, ``full_like``, ``new_full``, ``fill_``: the same, with the fill
  value recorded when it is a literal (``fill_value``); ``None`` otherwise.
- ``zero_``: ``x.zero_()``.

Host-sync family (``family = "host_sync"``):

- ``item``, ``tolist``, ``cpu``, ``numpy``: method calls so named.
- ``to_cpu``: ``.to(...)`` with ``"cpu"`` (or ``torch.device("cpu")``) as an
  argument or as ``device=``; ``to``: every other ``.to(...)`` except one whose
  only arguments are dtypes (``torch.int32``, a name ending in ``dtype``);
  ``cuda``: ``.cuda(...)``. A ``.to``/``.cuda``/``copy_`` with
  ``non_blocking=`` anything but the constant ``False`` is ``non_blocking``
  instead (one candidate per call).
- ``tensor_on_device``: ``torch.tensor(...)``/``torch.as_tensor(...)`` given a
  ``device=`` other than ``"cpu"`` (a blocking host-to-device copy).
- ``int``, ``float``, ``bool``: the builtins called on anything but a literal.
- ``builtin_on_tensor``: ``max``, ``min``, ``sum``, ``abs``, ``round``,
  ``range``, ``list``, ``tuple``, ``sorted``, ``any``, ``all`` called with a
  tensor-looking argument (below).
- ``truth_test``: a tensor-looking expression used for its truth value: the
  test of ``if``/``while``/``assert``/a conditional expression/a comprehension
  filter, an operand of ``and``/``or``/``not`` anywhere, split through
  ``and``/``or``/``not``. A comparison counts when any operand looks like a
  tensor, unless every operator is ``is``/``is not``/``in``/``not in``.
- ``equal``: ``torch.equal``/``torch.allclose``/``x.equal(...)``.
- ``nonzero``, ``argwhere``, ``unique``, ``unique_consecutive``,
  ``masked_select``, ``repeat_interleave`` (without ``output_size=``),
  ``where1`` (``torch.where`` with one argument): calls so named.
- ``bool_mask_index``: a subscript (read or write) whose index, or an element of
  it, is a comparison, ``~x``, ``a & b``/``a | b``/``a ^ b``, a name bound in the
  function to one of those or to a boolean-producing call, or a name or
  attribute whose name contains ``mask``.
- ``tensor_as_size``: a ``torch`` factory (``empty``, ``zeros``, ``full``,
  ``arange``...) or ``new_*`` given a tensor-looking size or fill value: read
  on the host to size the allocation (the call may also be a zero fill).
- ``tensor_slice_bound``: a subscript with a slice bound that looks like a
  tensor (``x[:n]`` where ``n = indptr[-1]``): the bound is read on the host.
- ``synchronize``: any call of ``.synchronize()`` or ``synchronize()``.

Device code (a function decorated ``@triton.jit``, ``@cute.kernel``, any
``*.jit``/``*.kernel``/``njit``/``autotune``/``heuristics``) is skipped: its
``zeros`` and ``.to()`` are kernel-language operations, not PyTorch calls.

"Tensor-looking" (a deliberately generous guess, written down so it can be
audited): a call of a ``torch.*`` function other than the introspection ones
listed in ``NOT_TENSOR_TORCH``; a call of a method in ``TENSOR_METHODS``;
arithmetic, a comparison, a ``~`` or a subscript with a tensor-looking operand;
a name bound in the same function to a tensor-looking value or a parameter
annotated ``Tensor``; ``self.X`` where the class assigns ``self.X`` a
tensor-looking value somewhere.

What it cannot see (and so what no label covers): syncs hidden in calls to
other modules, ``print``/f-strings of tensors, iteration over a tensor, and
truth tests of tensors that reach a test through attributes of other objects
(``if batch.mask:``) without a tensor-looking spelling.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

ZERO_FILL_KINDS = (
    "zeros",
    "zeros_like",
    "new_zeros",
    "full",
    "full_like",
    "new_full",
    "fill_",
    "zero_",
)
SIMPLE_SYNC_METHODS = ("item", "tolist", "cpu", "numpy")
NAMED_SYNC_CALLS = (
    "nonzero",
    "argwhere",
    "unique",
    "unique_consecutive",
    "masked_select",
)
CONVERSION_BUILTINS = ("int", "float", "bool")
SIZED_FACTORIES = frozenset(
    """
    empty zeros ones full arange rand randn randint empty_strided new_empty
    new_zeros new_ones new_full
    """.split()
)
TENSOR_BUILTINS = (
    "max",
    "min",
    "sum",
    "abs",
    "round",
    "range",
    "list",
    "tuple",
    "sorted",
    "any",
    "all",
)
TENSOR_METHODS = frozenset(
    """
    any all sum max min amax amin mean prod eq ne gt lt ge le isnan isinf
    isfinite abs logical_and logical_or logical_not logical_xor count_nonzero
    bool diff cumsum argmax argmin std var norm sub add mul div float int long
    half to clone contiguous view reshape squeeze unsqueeze flatten sqrt exp
    clamp masked_fill where index_select gather expand narrow cuda
    """.split()
)
# torch.* calls that return something other than a tensor.
NOT_TENSOR_TORCH = frozenset(
    """
    is_tensor is_floating_point is_complex is_grad_enabled is_inference_mode_enabled
    get_default_dtype get_device device dtype Size finfo iinfo no_grad
    inference_mode enable_grad set_grad_enabled compile cond
    """.split()
)
NOT_TENSOR_TORCH_MODULES = frozenset(
    """
    cuda distributed compiler _dynamo jit version backends library
    _inductor utils fx testing profiler hub xpu npu mps accelerator
    """.split()
)
BOOLEAN_CALLS = frozenset(
    """
    bool eq ne gt lt ge le isin logical_and logical_or logical_not logical_xor
    isnan isinf isfinite
    """.split()
)


class Candidate(NamedTuple):
    file: str
    line: int
    end_line: int
    col: int
    qualname: str
    family: str
    kind: str
    call: str
    fill_value: object = None

    @property
    def key(self) -> str:
        return f"{self.file}:{self.line}:{self.col}:{self.kind}"


def dotted(node: ast.expr) -> str | None:
    """``torch.cuda.synchronize`` for the callee's attribute chain, if it is one."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def callee_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def callee_spelling(call: ast.Call) -> str:
    """What the finder records as ``call``: ``torch.zeros``, or ``.zero_``."""
    name = dotted(call.func)
    if name is not None and (
        not isinstance(call.func, ast.Attribute) or name.startswith("torch.")
    ):
        return name
    return "." + (callee_name(call) or "?")


def literal(node: ast.expr | None) -> object:
    """A constant's value (``-1`` included); None when not a literal."""
    if isinstance(node, ast.Constant) and isinstance(
        node.value, (int, float, bool, str)
    ):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, (int, float))
    ):
        return -node.operand.value
    if isinstance(node, ast.Attribute) and dotted(node) in ("math.inf", "float.inf"):
        return float("inf")
    return None


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for item in call.keywords:
        if item.arg == name:
            return item.value
    return None


def fill_value_of(call: ast.Call, kind: str) -> object:
    position = {"full": 1, "full_like": 1, "new_full": 1, "fill_": 0}[kind]
    value = keyword(call, "fill_value") or keyword(call, "value")
    if value is None and len(call.args) > position:
        value = call.args[position]
    return literal(value)


def is_cpu_device(node: ast.expr) -> bool:
    value = literal(node)
    if isinstance(value, str):
        return value == "cpu" or value.startswith("cpu:")
    if isinstance(node, ast.Call) and dotted(node.func) == "torch.device":
        return bool(node.args) and is_cpu_device(node.args[0])
    return False


DTYPE_NAMES = frozenset(
    """
    float16 float32 float64 bfloat16 half float double int8 int16 int32 int64
    uint8 uint16 uint32 uint64 bool long int float8_e4m3fn float8_e4m3fnuz
    float8_e5m2 float8_e5m2fnuz float4_e2m1fn_x2 uint4 int4 complex64
    """.split()
)


def looks_like_dtype(node: ast.expr) -> bool:
    name = dotted(node)
    if name is None:
        return False
    last = name.rsplit(".", 1)[-1]
    return last in DTYPE_NAMES or last.endswith("dtype")


def is_device_code(function: ast.AST) -> bool:
    """A kernel body (``@triton.jit``, ``@cute.kernel``, ``@numba.njit``...)."""
    for decorator in getattr(function, "decorator_list", []):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = dotted(target) or ""
        last = name.rsplit(".", 1)[-1]
        if last in ("jit", "njit", "kernel", "autotune", "heuristics") or (
            name.startswith(("triton.", "tl.", "cute.", "tilelang."))
        ):
            return True
    return False


class TensorGuess:
    """The generous "looks like a tensor" guess, per function."""

    def __init__(self, self_tensor_attrs: frozenset[str]):
        self.self_tensor_attrs = self_tensor_attrs
        self.names: set[str] = set()
        self.boolean_names: set[str] = set()

    def torch_call(self, call: ast.Call) -> bool:
        name = dotted(call.func)
        if name is None or not name.startswith("torch."):
            return False
        parts = name.split(".")
        if len(parts) > 2 and parts[1] in NOT_TENSOR_TORCH_MODULES:
            return False
        return parts[-1] not in NOT_TENSOR_TORCH

    def tensorish(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Call):
            if self.torch_call(node):
                return True
            func = node.func
            return isinstance(func, ast.Attribute) and func.attr in TENSOR_METHODS
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Attribute):
            return (
                isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and node.attr in self.self_tensor_attrs
            )
        if isinstance(node, ast.Subscript):
            return self.tensorish(node.value)
        if isinstance(node, ast.BinOp):
            return self.tensorish(node.left) or self.tensorish(node.right)
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self.tensorish(node.operand)
        if isinstance(node, ast.Compare):
            return any(self.tensorish(x) for x in [node.left, *node.comparators])
        return False

    def booleanish(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Compare):
            return not all(
                isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn))
                for op in node.ops
            )
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            return True
        if isinstance(node, ast.BinOp) and isinstance(
            node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)
        ):
            return True
        if isinstance(node, ast.Call):
            return callee_name(node) in BOOLEAN_CALLS
        if isinstance(node, ast.Name):
            return node.id in self.boolean_names or "mask" in node.id.lower()
        if isinstance(node, ast.Attribute):
            return "mask" in node.attr.lower()
        return False

    def learn(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """Bindings of the function (in source order, two rounds for loops)."""
        for argument in [
            *function.args.posonlyargs,
            *function.args.args,
            *function.args.kwonlyargs,
        ]:
            annotation = argument.annotation
            if annotation is not None and "Tensor" in ast.unparse(annotation):
                self.names.add(argument.arg)
        for _ in range(2):
            for node in walk_own(function):
                targets: list[ast.expr] = []
                value: ast.expr | None = None
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                    targets, value = [node.target], node.value
                elif isinstance(node, ast.NamedExpr):
                    targets, value = [node.target], node.value
                if value is None:
                    continue
                tensor = self.tensorish(value)
                boolean = self.booleanish(value) and not isinstance(value, ast.Name)
                for target in targets:
                    if (
                        tensor
                        and isinstance(target, ast.Subscript)
                        and isinstance(target.value, ast.Name)
                    ):
                        self.names.add(target.value.id)  # x[1:] = torch.cumsum(...)
                    if isinstance(target, ast.Name):
                        if tensor:
                            self.names.add(target.id)
                        if boolean:
                            self.boolean_names.add(target.id)


def walk_own(owner: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a body, not entering nested functions or classes.

    A function's or class's own header (decorators, defaults, bases) is not part
    of its body, and annotations are never run as code here: both are skipped.
    """
    if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        stack: list[ast.AST] = list(owner.body)
    else:
        stack = list(ast.iter_child_nodes(owner))
    while stack:
        node = stack.pop(0)
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # a lambda's body is walked: it runs where it is called
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.AnnAssign):
            children = [c for c in children if c is not node.annotation]
        elif isinstance(node, ast.arg):
            children = []
        stack[0:0] = children


def self_tensor_attributes(cls: ast.ClassDef) -> frozenset[str]:
    guess = TensorGuess(frozenset())
    found: set[str] = set()
    for node in ast.walk(cls):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is None or not guess.tensorish(node.value):
                continue
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    found.add(target.attr)
    return frozenset(found)


class Finder:
    def __init__(self, relpath: str):
        self.relpath = relpath
        self.found: list[Candidate] = []

    def add(
        self,
        node: ast.AST,
        qualname: str,
        family: str,
        kind: str,
        call: str,
        fill_value: object = None,
    ) -> None:
        self.found.append(
            Candidate(
                self.relpath,
                node.lineno,
                node.end_lineno or node.lineno,
                node.col_offset,
                qualname,
                family,
                kind,
                call,
                fill_value,
            )
        )

    # --- scopes -------------------------------------------------------------

    def module(self, tree: ast.Module) -> None:
        self.scope(tree, "<module>", frozenset())

    def scope(self, owner: ast.AST, qualname: str, self_attrs: frozenset[str]) -> None:
        """Sites directly in ``owner``, then its nested functions and classes."""
        if is_device_code(owner):
            return
        guess = TensorGuess(self_attrs)
        if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)):
            guess.learn(owner)
        nested: list[tuple[ast.AST, str, frozenset[str]]] = []
        for node in walk_own(owner):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                base = "" if qualname == "<module>" else qualname + "."
                nested.append((node, base + node.name, self_attrs))
                self.decorators_and_defaults(node, qualname, guess)
                continue
            if isinstance(node, ast.ClassDef):
                base = "" if qualname == "<module>" else qualname + "."
                nested.append((node, base + node.name, self_tensor_attributes(node)))
                continue
            self.visit(node, qualname, guess)
        for child, name, attrs in nested:
            if isinstance(child, ast.ClassDef):
                for node in child.body:
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.decorators_and_defaults(node, name, TensorGuess(attrs))
                        self.scope(node, f"{name}.{node.name}", attrs)
                    elif isinstance(node, ast.ClassDef):
                        self.scope(node, f"{name}.{node.name}", attrs)
                    else:
                        for inner in [node, *walk_own(node)]:
                            self.visit(inner, name, TensorGuess(attrs))
            else:
                self.scope(child, name, attrs)

    def decorators_and_defaults(
        self, function: ast.AST, qualname: str, guess: TensorGuess
    ) -> None:
        # Decorators and defaults run where the def is, not in its body;
        # walk_own stops at the def, so they are visited here.
        extra: list[ast.expr] = list(getattr(function, "decorator_list", []))
        arguments = getattr(function, "args", None)
        if arguments is not None:
            extra += [d for d in arguments.defaults + arguments.kw_defaults if d]
        for expression in extra:
            for node in [expression, *walk_own(expression)]:
                self.visit(node, qualname, guess)

    # --- sites --------------------------------------------------------------

    def visit(self, node: ast.AST, qualname: str, guess: TensorGuess) -> None:
        if isinstance(node, ast.Call):
            self.call(node, qualname, guess)
        if isinstance(node, (ast.If, ast.While, ast.Assert, ast.IfExp)):
            self.truth(node.test, qualname, guess)
        elif isinstance(node, ast.comprehension):
            for test in node.ifs:
                self.truth(test, qualname, guess)
        elif isinstance(node, ast.BoolOp):
            for value in node.values:
                if not isinstance(value, ast.BoolOp):  # split by truth() otherwise
                    self.truth(value, qualname, guess, split=False)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.truth(node.operand, qualname, guess, split=False)
        elif isinstance(node, ast.Subscript):
            index = node.slice
            parts = index.elts if isinstance(index, ast.Tuple) else [index]
            if any(guess.booleanish(part) for part in parts):
                self.add(node, qualname, "host_sync", "bool_mask_index", "[]")
            bounds = [
                bound
                for part in parts
                if isinstance(part, ast.Slice)
                for bound in (part.lower, part.upper, part.step)
                if bound is not None
            ]
            if any(guess.tensorish(bound) for bound in bounds):
                self.add(node, qualname, "host_sync", "tensor_slice_bound", "[:]")

    def truth(
        self, test: ast.expr, qualname: str, guess: TensorGuess, split: bool = True
    ) -> None:
        if isinstance(test, ast.BoolOp):
            return  # visit() handles each operand where it meets the BoolOp
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return  # visit() handles the operand of every `not`
        if isinstance(test, ast.Compare) and all(
            isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in test.ops
        ):
            return
        if guess.tensorish(test):
            self.add(test, qualname, "host_sync", "truth_test", "<test>")

    def call(self, call: ast.Call, qualname: str, guess: TensorGuess) -> None:
        name = callee_name(call)
        if name is None:
            return
        spelled = callee_spelling(call)
        is_method = isinstance(call.func, ast.Attribute)
        dotted_name = dotted(call.func) or ""
        if name in SIZED_FACTORIES and (
            dotted_name.startswith("torch.") or name.startswith("new_")
        ):
            sizes = [*call.args, *(k.value for k in call.keywords if k.arg == "size")]
            if name in ("full", "new_full"):
                sizes += [k.value for k in call.keywords if k.arg == "fill_value"]
            sizes += [
                element
                for size in sizes
                if isinstance(size, (ast.Tuple, ast.List))
                for element in size.elts
            ]
            if any(guess.tensorish(size) for size in sizes):
                self.add(call, qualname, "host_sync", "tensor_as_size", spelled)
        if name in ZERO_FILL_KINDS:
            value = None
            if name in ("full", "full_like", "new_full", "fill_"):
                value = fill_value_of(call, name)
            self.add(call, qualname, "zero_fill", name, spelled, value)
            return
        non_blocking = keyword(call, "non_blocking")
        if non_blocking is not None and literal(non_blocking) is not False:
            self.add(call, qualname, "host_sync", "non_blocking", spelled)
            return
        if is_method and name in SIMPLE_SYNC_METHODS:
            self.add(call, qualname, "host_sync", name, spelled)
        elif is_method and name == "to":
            arguments = [*call.args, *(k.value for k in call.keywords)]
            if any(is_cpu_device(a) for a in arguments):
                self.add(call, qualname, "host_sync", "to_cpu", spelled)
            elif arguments and not all(
                looks_like_dtype(a)
                for a in arguments
                if not isinstance(a, ast.Constant) or a.value is not None
            ):
                self.add(call, qualname, "host_sync", "to", spelled)
        elif is_method and name == "cuda":
            self.add(call, qualname, "host_sync", "cuda", spelled)
        elif dotted_name in ("torch.tensor", "torch.as_tensor"):
            device = keyword(call, "device")
            if device is not None and not is_cpu_device(device):
                self.add(call, qualname, "host_sync", "tensor_on_device", spelled)
        elif isinstance(call.func, ast.Name) and name in CONVERSION_BUILTINS:
            if call.args and literal(call.args[0]) is None:
                self.add(call, qualname, "host_sync", name, spelled)
        elif isinstance(call.func, ast.Name) and name in TENSOR_BUILTINS:
            arguments = [*call.args, *(k.value for k in call.keywords)]
            if any(guess.tensorish(a) for a in arguments):
                self.add(call, qualname, "host_sync", "builtin_on_tensor", spelled)
        elif name in NAMED_SYNC_CALLS:
            self.add(call, qualname, "host_sync", name, spelled)
        elif name in ("equal", "allclose") and (
            is_method or dotted_name.startswith("torch.")
        ):
            self.add(call, qualname, "host_sync", "equal", spelled)
        elif name == "repeat_interleave" and keyword(call, "output_size") is None:
            self.add(call, qualname, "host_sync", "repeat_interleave", spelled)
        elif name == "where" and dotted_name == "torch.where" and len(call.args) == 1:
            self.add(call, qualname, "host_sync", "where1", spelled)
        elif name == "synchronize":
            self.add(call, qualname, "host_sync", "synchronize", spelled)


def candidates_in_source(source: str, relpath: str) -> list[Candidate]:
    finder = Finder(relpath)
    finder.module(ast.parse(source))
    unique = {c.key: c for c in finder.found}
    return sorted(unique.values(), key=lambda c: (c.file, c.line, c.col, c.kind))


def candidates(root: Path, files: list[str]) -> list[Candidate]:
    found: list[Candidate] = []
    for relpath in files:
        source = (root / relpath).read_text(encoding="utf-8")
        found += candidates_in_source(source, relpath)
    return found


def main(argv: list[str] | None = None) -> int:
    from benchmarks.labels.sets import SETS, set_files

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), required=True)
    parser.add_argument("--counts", action="store_true", help="counts per kind")
    args = parser.parse_args(argv)
    root, files = set_files(args.set)
    found = candidates(root, files)
    if args.counts:
        for (family, kind), count in sorted(
            Counter((c.family, c.kind) for c in found).items()
        ):
            print(f"{family:10} {kind:20} {count}")
        print(f"total {len(found)} in {len(files)} files")
        return 0
    for candidate in found:
        print(json.dumps(candidate._asdict()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
