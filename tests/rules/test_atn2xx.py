"""ATN201 repeated-host-sync and ATN202 redundant-reassignment: positives, the
design's negatives, the invalidation analysis they share, and their composition."""

from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path

import pytest

from lint_rules.checker import check_source as _check_source
from lint_rules.cli import main
from lint_rules.config import Settings
from lint_rules.fixer import fix_text
from lint_rules.rules import Registry
from lint_rules.rules.atn201_repeated_host_sync import RepeatedHostSync
from lint_rules.rules.atn202_redundant_reassignment import RedundantReassignment

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
RULES = Registry((RepeatedHostSync, RedundantReassignment))
# The mechanism, wherever it runs: reporting is not limited to per-step code.
BOTH = RULES.settings(select=("ATN2",), hot_paths_only=False)
ATN201 = RULES.settings(select=("ATN201",))
ATN202 = RULES.settings(select=("ATN202",), hot_paths_only=False)


def check_source(text, filename, settings, **kwargs):
    """The checker, choosing between these two rules."""
    return _check_source(text, filename, settings, registry=RULES, **kwargs)


COMPOSITION = (
    "def replay(m, s, step, y):\n"
    "    max_len = s.max().item()\n"
    "    m.k = max_len + (step + 1)\n"
    "    m.buf.copy_(y)\n"
    "    m.k = s.max().item() + (step + 1)\n"
)
COMPOSITION_FIXED = (
    "def replay(m, s, step, y):\n"
    "    max_len = s.max().item()\n"
    "    m.k = max_len + (step + 1)\n"
    "    m.buf.copy_(y)\n"
)


def findings(source: str, settings: Settings = BOTH) -> list[tuple[int, int, str]]:
    errors: list[str] = []
    found = check_source(textwrap.dedent(source), "t.py", settings, errors=errors)
    assert errors == []
    return [(f.location.row, f.location.column, f.code) for f in found]


def codes(source: str, settings: Settings = BOTH) -> list[tuple[int, str]]:
    return [(row, code) for row, _, code in findings(source, settings)]


def fixed(source: str, settings: Settings = BOTH, unsafe: bool = False) -> str:
    result = fix_text(
        textwrap.dedent(source), "t.py", settings, unsafe_fixes=unsafe, registry=RULES
    )
    assert result.error is None
    ast.parse(result.text)
    return result.text


def dedent(text: str) -> str:
    return textwrap.dedent(text)


# ------------------------------------------------------------------- ATN201: positives


def test_repeated_item_is_replaced_by_the_bound_name():
    source = """
    def replay(metadata, seq_lens_cpu, step):
        max_len = seq_lens_cpu.max().item()
        metadata.max_seq_len_k = max_len + step
        metadata.limit = seq_lens_cpu.max().item() // 16
    """
    assert findings(source, ATN201) == [(5, 22, "ATN201")]
    assert fixed(source, ATN201) == dedent(
        """
    def replay(metadata, seq_lens_cpu, step):
        max_len = seq_lens_cpu.max().item()
        metadata.max_seq_len_k = max_len + step
        metadata.limit = max_len // 16
    """
    )


def test_finding_message_names_the_first_line():
    source = "def f(x):\n    a = x.sum().item()\n    return x.sum().item()\n"
    (finding,) = check_source(source, "t.py", ATN201)
    assert "x.sum().item()" in finding.message
    assert "line 2" in finding.message
    assert (finding.end_location.row, finding.end_location.column) == (3, 26)


def test_unbound_first_value_is_reported_without_fix():
    source = """
    def f(x, m):
        if x.sum().item() > 0:
            m.total = int(x.sum().item())
    """
    (finding,) = check_source(dedent(source), "t.py", ATN201)
    assert finding.location.row == 4 and finding.fix is None


def test_first_in_enclosing_block_dominates_a_nested_repeat():
    source = """
    def f(x, c):
        n = x.max().item()
        if c:
            while c:
                c = x.max().item() > 3
    """
    assert codes(source, ATN201) == [(6, "ATN201")]
    assert "c = n > 3" in fixed(source, ATN201)


def test_inner_chain_of_int_is_found():
    source = "def f(x):\n    n = x.item()\n    return int(x.item()) + 1\n"
    assert (
        fixed(source, ATN201) == "def f(x):\n    n = x.item()\n    return int(n) + 1\n"
    )


def test_repeat_in_one_statement_in_evaluation_order():
    source = "def f(x):\n    return x.item() + x.item()\n"
    assert codes(source, ATN201) == [(2, "ATN201")]
    assert findings(source, ATN201)[0][1] == 23


def test_value_of_an_assignment_is_evaluated_before_its_target():
    # The value's `x.item()` runs first, so the target's is the repeat.
    source = "def f(x, t):\n    t[x.item()] = x.item()\n"
    assert findings(source, ATN201) == [(2, 7, "ATN201")]


@pytest.mark.parametrize(
    "between",
    [
        "m.buf.copy_(y)",  # another object's in-place write
        "m.other = y",  # another attribute of the same object
        "n = len(x)",  # read-only builtins
        "ok = isinstance(x, int) and min(1, 2) < max(3, 4)",
        "z = int(y)",
        "z = torch.cumsum(x, dim=0)",  # torch functions leave their arguments alone
        "z = F.pad(x, (1, 0))",
        "z = x.to(torch.int32) + 1",  # read-only methods
        "print(x.shape, x.size(0))",
        "x2 = x.view(-1)",  # a view, not changed
        "torch.cuda.synchronize()",  # unknown code cannot reach a private local
        "y.add_(1)",  # a distinct parameter is a distinct object
    ],
)
def test_code_that_cannot_change_the_receiver_does_not_invalidate(between):
    source = f"""
    import torch
    import torch.nn.functional as F

    def f(m, x, y):
        n = x.max().item()
        {between}
        return x.max().item()
    """
    assert codes(source, ATN201) == [(8, "ATN201")]


def test_self_chain_survives_writes_to_other_attributes():
    source = """
    class Backend:
        def replay(self, y):
            n = self.lens.max().item()
            self.meta.cache.copy_(y)
            self.step = n
            return self.lens.max().item()
    """
    assert codes(source, ATN201) == [(7, "ATN201")]


def test_same_iteration_repeat_in_a_loop():
    source = """
    def f(x, n):
        for i in range(n):
            a = x.item()
            b = x.item()
            x.add_(1)
    """
    assert codes(source, ATN201) == [(5, "ATN201")]


def test_loop_that_changes_nothing_keeps_the_value():
    source = """
    def f(x, xs):
        n = x.item()
        for v in xs:
            print(v)
        return x.item()
    """
    assert codes(source, ATN201) == [(6, "ATN201")]


@pytest.mark.parametrize("method", ["tolist", "cpu", "numpy"])
def test_mutable_results_get_an_unsafe_fix(method):
    source = f"def f(x):\n    a = x.{method}()\n    b = x.{method}()\n    return a, b\n"
    (finding,) = check_source(source, "t.py", ATN201)
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    assert fixed(source, ATN201) == source  # not applied without --unsafe-fixes
    assert "    b = a\n" in fixed(source, ATN201, unsafe=True)


def test_item_fix_is_safe():
    source = "def f(x):\n    a = x.item()\n    b = x.item()\n"
    (finding,) = check_source(source, "t.py", ATN201)
    assert finding.fix.applicability.value == "safe"


def test_no_fix_when_the_bound_name_is_rebound_between():
    source = "def f(x):\n    a = x.item()\n    a = 0\n    return x.item()\n"
    (finding,) = check_source(source, "t.py", ATN201)
    assert finding.fix is None


def test_no_unsafe_fix_when_the_bound_list_is_changed_between():
    source = "def f(x):\n    a = x.tolist()\n    a.append(0)\n    return x.tolist()\n"
    (finding,) = check_source(source, "t.py", ATN201)
    assert finding.fix is None


def test_rebinding_the_same_name_again_deletes_the_statement():
    source = (
        "def f(x, m):\n    n = x.item()\n    m.a = n\n    n = x.item()\n    return n\n"
    )
    assert (
        fixed(source, ATN201)
        == "def f(x, m):\n    n = x.item()\n    m.a = n\n    return n\n"
    )


def test_outer_chain_reported_once_not_its_inner_chain():
    source = "def f(x):\n    a = x.cpu().numpy()\n    b = x.cpu().numpy()\n"
    assert codes(source, ATN201) == [(3, "ATN201")]


def test_inner_chain_reported_when_the_outer_is_new():
    source = "def f(x):\n    a = x.cpu()\n    b = x.cpu().numpy()\n"
    assert findings(source, ATN201) == [(3, 9, "ATN201")]


def test_nested_function_is_its_own_scope():
    source = """
    def outer(x):
        a = x.item()
        def inner(x):
            return x.item()
        return inner
    """
    assert codes(source, ATN201) == []


def test_repeat_inside_a_nested_function():
    source = """
    def outer():
        def inner(x):
            a = x.item()
            return x.item()
        return inner
    """
    assert codes(source, ATN201) == [(5, "ATN201")]


def test_alias_made_in_a_sibling_branch_does_not_matter():
    # The call may store `lens` inside `meta`, but not on the path that syncs twice.
    source = """
    class B:
        def replay(self, meta, lens, spec):
            if spec is None:
                self.refill(meta, lens)
            else:
                n = lens.max().item()
                meta.cache.copy_(lens)
                meta.limit = lens.max().item() + 1
    """
    assert codes(source, ATN201) == [(9, "ATN201")]


def test_alias_made_later_in_a_loop_matters():
    source = """
    def f(x, lst, n):
        a = x.sum().item()
        for i in range(n):
            b = x.sum().item()
            lst[0].add_(1)
            lst.append(x)
    """
    assert codes(source, ATN201) == []


def _tangled(between: str) -> str:
    """The same value assigned twice, and the same sync twice, in a function
    whose aliasing is too tangled to follow (``acc`` holds 70 other objects)."""
    params = ", ".join(f"p{i}" for i in range(70))
    stores = "".join(f"    acc.part{i} = p{i}\n" for i in range(70))
    return (
        f"def f(xs, {params}):\n    acc = xs[0]\n{stores}"
        f"    n = acc\n    s = acc.sum().item()\n{between}"
        f"    n = acc\n    t = acc.sum().item()\n    return n, s, t\n"
    )


def test_tangled_aliasing_does_not_matter_when_names_are_only_rebound_between():
    # Rebinding other names changes no object: which objects `acc` may
    # share does not matter.
    assert codes(_tangled("")) == [(75, "ATN202"), (76, "ATN201")]
    assert codes(_tangled("    k = 1\n    m = k + 1\n")) == [
        (77, "ATN202"),
        (78, "ATN201"),
    ]


@pytest.mark.parametrize(
    "between",
    ["    xs.clear()\n", "    p3.add_(1)\n", "    log(acc)\n", "    acc = xs[1]\n"],
)
def test_tangled_aliasing_counts_when_something_may_change_between(between):
    assert codes(_tangled(between)) == []


# ------------------------------------------------------------------- ATN201: negatives

NEGATIVES_201 = {
    "mutated_in_place": """
        def f(x):
            a = x.max().item()
            x.add_(1)
            b = x.max().item()
    """,
    "mutated_by_item_store": """
        def f(x):
            a = x.sum().item()
            x[0] = 5
            b = x.sum().item()
    """,
    "mutated_by_augmented_assignment": """
        def f(x):
            a = x.sum().item()
            x += 1
            b = x.sum().item()
    """,
    "deleted": """
        def f(x, y):
            a = x.sum().item()
            del x
            x = y
            b = x.sum().item()
    """,
    "rebound": """
        def f(x, y):
            a = x.item()
            x = y
            b = x.item()
    """,
    "rebound_by_walrus": """
        def f(x, y):
            a = x.item()
            print((x := y))
            b = x.item()
    """,
    "loop_rebinds": """
        def f(x, xs):
            a = x.item()
            for x in xs:
                pass
            b = x.item()
    """,
    "sibling_branches": """
        def f(x, c):
            if c:
                a = x.item()
            else:
                b = x.item()
    """,
    "first_in_if_second_after": """
        def f(x, c):
            if c:
                a = x.item()
            b = x.item()
    """,
    "first_in_elif": """
        def f(x, c, d):
            if c:
                pass
            elif d:
                a = x.item()
            b = x.item()
    """,
    "passed_to_unknown_call": """
        def f(x):
            a = x.sum().item()
            update(x)
            b = x.sum().item()
    """,
    "passed_as_keyword": """
        def f(x, g):
            a = x.sum().item()
            g(buffer=x)
            b = x.sum().item()
    """,
    "passed_inside_a_tuple": """
        def f(x, g):
            a = x.sum().item()
            g((x, 1))
            b = x.sum().item()
    """,
    "unknown_method_of_the_receiver": """
        def f(x):
            a = x.sum().item()
            x.resize(4)
            b = x.sum().item()
    """,
    "torch_out_argument": """
        import torch
        def f(x, y):
            a = x.sum().item()
            torch.add(y, 1, out=x)
            b = x.sum().item()
    """,
    "inplace_keyword": """
        import torch.nn.functional as F
        def f(x):
            a = x.sum().item()
            F.relu(x, inplace=True)
            b = x.sum().item()
    """,
    "mutated_through_a_view": """
        def f(x):
            v = x[:2]
            a = x.sum().item()
            v.zero_()
            b = x.sum().item()
    """,
    "mutated_through_a_view_method": """
        def f(x):
            a = x.sum().item()
            x.view(-1).zero_()
            b = x.sum().item()
    """,
    "mutated_through_an_alias_made_later": """
        def f(x, c):
            a = x.sum().item()
            if c:
                v = x
                v += 1
            b = x.sum().item()
    """,
    "alias_of_the_receiver_mutated": """
        def f(m, y):
            x = m.buf
            a = x.sum().item()
            m.buf.add_(y)
            b = x.sum().item()
    """,
    "stored_then_mutated_through_the_holder": """
        def f(m, x):
            m.k = x
            a = x.sum().item()
            m.k.add_(1)
            b = x.sum().item()
    """,
    "appended_then_mutated_through_the_list": """
        def f(x, lst):
            lst.append(x)
            a = x.sum().item()
            lst[0].add_(1)
            b = x.sum().item()
    """,
    "attribute_prefix_stored": """
        def f(m, y):
            a = m.lens.max().item()
            m.lens = y
            b = m.lens.max().item()
    """,
    "holder_passed_to_a_call": """
        def f(m):
            a = m.lens.max().item()
            refresh(m)
            b = m.lens.max().item()
    """,
    "self_method_call": """
        class B:
            def f(self):
                a = self.lens.max().item()
                self.refresh()
                b = self.lens.max().item()
    """,
    "super_method_call": """
        class B(A):
            def f(self):
                a = self.lens.max().item()
                super().refresh()
                b = self.lens.max().item()
    """,
    "mutated_later_in_the_loop": """
        def f(x, n):
            a = x.item()
            for i in range(n):
                b = x.item()
                x.add_(1)
    """,
    "mutated_earlier_in_the_loop": """
        def f(x, n):
            a = x.item()
            for i in range(n):
                x.add_(1)
                b = x.item()
    """,
    "first_in_a_loop_body_second_after": """
        def f(x, n):
            for i in range(n):
                a = x.item()
            b = x.item()
    """,
    "while_loop_mutates": """
        def f(x):
            a = x.item()
            while a < 10:
                x.mul_(2)
                a = x.item()
    """,
    "while_loop_may_not_run": """
        def f(x, c):
            while c:
                a = x.item()
                c = False
            b = x.item()
    """,
    "try_body_first_after_handler": """
        def f(x):
            try:
                a = x.item()
            except ValueError:
                x.zero_()
            b = x.item()
    """,
    "try_mutates_before_raising": """
        def f(x):
            a = x.item()
            try:
                x.zero_()
                risky()
            except ValueError:
                b = x.item()
    """,
    "different_receivers": """
        def f(x, y):
            a = x.max().item()
            b = y.max().item()
    """,
    "different_reductions": """
        def f(x):
            a = x.max().item()
            b = x.min().item()
    """,
    "different_index": """
        def f(x):
            a = x[0].item()
            b = x[1].item()
    """,
    "index_rebound": """
        def f(x, i):
            a = x[i].item()
            i += 1
            b = x[i].item()
    """,
    "first_conditional_in_and": """
        def f(x, c):
            a = c and x.item()
            b = x.item()
    """,
    "first_in_ifexp_arm": """
        def f(x, c):
            a = x.item() if c else 0
            b = x.item()
    """,
    "first_in_assert": """
        def f(x):
            assert x.item() > 0
            b = x.item()
    """,
    "first_in_comprehension_body": """
        def f(x, n):
            a = [x.item() for _ in range(n)]
            b = x.item()
    """,
    "mutated_in_comprehension": """
        def f(x, n):
            a = x.item()
            [x.add_(1) for _ in range(n)]
            b = x.item()
    """,
    "awaited_between": """
        async def f(x, g):
            a = x.item()
            await g()
            b = x.item()
    """,
    "yield_between": """
        def f(x):
            a = x.item()
            yield a
            b = x.item()
    """,
    "global_and_unknown_call": """
        def f():
            a = LENS.max().item()
            refresh()
            b = LENS.max().item()
    """,
    "declared_global": """
        def f():
            global lens
            lens = make()
            a = lens.item()
            refresh()
            b = lens.item()
    """,
    "captured_by_closure_and_unknown_call": """
        def f(x, run):
            g = lambda: x.add_(1)
            a = x.item()
            run(g)
            b = x.item()
    """,
    "rebound_by_nested_function": """
        def f(x, y):
            def swap():
                nonlocal x
                x = y
            a = x.item()
            swap()
            b = x.item()
    """,
    "with_exit_between": """
        def f(x):
            with track(x):
                a = x.item()
            b = x.item()
    """,
    "with_enter_between": """
        def f(x):
            a = x.item()
            with track(x):
                b = x.item()
    """,
    "dynamic_scope": """
        def f(x):
            a = x.item()
            exec("x = 1")
            b = x.item()
    """,
    "receiver_is_a_call": """
        def f(x):
            a = next_batch(x).item()
            b = next_batch(x).item()
    """,
    "random_receiver": """
        import torch
        def f():
            a = torch.rand(3).sum().item()
            b = torch.rand(3).sum().item()
    """,
    "second_in_lambda": """
        def f(x):
            a = x.item()
            return lambda: x.item()
    """,
    "item_with_arguments": """
        def f(x):
            a = x.numpy(force=True)
            b = x.numpy(force=True)
    """,
    "match_capture_rebinds": """
        def f(x, y):
            a = x.item()
            match y:
                case x:
                    pass
            b = x.item()
    """,
    "except_name_rebinds": """
        def f(x):
            a = x.item()
            try:
                pass
            except Exception as x:
                pass
            b = x.item()
    """,
    "class_definition_between": """
        def f(x):
            a = x.item()
            class C:
                x.add_(1)
            b = x.item()
    """,
    "generator_consumed_by_a_builtin": """
        def f(x, n):
            g = (x.add_(1) for _ in range(n))
            a = x.item()
            list(g)
            b = x.item()
    """,
    "generator_consumed_by_a_loop": """
        def f(x, n):
            g = (x.add_(1) for _ in range(n))
            a = x.item()
            for _ in g:
                pass
            b = x.item()
    """,
    "try_finally_mutates": """
        def f(x):
            a = x.item()
            try:
                pass
            finally:
                x.add_(1)
            b = x.item()
    """,
    "setattr_between": """
        def f(m, y):
            a = m.lens.max().item()
            setattr(m, "lens", y)
            b = m.lens.max().item()
    """,
    "dunder_setitem_between": """
        def f(x):
            a = x.sum().item()
            x.__setitem__(0, 1)
            b = x.sum().item()
    """,
    "stored_holder_item_written": """
        def f(m, x):
            m.k = x
            a = x.sum().item()
            m.k[0] = 1
            b = x.sum().item()
    """,
    "loop_over_a_list_of_it": """
        def f(x, y):
            a = x.sum().item()
            for t in [x, y]:
                t.add_(1)
            b = x.sum().item()
    """,
    "dict_holding_it": """
        def f(x):
            d = {"k": x}
            a = x.sum().item()
            d["k"].add_(1)
            b = x.sum().item()
    """,
    "generator_iteration_between": """
        def f(x):
            a = x.item()
            for _ in mutate(x):
                pass
            b = x.item()
    """,
    "changed_through_its_frame": """
        import sys

        def f(x):
            a = x.sum().item()
            sys._getframe().f_locals["x"].add_(1)
            b = x.sum().item()
    """,
    "changed_by_a_helper_through_the_callers_frame": """
        import sys

        def bump():
            sys._getframe(1).f_locals["x"].add_(1)

        def f(x):
            a = x.sum().item()
            bump()
            b = x.sum().item()
    """,
    # An object from unknown code may be any object that code reaches
    # (differential reproduction 92).
    "written_through_a_closures_result": """
        def f(x):
            def g():
                return x
            t = g()
            a = x.sum().item()
            t.add_(1)
            b = x.sum().item()
    """,
    "written_through_a_lambdas_view": """
        def f(x):
            t = (lambda: x[:2])()
            a = x.sum().item()
            t.add_(1)
            b = x.sum().item()
    """,
    "written_through_a_generators_item": """
        def f(x):
            def g():
                yield x
            for t in g():
                a = x.sum().item()
                t.add_(1)
                b = x.sum().item()
    """,
    "written_through_a_local_class_attribute": """
        def f(x):
            class K:
                v = x
            t = K.v
            a = x.sum().item()
            t.add_(1)
            b = x.sum().item()
    """,
    "global_written_through_what_a_call_returned": """
        def f(get):
            t = get()
            a = BUF.sum().item()
            t.add_(1)
            b = BUF.sum().item()
    """,
    # What was given to unknown code may be inside anything it reaches
    # (differential reproduction 93).
    "written_through_a_global_it_was_given_to": """
        def f(x):
            keep(x)
            a = x.sum().item()
            REG[-1].add_(1)
            b = x.sum().item()
    """,
    "written_through_a_list_a_closure_keeps_it_in": """
        def f(x):
            hold = []
            def put(t):
                hold.append(t)
            put(x)
            a = x.sum().item()
            hold[0].add_(1)
            b = x.sum().item()
    """,
    "read_through_a_global_it_was_given_to": """
        def f(x):
            keep(x)
            a = REG[-1].sum().item()
            x.add_(1)
            b = REG[-1].sum().item()
    """,
    # Code given an address may write there (differential reproduction 94).
    "address_given_to_unknown_code": """
        def f(x, kernel):
            a = x.sum().item()
            kernel(x.data_ptr())
            b = x.sum().item()
    """,
    "address_held_then_given": """
        def f(x, kernel):
            p = x[1:].data_ptr()
            a = x.sum().item()
            kernel(p)
            b = x.sum().item()
    """,
    # A backward() run by unknown code (differential reproduction 95).
    "grad_across_unknown_code": """
        def f(w, run):
            a = w.grad.sum().item()
            run((w * 3).sum())
            b = w.grad.sum().item()
    """,
    "held_grad_across_unknown_code": """
        def f(w, run):
            g = w.grad
            a = g.sum().item()
            run((w * 3).sum())
            b = g.sum().item()
    """,
}


@pytest.mark.parametrize("source", NEGATIVES_201.values(), ids=NEGATIVES_201.keys())
def test_atn201_negative(source):
    assert codes(source, ATN201) == []


# ------------------------------------------------------------------- ATN202: positives


def test_redundant_attribute_store_is_deleted():
    source = """
    def replay(metadata, max_len, step, y):
        metadata.max_seq_len_k = max_len + (step + 1)
        metadata.cache_seqlens.copy_(y)
        metadata.max_seq_len_k = max_len + (step + 1)
        return metadata
    """
    assert findings(source, ATN202) == [(5, 5, "ATN202")]
    assert fixed(source, ATN202) == dedent(
        """
    def replay(metadata, max_len, step, y):
        metadata.max_seq_len_k = max_len + (step + 1)
        metadata.cache_seqlens.copy_(y)
        return metadata
    """
    )


def test_message_names_target_value_and_first_line():
    source = "def f(m, a):\n    m.k = a\n    m.k = a\n"
    (finding,) = check_source(source, "t.py", ATN202)
    assert finding.message == (
        "Redundant reassignment: `m.k` already holds `a`, assigned at line 2"
    )


@pytest.mark.parametrize(
    "value",
    [
        "a",
        "3",
        "a.b.c",
        "a[i]",
        "a[i:j, 0]",
        "-a + b * 2",
        "(a, b)",
        "a < b",
        "s.max().item()",
        "s.max().item() + 1",
        "a ** 2 // 3",
    ],
)
def test_pure_values(value):
    source = (
        f"def f(m, a, b, i, j, s):\n    m.k = {value}\n    n = 1\n    m.k = {value}\n"
    )
    assert codes(source, ATN202) == [(4, "ATN202")]


@pytest.mark.parametrize(
    ("cls", "statement"),
    [
        # A property's setter runs at each store.
        (
            "class P:\n    @property\n    def k(self):\n        return 1\n"
            "    @k.setter\n    def k(self, v):\n        LOG.append(v)\n",
            "m.k = a",
        ),
        # A descriptor instance (or anything a class-level call makes).
        ("class P:\n    k = Field()\n", "m.k = a"),
        # ``__setattr__`` runs at every attribute store.
        (
            "class P:\n    def __setattr__(self, n, v):\n        LOG.append(n)\n",
            "m.j = a",
        ),
        # ... and loading the target's prefix runs ``__getattr__``.
        ("class P:\n    def __getattr__(self, n):\n        return n\n", "m.q.j = a"),
        # ``__getitem__`` of the value's subscript.
        ("class P:\n    def __getitem__(self, i):\n        return i\n", "x = a[1]"),
        # An operator of the value.
        ("class P:\n    def __add__(self, o):\n        return o\n", "x = a + 1"),
        ("class P:\n    def __neg__(self):\n        return 0\n", "x = -a"),
        ("class P:\n    def __lt__(self, o):\n        return 0\n", "x = a > 1"),
        # A method the value calls by name.
        ("class P:\n    def item(self):\n        return 0\n", "x = a.item()"),
    ],
)
def test_code_of_the_modules_classes_makes_the_fix_unsafe(cls, statement):
    # Deleting the second statement runs that code once less.
    source = f"{cls}\ndef f(m, a):\n    {statement}\n    n = 1\n    {statement}\n"
    (finding,) = check_source(source, "t.py", ATN202)
    assert finding.fix.applicability.value == "unsafe"
    assert "a class of this module defines code" in finding.message
    # Code of other names or other operators: the deletion stays safe.
    other = (
        "class P:\n    @property\n    def other(self):\n        return 1\n"
        "    def __mul__(self, o):\n        return o\n    x = (1, 2)\n"
    )
    source = f"{other}\ndef f(m, a):\n    {statement}\n    n = 1\n    {statement}\n"
    (finding,) = check_source(source, "t.py", ATN202)
    assert finding.fix.applicability.value == "safe"
    assert "a class of this module" not in finding.message


def test_name_target():
    source = "def f(a):\n    x = a * 2\n    y = x + 1\n    x = a * 2\n    return x, y\n"
    assert (
        fixed(source, ATN202)
        == "def f(a):\n    x = a * 2\n    y = x + 1\n    return x, y\n"
    )


def test_second_in_nested_block_becomes_pass():
    source = "def f(a, c):\n    x = a\n    if c:\n        x = a\n    return x\n"
    assert (
        fixed(source, ATN202)
        == "def f(a, c):\n    x = a\n    if c:\n        pass\n    return x\n"
    )


def test_inside_a_loop_after_a_store_before_it():
    source = """
    def f(m, a, xs):
        m.k = a
        for x in xs:
            m.k = a
            print(x)
    """
    assert codes(source, ATN202) == [(5, "ATN202")]


def test_repeats_in_one_block_are_fixed_one_per_pass():
    source = "def f(m, a):\n    m.k = a\n    m.k = a\n    m.k = a\n"
    (first, second) = check_source(source, "t.py", ATN202)
    assert first.fix.isolation == second.fix.isolation
    assert fixed(source, ATN202) == "def f(m, a):\n    m.k = a\n"


def test_semicolon_joined_repeat():
    source = "def f(m, a):\n    m.k = a; m.k = a\n"
    assert fixed(source, ATN202) == "def f(m, a):\n    m.k = a\n"


def test_in_place_write_to_another_attribute_does_not_invalidate():
    source = """
    class B:
        def f(self, y):
            self.k = self.n + 1
            self.buf.copy_(y)
            self.other = 0
            self.k = self.n + 1
    """
    assert codes(source, ATN202) == [(7, "ATN202")]


def test_unknown_method_of_another_object_does_not_invalidate():
    source = """
    def f(m, a, mode):
        m.k = a
        if mode.is_decode():
            m.k = a
    """
    assert codes(source, ATN202) == [(5, "ATN202")]


def test_target_holder_aliased_only_in_a_sibling_branch():
    source = """
    class B:
        def replay(self, m, a, spec):
            if spec is None:
                self.refill(m)
            else:
                m.k = self.step + a
                m.buf.copy_(a)
                m.k = self.step + a
    """
    assert codes(source, ATN202) == [(9, "ATN202")]


@pytest.mark.parametrize(
    "source",
    [
        # The other arm returns.
        "def f(m, a, c):\n    if c:\n        m.k = a\n    else:\n        return\n"
        "    m.k = a\n",
        # The only way out of the loop is after the store.
        "def f(m, a):\n    while True:\n        m.k = a\n        break\n    m.k = a\n",
        # The handler re-raises.
        "def f(m, a):\n    try:\n        m.k = a\n    except ValueError:\n        raise\n"
        "    m.k = a\n",
        # A `try` body dominates its `else`.
        "def f(m, a):\n    try:\n        m.k = a\n    except ValueError:\n        pass\n"
        "    else:\n        m.k = a\n",
        # The body of a `with` whose manager never swallows an exception
        # always runs to its end. (A scope made by the statement: entering or
        # leaving an existing object, `with lock:`, lets other threads run.)
        "import torch\ndef f(m, a):\n    with torch.no_grad():\n        m.k = a\n"
        "    m.k = a\n",
    ],
    ids=[
        "other_arm_returns",
        "while_true_break",
        "handler_reraises",
        "try_else",
        "with",
    ],
)
def test_first_nested_where_it_still_dominates(source):
    assert codes(source, ATN202) == [(source.count("\n"), "ATN202")]


# ------------------------------------------------------------------- ATN202: negatives

NEGATIVES_202 = {
    "first_in_a_with_body_that_may_not_finish": """
        def f(m, a, scope):
            with scope():
                m.k = a
            m.k = a
    """,
    "first_in_a_suppressing_with": """
        from contextlib import suppress

        def f(m, a):
            with suppress(ValueError):
                int("x")
                m.k = a
            m.k = a
    """,
    "value_input_rebound": """
        def f(m, a):
            m.k = a + 1
            a = 2
            m.k = a + 1
    """,
    "value_input_mutated": """
        def f(m, t):
            m.k = t[0]
            t.add_(1)
            m.k = t[0]
    """,
    "value_item_input_mutated": """
        def f(m, t):
            m.k = t.sum().item()
            t.add_(1)
            m.k = t.sum().item()
    """,
    "value_input_passed_to_unknown_call": """
        def f(m, a):
            m.k = a.n
            grow(a)
            m.k = a.n
    """,
    "value_reads_target": """
        def f(x):
            x = x + 1
            x = x + 1
    """,
    "value_reads_target_attribute": """
        def f(m):
            m.k = m.k * 2
            m.k = m.k * 2
    """,
    "value_reads_target_through_alias": """
        def f(m):
            n = m
            m.k = n.k + 1
            m.k = n.k + 1
    """,
    "target_written_between": """
        def f(m, a):
            m.k = a
            m.k = 0
            m.k = a
    """,
    "target_prefix_rebound": """
        def f(m, a, other):
            m.k = a
            m = other
            m.k = a
    """,
    "target_mutated_in_place": """
        def f(m, a):
            m.k = a + 1
            m.k.add_(1)
            m.k = a + 1
    """,
    "target_mutated_through_alias": """
        def f(m, a):
            m.k = a + 1
            t = m.k
            t.add_(1)
            m.k = a + 1
    """,
    "target_holder_passed_to_call": """
        def f(m, a):
            m.k = a
            reset(m)
            m.k = a
    """,
    "target_holder_method_call": """
        class B:
            def f(self, a):
                self.k = a
                self.reset()
                self.k = a
    """,
    "name_target_augmented": """
        def f(a):
            x = a + 1
            x += 1
            x = a + 1
    """,
    "impure_value_call": """
        def f(m, a):
            m.k = make(a)
            m.k = make(a)
    """,
    "impure_value_method": """
        def f(m, a):
            m.k = a.size(0)
            m.k = a.size(0)
    """,
    "mutable_list_value": """
        def f(m):
            m.k = []
            m.k = []
    """,
    "mutable_tolist_value": """
        def f(m, t):
            m.k = t.tolist()
            m.k = t.tolist()
    """,
    "sibling_branches": """
        def f(m, a, c):
            if c:
                m.k = a
            else:
                m.k = a
    """,
    "first_in_if_second_after": """
        def f(m, a, c):
            if c:
                m.k = a
            m.k = a
    """,
    "loop_iterations": """
        def f(m, xs):
            for x in xs:
                m.k = x
    """,
    "loop_changes_input": """
        def f(m, a, n):
            m.k = a
            for i in range(n):
                m.k = a
                a = a + 1
    """,
    "while_changes_input": """
        def f(m, a):
            m.k = a
            while a < 4:
                a += 1
                m.k = a
    """,
    "while_first_inside": """
        def f(m, a, c):
            while c:
                m.k = a
                c = False
            m.k = a
    """,
    "try_first_inside": """
        def f(m, a):
            try:
                m.k = a
            except ValueError:
                pass
            m.k = a
    """,
    "try_handler_writes": """
        def f(m, a):
            m.k = a
            try:
                risky()
            except ValueError:
                m.k = 0
            m.k = a
    """,
    "different_targets": """
        def f(m, a):
            m.k = a
            m.j = a
    """,
    "different_receivers": """
        def f(m, n, a):
            m.k = a
            n.k = a
    """,
    "subscript_target": """
        def f(m, a):
            m[0] = a
            m[0] = a
    """,
    "chained_targets": """
        def f(a):
            x = y = a
            x = y = a
    """,
    "tuple_target": """
        def f(a, b):
            x, y = a, b
            x, y = a, b
    """,
    "global_target_and_unknown_call": """
        def f(a):
            STATE.k = a
            refresh()
            STATE.k = a
    """,
    "awaited_between": """
        async def f(m, a, g):
            m.k = a
            await g()
            m.k = a
    """,
    "changed_by_a_helper_through_the_callers_frame": """
        import inspect

        def bump():
            inspect.currentframe().f_back.f_locals["x"].add_(1)

        def f(x):
            k = x.sum().item()
            bump()
            k = x.sum().item()
    """,
    # What a closure returned may be ``x`` (differential reproduction 92).
    "read_through_a_closures_result": """
        def f(x):
            def g():
                return x
            t = g()
            k = t.sum().item()
            x.mul_(2)
            k = t.sum().item()
    """,
    "written_through_a_global_it_was_given_to": """
        def f(x):
            keep(x)
            k = x.sum().item()
            REG[-1].mul_(2)
            k = x.sum().item()
    """,
    # A backward() run by unknown code (differential reproduction 95).
    "grad_cleared_across_unknown_code": """
        def f(w, run):
            w.grad = None
            run((w * 3).sum())
            w.grad = None
    """,
}


@pytest.mark.parametrize("source", NEGATIVES_202.values(), ids=NEGATIVES_202.keys())
def test_atn202_negative(source):
    assert codes(source, ATN202) == []


def test_what_unknown_code_returns_is_apart_from_what_it_cannot_reach():
    # ``x`` is a parameter no nested scope uses, never given away: what
    # ``get()`` returns cannot be it, whichever way the write goes.
    source = """
    def f(x, get):
        t = get()
        a = x.sum().item()
        t.add_(1)
        b = x.sum().item()
        k = t.sum().item()
        x.mul_(2)
        k = t.sum().item()
    """
    assert codes(source, BOTH) == [(6, "ATN201"), (9, "ATN202"), (9, "ATN201")]
    assert "    b = a\n" in fixed(source, ATN201)


def test_an_address_taken_or_compared_changes_nothing():
    source = """
    def f(x, y):
        a = x.sum().item()
        same = x.data_ptr() == y.data_ptr()
        b = x.sum().item()
    """
    assert codes(source, ATN201) == [(5, "ATN201")]


def test_grad_read_across_code_that_runs_no_backward():
    source = """
    def f(w):
        a = w.grad.sum().item()
        y = w.detach() * 2
        b = w.grad.sum().item()
    """
    assert codes(source, ATN201) == [(5, "ATN201")]


def test_what_was_given_away_is_apart_from_what_nothing_else_reaches():
    # ``x`` went to ``keep``, but ``y`` never left the function: a write to
    # ``y`` cannot reach ``x``, nor a write to ``REG``'s item a read of ``y``.
    source = """
    def f(x, y):
        keep(x)
        a = x.sum().item()
        y.add_(1)
        b = x.sum().item()
        k = y.sum().item()
        REG[-1].mul_(2)
        k = y.sum().item()
    """
    assert codes(source, BOTH) == [(6, "ATN201"), (9, "ATN202"), (9, "ATN201")]


# --------------------------------------------------------------------- composition


def test_composition_needs_two_passes():
    # Pass 1: ATN201 only (ATN202 cannot see the two values are equal yet).
    assert codes(COMPOSITION) == [(5, "ATN201")]
    assert fixed(COMPOSITION) == COMPOSITION_FIXED


def test_composition_through_the_cli(tmp_path: Path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.attnlint]\n")
    (tmp_path / "replay.py").write_text(COMPOSITION)
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--fix", "--no-cache", "replay.py"], registry=RULES)
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert (tmp_path / "replay.py").read_text() == COMPOSITION_FIXED
    # One host sync fewer.
    assert COMPOSITION.count(".item()") - COMPOSITION_FIXED.count(".item()") == 1


def test_cli_reports_both_codes_without_fix(tmp_path: Path, monkeypatch, capsys):
    source = COMPOSITION + "    m.k = s.max().item() + (step + 1)\n"
    (tmp_path / "pyproject.toml").write_text("[tool.attnlint]\n")
    (tmp_path / "replay.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    code = main(
        ["check", "--no-cache", "--output-format", "concise", "replay.py"],
        registry=RULES,
    )
    out, _ = capsys.readouterr()
    assert code == 1
    rows = [line.split(" ")[:2] for line in out.splitlines() if "ATN2" in line]
    assert rows == [
        ["replay.py:5:11:", "ATN201"],
        ["replay.py:6:5:", "ATN202"],
        ["replay.py:6:11:", "ATN201"],
    ]


# ------------------------------------------------------------------------ fixtures


def test_replay_fixture_findings():
    source = (FIXTURES / "atn2_replay.in.py").read_text()
    assert codes(source) == [(17, "ATN201"), (30, "ATN201"), (38, "ATN201")]


def test_replay_fixture_fixes_to_its_twin():
    source = (FIXTURES / "atn2_replay.in.py").read_text()
    expected = (FIXTURES / "atn2_replay.out.py").read_text()
    assert fixed(source) == expected
    # Only the shared-list fix is left, and it is unsafe.
    assert codes(expected) == [(37, "ATN201")]
    assert "in enumerate(lens):" in fixed(expected, unsafe=True)


def test_negatives_fixture_is_clean():
    assert codes((FIXTURES / "atn2_negatives.py").read_text()) == []


# ------------------------------------------------------- fixes keep what code computes

# A toy tensor that counts host syncs, an object with attributes, and helpers
# that change their arguments: random functions over them run before and after
# `--fix` must compute the same things with no more syncs.
_RUNTIME = """
class Cell:
    def __init__(self, v):
        self.v = v
class T:
    def __init__(self, v, cell=None):
        self.cell = cell or Cell(v)
    def item(self):
        LOG.append("sync")
        return self.cell.v
    def max(self):
        return T(self.cell.v + 1)
    def sum(self):
        return T(self.cell.v * 2)
    def add_(self, k):
        self.cell.v += k
        return self
    def zero_(self):
        self.cell.v = 0
        return self
    def __iadd__(self, k):
        return self.add_(k)
    def __getitem__(self, i):
        return T(0, self.cell)
class M:
    def __init__(self, lens, buf):
        self.lens, self.buf, self.k = lens, buf, None
    def refresh(self):
        self.lens.add_(3)
def update(t):
    t.add_(7)
def touch(m):
    m.lens = T(100)
"""
_STATEMENTS = [
    "a = x.max().item()",
    "n = x.max().item()",
    "a = m.lens.sum().item()",
    "m.k = x.max().item() + 1",
    "m.k = n + 1",
    "m.k = a",
    "m.k = m.lens.sum().item()",
    "x.add_(1)",
    "y.add_(2)",
    "m.buf.add_(1)",
    "m.lens.add_(1)",
    "x.zero_()",
    "x = y",
    "y = x",
    "v = x[0]",
    "v.add_(3)",
    "update(x)",
    "update(m.lens)",
    "m.refresh()",
    "touch(m)",
    "LOG.append(x.max().item())",
    "a = a + 1",
    "n = 0",
    "m.buf = x",
    "m.buf.add_(4)",
    "x += 1",
    "c = not c",
    "LOG.append(m.k)",
    "b = (x.sum().item(), x.sum().item())",
    "a = n",
]


def _random_block(rng: random.Random, depth: int, indent: str) -> list[str]:
    lines: list[str] = []
    for _ in range(rng.randint(1, 5)):
        roll = rng.random() if depth < 2 else 1.0
        inner = indent + "    "
        if roll < 0.12:
            lines += [f"{indent}if c:", *_random_block(rng, depth + 1, inner)]
            if rng.random() < 0.5:
                lines += [f"{indent}else:", *_random_block(rng, depth + 1, inner)]
        elif roll < 0.2:
            lines += [
                f"{indent}for i in range(2):",
                *_random_block(rng, depth + 1, inner),
            ]
        elif roll < 0.25:
            lines += [f"{indent}try:", *_random_block(rng, depth + 1, inner)]
            lines += [
                f"{indent}except ValueError:",
                *_random_block(rng, depth + 1, inner),
            ]
        elif roll < 0.28:
            lines += [f"{indent}w = 0", f"{indent}while w < 2:", f"{inner}w += 1"]
            lines += _random_block(rng, depth + 1, inner)
        else:
            lines.append(indent + rng.choice(_STATEMENTS))
    return lines


def _random_program(seed: int) -> str:
    body = _random_block(random.Random(seed), 0, "    ")
    return (
        "def f(x, y, m, c):\n    a = n = 0\n    v = x\n    b = None\n"
        + "\n".join(body)
        + "\n    return a, n, b, m.k\n"
    )


def _run(source: str, c: bool):
    env: dict = {}
    exec(_RUNTIME, env)
    env["LOG"] = log = []
    exec(source, env)
    x, y = env["T"](3), env["T"](5)
    m = env["M"](env["T"](2), env["T"](1))
    result = env["f"](x, y, m, c)
    values = [entry for entry in log if entry != "sync"]
    state = (result, x.cell.v, y.cell.v, m.lens.cell.v, m.buf.cell.v, m.k, values)
    return state, log.count("sync")


@pytest.mark.parametrize("chunk", range(4))
def test_fixed_programs_compute_the_same_with_fewer_syncs(chunk):
    reported = 0
    for seed in range(chunk * 100, chunk * 100 + 100):
        source = _random_program(seed)
        if not check_source(source, "p.py", BOTH):
            continue
        reported += 1
        result = fixed(source)
        for c in (True, False):
            (state, syncs), (state_fixed, syncs_fixed) = (
                _run(source, c),
                _run(result, c),
            )
            assert state_fixed == state, f"seed {seed}:\n{source}\n{result}"
            assert syncs_fixed <= syncs, f"seed {seed}"
    assert reported >= 20  # the generator does produce findings


@pytest.mark.parametrize(
    "second",
    [
        "x.item()",
        "x.item ()",
        "x . item(\n    )",
        "(x.item  # the value\n     ())",
        "x.item \\\n    ()",
        "(x\n    .item())",
    ],
)
def test_atn201_sees_every_spelling_of_the_call(second):
    # The rows looked into are those where a sync method's name is followed
    # by its call's parenthesis, whatever lies between them.
    source = f"def f(x, out):\n    out.a = x.item()\n    out.b = {second}\n"
    assert [code for _, _, code in findings(source)] == ["ATN201"]


# ------------------------------------------- ATN202's pre-filter against the flow


def _control_program(rng: random.Random) -> str:
    """A function mixing copies of one assignment with every kind of compound
    statement and jump, nested at random."""
    simple = ("m.k = a", "m.k = a", "a = a", "pass", "return", "raise E", "f(m)")
    in_loop = ("break", "continue")

    def block(depth: int, looping: bool) -> list[str]:
        lines: list[str] = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.randrange(10) if depth < 4 else 0
            if kind <= 3:
                choices = simple + (in_loop if looping else ())
                lines.append(rng.choice(choices))
            elif kind == 4:
                lines += ["if c:", *_indent(block(depth + 1, looping))]
                if rng.random() < 0.6:
                    lines += ["else:", *_indent(block(depth + 1, looping))]
            elif kind == 5:
                head = rng.choice(
                    ("for x in xs:", "for x in range(2):", "for x in ():")
                )
                lines += [head, *_indent(block(depth + 1, True))]
                if rng.random() < 0.3:
                    lines += ["else:", *_indent(block(depth + 1, looping))]
            elif kind == 6:
                head = rng.choice(("while c:", "while True:"))
                lines += [head, *_indent(block(depth + 1, True))]
            elif kind == 7:
                lines += ["try:", *_indent(block(depth + 1, looping))]
                lines += ["except E:", *_indent(block(depth + 1, looping))]
                if rng.random() < 0.4:
                    lines += ["else:", *_indent(block(depth + 1, looping))]
                if rng.random() < 0.4:
                    lines += ["finally:", *_indent(block(depth + 1, False))]
            elif kind == 8:
                lines += ["with cm:", *_indent(block(depth + 1, looping))]
            else:
                lines += [
                    "match c:",
                    "    case 1:",
                    *_indent(block(depth + 2, looping), 2),
                ]
                last = rng.choice(("case 2:", "case _:"))
                lines += [f"    {last}", *_indent(block(depth + 2, looping), 2)]
        return lines

    body = block(1, False)
    return "def f(m, a, c, xs, cm):\n" + "\n".join(_indent(body)) + "\n"


def _indent(lines: list[str], levels: int = 1) -> list[str]:
    return ["    " * levels + line for line in lines]


@pytest.mark.parametrize("seed", range(1000))
def test_dominance_prefilter_admits_every_pair_the_flow_orders(seed):
    """``_may_dominate`` decides, without a flow graph, which functions ATN202
    analyzes: it must hold for every pair the flow graph says runs first."""
    from lint_rules.analysis.flow import FunctionFlow
    from lint_rules.analysis.invalidation import Point, invalidation_for
    from lint_rules.analysis.model import ModuleModel
    from lint_rules.rules import atn202_redundant_reassignment as atn202

    source = _control_program(random.Random(seed))
    model = ModuleModel(ast.parse(source))
    (info,) = model.functions
    stores = [
        stmt
        for stmt, _ in info.bindings
        if isinstance(stmt, ast.Assign) and ast.unparse(stmt) == "m.k = a"
    ]
    placement = atn202._Placement(info.node)
    flow = FunctionFlow(info.node)
    analysis = invalidation_for(flow, model.imports)
    for i, first in enumerate(stores):
        for second in stores[i + 1 :]:
            ordered = analysis.executes_before(
                Point(flow.block_of(first), first), Point(flow.block_of(second), second)
            )
            if ordered:
                assert atn202._may_dominate(
                    placement.ancestry(first),
                    placement.ancestry(second),
                    placement.owners,
                ), (
                    source,
                    first.lineno,
                    second.lineno,
                )


# ------------------------------------------------- ATN202's value keys


_PURE_NODES = (
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.Tuple,
    ast.Load,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
)


def _is_pure(node: ast.AST) -> bool:
    """The definition ``_value_key`` implements: pure node types all the way
    down, where an ``.item()`` call may have any receiver."""
    if isinstance(node, ast.Call):
        func = node.func
        return (
            isinstance(func, ast.Attribute)
            and func.attr == "item"
            and not node.args
            and not node.keywords
        )
    if not isinstance(node, _PURE_NODES):
        return False
    return all(_is_pure(child) for child in ast.iter_child_nodes(node))


def _random_expression(rng: random.Random, depth: int = 0) -> str:
    leaves = ("a", "b", "1", "1.0", "True", "'a'", "u'a'", "b'a'", "None", "...")
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(leaves)

    def sub() -> str:
        return _random_expression(rng, depth + 1)

    forms = (
        lambda: f"({sub()}).x",
        lambda: f"({sub()})[{sub()}]",
        lambda: f"({sub()})[{rng.choice(('', sub()))}:{rng.choice(('', sub()))}]",
        lambda: f"({sub()})[::{sub()}]",
        lambda: f"({sub()}) {rng.choice('+-*/%')} ({sub()})",
        lambda: f"{rng.choice('-+~')}({sub()})",
        lambda: f"({sub()}) {rng.choice(('<', '==', 'is', 'in'))} ({sub()})",
        lambda: f"({sub()}) < ({sub()}) <= ({sub()})",
        lambda: f"({sub()}, {sub()})",
        lambda: f"({sub()},)",
        lambda: f"(*({sub()}), {sub()})",
        lambda: f"({sub()}).item()",
        lambda: f"({sub()}).max().item()",
        lambda: f"f({sub()})",
        lambda: f"[{sub()}]",
        lambda: f"({sub()}) and ({sub()})",
    )
    return rng.choice(forms)()


def test_value_keys_are_equal_exactly_when_pure_values_are():
    from lint_rules.rules.atn202_redundant_reassignment import _value_key

    rng = random.Random(202)
    values = [ast.parse(_random_expression(rng), mode="eval").body for _ in range(1500)]
    values += [ast.parse(text, mode="eval").body for text in ("1", "1.0", "True")]
    pure = []
    for value in values:
        key = _value_key(value)
        assert (key is not None) == _is_pure(value), ast.unparse(value)
        if key is not None:
            pure.append((key, ast.dump(value)))
    assert len(pure) > 300  # the generator makes plenty of both kinds
    by_key: dict = {}
    by_dump: dict = {}
    for key, dump in pure:
        by_key.setdefault(key, set()).add(dump)
        by_dump.setdefault(dump, set()).add(key)
    assert all(len(dumps) == 1 for dumps in by_key.values())
    assert all(len(keys) == 1 for keys in by_dump.values())
    assert len(by_key) < len(pure)  # some values repeat: equality is exercised


def test_atn201_a_method_of_the_modules_class_makes_the_fix_unsafe():
    meter = (
        "class Meter:\n    def item(self):\n        LOG.append(1)\n        return 1\n\n"
    )
    source = meter + "def f(m):\n    a = m.item()\n    b = m.item()\n    return a, b\n"
    (finding,) = check_source(source, "t.py", ATN201)
    assert finding.fix.applicability.value == "unsafe"
    assert "a class of this module defines code" in finding.message
    # A class whose methods the chain does not call: safe.
    other = source.replace("def item(", "def other(")
    (finding,) = check_source(other, "t.py", ATN201)
    assert finding.fix.applicability.value == "safe"


# A repeated store on a row that a backslash continues into from ``previous;``
# (or from a row holding only a backslash): deleting its rows joined the
# previous row to the next statement, moving that into the block.
_CONTINUED = {
    "separator then continuation": (
        ["    m.j = 1; \\", "    m.k = a"],
        ["    m.j = 1"],
    ),
    "separator, blanks, two continuations": (
        ["    m.j = 1 ; \\", "      \\", "    m.k = a"],
        ["    m.j = 1"],
    ),
    "a row of a backslash only": (["    \\", "    m.k = a"], []),
    "a comment's backslash continues nothing": (
        ["    m.j = 1  # note \\", "    m.k = a"],
        ["    m.j = 1  # note \\"],
    ),
    "separator then continuation after the store": (
        ["    m.k = a; \\", "    m.j = 1"],
        ["    m.j = 1"],
    ),
    "stores on one row": (["    m.k = a  ;  m.i = 2"], ["    m.i = 2"]),
}


@pytest.mark.parametrize("name", sorted(_CONTINUED))
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_deletion_keeps_the_next_statement_out_of_the_block(name, newline):
    rows, kept = _CONTINUED[name]

    def program(inner):
        lines = ["def f(m, a, c):", "    if c:", "        m.k = a"]
        lines += ["    " + row for row in inner] + ["    return 7", ""]
        return newline.join(lines)

    result = fix_text(program(rows), "t.py", ATN202, unsafe_fixes=False)
    assert result.fixed_count_by_code == {"ATN202": 1}
    assert result.text == program(kept)
    # ``return 7`` is still outside the ``if``.
    function = ast.parse(result.text).body[0]
    assert isinstance(function.body[-1], ast.Return)


def test_a_store_into_the_class_of_an_object_changes_every_attribute():
    # ``m.__class__ = N`` decides what ``m.k = a`` and ``m.t`` run next (a
    # property of ``N``): neither the store nor the value read is repeated.
    store = "def f(m, a, N):\n    m.k = a\n    m.__class__ = N\n    m.k = a\n"
    assert codes(store) == []
    read = (
        "def f(m, T):\n    a = m.t.sum().item()\n    m.__class__ = T\n"
        "    b = m.t.sum().item()\n    return a, b\n"
    )
    assert codes(read) == []
    # A store into another object's class changes nothing of ``m``.
    other = "def f(m, o, a, N):\n    m.k = a\n    o.__class__ = N\n    m.k = a\n"
    assert codes(other) == [(4, "ATN202")]


@pytest.mark.parametrize("value", ["a[:]", "a[1:]", "t[0]", "t.T", "t.data", "a * 2"])
def test_a_value_making_a_new_object_referenced_between_is_unsafe(value):
    # The first object got another name (``y = x``): without the repeat,
    # ``x`` stays that object, and what is done to ``y`` shows through it.
    source = (
        f"def f(a, t):\n    x = {value}\n    y = x\n    x = {value}\n    return x, y\n"
    )
    found = check_source(source, "t.py", ATN202)
    assert [(f.location.row, f.fix.applicability.value) for f in found] == [
        (4, "unsafe")
    ]
    # Nothing references the first: the repeat goes safely.
    plain = source.replace("    y = x\n", "    y = 0\n")
    found = check_source(plain, "t.py", ATN202)
    assert [(f.location.row, f.fix.applicability.value) for f in found] == [(4, "safe")]
    # An attribute that is no view is the same object each time.
    same = source.replace(value, "t.k")
    found = check_source(same, "t.py", ATN202)
    assert [f.fix.applicability.value for f in found] == ["safe"]


@pytest.mark.parametrize("method", ["size()", "view(-1)", "dim()"])
def test_a_torch_named_method_of_the_modules_own_class_runs_its_code(method):
    # ``h.size()`` of a tensor changes nothing; of the module's own class it
    # may change what ``h`` holds (here ``x``).
    body = (
        "def f(x):\n    h = Holder(x)\n    a = x.sum().item()\n"
        f"    h.{method}\n    b = x.sum().item()\n    return a, b\n"
    )
    plain = "import torch\n\n\n" + body
    # Given to ``Holder(x)``, ``x`` escaped: only a known read-only method
    # leaves it unchanged.
    assert codes(plain) == [(8, "ATN201")]
    name = method.split("(")[0]
    own = (
        "import torch\n\n\nclass Holder:\n    def __init__(self, t):\n"
        f"        self.t = t\n\n    def {name}(self, *a):\n"
        "        self.t.add_(1)\n\n\n" + body
    )
    assert codes(own) == []


@pytest.mark.parametrize(
    ("raised", "called"),
    [
        ("raise E", "raise E()"),
        ("raise ValueError from E", "raise ValueError from E()"),
        ("raise e", "raise e()"),
    ],
)
def test_raising_a_class_runs_its_init(raised, called):
    # ``raise E`` calls ``E()`` (so does ``from E``, and ``raise e`` where
    # ``e`` may be a class): the module's ``__init__`` runs between the two
    # syncs, and may change the tensor (here, one a global holds).
    source = f"""
    HELD = []

    class E(Exception):
        def __init__(self):
            HELD[0].add_(1)

    def step(t, e):
        HELD.append(t)
        a = t.sum().item()
        try:
            {raised}
        except Exception:
            pass
        b = t.sum().item()
        return a, b
    """
    assert codes(source) == []
    # The call spelled out was already code that may change it.
    assert codes(source.replace(raised, called)) == []
    # With nothing raised in between, the value is reused.
    assert codes(source.replace(raised, "pass")) == [(15, "ATN201")]


HOOKED = """
class Box:
    def __init__(self, t):
        self.t = t

    def {method}(self, *args):
        self.t.add_(1)
        return {returns}


def step(t):
    o = Box(t)
    a = t.sum().item()
    {between}
    b = t.sum().item()
    return a, b
"""


@pytest.mark.parametrize(
    ("method", "returns", "between"),
    [
        ("__bool__", "True", "if o:\n        pass"),
        ("__bool__", "True", "assert o"),
        ("__bool__", "True", "c = o and 1"),
        ("__len__", "1", "c = 1 if o else 2"),
        ("__add__", "0", "c = o + 1"),
        ("__neg__", "0", "c = -o"),
        ("__getitem__", "0", "c = o[0]"),
        ("__lt__", "False", "c = o < 1"),
        # run by a builtin, a display or a store
        ("__len__", "1", "c = len(o)"),
        ("__index__", "1", "c = range(o)"),
        ("__index__", "1", "c = [1, 2][o]"),
        ("__hash__", "1", "c = {o: 1}"),
        ("__hash__", "1", "c = {o}"),
        ("__hash__", "1", "c = hash(o)"),
        ("__bool__", "True", "c = bool(o)"),
        ("__float__", "1.0", "c = float(o)"),
        ("__del__", "None", "o = None"),
        ("__del__", "None", "del o"),
    ],
)
def test_a_special_method_of_the_modules_class_in_between_makes_the_fix_unsafe(
    method, returns, between
):
    # ``if o:`` runs ``o.__bool__``, ``o + 1`` its ``__add__``, ``len(o)``
    # its ``__len__``, ``{o: 1}`` its ``__hash__``, ``o = None`` its
    # ``__del__``: code of the module that changed the tensor; the finding
    # stays, its fix is unsafe.
    source = HOOKED.format(method=method, returns=returns, between=between)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]
    assert "special method" in found[0].message
    # A class that defines no such method: the operators are plain.
    plain = source.replace(f"def {method}(", "def other(")
    found = check_source(plain, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]


BOUND_OTHERWISE = """
import torch

class Box:
    def __init__(self, t):
        self.t = t
{inside}

def _bump(self, *args):
    self.t.add_(1)
    return 0
{outside}

def step(t, o):
    a = t.sum().item()
    c = -o
    b = t.sum().item()
    return a, b
"""


@pytest.mark.parametrize(
    ("inside", "outside"),
    [
        # a lambda in the class body is a method
        ("    __neg__ = lambda self: self.t.add_(1)", ""),
        # a def under an ``if`` or ``try`` of the class body binds in it
        ("    if True:\n        def __neg__(self):\n            return 0", ""),
        (
            "    try:\n        __neg__ = _bump\n    except NameError:\n        pass",
            "",
        ),
        # stored into the class afterwards, by a store or ``setattr``
        ("", "Box.__neg__ = _bump"),
        ("", "setattr(Box, '__neg__', _bump)"),
        # a name ``setattr`` does not spell may be any special method
        ("", "NAME = '__neg__'\nsetattr(Box, NAME, _bump)"),
        # stored into the namespace a metaclass makes a class of
        (
            "",
            "class Meta(type):\n    def __new__(m, name, bases, ns):\n"
            "        ns['__neg__'] = _bump\n"
            "        return super().__new__(m, name, bases, ns)",
        ),
        ("", "def prepare(ns):\n    ns.update(__neg__=_bump)"),
        # a class made by ``type``
        ("", "Made = type('Made', (), {'__neg__': _bump})"),
        ("", "Made = type('Made', (), dict(__neg__=_bump))"),
    ],
)
def test_a_special_method_bound_otherwise_than_by_a_def_makes_the_fix_unsafe(
    inside, outside
):
    # ``-o`` runs ``__neg__`` of the module's class however the class binds
    # it: a lambda, a ``def`` in a block of the class body, a store or a
    # ``setattr`` on the class, the namespace given to ``type``.
    source = BOUND_OTHERWISE.format(inside=inside, outside=outside)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]
    # (a name not spelled may be ``__getattr__`` too: the chain's message)
    assert "class of this module" in found[0].message or (
        "special method" in found[0].message
    )


def test_data_bound_on_a_class_is_no_special_method():
    # ``__hash__ = None``, ``__slots__``, a docstring stored afterwards, and
    # a plain attribute stored into an object run nothing: the fix stays safe.
    source = BOUND_OTHERWISE.format(
        inside="    __hash__ = None\n    __slots__ = ('t',)",
        outside="Box.__doc__ = 'a box'\nOTHER = Box(None)\nOTHER.size = 3",
    )
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]


PERCENT = """
class Box:
    def __init__(self, t):
        self.t = t

    def {method}(self, *args):
        self.t.add_(1)
        return {returns}


def step(t, o):
    a = t.sum().item()
    c = {formatting}
    b = t.sum().item()
    return a, b, c
"""


@pytest.mark.parametrize(
    ("method", "returns", "formatting"),
    [
        ("__int__", "3", '"%d" % o'),
        ("__getitem__", "0", '"%(k)s" % o'),
        ("__bytes__", 'b""', 'b"%s" % o'),
        ("__float__", "1.0", '"%f" % o'),
    ],
)
def test_percent_formatting_runs_the_operands_special_methods(
    method, returns, formatting
):
    # ``"%d" % o`` runs ``o.__int__``, ``"%(k)s" % o`` its ``__getitem__``,
    # ``b"%s" % o`` its ``__bytes__``: code of the module's class.
    source = PERCENT.format(method=method, returns=returns, formatting=formatting)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]
    plain = source.replace(f"def {method}(", "def other(")
    found = check_source(plain, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]


OPERATED = """
class Box:
    def __init__(self, t):
        self.t = t

    def {method}(self, *args):
        self.t.add_(1)
        return {returns}


def step(t, o, d):
    a = t.sum().item()
    {between}
    b = t.sum().item()
    return a, b
"""


@pytest.mark.parametrize(
    ("method", "returns", "between"),
    [
        ("__hash__", "1", "r = o in d"),
        ("__hash__", "1", "r = o not in d"),
        ("__index__", "2", "r = [0] * o"),
        ("__index__", "2", "r = [0]\n    r *= o"),
        ("__len__", "0", "r = [0]\n    r += o"),
        ("__iter__", "iter(())", "r = [0]\n    r += o"),
        ("keys", "[]", "r = {**o}"),
        ("keys", "[]", "r = d\n    r |= o"),
        ("keys", "[]", "r = d.get(**o)"),
    ],
)
def test_operators_run_the_special_methods_they_take(method, returns, between):
    # ``o in d`` hashes ``o``, ``[0] * o`` takes its ``__index__``, ``xs +=
    # o`` iterates it, ``{**o}`` and ``d |= o`` call its ``keys``: code of
    # the module's class, where it defines the method.
    source = OPERATED.format(method=method, returns=returns, between=between)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]
    plain = source.replace(f"def {method}(", "def other(")
    found = check_source(plain, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]


ORDERED = """
import functools


@functools.total_ordering
class Box:
    def __init__(self, t):
        self.t = t

    def __eq__(self, other):
        return False

    def {method}(self, other):
        self.t.add_(1)
        return False


def step(t, o):
    a = t.sum().item()
    r = o {operator} 1
    b = t.sum().item()
    return a, b, r
"""


@pytest.mark.parametrize("method", ["__lt__", "__gt__", "__le__", "__ge__"])
@pytest.mark.parametrize("operator", ["<", "<=", ">", ">="])
def test_an_ordering_may_run_any_ordering_method(method, operator):
    # ``functools.total_ordering`` makes the other three of the one given:
    # ``o >= 1`` runs ``__lt__``.
    source = ORDERED.format(method=method, operator=operator)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]


CARRIED = """
import types

import torch

REG = []
D = {{}}
HOLD = types.SimpleNamespace()


def step(x, cb):
    {store}
    a = x.sum().item()
    cb()
    b = x.sum().item()
    return a, b
"""


@pytest.mark.parametrize(
    "store",
    [
        "HOLD.t = torch.narrow(x, 0, 0, 3)",
        "REG.append(torch.flatten(x))",
        "D.update(zip(['k'], [x]))",
        "D.update(enumerate([x]))",
        "HOLD.t = getattr(x, 'data')",
        "HOLD.t = tuple([x])",
        "HOLD.t = iter([x])",
        "HOLD.t = torch.add(x, 1, out=x)",
        "globals()['K'] = x",
        "vars()['K'] = x",
        "HOLD.t = [x] + []",
        "REG.extend([x] * 2)",
    ],
)
def test_a_value_carrying_its_argument_into_shared_reach_escapes(store):
    # The call keeps nothing, but its value is (or holds) ``x``, and goes
    # where unknown code reaches it: ``cb()`` may change ``x``.
    assert codes(CARRIED.format(store=store), ATN201) == []


@pytest.mark.parametrize(
    "store",
    [
        "HOLD.t = torch.sum(x)",
        "HOLD.t = len(x)",
        "HOLD.t = x.sum()",
        "REG.append(str(x))",
        "D.update(k=x.tolist())",
    ],
)
def test_a_new_value_of_its_argument_carries_nothing(store):
    # A new value (a reduction, a length, a text) holds nothing of ``x``.
    assert codes(CARRIED.format(store=store), ATN201) == [(15, "ATN201")]


MISSING = """
class Counts(dict):
    def __init__(self, t):
        super().__init__()
        self.t = t

    def __missing__(self, key):
        self.t.add_(1)
        return 0


def step(t, counts):
    a = t.sum().item()
    v = counts["k"]
    b = t.sum().item()
    return a, b, v
"""


def test_a_dict_subclass_missing_makes_a_subscript_run_code():
    # ``counts["k"]`` of a key the dict lacks runs its ``__missing__``.
    found = check_source(MISSING, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]
    repeated = MISSING.replace("b = t.sum().item()", "a = t.sum().item()").replace(
        "return a, b, v", "return a, v"
    )
    found = check_source(repeated, "t.py", ATN202)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN202", "unsafe")
    ]


DEFAULTDICT = """
import collections


def step(t, n):
    counts = collections.defaultdict({factory})
    a = t.sum().item()
    v = counts["k"]
    b = t.sum().item()
    return a, b, v
"""


@pytest.mark.parametrize(
    "factory",
    [
        "lambda: t.add_(1)",
        "lambda: n()",
        "make",
        "Box",
        "t.clone",
        "functools.partial(list)",
        "*[list]",
    ],
)
def test_a_defaultdict_factory_of_the_module_makes_a_subscript_run_code(factory):
    # ``counts["k"]`` of a key the dict lacks calls the factory, as a
    # ``__missing__`` would (differential reproduction 108).
    source = DEFAULTDICT.format(factory=factory)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]


@pytest.mark.parametrize(
    "factory",
    [
        "list",
        "int",
        "collections.deque",
        "lambda: 0",
        "lambda: {'n': 0, 'xs': []}",
        "lambda: collections.defaultdict(list)",
        "default_factory=set",
    ],
)
def test_a_plain_defaultdict_factory_runs_no_code(factory):
    source = DEFAULTDICT.format(factory=factory)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]
    # unless the module binds the factory's name to its own code
    shadowed = "def list():\n    return []\n" + source
    if factory == "list":
        found = check_source(shadowed, "t.py", ATN201)
        assert [(f.code, f.fix.applicability.value) for f in found] == [
            ("ATN201", "unsafe")
        ]


def test_a_factory_set_afterwards_makes_a_subscript_run_code():
    source = DEFAULTDICT.format(factory="list").replace(
        "    a = t.sum", "    counts.default_factory = lambda: t.add_(1)\n    a = t.sum"
    )
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]


CALLING = """
import torch


def _count(v):
    return v


def step(t, y):
    a = t.sum().item()
    y.{call}
    b = t.sum().item()
    return a, b
"""


@pytest.mark.parametrize(
    ("call", "applicability"),
    [
        ("apply_(_count)", None),
        ("map_(y, lambda p, q: p)", None),
        ("map2_(y, y, lambda p, q, r: p)", None),
        ("add_(1)", "safe"),
    ],
)
def test_inplace_methods_that_call_a_function_run_code(call, applicability):
    # ``y.apply_(f)`` calls ``f`` per element: unknown code, which reaches
    # ``t``'s sharers (differential reproduction 112); ``y.add_(1)`` changes
    # ``y`` only. (``t`` and ``y`` are distinct parameters.)
    source = CALLING.format(call=call).replace("def step(t, y)", "def step(y)")
    source = source.replace("t.sum()", "T.sum()").replace(
        "import torch\n", "import torch\n\nT = torch.ones(2)\n"
    )
    found = check_source(source, "t.py", ATN201)
    got = [f.fix.applicability.value for f in found if f.fix is not None]
    assert got == ([] if applicability is None else [applicability])


GETATTR = """
class Meta:
    @property
    def size(self):
        return 3

    def plain(self):
        return 4


def step(t, m, name):
    a = t.sum().item()
    v = {call}
    b = t.sum().item()
    return a, b, v
"""


@pytest.mark.parametrize(
    ("call", "applicability"),
    [
        ('getattr(m, "size")', "unsafe"),
        ('hasattr(m, "size")', "unsafe"),
        ('getattr(m, "size", None)', "unsafe"),
        ("getattr(m, name)", "unsafe"),
        ('getattr(m, "plain")', "safe"),
        ('hasattr(m, "other")', "safe"),
    ],
)
def test_getattr_of_a_property_runs_its_getter(call, applicability):
    # ``getattr(m, "size")`` runs the property as ``m.size`` does
    # (differential reproduction 116); a plain method's name runs nothing.
    found = check_source(GETATTR.format(call=call), "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", applicability)
    ]


MAKES_A_CLASS = """
import torch

T = torch.ones(2)


def step(o, bases):
    a = T.sum().item()
    k = {call}
    b = T.sum().item()
    return a, b, k
"""


@pytest.mark.parametrize(
    ("call", "applicability"),
    [
        ('type("K", bases, {})', None),
        ('type("K", (), {}, **{})', None),
        ("type(*bases)", None),
        ("type(o)", "safe"),
    ],
)
def test_type_with_three_arguments_runs_code(call, applicability):
    # ``type(name, bases, namespace)`` runs the bases' ``__init_subclass__``
    # and a metaclass's code (differential reproduction 117); ``type(o)``
    # runs nothing.
    found = check_source(MAKES_A_CLASS.format(call=call), "t.py", ATN201)
    got = [f.fix.applicability.value for f in found if f.fix is not None]
    assert got == ([] if applicability is None else [applicability])


SIZED = """
import torch

T = torch.ones(2)


def step(g, n):
    a = T.sum().item()
    s = torch.Size({argument})
    b = T.sum().item()
    return a, b, s
"""


@pytest.mark.parametrize(
    ("argument", "applicability"),
    [("g", None), ("[n, n]", "safe"), ("(n,)", "safe")],
)
def test_torch_size_iterates_its_argument(argument, applicability):
    # ``torch.Size(g)`` runs a generator's code (differential reproduction
    # 121); a list or tuple display runs none.
    found = check_source(SIZED.format(argument=argument), "t.py", ATN201)
    got = [f.fix.applicability.value for f in found if f.fix is not None]
    assert got == ([] if applicability is None else [applicability])


RUNS_CODE = """
import torch

T = torch.ones(2)


def step(y, f, p):
    a = T.sum().item()
    v = {call}
    b = T.sum().item()
    return a, b, v
"""


@pytest.mark.parametrize(
    ("call", "applicability"),
    [
        ("torch.save(y, f)", None),
        ("torch.load(f)", None),
        ("torch.cond(p, f, f, (y,))", None),
        ("torch.add(y, 1)", "safe"),
    ],
)
def test_torch_functions_that_run_code_they_are_given(call, applicability):
    # ``torch.save`` calls ``f.write``, ``torch.load`` ``f.read`` and what
    # unpickling names, ``torch.cond`` its branches (differential
    # reproduction 122).
    found = check_source(RUNS_CODE.format(call=call), "t.py", ATN201)
    got = [f.fix.applicability.value for f in found if f.fix is not None]
    assert got == ([] if applicability is None else [applicability])


DUCK = """
import torch

T = torch.ones(2)


class Pages:
    def {method}(self, *args):
        return self


def step(p):
    a = T.sum().item()
    v = torch.split(p, 2)
    b = T.sum().item()
    return a, b, v
"""


@pytest.mark.parametrize(
    ("method", "applicability"), [("split", None), ("merge", "safe")]
)
def test_torch_split_calls_the_arguments_split(method, applicability):
    # ``torch.split(p, 2)`` is ``p.split(2)`` for an object that is no
    # tensor: the module's method where its class defines one (differential
    # reproduction 123).
    found = check_source(DUCK.format(method=method), "t.py", ATN201)
    got = [f.fix.applicability.value for f in found if f.fix is not None]
    assert got == ([] if applicability is None else [applicability])


FORMATTED = """
class Box:
    def __init__(self, t):
        self.t = t

    def {method}(self, *args):
        self.t.add_(1)
        return "B"


def step(t, o):
    a = t.sum().item()
    {between}
    b = t.sum().item()
    return a, b
"""


@pytest.mark.parametrize(
    ("method", "between"),
    [
        ("__repr__", "print(o)"),
        ("__repr__", "c = f'{[o]}'"),
        ("__str__", "c = str(o)"),
        ("__str__", "c = f'{o!s}'"),
        ("__format__", "c = format(o, '')"),
        ("__format__", "c = '{}'.format(o)"),
        ("__format__", "c = f'{o}'"),
    ],
)
def test_formatting_that_may_run_the_modules_class_makes_the_fix_unsafe(
    method, between
):
    # ``print(o)``, ``str(o)`` and ``f"{o}"`` run ``__repr__``, ``__str__``
    # or ``__format__``: code of the module's class, which may change the
    # tensor whatever object it is given (reproduction 98).
    source = FORMATTED.format(method=method, between=between)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]
    plain = source.replace(f"def {method}(", "def other(")
    found = check_source(plain, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]


MATCHED = """
class Box:
    __match_args__ = ("t",)

    def __init__(self, t):
        self.t = t

    {member}


def step(t, o):
    a = t.sum().item()
    match o:
        case {pattern}:
            pass
    b = t.sum().item()
    return a, b
"""


@pytest.mark.parametrize(
    ("member", "pattern"),
    [
        # a class pattern reads attributes: named, or by ``__match_args__``
        ("@property\n    def p(self):\n        return 1", "Box(p=1)"),
        ("@property\n    def p(self):\n        return 1", "Box(1)"),
        # a value pattern compares with ``==``
        ("def __eq__(self, other):\n        return False", "1"),
        ("def __eq__(self, other):\n        return False", "1 | 2"),
        # a sequence pattern takes the length and the items
        ("def __len__(self):\n        return 1", "[_]"),
        ("def __getitem__(self, i):\n        return 1", "[1, *_]"),
        # a mapping pattern calls ``get``
        ("def get(self, key, default=None):\n        return 1", '{"k": 1}'),
        # a guard is a truth test, and may load attributes
        ("def __bool__(self):\n        return True", "_ if o"),
        ("@property\n    def p(self):\n        return 1", "_ if o.p"),
    ],
)
def test_a_match_that_runs_class_code_makes_the_fix_unsafe(member, pattern):
    # Matching runs the subject's code: a property's getter, ``__eq__``,
    # ``__len__``, ``get``; a guard its ``__bool__``. Code of the module's
    # class may change the tensor (reproduction 96).
    source = MATCHED.format(member=member, pattern=pattern)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]
    # Patterns that run no class code: captures, wildcards, singletons, and
    # a class pattern with no attributes.
    for plain in ("_", "q", "None", "Box()", "Box() as q"):
        found = check_source(
            MATCHED.format(member=member, pattern=plain), "t.py", ATN201
        )
        assert [(f.code, f.fix.applicability.value) for f in found] == [
            ("ATN201", "safe")
        ], plain


@pytest.mark.parametrize(
    "hook", ["__subclasshook__", "__instancecheck__", "__subclasscheck__"]
)
def test_a_class_pattern_runs_what_isinstance_runs(hook):
    # ``case Kind():`` asks ``isinstance``: an ABC's ``__subclasshook__``, a
    # metaclass's ``__instancecheck__`` or ``__subclasscheck__`` of the
    # module may change the tensor (reproduction 107).
    source = MATCHED.format(
        member=f"@classmethod\n    def {hook}(cls, other):\n        return True",
        pattern="Box()",
    )
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]


PROPERTY = """
import functools


class Box:
    d = Described()

    def __init__(self, t):
        self.t = t

    {decorator}
    def p(self):
        self.t.add_(1)
        return 1


def step(t):
    o = Box(t)
    a = t.sum().item()
    z = o.{attribute}
    b = t.sum().item()
    return a, b, z
"""


@pytest.mark.parametrize(
    ("decorator", "attribute"),
    [
        ("@property", "p"),
        ("@functools.cached_property", "p"),
        ("", "d"),  # ``Described()``: a descriptor, whatever its class
    ],
)
def test_an_attribute_load_that_runs_class_code_makes_the_fix_unsafe(
    decorator, attribute
):
    source = PROPERTY.format(decorator=decorator, attribute=attribute)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]
    # A plain attribute the class stores: no code runs.
    plain = source.replace(f"z = o.{attribute}", "z = o.t")
    found = check_source(plain, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]


def test_a_class_getitem_in_between_makes_the_fix_unsafe():
    source = dedent("""
        import torch

        BUF = torch.arange(6.0)

        class Generic:
            def __class_getitem__(cls, key):
                BUF.add_(1)
                return cls

        def step():
            a = BUF.sum().item()
            Generic[int]
            b = BUF.sum().item()
            return a, b
    """)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]
    plain = source.replace("def __class_getitem__(", "def other(")
    found = check_source(plain, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]


@pytest.mark.parametrize(
    "imported", ["import weakref", "from weakref import finalize", "import gc"]
)
def test_a_module_with_finalizers_has_no_safe_reuse(imported):
    # A weakref callback or a ``gc`` callback runs where a reference drops,
    # which any rebinding may do.
    source = dedent(f"""
        {imported}

        def step(t, p):
            a = t.sum().item()
            p = None
            b = t.sum().item()
            return a, b
    """)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]
    found = check_source(source.replace(imported, "import os"), "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]


GENERATOR = """
import contextlib


def steps(t):
{body}


def step(t, g):
    a = t.sum().item()
    g = None
    b = t.sum().item()
    return a, b
"""


@pytest.mark.parametrize(
    ("body", "finalizing"),
    [
        ("    try:\n        yield 1\n    finally:\n        t.add_(1)", True),
        (
            "    try:\n        yield 1\n    except BaseException:\n        t.add_(1)",
            True,
        ),
        ("    with contextlib.ExitStack():\n        yield 1", True),
        (
            "    def inner():\n        try:\n            yield 1\n"
            "        finally:\n            t.add_(1)\n    return inner",
            True,
        ),
        # no code around the ``yield``: closing it runs nothing
        ("    yield 1\n    t.add_(1)", False),
        ("    try:\n        t.add_(1)\n    finally:\n        pass\n    yield 1", False),
        # the ``yield`` is the lambda's: ``steps`` is no generator
        ("    with contextlib.ExitStack():\n        return lambda: (yield)", False),
    ],
)
def test_a_module_whose_generators_clean_up_has_no_safe_reuse(body, finalizing):
    # Dropping the last reference to a suspended generator closes it: the
    # ``finally`` or ``with`` exit around its ``yield`` runs where a
    # reference drops (reproduction 97).
    source = GENERATOR.format(body=body)
    found = check_source(source, "t.py", ATN201)
    expected = "unsafe" if finalizing else "safe"
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", expected)
    ]


@pytest.mark.parametrize(
    ("body", "finalizing"),
    [
        ("    try:\n        await t\n    finally:\n        t.add_(1)", True),
        ("    with contextlib.ExitStack():\n        await t", True),
        (
            "    try:\n        async with t:\n            pass\n    finally:\n        pass",
            True,
        ),
        # suspended only entering the ``async with``: its exit never runs
        ("    async with t:\n        pass", False),
        (
            "    try:\n        async for v in t:\n            pass\n    finally:\n        pass",
            True,
        ),
        # no code around the ``await``: closing the coroutine runs nothing
        ("    await t\n    t.add_(1)", False),
    ],
)
def test_a_module_whose_coroutines_clean_up_has_no_safe_reuse(body, finalizing):
    # A coroutine suspended at an ``await`` (``async for``, ``async with``)
    # runs the ``finally`` or exit around it when its last reference drops,
    # as a generator does at a ``yield`` (reproduction 106).
    source = GENERATOR.format(body=body).replace("def steps", "async def steps")
    found = check_source(source, "t.py", ATN201)
    expected = "unsafe" if finalizing else "safe"
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", expected)
    ]


def test_a_repeated_constant_of_a_local_stays_safe_where_finalizers_run():
    # A finalizer cannot change a constant, nor rebind a local no other scope
    # sees; a name a nested scope rebinds it may.
    source = dedent("""
        import weakref

        def step(t, p):
            a = None
            p = None
            a = None
            return a
    """)
    found = check_source(source, "t.py", ATN202)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN202", "safe")]
    nested = source.replace(
        "    return a\n",
        "    def later():\n        nonlocal a\n        a = 1\n    return a, later\n",
    )
    found = check_source(nested, "t.py", ATN202)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN202", "unsafe")
    ]


def test_a_call_of_an_object_with_call_keeps_builtins_plain():
    # ``__call__`` runs only where the object is called (unknown code, seen):
    # ``len(xs)`` in between stays a plain builtin.
    source = dedent("""
        class Kernel:
            def __call__(self, *args):
                return 0

        def step(t, xs):
            a = t.sum().item()
            n = len(xs)
            b = t.sum().item()
            return a, b, n
    """)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]
    hooked = source.replace("__call__", "__len__")
    found = check_source(hooked, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]


@pytest.mark.parametrize("method", ["__hash__", "__eq__", "__class_getitem__"])
def test_a_subscript_hashing_its_key_makes_atn202s_deletion_unsafe(method):
    # ``d[k]`` runs the key's ``__hash__`` (and ``__eq__``): deleting the
    # repeated load runs it once less (differential reproduction 65).
    source = dedent(f"""
        class Key:
            def {method}(self, *args):
                return 1

        def step(d, k):
            v = d[k]
            v = d[k]
            return v
    """)
    found = check_source(source, "t.py", ATN202)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN202", "unsafe")
    ]
    plain = source.replace(f"def {method}(", "def other(")
    found = check_source(plain, "t.py", ATN202)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN202", "safe")]


def test_a_property_in_between_makes_atn202s_deletion_unsafe():
    source = dedent("""
        class Box:
            @property
            def p(self):
                return 1

        def step(m, n, o):
            m.k = n + 1
            z = o.p
            m.k = n + 1
            return m, z
    """)
    found = check_source(source, "t.py", ATN202)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN202", "unsafe")
    ]
    assert "a property" in found[0].message
    plain = source.replace("@property", "")
    found = check_source(plain, "t.py", ATN202)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN202", "safe")]


def test_a_special_method_in_between_makes_atn202s_deletion_unsafe():
    source = dedent("""
        class Box:
            def __bool__(self):
                return True

        def step(m, n, o):
            m.k = n + 1
            if o:
                pass
            m.k = n + 1
            return m
    """)
    found = check_source(source, "t.py", ATN202)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN202", "unsafe")
    ]
    assert "special method" in found[0].message
    plain = source.replace("def __bool__(", "def other(")
    found = check_source(plain, "t.py", ATN202)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN202", "safe")]


def _applicability(source: str, settings: Settings) -> list[tuple[str, str]]:
    found = check_source(dedent(source), "t.py", settings)
    return [(f.code, f.fix.applicability.value) for f in found if f.fix is not None]


@pytest.mark.parametrize(
    ("between", "applicability"),
    [
        # entering or leaving a manager of a global mode: results differ
        ("with torch.no_grad():\n        a = x * 2", "unsafe"),
        ("with torch.autocast('cpu'):\n        a = x * 2", "unsafe"),
        ("with unknown_manager():\n        a = x * 2", "unsafe"),
        ("torch.set_default_dtype(torch.float64)\n    a = x * 2", "unsafe"),
        ("torch.set_flush_denormal(True)\n    a = x * 2", "unsafe"),
        ("torch.set_grad_enabled(False)\n    a = x * 2", "unsafe"),
        # managers that leave the modes alone, and plain code between
        ("with contextlib.nullcontext():\n        a = x * 2", "safe"),
        ("torch.cumsum(x, 0)\n    a = x * 2", "safe"),
    ],
)
def test_atn202_a_global_mode_changed_between_makes_the_deletion_unsafe(
    between, applicability
):
    # ``x * 2`` under ``no_grad`` does not require grad, under autocast or
    # another default dtype has another dtype: the two are not one value.
    source = (
        "import contextlib\nimport torch\n\ndef f(x):\n    a = x * 2\n"
        f"    {between}\n    return a\n"
    )
    assert _applicability(source, ATN202) == [("ATN202", applicability)]
    if applicability == "unsafe":
        (finding,) = check_source(source, "t.py", ATN202)
        assert "global modes" in finding.message


@pytest.mark.parametrize(
    ("value", "applicability"),
    [
        ("x.max().item()", "safe"),
        ("x.max().item() + 1", "safe"),
        ("-x.sum().item()", "safe"),
        # a tensor: requires grad outside ``no_grad`` only
        ("x * 2", "unsafe"),
        ("-x", "unsafe"),
    ],
)
def test_atn202_a_python_number_is_the_same_in_every_grad_mode(value, applicability):
    source = (
        "import torch\n\ndef f(x):\n    with torch.no_grad():\n"
        f"        a = {value}\n    a = {value}\n    return a\n"
    )
    assert _applicability(source, ATN202) == [("ATN202", applicability)]
    # autocast changes values, not only whether they require grad
    autocast = source.replace("torch.no_grad()", "torch.autocast('cpu')")
    assert _applicability(autocast, ATN202) == [("ATN202", "unsafe")]


def test_atn202_a_value_that_computes_nothing_stays_safe_across_a_mode():
    source = """
        import torch

        def f(m, a):
            m.k = a
            with torch.no_grad():
                m.k = a
    """
    assert _applicability(source, ATN202) == [("ATN202", "safe")]


@pytest.mark.parametrize(
    ("between", "applicability"),
    [
        ("with torch.autocast('cpu'):\n        b = (x @ x).sum().item()", "unsafe"),
        ("torch.set_flush_denormal(True)\n    b = (x @ x).sum().item()", "unsafe"),
        ("torch.set_num_threads(1)\n    b = (x @ x).sum().item()", "unsafe"),
        # grad mode decides whether a result requires grad, not its value
        ("with torch.no_grad():\n        b = (x @ x).sum().item()", "safe"),
        ("torch.set_grad_enabled(False)\n    b = (x @ x).sum().item()", "safe"),
    ],
)
def test_atn201_a_global_mode_changed_between_makes_the_reuse_unsafe(
    between, applicability
):
    source = (
        "import torch\n\ndef f(x):\n    a = (x @ x).sum().item()\n"
        f"    {between}\n    return a, b\n"
    )
    assert _applicability(source, ATN201) == [("ATN201", applicability)]


@pytest.mark.parametrize("read", ["(x @ x).requires_grad", "(x @ x).is_leaf"])
def test_a_value_reading_what_grad_mode_decided_depends_on_it(read):
    # ``(x @ x).requires_grad`` is False under ``no_grad``: the number made
    # of it is not the same.
    chain = f"({read} + x).sum().item()"
    source = (
        f"import torch\n\ndef f(x):\n    a = {chain}\n"
        f"    with torch.no_grad():\n        b = {chain}\n    return a, b\n"
    )
    assert _applicability(source, ATN201) == [("ATN201", "unsafe")]
    reassigned = source.replace("b = ", "a = ").replace("return a, b", "return a")
    assert _applicability(reassigned, ATN202) == [("ATN202", "unsafe")]


def test_unknown_code_between_changes_a_mode_only_where_the_module_sets_one():
    # A function of the module may be the code that sets the mode; code of
    # other modules is taken to leave the modes as it found them.
    source = """
        import torch

        def helper():
            pass

        def f(x):
            a = x * 2
            helper()
            a = x * 2
            b = (x @ x).sum().item()
            helper()
            c = (x @ x).sum().item()
            return a, b, c
    """
    settings = RULES.settings(select=("ATN2",), hot_paths_only=False)
    assert sorted(_applicability(source, settings)) == [
        ("ATN201", "safe"),
        ("ATN202", "safe"),
    ]
    setting = source.replace("pass", "torch.set_flush_denormal(True)")
    assert sorted(_applicability(setting, settings)) == [
        ("ATN201", "unsafe"),
        ("ATN202", "unsafe"),
    ]
    by_hand = source.replace("pass", "torch.no_grad().__enter__()")
    assert sorted(_applicability(by_hand, settings)) == [
        ("ATN201", "unsafe"),
        ("ATN202", "unsafe"),
    ]
    by_string = source.replace("pass", 'getattr(torch, "set_flush_denormal")(True)')
    assert sorted(_applicability(by_string, settings)) == [
        ("ATN201", "unsafe"),
        ("ATN202", "unsafe"),
    ]


@pytest.mark.parametrize(
    ("observed", "applicability"),
    [
        ("i = id(x)", "unsafe"),
        ("i = hash(x)", "unsafe"),
        ("i = x.data_ptr()", "unsafe"),
        ("i = x is t", "unsafe"),
        ("i = x is not t", "unsafe"),
        # values, not identities
        ("i = len(x)", "safe"),
        ("i = x.size()", "safe"),
        ("i = x == t", "safe"),
    ],
)
def test_an_identity_of_the_first_new_object_taken_between_is_unsafe(
    observed, applicability
):
    # Without the repeat, ``x`` stays the first object: ``id(x)`` taken
    # before, compared after, now matches where two objects never did.
    source = (
        f"def f(t):\n    x = t * 2\n    {observed}\n    x = t * 2\n    return x, i\n"
    )
    found = check_source(source, "t.py", ATN202)
    assert [(f.location.row, f.fix.applicability.value) for f in found] == [
        (4, applicability)
    ]


# ------------------------------------- identities of reused numbers (review 12)


@pytest.mark.parametrize(
    "use", ["t is s", "s is not t", "id(t) == id(s)", "print(id(s))"]
)
def test_item_reuse_is_unsafe_where_the_function_takes_identities(use):
    # Two ``.item()`` calls make two float objects; ``t = s`` makes one.
    source = (
        f"def f(x):\n    s = x.max().item()\n    t = x.max().item()\n    return {use}\n"
    )
    assert codes(source, ATN201) == [(3, "ATN201")]
    assert fixed(source, ATN201) == source
    assert "t = s\n" in fixed(source, ATN201, unsafe=True)


def test_item_reuse_stays_safe_beside_a_comparison_with_none():
    source = "def f(x):\n    s = x.max().item()\n    t = x.max().item()\n    return t is None\n"
    assert "t = s\n" in fixed(source, ATN201)


def test_repeated_item_assignment_is_unsafe_to_delete_after_its_id_is_taken():
    source = (
        "def f(x):\n    s = x.max().item()\n    i = id(s)\n"
        "    s = x.max().item()\n    return i == id(s)\n"
    )
    assert fixed(source, ATN202) == source
    assert fixed(source, ATN202, unsafe=True).count("x.max().item()") == 1


ALIASED_DEFAULTDICT = """
{imports}


def step(t, n):
    counts = {make}
    a = t.sum().item()
    v = counts["k"]
    b = t.sum().item()
    return a, b, v
"""


@pytest.mark.parametrize(
    ("imports", "make"),
    [
        # ``defaultdict`` by another name, an import's or an assignment's
        ("from collections import defaultdict as dd", "dd(lambda: t.add_(1))"),
        ("import collections\nDD = collections.defaultdict", "DD(lambda: n())"),
        # a class of the module derived from it, given any factory there
        (
            "import collections\nclass Counts(collections.defaultdict):\n    pass",
            "Counts(lambda: t.add_(1))",
        ),
        # the type of one made plainly, given a factory of the module
        (
            "from collections import defaultdict\nPLAIN = defaultdict(list)",
            "type(PLAIN)(lambda: t.add_(1))",
        ),
        (
            "from collections import defaultdict\nPLAIN = defaultdict(list)",
            "PLAIN.__class__(n)",
        ),
        # the type handed to code that makes one elsewhere
        (
            "import collections, functools",
            "functools.partial(collections.defaultdict, n)()",
        ),
    ],
)
def test_a_defaultdict_by_another_name_makes_a_subscript_run_code(imports, make):
    source = ALIASED_DEFAULTDICT.format(imports=imports, make=make)
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [
        ("ATN201", "unsafe")
    ]


def test_a_type_test_against_defaultdict_makes_none():
    source = ALIASED_DEFAULTDICT.format(
        imports="import collections",
        make="{} if isinstance(n, collections.defaultdict) else {}",
    )
    found = check_source(source, "t.py", ATN201)
    assert [(f.code, f.fix.applicability.value) for f in found] == [("ATN201", "safe")]
