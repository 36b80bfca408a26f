"""Summaries of the module's own functions, the calls they make known, and
the ``full-write-calls`` setting (lint_rules/analysis/summaries.py)."""

from __future__ import annotations

import ast
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lint_rules.analysis.flow import Kind
from lint_rules.analysis.model import ModuleModel
from lint_rules.analysis.summaries import call_effects, module_summaries
from lint_rules.analysis.tensor_effects import (
    Detail,
    LocalFacts,
    UseEffect,
    context_effect,
    tensor_uses_for,
)
from lint_rules.analysis.use_forms import function_text
from lint_rules.cache import settings_fingerprint
from lint_rules.checker import check_source
from lint_rules.config import ConfigError, Settings, settings_from_table
from lint_rules.fixer import fix_text
from lint_rules.source import Locator


def _summary(source: str, function: str) -> dict[str, UseEffect]:
    model = ModuleModel(ast.parse(textwrap.dedent(source)))
    node = next(i.node for i in model.functions if i.node.name == function)
    summary = module_summaries(model).summary(node)
    assert summary is not None
    return {name: effect for name, (effect, _) in summary.effects.items()}


def test_summary_of_each_parameter():
    source = """
        import torch
        def helper(dst, src, acc, kept, unused, *, out):
            dst.copy_(src)
            acc.add_(src)
            kept.append(1)
            torch.mul(src, 2, out=out)
    """
    assert _summary(source, "helper") == {
        "dst": UseEffect.FULL_WRITE,
        "src": UseEffect.READ,
        "acc": UseEffect.READ,
        "kept": UseEffect.UNKNOWN,
        "unused": UseEffect.TRANSPARENT,
        "out": UseEffect.FULL_WRITE,
    }


@pytest.mark.parametrize(
    "body",
    [
        "if c:\n    dst.copy_(src)",  # one branch only
        "if c:\n    return\ndst.copy_(src)",  # a return before the write
        "if c:\n    dst = src\ndst.fill_(1)",  # rebinds the parameter first
        "try:\n    dst.copy_(src)\nexcept RuntimeError:\n    pass",
        "dst[:1] = 0\ndst.copy_(src)",  # part written first
        "for _ in src:\n    dst.copy_(src)",  # a loop that may not run
    ],
)
def test_summary_is_no_full_write_unless_on_every_path(body):
    source = "def helper(dst, src, c):\n" + textwrap.indent(body, "    ") + "\n"
    assert _summary(source, "helper")["dst"] is not UseEffect.FULL_WRITE


def test_summaries_compose_and_recursion_is_unknown():
    source = """
        def a(dst, src):
            dst.copy_(src)
        def b(dst, src):
            a(dst, src)
        def c(dst, src):
            b(src=src, dst=dst)
        def rec(dst, k):
            if k:
                rec(dst, k - 1)
            else:
                dst.fill_(0)
    """
    assert _summary(source, "c")["dst"] is UseEffect.FULL_WRITE
    assert _summary(source, "c")["src"] is UseEffect.READ
    assert _summary(source, "rec")["dst"] is UseEffect.UNKNOWN


def _atn101(source: str, settings: Settings | None = None) -> list:
    settings = settings or Settings(select=("ATN101",))
    return check_source(textwrap.dedent(source), "t.py", settings)


@pytest.mark.parametrize(
    "call",
    [
        "_fill(x, x)",  # the tensor passed twice: one parameter may be read
        "_fill(*args)",
        "other._fill(x, y)",  # not the module's function
        "_fill(x[:n], y)",  # a part of it
        "_gen(x)",  # a generator's body does not run at the call
        "_rebound(x, y)",  # the module binds the name twice
    ],
)
def test_calls_that_do_not_write_the_buffer_whole(call):
    source = f"""
        import torch
        def _fill(dst, src):
            dst.copy_(src)
        def _gen(dst):
            dst.fill_(1)
            yield
        def _rebound(dst, src):
            dst.copy_(src)
        _rebound = print
        def f(y, n, other, args):
            x = torch.zeros(n)
            {call}
            return x
    """
    assert _atn101(source) == []


@pytest.mark.parametrize(
    "rebinding",
    [
        'globals()["_fill"] = _half',
        "namespace = globals()\nnamespace.update(_fill=_half)",
        'setattr(sys.modules[__name__], "_fill", _half)',
        "sys.modules[__name__]._fill = _half",
        'exec("def _fill(dst, src):\\n    dst[:2].copy_(src[:2])")',
        "_fill.__code__ = _half.__code__",
        "from operator import *",  # may bind ``_fill`` after the ``def``
        "import program as me\nme._fill = _half",  # the module imports itself
        'import program as me\nme.__setattr__("_fill", _half)',
    ],
)
def test_a_function_the_module_may_rebind_otherwise_writes_nothing(rebinding):
    # The ``def`` binds the name once, but the module's own code may rebind
    # it (or change its code) another way: the call may run something else.
    source = (
        "import sys\nimport torch\n"
        "def _fill(dst, src):\n    dst.copy_(src)\n"
        "def _half(dst, src):\n    dst[:2].copy_(src[:2])\n"
        f"{rebinding}\n"
        "def f(y, n):\n    x = torch.zeros(n)\n    _fill(x, y)\n    return x\n"
    )
    assert _atn101(source) == []
    plain = source.replace(rebinding, "pass")
    assert [f.code for f in _atn101(plain)] == ["ATN101"]
    # (the words are found alike with the text pre-filter and without it)
    from tests.fuzzing import findings_both_ways

    respelled = source.replace("globals", "ｇlobals")  # NFKC: ``globals``
    for text in (source, plain, respelled):
        filtered, unfiltered, errors = findings_both_ways(
            text, settings=Settings(select=("ATN101",))
        )
        assert filtered == unfiltered and errors == []
    assert _atn101(respelled) == []


def test_a_write_through_a_public_function_is_assumed():
    # Another module may replace a public function (a platform's patch):
    # the write is reported with the fix unsafe; a private one's is safe.
    source = """
        import torch
        def fill(dst, src):
            dst.copy_(src)
        def _fill(dst, src):
            dst.copy_(src)
        def _through(dst, src):
            fill(dst, src)
        def f(y, n):
            a = torch.zeros(n)
            fill(a, y)
            b = torch.zeros(n)
            _fill(b, y)
            c = torch.zeros(n)
            _through(c, y)
            return a, b, c
    """
    found = _atn101(source)
    assert [f.fix.applicability.value for f in found] == ["unsafe", "safe", "unsafe"]
    assert "public function" in found[0].message
    model = ModuleModel(ast.parse(textwrap.dedent(source)))
    node = next(i.node for i in model.functions if i.node.name == "_through")
    summary = module_summaries(model).summary(node)
    assert summary.effect("dst") == (UseEffect.FULL_WRITE, Detail.PUBLIC)


@pytest.mark.parametrize(
    ("call", "applicability"),
    [
        ("dist.all_gather_into_tensor(x, y)", "safe"),
        ("dist.all_gather_into_tensor(x, y, group=None)", "safe"),
        ("dist.all_gather_into_tensor(x, y, group=pg)", "unsafe"),
        ("dist.all_gather_into_tensor(x, y, pg)", "unsafe"),
        ("dist.reduce_scatter_tensor(x, y, dist.ReduceOp.SUM, pg)", "unsafe"),
        ("dist.all_to_all_single(x, y, group=pg)", "unsafe"),
        ("dist.recv(x, 0, pg)", "unsafe"),
        ("_gather(x, y, pg)", "unsafe"),  # through a helper
        ("_gather(x, y, None)", "unsafe"),  # (the helper's own ``group``)
    ],
)
def test_a_collective_in_a_group_writes_only_on_its_ranks(call, applicability):
    # On a rank outside the group the collective returns without writing.
    source = f"""
        import torch
        import torch.distributed as dist
        def _gather(out, inp, group):
            dist.all_gather_into_tensor(out, inp, group=group)
        def f(y, n, pg):
            x = torch.zeros(n)
            {call}
            return x
    """
    found = _atn101(source)
    assert [f.fix.applicability.value for f in found] == [applicability]
    if applicability == "unsafe":
        assert "ranks of its group" in found[0].message


@pytest.mark.parametrize(
    "body",
    [
        "with torch.cuda.graph(g):\n    dst.copy_(src)",
        "with torch.cuda.graph(g):\n    _plain(dst, src)",  # a helper's write
    ],
)
def test_a_write_captured_into_a_cuda_graph_is_not_the_calls(body):
    # The capture records the write; it runs at each replay of the graph,
    # not when the helper returns: the caller's buffer keeps its zeros.
    source = (
        "import torch\n"
        "def _plain(dst, src):\n    dst.copy_(src)\n"
        "def _captured(dst, src, g):\n" + textwrap.indent(body, "    ") + "\n"
        "def f(y, n, g):\n    x = torch.zeros(n)\n    _captured(x, y, g)\n"
        "    return x\n"
    )
    assert _atn101(source) == []
    uncaptured = source.replace("torch.cuda.graph(g)", "torch.no_grad()")
    assert [f.code for f in _atn101(uncaptured)] == ["ATN101"]


def test_full_write_calls_setting_is_validated():
    table = {"full-write-calls": {"decode_attention_fwd": [3], "k.launch": ["out", 0]}}
    settings = settings_from_table(table)
    assert settings.full_write_calls == (
        ("decode_attention_fwd", (3,)),
        ("k.launch", ("out", 0)),
    )
    for bad in (
        ["decode_attention_fwd"],
        {"decode attention": [3]},
        {"k": []},
        {"k": [-1]},
        {"k": [1.5]},
        {"k": ["not a name"]},
        {"k": 3},
    ):
        with pytest.raises(ConfigError, match="full-write-calls"):
            settings_from_table({"full-write-calls": bad})


def test_full_write_calls_change_the_cache_key():
    plain = Settings()
    declared = Settings(full_write_calls=(("kernel", (0,)),))
    assert settings_fingerprint(plain) != settings_fingerprint(declared)


DECLARED = """
import torch
from kernels.triton_ops import decode_attention_fwd as decode
from kernels import launch_kernels as lk

def f(q, kv, n):
    o = torch.zeros(n)
    decode(q, kv, kv, o)
    indices = torch.zeros(n, dtype=torch.int32)
    lk.create_kv_indices[(n,)](q, indices)
    return o, indices
"""


def test_declared_calls_are_unsafe_full_writes_named_in_the_message():
    settings = Settings(
        select=("ATN101",),
        full_write_calls=(("create_kv_indices", (1,)), ("decode_attention_fwd", (3,))),
    )
    findings = _atn101(DECLARED, settings)
    assert [f.location.row for f in findings] == [7, 9]
    assert all(f.fix.applicability.value == "unsafe" for f in findings)
    assert '`"decode_attention_fwd" = [3]`' in findings[0].message
    assert '`"create_kv_indices" = [1]`' in findings[1].message
    # Not declared, or declared for another argument: nothing.
    assert _atn101(DECLARED) == []
    other = Settings(
        select=("ATN101",), full_write_calls=(("decode_attention_fwd", (0,)),)
    )
    assert _atn101(DECLARED, other) == []
    # The safe fixes leave them alone; the unsafe fixes apply.
    assert fix_text(DECLARED, "t.py", settings, False).text == DECLARED
    fixed = fix_text(DECLARED, "t.py", settings, True).text
    assert fixed.count("torch.empty(") == 2


def test_custom_operator_out_stays_no_full_write_through_a_helper():
    source = """
        import torch
        def _run(dst, src):
            torch.ops.mylib.kernel(src, out=dst)
        def f(y, n):
            x = torch.zeros(n)
            _run(x, y)
            return x
    """
    assert _atn101(source) == []


def test_detail_of_a_method_write_is_kept_through_a_helper():
    source = """
        class B:
            def _w(self, dst):
                dst.fill_(2)
            def _via(self, dst):
                self._w(dst)
    """
    model = ModuleModel(ast.parse(textwrap.dedent(source)))
    node = next(i.node for i in model.functions if i.node.name == "_via")
    summary = module_summaries(model).summary(node)
    assert summary.effect("dst") == (UseEffect.FULL_WRITE, Detail.METHOD)


def test_a_helper_that_launches_a_declared_kernel_writes_through_it():
    source = textwrap.dedent(
        """
        import torch
        def _launch(q, o):
            decode_attention_fwd(q, q, q, o)
        def f(q, n):
            o = torch.zeros(n)
            _launch(q, o)
            return o
        """
    )
    settings = Settings(
        select=("ATN101",), full_write_calls=(("decode_attention_fwd", (3,)),)
    )
    (finding,) = check_source(source, "t.py", settings)
    assert finding.fix.applicability.value == "unsafe"
    assert check_source(source, "t.py", Settings(select=("ATN101",))) == []


def _writing_functions(source: str) -> list[ast.FunctionDef]:
    """The functions (not nested ones) whose summary, computed without the
    text pre-filter, writes a parameter whole."""
    oracle = ModuleModel(ast.parse(source))  # no text: no pre-filter
    summaries = module_summaries(oracle)
    found = []
    for info in oracle.functions:
        summary = summaries.summary(info.node) if info.parent is None else None
        if summary and any(
            e is UseEffect.FULL_WRITE for e, _ in summary.effects.values()
        ):
            found.append(info.node.name)
    return found


def test_writers_prefilter_keeps_every_helper_whose_summary_writes():
    """The text pre-filter of the summaries (``ModuleSummaries.may_write``)
    keeps every function whose summary, computed without it, writes a
    parameter whole (on the differential programs' helpers and these)."""
    from tests.differential_programs import HEADER

    source = HEADER + textwrap.dedent(
        """
        def _via_dist(out, x):
            import torch.distributed as dist
            dist.all_gather_into_tensor(out, x)
        def _twice(dst, src):
            _inner(dst, src)
        def _inner(dst, src):
            torch.mul(src, 2, out = dst)
        def _loop_a(dst, k):
            _loop_b(dst, k)
        def _loop_b(dst, k):
            if k:
                _loop_a(dst, k)
        def _reads(dst):
            return dst.sum()
        """
    )
    with_text = module_summaries(ModuleModel(ast.parse(source), source))
    by_name = {info.node.name: info.node for info in with_text.model.functions}
    writing = _writing_functions(source)
    assert {"_fill_from", "_fill_via", "_twice", "_inner", "_via_dist"} <= set(writing)
    for name in writing:
        assert with_text.may_write(by_name[name]), name
    # (and it answers no where nothing reachable writes: a cycle, a reader)
    for name in ("_loop_a", "_loop_b", "_reads"):
        assert not with_text.may_write(by_name[name]), name


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.integers(min_value=0, max_value=10_000))
def test_writers_prefilter_is_a_necessary_condition(seed):
    """On generated programs: every function whose summary writes a
    parameter whole passes ``may_write``, whichever it is asked about first
    (the answers are kept, and a cycle of calls must not lose one); and a
    caller of one passes ``may_pass_to_writer`` for what it passes."""
    from tests.differential_programs import program

    source = program(seed)
    writing = set(_writing_functions(source))
    for reverse in (False, True):
        summaries = module_summaries(ModuleModel(ast.parse(source), source))
        infos = [i for i in summaries.model.functions if i.parent is None]
        for info in reversed(infos) if reverse else infos:
            if info.node.name in writing:
                assert summaries.may_write(info.node), info.node.name
                assert summaries.may_pass_to_writer(f"{info.node.name}(x)", "x")


def assert_writer_prefilter_agrees(source: str) -> int:
    """Every use of a name that the flow finds written whole only through
    the module's summaries or a collective (a call it is given to) passes
    ``may_pass_to_writer``, ATN101's text pre-filter for it; the number of
    such uses."""
    model = ModuleModel(ast.parse(source), source)
    summaries = module_summaries(model)
    locator = Locator(source)
    seen = 0
    for info in model.functions:
        flow = model.flow(info.node)
        scope = model.scope(info.node)
        uses = tensor_uses_for(flow, scope, call_effects(model, info))
        plain = LocalFacts(uses.facts.bound, uses.facts.basic_indices)
        text = function_text(locator, info.node)
        for name, events in flow.events_by_name.items():
            for event in events:
                if event.kind is not Kind.LOAD or event.nested or event.augmented:
                    continue
                node, parents = event.node, flow.parents
                effect, _ = context_effect(node, parents, scope, facts=uses.facts)
                if effect is not UseEffect.FULL_WRITE:
                    continue
                if context_effect(node, parents, scope, facts=plain)[0] is effect:
                    continue  # a form of its own (``x.copy_``): ``may_fully_write``
                seen += 1
                assert summaries.may_pass_to_writer(text, name), (name, text)
    return seen


_WRITER = """
import torch
import torch.distributed as dist
from torch.distributed import all_gather_into_tensor as gather


def fill(dst, src):
    dst.copy_(src)


def log(t, message):
    print(message)


class B:
    def _fill(self, dst, src=None):
        dst.zero_()

    def f(self, y, n, c):
{body}
"""


@pytest.mark.parametrize(
    ("body", "passes"),
    [
        ("fill(x, y)", True),
        ("fill(y, x)", True),  # (the source: a use the filter may keep)
        ("fill(dst=x, src=y)", True),
        ("fill((x), y)", True),
        ("fill(x[:], y)", True),
        ("fill(x[...].contiguous(), y)", True),
        ("fill \\\n    (x, y)", True),
        ("(fill)(x, y)", True),
        ("(fill  # (\n    )(x, y)", True),
        ("fill(  # a ) comment\n    x, y)", True),
        ("fill(')', x)", True),
        ("fill(y, [1, (2)], {3: 4}, x)", True),
        ("self._fill(x)", True),
        ("self . _fill (\n    src=y, dst=x)", True),
        ("log(x, 'hi'); fill(y, y)", False),
        ("fill(y, y); log(x, '(')", False),
        ("fill(y, y)\nprint(x)", False),
        ("fill(y, y.sum()); self._fill(y)  # x", False),
        ("fill(y, log(y, '')); x.sum()", True),  # a string: to the end
        ("fill(y, log(y, y)); x.sum()", False),
        ("dist.all_gather_into_tensor(x, y)", True),
        ("gather(x, y)", True),
        ("reduce_scatter = 1\nprint(x)", True),  # a collective's name: any
        ("g = [x]\ndist.all_gather(g, y)", True),
        ("dist.scatter(x, [y])", True),
        ("y.scatter_(0, y, y)\nprint(x)", False),  # not a collective's name
        ("y.masked_scatter(y, y)\nprint(x)", False),
    ],
)
def test_writer_prefilter_forms(body, passes):
    """``may_pass_to_writer`` keeps a buffer passed to a writer however the
    call is spelled, and drops one only used elsewhere."""
    source = _WRITER.format(
        body=textwrap.indent(f"x = torch.zeros(n)\n{body}", " " * 8)
    )
    ast.parse(source)
    model = ModuleModel(ast.parse(source), source)
    info = next(i for i in model.functions if i.node.name == "f")
    text = function_text(Locator(source), info.node)
    assert module_summaries(model).may_pass_to_writer(text, "x") is passes
    assert_writer_prefilter_agrees(source)


def test_writer_prefilter_sees_the_summaries_writes():
    """The forms the flow finds written through a summary are many of those
    above (the agreement check is not vacuous)."""
    count = 0
    for body, _ in test_writer_prefilter_forms.pytestmark[0].args[1]:
        source = _WRITER.format(
            body=textwrap.indent(f"x = torch.zeros(n)\n{body}", " " * 8)
        )
        count += assert_writer_prefilter_agrees(source)
    assert count >= 10


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.integers(min_value=0, max_value=10_000))
def test_writer_prefilter_on_generated_programs(seed):
    """(Their helpers ``_fill_from``, ``_fill_via`` write a parameter whole:
    about one and a half uses a program are written through them.)"""
    from tests.differential_programs import program

    assert_writer_prefilter_agrees(program(seed))


def test_a_helper_that_never_writes_keeps_its_summary():
    """A helper the pre-filter finds cannot write a parameter whole still
    has its summary: a parameter it never uses is transparent, both ways."""
    from tests.fuzzing import findings_both_ways

    source = textwrap.dedent(
        """
        import torch
        def log(x, msg):
            print(msg)
        def f(y, n):
            x = torch.zeros(n)
            log(x, "hi")
            x.copy_(y)
            return x
        """
    )
    filtered, unfiltered, errors = findings_both_ways(source)
    assert errors == []
    assert [f.code for f in filtered] == ["ATN101"]
    assert filtered == unfiltered


def test_instance_attribute_rows_find_every_assignment():
    """A method assigned as an attribute anywhere in the class (however the
    assignment is spelled across lines) is not summarized; the row search
    finds each spelling, and agrees with the walk of the whole class."""
    from lint_rules import prefilter

    spellings = [
        "self._fill = None",
        "self.\\\n            _fill = None",
        "(self.  # note\n            _fill) = None",
        "del self._fill",
        "other.x, self._fill = 1, 2",
        "for self._fill in []:\n            pass",
    ]
    for spelling in spellings:
        source = (
            "import torch\n"
            "class B:\n"
            "    def _fill(self, dst):\n"
            "        dst.fill_(1)\n"
            "    def reset(self):\n"
            f"        {spelling}\n"
            "    def f(self, n):\n"
            "        x = torch.zeros(n)\n"
            "        self._fill(x)\n"
            "        return x\n"
        )
        tree = ast.parse(source)
        cls = tree.body[1]
        for enabled in (True, False):
            previous = prefilter.set_enabled(enabled)
            try:
                summaries = module_summaries(ModuleModel(tree, source))
                assert summaries.method(cls, "_fill") is None, (spelling, enabled)
                assert summaries.method(cls, "f") is not None
            finally:
                prefilter.set_enabled(previous)
        assert check_source(source, "t.py", Settings(select=("ATN101",))) == []


# --------------------------------------------------------------------------- attributes of self


def _attributes(source: str, method: str):
    model = ModuleModel(ast.parse(textwrap.dedent(source)))
    node = next(i.node for i in model.functions if i.node.name == method)
    summary = module_summaries(model).attribute_summary(node)
    assert summary is not None
    return summary


ATTRIBUTES = """
    import logging
    import torch
    class B:
        def _full(self, x):
            self.buf.copy_(x)
        def _prefix(self, x, n):
            self.buf[:n].copy_(x)
        def _read(self):
            return self.buf.sum()
        def _via(self, x):
            self._full(x)
        def _via_twice(self, x):
            self._via(x)
            self.buf.add_(1)
        def _sometimes(self, x, c):
            if c:
                self.buf.copy_(x)
        def _other(self, x):
            self.other.copy_(x)
        def _rebind(self, x):
            self.buf = x
        def _escape(self, x):
            kernel(self)
            self.buf.copy_(x)
        def _unknown_method(self, x):
            self.not_here(x)
            self.buf.copy_(x)
        def _reads_in_argument(self, x):
            self.buf.copy_(self.buf + x)
        def _recursive(self, x, k):
            if k:
                self._recursive(x, k - 1)
            else:
                self.buf.copy_(x)
        def _prop_first(self, x):
            y = self.view
            self.buf.copy_(x)
        def _log_after(self, x):
            self.buf.copy_(x)
            print(x)
            logging.info(x)
        @property
        def view(self):
            return self.buf
"""


@pytest.mark.parametrize(
    ("method", "effect", "detail"),
    [
        ("_full", UseEffect.FULL_WRITE, Detail.NONE),
        ("_prefix", UseEffect.UNKNOWN, Detail.PARTIAL),
        ("_read", UseEffect.READ, Detail.NONE),
        ("_via", UseEffect.FULL_WRITE, Detail.METHOD),
        ("_via_twice", UseEffect.FULL_WRITE, Detail.METHOD),
        ("_sometimes", UseEffect.UNKNOWN, Detail.ESCAPE),
        ("_other", UseEffect.TRANSPARENT, Detail.NONE),
        ("_rebind", UseEffect.UNKNOWN, Detail.ESCAPE),
        ("_escape", UseEffect.UNKNOWN, Detail.ESCAPE),
        ("_unknown_method", UseEffect.UNKNOWN, Detail.ESCAPE),
        ("_reads_in_argument", UseEffect.UNKNOWN, Detail.PARTIAL),
        ("_recursive", UseEffect.UNKNOWN, Detail.ESCAPE),
        ("_prop_first", UseEffect.UNKNOWN, Detail.ESCAPE),
        ("_log_after", UseEffect.FULL_WRITE, Detail.NONE),
    ],
)
def test_attribute_summary_of_each_method(method, effect, detail):
    assert _attributes(ATTRIBUTES, method).effect("buf") == (effect, detail)


@pytest.mark.parametrize(
    ("method", "quiet"),
    [
        ("_full", True),
        ("_via", True),
        ("_via_twice", True),
        ("_escape", False),  # `self` passed on
        ("_unknown_method", False),
        ("_recursive", False),
        ("_prop_first", False),  # a property runs code
        ("_log_after", False),  # `logging.info` may reach anything
    ],
)
def test_attribute_summary_quiet(method, quiet):
    assert _attributes(ATTRIBUTES, method).quiet() is quiet


def test_attribute_summary_needs_a_plain_method():
    source = """
        class B:
            @staticmethod
            def s(x):
                pass
            async def a(self):
                pass
            def rebinds(self):
                self = None
        def f(self):
            pass
    """
    model = ModuleModel(ast.parse(textwrap.dedent(source)))
    summaries = module_summaries(model)
    for info in model.functions:
        assert summaries.attribute_summary(info.node) is None, info.node.name


STORED = """
    import logging
    import torch
    class P:
        def _fill(self, host):
            self._table.copy_(host)
        def _fill_prefix(self, host, n):
            self._table[:n].copy_(host)
        def _fill_logged(self, host):
            logging.info(host)
            self._table.copy_(host)
        def plan(self, host, n):
            table = torch.zeros(n)
            self._table = table
            self.{call}
            return table
"""


def test_stored_then_written_by_a_method_of_the_class():
    (finding,) = _atn101(STORED.format(call="_fill(host)"))
    assert finding.location.row == 13
    assert finding.fix.applicability.value == "unsafe"
    assert "`_fill` is a method a subclass may override" in finding.message
    assert "stored to `self._table` first" in finding.message


@pytest.mark.parametrize(
    "call",
    [
        "_fill_prefix(host, n)",  # a part of it only
        "_fill_logged(host)",  # an unknown call first may read `self._table`
        "_fill(self)",  # `self` passed on
        "_fill(table)",  # the buffer passed on
        "_missing(host)",  # not a method of the class
    ],
)
def test_stored_then_a_method_that_does_not_write_it_whole(call):
    assert _atn101(STORED.format(call=call)) == []


def test_attribute_writers_prefilter_keeps_every_method_that_writes_an_attribute():
    source = textwrap.dedent(ATTRIBUTES) + textwrap.dedent(STORED.format(call="x()"))
    with_text = module_summaries(ModuleModel(ast.parse(source), source))
    oracle = ModuleModel(ast.parse(source))  # no text: no pre-filter
    summaries = module_summaries(oracle)
    for info in oracle.functions:
        summary = summaries.attribute_summary(info.node)
        if summary is None:
            continue
        for attribute in ("buf", "_table", "other"):
            if summary.effect(attribute)[0] is UseEffect.FULL_WRITE:
                assert with_text.may_write_attributes({info.node.name})
    assert not with_text.may_write_attributes({"_read", "view", "missing"})


def test_attribute_writers_prefilter_follows_calls_and_cycles():
    source = textwrap.dedent(
        """
        class B:
            def a(self):
                self.b()
            def b(self):
                self.c()
            def c(self):
                self.buf.copy_(self.x)
            def p(self):
                self.q()
            def q(self):
                self.p()
        """
    )
    summaries = module_summaries(ModuleModel(ast.parse(source), source))
    assert not summaries.may_write_attributes({"p"})
    assert summaries.may_write_attributes({"a"})
    assert not summaries.may_write_attributes({"q", "missing"})
    assert summaries.may_write_attributes({"q", "b"})


def test_call_sites_of_private_functions_and_what_each_parameter_receives():
    import ast

    from lint_rules.analysis.model import ModuleModel
    from lint_rules.analysis.summaries import module_summaries

    text = (
        "def _f(a, b=1, *, c=None):\n    return a\n"
        "def g(x):\n    return x\n"
        "class K:\n"
        "    def run(self, t):\n"
        "        _f(t, c=2)\n        self._m(t)\n        K._m(self, 3)\n"
        "    def _m(self, v):\n        return _f(*v)\n"
        "    def _n(self, v):\n        return v\n"
        "    alias = _n\n"
    )
    model = ModuleModel(ast.parse(text), text)
    summaries = module_summaries(model)
    by_name = {info.node.name: info.node for info in model.functions}
    sites = summaries.call_sites(by_name["_f"])
    assert [site.caller.name for site in sites] == ["run", "_m"]
    first, starred = (site.arguments for site in sites)
    assert {name: ast.unparse(value) for name, value in first.items()} == {
        "a": "t",
        "b": "1",  # the default
        "c": "2",
    }
    assert starred == {}  # (what ``*v`` fills is not known)
    bound, unbound = summaries.call_sites(by_name["_m"])
    assert ast.unparse(bound.arguments["v"]) == "t"
    assert ast.unparse(unbound.arguments["v"]) == "3"
    assert "self" not in bound.arguments and "self" in unbound.arguments
    assert summaries.call_sites(by_name["g"]) is None  # public
    assert summaries.call_sites(by_name["run"]) is None
    assert summaries.call_sites(by_name["_n"]) is None  # a mention not called


_NAMESPACE_SPELLINGS = (
    "import importlib\nm = importlib.import_module('x')\n",
    "from importlib import (\n    import_module,\n)\n",
    "import importlib.\\\n    import_module\n",
    "import sys\nx = sys.\\\n    modules\n",
    "def f():\n    return (\n        globals\n    )()\n",
    "x = a.b.__dict__\ny = 1\n",
    "f = lambda: [v for v in vars(  # the row after\n    x)]\n",
    "s = 'globals'  # vars\nt = s.upper()\n",
    "class A:\n    def f(self):\n        return self.modules_count\n",
    "# 注释 → é\nx = (sys\n    .modules)\n",
)


@pytest.mark.parametrize("text", _NAMESPACE_SPELLINGS)
def test_namespace_words_found_on_rows_as_by_the_whole_walk(text: str) -> None:
    """``_find_namespace_words`` walking only the rows that name a word of
    ``REBINDING_WORDS`` answers as the walk of every node does."""
    from lint_rules.analysis.summaries import ModuleSummaries
    from lint_rules.context import Context

    tree = ast.parse(text)
    ctx = Context(text, tree, "f.py", Settings().options)
    assert ctx.model._rows_naming is not None
    walked = ModuleSummaries(ModuleModel(tree), None)._reaches_namespace()
    assert module_summaries(ctx.model)._reaches_namespace() == walked
    expected = not text.startswith(("s = ", "class A"))
    assert walked is expected
