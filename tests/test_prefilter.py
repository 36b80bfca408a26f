"""The pre-filters are shortcuts, never a second opinion: every rule reports
the same findings with them and without them (``ATTNLINT_NO_PREFILTER=1``),
on the rules' own examples, the engine's fixtures and the reference backend,
and on generated programs (here, and in every property of tests/fuzzing.py).
The rules are run directly, never through the cache, so no stored result can
hide a difference."""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from lint_rules import prefilter
from lint_rules.checker import triggered_rules
from lint_rules.config import Settings
from lint_rules.context import Context
from lint_rules.rules import ALL_RULES
from tests.fuzzing import backend_programs, findings_both_ways

ROOT = Path(__file__).resolve().parents[1]


def _examples() -> list[tuple[str, str]]:
    examples = []
    for rule in ALL_RULES:
        for index, source in enumerate(rule.valid):
            examples.append((f"{rule.code}-valid-{index}", source))
        for index, invalid in enumerate(rule.invalid):
            examples.append((f"{rule.code}-invalid-{index}", invalid.source))
            if invalid.fixed is not None:
                examples.append((f"{rule.code}-fixed-{index}", invalid.fixed))
    return examples


def _engine_files() -> list[Path]:
    return sorted(
        [
            *(ROOT / "tests" / "fixtures").rglob("*.py"),
            *(ROOT / "reference_backend").glob("*.py"),
        ]
    )


def _assert_same(source: str, filename: str) -> None:
    filtered, unfiltered, errors = findings_both_ways(
        source, filename, Settings(select=("ALL", "ATN001"), hot_paths_only=False)
    )
    assert errors == []
    assert filtered == unfiltered


@pytest.mark.parametrize(("name", "source"), _examples(), ids=lambda v: v)
def test_rule_examples_same_findings_both_ways(name, source):
    _assert_same(source, f"{name}.py")


@pytest.mark.parametrize("path", _engine_files(), ids=lambda p: p.name)
def test_engine_files_same_findings_both_ways(path):
    _assert_same(path.read_text(encoding="utf-8"), str(path))


def test_engine_files_have_findings():
    # (else the comparison above would compare nothing)
    found = 0
    for path in _engine_files():
        filtered, _, _ = findings_both_ways(path.read_text(encoding="utf-8"), str(path))
        found += len(filtered)
    assert found > 10


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(backend_programs())
def test_generated_programs_same_findings_both_ways(source):
    _assert_same(source, "generated.py")


# Each shortcut below once missed a finding that the analysis makes: the
# spelling a text search did not see is one Python reads as the name.
@pytest.mark.parametrize(
    ("code", "source"),
    [
        # Identifiers Python reads in NFKC form: ``ｉｔｅｍ`` is ``item``.
        (
            "ATN201",
            "def f(x):\n    a = x.ｉｔｅｍ()\n    b = x.ｉｔｅｍ()\n    return a, b\n",
        ),
        (
            "ATN101",
            "import torch\ndef f(y, n):\n    x = torch.ｚｅｒｏｓ(n)\n"
            "    x.copy_(y)\n    return x\n",
        ),
        # A comment between an allocator's name and its parenthesis.
        (
            "ATN101",
            "import torch\ndef f(y, n):\n    x = (torch.zeros  # n rows\n  (n))\n"
            "    x.copy_(y)\n    return x\n",
        ),
        # A parenthesized callee: ``(torch.zeros)(n)``, ``(x.zero_)()``.
        (
            "ATN101",
            "import torch\ndef f(y, n):\n    x = (torch.zeros)(n)\n"
            "    x.copy_(y)\n    return x\n",
        ),
        (
            "ATN104",
            "import torch\ndef f(y, n):\n    x = torch.empty(n)\n    (x.zero_)()\n"
            "    x.copy_(y)\n    return x\n",
        ),
        # ``for`` without a space after it.
        (
            "ATN301",
            "def f(x, n):\n    for(i)in range(n):\n        t = x + 1\n        print(t)\n",
        ),
    ],
)
def test_spellings_the_text_shortcuts_once_missed(code, source):
    filtered, unfiltered, errors = findings_both_ways(source)
    assert errors == []
    assert [f.code for f in filtered] == [code]
    assert filtered == unfiltered


@pytest.mark.parametrize(
    "fill",
    [
        "x.zero_()",
        "x . zero_ ()",
        "x.\\\n        zero_()",
        "(x  # the buffer\n     .zero_)()",
        "x.fill_(\n        0.0)",
        "x.fill_  (False)",
        "(x).fill_(-0)",
        "x.zero_(  # no arguments\n    )",
    ],
)
def test_zero_fill_spellings_atn104_finds_both_ways(fill):
    """ATN104's rows of ``zero_(``/``fill_(`` and its walk of those rows
    find each spelling of a fill statement."""
    source = (
        "import torch\ndef f(y, n):\n    x = torch.empty(n)\n"
        f"    {fill}\n    x.copy_(y)\n    return x\n"
    )
    filtered, unfiltered, errors = findings_both_ways(source)
    assert errors == []
    assert [f.code for f in filtered] == ["ATN104"]
    assert filtered == unfiltered


@pytest.mark.parametrize(
    "index",
    ["1", "(1)", "0x1", "0b1", "( # the head\n 1 )", "\\\n1", "2:, "],
)
def test_offset_write_spellings_atn102_finds_both_ways(index):
    """ATN102's rows of ``[1:`` find each spelling of a write from a fixed
    offset (which keeps the head's zeros needed): no finding, both ways, and
    the row walk names the same buffers as the walk of the whole class."""
    import ast

    from lint_rules.analysis.class_uses import offset_written_names
    from lint_rules.source import Locator

    source = (
        "import torch\nclass Backend:\n"
        "    def init_cuda_graph_state(self, max_bs):\n"
        "        self.kv_indptr = torch.zeros(max_bs + 1, dtype=torch.int32)\n"
        "    def replay(self, lens):\n"
        f"        self.kv_indptr[{index}:] = lens\n"
    )
    filtered, unfiltered, errors = findings_both_ways(source)
    assert errors == []
    assert filtered == unfiltered == []
    cls = ast.parse(source).body[1]
    assert offset_written_names(cls, Locator(source)) == {"kv_indptr"}
    assert offset_written_names(cls) == {"kv_indptr"}


def _flows_built(rule_code: str, source: str) -> int:
    import ast

    (rule,) = [rule for rule in ALL_RULES if rule.code == rule_code]
    ctx = Context(source, ast.parse(source), "f.py", Settings(hot_paths_only=False))
    list(rule().check(ctx))
    return len(ctx.model._flows)


@pytest.mark.parametrize(
    ("code", "source"),
    [
        # Never written whole: ATN101's text scan skips the flow.
        ("ATN101", "import torch\ndef f(n):\n    x = torch.zeros(n)\n    return x\n"),
        # No ``x.zero_()`` statement (a fill of an attribute, with a value):
        # ATN104's row walk skips the flow.
        (
            "ATN104",
            "def f(self, x):\n    self.buf.zero_()\n    x.fill_(1)\n    return x\n",
        ),
        # Never read: ATN103's text scan skips the flow.
        ("ATN103", "import torch\ndef f(n):\n    x = torch.empty(n)\n    return x\n"),
        # Equal assignments in sibling branches: neither may dominate.
        (
            "ATN202",
            "def f(c, y):\n    if c:\n        x = y\n    else:\n        x = y\n",
        ),
        # The alias is bound twice.
        ("ATN301", "def f(a):\n    for i in a:\n        t = i\n        t = a\n"),
    ],
)
def test_switch_turns_each_shortcut_off(code, source):
    previous = prefilter.set_enabled(True)
    try:
        assert _flows_built(code, source) == 0
        prefilter.set_enabled(False)
        assert _flows_built(code, source) == 1
    finally:
        prefilter.set_enabled(previous)


def test_switch_turns_sync_call_names_off():
    # (ATN201 builds a flow only for equal sync calls, which its scan never
    # misses: what the switch changes is where it looks for them)
    from lint_rules.rules.atn201_repeated_host_sync import _sync_call_names

    previous = prefilter.set_enabled(True)
    try:
        assert _sync_call_names("a = x.item()\n") == [6]
        prefilter.set_enabled(False)
        assert _sync_call_names("a = x.item()\n") is None
    finally:
        prefilter.set_enabled(previous)


def test_switch_turns_triggers_off():
    rules = list(ALL_RULES)
    previous = prefilter.set_enabled(True)
    try:
        assert triggered_rules(rules, "x = 1\n") != rules
        prefilter.set_enabled(False)
        assert triggered_rules(rules, "x = 1\n") == rules
    finally:
        prefilter.set_enabled(previous)


@pytest.mark.parametrize(("value", "enabled"), [("1", False), ("0", True), ("", True)])
def test_environment_variable_is_the_switch(value, enabled):
    env = dict(os.environ, ATTNLINT_NO_PREFILTER=value)
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from lint_rules import prefilter; print(prefilter.enabled())",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == str(enabled)


def test_atn104_reports_in_each_function_of_a_module():
    """Each function's fill is found, also after a finding in another one."""
    function = (
        "def f{i}(y, n):\n    x = torch.empty(n)\n    x.zero_()\n"
        "    x.copy_(y)\n    return x\n"
    )
    source = "import torch\n" + "".join(function.format(i=i) for i in range(3))
    filtered, unfiltered, errors = findings_both_ways(source)
    assert errors == []
    assert [f.code for f in filtered] == ["ATN104"] * 3
    assert filtered == unfiltered


@pytest.mark.parametrize(
    ("copy", "made"),
    [
        ("host.cuda(non_blocking=True)", "host = lens.cpu()"),
        ("host.cuda(\n        non_blocking=True)", "host = (\n        lens.cpu())"),
        ("dev.copy_(\n        host, non_blocking=flag)", "host: T = lens.cpu()"),
        ("host.to(\n        'cuda', non_blocking=True)", "(host) = lens.cpu()"),
        (
            "host.cuda(non_blocking=True)",
            "if (host := lens.cpu()) is None:\n        pass",
        ),
    ],
)
def test_non_blocking_spellings_atn205_finds_both_ways(copy, made):
    """ATN205's walk of the rows holding ``non_blocking`` finds each copy,
    and its walk of the rows naming a value finds each of its bindings."""
    source = f"def f(lens, dev, flag, T):\n    {made}\n    {copy}\n"
    filtered, unfiltered, errors = findings_both_ways(source)
    assert errors == []
    assert [f.code for f in filtered] == ["ATN205"]
    assert filtered == unfiltered


@pytest.mark.parametrize(
    "keyword",
    [
        "\uff4eon_blocking",  # FULLWIDTH LATIN SMALL LETTER N: Python reads n
        "non\uff3fblocking",  # FULLWIDTH LOW LINE: _
        "non_blocking",
    ],
)
def test_atn205_finds_a_respelled_non_blocking_both_ways(keyword):
    """Python reads identifiers in NFKC form (``ｎon_blocking`` is
    ``non_blocking``): ATN205 finds the copy however the keyword is spelled,
    with and without the pre-filters."""
    source = f"def f(lens):\n    host = lens.cpu()\n    host.cuda({keyword}=True)\n"
    assert ast.parse(source).body[0].body[1].value.keywords[0].arg == "non_blocking"
    filtered, unfiltered, errors = findings_both_ways(source)
    assert errors == []
    assert [f.code for f in filtered] == ["ATN205"]
    assert filtered == unfiltered


def test_switch_turns_atn205s_row_gate_off():
    """Without the pre-filters ATN205 reads every function, not only those
    whose rows spell ``non_blocking``: with the text search made blind, it
    finds nothing with them and still finds the copy without them."""
    source = "def f(lens):\n    host = lens.cpu()\n    host.cuda(non_blocking=True)\n"
    (rule,) = [rule for rule in ALL_RULES if rule.code == "ATN205"]

    class Blind(str):  # a text whose searches miss
        def find(self, *args):
            return -1

        def __contains__(self, item):
            return False

    def codes() -> list[str]:
        ctx = Context(
            Blind(source), ast.parse(source), "f.py", Settings(hot_paths_only=False)
        )
        return [finding.code for finding in rule().check(ctx)]

    previous = prefilter.set_enabled(True)
    try:
        assert codes() == []
        prefilter.set_enabled(False)
        assert codes() == ["ATN205"]
    finally:
        prefilter.set_enabled(previous)


def test_atn205_bindings_on_the_rows_naming_a_name_are_all_of_them():
    """Each name's bindings found on the rows naming it are those the walk
    of the whole function finds, in the same order (on random programs; the
    row search is used on ASCII text only) and on the engine's files."""
    import ast

    from lint_rules.rules.atn205_non_blocking_from_pageable import _bindings
    from tests.fuzzing import valid_program

    sources = [
        valid_program(seed, depth_limit=6, node_limit=1500) for seed in range(16)
    ]
    sources += [path.read_text(encoding="utf-8") for path in _engine_files()]
    checked = 0
    for source in sources:
        if not source.isascii():
            continue
        tree = ast.parse(source)
        ctx = Context(source, tree, "f.py", Settings().options)
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            every = _bindings(function, None)
            first, last = function.lineno, function.end_lineno
            names = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
            for name in names:
                rows = ctx.rows_naming(frozenset((name,)), first, last)
                assert _bindings(function, rows).get(name) == every.get(name), name
                checked += name in every
    assert checked > 200


@pytest.mark.parametrize(
    "binding",
    [
        "view = self.kv_indptr[: bs + 1]",
        "view = self.kv_indptr[0:bs + 1, ...]",
        "view = self.kv_indptr[1:]",
        "(view) = self.kv_indptr",
        "view \\\n            = self.kv_indptr[:]",
        "other = view = self.kv_indptr[:bs]",
        "whole = self.kv_indptr\n        view = whole[:bs]",
        "vïew = self.kv_indptr[:bs]\n        view = vïew",
        "self.fill(bs, lens, view=self.kv_indptr)\n    def fill(self, bs, lens, view):",
        "self.fill(\n            view\n            =self.kv_indptr)\n    def fill(self, view):",
    ],
)
def test_offset_writes_through_a_head_view_atn102_finds_both_ways(binding):
    """An offset write through a view from the buffer's head under another
    name writes the buffer from that offset: no finding, both ways, and
    the row walk names the same buffers as the walk of the whole class."""
    import ast

    from lint_rules.analysis.class_uses import offset_written_names, viewed_names
    from lint_rules.source import Locator

    source = (
        "import torch\nclass Backend:\n"
        "    def init_cuda_graph_state(self, max_bs):\n"
        "        self.kv_indptr = torch.zeros(max_bs + 1, dtype=torch.int32)\n"
        "    def replay(self, bs, lens):\n"
        f"        {binding}\n"
        "        view[1 : bs + 1] = lens.cumsum(0)\n"
    )
    filtered, unfiltered, errors = findings_both_ways(source)
    assert errors == []
    assert filtered == unfiltered == []
    cls = ast.parse(source).body[1]
    direct = offset_written_names(cls, Locator(source))
    assert direct == offset_written_names(cls) == {"view"}
    names = viewed_names(cls, direct, Locator(source))
    assert "kv_indptr" in names
    assert names == viewed_names(cls, direct)


@pytest.mark.parametrize(
    "binding",
    [
        "view = self.kv_indptr[::2]",
        "view = self.kv_indptr[-2:]",
        "view = self.kv_indptr[rows]",
        "view == self.kv_indptr[:bs]",
        "view = self.other[:bs]",
        "self.fill(bs, lens, out=self.kv_indptr)",
    ],
)
def test_what_is_no_head_view_keeps_atn102s_finding(binding):
    source = (
        "import torch\nclass Backend:\n"
        "    def init_cuda_graph_state(self, max_bs):\n"
        "        self.kv_indptr = torch.zeros(max_bs + 1, dtype=torch.int32)\n"
        "    def replay(self, bs, lens, view):\n"
        f"        {binding}\n"
        "        view[1 : bs + 1] = lens.cumsum(0)\n"
    )
    filtered, unfiltered, errors = findings_both_ways(source)
    assert errors == []
    assert [f.code for f in filtered] == [f.code for f in unfiltered] == ["ATN102"]


@pytest.mark.parametrize(
    "text",
    [
        "view = x\nview == y\nview=z\n(view) = w\nview \\\n = q\nreview = 1\nview_2 = 3\n",
        "f(view=self.buf, view2=1)\nviews = 2\nview<=3\nview != 4\nview",
        "vïew = 1\nview\t= 2\n  view   =\n",
        "",
    ],
)
@pytest.mark.parametrize("names", [{"view"}, {"view", "vïew", "q"}, {"", "a-b"}])
def test_bound_positions_are_those_the_pattern_finds(text, names):
    """``_bound_positions`` finds where a name is followed by ``=`` (not
    ``==``) as the regular expression it replaces does."""
    import re

    from lint_rules.analysis.class_uses import _bound_positions

    identifiers = sorted(name for name in names if name.isidentifier())
    pattern = re.compile(
        r"\b(?:" + "|".join(map(re.escape, identifiers)) + r")\b(?:\s|\\|\))*=(?!=)"
    )
    for start, end in ((0, len(text)), (3, max(3, len(text) - 2))):
        expected = (
            [m.start() for m in pattern.finditer(text, start, end)]
            if identifiers
            else []
        )
        assert sorted(_bound_positions(text, names, start, end)) == expected


def test_rows_naming_finds_the_rows_holding_a_name_as_a_word():
    """``Context.rows_naming``: the rows where one of the names is a whole
    run of ``\\w`` (as a per-row ``re.findall`` finds), of few names or many,
    in ASCII text or not."""
    import re

    from lint_rules.config import Settings
    from lint_rules.context import Context

    text = (
        "f(1)\nx = 'é_f' + éf + f_é\n  f\n_f f_ fé éf é\nαβ = f²\n"
        "g = f\r\nh(f)\rself.f  (\n  x)\nfor i in range(9): pass\n"
        "k = x→f—g·h ‖i‖ éj 名k\n"
    )
    ctx = Context(text, None, "x.py", Settings().options)
    rows = len(ctx.locator.line_starts)
    words = sorted(set(re.findall(r"\w+", text)))

    def expected(names, first, last):
        starts = ctx.locator.line_starts + [len(text)]
        return [
            row
            for row in range(first, last + 1)
            if names & set(re.findall(r"\w+", text[starts[row - 1] : starts[row]]))
        ]

    for names in (
        frozenset({"f"}),
        frozenset({"f", "é", "f²"}),
        frozenset(words[:7]),
        frozenset(words + ["a b", "x.y", "missing"]),
        frozenset({"f", "g", "h", "i", "j", "k", "x", "名k", "éj"}),
        frozenset({"a", "b", "c", "d", "e", "g", "h", "i"}),
    ):
        for first in range(1, rows + 1):
            for last in range(first, rows + 1):
                assert ctx.rows_naming(names, first, last) == expected(
                    names, first, last
                )
    assert ctx.rows_naming(frozenset({"f"}), 1, rows) == [1, 3, 6, 7, 8, 11]


@pytest.mark.parametrize(
    ("write", "found"),
    [
        # A comment's non-ASCII characters spell no identifier: the rows
        # naming the attribute are searched, and the offset write is seen.
        ("self.kv_indptr[1 : bs + 1] = lens  # 写 → 首", False),
        # ``ｋｖ_indptr`` is ``kv_indptr`` to Python: the method is searched
        # whole, and the offset write is seen.
        ("self.ｋｖ_indptr[1 : bs + 1] = lens  # 写", False),
        ("self.ｋｖ_indptr.copy_(lens)  # 写", True),
        ("self.kv_indptr.copy_(lens)  # → 写", True),
    ],
)
def test_non_ascii_methods_atn102_finds_both_ways(write, found):
    """A method holding non-ASCII text is searched by rows unless one of its
    characters may spell an ASCII one; either way the uses of the buffer
    are the same as those of a walk of the whole method."""
    source = (
        "import torch\nclass Backend:\n"
        "    def init_cuda_graph_state(self, max_bs):\n"
        "        self.kv_indptr = torch.zeros(max_bs + 1, dtype=torch.int32)\n"
        "    def replay(self, bs, lens):\n"
        "        # 注释: 缓冲区\n"
        f"        {write}\n"
        "        return self.kv_indptr\n"
    )
    filtered, unfiltered, errors = findings_both_ways(source)
    assert errors == []
    assert filtered == unfiltered
    assert any(f.code == "ATN102" for f in filtered) == found


#: Programs where the nodes ``torch_overrides`` looks at stand in the places
#: its row search must not miss: a comprehension's ``for`` on its own row, a
#: keyword glued to a number, a setter by attribute, ``:=``, ``with`` items,
#: statements in every kind of block.
_OVERRIDE_SHAPES = [
    "import torch\nx = [0 for\n     torch.k in range(2)]\n",
    "import torch\nx = [0\n     for torch.k\n     in range(2)]\n",
    "import torch\nx = [0 for y in z if 1for torch.k in w]\n",
    "import torch\nx = [0 for y in z if 1jfor torch.k in w]\n",
    "import torch\ng = {k: v for (torch.a, v) in w for k in v}\n",
    "import torch\nf(x for x in y)\nz = x\n",
    "import torch\nif (t := torch.Tensor):\n    t.item = None\n",
    "import torch\nprint((t\n       :=\n       torch.Tensor))\nt.k = 1\n",
    "import torch\nobject.__setattr__(\n    torch.Tensor, 'k', 1)\n",
    "import torch\nx = (\n    setattr\n)(torch, 'k', 1)\n",
    "import torch\nf(lambda: delattr(torch.Tensor, 'item'))\n",
    "import torch\nwith a as torch.k, b as (c, torch.j):\n    pass\n",
    "import torch\nasync def f():\n    async with a as torch.k:\n        pass\n"
    "    async for torch.j in b:\n        pass\n",
    "import torch\ntry:\n    pass\nexcept E:\n    torch.k = 1\nelse:\n    del torch.j\n"
    "finally:\n    torch.m += 1\n",
    "import torch\nmatch x:\n    case 1:\n        torch.k: int = 2\n",
    "import torch\nclass A:\n    @dec(y for y in z)\n    def f(self):\n        for torch.k in w:\n"
    "            pass\n        while x:\n            pass\n        else:\n            torch.j = 1\n",
    "import torch\n# for setattr := in a comment\ns = 'for x in y := setattr'\n",
    "import torch as t\nT = t.Tensor\nU = T\nU.item = None\n",
    "import torch\nformat = before = platform = 1\nx.forward = torch\n",
]


def _looked_at(nodes) -> set[int]:
    """The ids of the nodes among ``nodes`` that ``_stores_into`` uses."""
    from lint_rules.analysis.torch_overrides import _SETTERS

    found = set()
    for node in nodes:
        if isinstance(
            node,
            ast.Assign
            | ast.AnnAssign
            | ast.AugAssign
            | ast.NamedExpr
            | ast.Delete
            | ast.For
            | ast.AsyncFor
            | ast.comprehension,
        ):
            found.add(id(node))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            found.add(id(node))
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else None
            if isinstance(func, ast.Name):
                name = func.id
            if name in _SETTERS:
                found.add(id(node))
    return found


@functools.cache
def _override_sources() -> tuple[str, ...]:
    from tests.fuzzing import valid_program

    sources = list(_OVERRIDE_SHAPES)
    sources += [
        valid_program(seed, depth_limit=6, node_limit=1500) for seed in range(16)
    ]
    sources += [path.read_text(encoding="utf-8") for path in _engine_files()]
    return tuple(sources)


def test_torch_overrides_candidates_are_every_node_the_walk_looks_at():
    """The statements and the expressions on the rows of a ``:=``, a
    ``for`` or a setter's name (``torch_overrides._candidates``) hold every
    node the walk of the whole module gives ``_stores_into``; and the answer
    with the pre-filters is the one without them."""
    from lint_rules.analysis.torch_overrides import (
        _candidates,
        _expression_rows,
        torch_overrides,
    )

    searched = 0
    for source in _override_sources():
        tree = ast.parse(source)
        ctx = Context(source, tree, "f.py", Settings().options)
        rows = _expression_rows(ctx.model)
        if source.isascii() and "\r" not in source:
            assert rows is not None
        if rows is not None:
            searched += 1
            every = _looked_at(ast.walk(tree))
            assert _looked_at(_candidates(ctx.model, rows)) == every, source
        answer = torch_overrides(ctx.model)
        previous = prefilter.set_enabled(False)
        try:
            assert _expression_rows(ctx.model) is None
            bare = Context(source, ast.parse(source), "f.py", Settings().options)
            assert torch_overrides(bare.model) == answer, source
        finally:
            prefilter.set_enabled(previous)
    assert searched > 40
    # the shapes above that store into torch are found, each
    for source in _OVERRIDE_SHAPES:
        ctx = Context(source, ast.parse(source), "f.py", Settings().options)
        stores = any(part in source for part in ("torch.", "t.Tensor", "(torch,"))
        assert (torch_overrides(ctx.model) is not None) is stores, source


def test_keyword_rows_hold_every_for_keyword():
    """Every ``for`` token the tokenizer reads is on a row ``keyword_rows``
    gives (numbers glued to it included); names holding ``for`` are not."""
    import io
    import tokenize

    from lint_rules.analysis.torch_overrides import keyword_rows

    for source in _override_sources():
        if "\r" in source:
            continue
        rows = set(keyword_rows(source, "for"))
        tokens = tokenize.generate_tokens(io.StringIO(source).readline)
        for token in tokens:
            if token.type == tokenize.NAME and token.string == "for":
                assert token.start[0] in rows, (source, token)
    assert keyword_rows("x = 1for\ny = before + fore + forward\n", "for") == [1]
    assert keyword_rows("a = b.for_x\nc = [1 for d in e]\n", "for") == [2]


def test_the_model_scans_import_statements_are_every_import():
    """``module_runs_finalizers`` reads the imports a model's statement scan
    collected (``ModuleScope.import_statements``) in place of its own walk
    of the statements: they are every import statement of the module, and
    the answer is the walk's."""
    from lint_rules.analysis.class_hooks import module_runs_finalizers
    from lint_rules.analysis.model import ModuleModel
    from lint_rules.analysis.scopes import module_scope

    sources = [
        *_override_sources(),
        "def f():\n    try:\n        pass\n    except E:\n        import gc\n",
        "class A:\n    match x:\n        case 1:\n            from weakref import ref\n",
        "if x:\n    pass\nelse:\n    with y:\n        import weakref.finalize\n",
        "from . import gc\nimport gcx\n",
    ]
    finalizing = 0
    for source in sources:
        tree = ast.parse(source)
        model = ModuleModel(tree, source)
        scanned = model.module_scope.import_statements
        assert scanned is not None
        every = [
            n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
        ]
        assert sorted(map(id, scanned)) == sorted(map(id, every))
        answer = module_runs_finalizers(model.module_scope)
        walked = module_scope(tree, (), None, None)  # (no scan: the walk)
        assert walked.import_statements is None
        assert module_runs_finalizers(walked) == answer
        finalizing += answer
    assert finalizing >= 3


def test_has_noqa_comment_answers_as_the_case_blind_search():
    """``has_noqa_comment`` looks for ``noqa`` in any case where a spelling
    of ``oq`` stands: as the case-blind search of the whole text, since no
    other character matches ``o`` or ``q`` ignoring case."""
    import re

    from lint_rules.noqa import has_noqa_comment

    for letter in "oq":
        assert {
            chr(code)
            for code in range(0x110000)
            if re.match(letter, chr(code), re.IGNORECASE)
        } == {letter, letter.upper()}
    texts = [
        "x = 1  # noqa\n",
        "x = 1  # NoQa: ATN101\n",
        "noqa",
        "oqa noq",
        "x = 1  # nOQA\n",
        "no qa, n0qa, oq, OQ, noq\na\n",
        "ｎoqa",
        "ǌoqa",
        "x = 'NOQ' 'A'\n",
        "",
        "q",
        "noqanoqa",
        "anoqanoq",
        *[path.read_text(encoding="utf-8") for path in _engine_files()[:40]],
    ]
    found = 0
    for text in texts:
        expected = re.search("noqa", text, re.IGNORECASE) is not None
        assert has_noqa_comment(text) is expected, text[:60]
        found += expected
    assert found >= 6
    previous = prefilter.set_enabled(False)
    try:
        assert has_noqa_comment("x = 1\n")
    finally:
        prefilter.set_enabled(previous)


def test_text_scans_for_parts_answer_as_the_scans_for_each_word():
    """The module-wide text scans that look for a few parts of many words
    (``_FRAME_PARTS``, ``_TRACING_PARTS``) answer as a scan per word: each
    word holds one of the parts, and a text spelling only a part is read
    further (frames) or kept (tracing: each part is itself a word)."""
    from lint_rules.analysis.model import _FRAME_PARTS, _FRAME_WORDS
    from lint_rules.analysis.torch_overrides import (
        _TRACING,
        _TRACING_PARTS,
        may_install_tracing,
    )

    assert all(any(part in word for part in _FRAME_PARTS) for word in _FRAME_WORDS)
    assert set(_TRACING_PARTS) <= _TRACING
    texts = [
        *(f"x = sys.{name}(f)\n" for name in sorted(_TRACING)),
        "import sys\nsys.settrac(f)\n",
        "x = 1\n",
        "",
    ]
    previous = prefilter.set_enabled(True)
    try:
        for text in texts:
            expected = any(name in text for name in _TRACING)
            assert may_install_tracing(text) is expected, text
    finally:
        prefilter.set_enabled(previous)


@pytest.mark.parametrize(
    "text",
    [
        "import inspect\n",
        "def f():\n    return sys._getframe(1).f_locals\n",
        "frame = 1\n",
        "x.walk_tb(t)\n",
        "y = t.f_back\n",
        "z = 1\n",
    ],
)
def test_frames_found_with_the_parts_scan_as_by_the_walk(text):
    """``_reads_frames`` with the text scan for the words' parts first
    answers as the walk of every node does."""
    from lint_rules.analysis.model import ModuleModel

    tree = ast.parse(text)
    previous = prefilter.set_enabled(True)
    try:
        filtered = ModuleModel(tree, text)._reads_frames
    finally:
        prefilter.set_enabled(previous)
    assert filtered == ModuleModel(tree)._reads_frames
