"""The text pre-filters of ATN101/ATN103 never drop a use the flow would see.

``may_fully_write`` and ``may_read`` decide, from a function's text alone,
whether building its flow can pay off. They must over-approximate: whenever
the flow gives some use of a name a full write (or a read), they must say so.
The oracle below checks exactly that, on hand-written forms, on generated
expressions with random spacing, comments and parentheses, and on random
valid programs.
"""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint_rules.analysis.flow import FunctionFlow, Kind
from lint_rules.analysis.model import ModuleModel
from lint_rules.analysis.tensor_effects import TensorUses, UseEffect, context_effect
from lint_rules.analysis.use_forms import (
    called_method_names,
    function_text,
    may_be_stored_to_attribute,
    may_fully_write,
    may_read,
    spelled_words,
    spells_word,
)
from lint_rules.source import Locator
from tests.fuzzing import backend_programs, valid_program


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def effects_by_name(source: str) -> list[tuple[str, str, set[UseEffect]]]:
    """(function text, name, effects of its uses) for every name of every
    function, as the flow sees them; conditional full writes count as full
    writes (the filter must not depend on that downgrade)."""
    tree = ast.parse(source)
    imports = ModuleModel(tree, source).imports
    locator = Locator(source)
    found = []
    for function in _functions(tree):
        flow = FunctionFlow(function)
        uses = TensorUses(flow, imports)
        text = function_text(locator, function)
        for name, events in flow.events_by_name.items():
            effects: set[UseEffect] = set()
            for event in events:
                if event.kind is not Kind.LOAD or event.nested:
                    continue
                if event.augmented:
                    effects.add(UseEffect.READ)
                    continue
                effect, _ = context_effect(
                    event.node, flow.parents, imports, facts=uses.facts
                )
                effects.add(effect)
            found.append((text, name, effects))
        flow.release()
    return found


def assert_filters_agree(source: str) -> None:
    for text, name, effects in effects_by_name(source):
        if UseEffect.FULL_WRITE in effects:
            assert may_fully_write(text, name), (name, text)
        if UseEffect.READ in effects:
            assert may_read(text, name), (name, text)


def _module(*body: str) -> str:
    lines = ["import torch", "", "def f(a, b, i, idx, y, z, n):"]
    lines += ["    " + line for body_line in body for line in body_line.split("\n")]
    return "\n".join(lines) + "\n"


# Every form context_effect knows, and tricky spellings of them.
FULL_WRITES = [
    "x.copy_(a)",
    "x[:] = a",
    "x[...] = a",
    "x[:, ::] = a",
    "x[(..., ...)].fill_(0)",
    "x[:].zero_()",
    "(x).copy_(a)",
    "x \\\n    .copy_(a)",
    "(x  # the buffer\n .copy_(a))",
    "x[\n  :,\n  :  # all of it\n] = a",
    "torch.add(a, b, out=x)",
    "torch.add(a, b, out=(x))",
    "torch.add(a, b, out = x[:])",
    "torch.add(a, b,\n    out=  # the buffer\n    x)",
    "x[:], y = a, b",
    "if n:\n    x.copy_(a)",
]
READS = [
    "y = x + 1",
    "y = a + x",
    "y = -x",
    "y = ~x",
    "y = not x",
    "y = a in x",
    "y = x in a",
    "y = x not in a",
    "y = x == a",
    "y = a <= x",
    "y = x is a < b",
    "y = a < b is x",
    "x += 1",
    "x[i] += 1",
    "x[i] *= 2",
    "y += x",
    "y = x.sum()",
    "y = x[i].max()",
    "y = x[0, 1:].float().sum()",
    "y = x.float() + 1",
    "a.copy_(x)",
    "a.copy_((x))",
    "a.copy_(x[idx])",
    "a.copy_(\n    # the source\n    x)",
    "y = x[idx]",
    "y = x[idx, 1:]",
    "y = x['key']",
    "y: int = x[idx]",
    "y = x[i][j]",
    "(y := x[idx])",
    "y = a * (x)",
    "y = (\n    a  # comment, with a + inside\n    + x\n)",
    "y = (a +  # a comment\n    x)",
    "y = a + \\\n    x",
    "y = (a + x).shape",
    "y = x @ a",
    "y = x[1:2] * 2",
    "y = x.to('cpu')[i] + 1",
    "print(f'{x + 1}')",
    "y = x if x.max() else a",
    "y = x\\\n+ 1",
    "a + x\n(b).c",
]
NOT_USED_SO = [
    ("kernel(x, a)", "full_write"),
    ("y = x", "read"),
    ("return x", "read"),
    ("n = x.shape[0] + 1", "read"),
    ("y = x[1:n]", "read"),
    ("self.x.copy_(a)", "full_write"),
    ("if x is None:\n    pass", "read"),
    ("f(out_x=x)", "full_write"),
]


@pytest.mark.parametrize(
    ("statement", "effect"),
    [(statement, UseEffect.FULL_WRITE) for statement in FULL_WRITES]
    + [(statement, UseEffect.READ) for statement in READS],
)
def test_each_form_is_seen(statement, effect):
    """The form has the effect for the flow, and the filter lets it through."""
    source = _module("x = torch.empty(n)", statement, "return a")
    effects = {
        name: found for text, name, found in effects_by_name(source) if name == "x"
    }
    assert effect in effects["x"], f"the form is not a {effect.value}"
    assert_filters_agree(source)


@pytest.mark.parametrize(("statement", "question"), NOT_USED_SO)
def test_other_uses_do_not_pass_the_filter(statement, question):
    """The filters are worth running: uses that neither read nor write the
    whole tensor leave the flow unbuilt."""
    source = _module("x = torch.empty(n)", statement, "return a")
    tree = ast.parse(source)
    text = function_text(Locator(source), _functions(tree)[0])
    if question == "read":
        assert not may_read(text, "x")
    else:
        assert not may_fully_write(text, "x")
    assert_filters_agree(source)


def test_a_character_python_reads_as_another_counts():
    # ``ｘ`` (fullwidth) is ``x`` to Python.
    source = _module("x = torch.empty(n)", "y = \uff58 + 1", "return y")
    assert_filters_agree(source)
    tree = ast.parse(source)
    text = function_text(Locator(source), _functions(tree)[0])
    assert may_read(text, "x")


def test_the_docstring_is_not_searched():
    source = '''def f(n):\n    """x + 1"""\n    x = torch.empty(n)\n    return x\n'''
    tree = ast.parse(source)
    text = function_text(Locator(source), _functions(tree)[0])
    assert '"""' not in text
    assert not may_read(text, "x")


_GAPS = st.sampled_from([" ", "", "  ", "\n    ", " # c + x\n    ", " \\\n    "])
_ATOMS = st.sampled_from(["x", "(x)", "x[i]", "x[idx]", "x[1:2]", "x[:]", "x[...]"])
_AFTER = st.sampled_from(
    [
        "",
        ".sum()",
        ".float()",
        ".shape",
        ".copy_(a)",
        ".fill_(0)",
        ".to('cpu')",
        " + a",
        " == a",
        " is None",
        " is not a < b",
        " in a",
        " not in a",
        "[i]",
        "[0, 'k']",
    ]
)
_BEFORE = st.sampled_from(
    ["", "a + ", "-", "not ", "a in ", "a.copy_(", "f(", "out=", "b == ", "y = "]
)


@st.composite
def expressions(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        before = draw(_BEFORE)
        gap = draw(_GAPS)
        atom = draw(_ATOMS)
        after = draw(_AFTER)
        expression = f"{before}{atom}{gap if before else ''}{after}"
        if before.endswith("("):
            expression += ")"
        if before == "out=":
            expression = f"torch.add(a, b, {expression})"
        if before == "y = " or draw(st.booleans()):
            parts.append(expression)
        else:
            parts.append(f"z = ({expression})")
    return "\n".join(parts)


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(expressions())
def test_generated_forms(body):
    try:
        source = _module("x = torch.empty(n)", body, "return a")
        ast.parse(source)
    except SyntaxError:
        return
    assert_filters_agree(source)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(backend_programs())
def test_backend_shaped_programs(source):
    assert_filters_agree(source)


@pytest.mark.parametrize("seed", range(30))
def test_random_valid_programs(seed):
    assert_filters_agree(valid_program(seed, depth_limit=6, node_limit=2000))


# --------------------------------------------------------------------------- a store, a method call


def assert_store_and_call_filters_agree(source: str) -> None:
    """``may_be_stored_to_attribute`` sees every name that is the value of
    an assignment to an attribute, and ``called_method_names`` every method
    called (the text pre-filter of ATN101's store-then-method-write)."""
    tree = ast.parse(source)
    locator = Locator(source)
    for function in _functions(tree):
        text = function_text(locator, function)
        called = called_method_names(text)
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Name)
                and any(isinstance(t, ast.Attribute) for t in node.targets)
            ):
                name = node.value.id
                assert may_be_stored_to_attribute(text, name), (text, name)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                assert called is None or node.func.attr in called, (
                    text,
                    node.func.attr,
                )


@pytest.mark.parametrize(
    "body",
    [
        "self.t = x",
        "self.t = (x)",
        "self.t = \\\n        x",
        "self.t = ( # c\n        x)",
        "self.t \\\n        = x",
        "self.t = \\\n        ( # c\n        x)",
        "self.a = self.b = x",
        "self . fill ( x )",
        "self.fill \\\n        (x)",
        "self.fill( # (\n        x)",
        "(self\n        .fill)(x)",
    ],
)
def test_store_and_call_forms_are_seen(body):
    assert_store_and_call_filters_agree(_module("x = torch.empty(n)", body, "return a"))


@pytest.mark.parametrize(
    ("body", "stored"),
    [
        ("self.y = x", True),
        ("a.b.c = (x)", True),
        ("y = x", False),
        ("self.y == x", False),
        ("self.y += x", False),
        ("f(x)", False),
        ("self.y[0] = x", False),
    ],
)
def test_may_be_stored_to_attribute_forms(body, stored):
    assert may_be_stored_to_attribute(body, "x") is stored


@pytest.mark.parametrize("seed", range(30))
def test_store_and_call_filters_on_random_programs(seed):
    assert_store_and_call_filters_agree(
        valid_program(seed, depth_limit=6, node_limit=2000)
    )


@settings(max_examples=60, deadline=None, derandomize=True)
@given(backend_programs())
def test_store_and_call_filters_on_backend_shaped_programs(source):
    assert_store_and_call_filters_agree(source)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet="ab_1Z9 .(\t#-é\nｂ\ud800", max_size=40),
    names=st.lists(st.text(alphabet="ab_1é", min_size=1, max_size=4), max_size=6),
)
def test_spelled_words_is_spells_word_for_each_name(text, names):
    expected = [name for name in names if spells_word(text, name)]
    assert spelled_words(text, names) == expected


#: Text that made the comment-skipping patterns backtrack exponentially: a
#: run of ``#`` (a banner comment) or of `` #``, which the patterns could split
#: into comments in 2**n ways before failing. A vLLM kernel module with
#: banner comments took minutes to check.
_BANNERS = (
    "x" + " #" * 60 + "\n",
    "x\n" + "#" * 80 + "\n" + "    " + "#" * 80 + "\n",
    "x[" + " #" * 60 + "\n",
    "x(" + "#" * 80,
)


def _pattern_cases():
    from lint_rules.analysis import allocation_rows, class_uses, use_forms
    from lint_rules.rules import atn104_redundant_zero_fill, atn201_repeated_host_sync

    return [
        use_forms._FULL_WRITE_AFTER,
        use_forms._METHOD_CALL,
        class_uses._OFFSET_INDEX,
        allocation_rows._CALL_AFTER_NAME,
        atn104_redundant_zero_fill._AFTER_METHOD,
        atn201_repeated_host_sync._EMPTY_CALL,
    ]


def test_comment_runs_do_not_make_the_patterns_backtrack() -> None:
    """Each pattern that skips comments reads a comment whole, to the end of
    its row: on runs of ``#`` the searches end (in a process of their own,
    stopped after a minute: the old patterns took longer than the universe's
    age on these texts) and still skip what comments hide."""
    import subprocess
    import sys

    code = (
        "from tests.test_use_forms import _BANNERS, _pattern_cases\n"
        "for pattern in _pattern_cases():\n"
        "    for text in _BANNERS:\n"
        "        for start in range(len(text)):\n"
        "            pattern.match(text, start)\n"
        "        pattern.search(text)\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "ok", done.stderr
    # A comment is still skipped where code may follow it on the next row.
    assert use_forms_match("x  # a (comment)\n  [:] = y")
    assert use_forms_match("x # ## ###\n.copy_(y)")
    # and code inside a comment is not taken for code.
    assert not use_forms_match("x  # .copy_(y)\n")


def use_forms_match(text: str) -> bool:
    from lint_rules.analysis.use_forms import _FULL_WRITE_AFTER

    return _FULL_WRITE_AFTER.match(text, 1) is not None


def test_a_module_with_banner_comments_is_checked_in_full() -> None:
    """The whole check of a module with banner comments around its functions
    ends, with its findings (it did not before)."""
    import subprocess
    import sys

    banner = "    " + "#" * 80 + "\n"
    source = (
        "import torch\n\n"
        "def kernel(q, k, out):\n"
        + banner
        + "    # stage 1\n"
        + banner
        + "    buf = torch.zeros(4)\n    buf.copy_(q)\n"
        "    out[:] = buf + k  # ## ### #### ##### ######\n"
        + banner
        + "    return out\n"
    )
    code = (
        "import sys\nfrom lint_rules.checker import check_source\n"
        "from lint_rules.config import Settings\n"
        "found = check_source(sys.stdin.read(), 'k.py', Settings())\n"
        "print(sorted(f.code for f in found))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=source,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "['ATN101']", done.stderr
