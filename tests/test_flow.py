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


# ------------------------------------------------------------------ with bodies


def _flow(source: str, may_swallow=None) -> FunctionFlow:
    return FunctionFlow(ast.parse(source).body[0], may_swallow)  # type: ignore[arg-type]


def _block_of_row(flow: FunctionFlow, row: int) -> Block:
    return next(
        b
        for b in flow.blocks
        if b.stmt is not None and b.stmt.lineno == row and b.role == "stmt"
    )


WITH_SOURCE = "def f(m):\n    with m:\n        a = 1\n        b = 2\n    c = 3\n"


def test_with_body_of_a_manager_that_may_swallow_may_be_left_early():
    flow = _flow(WITH_SOURCE)
    roles = [b.role for b in flow.blocks]
    assert "entered" in roles and "with-exit" in roles
    after = _block_of_row(flow, 5)
    assert not flow.dominates(_block_of_row(flow, 3), after)
    assert not flow.dominates(_block_of_row(flow, 4), after)


def test_with_body_of_a_manager_that_never_swallows_runs_to_its_end():
    flow = _flow(WITH_SOURCE, may_swallow=lambda context: False)
    assert {b.role for b in flow.blocks}.isdisjoint({"entered", "with-exit"})
    assert flow.dominates(_block_of_row(flow, 4), _block_of_row(flow, 5))


def test_async_with_may_always_be_left_early():
    source = WITH_SOURCE.replace("def f", "async def f").replace(
        "with m", "async with m"
    )
    flow = _flow(source, may_swallow=lambda context: False)
    assert not flow.dominates(_block_of_row(flow, 4), _block_of_row(flow, 5))


@pytest.mark.parametrize(
    ("source", "row", "bound"),
    [
        ("def f(a):\n    b = a\n", 2, True),
        ("def f():\n    b = a\n", 2, False),  # a global: not bound here
        ("def f(c):\n    if c:\n        a = 1\n    b = a\n", 4, False),
        ("def f(c):\n    if c:\n        a = 1\n    else:\n        a = 2\n    b = a\n", 6, True),
        ("def f(a):\n    del a\n    b = a\n", 3, False),
        ("def f(xs):\n    for a in xs:\n        b = a\n", 3, True),
        ("def f():\n    try:\n        a = g()\n    except E:\n        pass\n    b = a\n", 6, False),
        ("def f(m):\n    with m:\n        a = g()\n    b = a\n", 4, False),
    ],
)  # fmt: skip
def test_bound_on_entry(source, row, bound):
    flow = _flow(source)
    assert flow.bound_on_entry("a", _block_of_row(flow, row)) is bound


class _CountingDict(dict):
    reads = 0

    def __getitem__(self, key):
        _CountingDict.reads += 1
        return super().__getitem__(key)

    def get(self, key, default=None):
        _CountingDict.reads += 1
        return super().get(key, default)


def test_dominance_asked_of_many_pairs_does_not_climb_the_tree():
    # ATN201 asks of every pair of equal syncs whether one runs first: on a
    # function of n branches the dominator tree is about n deep, and a climb
    # per question made the rule cubic (1,000 branches: 77 s).
    rows = ["def f(b, x):"]
    for index in range(200):
        rows.append(f"    if b.f{index}:\n        k = {index}\n    y{index} = x.max()")
    flow = _flow("\n".join(rows) + "\n")
    flow._dominators = _CountingDict(flow.immediate_dominators())
    _CountingDict.reads = 0
    blocks = [block for block in flow.blocks if block.stmt is not None]
    answers = [flow.dominates(a, b) for a in blocks[::4] for b in blocks[::4]]
    assert any(answers) and not all(answers)
    # Building the intervals reads each block's dominator about once.
    assert _CountingDict.reads <= 4 * len(flow.blocks)


def test_nested_scopes_are_resolved_scope_by_scope():
    flow = _flow(
        "def f():\n"
        "    out = []\n"
        "    def g():\n"
        "        nonlocal out\n"
        "        def out(): pass\n"
        "        import os as out\n"
        "    def k():\n"
        "        out[0].add_(1)\n"
        "        def h():\n"
        "            out = 0\n"
        "    def m():\n"
        "        try: pass\n"
        "        except E as out: pass\n"
    )
    nested = [event for event in flow.events_of("out") if event.nested]
    # ``def out`` and ``import os as out`` after ``nonlocal out`` rebind
    # f's ``out``; ``k`` uses it though ``h`` binds a name of its own;
    # ``m``'s ``except ... as out`` binds m's own.
    assert sorted((type(e.node).__name__, e.kind.name) for e in nested) == [
        ("FunctionDef", "STORE"),
        ("Import", "STORE"),
        ("Name", "LOAD"),
    ]
