"""FunctionFlow.dominates against the definition: ``a`` dominates ``b`` when
``b`` can be reached from the entry, and no longer once ``a`` is taken away."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings

from lint_rules.analysis.flow import Block, FunctionFlow
from tests.fuzzing import backend_programs, valid_program


def _reached(entry: Block, removed: Block | None) -> set[Block]:
    seen: set[Block] = set()
    stack = [entry] if entry is not removed else []
    while stack:
        block = stack.pop()
        if block in seen:
            continue
        seen.add(block)
        stack.extend(succ for succ in block.succs if succ is not removed)
    return seen


def assert_dominators_agree(source: str) -> None:
    tree = ast.parse(source)
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        flow = FunctionFlow(function)
        reachable = _reached(flow.entry, None)
        for first in flow.blocks:
            without = _reached(flow.entry, first)
            for second in flow.blocks:
                expected = second in reachable and (
                    second is first or second not in without
                )
                assert flow.dominates(first, second) == expected, (
                    function.name,
                    first.index,
                    second.index,
                )
        flow.release()


def test_loops_branches_and_handlers():
    assert_dominators_agree(
        "def f(xs, c):\n"
        "    total = 0\n"
        "    for x in xs:\n"
        "        if x:\n"
        "            continue\n"
        "        while c:\n"
        "            try:\n"
        "                total += g(x)\n"
        "            except ValueError:\n"
        "                break\n"
        "            finally:\n"
        "                c -= 1\n"
        "    else:\n"
        "        return -1\n"
        "    if c:\n"
        "        raise ValueError\n"
        "    return total\n"
        "    dead = 1\n"
    )


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(backend_programs())
def test_backend_shaped_programs(source):
    assert_dominators_agree(source)


@pytest.mark.parametrize("seed", range(10))
def test_random_valid_programs(seed):
    assert_dominators_agree(valid_program(seed, depth_limit=6, node_limit=1500))
