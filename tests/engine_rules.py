"""Test-only rules that exercise the engine (checker, fixer, output, CLI).

They are not registered anywhere: tests pass them as a registry
(``ENGINE``, or ``Registry(rules)``) to the checker, the fixer, the runner,
the command (``main(argv, registry=...)``) or the language server. Each flags calls to one
function name, so a test's source says plainly which rule fires where.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from lint_rules.context import Context
from lint_rules.diagnostics import Applicability, Edit, Finding, Fix
from lint_rules.rules import Registry
from lint_rules.rules.base import Rule


def _calls(tree: ast.AST, name: str) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == name
        ):
            yield node


def _rename(
    ctx: Context, call: ast.Call, new: str, applicability: Applicability
) -> Fix:
    func = call.func
    return Fix(
        (Edit(ctx.locator.start(func), ctx.locator.end(func), new),),
        applicability,
        f"Call `{new}` instead",
    )


class SafeRename(Rule):
    """## What it does
    Flags calls to `old()`. Test-only.

    ## Fix safety
    Safe: renames the call to `new()`.
    """

    code = "TST101"
    name = "safe-rename"
    triggers = ("old",)
    fix_availability = "safe"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for call in _calls(ctx.tree, "old"):
            fix = _rename(ctx, call, "new", Applicability.SAFE)
            yield ctx.report(self, call, "Call to `old`", fix)


class UnsafeRename(Rule):
    """## What it does
    Flags calls to `risky()`. Test-only.

    ## Fix safety
    Unsafe: renames the call to `careful()`.
    """

    code = "TST102"
    name = "unsafe-rename"
    triggers = ("risky",)
    fix_availability = "unsafe"
    severity = "warning"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for call in _calls(ctx.tree, "risky"):
            fix = _rename(ctx, call, "careful", Applicability.UNSAFE)
            yield ctx.report(self, call, "Call to `risky`", fix)


class NoFix(Rule):
    """## What it does
    Flags calls to `plain()`, without a fix. Test-only.
    """

    code = "TST103"
    name = "no-fix"
    triggers = ("plain",)

    def check(self, ctx: Context) -> Iterator[Finding]:
        for call in _calls(ctx.tree, "plain"):
            yield ctx.report(self, call, "Call to `plain`")


class StepChain(Rule):
    """## What it does
    Flags `step1()` and `step2()`; each fix moves one step on, so fixing
    ``step1`` needs two passes to reach ``step3``. Test-only.
    """

    code = "TST201"
    name = "step-chain"
    triggers = ("step",)
    fix_availability = "safe"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for number in (1, 2):
            for call in _calls(ctx.tree, f"step{number}"):
                fix = _rename(ctx, call, f"step{number + 1}", Applicability.SAFE)
                yield ctx.report(self, call, f"Call to `step{number}`", fix)


class PingPong(Rule):
    """## What it does
    Flags `ping()` and `pong()`, each fix turning one into the other, so the
    fixer never settles. Test-only.
    """

    code = "TST202"
    name = "ping-pong"
    triggers = ("ping", "pong")
    fix_availability = "safe"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for old, new in (("ping", "pong"), ("pong", "ping")):
            for call in _calls(ctx.tree, old):
                fix = _rename(ctx, call, new, Applicability.SAFE)
                yield ctx.report(self, call, f"Call to `{old}`", fix)


class BrokenFix(Rule):
    """## What it does
    Flags calls to `breaks()` with a fix whose result does not parse. Test-only.
    """

    code = "TST301"
    name = "broken-fix"
    triggers = ("breaks",)
    fix_availability = "safe"

    def check(self, ctx: Context) -> Iterator[Finding]:
        for call in _calls(ctx.tree, "breaks"):
            fix = _rename(ctx, call, "breaks(", Applicability.SAFE)
            yield ctx.report(self, call, "Call to `breaks`", fix)


class Crashes(Rule):
    """## What it does
    Raises inside ``check`` when the text calls `explode()`. Test-only.
    """

    code = "TST401"
    name = "crashes"
    triggers = ("explode",)

    def check(self, ctx: Context) -> Iterator[Finding]:
        for call in _calls(ctx.tree, "explode"):
            ctx.report(self, call, "reported before the crash")
            raise RuntimeError("boom")
        return iter(())


class Everywhere(Rule):
    """## What it does
    Flags every module with a docstring; has no triggers, so it always runs. Test-only.
    """

    code = "TST501"
    name = "everywhere"

    def check(self, ctx: Context) -> Iterator[Finding]:
        body = ctx.tree.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            yield ctx.report(self, body[0], "Module docstring")


ENGINE_RULES: tuple[type[Rule], ...] = (
    SafeRename,
    UnsafeRename,
    NoFix,
    StepChain,
    PingPong,
    BrokenFix,
    Crashes,
    Everywhere,
)

#: The test-only rules as a registry: tests build settings over it
#: (``ENGINE.settings(select=...)``) and pass it to the checker.
ENGINE = Registry(ENGINE_RULES)
