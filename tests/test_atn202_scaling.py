"""ATN202 on thousands of equal assignments in one function: work that grows
with their number, not its square, and the same findings as the plain
pairwise search it replaces (its slow oracle).

Work is counted, not timed: the Python function calls the check makes (a
generator resumed counts as a call), for n and 4 n statements. Linear work
grows about 4 times; the pairwise search's grew about 16 times.
``python -m benchmarks.atn202_scaling`` times it.
"""

from __future__ import annotations

import ast
import random
import sys

import pytest

import lint_rules.rules.atn202_redundant_reassignment as atn202
from lint_rules.checker import check_source
from lint_rules.config import Settings

SETTINGS = Settings(select=("ATN202",), hot_paths_only=False)


def _calls_to_check(text: str) -> tuple[int, list]:
    calls = 0

    def count(frame, event, arg) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        findings = check_source(text, "m.py", SETTINGS)
    finally:
        sys.setprofile(None)
    return calls, findings


SHAPES = {
    # The case: one statement, thousands of times.
    "attribute": lambda n: "def f(m, a):\n" + "    m.k = a\n" * n,
    "name": lambda n: "def f(a):\n" + "    x = a + 1\n" * n + "    return x\n",
    # Inside a loop and a with block.
    "nested": lambda n: (
        "def f(m, a, xs, lock):\n    for x in xs:\n        with lock:\n"
        + "            m.k = a\n" * n
    ),
    # Not next to each other (the analysis is asked what runs between, and
    # nothing there changes the value; print would: a __str__ runs code).
    "spaced": lambda n: "def f(m, a):\n" + "    m.k = a\n    pass\n" * (n // 2),
    # Two targets in turn: each repeat's question spans its own stretch of
    # the function, and the aliases (each ``m.j = a`` makes ``m.j`` hold
    # ``a``) pile up, one per statement.
    "alternating": lambda n: (
        "def f(m, a, b):\n" + "    m.j = a\n    m.k = b\n" * (n // 2)
    ),
    "alternating names": lambda n: (
        "def f(a, b):\n" + "    x = a\n    y = b\n" * (n // 2) + "    return x, y\n"
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_work_grows_linearly_with_the_number_of_assignments(shape: str) -> None:
    small_calls, small = _calls_to_check(SHAPES[shape](200))
    large_calls, large = _calls_to_check(SHAPES[shape](800))
    assert large, "the shape must have findings"
    assert len(large) > 3 * len(small)
    ratio = large_calls / small_calls
    assert ratio < 7, f"{shape}: 4 times the statements, {ratio:.1f} times the work"


def test_every_repeat_names_the_first_assignment() -> None:
    findings = check_source(SHAPES["attribute"](300), "m.py", SETTINGS)
    assert [f.location.row for f in findings] == list(range(3, 302))
    assert {f.message for f in findings} == {
        "Redundant reassignment: `m.k` already holds `a`, assigned at line 2"
    }


# ----------------------------------------------------------------- the oracle


def _pairwise_findings(text: str) -> list[tuple[int, int, str]]:
    """ATN202's findings with its pairs visited one by one, every earlier
    statement against every later one (the slow oracle)."""
    original = atn202._redundant_pairs
    atn202._redundant_pairs = atn202._redundant_pairs_pairwise
    try:
        return _findings(text)
    finally:
        atn202._redundant_pairs = original


def _findings(text: str) -> list[tuple[int, int, str]]:
    return [
        (f.location.row, f.location.column, f.message)
        for f in check_source(text, "m.py", SETTINGS)
    ]


_TARGETS = ("m.k", "m.k", "x", "n.k")
_VALUES = ("a", "a + 1", "s.max().item()", "a")
_OTHERS = (
    "a = g(a)",
    "m.k = 0",
    "n = m",
    "reset(m)",
    "s.add_(1)",
    "print(m.k)",
    "m.j = a",
    "y = x",
)


def _random_function(rng: random.Random, size: int) -> str:
    lines = ["def f(m, n, a, s, c, xs, lock):"]
    indent = 1
    for _ in range(size):
        roll = rng.random()
        pad = "    " * indent
        if roll < 0.45:
            target = rng.randrange(len(_TARGETS))
            lines.append(f"{pad}{_TARGETS[target]} = {_VALUES[target]}")
        elif roll < 0.65:
            lines.append(pad + rng.choice(_OTHERS))
        elif roll < 0.85 and indent < 4:
            header = rng.choice(
                ("if c:", "for x in xs:", "while c:", "with lock:", "try:", "else:")
            )
            if header == "else:":
                header = "if not c:"
            lines.append(pad + header)
            lines.append(pad + "    pass")
            if header == "try:":
                lines.append(pad + "    m.k = a")
                lines.append(pad + "except ValueError:")
                lines.append(pad + "    return")
                continue
            indent += 1
        elif indent > 1:
            indent -= 1
            if rng.random() < 0.3:
                lines.append("    " * indent + rng.choice(("return", "m.k = a")))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_the_same_findings_as_the_pairwise_search(seed: int) -> None:
    rng = random.Random(seed)
    text = _random_function(rng, rng.randrange(10, 60))
    ast.parse(text)
    assert _findings(text) == _pairwise_findings(text), text


def test_the_oracle_finds_what_the_examples_expect() -> None:
    # The oracle itself is exercised: it reports the documented example.
    example = atn202.RedundantReassignment.invalid[0].source
    assert _pairwise_findings(example) == _findings(example) != []


# ------------------------------------------- torch's modes, asked along chains


def _direct_mode(analysis, modes, first, near, second, values_only):
    """Whether a mode may change, asked over the whole stretch from the
    chain's first statement (the slow oracle of the chained question)."""
    return analysis.mode_may_change_between(
        analysis.point(first), analysis.point(second), values_only=values_only
    )


_MODE_LINES = (
    "torch.set_grad_enabled(c)",
    "torch.set_default_dtype(torch.float64)",
    "reset(m)",
    "x = a + 1",
    "x = a + 1",
)


def _function_with_modes(rng: random.Random, size: int) -> str:
    lines = _random_function(rng, size).splitlines()
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(1, len(lines) + 1)
        indent = len(lines[at - 1]) - len(lines[at - 1].lstrip())
        if lines[at - 1].rstrip().endswith(":"):
            indent += 4
        lines.insert(at, " " * max(indent, 4) + rng.choice(_MODE_LINES))
    return "import torch\n" + "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_a_mode_change_asked_along_the_chain_as_over_the_whole_stretch(
    seed: int,
) -> None:
    rng = random.Random(1000 + seed)
    text = _function_with_modes(rng, rng.randrange(10, 60))
    ast.parse(text)
    original = atn202._mode_may_change
    atn202._mode_may_change = _direct_mode
    try:
        expected = _findings(text)
    finally:
        atn202._mode_may_change = original
    assert _findings(text) == expected, text


def test_a_mode_change_between_repeats_makes_the_later_ones_unsafe() -> None:
    text = (
        "import torch\ndef f(a):\n"
        + "    x = a + 1\n" * 3
        + "    torch.set_grad_enabled(False)\n"
        + "    x = a + 1\n" * 3
        + "    return x\n"
    )
    findings = check_source(text, "m.py", SETTINGS)
    assert [f.location.row for f in findings] == [4, 5, 7, 8, 9]
    unsafe = [f.location.row for f in findings if "mode" in f.message]
    assert unsafe == [7, 8, 9]
