"""Differential execution: run a program before and after ``--fix``, compare.

A safe fix must not change what the code computes. This module checks that
by execution: a program (a module's text) is fixed with the safe fixes
(``lint_rules.fixer.fix_text``, the library path of ``attnlint check --fix``),
then both texts are executed on CPU torch with uninitialized memory poisoned
(``lint_rules.poison``: ``torch.empty`` returns NaN or the integer maximum),
and every entry point of each (a module-level function named ``case...``) is
called on fresh arguments from the program's own ``make_args()``. What is
compared, per entry point: the value returned, the arguments afterwards
(anything changed in place), the type of the exception raised, and what was
printed; per program, the module's global state afterwards.

The programs may use the helpers this module registers with torch: the
custom operator ``torch.ops.attnlint_diff.half_copy(src, out=dst)``, which
writes only the first half of ``dst`` (the way attention kernels leave
padding rows unwritten).

Used by tests/test_differential.py (bounded, in CI) and
benchmarks/differential.py (the long run).
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import sys
import types
import warnings
from collections import Counter

import torch

from lint_rules.config import Settings
from lint_rules.fixer import fix_text
from lint_rules.poison import poisoned_memory

# Every function of a generated program, wherever it would run.
SETTINGS = Settings(hot_paths_only=False)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _register_operators() -> None:
    """The custom operators programs may call (registered once per process)."""
    if hasattr(torch.ops.attnlint_diff, "half_copy"):
        return

    @torch.library.custom_op("attnlint_diff::half_copy", mutates_args=("out",))
    def half_copy(src: torch.Tensor, out: torch.Tensor) -> None:
        half = out.shape[0] // 2
        out[:half].copy_(src[:half])


_register_operators()


# --------------------------------------------------------------------------- snapshots


def snapshot(value: object, depth: int = 0, seen: set[int] | None = None) -> object:
    """A comparable picture of ``value``: tensors by dtype, shape and elements
    (NaN spelled out, so poisoned memory shows), containers item by item,
    objects by their attributes; identities and addresses left out."""
    if seen is None:
        seen = set()
    if depth > 6:
        return ("deep", type(value).__name__)
    if isinstance(value, torch.Tensor):
        data = value.detach()
        if data.is_complex():
            data = torch.view_as_real(data)
        items = data.reshape(-1).tolist() if data.numel() else []
        return (
            "tensor",
            str(value.dtype),
            tuple(value.shape),
            tuple(_number(item) for item in items),
            value.requires_grad,
            None if value.grad is None else snapshot(value.grad, depth + 1, seen),
        )
    if isinstance(value, (bool, int, str, bytes, type(None))):
        return (type(value).__name__, value)
    if isinstance(value, float):
        return ("float", _number(value))
    if isinstance(value, (list, tuple)):
        if id(value) in seen:
            return ("cycle",)
        seen.add(id(value))
        return (
            type(value).__name__,
            tuple(snapshot(item, depth + 1, seen) for item in value),
        )
    if isinstance(value, dict):
        if id(value) in seen:
            return ("cycle",)
        seen.add(id(value))
        return (
            "dict",
            tuple(
                (repr(key), snapshot(item, depth + 1, seen))
                for key, item in value.items()
            ),
        )
    if isinstance(value, (types.FunctionType, types.ModuleType, type)):
        return ("callable", getattr(value, "__name__", "?"))
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict) and id(value) not in seen:
        seen.add(id(value))
        return (
            "object",
            type(value).__name__,
            tuple(
                (key, snapshot(item, depth + 1, seen))
                for key, item in sorted(state.items())
            ),
        )
    return ("other", type(value).__name__)


def _number(value: object) -> object:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return value
    return value


# --------------------------------------------------------------------------- running


class Outcome:
    """What running every entry point of a program did."""

    __slots__ = ("cases", "error")

    def __init__(self) -> None:
        self.cases: dict[str, tuple] = {}
        self.error: str | None = None  # the module itself failed to run

    def as_tuple(self) -> tuple:
        return (self.error, tuple(sorted(self.cases.items())))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Outcome) and self.as_tuple() == other.as_tuple()

    def difference(self, other: Outcome) -> str:
        """The first difference, described."""
        if self.error != other.error:
            return f"module: {self.error} != {other.error}"
        for name in sorted(set(self.cases) | set(other.cases)):
            mine, theirs = self.cases.get(name), other.cases.get(name)
            if mine != theirs:
                labels = ("result", "arguments", "exception", "printed", "globals")
                for label, a, b in zip(labels, mine or (), theirs or (), strict=False):
                    if a != b:
                        return f"{name} {label}: {_short(a)} != {_short(b)}"
                return f"{name}: {_short(mine)} != {_short(theirs)}"
        return ""


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) < 400 else text[:400] + "..."


_counter = 0


def run_program(source: str) -> Outcome:
    """Execute ``source`` as a fresh module and call each ``case...`` function."""
    global _counter
    _counter += 1
    outcome = Outcome()
    module = types.ModuleType(f"attnlint_differential_{_counter}")
    module.__file__ = "<differential>"
    printed = io.StringIO()
    with (
        warnings.catch_warnings(),
        poisoned_memory(),
        contextlib.redirect_stdout(printed),
    ):
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        try:
            # Not inheriting this module's ``from __future__ import
            # annotations``: the program runs as Python would run it.
            code = compile(source, "<differential>", "exec", dont_inherit=True)
            exec(code, module.__dict__)
        except BaseException as error:  # noqa: BLE001 - compared, not handled
            outcome.error = f"{type(error).__name__}: {printed.getvalue()}"
            return outcome
        names = sorted(
            name
            for name, value in module.__dict__.items()
            if name.startswith("case") and isinstance(value, types.FunctionType)
        )
        make_args = module.__dict__.get("make_args", lambda: ())
        for name in names:
            printed.seek(0)
            printed.truncate()
            torch.manual_seed(0)
            args = make_args()
            result: object = None
            raised = None
            try:
                result = module.__dict__[name](*args)
            except Exception as error:  # noqa: BLE001 - compared, not handled
                raised = type(error).__name__
            outcome.cases[name] = (
                snapshot(result),
                snapshot(args),
                raised,
                _ADDRESS.sub("0x?", printed.getvalue()),
                _globals_snapshot(module),
            )
    sys.modules.pop(module.__name__, None)
    return outcome


def _globals_snapshot(module: types.ModuleType) -> object:
    """Module-level state a case may change: names in capitals (``STATE``)."""
    return snapshot(
        {
            name: value
            for name, value in sorted(module.__dict__.items())
            if name.isupper() and not name.startswith("_")
        }
    )


class Comparison:
    """A program, its fixed text, and what each computed."""

    __slots__ = ("source", "fixed", "fixed_by_code", "before", "after", "error")

    def __init__(
        self,
        source: str,
        fixed: str,
        fixed_by_code: dict[str, int],
        before: Outcome,
        after: Outcome,
        error: str | None,
    ) -> None:
        self.source = source
        self.fixed = fixed
        self.fixed_by_code = fixed_by_code
        self.before = before
        self.after = after
        self.error = error

    @property
    def same(self) -> bool:
        return self.error is None and self.before == self.after

    def explain(self) -> str:
        if self.error is not None:
            return f"fixing failed: {self.error}\n--- program:\n{self.source}"
        return (
            f"{self.before.difference(self.after)}\n--- before --fix:\n{self.source}"
            f"\n--- after --fix:\n{self.fixed}"
        )


def compare(
    source: str, settings: Settings = SETTINGS, fixed: str | None = None
) -> Comparison:
    """Fix ``source`` (safe fixes) unless ``fixed`` is given, run both, compare."""
    errors: list[str] = []
    counts: dict[str, int] = {}
    error = None
    if fixed is None:
        result = fix_text(source, "program.py", settings, False, errors=errors)
        fixed = result.text
        counts = dict(result.fixed_count_by_code)
        error = result.error or ("; ".join(errors) if errors else None)
    before = run_program(source)
    after = run_program(fixed) if fixed != source else before
    return Comparison(source, fixed, counts, before, after, error)


class Tally:
    """Programs run and fixes applied, per rule."""

    def __init__(self) -> None:
        self.programs = 0
        self.fixed_programs: Counter[str] = Counter()  # programs with a fix, per rule
        self.fixes: Counter[str] = Counter()  # fixes applied, per rule
        self.differences: list[Comparison] = []

    def add(self, comparison: Comparison) -> None:
        self.programs += 1
        for code, count in comparison.fixed_by_code.items():
            self.fixes[code] += count
            self.fixed_programs[code] += 1
        if not comparison.same:
            self.differences.append(comparison)

    def summary(self) -> str:
        rules = ", ".join(
            f"{code}: {self.fixes[code]} fixes in {self.fixed_programs[code]} programs"
            for code in sorted(self.fixes)
        )
        return (
            f"{self.programs} programs, {len(self.differences)} differing; "
            f"safe fixes applied: {rules or 'none'}"
        )
