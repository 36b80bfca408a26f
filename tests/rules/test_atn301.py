"""ATN301 dead-loop-alias: each negative of the design, and the fix's edges."""

from __future__ import annotations

import ast
import textwrap

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings
from lint_rules.fixer import fix_text

# The mechanism, wherever it runs: reporting is not limited to per-step code.
SETTINGS = Settings(select=("ATN301",), hot_paths_only=False)


def codes(source: str) -> list[tuple[int, str]]:
    source = textwrap.dedent(source)
    return [(f.location.row, f.code) for f in check_source(source, "t.py", SETTINGS)]


def fixed(source: str) -> str:
    result = fix_text(textwrap.dedent(source), "t.py", SETTINGS, unsafe_fixes=False)
    ast.parse(result.text)
    return result.text


def test_sglang_style_loop_reports_both_aliases():
    source = """
    def update(table, cache, lens):
        for idx, n in enumerate(lens):
            start = idx
            end = idx + 1
            table[start:end, :n] = cache[start:end, :n]
    """
    assert codes(source) == [(4, "ATN301"), (5, "ATN301")]
    assert fixed(source) == textwrap.dedent(
        """
        def update(table, cache, lens):
            for idx, n in enumerate(lens):
                table[idx : idx + 1, :n] = cache[idx : idx + 1, :n]
        """
    )


NEGATIVES = {
    "used_after_loop": """
        def f(xs):
            for i in xs:
                last = i
                print(last)
            return last
    """,
    "source_rebound_before_use": """
        def f(xs):
            for i in xs:
                start = i
                i = 0
                print(start)
    """,
    "source_rebound_by_nested_loop_before_use": """
        def f(xs, ys):
            for i in xs:
                start = i
                for i in ys:
                    pass
                print(start)
    """,
    "used_in_lambda": """
        def f(xs, out):
            for i in xs:
                start = i
                out.append(lambda: start)
    """,
    "used_in_comprehension": """
        def f(xs, n):
            for i in xs:
                start = i
                print([start + k for k in range(n)])
    """,
    "used_in_nested_function": """
        def f(xs):
            for i in xs:
                start = i
                def g():
                    return start
                g()
    """,
    "alias_rebound": """
        def f(xs):
            for i in xs:
                start = i
                print(start)
                start += 1
    """,
    "alias_deleted": """
        def f(xs):
            for i in xs:
                start = i
                print(start)
                del start
    """,
    "global_alias": """
        def f(xs):
            global start
            for i in xs:
                start = i
                print(start)
    """,
    "nonlocal_alias": """
        def outer():
            start = 0
            def f(xs):
                nonlocal start
                for i in xs:
                    start = i
                    print(start)
            return f
    """,
    "module_level_loop": """
        for i in range(3):
            start = i
            print(start)
    """,
    "call_as_value": """
        def f(xs):
            for i in xs:
                start = int(i)
                print(start)
    """,
    "attribute_as_value": """
        def f(xs):
            for x in xs:
                start = x.begin
                print(start)
    """,
    "multiplication_as_value": """
        def f(xs):
            for i in xs:
                start = i * 2
                print(start)
    """,
    "value_reads_a_global": """
        OFFSET = 1
        def f(xs):
            for i in xs:
                start = OFFSET
                print(start)
    """,
    "used_before_assignment_in_iteration": """
        def f(xs):
            start = 0
            for i in xs:
                print(start)
                start = i
    """,
    "used_in_sibling_branch": """
        def f(xs, c):
            for i in xs:
                if c:
                    start = i
                else:
                    print(start)
    """,
    "tuple_target": """
        def f(xs):
            for i in xs:
                start, end = i, i + 1
                print(start, end)
    """,
    "dynamic_scope": """
        def f(xs):
            for i in xs:
                start = i
                print(eval("start"))
    """,
    "dynamic_scope_dir": """
        def f(xs):
            for i in xs:
                start = i
                print("start" in dir())
    """,
    "own_frame_lists_the_locals": """
        import inspect

        def f(xs):
            for i in xs:
                start = i
                print(inspect.currentframe().f_locals)
    """,
    "helper_lists_the_callers_locals": """
        import sys

        def names():
            return sorted(sys._getframe(1).f_locals)

        def f(xs):
            for i in xs:
                start = i
                print(names(), start)
    """,
    "not_in_a_loop": """
        def f(i):
            start = i
            return start
    """,
}


@pytest.mark.parametrize("source", NEGATIVES.values(), ids=NEGATIVES.keys())
def test_not_flagged(source):
    assert codes(source) == []


def test_inspect_without_frames_keeps_the_names_private():
    source = """
    import inspect

    def f(xs, g):
        for i in xs:
            start = i
            print(inspect.signature(g), start)
    """
    assert codes(source) == [(6, "ATN301")]


def test_dir_of_an_object_keeps_the_names_private():
    source = """
    def f(xs, box):
        for i in xs:
            start = i
            print(start, dir(box))
    """
    assert codes(source) == [(4, "ATN301")]


def test_unused_alias_is_deleted():
    source = """
    def f(xs):
        for i in xs:
            start = i
            print(i)
    """
    assert codes(source) == [(4, "ATN301")]
    assert "start" not in fixed(source)


@pytest.mark.parametrize(
    ("use", "expected"),
    [
        ("data[j] * k", "data[i + 1] * (i + 1)"),
        ("k - 1", "i + 1 - 1"),
        ("1 - k", "1 - (i + 1)"),
        ("-k", "-(i + 1)"),
        ("k**2", "(i + 1)**2"),
        ("k.bit_length()", "(i + 1).bit_length()"),
        ("k < 3 and k", "i + 1 < 3 and i + 1"),
        ("f(k, key=k)", "f(i + 1, key=i + 1)"),
        ("data[k : k + 1]", "data[i + 1 : i + 1 + 1]"),
    ],
)
def test_inlined_value_is_parenthesized_where_needed(use, expected):
    source = f"""
    def g(data, f):
        out = []
        for i in range(3):
            k = i + 1
            j = i + 1
            out.append({use})
        return out
    """
    after = fixed(source)
    assert f"out.append({expected})" in after
    # The rewritten function computes the same values as the original.
    results = []
    for text in (textwrap.dedent(source), after):
        namespace: dict = {}
        exec(compile(text, "t.py", "exec"), namespace)
        results.append(namespace["g"](list(range(10, 20)), lambda *a, **k: (a, k)))
    assert results[0] == results[1]


def test_semicolon_separated_alias():
    source = """
    def f(xs):
        for i in xs:
            start = i; end = i + 1; print(start, end)
    """
    out = fixed(source)
    assert out == textwrap.dedent(
        """
        def f(xs):
            for i in xs:
                print(i, i + 1)
        """
    )


def test_only_statement_of_block_becomes_pass():
    source = """
    def f(xs, c):
        for i in xs:
            if c:
                unused = i
    """
    out = fixed(source)
    assert "unused" not in out
    assert "pass" in out


def test_crlf_and_comments_are_kept():
    source = "def f(xs):\r\n    for i in xs:  # loop\r\n        j = i\r\n        print(j)  # use\r\n"
    result = fix_text(source, "t.py", SETTINGS, unsafe_fixes=False)
    assert (
        result.text
        == "def f(xs):\r\n    for i in xs:  # loop\r\n        print(i)  # use\r\n"
    )


@pytest.mark.parametrize(
    "value",
    [
        "(i  # the next row\n             + 1)",
        "i + \\\n            1",
        "(i +\n             1)",
    ],
)
def test_a_value_over_several_lines_is_not_inlined_into_an_fstring(value):
    # Before Python 3.12 an f-string's replacement field holds no comment,
    # no backslash and (single-quoted) no line break: the finding stays,
    # with no fix, and the file is left as it was.
    source = (
        f'def f(xs):\n    for i in xs:\n        j = {value}\n        print(f"{{j}}")\n'
    )
    found = check_source(source, "t.py", SETTINGS)
    assert [(f.code, f.fix) for f in found] == [("ATN301", None)]
    result = fix_text(source, "t.py", SETTINGS, unsafe_fixes=False)
    assert result.error is None
    assert result.text == source
    # Outside an f-string the same value is inlined, in parentheses.
    plain = source.replace('f"{j}"', "j")
    assert (
        fixed(plain) == "def f(xs):\n    for i in xs:\n"
        f"        print(({value.strip('()')}))\n"
    )


def test_noqa_suppresses():
    source = """
    def f(xs):
        for i in xs:
            j = i  # noqa: ATN301
            print(j)
    """
    assert codes(source) == []


def _tangled(between: str) -> str:
    """A loop alias of tensor arithmetic, used once, in a function whose
    aliasing is too tangled to follow (``acc`` holds 70 other objects)."""
    params = ", ".join(f"p{i}" for i in range(70))
    stores = "".join(f"    acc.part{i} = p{i}\n" for i in range(70))
    return (
        f"def f(xs, ys, {params}):\n    acc = xs[0]\n{stores}"
        f"    for y in ys:\n        d = acc - y\n{between}        print(d)\n"
    )


def test_tangled_aliasing_does_not_matter_when_nothing_runs_between():
    # Between the alias and its use nothing stores or writes: which objects
    # `acc` may share does not matter.
    assert codes(_tangled("")) == [(74, "ATN301")]
    assert codes(_tangled('        log("step")\n')) == [(74, "ATN301")]  # unknown code
    # Other names rebound: no object changes.
    assert codes(_tangled("        k = len(y)\n        print(k)\n")) == [(74, "ATN301")]


def test_tangled_aliasing_counts_when_something_writes_between():
    assert codes(_tangled("        ys.clear()\n")) == []
    assert codes(_tangled("        acc.add_(y)\n")) == []


def test_a_builtin_the_module_redefines_makes_no_number():
    # `int` here is the module's own function: what it returns may be anything.
    source = """
    def int(value):
        return [value]

    def f(xs):
        for v in xs:
            n = int(v)
            m = n + n
            print(m, m)
    """
    assert codes(source) == []
    assert codes(source.replace("def int(value):\n        return [value]\n", "")) == [
        (6, "ATN301")
    ]


JIT_KERNELS = {
    "triton_jit": "import triton\n@triton.jit\ndef kernel(xs):\n",
    "triton_autotune": "import triton\n@triton.autotune(configs=[])\n@triton.jit\n"
    "def kernel(xs):\n",
    "jit_imported_by_name": "from triton import jit\n@jit\ndef kernel(xs):\n",
    "tilelang_prim_func": "import tilelang.language as T\n"
    "def build():\n    @T.prim_func\n    def kernel(xs):\n",
    "cute_kernel": "import cutlass.cute as cute\n@cute.kernel\ndef kernel(xs):\n",
    "numba_njit": "import numba\n@numba.njit\ndef kernel(xs):\n",
}


def test_a_kernel_compiled_by_a_call_is_left_to_its_compiler() -> None:
    # ``helion.kernel(_body, ...)`` at the top of the module: a decorator
    # applied by hand (``torch.compile`` too: ATN301 leaves every compiler's).
    body = "def _body(xs):\n    for i in xs:\n        j = i\n        print(j)\n"
    assert len(codes("import helion\n" + body)) == 1
    assert (
        codes("import helion\n" + body + "k = helion.kernel(_body, config=None)\n")
        == []
    )
    # A call of another function, or with the kernel not first, compiles nothing.
    assert len(codes("import helion\n" + body + "k = helion.kernel(f, _body)\n")) == 1


@pytest.mark.parametrize("header", JIT_KERNELS.values(), ids=JIT_KERNELS.keys())
def test_jit_compiled_kernels_are_left_to_their_compiler(header: str) -> None:
    indent = " " * (header.splitlines()[-1].index("def") + 4)
    body = f"{indent}for i in xs:\n{indent}    j = i\n{indent}    print(j)\n"
    assert codes(header + body) == []


def test_jit_decorators_is_a_setting() -> None:
    source = "import mylib\n@mylib.kernel\ndef k(xs):\n    for i in xs:\n        j = i\n        print(j)\n"
    assert len(codes(source)) == 1
    settings = Settings(
        select=("ATN301",), hot_paths_only=False, jit_decorators=("mylib.*",)
    )
    assert check_source(source, "t.py", settings) == []


@pytest.mark.parametrize("constant", ["False", "0.7978845608028654", "-1", "'name'"])
def test_a_name_for_a_bare_constant_is_not_an_alias(constant: str) -> None:
    source = (
        f"def f(xs):\n    for i in xs:\n        k = {constant}\n        print(i, k)\n"
    )
    assert codes(source) == []


def _applicability(source: str) -> list[str]:
    return [
        f.fix.applicability.value if f.fix is not None else "none"
        for f in check_source(source, "t.py", SETTINGS)
    ]


def _loop(lines: str) -> str:
    body = "".join(f"        {line}\n" for line in lines.split("; "))
    return f"def f(n, t, u):\n    m = int(u)\n    for i in range(n):\n{body}        print(i)\n"


# The sum or difference may raise though its names hold numbers: a constant
# that is no number, a slice, an int past the floats' range and a float. The
# unused alias, once deleted, raises no more: the fix is unsafe.
MAY_RAISE = {
    "string_constant": "s = i + 'x'",
    "none_constant": "s = i - None",
    "bytes_constant": "s = i + b'x'",
    "float_constant_and_an_unbounded_int": "s = i + 0.5",
    "item_and_an_unbounded_int": "f = t.item(); s = m + f",
    "slice": "sl = slice(i); s = sl + 1",
    "slice_unpacked": "a, sl = 0, slice(None); s = sl - a",
    "annotated_parameter": "s = i + n",
}


@pytest.mark.parametrize("lines", MAY_RAISE.values(), ids=MAY_RAISE.keys())
def test_a_sum_that_may_raise_is_deleted_only_unsafely(lines):
    source = _loop(lines)
    if lines == MAY_RAISE["annotated_parameter"]:
        source = source.replace("def f(n,", "def f(n: int,")
    assert _applicability(source)[-1] == "unsafe"


def test_a_sum_numbers_only_by_annotation_is_inlined_only_unsafely():
    # ``n: int`` is not checked at the call: given a list, ``i + n`` inlined
    # at two uses is two new lists where the alias shared one.
    source = (
        "def f(a: int, b: int, n):\n"
        "    for i in range(n):\n"
        "        s = a + b\n"
        "        g(s)\n"
        "        h(s)\n"
    )
    assert _applicability(source)[-1] == "unsafe"
    unannotated = source.replace("a: int, b: int", "n2").replace(
        "s = a + b", "a = int(n2); b = len(n2)\n        s = a + b"
    )
    assert _applicability(unannotated)[-1] == "safe"


@pytest.mark.parametrize(
    "lines", ["s = i + 1", "s = i - m", "k = len(t); s = i + k - True"]
)
def test_a_sum_of_integers_is_deleted_safely(lines):
    assert _applicability(_loop(lines))[-1] == "safe"


# ``s = v + 1`` may raise (``v`` a string). Inlined at its first use, it
# raises where the alias did only if nothing evaluated before that use in the
# next statement may raise another exception first.
RAISES_FIRST = {
    "a name's call": ("print(s)", "safe"),
    "a local's call": ("out(s)", "safe"),
    "an assignment's value": ("d.x = s", "safe"),
    "a subscript store": ("d[s] = 0", "safe"),
    "a tuple's first item": ("(d.x, e) = (s, 0)", "safe"),
    "a conditional's test": ("out = d.x if s else 0", "safe"),
    "a method looked up first": ("out.append(s)", "unsafe"),
    "a subscript read first": ("d['k'].append(s)", "unsafe"),
    "an argument before it": ("print(d['k'], s)", "unsafe"),
    "a division before it": ("print(1 / z + s)", "unsafe"),
    "an attribute before it": ("out = [d.x, s]", "unsafe"),
    "a comparison before it": ("out = z < e < s", "unsafe"),
    "a formatted value before it": ("out = f'{d}{s}'", "unsafe"),
    "a keyword's value": ("print(end=s)", "safe"),
}


@pytest.mark.parametrize("name", sorted(RAISES_FIRST))
def test_an_inlined_value_that_may_raise_must_be_evaluated_first(name):
    use, applicability = RAISES_FIRST[name]
    source = (
        "def f(vs, out, d, z, e):\n    for v in vs:\n"
        f"        s = v + 1\n        {use}\n"
    )
    assert _applicability(source) == [applicability]


@pytest.mark.parametrize("method", ["numel()", "size(0)", "dim()"])
def test_an_integer_method_a_class_of_the_module_defines_is_no_integer(method):
    # ``v.numel()`` is an int for a tensor; the module's own class may
    # return anything, and ``k + 1`` then raise: deleting it is unsafe.
    name = method.split("(")[0]
    loop = (
        "def f(rows):\n    for v in rows:\n"
        f"        k = v.{method}\n        s = k + 1\n        print(v)\n"
    )
    assert _applicability(loop) == ["safe"]
    own = f"class Rows:\n    def {name}(self, *a):\n        return 'many'\n\n\n" + loop
    assert _applicability(own) == ["unsafe"]


@pytest.mark.parametrize(
    ("binding", "applicability"),
    [
        ("out = []", "safe"),
        ("out = {}", "unsafe"),  # a dict has no ``append``
        ("out = [] if vs else None", "unsafe"),
        ("out = list(vs)", "unsafe"),  # ``list`` may be anything
    ],
)
def test_a_method_of_a_local_list_is_looked_up_without_raising(binding, applicability):
    source = (
        f"def f(vs):\n    {binding}\n    for v in vs:\n"
        "        s = v + 1\n        out.append(s)\n    return out\n"
    )
    assert _applicability(source) == [applicability]


@pytest.mark.parametrize(
    "definition",
    [
        "def g(a: start): pass",
        "def g() -> start: pass",
        "def g(a: list[start], *b: start): pass",
        "def g(**k: start): pass",
    ],
)
def test_an_alias_read_by_an_annotation_keeps_it(definition):
    # Deleting the alias left ``start`` unbound where the ``def`` evaluates
    # its annotations; inlining changes a postponed annotation's text.
    source = f"""
    def forward(xs):
        out = []
        for idx in range(len(xs)):
            start = idx + 1
            {definition}
            out.append(g.__annotations__)
        return out
    """
    assert codes(source) == [(5, "ATN301")]
    assert fixed(source) == textwrap.dedent(source)
    # A default is evaluated at the ``def`` too, but kept as a value only.
    default = source.replace("(a: start)", "(a: int = start)")
    if default != source:
        assert "start" not in fixed(default)


@pytest.mark.parametrize("use", ["out[0] is out[1]", "id(out[0])"])
def test_sum_inlined_at_two_uses_is_unsafe_where_the_function_takes_identities(use):
    # The alias shared one int object; inlined, each use makes its own.
    source = (
        "def f(xs):\n    out = []\n    for i in range(xs):\n        w = i + 1000\n"
        f"        out.append(w)\n        out.append(w)\n    return {use}\n"
    )
    assert codes(source) == [(4, "ATN301")]
    assert fixed(source) == source


def test_sum_inlined_at_one_use_stays_safe_where_the_function_takes_identities():
    source = (
        "def f(xs):\n    out = []\n    for i in range(xs):\n        w = i + 1000\n"
        "        out.append(w)\n    return out[0] is out[-1]\n"
    )
    assert "out.append(i + 1000)" in fixed(source)
