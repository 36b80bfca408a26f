"""The tensor effect model and its path questions, over every kind of control flow."""

from __future__ import annotations

import ast
import textwrap

import pytest

from lint_rules.analysis.flow import FunctionFlow, Kind
from lint_rules.analysis.model import ModuleModel
from lint_rules.analysis.tensor_effects import (
    TensorUses,
    UseEffect,
    allocation_of,
    index_kind,
    literal_zero,
    local_allocations,
)

W, R, U, B = "FULL_WRITE", "READ", "UNKNOWN", "REBIND"


def analyse(body: str, name: str = "x"):
    """Uses of ``name`` after its first binding inside ``def f``."""
    source = "import torch\nimport numpy as np\n\ndef f(y, n, c, d, xs, k):\n"
    source += textwrap.indent(textwrap.dedent(body), "    ")
    tree = ast.parse(source)
    function = tree.body[2]
    model = ModuleModel(tree)
    flow = model.flow(function)
    uses = TensorUses(flow, model.scope(function))
    binding = next(e for e in flow.events_of(name) if e.kind is Kind.STORE)
    return uses, name, binding


def firsts(body: str, name: str = "x") -> tuple[list[tuple[str, int]], bool]:
    """(effect, row in ``body``) of each first use, and whether the exit is reached."""
    uses, name, binding = analyse(body, name)
    found, reaches_exit = uses.first_uses(name, binding)
    return [(use.effect.name, use.row - 4) for use in found], reaches_exit


def full_write_on_every_path(body: str) -> bool:
    uses, name, binding = analyse(body)
    return uses.first_use_is_full_write_on_every_path(name, binding)


def read_rows(body: str) -> list[int]:
    uses, name, binding = analyse(body)
    return [use.row - 4 for use in uses.first_reads_on_some_path(name, binding)]


def effect_of(statement: str) -> str:
    """The effect of the first use of x in ``statement`` (after ``x = ...``)."""
    found, _ = firsts(f"x = torch.zeros(n)\n{statement}\n")
    assert found, statement
    return found[0][0]


# --------------------------------------------------------------------------- single uses


@pytest.mark.parametrize(
    "statement",
    [
        "x.copy_(y)",
        "x.fill_(1.0)",
        "x.zero_()",
        "x.uniform_()",
        "x.normal_(0, 1)",
        "x.random_(10)",
        "x.bernoulli_(0.5)",
        "x.exponential_()",
        "x.geometric_(0.5)",
        "x.cauchy_()",
        "x.log_normal_()",
        "x[:] = y",
        "x[...] = y",
        "x[:, :] = y",
        "x[:, ...] = y",
        "x[:].copy_(y)",
        "torch.add(y, 1, out=x)",
        "torch.cumsum(y, 0, out=x)",
        "x[:], z = y, 1",
    ],
)
def test_full_writes(statement):
    assert effect_of(statement) == W


@pytest.mark.parametrize(
    "statement",
    [
        "x += y",
        "x -= 1",
        "z = x + 1",
        "z = 1 - x",
        "z = -x",
        "z = x < y",
        "z = y == x",
        "z = x @ y",
        "x.add_(y)",
        "x.mul_(2)",
        "x.sub_(y)",
        "x.div_(2)",
        "x.index_add_(0, k, y)",
        "x.scatter_add_(0, k, y)",
        "x.scatter_reduce_(0, k, y, 'sum')",
        "x.masked_fill_(k, 0)",
        "z = x.sum()",
        "z = x.max()",
        "z = x.min()",
        "z = x.mean()",
        "z = x.item()",
        "z = x.tolist()",
        "z = x.clone()",
        "z = x.to(d).sum()",
        "z = x.cpu().tolist()",
        "z = x.cuda() + 1",
        "z = x.numpy().sum()",
        "z = x.float().mean()",
        "z = x[k]",
        "z = x[k, :]",
        "w = x[k]",
        "z = x[k].sum()",
        "z = x[:n].sum()",
        "z = x[:n] + 1",
        "y.copy_(x)",
        "y.copy_(x[:n])",
        "x[:n] += 1",
        "y += x",
    ],
)
def test_reads(statement):
    assert effect_of(statement) == R


@pytest.mark.parametrize(
    "statement",
    [
        "f(x)",
        "f(x[k])",
        "f(out=x[k])",
        "return x[k]",
        "z = x.to(d)",
        "z = x.numpy()",
        "x.float().copy_(y)",
        "x.cpu()[:] = y",
        "return x",
        "z = x",
        "c.buf = x",
        "k[0] = x",
        "z = [x]",
        "z = x.view(-1)",
        "z = x[:n]",
        "z = x[1:]",
        "z = x[0]",
        "x[:n] = y",
        "x[1:] = y",
        "x[0] = y",
        "x[k] = y",
        "x[:n].copy_(y)",
        "x[k].fill_(0)",
        "x.scatter_(0, k, y)",
        "x.index_copy_(0, k, y)",
        "z = x.T",
        "for r in x:\n    pass",
        "del x[0]",
        "z = x[k].shape",
        "torch.add(y, 1, out=x[:n])",
        "torch.empty(n, out=x)",
        "np.add(y, 1, out=x)",
        "x.copy_(y) if c else None",
        "z = c and x.fill_(0)",
        "g = lambda: x.fill_(0)",
    ],
)
def test_unknown_uses(statement):
    assert effect_of(statement) == U


@pytest.mark.parametrize("statement", ["x = y", "del x", "x: int = 3", "x, z = y"])
def test_rebinding(statement):
    assert effect_of(statement) == B


def test_conditional_read_is_still_a_read():
    assert effect_of("z = x.sum() if c else 0") == R


@pytest.mark.parametrize(
    "statement",
    [
        "z = x.shape",
        "z = x.dtype",
        "z = x.size(0)",
        "z = x.numel()",
        "z = len(x)",
        "z = x.dim()",
        "assert isinstance(x, torch.Tensor)",
        "assert x is not None",
        "z = y if x is None else x.shape",
    ],
)
def test_metadata_uses_are_skipped_over(statement):
    found, _ = firsts(f"x = torch.zeros(n)\n{statement}\nx.copy_(y)\n")
    assert found == [(W, 3)]


def test_a_shadowed_len_is_not_metadata():
    found, _ = firsts("len = print\nx = torch.zeros(n)\nlen(x)\n")
    assert found == [(U, 3)]


def test_copy_from_the_buffer_itself_is_a_read_first():
    assert firsts("x = torch.zeros(n)\nx.copy_(x + 1)\n")[0] == [(R, 2)]
    assert firsts("x = torch.zeros(n)\nx.fill_(x.sum())\n")[0] == [(R, 2)]
    assert firsts("x = torch.zeros(n)\nx.copy_(f(x))\n")[0] == [(U, 2)]
    # Metadata of the buffer in the arguments does not stop the write.
    assert firsts("x = torch.zeros(n)\nx.copy_(y.view(x.shape))\n")[0] == [(W, 2)]


def test_right_hand_side_is_evaluated_before_the_subscript_store():
    assert firsts("x = torch.zeros(n)\nx[:] = x + 1\n")[0] == [(R, 2)]


def test_nested_scope_use_is_unknown():
    assert effect_of("def g():\n    x.fill_(0)") == U


# --------------------------------------------------------------------------- control flow


def test_straight_line_write():
    assert full_write_on_every_path("x = torch.zeros(n)\nx.copy_(y)\nreturn x\n")


def test_if_else_both_write():
    body = """
    x = torch.zeros(n)
    if c:
        x.copy_(y)
    else:
        x.fill_(0)
    return x
    """
    assert firsts(body)[0] == [(W, 4), (W, 6)]
    assert full_write_on_every_path(body)


def test_if_without_else_leaves_a_path_without_write():
    body = """
    x = torch.zeros(n)
    if c:
        x.copy_(y)
    return x
    """
    assert firsts(body)[0] == [(W, 4), (U, 5)]
    assert not full_write_on_every_path(body)


def test_if_elif_else():
    body = """
    x = torch.zeros(n)
    if c:
        x.copy_(y)
    elif d:
        x[:] = 1
    else:
        x.zero_()
    return x
    """
    assert full_write_on_every_path(body)
    without_else = body.replace("    else:\n        x.zero_()\n", "")
    assert not full_write_on_every_path(without_else)


def test_elif_branch_reads():
    body = """
    x = torch.zeros(n)
    if c:
        x.copy_(y)
    elif d:
        x += 1
    else:
        x.zero_()
    """
    assert read_rows(body) == [6]


def test_path_reaching_exit_without_use_does_not_break_the_write():
    body = """
    x = torch.zeros(n)
    if c:
        return None
    x.copy_(y)
    return x
    """
    found, reaches_exit = firsts(body)
    assert found == [(W, 5)] and reaches_exit
    assert full_write_on_every_path(body)


def test_rebinding_path_does_not_break_the_write():
    body = """
    x = torch.zeros(n)
    if c:
        x = y
    else:
        x.copy_(y)
    return x
    """
    assert firsts(body)[0] == [(B, 4), (W, 6)]
    assert full_write_on_every_path(body)


def test_only_rebinding_is_not_a_write():
    assert not full_write_on_every_path("x = torch.zeros(n)\nx = y\nreturn x\n")
    assert not full_write_on_every_path("x = torch.zeros(n)\nreturn y\n")


def test_for_body_may_run_zero_times():
    body = """
    x = torch.zeros(n)
    for z in xs:
        x.copy_(z)
    return x
    """
    assert firsts(body)[0] == [(W, 4), (U, 5)]
    assert not full_write_on_every_path(body)


def test_for_with_nothing_after_the_loop():
    body = """
    x = torch.zeros(n)
    for z in xs:
        x.copy_(z)
        f(x)
    """
    found, reaches_exit = firsts(body)
    assert found == [(W, 4)] and reaches_exit
    assert full_write_on_every_path(body)


def test_for_loop_target_is_not_bound_when_the_loop_runs_zero_times():
    # The target is bound only when an item is fetched: an empty iterable
    # leaves the earlier value in place (a fix to the flow model).
    body = """
    x = torch.zeros(n)
    for x in xs:
        pass
    return x
    """
    assert firsts(body)[0] == [(B, 3), (U, 5)]


def test_for_else_runs_when_the_loop_ends_without_break():
    body = """
    x = torch.zeros(n)
    for z in xs:
        if c:
            break
    else:
        x.copy_(y)
    return x.sum()
    """
    assert firsts(body)[0] == [(W, 7), (R, 8)]


def test_continue_skips_to_the_next_item():
    body = """
    x = torch.zeros(n)
    for z in xs:
        if c:
            continue
        x.copy_(z)
    return x
    """
    assert not full_write_on_every_path(body)


def test_allocation_inside_the_loop_is_written_each_iteration():
    body = """
    for z in xs:
        x = torch.zeros(n)
        x.copy_(z)
        f(x)
    """
    assert full_write_on_every_path(body)


def test_allocation_inside_the_loop_read_next_iteration():
    body = """
    for z in xs:
        x = torch.zeros(n)
        if c:
            continue
        x.copy_(z)
    """
    found, _ = firsts(body)
    assert found == [(B, 3), (W, 6)]
    assert full_write_on_every_path(body)


def test_while_body_may_run_zero_times():
    body = """
    x = torch.zeros(n)
    while c:
        x.copy_(y)
    return x
    """
    assert not full_write_on_every_path(body)


def test_while_true_runs_at_least_once():
    body = """
    x = torch.zeros(n)
    while True:
        x.copy_(y)
        if c:
            break
    return x
    """
    assert full_write_on_every_path(body)


def test_read_inside_loop_before_the_write():
    body = """
    x = torch.zeros(n)
    while c:
        y += x
        x.copy_(y)
    """
    assert read_rows(body) == [4]


def test_try_handler_may_see_the_buffer_before_the_write():
    body = """
    x = torch.zeros(n)
    try:
        f(y)
        x.copy_(y)
    except ValueError:
        return x.sum()
    return x
    """
    found, _ = firsts(body)
    assert (R, 7) in found
    assert not full_write_on_every_path(body)


def test_write_before_try_is_seen_by_the_handler():
    body = """
    x = torch.zeros(n)
    x.copy_(y)
    try:
        f(x)
    except ValueError:
        return x.sum()
    """
    assert full_write_on_every_path(body)


def test_finally_runs_after_an_early_return():
    body = """
    x = torch.zeros(n)
    try:
        if c:
            return None
        x.copy_(y)
    finally:
        f(x.sum())
    """
    found, _ = firsts(body)
    assert (R, 8) in found
    assert not full_write_on_every_path(body)


def test_finally_after_write_in_try_and_handler():
    body = """
    x = torch.zeros(n)
    try:
        x.copy_(y)
    except ValueError:
        x.zero_()
    finally:
        f(x)
    """
    # An exception before the copy reaches the handler, which writes; the
    # handler itself may raise into the finally before its write.
    found, _ = firsts(body)
    assert (U, 8) in found
    assert not full_write_on_every_path(body)


def test_with_body_runs():
    body = """
    x = torch.zeros(n)
    with torch.no_grad():
        x.copy_(y)
    return x
    """
    assert full_write_on_every_path(body)


@pytest.mark.parametrize(
    "manager",
    ["suppress(RuntimeError)", "scope()", "self_made", "torch.cuda.stream(s)()"],
)
def test_with_body_may_not_finish(manager):
    # A context manager that may swallow an exception may leave its body
    # after any statement: the zeros may be returned unwritten.
    body = f"""
    x = torch.zeros(n)
    with {manager}:
        x.copy_(y)
    return x
    """
    assert not full_write_on_every_path(body)


def test_async_with_body_may_not_finish():
    source = (
        "import torch\nasync def f(y, n, m):\n    x = torch.zeros(n)\n"
        "    async with m:\n        x.copy_(y)\n    return x\n"
    )
    tree = ast.parse(source)
    model = ModuleModel(tree)
    function = tree.body[1]
    flow = model.flow(function)
    uses = TensorUses(flow, model.scope(function))
    binding = next(e for e in flow.events_of("x") if e.kind is Kind.STORE)
    assert not uses.first_use_is_full_write_on_every_path("x", binding)


def test_with_item_use_comes_first():
    body = """
    x = torch.zeros(n)
    with f(x):
        x.copy_(y)
    """
    assert firsts(body)[0] == [(U, 3)]


def test_match_every_case_writes_with_a_wildcard():
    body = """
    x = torch.zeros(n)
    match c:
        case 1:
            x.copy_(y)
        case _:
            x.fill_(0)
    return x
    """
    assert full_write_on_every_path(body)


def test_match_without_wildcard_may_match_nothing():
    body = """
    x = torch.zeros(n)
    match c:
        case 1:
            x.copy_(y)
        case 2:
            x.fill_(0)
    return x
    """
    assert not full_write_on_every_path(body)


def test_match_guard_use_comes_first():
    body = """
    x = torch.zeros(n)
    match c:
        case 1 if x.sum() > 0:
            x.copy_(y)
        case _:
            x.fill_(0)
    """
    assert read_rows(body) == [4]


def test_raise_ends_the_path():
    body = """
    x = torch.zeros(n)
    if c:
        raise ValueError(x)
    x.copy_(y)
    """
    assert firsts(body)[0] == [(U, 4), (W, 5)]
    body_without_use = body.replace("ValueError(x)", "ValueError()")
    assert full_write_on_every_path(body_without_use)


def test_break_leaves_the_loop_before_the_write():
    body = """
    x = torch.zeros(n)
    while True:
        if c:
            break
        x.copy_(y)
        return x
    return x.sum()
    """
    assert read_rows(body) == [8]


# --------------------------------------------------------------------------- allocations


def allocation(expr: str, header: str = "import torch\n"):
    tree = ast.parse(header + f"v = {expr}\n")
    return allocation_of(tree.body[-1].value, ModuleModel(tree).imports)


@pytest.mark.parametrize(
    ("header", "expr", "function"),
    [
        ("import torch\n", "torch.zeros(3)", "zeros"),
        ("import torch as th\n", "th.zeros_like(y)", "zeros_like"),
        ("from torch import zeros\n", "zeros(3)", "zeros"),
        ("from torch import zeros_like as zl\n", "zl(y)", "zeros_like"),
        ("", "y.new_zeros(3)", "new_zeros"),
        ("", "y.new_full((3,), 0)", "new_full"),
        ("import torch\n", "torch.full((3,), 0.0)", "full"),
        ("import torch\n", "torch.full((3,), fill_value=False)", "full"),
        ("import torch\n", "torch.full_like(y, -0.0)", "full_like"),
        ("import torch\n", "torch.empty(3)", "empty"),
        ("import torch\n", "torch.empty_strided((3,), (1,))", "empty_strided"),
        ("from torch import empty_like\n", "empty_like(y)", "empty_like"),
        ("", "y.new_empty(3)", "new_empty"),
    ],
)
def test_allocations_are_recognized(header, expr, function):
    found = allocation(expr, header)
    assert found is not None and found.function == function


@pytest.mark.parametrize(
    ("header", "expr"),
    [
        ("import numpy as np\n", "np.zeros(3)"),
        ("from numpy import zeros\n", "zeros(3)"),
        ("", "zeros(3)"),
        ("import torch\n", "torch.full((3,), 1)"),
        ("import torch\n", "torch.full((3,), v)"),
        ("import torch\n", "torch.zeros(3, out=y)"),
        ("import torch\n", "torch.zeros(3, **kw)"),
        ("import torch\n", "torch.full(*args)"),
        ("import torch\n", "torch.ones(3)"),
    ],
)
def test_non_allocations(header, expr):
    assert allocation(expr, header) is None


def test_full_infers_its_dtype_from_the_fill():
    assert allocation("torch.full((3,), 0)").inferred_dtype == "int64"
    assert allocation("torch.full((3,), False)").inferred_dtype == "bool"
    assert allocation("torch.full((3,), 0.0)").inferred_dtype is None
    assert allocation("torch.full((3,), 0, dtype=torch.int32)").inferred_dtype is None
    assert allocation("torch.full_like(y, 0)").inferred_dtype is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("0", "int"),
        ("0.0", "float"),
        ("False", "bool"),
        ("-0.0", "float"),
        ("+0", "int"),
        ("1", None),
        ("0j", None),
        ("'0'", None),
        ("None", None),
        ("-False", None),
    ],
)
def test_literal_zero(text, kind):
    assert literal_zero(ast.parse(text, mode="eval").body) == kind


@pytest.mark.parametrize(
    ("index", "kind"),
    [
        (":", "full"),
        ("...", "full"),
        (":, :", "full"),
        (":, ...", "full"),
        (":n", "view"),
        ("1:", "view"),
        ("0", "view"),
        ("-1", "view"),
        (":, 0", "view"),
        ("None", "view"),
        ("i", "gather"),
        ("idx, :", "gather"),
        ("x > 0", "gather"),
    ],
)
def test_index_kind(index, kind):
    subscript = ast.parse(f"x[{index}]", mode="eval").body
    assert index_kind(subscript.slice) == kind


def test_local_allocations_skip_names_a_closure_uses():
    source = textwrap.dedent(
        """
        import torch
        def f(n):
            g = lambda: a.sum()
            a = torch.zeros(n)
            b = torch.zeros(n)
            c = d = torch.zeros(n)
            return g, b, c, d
        """
    )
    tree = ast.parse(source)
    flow = FunctionFlow(tree.body[1])
    names = [
        item.target.id for item in local_allocations(flow, ModuleModel(tree).imports)
    ]
    assert names == ["b"]


def test_a_local_named_like_the_import_is_not_torch():
    source = (
        "from torch import zeros\ndef f(zeros, n):\n    x = zeros(n)\n    x.copy_(n)\n"
    )
    tree = ast.parse(source)
    flow = FunctionFlow(tree.body[1])
    scope = ModuleModel(tree).scope(tree.body[1])
    assert local_allocations(flow, scope) == []


@pytest.mark.parametrize(
    ("header", "found"),
    [
        ("def f(y, n):\n    import torch\n", ["x"]),
        ("def f(y, n):\n    from torch import zeros as torch_zeros\n", []),
        ("import torch\ndef f(y, n, torch):\n", []),
        ("import torch\ndef f(y, n):\n    torch = y\n", []),
        ("from torch import *\ndef f(y, n):\n", []),
        ("import torch\ndef g():\n    global torch\n    torch = 1\ndef f(y, n):\n", []),
        ("import torch\ndef outer(torch):\n    def f(y, n):\n", []),
    ],
)
def test_who_torch_is_comes_from_the_scope(header, found):
    source = header + "    x = torch.zeros(n)\n    x[:] = y\n"
    source = textwrap.dedent(source) if source.startswith(" ") else source
    lines = source.splitlines()
    if lines[-3].startswith("    def f"):  # nested: indent the body once more
        source = "\n".join(lines[:-2] + ["    " + line for line in lines[-2:]]) + "\n"
    tree = ast.parse(source)
    model = ModuleModel(tree)
    info = next(info for info in model.functions if info.node.name == "f")
    flow = FunctionFlow(info.node)
    names = [item.target.id for item in local_allocations(flow, model.scope(info.node))]
    assert names == found


def test_effect_enum_has_every_kind():
    assert {e.name for e in UseEffect} == {W, R, U, B, "TRANSPARENT"}


@pytest.mark.parametrize(
    ("expr", "empty"),
    [
        ("torch.empty(0)", True),
        ("torch.empty(0, 4)", True),
        ("torch.empty((4, 0))", True),
        ("torch.empty(size=[0])", True),
        ("y.new_empty((0,))", True),
        ("torch.empty_strided((0, 2), (2, 1))", True),
        ("torch.full((0,), 0.0)", True),
        ("torch.empty(4)", False),
        ("torch.empty(n, 0 + 1)", False),
        ("torch.empty_strided((2, 2), (0, 1))", False),
        ("torch.empty_like(y)", False),
        ("torch.empty(4, device='meta')", True),
        ("torch.empty_like(y, device=torch.device('meta'))", True),
        ("torch.empty(4, device='cuda')", False),
    ],
)
def test_zero_size_and_meta_allocations_have_no_data(expr, empty):
    assert allocation(expr).has_no_data is empty


# --------------------------------------------------------------------------- refinements


def test_literal_range_loop_runs_at_least_once():
    body = """
    x = torch.zeros(n)
    for z in range(3):
        x.copy_(y)
    return x
    """
    assert full_write_on_every_path(body)
    assert not full_write_on_every_path(body.replace("range(3)", "range(k)"))
    assert not full_write_on_every_path(body.replace("range(3)", "range(3, 3)"))
    assert full_write_on_every_path(body.replace("range(3)", "(1, 2)"))
    assert not full_write_on_every_path(body.replace("range(3)", "()"))


def test_literal_loop_target_is_always_bound():
    body = """
    x = torch.zeros(n)
    for x in (1, 2):
        pass
    return x
    """
    assert firsts(body)[0] == [(B, 3)]


def test_code_after_try_does_not_run_when_an_exception_passes_finally():
    body = """
    x = torch.empty(n)
    try:
        f(y)
        x.copy_(y)
    finally:
        d.sync()
    return x.sum()
    """
    # Raised before the copy: the finally runs and the exception goes on.
    found, reaches_exit = firsts(body)
    assert found == [(W, 5)] and reaches_exit
    assert read_rows(body) == []


def test_finally_entered_normally_goes_on():
    body = """
    x = torch.empty(n)
    try:
        f(y)
    finally:
        d.sync()
    return x.sum()
    """
    assert read_rows(body) == [7]


def test_a_caught_exception_goes_on_after_the_try():
    body = """
    x = torch.empty(n)
    try:
        f(y)
        x.copy_(y)
    except ValueError:
        pass
    finally:
        d.sync()
    return x.sum()
    """
    assert read_rows(body) == [10]


def test_return_through_finally_leaves_the_function():
    body = """
    x = torch.empty(n)
    try:
        if c:
            return None
        x.copy_(y)
    finally:
        d.sync()
    return x.sum()
    """
    assert read_rows(body) == []


@pytest.mark.parametrize(
    ("binding", "kind"),
    [
        ("i = 0", "view"),
        ("i = len(y)", "view"),
        ("i = slice(0, n)", "view"),
        ("for i in range(n):\n    pass", "view"),
        ("for i, v in enumerate(xs):\n    pass", "view"),
        ("i = k", "gather"),
        ("i = y > 0", "gather"),
        ("for i in xs:\n    pass", "gather"),
        ("for v, i in enumerate(xs):\n    pass", "gather"),
        ("i = 0\ni = k", "gather"),
        ("i, v = slice(None), None", "view"),
        ("v, i = 0, k", "gather"),
        ("i, v = xs", "gather"),
    ],
)
def test_names_holding_an_int_or_a_slice_index_a_view(binding, kind):
    found, _ = firsts(f"{binding}\nx = torch.zeros(n)\nz = x[:, i]\n")
    assert found == [(U if kind == "view" else R, binding.count("\n") + 3)]
