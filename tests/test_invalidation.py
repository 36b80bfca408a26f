"""What code between two syncs may change (analysis/invalidation.py), seen
through ATN201: what changes a tensor must end a repeat, what cannot must not."""

from __future__ import annotations

import ast
import random
import textwrap

import pytest

from lint_rules.analysis.invalidation import (
    Invalidation,
    Point,
    invalidation_for,
    paths_conflict,
)
from lint_rules.analysis.model import ModuleModel
from lint_rules.checker import check_source
from lint_rules.config import Settings

ATN201 = Settings(select=("ATN201",))

HEADER = """
import torch
import torch.nn.functional as F
from contextlib import suppress

"""


def reported(body: str, header: str = HEADER) -> bool:
    source = textwrap.dedent(header) + "def f(x, y, box, xs):\n"
    source += textwrap.indent(textwrap.dedent(body), "    ")
    return bool(check_source(source, "t.py", ATN201))


def between(code: str) -> str:
    return f"a = x.sum().item()\n{code}\nb = x.sum().item()\n"


@pytest.mark.parametrize(
    "code",
    [
        "x.data[0] = 5",
        "x.T.zero_()",
        "v = x.mT\nv.fill_(1)",
        "x.real.mul_(2)",
        "x.__dict__['k'] = 1",
        "F.relu(x, True)",
        "F.relu(x, inplace=flag)",
        "F.normalize(y, 2.0, 0, 1e-12, x)",
        "F.batch_norm(y, x, None, training=True)",
        "F.embedding(y, x, max_norm=1.0)",
        "add = x.add_\nadd(1)",
        "sorted(xs, key=lambda v: x.add_(1))",
        "print(x)",
        "s = f'{x}'",
        "y.sum().backward()",
        "register(x)\nrefresh()",
        "x.attach()\nrefresh()",
        "worker.join()",
        "q.get()",
        # Read-only on a tensor, but a list's and a set's in-place methods:
        # the receiver's type is not known.
        "x.sort()",
        "z = x.add(1)",
    ],
)
def test_code_that_may_change_the_tensor_ends_the_repeat(code):
    body = between(code)
    if code == "worker.join()":  # a thread given the tensor before
        body = "worker = Thread(target=g, args=(x,))\n" + body
    if code == "q.get()":
        body = "q = make_queue(x)\n" + body
    assert not reported(body)


@pytest.mark.parametrize(
    "code",
    [
        "x.isnan()",
        "z = torch.matmul(x, y)",
        "F.relu(x)",
        "F.relu(x, False)",
        "F.batch_norm(y, x, None)",
        "F.embedding(y, x)",
        "print(x.shape, x.size(0))",
        "m = min(1, 2)",
        "refresh()",  # unknown code cannot reach a parameter not given away
        "register(box.other)\nrefresh()",  # given away: another object
        "y.data[0] = 5",
    ],
)
def test_code_that_cannot_change_the_tensor_keeps_the_repeat(code):
    assert reported(between(code))


_GLOBAL_BUFFER = HEADER + "BUF = torch.zeros(3)\n\n"


def between_buffer_syncs(code: str) -> str:
    return f"a = BUF.sum().item()\n{code}\nb = BUF.sum().item()\n"


@pytest.mark.parametrize(
    "code",
    [
        # A name may hold a generator: iterating it runs the generator's
        # code, which may change the module's buffer; a ``for`` loop and
        # ``list(...)`` iterate, and so do these.
        "for v in xs:\n    pass",
        "vs = list(xs)",
        "p, q = xs",
        "p, *q = xs",
        "[p] = xs",
        "(p, q), r = xs, 1",
        "p, q = xs if y else (1, 2)",
        "vs = [*xs]",
        "vs = (*xs,)",
        "vs = {*xs}",
        "n = len([*xs])",
        "vs = [v for v in xs]",
        "vs = {v for w in [1] for v in xs}",
        "vs = {v: 1 for v in xs}",
        "vs = [p for p, q in [xs]]",
        "for p, q in [xs]:\n    pass",
        "for i, (p, q) in enumerate([xs]):\n    pass",
        "for p, (q, r) in zip([1], [xs]):\n    pass",
        "vs = [[*xs] for _ in range(1)]",
        "vs = [1 in xs for _ in range(1)]",
        "found = 1 in xs",
        "found = 1 not in xs",
        "vs = []\nvs += xs",
        "box.vs += xs",
    ],
)
def test_iterating_what_may_be_a_generator_may_run_any_code(code):
    assert reported(between_buffer_syncs("pass"), _GLOBAL_BUFFER)
    assert not reported(between_buffer_syncs(code), _GLOBAL_BUFFER)


@pytest.mark.parametrize(
    "code",
    [
        "p, q = 1, 2",
        "(p, q), r = (1, 2), 3",
        "p, *q = [1, 2, 3]",
        "p, q = y.split(2)",
        "p, q = y.tolist()",
        "vs = [*range(3)]",
        "vs = [v for v in range(3)]",
        "vs = [p for p, q in [(1, 2)]]",
        "for p, q in [(1, 2), [3, 4]]:\n    pass",
        "for i, (p, q) in enumerate(zip([1], [2])):\n    pass",
        "for p, q in y.tolist():\n    pass",
        "found = 1 in (1, 2)",
        "n = 1\nn += 2",
    ],
)
def test_iterating_literals_and_tensors_runs_no_code(code):
    assert reported(between_buffer_syncs(code), _GLOBAL_BUFFER)


@pytest.mark.parametrize(
    "code",
    [
        # ``sum`` returns its start when there is nothing to add, and a sum
        # of lists shares their items.
        "s = sum([], x)\ns.add_(1)",
        "s = sum((), start=x)\ns.add_(1)",
        "s = sum([[x]], [])\ns[0].add_(1)",
    ],
)
def test_a_sum_may_be_its_start_or_hold_its_items(code):
    assert not reported(between(code))


@pytest.mark.parametrize(
    "code",
    [
        # Lists and tuples joined or repeated, dicts and sets merged: the new
        # container holds the operands' items. ``+x`` is ``x``.
        "c = [x] + [1]\nc[0].add_(1)",
        "c = xs + [x]\nc[-1].add_(1)",
        "c = [x] * 2\nc[0].add_(1)",
        "c = 2 * (x,)\nc[1].add_(1)",
        "c = (x,) + (1,)\nc[0].mul_(2)",
        "c = {'k': x} | {}\nc['k'].add_(1)",
        "c = {x} - set()\nc.pop().add_(1)",
        "c = +x\nc.add_(1)",
    ],
)
def test_containers_joined_by_operators_hold_the_operands_items(code):
    assert not reported(between(code))


@pytest.mark.parametrize(
    "code",
    # No container joins with a constant other than an integer's repeat.
    [
        "c = x + 1\nc.add_(1)",
        "c = x * 0.5\nc.add_(1)",
        "c = -x\nc.add_(1)",
        # ``-``, ``&``, ``^``, ``|`` between names: arithmetic.
        "c = x - y\nc.add_(1)",
        "c = x | y\nc.add_(1)",
    ],
)
def test_arithmetic_with_a_constant_makes_a_new_value(code):
    assert reported(between(code))


def test_a_container_joined_from_a_global_is_reached_by_unknown_code():
    for joined in ("[BUF] + []", "[BUF] * 1", "+BUF"):
        body = f"c = {joined}\na = c.sum().item()\nrefresh()\nb = c.sum().item()\n"
        body = body.replace("c.sum", "c[0].sum") if "[" in joined else body
        assert not reported(body, _GLOBAL_BUFFER), joined
    body = "c = BUF + 1\na = c.sum().item()\nrefresh()\nb = c.sum().item()\n"
    assert reported(body, _GLOBAL_BUFFER)


@pytest.mark.parametrize(
    "code",
    [
        # Formatting runs ``__str__``/``__format__`` wherever it happens:
        # a ``%`` of a string, and an f-string inside a comprehension.
        "s = '%s' % x",
        "s = '%s and %s' % (y, x)",
        "s = b'%r' % [x]",
        "s = [f'{x}' for _ in range(1)]",
        "s = ['%s' % x for _ in range(1)]",
        "s = [f'{v}' for v in [x]]",
    ],
)
def test_formatting_anywhere_ends_the_repeat(code):
    assert not reported(between(code))


@pytest.mark.parametrize(
    "code",
    [
        "s = '%d' % len(x)",
        "s = '%s' % (x.shape,)",
        "m = y % 2",
        "s = [f'{x.shape}' for _ in range(1)]",
    ],
)
def test_formatting_metadata_or_a_remainder_keeps_the_repeat(code):
    assert reported(between(code))


@pytest.mark.parametrize(
    "code, kept",
    [
        # A nested function's annotations are evaluated where it is defined.
        ("def inner(v: refresh()):\n    pass", False),
        ("def inner(*, v: refresh() = 1):\n    pass", False),
        ("def inner(*v: refresh()):\n    pass", False),
        ("def inner(v) -> refresh():\n    pass", False),
        ("def inner(v: int, w: torch.Tensor) -> list[int]:\n    pass", True),
    ],
)
def test_annotations_of_a_nested_function_run_where_it_is_defined(code, kept):
    assert reported(between_buffer_syncs(code), _GLOBAL_BUFFER) is kept


@pytest.mark.parametrize("code", ["import plugin", "from plugin import hook"])
def test_an_import_may_run_the_module_code(code):
    assert not reported(between_buffer_syncs(code), _GLOBAL_BUFFER)
    assert reported(between(code))  # a parameter's tensor is out of its reach


@pytest.mark.parametrize(
    "before, store, kept",
    [
        # A store into an object other code holds may be one into the
        # module's namespace, rebinding the global.
        ("g = globals()", "g['BUF'] = y", False),
        ("pass", "f.__globals__['BUF'] = y", False),
        ("pass", "sys.modules[__name__].BUF = y", False),
        ("pass", "HOLD.t = y", False),
        # The function's own objects are not the namespace.
        ("pass", "box.k = 1", True),
        ("d = {}", "d['BUF'] = y", True),
    ],
)
def test_a_store_into_what_other_code_holds_may_rebind_a_global(before, store, kept):
    body = f"{before}\n" + between_buffer_syncs(store)
    assert reported(body, _GLOBAL_BUFFER) is kept


def test_a_local_from_unknown_code_may_change_at_any_call():
    assert not reported(
        "t = get()\na = t.sum().item()\nrefresh()\nb = t.sum().item()\n"
    )
    assert reported(
        "t = x.clone()\na = t.sum().item()\nrefresh()\nb = t.sum().item()\n"
    )


def test_a_builtin_redefined_by_the_module_is_unknown_code():
    header = HEADER + "def len(t):\n    t.add_(1)\n\n"
    assert not reported(between("len(x)"), header)
    assert reported(between("len(x)"))


def test_view_attributes_and_namespaces_conflict():
    assert paths_conflict(("x", "data", "[]"), ("x", "[]"))
    assert paths_conflict(("x", "T"), ("x", "[]"))
    assert paths_conflict(("o", "__dict__", "[]"), ("o", "k"))
    assert not paths_conflict(("o", "j"), ("o", "k"))


def _analysis(source: str):
    tree = ast.parse(textwrap.dedent(source))
    model = ModuleModel(tree)
    function = model.functions[0].node
    flow = model.flow(function)
    return flow, invalidation_for(flow, model.scope(function))


@pytest.mark.parametrize(
    ("code", "kept"),
    [
        ("c = a + 1", False),
        ("c = a.sum()", False),
        ("print(f'{a}')", False),
        ("c = x[a]", False),
        ("b = a", True),
        ("c = (a, 1)", True),
        ("keep(a)", True),
        ("c = a.view(-1)", True),
        ("g = lambda: a", True),
    ],
)
def test_referenced_between(code, kept):
    flow, analysis = _analysis(
        f"def f(x):\n    a = x * 2\n    {code}\n    a = x * 2\n    return a\n"
    )
    first, second = flow.function.body[0], flow.function.body[2]
    found = analysis.referenced_between(
        ("a",), Point(flow.block_of(first), first), Point(flow.block_of(second), second)
    )
    assert (found is not None) is kept


# ------------------------------------------- reaching and aliases, by runs


class _Plain(Invalidation):
    """The analysis as it was before runs of blocks: reaching sets listed
    block by block, and every alias entry kept (the slow oracle)."""

    def reaching(self, block):
        seen, stack = {block.index}, list(block.preds)
        while stack:
            pred = stack.pop()
            if pred.index not in seen:
                seen.add(pred.index)
                stack.extend(pred.preds)
        return frozenset(seen)

    def _alias(self, key, other, exact):
        if key == other:
            return
        if self._alias_site == -2:
            self._alias_site = self._site_of(self._site_node)
        entries = self._aliases.setdefault(key[0], {}).setdefault(key, [])
        entry = (other, exact, self._alias_site)
        if entry not in entries:
            entries.append(entry)


_RUNS = [
    # Straight code, a loop with break and continue, try/finally, with, a
    # loop nothing enters (after a return), and aliases made again and again.
    """
    def f(m, a, b, xs, c, lock):
        m.j = a
        y = m
        for x in xs:
            m.k = b
            if c:
                break
            n = x
            m.j = n
            continue
        else:
            m.j = a
        try:
            m.k = y.j
            q = m.k
        finally:
            m.j = a
        with lock:
            z = q
            m.j = z
        while c:
            m.j = a
            y.k = b
        return m
        while True:
            m.j = b
            m.k = a
    """,
    """
    def g(a, b, c, xs):
        x = a
        while True:
            y = x
            x = b
            if c:
                x = a
                continue
            for v in xs:
                b = y
            else:
                break
        return x
    """,
]


def _functions(source: str):
    tree = ast.parse(textwrap.dedent(source))
    model = ModuleModel(tree)
    for function in model.functions:
        yield model.flow(function.node), model.scope(function.node)


def _sources():
    from tests.test_atn202_scaling import _random_function

    yield from _RUNS
    for seed in range(30):
        yield _random_function(random.Random(seed), 40)


@pytest.mark.parametrize("source", list(_sources()))
def test_reaching_and_aliases_by_runs_agree_with_the_plain_lists(source):
    for flow, scope in _functions(source):
        analysis, plain = Invalidation(flow, scope), _Plain(flow, scope)
        count = len(flow.blocks)
        paths = {("m",), ("m", "j"), ("m", "k"), ("y", "j"), ("x",), ("a",)}
        for by_key in plain.aliases.values():
            for key, entries in by_key.items():
                paths.add(key)
                paths.update(other for other, _, _ in entries)
        for block in flow.blocks:
            expected = plain.reaching(block)
            within = analysis.reaching(block)
            assert {i for i in range(-1, count + 1) if i in within} == expected
            for path in sorted(paths):
                for store in (False, True):
                    assert analysis.expand(path, store, within) == plain.expand(
                        path, store, expected
                    ), (block, path, store)


@pytest.mark.parametrize(
    ("code", "kept"),
    [
        # list's own methods on a local bound only to list displays run no
        # other code: a tensor from unknown code stays as it was.
        ("out = []\nout.append(a)", True),
        ("out = [v for v in range(3)]\nout.reverse()\nout.clear()", True),
        ("out: list = []\nc = out.copy()", True),
        # Any other method (``sort`` compares, ``pop`` reads an index), or a
        # receiver that may be anything: a parameter, a rebound local, a
        # local a loop binds, ``+=``.
        ("out = []\nout.sort()", False),
        ("out = []\nout.pop(0)", False),
        ("xs.append(1)", False),
        ("out = []\nif y:\n    out = make()\nout.append(1)", False),
        ("for out in xs:\n    pass\nout = []\nout.append(1)", False),
        ("out = []\nout += xs\nout.append(1)", False),
    ],
)
def test_a_list_method_of_a_local_list_runs_no_other_code(code, kept):
    body = "t = get()\na = t.sum().item()\n" + code + "\nb = t.sum().item()\n"
    assert reported(body) is kept
