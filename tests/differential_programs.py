"""Random programs in the shapes attnlint's fixes are about, for
tests/differential.py.

``program(seed)`` is a module: helpers that keep, change or raise (a global
buffer, a registry, a class whose ``__str__`` changes a tensor, a context
manager that swallows exceptions), ``make_args()``, and a few entry points
``case_N(x, y, n, i, xs, box, s, w, dt=None)``. Each entry point is one of
the rules' shapes with random parts:

- zeros (or ``full(..., 0)``) then a write (full or partial, through a
  torch function's ``out=``, a custom operator's, an unknown call), maybe in
  a branch, a loop, a ``with``, a ``try``, after a view or alias is taken,
  then returned (ATN101); the writes may go through helpers of the module
  that write their parameter whole, or only sometimes, or after reading or
  keeping it;
- a host sync, code in between (writes through views and view attributes,
  calls that may change tensors, closures, escapes, formatting), the same
  sync again (ATN201);
- a tensor (new, a parameter, a view, the module's buffer) zero-filled in
  place, maybe after a view or alias of it is taken, code in between that
  may read it through another name, then a write, full or partial
  (ATN104);
- an assignment, code in between (aliases, in-place changes), the same
  assignment (ATN202);
- a loop alias (a name, a constant, a sum of names that may or may not be
  numbers, bytes), used in f-strings, in ``try``, after side effects, or not
  at all (ATN301).

``PROGRAMS_FROM_REPRODUCTIONS`` come first: the minimal examples of every
way a safe fix once changed what code computes.
"""

from __future__ import annotations

import random

from tests.differential_reproductions import REPRODUCTIONS

HEADER = """\
import torch
import torch.nn.functional as F
from contextlib import nullcontext, suppress

BUF = torch.arange(6.0)
REGISTRY = []


class Box:
    def __init__(self):
        self.k = 1
        self.t = torch.arange(6.0)


class Loud:
    def __init__(self, t):
        self.t = t

    def __str__(self):
        self.t.add_(1)
        return "loud"


class Swallow:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


def get():
    return BUF


def bump():
    BUF.add_(1)


def register(t):
    REGISTRY.append(t)


def bump_all():
    for t in REGISTRY:
        t.add_(1)


def kernel(t):
    t[0] = 7


def overwrite(t):
    t.fill_(3)


def noop(*args):
    return None


def _fill_from(dst, src):
    dst.copy_(src)


def _fill_via(dst, src):
    _fill_from(dst, src)


def _fill_kw(src, *, out):
    torch.mul(src, 2, out=out)


def _fill_view(dst):
    dst[:] = 4
    return dst


def _fill_if(dst, c):
    if c:
        dst.fill_(1)


def _fill_after_read(dst):
    print(dst.sum())
    dst.fill_(1)


def _fill_after_keep(dst):
    REGISTRY.append(dst)
    dst.fill_(2)


def _fill_rebound(dst, c):
    if c:
        dst = torch.ones(6)
    dst.fill_(5)


def _fill_tried(dst, src):
    try:
        dst.copy_(src)
    except RuntimeError:
        pass


def _fill_gen(dst):
    dst.fill_(1)
    yield


def _fill_rec(dst, k):
    if k:
        _fill_rec(dst, k - 1)
    else:
        dst.fill_(3)


def _fill_half(dst, src):
    dst[: dst.shape[0] // 2] = src[: dst.shape[0] // 2]


def make_args():
    return (
        torch.arange(6.0) - 2,
        torch.arange(6.0) + 1,
        6,
        2,
        [1, 2, 3],
        Box(),
        "ab",
        torch.arange(6.0).reshape(2, 3),
    )
"""

SIGNATURE = "(x, y, n, i, xs, box, s, w, dt=None)"

PROGRAMS_FROM_REPRODUCTIONS = [
    source.lstrip() for _, source in sorted(REPRODUCTIONS.items())
]


# --------------------------------------------------------------------------- parts

_ZEROS = (
    "torch.zeros(n)",
    "torch.zeros(n, dtype=torch.int32)",
    "torch.zeros_like(y)",
    "y.new_zeros(n)",
    "torch.full((n,), 0)",
    "torch.full((n,), 0.0)",
    "torch.full((n,), False)",
    "torch.full((n,), 0, dtype=torch.int32)",
    "torch.full((n,), 0, dtype=None)",
    "torch.full((n,), 0, dtype=dt)",
    "torch.full((n,), fill_value=0)",
    "torch.full(n, 0)",
    "torch.full_like(y, 0)",
    "y.new_full((n,), 0)",
    "torch.full(x.shape, 0)",
)
_WRITES = (
    # whole
    "@B.copy_(y)",
    "@B.copy_(y[:5])",  # a shape error
    "@B.fill_(1.5)",
    "@B.zero_()",
    "@B[:] = y",
    "@B[...] = y * 2",
    "torch.mul(y, 2, out=@B)",
    "@B.uniform_()",
    "@B.copy_(@B + 1)",
    "_fill_from(@B, y)",
    "_fill_via(@B, y)",
    "_fill_kw(y, out=@B)",
    "_fill_view(@B)",
    "_fill_from(@B[:], y)",
    "_fill_via(@B, y[:5])",  # a shape error, in the helper's helper
    # part, or through code that may write part
    "torch.ops.attnlint_diff.half_copy(y, out=@B)",
    "@B[:i] = y[:i]",
    "@B[1:] = 1",
    "@B.add_(y)",
    "kernel(@B)",
    "overwrite(@B)",
    "@B.scatter_(0, torch.tensor([0, 1]), y[:2])",
    "_fill_if(@B, i > 1)",
    "_fill_if(@B, i > 5)",
    "_fill_after_read(@B)",
    "_fill_after_keep(@B)",
    "_fill_rebound(@B, i > 1)",
    "_fill_tried(@B, y[:5])",
    "_fill_gen(@B)",
    "list(_fill_gen(@B))",
    "_fill_rec(@B, 2)",
    "_fill_from(@B, @B + 1)",
    "_fill_from(@B[:i], y[:i])",
    "_fill_from(y, @B)",
    "_fill_half(@B, y)",
)
#: How many of ``_WRITES`` (the first) write the whole buffer straight away.
_WHOLE_WRITES = 15
#: The writes through the module's helpers (whole, sometimes, after a read...).
_HELPER_WRITES = tuple(
    write for write in _WRITES if write.startswith(("fill_", "list("))
)
_WRAPPERS = (
    None,
    None,
    "if i > 1:",
    "if i > 5:",
    "for _ in xs:",
    "for _ in range(0):",
    "while False:",
    "with suppress(RuntimeError):",
    "with suppress(ValueError):",
    "with Swallow():",
    "with torch.no_grad():",
    "with nullcontext():",
    "try:",
)
_RAISING = ("int(s)", "1 // (i - i)", "noop()")
_BEFORE_WRITE = (
    None,
    None,
    "v = @B.view(-1)",
    "alias = @B",
    "g = lambda: @B.sum()",
    "print(@B.shape)",
    "m = len(@B)",
)
_RESULTS = ("@B", "@B", "(@B, x)", "@B.sum()", "@B.tolist()")

_SYNCS = (
    "x.max().item()",
    "x[0].item()",
    "x.sum().item()",
    "w[0, 1].item()",
    "box.t.max().item()",
    "y.min().item()",
    "x.tolist()",
    "t.max().item()",
    "BUF.sum().item()",
)
_BETWEEN = (
    None,
    "x.data[0] = 5",
    "v = w.T\nv.zero_()",
    "w.mT.fill_(3)",
    "x.real.mul_(2)",
    "x.add_(1)",
    "y.add_(1)",
    "x.isnan()",
    "x.sort()",
    "m = len(x)",
    "F.relu(x, True)",
    "F.relu(x)",
    "F.relu(x, inplace=i > 1)",
    "torch.add(x, 1, out=x)",
    "F.normalize(y, 2.0, 0, 1e-12, x)",
    "add = x.add_\nadd(1)",
    "sorted(xs, key=lambda v: (x.add_(1), v)[1])",
    "print(Loud(x))",
    "print(x)",
    "print(f'{x}')",
    "loud = Loud(x)\nprint(loud)",
    "box.__dict__['t'] = x * 2",
    "bump()",
    "register(x)\nbump_all()",
    "kernel(x)",
    "noop(x)",
    "noop()",
    "t = get()",
    "box.t.add_(1)",
    "box.k = 2",
    "int(s)",
    "g = lambda: x.add_(1)\ng()",
    "def h():\n    x.mul_(2)\nh()",
    "x = y",
    "z = x\nz += 1",
    "v = x.view(2, 3)\nv[0] = 1",
    "t = torch.arange(6.0)\nregister(t)",
    "c = [x] + [1]\nc[0].add_(1)",
    "c = +x\nc.add_(1)",
    "c = sum([], x)\nc.add_(1)",
)
_SYNC_WRAPPERS = (
    None,
    None,
    None,
    "with suppress(ValueError):",
    "with Swallow():",
    "with torch.no_grad():",
    "if i > 1:",
    "try:",
)

_TARGETS = ("a", "box.k", "box.t")
_VALUES = ("x * 2", "x + i", "i + 1", "x.max().item()", "box.t", "y", "-x", "(x, i)")
_REASSIGN_BETWEEN = (
    None,
    "b = @T\nb.add_(1)",
    "b = @T",
    "@T.add_(1)",
    "x.add_(1)",
    "box.t.add_(1)",
    "print(@T)",
    "noop(@T)",
    "int(s)",
    "c = @T + 1",
)

_ITERABLES = ("xs", "range(n)", "[x, y]", "['a', 1]", "s", "[1.5, 2]")
_ALIASES = (
    "v",
    "v + 1",
    "v - i",
    "i + 1",
    "5",
    "b'x'",
    "'x'",
    "acc + extra",
    "v + v",
)
_ALIAS_BETWEEN = (
    None,
    None,
    "print('p')",
    "bump_acc()",
    "noop(v)",
    "k = len(out)",
    "v = 0",
    "extra.append(v)",
)
_ALIAS_USES = (
    "out.append(@A)",
    "out.append(f'{{@A}}')",
    "out.append(f'{{@A=}}')",
    "out.append(@A * 2)",
    "out.append(str(@A))",
    "try:\n    out.append(@A)\nexcept TypeError:\n    out.append('caught')",
    "out.append(v)",  # the alias unused
    "out.append([@A, @A])",
)


# --------------------------------------------------------------------------- shapes


def _indented(snippet: str, indent: str, **names: str) -> list[str]:
    """The lines of ``snippet`` at ``indent``, placeholders (``@B``) filled."""
    for placeholder, name in names.items():
        snippet = snippet.replace(f"@{placeholder}", name)
    return [indent + line for line in snippet.split("\n")]


def _wrap(rng: random.Random, lines: list[str], indent: str, wrappers) -> list[str]:
    """``lines`` (already at ``indent``) inside a random wrapper, maybe after
    a statement that raises."""
    wrapper = rng.choice(wrappers)
    if wrapper is None:
        return lines
    inner = ["    " + line for line in lines]
    if rng.random() < 0.3:
        inner.insert(0, indent + "    " + rng.choice(_RAISING))
    out = [indent + wrapper, *inner]
    if wrapper == "try:":
        out += [indent + "except Exception:", indent + "    pass"]
    return out


def _zeros_case(rng: random.Random, indent: str) -> list[str]:
    lines = [f"{indent}buf = {rng.choice(_ZEROS)}"]
    before = rng.choice(_BEFORE_WRITE)
    if before:
        lines += _indented(before, indent, B="buf")
    # Half of them write the whole buffer straight away: the shape ATN101 fixes.
    if rng.random() < 0.3:
        lines += _indented(rng.choice(_HELPER_WRITES), indent, B="buf")
    elif rng.random() < 0.5:
        lines += _indented(rng.choice(_WRITES[:_WHOLE_WRITES]), indent, B="buf")
    else:
        write = _indented(rng.choice(_WRITES), indent, B="buf")
        lines += _wrap(rng, write, indent, _WRAPPERS)
    if rng.random() < 0.3:
        lines += _indented(rng.choice(_WRITES), indent, B="buf")
    lines += _indented("return " + rng.choice(_RESULTS), indent, B="buf")
    return lines


_FILLED = (
    "torch.empty(n)",
    "torch.ones(n)",
    "torch.empty(n, dtype=torch.int32)",
    "y.clone()",
    "torch.arange(6.0)",
    "x",  # a parameter: the caller holds it
    "box.t",
    "x[:3]",  # a view of a parameter
    "get()",  # the module's buffer
)
_FILLS = ("@B.zero_()", "@B.fill_(0)", "@B.fill_(0.0)", "@B.fill_(False)")
_BEFORE_FILL = (
    None,
    None,
    "v = @B.view(-1)",
    "alias = @B",
    "register(@B)",
    "print(@B.shape)",
    "@B.add_(1)",
    "m = @B.sum()",
    "@B[0] = 5",
)
_BETWEEN_FILL = (
    None,
    None,
    None,
    "print(x.sum())",
    "print(BUF.sum())",
    "print(box.t.sum())",
    "bump_all()",
    "c = y.sum()",
    "noop()",
    "int(s)",
)
_FILL_RESULTS = ("@B", "(@B, x)", "@B.sum()", "(@B, box.t, BUF)", "x")


def _zero_fill_case(rng: random.Random, indent: str) -> list[str]:
    lines = [f"{indent}buf = {rng.choice(_FILLED)}"]
    before = rng.choice(_BEFORE_FILL)
    if before:
        lines += _indented(before, indent, B="buf")
    fill = _indented(rng.choice(_FILLS), indent, B="buf")
    lines += fill if rng.random() < 0.6 else _wrap(rng, fill, indent, _WRAPPERS)
    between = rng.choice(_BETWEEN_FILL)
    if between:
        lines += _indented(between, indent)
    if rng.random() < 0.6:
        lines += _indented(rng.choice(_WRITES[:_WHOLE_WRITES]), indent, B="buf")
    else:
        write = _indented(rng.choice(_WRITES), indent, B="buf")
        lines += _wrap(rng, write, indent, _WRAPPERS)
    lines += _indented("return " + rng.choice(_FILL_RESULTS), indent, B="buf")
    return lines


def _sync_case(rng: random.Random, indent: str) -> list[str]:
    chain = rng.choice(_SYNCS)
    lines = []
    if chain.startswith("t."):
        lines.append(indent + "t = get()")
    lines.append(f"{indent}a = -1.0")
    lines += _wrap(rng, [f"{indent}a = {chain}"], indent, _SYNC_WRAPPERS)
    for _ in range(rng.randint(0, 2)):
        between = rng.choice(_BETWEEN)
        if between:
            lines += _indented(between, indent)
    if rng.random() < 0.7:
        lines += [f"{indent}c = {chain}", f"{indent}return a, c, x, w, box.t, BUF"]
    else:
        lines += [f"{indent}print({chain})", f"{indent}return a, x, w, box.t, BUF"]
    return lines


def _reassign_case(rng: random.Random, indent: str) -> list[str]:
    target = rng.choice(_TARGETS)
    value = rng.choice(_VALUES)
    lines = [f"{indent}a = None"] if target == "a" else []
    lines += _wrap(rng, [f"{indent}{target} = {value}"], indent, _SYNC_WRAPPERS)
    for _ in range(rng.randint(0, 2)):
        between = rng.choice(_REASSIGN_BETWEEN)
        if between:
            lines += _indented(between, indent, T=target)
    lines.append(f"{indent}{target} = {value}")
    if rng.random() < 0.3:
        lines.append(f"{indent}{target} = {value}")
    lines.append(f"{indent}return {target}, x, box.t")
    return lines


def _alias_case(rng: random.Random, indent: str) -> list[str]:
    lines = _indented(
        "out = []\nacc = [0]\nextra = [7]\n\ndef bump_acc():\n    acc.append(9)\n\n"
        f"for v in {rng.choice(_ITERABLES)}:",
        indent,
    )
    body = indent + "    "
    lines.append(f"{body}al = {rng.choice(_ALIASES)}")
    between = rng.choice(_ALIAS_BETWEEN)
    if between:
        lines.append(body + between)
    lines += _indented(rng.choice(_ALIAS_USES), body, A="al")
    if rng.random() < 0.3:
        lines += _indented(rng.choice(_ALIAS_USES[:2]), body, A="al")
    lines.append(f"{indent}return out, acc")
    return [line if line.strip() else "" for line in lines]


_LOUD = HEADER[HEADER.index("\nclass Loud:") : HEADER.index("\nclass Swallow:")]
_QUIET_HEADER = HEADER.replace(_LOUD, "")
assert _QUIET_HEADER != HEADER

_SHAPES = (_zeros_case, _sync_case, _reassign_case, _alias_case, _zero_fill_case)


def program(seed: int) -> str:
    """A random module of entry points in the rules' shapes."""
    rng = random.Random(seed)
    parts = []
    for number in range(rng.randint(2, 5)):
        shape = rng.choice(_SHAPES)
        lines = shape(rng, "    ")
        parts.append(f"\ndef case_{number}{SIGNATURE}:\n" + "\n".join(lines) + "\n")
    # ``Loud``'s ``__str__`` makes any call of the module one that may run
    # its code: it is defined only where a case formats one.
    header = HEADER if any("Loud(" in part for part in parts) else _QUIET_HEADER
    return "\n".join([header, *parts])


def programs(start: int = 0):
    """The reproductions, then random programs from seed ``start`` on."""
    yield from PROGRAMS_FROM_REPRODUCTIONS
    seed = start
    while True:
        yield program(seed)
        seed += 1
