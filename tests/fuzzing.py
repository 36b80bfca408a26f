"""Program generators and the properties every input must satisfy.

Three sources of programs: hypothesmith (grammar-driven text), pysource-codegen
(random valid ASTs of any shape), and ``backend_programs`` below, which
composes the statements attnlint's rules are about (zero-filled buffers,
in-place writes and reads, host syncs, loop aliases) inside random control
flow, so the rules and their fixes really fire.

Used by the bounded CI test (tests/test_fuzz.py) and the long-running script
(benchmarks/fuzz.py).
"""

from __future__ import annotations

import ast

from hypothesis import strategies as st

from lint_rules import prefilter
from lint_rules.checker import check_source
from lint_rules.config import Settings
from lint_rules.fixer import fix_text

# The mechanisms, wherever the code runs: ATN202 and ATN301 report outside
# per-step code too (the hot-path tests cover where they report by default).
SETTINGS = Settings(hot_paths_only=False)
NAMES = ("x", "y", "buf", "idx", "start", "end", "n", "m")
METHOD_NAMES = ("replay", "init_cuda_graph_state", "capture")

_SIMPLE = (
    "{a} = torch.zeros(n, dtype=torch.int32)",
    "{a} = torch.zeros_like({b})",
    "{a} = {b}.new_zeros((n, 4))",
    "{a} = torch.full((n,), 0)",
    "{a} = torch.empty(n)",
    "{a}.copy_({b})",
    "{a}[:] = {b}",
    "{a}[:n] = {b}",
    "{a}.fill_(1)",
    "{a} += {b}",
    "{a}.add_({b})",
    "torch.add({a}, {b}, out={a})",
    "kernel({a}, {b})",
    "self.{a} = {b}",
    "{a} = {b}",
    "{a} = {b} + 1",
    "{a} = {b} - n",
    "{a} = {b}.max().item()",
    "{a} = {b}.sum().item() + (n + 1)",
    "m.k = {b}.max().item() + (n + 1)",
    "m.k = {a} + (n + 1)",
    "print({a}, {b})",
    "{a} = {b}.tolist()",
    "{a} = int({b}.item())",
    "return {a}",
    "pass",
)
_COMPOUND = (
    "if {a}:",
    "for {a} in range(n):",
    "for {a}, {b} in enumerate(m):",
    "while {a} < n:",
    "with ctx({a}) as {b}:",
)


@st.composite
def backend_programs(draw) -> str:
    """A module with one or two functions made of the rules' vocabulary."""
    lines = ["import torch", "", "", "class Backend:"]
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(METHOD_NAMES))
        lines.append(f"    def {name}(self, n, m, x, y, buf, idx):")
        lines.extend(_block(draw, depth=2, budget=draw(st.integers(2, 14))))
        lines.append("")
    return "\n".join(lines) + "\n"


def _block(draw, depth: int, budget: int) -> list[str]:
    indent = "    " * depth
    lines: list[str] = []
    for _ in range(max(1, budget)):
        a, b = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES))
        if depth < 5 and draw(st.integers(0, 5)) == 0:
            header = draw(st.sampled_from(_COMPOUND)).format(a=a, b=b)
            lines.append(indent + header)
            lines.extend(_block(draw, depth + 1, draw(st.integers(1, 4))))
            if header.startswith("if") and draw(st.booleans()):
                lines.append(indent + "else:")
                lines.extend(_block(draw, depth + 1, draw(st.integers(1, 3))))
        elif depth < 5 and draw(st.integers(0, 12)) == 0:
            lines.append(indent + "try:")
            lines.extend(_block(draw, depth + 1, draw(st.integers(1, 3))))
            lines.append(indent + "except Exception:")
            lines.extend(_block(draw, depth + 1, 1))
            if draw(st.booleans()):
                lines.append(indent + "finally:")
                lines.extend(_block(draw, depth + 1, 1))
        else:
            lines.append(indent + draw(st.sampled_from(_SIMPLE)).format(a=a, b=b))
    return lines


def findings_both_ways(source: str, filename: str = "fuzz.py", settings=SETTINGS):
    """The findings on ``source`` with the pre-filters, and without them
    (checked directly, never through the cache), and the internal errors of
    both runs."""
    errors: list[str] = []
    previous = prefilter.set_enabled(True)
    try:
        filtered = check_source(source, filename, settings, errors=errors)
        prefilter.set_enabled(False)
        unfiltered = check_source(source, filename, settings, errors=errors)
    finally:
        prefilter.set_enabled(previous)
    return filtered, unfiltered, errors


def check_properties(source: str) -> None:
    """What must hold for any input: no crash (not even one the checker catches
    and reports as an internal error); the pre-filters change no finding; a
    fix parses, converges, and is a fixpoint."""
    filtered, unfiltered, errors = findings_both_ways(source)  # must not raise
    assert errors == [], errors
    assert filtered == unfiltered, (
        "the pre-filters changed the findings:\n"
        f"with them: {filtered}\nwithout them: {unfiltered}"
    )
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # not Python: reported as E999, never fixed
    result = fix_text(source, "fuzz.py", SETTINGS, unsafe_fixes=True, errors=errors)
    assert errors == [], errors
    assert result.error is None, result.error
    assert result.converged, "fixes did not settle"
    fixed = result.text
    ast.parse(fixed)
    again = fix_text(fixed, "fuzz.py", SETTINGS, unsafe_fixes=True, errors=errors)
    assert errors == [], errors
    assert again.text == fixed, "the fixed text is not a fixpoint"
    remaining = [
        f for f in check_source(fixed, "fuzz.py", SETTINGS) if f.fix is not None
    ]
    assert remaining == [], f"fixable findings remain after --fix: {remaining}"


def valid_program(seed: int, **limits: int) -> str:
    """A random program from ``pysource_codegen`` that this Python parses.

    The generator writes its tree back as text with ``ast.unparse``, which
    on some versions spells an f-string it cannot read back (3.10); such a
    program is replaced by the one of the next seed, a thousand apart.
    """
    from pysource_codegen import generate

    for attempt in range(20):
        source = generate(seed + 1000 * attempt, **limits)
        try:
            ast.parse(source)
        except SyntaxError:
            continue
        return source
    raise AssertionError(f"no parsable program near seed {seed}")
