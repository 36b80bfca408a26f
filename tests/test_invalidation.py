"""What code between two syncs may change (analysis/invalidation.py), seen
through ATN201: what changes a tensor must end a repeat, what cannot must not."""

from __future__ import annotations

import ast
import textwrap

import pytest

from lint_rules.analysis.invalidation import Point, invalidation_for, paths_conflict
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
