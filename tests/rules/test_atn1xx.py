"""ATN101-ATN103, zero-filled and uninitialized buffers: negatives, positives,
the zeros -> empty rewrite and its edges, and the CLI's safe/unsafe split."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings
from lint_rules.fixer import fix_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
SETTINGS = Settings(select=("ATN101", "ATN102", "ATN103"))


def findings(source: str, settings: Settings = SETTINGS) -> list[tuple[int, str]]:
    source = textwrap.dedent(source)
    return [(f.location.row, f.code) for f in check_source(source, "t.py", settings)]


def messages(source: str, settings: Settings = SETTINGS) -> list[str]:
    return [f.message for f in check_source(textwrap.dedent(source), "t.py", settings)]


def fixed(source: str, unsafe: bool = False, settings: Settings = SETTINGS) -> str:
    text = fix_text(textwrap.dedent(source), "t.py", settings, unsafe_fixes=unsafe).text
    ast.parse(text)
    return text


def dedent(text: str) -> str:
    return textwrap.dedent(text)


# --------------------------------------------------------------------------- ATN101 negatives

ATN101_NEGATIVES = {
    "augmented_accumulation": """
        def f(y, n):
            x = torch.zeros(n)
            x += y
            return x
    """,
    "add_": """
        def f(y, n):
            x = torch.zeros(n)
            x.add_(y)
            return x
    """,
    "index_add_": """
        def f(y, idx, n):
            x = torch.zeros(n)
            x.index_add_(0, idx, y)
            return x
    """,
    "scatter_add_": """
        def f(y, idx, n):
            x = torch.zeros(n)
            x.scatter_add_(0, idx, y)
            return x
    """,
    "partial_prefix_write": """
        def f(y, n, m):
            x = torch.zeros(n)
            x[:m] = y
            return x
    """,
    "partial_suffix_write": """
        def f(y, n):
            x = torch.zeros(n)
            x[1:] = y
            return x
    """,
    "partial_copy_through_view": """
        def f(y, n, m):
            x = torch.zeros(n)
            x[:m].copy_(y)
            return x
    """,
    "scatter_": """
        def f(y, idx, n):
            x = torch.zeros(n)
            x.scatter_(0, idx, y)
            return x
    """,
    "write_in_one_branch": """
        def f(y, n, c):
            x = torch.zeros(n)
            if c:
                x.copy_(y)
            return x
    """,
    "write_inside_loop": """
        def f(ys, n):
            x = torch.zeros(n)
            for y in ys:
                x.copy_(y)
            return x
    """,
    "read_before_write": """
        def f(y, n):
            x = torch.zeros(n)
            print(x.max())
            x.copy_(y)
            return x
    """,
    "escape_to_unknown_kernel": """
        def f(kernel, y, n):
            x = torch.zeros(n)
            kernel(x, y)
            x.copy_(y)
            return x
    """,
    "escape_stored_on_object": """
        def f(state, y, n):
            x = torch.zeros(n)
            state.buf = x
            x.copy_(y)
    """,
    "escape_returned": """
        def f(n):
            x = torch.zeros(n)
            return x
    """,
    "view_taken": """
        def f(y, n):
            x = torch.zeros(n, 2)
            v = x.t()
            x.copy_(y)
            return v
    """,
    "alias_taken": """
        def f(y, n):
            x = torch.zeros(n)
            z = x
            x.copy_(y)
            return z
    """,
    "numpy_zeros": """
        import numpy as np

        def f(y, n):
            x = np.zeros(n)
            x[:] = y
            return x
    """,
    "numpy_zeros_like_by_name": """
        from numpy import zeros_like

        def f(y):
            x = zeros_like(y)
            x[:] = y
            return x
    """,
    "full_with_non_zero": """
        def f(y, n):
            x = torch.full((n,), 1.0)
            x.copy_(y)
            return x
    """,
    "new_full_with_variable_fill": """
        def f(y, n, v):
            x = y.new_full((n,), v)
            x.copy_(y)
            return x
    """,
    "conditional_expression_write": """
        def f(y, n, c):
            x = torch.zeros(n)
            x.copy_(y) if c else x.fill_(0)
            return x
    """,
    "bool_operand_write": """
        def f(y, n, c):
            x = torch.zeros(n)
            c and x.copy_(y)
            return x
    """,
    "nested_function_writes": """
        def f(y, n):
            x = torch.zeros(n)
            def g():
                x.copy_(y)
            g()
            return x
    """,
    "global_name": """
        def f(y, n):
            global x
            x = torch.zeros(n)
            x.copy_(y)
    """,
    "locals_can_see_it": """
        def f(y, n):
            x = torch.zeros(n)
            print(locals())
            x.copy_(y)
            return x
    """,
    "a_frame_can_see_it": """
        import sys

        def f(y, n):
            x = torch.zeros(n)
            print(sys._getframe().f_locals["x"])
            x.copy_(y)
            return x
    """,
    "a_helper_reads_the_callers_frame": """
        import sys

        def peek():
            print(sys._getframe(1).f_locals["x"])

        def f(y, n):
            x = torch.zeros(n)
            peek()
            x.copy_(y)
            return x
    """,
    "module_level": """
        x = torch.zeros(3)
        x.copy_(torch.ones(3))
    """,
    "zeros_into_out": """
        def f(y, n, buf):
            torch.zeros(n, out=buf)
            buf.copy_(y)
            return buf
    """,
    "multiple_targets": """
        def f(y, n):
            x = z = torch.zeros(n)
            x.copy_(y)
            return z
    """,
    "empty_out_does_not_write": """
        def f(y, n):
            x = torch.zeros(n)
            torch.empty(n, out=x)
            return x
    """,
    # Arguments after ``out=x`` are evaluated before the call writes ``x``.
    "out_then_an_argument_that_reads": """
        def f(y, n):
            x = torch.zeros(n)
            torch.add(y, 1, out=x, alpha=x.sum() + 1)
            return x
    """,
    "out_then_keywords_that_read": """
        def f(y, n):
            x = torch.zeros(n)
            torch.add(y, 1, out=x, **{"alpha": x.sum() + 1})
            return x
    """,
    "helper_argument_after_the_written_one_reads": """
        def _fill(dst, src):
            dst.copy_(src)

        def f(y, n):
            x = torch.zeros(n)
            _fill(x, y + x.sum())
            return x
    """,
    "try_handler_reads": """
        def f(y, n):
            x = torch.zeros(n)
            try:
                y = y.float()
                x.copy_(y)
            except RuntimeError:
                return x.sum()
            return x
    """,
    # The zeros' address handed to code that may read them (a C++ op that
    # accumulates into its output) before the full write.
    "address_handed_on_before_the_write": """
        def f(y, n, lib):
            x = torch.zeros(n)
            lib.accumulate(y.data_ptr(), x.data_ptr())
            x.copy_(y)
            return x
    """,
}


@pytest.mark.parametrize("source", ATN101_NEGATIVES.values(), ids=ATN101_NEGATIVES)
def test_atn101_negative(source):
    source = "import torch\n" + dedent(source)
    assert [code for _, code in findings(source) if code == "ATN101"] == []


def test_atn101_negatives_fixture_is_clean():
    source = (FIXTURES / "atn1_negatives.py").read_text()
    assert findings(source) == []


# --------------------------------------------------------------------------- ATN101 positives


@pytest.mark.parametrize(
    "write",
    [
        "x.copy_(y)",
        "x.fill_(2)",
        "x.zero_()",
        "x.uniform_()",
        "x.normal_()",
        "x.random_(0, 4)",
        "x.bernoulli_(0.5)",
        "x.exponential_()",
        "x.geometric_(0.5)",
        "x.cauchy_()",
        "x.log_normal_()",
        "x[:] = y",
        "x[...] = y",
        "x[:, :] = y",
        "torch.mul(y, 2, out=x)",
    ],
)
def test_atn101_every_full_write_form(write):
    source = f"import torch\n\ndef f(y, n):\n    x = torch.zeros(n, 1)\n    {write}\n    return x\n"
    assert findings(source) == [(4, "ATN101")]
    assert fixed(source) == source.replace("torch.zeros(", "torch.empty(")


def test_atn101_an_address_only_compared_before_the_write_sees_no_element():
    source = (
        "import torch\n\ndef f(y, n):\n    x = torch.zeros(n)\n"
        "    assert x.data_ptr() != y.data_ptr()\n    x.copy_(y)\n    return x\n"
    )
    assert findings(source) == [(4, "ATN101")]
    # Handed to a call, the address lets the callee read the zeros.
    handed = source.replace(
        "assert x.data_ptr() != y.data_ptr()", "kernel(x.data_ptr())"
    )
    assert findings(handed) == []


@pytest.mark.parametrize(
    ("imports", "call", "replacement"),
    [
        ("import torch", "torch.zeros(n)", "torch.empty(n)"),
        ("import torch as th", "th.zeros(n)", "th.empty(n)"),
        ("import torch as th", "th.zeros_like(y)", "th.empty_like(y)"),
        ("import torch.nn", "torch.zeros(n)", "torch.empty(n)"),
        ("import torch", "y.new_zeros(n)", "y.new_empty(n)"),
        ("import torch", "y.new_full((n,), 0)", "y.new_empty((n,))"),
        ("import torch", "torch.full((n,), 0.0)", "torch.empty((n,))"),
        ("import torch", "torch.full((n,), -0.0)", "torch.empty((n,))"),
        ("import torch", "torch.full_like(y, 0)", "torch.empty_like(y)"),
        ("import torch", "torch.full_like(y, fill_value=False)", "torch.empty_like(y)"),
        ("import torch", "torch.full((n,), 0)", "torch.empty((n,), dtype=torch.int64)"),
        (
            "import torch",
            "torch.full((n,), False)",
            "torch.empty((n,), dtype=torch.bool)",
        ),
        (
            "import torch",
            "torch.full((n,), 0, dtype=torch.int32)",
            "torch.empty((n,), dtype=torch.int32)",
        ),
    ],
)
def test_atn101_import_styles_and_allocators(imports, call, replacement):
    source = (
        f"{imports}\n\ndef f(y, n):\n    x = {call}\n    x.copy_(y)\n    return x\n"
    )
    assert findings(source) == [(4, "ATN101")]
    assert fixed(source) == source.replace(call, replacement)


@pytest.mark.parametrize(
    ("imports", "call", "fixed_imports", "replacement"),
    [
        (
            "from torch import zeros",
            "zeros(n)",
            "from torch import empty, zeros",
            "empty(n)",
        ),
        (
            "from torch import zeros as z",
            "z(n)",
            "from torch import empty, zeros as z",
            "empty(n)",
        ),
        (
            "from torch import zeros_like as zl",
            "zl(y)",
            "from torch import empty_like, zeros_like as zl",
            "empty_like(y)",
        ),
        (
            "from torch import ones, zeros",
            "zeros(n)",
            "from torch import empty, ones, zeros",
            "empty(n)",
        ),
        (
            "from torch import zeros, Tensor",
            "zeros(n)",
            "from torch import zeros, Tensor, empty",
            "empty(n)",
        ),
        (
            "from torch import empty, zeros",
            "zeros(n)",
            "from torch import empty, zeros",
            "empty(n)",
        ),
        (
            "from torch import empty as e, zeros",
            "zeros(n)",
            "from torch import empty as e, zeros",
            "e(n)",
        ),
        (
            "from torch import full",
            "full((n,), 0.0)",
            "from torch import empty, full",
            "empty((n,))",
        ),
        (
            "from torch import (\n    ones,\n    zeros,\n)",
            "zeros(n)",
            "from torch import (\n    empty,\n    ones,\n    zeros,\n)",
            "empty(n)",
        ),
        (
            "from torch import (\n    ones,\n    zeros\n)",
            "zeros(n)",
            "from torch import (\n    empty,\n    ones,\n    zeros\n)",
            "empty(n)",
        ),
        (
            "from torch import (\n    zeros,\n    Tensor,\n)",
            "zeros(n)",
            "from torch import (\n    zeros,\n    Tensor,\n    empty,\n)",
            "empty(n)",
        ),
        (
            "from torch import (zeros)",
            "zeros(n)",
            "from torch import (empty, zeros)",
            "empty(n)",
        ),
    ],
)
def test_atn101_by_name_imports_gain_the_counterpart(
    imports, call, fixed_imports, replacement
):
    body = f"\n\ndef f(y, n):\n    x = {call}\n    x.copy_(y)\n    return x\n"
    source = imports + body
    assert [code for _, code in findings(source)] == ["ATN101"]
    assert fixed(source) == fixed_imports + body.replace(call, replacement)


@pytest.mark.parametrize(
    ("header", "signature", "body", "expected"),
    [
        # The module imports ``empty``, but a parameter of the function takes
        # the name: ``torch.empty``.
        (
            "import torch\nfrom torch import empty, zeros\n",
            "def f(y, n, empty=None):",
            "",
            "torch.empty(n)",
        ),
        # ... or a local of the function.
        (
            "import torch\nfrom torch import empty, zeros\n",
            "def f(y, n):",
            "    empty = []\n",
            "torch.empty(n)",
        ),
        # ... or a comprehension's target anywhere in the module.
        (
            "import torch\nfrom torch import empty, zeros\n"
            "K = [empty for empty in range(2)]\n",
            "def f(y, n):",
            "",
            "torch.empty(n)",
        ),
        # ``torch`` too is taken (a local): no fix.
        (
            "import torch\nfrom torch import zeros\nempty = []\n",
            "def f(y, n):",
            "    torch = None\n",
            None,
        ),
        # ``dtype=torch.int64`` for ``full(..., 0)``, with ``torch`` a
        # parameter: no fix.
        (
            "import torch\nfrom torch import full\n",
            "def f(y, n, torch=None):",
            "",
            None,
        ),
    ],
)
def test_atn101_counterpart_name_must_be_the_modules_where_the_call_is(
    header, signature, body, expected
):
    call = "full((n,), 0)" if "full" in header else "zeros(n)"
    source = (
        f"{header}\n{signature}\n{body}    x = {call}\n    x.copy_(y)\n    return x\n"
    )
    found = check_source(source, "t.py", SETTINGS)
    assert [f.code for f in found] == ["ATN101"]
    if expected is None:
        assert found[0].fix is None
        assert fixed(source) == source
    else:
        assert fixed(source) == source.replace(f"x = {call}", f"x = {expected}")


def test_atn101_name_taken_falls_back_to_the_torch_module():
    source = dedent(
        """\
        import torch
        from torch import zeros

        empty = []

        def f(y, n):
            x = zeros(n)
            x.copy_(y)
            return x
        """
    )
    assert fixed(source) == source.replace("x = zeros(n)", "x = torch.empty(n)")


def test_atn101_name_taken_and_no_torch_module_means_no_fix():
    source = dedent(
        """\
        from torch import zeros

        def f(y, n, empty):
            x = zeros(n)
            x.copy_(y)
            return x
        """
    )
    assert findings(source) == [(4, "ATN101")]
    assert fixed(source) == source


def test_atn101_names_imported_inside_another_function_are_not_reused():
    source = dedent(
        """\
        from torch import zeros

        def other():
            import torch
            from torch import empty
            return torch, empty

        def f(y, n, empty):
            x = zeros(n)
            x.copy_(y)
            return x
        """
    )
    assert [code for _, code in findings(source)] == ["ATN101"]
    assert fixed(source) == source


def test_atn101_full_int_zero_without_torch_module_means_no_fix():
    source = "from torch import full\n\ndef f(y, n):\n    x = full((n,), 0)\n    x.copy_(y)\n"
    assert findings(source) == [(4, "ATN101")]
    assert fixed(source) == source


def test_atn101_two_allocations_share_one_import_edit():
    source = dedent(
        """\
        from torch import zeros

        def f(y, n):
            a = zeros(n)
            a.copy_(y)
            b = zeros(n)
            b.fill_(1)
            return a, b
        """
    )
    assert fixed(source) == dedent(
        """\
        from torch import empty, zeros

        def f(y, n):
            a = empty(n)
            a.copy_(y)
            b = empty(n)
            b.fill_(1)
            return a, b
        """
    )


@pytest.mark.parametrize(
    ("call", "replacement"),
    [
        ("torch.full((n,), 0.0, device=d)", "torch.empty((n,), device=d)"),
        ("torch.full((n,), 0.0,)", "torch.empty((n,),)"),
        ("torch.full((n,), (0.0), device=d)", "torch.empty((n,), device=d)"),
        ("torch.full((n,), fill_value=0.0, device=d)", "torch.empty((n,), device=d)"),
        ("torch.full(fill_value=0.0, size=(n,))", "torch.empty(size=(n,))"),
        ("torch.full(size=(n,), fill_value=0.0)", "torch.empty(size=(n,))"),
        (
            "torch.full(\n        (n,),\n        0.0,\n        device=d,\n    )",
            "torch.empty(\n        (n,),\n        device=d,\n    )",
        ),
        (
            "torch.full(\n        (n,),\n        0.0\n    )",
            "torch.empty(\n        (n,)\n    )",
        ),
        (
            "torch.full((n,), 0.0,\n               device=d)",
            "torch.empty((n,),\n               device=d)",
        ),
        (
            "torch.full(\n        (n,),  # size\n        0.0,  # zero\n        device=d,\n    )",
            "torch.empty(\n        (n,),  # size\n        device=d,\n    )",
        ),
        (
            "torch.full((n,), 0, dtype=torch.int32)",
            "torch.empty((n,), dtype=torch.int32)",
        ),
        ("torch.full((n,), fill_value=0)", "torch.empty((n,), dtype=torch.int64)"),
    ],
)
def test_atn101_fill_argument_is_removed_cleanly(call, replacement):
    source = f"import torch\n\ndef f(y, n, d):\n    x = {call}\n    x.copy_(y)\n    return x\n"
    assert [code for _, code in findings(source)] == ["ATN101"]
    assert fixed(source) == source.replace(call, replacement)


def test_atn101_reports_at_the_allocation_call():
    source = "import torch\n\ndef f(y, n):\n    x = torch.zeros(n)\n    x.copy_(y)\n"
    (finding,) = check_source(source, "t.py", SETTINGS)
    assert (finding.location.row, finding.location.column) == (4, 9)
    assert (finding.end_location.row, finding.end_location.column) == (4, 23)
    assert finding.fix is not None and finding.fix.applicability.value == "safe"
    assert finding.message == (
        "`x` is zero-filled by `torch.zeros`, then overwritten completely (line 5) "
        "before any read: the zeros are never seen"
    )


@pytest.mark.parametrize(
    "call",
    [
        "torch.zeros(n, memory_format=torch.channels_last)",
        "torch.full((n,), 0.0, memory_format=torch.contiguous_format)",
    ],
)
def test_atn101_memory_format_the_zero_fill_refuses_makes_the_fix_unsafe(call):
    # ``torch.zeros`` and ``torch.full`` raise ``TypeError`` on
    # ``memory_format``; ``torch.empty`` takes it: the fix made a call that
    # raised succeed.
    source = f"import torch\n\ndef f(y, n):\n    x = {call}\n    x.copy_(y)\n"
    (finding,) = check_source(source, "t.py", SETTINGS)
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    assert fixed(source) == source
    assert "torch.empty(" in fixed(source, unsafe=True)


@pytest.mark.parametrize(
    "call",
    [
        # ``empty_like`` refuses a sparse layout ``zeros_like`` takes
        "torch.zeros_like(y, layout=torch.sparse_coo)",
        # ``full`` refuses one ``empty`` takes
        "torch.full((n,), 0.0, layout=torch.sparse_coo)",
        "torch.zeros(n, layout=lay)",
    ],
)
def test_atn101_a_layout_that_may_be_sparse_makes_the_fix_unsafe(call):
    source = f"import torch\n\ndef f(y, n, lay):\n    x = {call}\n    x.copy_(y)\n"
    (finding,) = check_source(source, "t.py", SETTINGS)
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    strided = source.replace(call, "torch.zeros(n, layout=torch.strided)")
    assert fixed(strided) == strided.replace("zeros", "empty")


@pytest.mark.parametrize(
    "call",
    [
        "torch.zeros(n, dtype=torch.qint8)",
        "y.new_zeros(n, dtype=torch.quint8)",
        "torch.zeros_like(y, dtype=torch.qint32)",
        "torch.full((n,), 0, dtype=torch.quint4x2)",
    ],
)
def test_atn101_a_quantized_dtype_makes_the_fix_unsafe(call):
    # ``zeros`` and its family raise ``NotImplementedError`` for a quantized
    # dtype (no ``zero_`` kernel); ``empty`` takes it.
    source = f"import torch\n\ndef f(y, n):\n    x = {call}\n    x.copy_(y)\n"
    (finding,) = check_source(source, "t.py", SETTINGS)
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    plain = source.replace(call, call.split("dtype=")[0] + "dtype=torch.int8)")
    (finding,) = check_source(plain, "t.py", SETTINGS)
    assert finding.fix is not None and finding.fix.applicability.value == "safe"


def test_atn104_a_quantized_tensor_keeps_its_fill_unsafe():
    # ``zero_`` of a quantized tensor raises; the ``copy_`` after it may not.
    source = (
        "import torch\n\ndef f(y, n):\n"
        "    x = torch.empty(n, dtype=torch.qint8)\n"
        "    x.zero_()\n    x.copy_(y)\n    return x.sum()\n"
    )
    atn104 = Settings(select=("ATN104",))
    (finding,) = check_source(source, "t.py", atn104)
    assert finding.code == "ATN104"
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    plain = source.replace("torch.qint8", "torch.int8")
    (finding,) = check_source(plain, "t.py", atn104)
    assert finding.fix is not None and finding.fix.applicability.value == "safe"


@pytest.mark.parametrize(
    ("call", "safe"),
    [
        ("torch.full((n,), 0.0, dtype=torch.bits8)", False),
        ("torch.full((n,), 0.0, dtype=torch.uint4)", False),
        ("y.new_full((n,), 0.0, dtype=torch.float4_e2m1fn_x2)", False),
        ("torch.full_like(y.view(torch.bits16), 0.0)", False),
        ("torch.full_like(y, 0.0, dtype=torch.int3)", False),
        # ``zero_`` has a kernel for them: the zero-filled allocators do too
        ("torch.zeros(n, dtype=torch.bits8)", True),
        ("torch.zeros_like(y, dtype=torch.uint4)", True),
        ("torch.full((n,), 0.0, dtype=torch.float8_e4m3fn)", True),
    ],
)
def test_atn101_full_of_a_bit_dtype_makes_the_fix_unsafe(call, safe):
    # ``full`` fills with ``fill_``, which has no kernel for the bit and
    # sub-byte dtypes (``NotImplementedError``); ``empty`` takes them
    # (differential reproduction 113).
    source = f"import torch\n\ndef f(y, n):\n    x = {call}\n    x.copy_(y)\n"
    (finding,) = check_source(source, "t.py", SETTINGS)
    assert finding.fix is not None
    assert finding.fix.applicability.value == ("safe" if safe else "unsafe")


@pytest.mark.parametrize(
    ("fill", "safe"),
    [("x.fill_(0)", False), ("x.fill_(0.0)", False), ("x.zero_()", True)],
)
def test_atn104_a_bit_dtype_keeps_its_fill_unless_zero_(fill, safe):
    # ``fill_`` of a ``torch.bits8`` tensor raises; ``zero_`` does not.
    source = (
        "import torch\n\ndef f(y, n):\n"
        "    x = torch.empty(n, dtype=torch.bits8)\n"
        f"    {fill}\n    x.copy_(y)\n    return 1\n"
    )
    atn104 = Settings(select=("ATN104",))
    (finding,) = check_source(source, "t.py", atn104)
    assert finding.fix is not None
    assert finding.fix.applicability.value == ("safe" if safe else "unsafe")


def test_atn101_memory_format_of_a_like_allocator_stays_safe():
    call = "torch.zeros_like(y, memory_format=torch.channels_last)"
    source = f"import torch\n\ndef f(y):\n    x = {call}\n    x.copy_(y)\n"
    assert fixed(source) == source.replace("zeros_like", "empty_like")


def test_atn101_message_lists_every_overwrite():
    source = dedent(
        """\
        import torch

        def f(y, n, c):
            x = torch.zeros(n)
            if c:
                x.copy_(y)
            else:
                x.fill_(0)
            return x
        """
    )
    (message,) = messages(source)
    assert "(lines 6, 8)" in message


def test_atn101_fixture_fixes_to_its_snapshot():
    before = (FIXTURES / "atn101_fix.in.py").read_text()
    after = (FIXTURES / "atn101_fix.out.py").read_text()
    assert len(findings(before)) == 24
    assert all(code == "ATN101" for _, code in findings(before))
    assert fixed(before) == after
    assert findings(after) == []


def _ruff_names(text: str, path: Path) -> set[tuple[str, str]]:
    """F821/F841 findings of ruff on ``text`` (code and message, no positions)."""
    path.write_text(text)
    command = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache"]
    command += ["--select", "F821,F841", "--output-format", "json", str(path)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode in (0, 1), result.stderr
    return {(item["code"], item["message"]) for item in json.loads(result.stdout)}


@pytest.mark.parametrize(
    "name", ["atn101_fix.in.py", "atn102_backend.in.py", "atn1_negatives.py"]
)
def test_fixes_leave_no_new_undefined_or_unused_names(name, tmp_path):
    before = (FIXTURES / name).read_text()
    after = fixed(before, unsafe=True)
    assert _ruff_names(after, tmp_path / "after.py") <= _ruff_names(
        before, tmp_path / "before.py"
    )


def test_fix_keeps_crlf_line_endings():
    source = "import torch\r\n\r\ndef f(y, n):\r\n    x = torch.zeros(n)\r\n    x.copy_(y)\r\n"
    assert fixed(source) == source.replace("zeros", "empty")


# --------------------------------------------------------------------------- ATN102

STATE = """
    import torch

    class Backend:
        def init_cuda_graph_state(self, max_bs):
            {store}

        def capture(self, bs, rows):
            {use}
"""


def state(store: str, use: str = "pass") -> str:
    return dedent(STATE).format(store=store, use=use)


@pytest.mark.parametrize(
    "store",
    [
        "self.buf = torch.zeros(max_bs)",
        "self.buf: torch.Tensor = torch.zeros(max_bs)",
        "self.buf = torch.full((max_bs,), 0)",
        "self.buf = torch.zeros_like(self.other)",
        "self.buf = self.other.new_zeros(max_bs)",
        'self.buf = {"k": torch.zeros(max_bs)}',
        "self.buf = [torch.zeros(max_bs)]",
        "self.buf = (torch.zeros(max_bs),)",
        'self.buf["k"] = torch.zeros(max_bs)',
        "self.buf[0] = torch.zeros(max_bs)",
        "self.buf[key] = torch.zeros(max_bs)",
    ],
)
def test_atn102_storage_forms(store):
    assert findings(state(store)) == [(6, "ATN102")]


@pytest.mark.parametrize(
    "store",
    [
        "self.buf = torch.empty(max_bs)",
        "self.buf = torch.ones(max_bs)",
        "self.buf = torch.full((max_bs,), -1)",
        "buf = torch.zeros(max_bs)",
        "other.buf = torch.zeros(max_bs)",
        "self.buf = Info(torch.zeros(max_bs))",
        'self.buf = {"k": {"j": torch.zeros(max_bs)}}',
        "self.buf = torch.zeros(max_bs).cuda()",
        "self.buf = np.zeros(max_bs)",
    ],
)
def test_atn102_negative_storage(store):
    assert findings(state(store)) == []


@pytest.mark.parametrize(
    "binding",
    [
        "torch = fake_torch",
        "torch: object = fake_torch",
        "(torch, other) = fake_torch, 1",
        "for torch in [fake_torch]: pass",
        "with open(max_bs) as torch: pass",
        "import numpy as torch",
        "from fakes import torch",
        "def torch(): pass",
        "class torch(object): pass",
        "if (torch := fake_torch): pass",
        "del torch",
    ],
)
def test_atn102_allocator_called_through_a_local_binding(binding):
    # ``torch`` bound by the method itself is not the imported module.
    store = f"{binding}\n        self.buf = torch.zeros(max_bs)"
    assert findings(state(store)) == []


@pytest.mark.parametrize(
    "binding", ["import torch", "import torch.nn", "import torch as torch"]
)
def test_atn102_allocator_imported_by_the_method(binding):
    # A function-level import binds the name to the module: it is torch.
    store = f"{binding}\n        self.buf = torch.zeros(max_bs)"
    assert findings(state(store)) == [(7, "ATN102")]


@pytest.mark.parametrize(
    "header",
    [
        "def init_cuda_graph_state(self, max_bs, torch):",
        "def init_cuda_graph_state(self, max_bs, *, torch=None):",
        "def init_cuda_graph_state(self, max_bs, **torch):",
    ],
)
def test_atn102_allocator_called_through_a_parameter(header):
    source = state("self.buf = torch.zeros(max_bs)").replace(
        "def init_cuda_graph_state(self, max_bs):", header
    )
    assert findings(source) == []


@pytest.mark.parametrize(
    "other",
    [
        "# torch is imported at the top",
        "self.dtype = torch.int32",
        "torch .cuda.synchronize()",
        "print(torch)",
        "kwargs = dict(torch=1)",
        "self.other = torch_like = 1",
    ],
)
def test_atn102_name_used_but_not_bound(other):
    # Whatever else the method does with the name, it is the module.
    store = f"{other}\n        self.buf = torch.zeros(max_bs)"
    assert findings(state(store)) == [(7, "ATN102")]


def test_atn102_method_patterns_are_globs_not_regular_expressions():
    source = "import torch\n\nclass B:\n    def setup(self, n):\n        self.a = torch.zeros(n)\n"
    for patterns, expected in [
        (("set.p",), []),
        (("set?p",), [(5, "ATN102")]),
        (("[st]etup",), [(5, "ATN102")]),
        (("setu",), []),
        (("etup",), []),
        (("x", "setup"), [(5, "ATN102")]),
        (("setup+",), []),
    ]:
        custom = Settings(select=("ATN102",), graph_state_methods=patterns)
        assert findings(source, custom) == expected, patterns


def test_atn102_only_in_graph_state_methods():
    source = "import torch\n\nclass B:\n    def __init__(self, n):\n        self.buf = torch.zeros(n)\n"
    assert findings(source) == []
    custom = Settings(select=("ATN102",), graph_state_methods=("__init__",))
    assert findings(source, custom) == [(5, "ATN102")]


def test_atn102_glob_patterns():
    source = dedent(
        """
        import torch

        class B:
            def setup_decode_graph(self, n):
                self.a = torch.zeros(n)

            def setup_extend_graph(self, n):
                self.b = torch.zeros(n)

            def setup(self, n):
                self.c = torch.zeros(n)
        """
    )
    custom = Settings(select=("ATN102",), graph_state_methods=("setup_*_graph",))
    assert findings(source, custom) == [(6, "ATN102"), (9, "ATN102")]
    assert findings(source, Settings(select=("ATN102",), graph_state_methods=())) == []


@pytest.mark.parametrize(
    "method",
    ["init_cuda_graph_batch_info", "init_cuda_graph_moe_buffers", "graph_capture"],
)
def test_atn102_default_methods_of_sglang_and_vllm(method):
    source = f"import torch\n\nclass B:\n    def {method}(self, n):\n        self.a = torch.zeros(n)\n"
    assert findings(source, Settings(select=("ATN102",))) == [(5, "ATN102")]


def test_atn102_skips_static_methods_and_plain_functions():
    source = dedent(
        """
        import torch

        class B:
            @staticmethod
            def init_cuda_graph_state(state, n):
                state.a = torch.zeros(n)

        def init_cuda_graph_state(self, n):
            self.a = torch.zeros(n)
        """
    )
    assert findings(source) == []


def test_atn102_nested_function_in_setup_is_not_the_setup():
    source = state("def later():\n            self.buf = torch.zeros(max_bs)")
    assert findings(source) == []


@pytest.mark.parametrize(
    ("use", "expected"),
    [
        (
            'page = self.buf["k"][rows, :]',
            "is read at line 9 in `capture` before any write",
        ),
        ('return self.buf["k"].sum()', "is read at line 9 in `capture`"),
        ('self.buf["k"] += 1', "is read at line 9 in `capture`"),
        ('return self.buf["k"][:bs]', "is sliced or passed on at line 9 in `capture`"),
        ('kernel(self.buf["k"])', "is sliced or passed on at line 9 in `capture`"),
        ('self.buf["k"][:bs].copy_(rows)', "is partly written at line 9 in `capture`"),
        (
            'self.buf["k"].copy_(rows)',
            "its first use elsewhere, at line 9 in `capture`, writes it",
        ),
        ('self.buf["k"][:] = rows', "writes it"),
        (
            'm = self.buf\n        page = m["k"][rows]',
            "is read at line 10 in `capture`",
        ),
        ('return self.buf["j"][rows]', "if every replay writes it before reading it"),
        ('return self.buf["k"].shape', "if every replay writes it before reading it"),
        ("self.buf = {}", "if every replay writes it before reading it"),
    ],
)
def test_atn102_message_names_the_first_use_elsewhere(use, expected):
    source = state('self.buf = {"k": torch.zeros(max_bs)}', use)
    (message,) = messages(source)
    assert expected in message
    assert message.startswith(
        'Graph-state buffer `self.buf["k"]` is zero-filled by `torch.zeros`'
    )
    assert message.endswith(
        "confirm with the poisoning plugin (pytest --attnlint-poison) before applying"
    )


PREFIX = """
    import torch

    class Backend:
        def init_cuda_graph_state(self, max_bs, n):
            self.buf = torch.zeros(max_bs, n)

        def replay(self, bs, n, x):
            {write}

        def forward(self, bs, n, kernel, idx):
            {read}
"""


def prefix(write: str, read: str) -> str:
    return dedent(PREFIX).format(write=write, read=read)


@pytest.mark.parametrize(
    "write",
    [
        "self.buf[:bs].copy_(x)",
        "self.buf[:bs] = x",
        "self.buf[0:bs, :] = x",
        "self.buf[:, :n].copy_(x)",
        "torch.mul(x, 2, out=self.buf[:bs])",
        "torch.ops.mylib.fill(x, out=self.buf[:bs])",
        "buf = self.buf\n        buf[:bs] = x",
        "self.buf[:bs].copy_(x)\n        self.buf[:bs, 0] = 1",
        "_, self.buf[:bs] = x",
        "view = self.buf[:bs]\n        view.copy_(x)",  # through a view of the box
    ],
)
@pytest.mark.parametrize(
    "read",
    [
        "return kernel(self.buf)",
        "return self.buf.sum()",
        "return self.buf",
        "return self.buf[idx]",
        "return self.buf[: bs + 1]",
        "return Meta(buf=self.buf)",
        "buf = self.buf\n        return kernel(buf)",
    ],
)
def test_atn102_prefix_writes_and_a_read_past_them_need_the_zeros(write, read):
    assert findings(prefix(write, read)) == []


@pytest.mark.parametrize(
    ("write", "read"),
    [
        # Every read stays inside a write's bounds (as written).
        ("self.buf[:bs].copy_(x)", "return kernel(self.buf[:bs])"),
        ("self.buf[:bs].copy_(x)", "return self.buf[:bs, :n].sum()"),
        ("self.buf[:, :n] = x", "return self.buf[:bs, :n]"),
        ("self.buf[:bs] = x", "return self.buf.shape"),
        # Never read past: no read at all.
        ("self.buf[:bs] = x", "pass"),
        # A write that is not a prefix: the tail, the whole, an index.
        ("self.buf[:bs] = x\n        self.buf[bs:].zero_()", "return self.buf"),
        ("self.buf[:bs] = x\n        self.buf.fill_(1)", "return self.buf"),
        ("self.buf[:bs] = x\n        self.buf[idx] = 1", "return self.buf"),
        ("self.buf[:bs] = x\n        torch.mul(x, 2, out=self.buf)", "return self.buf"),
        # No visible write: whole reads alone are the existing first-use case.
        ("pass", "return kernel(self.buf)"),
        ("kernel(self.buf[:bs])", "return kernel(self.buf)"),
        ("view = self.buf[:bs]\n        view.copy_(x)", "return self.buf[:bs]"),
        # A local bound twice is not followed.
        (
            "buf = self.buf\n        buf = x\n        buf[:bs] = x",
            "return kernel(self.buf)",
        ),
    ],
)
def test_atn102_still_reported_unless_prefix_writes_and_a_read_past_them(write, read):
    assert findings(prefix(write, read)) == [(6, "ATN102")]


def test_atn102_prefix_writes_of_a_dict_slot_through_a_local():
    source = dedent(
        """
        import torch

        class Backend:
            def init_cuda_graph_state(self, max_bs):
                self.meta = {"lens": torch.zeros(max_bs), "other": torch.zeros(max_bs)}

            def replay(self, bs, lens):
                m = self.meta
                m["lens"][:bs].copy_(lens)
                m["other"][:bs].copy_(lens)

            def forward(self, bs):
                return self.meta["lens"].sum() + self.meta["other"][:bs].sum()
        """
    )
    # "lens" is read past its prefix; "other" only inside it.
    (message,) = messages(source)
    assert 'self.meta["other"]' in message


def test_atn102_first_use_is_in_source_order_across_methods():
    source = dedent(
        """
        import torch

        class Backend:
            def __init__(self):
                self.buf = None

            def replay(self, rows):
                self.buf.copy_(rows)

            def init_cuda_graph_state(self, n):
                self.buf = torch.zeros(n)

            def capture(self, rows):
                return self.buf[rows]
        """
    )
    (message,) = messages(source)
    assert "its first use elsewhere, at line 9 in `replay`, writes it" in message


def test_atn102_uses_in_the_setup_method_itself_are_not_named():
    source = state("self.buf = torch.zeros(max_bs)\n        print(self.buf.sum())")
    (message,) = messages(source)
    assert "if every replay writes it before reading it" in message


def test_atn102_fix_is_unsafe_and_only_applied_with_unsafe_fixes():
    before = (FIXTURES / "atn102_backend.in.py").read_text()
    after = (FIXTURES / "atn102_backend.out.py").read_text()
    results = check_source(before, "t.py", SETTINGS)
    # Not row 20: the replay writes `cu_seqlens_k` from offset 1 only, so its
    # element 0 must stay 0 on every replay.
    assert [f.location.row for f in results] == [15, 18, 23, 24, 25, 26, 28]
    assert {f.fix.applicability.value for f in results} == {"unsafe"}
    assert fixed(before) == before
    assert fixed(before, unsafe=True) == after
    assert findings(after) == []


def test_atn102_fixture_messages():
    before = (FIXTURES / "atn102_backend.in.py").read_text()
    by_row = {f.location.row: f.message for f in check_source(before, "t.py", SETTINGS)}
    assert "read at line 33 in `init_forward_metadata_capture_cuda_graph`" in by_row[15]
    assert "sliced or passed on at line 34" in by_row[18]
    assert 20 not in by_row  # written from an offset on every replay
    assert (
        "at line 35 in `init_forward_metadata_capture_cuda_graph`, writes it"
        in by_row[23]
    )
    assert "read at line 42" in by_row[25]
    assert "`self.lanes[0]`" in by_row[26]
    assert "`Tensor.new_zeros`" in by_row[28]


# --------------------------------------------------------------------------- ATN103

ATN103_NEGATIVES = {
    "written_first": "x = torch.empty(n)\nx.copy_(y)\nreturn x.sum()",
    "written_on_every_path": "x = torch.empty(n)\nif c:\n    x.zero_()\nelse:\n    x[:] = y\nreturn x + 1",
    "escapes_first": "x = torch.empty(n)\nkernel(x)\nreturn x.sum()",
    "returned": "x = torch.empty(n)\nreturn x",
    "partly_written_first": "x = torch.empty(n)\nx[:m] = y\nreturn x.sum()",
    "partial_view_copy_first": "x = torch.empty(n, m)\nx[0].copy_(y)\nreturn x.sum()",
    "rebound": "x = torch.empty(n)\nx = y + 1\nreturn x.sum()",
    "metadata_then_write": "x = torch.empty(n)\nk = x.shape[0]\nx.fill_(k)\nreturn x.sum()",
    "out_argument": "x = torch.empty(n)\ntorch.cumsum(y, 0, out=x)\nreturn x.sum()",
    "nested_read": "x = torch.empty(n)\ng = lambda: x.sum()\nx.zero_()\nreturn g",
    "numpy": "x = np.empty(n)\nx += 1\nreturn x",
    # A pinned host buffer filled through its numpy view (vLLM's MLA indexer).
    "numpy_view_written": "x = torch.empty(n)\nv = x.numpy()\nv[:] = 1\nreturn x.sum()",
    # A view passed as a kernel's output (SGLang's sparse table).
    "row_view_as_out": "x = torch.empty(n, m)\nkernel(y, out=x[c])\nreturn x.sum()",
    "zeros": "x = torch.zeros(n)\nx += 1\nreturn x",
    # The address of its elements handed to code that writes them (a C++
    # op given ``data_ptr()``, as ktransformers' CPU linear and experts do).
    "pointer_passed": "x = torch.empty(n)\nkernel(m, x.data_ptr())\nreturn x + 1",
    "pointer_in_a_call_argument": "x = torch.empty(n)\nc.submit(kernel(y.data_ptr(), x.data_ptr()))\nreturn x + 1",
    "pointer_bound_first": "x = torch.empty(n)\np = x.data_ptr()\nkernel(p)\nreturn x.sum()",
}


@pytest.mark.parametrize("body", ATN103_NEGATIVES.values(), ids=ATN103_NEGATIVES)
def test_atn103_negative(body):
    source = "import numpy as np\nimport torch\n\ndef f(y, n, m, c, kernel):\n"
    source += textwrap.indent(body, "    ") + "\n"
    assert [code for _, code in findings(source) if code == "ATN103"] == []


@pytest.mark.parametrize(
    ("body", "row"),
    [
        ("x = torch.empty(n)\nx += y", 6),
        ("x = torch.empty(n)\nreturn x.sum()", 6),
        ("x = torch.empty(n)\nreturn x.item()", 6),
        ("x = torch.empty(n)\nx.add_(y)", 6),
        ("x = torch.empty(n)\nx.index_add_(0, y, y)", 6),
        ("x = torch.empty(n)\nreturn x.clone()", 6),
        ("x = torch.empty(n)\nreturn x.to('cpu').sum()", 6),
        ("x = torch.empty(n)\nz = x[y]", 6),
        ("x = torch.empty(n)\nreturn x > 0", 6),
        ("x = torch.empty_like(y)\nreturn y + x", 6),
        ("x = y.new_empty(n)\nreturn x.tolist()", 6),
        ("x = torch.empty_strided((n,), (1,))\nreturn -x", 6),
        ("x = torch.empty(n)\nif c:\n    x.copy_(y)\nreturn x.sum()", 8),
        ("x = torch.empty(n)\nfor v in y:\n    x.copy_(v)\nreturn x.sum()", 8),
        ("x = torch.empty(n)\nprint(x.shape)\nreturn x.mean()", 7),
        ("x = torch.empty(n)\nz = x.sum() if c else 0\nreturn z", 6),
        # An address only compared tells tensors apart; it hands nothing on.
        ("x = torch.empty(n)\nassert x.data_ptr() != y.data_ptr()\nreturn x.sum()", 7),
        ("x = torch.empty(n)\nif x.data_ptr() in c:\n    pass\nreturn x.sum()", 8),
    ],
)
def test_atn103_reports_the_reading_use(body, row):
    source = "import numpy as np\nimport torch\n\ndef f(y, n, m, c, kernel):\n"
    source += textwrap.indent(body, "    ") + "\n"
    assert findings(source) == [(row, "ATN103")]


def test_atn103_points_at_the_name_and_names_the_allocation():
    source = "import torch\n\ndef f(n):\n    x = torch.empty(n)\n    return x.sum()\n"
    (finding,) = check_source(source, "t.py", SETTINGS)
    assert (finding.location.row, finding.location.column) == (5, 12)
    assert finding.fix is None
    assert "`torch.empty` at line 4" in finding.message


def test_atn103_every_first_read_is_reported():
    source = dedent(
        """\
        import torch

        def f(n, c):
            x = torch.empty(n)
            if c:
                return x.sum()
            return x.max()
        """
    )
    assert findings(source) == [(6, "ATN103"), (7, "ATN103")]


def test_atn103_by_name_import_alias():
    source = "from torch import empty as e\n\ndef f(n):\n    x = e(n)\n    x += 1\n    return x\n"
    assert findings(source) == [(5, "ATN103")]


# --------------------------------------------------------------------------- the CLI


def attnlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "lint_rules", "check", "--no-cache", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_cli_fix_without_unsafe_fixes_never_rewrites_atn102(tmp_path):
    before = (FIXTURES / "atn102_backend.in.py").read_text()
    target = tmp_path / "backend.py"
    target.write_text(before)
    result = attnlint("--fix", "backend.py", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert target.read_text() == before
    assert (
        "7 hidden fixes can be enabled with the `--unsafe-fixes` option"
        in result.stdout
    )
    result = attnlint("--fix", "--unsafe-fixes", "backend.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert target.read_text() == (FIXTURES / "atn102_backend.out.py").read_text()


def test_cli_fix_applies_atn101(tmp_path):
    target = tmp_path / "rows.py"
    target.write_text((FIXTURES / "atn101_fix.in.py").read_text())
    result = attnlint("--fix", "rows.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert target.read_text() == (FIXTURES / "atn101_fix.out.py").read_text()


def test_cli_json_reports_applicability(tmp_path):
    source = dedent(
        """\
        import torch

        class B:
            def init_cuda_graph_state(self, n):
                self.a = torch.zeros(n)

        def f(y, n):
            x = torch.zeros(n)
            x.copy_(y)
            z = torch.empty(n)
            return x, z.sum()
        """
    )
    (tmp_path / "m.py").write_text(source)
    result = attnlint("--output-format", "json", "m.py", cwd=tmp_path)
    items = json.loads(result.stdout)
    summary = [
        (
            item["code"],
            item["location"]["row"],
            (item["fix"] or {}).get("applicability"),
        )
        for item in items
    ]
    assert summary == [
        ("ATN102", 5, "unsafe"),
        ("ATN101", 8, "safe"),
        ("ATN103", 11, None),
    ]


def test_cli_noqa_suppresses(tmp_path):
    source = "import torch\n\ndef f(y, n):\n    x = torch.zeros(n)  # noqa: ATN101\n    x.copy_(y)\n"
    (tmp_path / "m.py").write_text(source)
    assert attnlint("m.py", cwd=tmp_path).returncode == 0


def test_atn102_first_use_in_a_nested_functions_decorator():
    # A decorator sits above its function's `def` line: it is still found.
    source = """
        import torch

        class Backend:
            def init_cuda_graph_state(self, max_bs):
                self.buf = torch.zeros(max_bs)

            def capture(self, register):
                @register(self.buf.sum())
                def step():
                    return 0

                self.buf.copy_(self.other)
    """
    [message] = messages(source)
    assert "it is read at line 9 in `capture` before any write" in message


# --------------------------------------------------------------------------- CUDA graph capture

_CAPTURED = {
    # ATN101: zero-filled before the capture, written only at each replay.
    "zeros_then_captured_write": """
        import torch

        def capture(g, y, n):
            x = torch.zeros(n, device="cuda")
            with torch.cuda.graph(g):
                x.copy_(y)
            return x
    """,
    # ATN104: the captured fill runs at each replay, after the write.
    "captured_fill_then_write": """
        import torch

        def capture(g, y, n):
            x = torch.empty(n, device="cuda")
            with torch.cuda.graph(g):
                x.zero_()
            x.copy_(y)
            return x.sum()
    """,
    # ATN104: the fill runs now, the captured write only at each replay.
    "fill_then_captured_write": """
        import torch

        def capture(g, y, n):
            x = torch.empty(n, device="cuda")
            x.zero_()
            with torch.cuda.graph(g):
                x.copy_(y)
            return x.sum()
    """,
}


@pytest.mark.parametrize("name", sorted(_CAPTURED))
def test_a_write_captured_apart_from_the_zeros_is_not_a_write_before_the_reads(name):
    settings = Settings(select=("ATN101", "ATN104"), hot_paths_only=False)
    assert findings(_CAPTURED[name], settings) == []


def test_zeros_and_write_captured_together_are_still_reported():
    source = """
        import torch

        def capture(g, y, n):
            with torch.cuda.graph(g):
                x = torch.zeros(n, device="cuda")
                x.copy_(y)
                b = torch.empty(n, device="cuda")
                b.zero_()
                b.copy_(y)
            return x, b.sum()
    """
    settings = Settings(select=("ATN101", "ATN104"), hot_paths_only=False)
    assert findings(source, settings) == [(6, "ATN101"), (9, "ATN104")]
    assert "torch.empty(n" in fixed(source, settings=settings).split("\n")[5]


def test_atn104_fill_is_unsafe_where_the_write_runs_in_another_autograd_mode():
    source = """
        import torch

        def plan(y, n):
            x = torch.ones(n)
            x.zero_()
            with torch.no_grad():
                x.copy_(y)
            return x.sum()
    """
    settings = Settings(select=("ATN104",), hot_paths_only=False)
    found = check_source(dedent(source), "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["unsafe"]
    assert "another autograd mode" in found[0].message
    # The same mode around both: the deletion stays safe.
    same = """
        import torch

        def plan(y, n):
            x = torch.ones(n)
            with torch.no_grad():
                x.zero_()
                x.copy_(y)
            return x.sum()
    """
    found = check_source(dedent(same), "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["safe"]


@pytest.mark.parametrize(
    "binding",
    ["torch.ones(n, out=buf)", "torch.arange(n, out=buf)", "torch.ones(n, **kw)"],
)
def test_atn104_a_factory_given_out_returns_that_tensor(binding):
    # ``torch.ones(n, out=buf)`` is ``buf``: ``buf.sum()`` reads the zeros.
    source = f"""
        import torch

        def plan(y, n, kw):
            buf = torch.full((n,), 2.0)
            x = {binding}
            x.zero_()
            s = buf.sum()
            x.copy_(y)
            return s * 1
    """
    settings = Settings(select=("ATN104",), hot_paths_only=False)
    found = check_source(dedent(source), "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["unsafe"]
    assert "may share memory" in found[0].message
    # Without ``out=`` the factory's tensor is new: the deletion is safe.
    new = dedent(source).replace(binding, "torch.ones(n)")
    found = check_source(new, "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["safe"]


@pytest.mark.parametrize(
    "share", ["x.set_(buf)", "x.set_(buf.untyped_storage(), 0, (n,), (1,))"]
)
def test_atn104_set_makes_the_tensor_share_another_ones_memory(share):
    source = f"""
        import torch

        def plan(y, n):
            buf = torch.full((n,), 2.0)
            x = torch.empty(n)
            {share}
            x.zero_()
            s = buf.sum()
            x.copy_(y)
            return s * 1
    """
    settings = Settings(select=("ATN104",), hot_paths_only=False)
    found = check_source(dedent(source), "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["unsafe"]
    assert "may share memory" in found[0].message
    # Another in-place method keeps the tensor's own memory: safe.
    own = dedent(source).replace(share, "x.mul_(2)")
    found = check_source(own, "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["safe"]


@pytest.mark.parametrize(
    "enter",
    [
        "mode = torch.inference_mode()\n    mode.__enter__()",
        "stack = contextlib.ExitStack()\n    stack.enter_context(torch.inference_mode())",
    ],
)
def test_atn104_a_manager_entered_by_hand_may_change_the_mode(enter):
    # An inference tensor: the fill raises outside inference mode, the write,
    # after the mode was entered by hand, does not.
    source = f"""
import contextlib
import torch

def plan(y, n):
    with torch.inference_mode():
        x = torch.ones(n)
    x.zero_()
    {enter}
    x.copy_(y)
    return x.sum()
"""
    settings = Settings(select=("ATN104",), hot_paths_only=False)
    found = check_source(source, "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["unsafe"]
    assert "another autograd mode" in found[0].message
    # No manager entered by hand: the same fill and write (both outside
    # inference mode) stay safe to delete.
    plain = source.replace(enter, "pass")
    found = check_source(plain, "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["safe"]


def test_atn104_an_argument_after_out_reads_the_fill():
    # ``alpha=x.sum()`` is evaluated before ``torch.add`` writes ``x``.
    source = """
        import torch

        def plan(y, n):
            x = torch.empty(n)
            x.zero_()
            torch.add(y, 1, out=x, alpha=x.sum() + 1)
            return x * 1
    """
    settings = Settings(select=("ATN104",), hot_paths_only=False)
    assert check_source(dedent(source), "t.py", settings) == []
    # An argument that does not read ``x``: the fill is still redundant.
    other = dedent(source).replace("x.sum() + 1", "y.sum()")
    found = check_source(other, "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["safe"]


HOLDER = """
import torch

class Holder:
    def __init__(self):
        self.t = torch.full((6,), 2.0)

    def {method}(self, *args):
        return self.t
"""


@pytest.mark.parametrize(
    ("method", "binding"), [("clone", "h.clone()"), ("new_empty", "h.new_empty(n)")]
)
def test_atn104_a_method_of_the_modules_class_may_return_a_kept_tensor(method, binding):
    source = HOLDER.format(method=method) + dedent(f"""
        def plan(h, y, n):
            x = {binding}
            x.zero_()
            s = h.t.sum()
            x.copy_(y)
            return s * 1
    """)
    settings = Settings(select=("ATN104",), hot_paths_only=False)
    found = check_source(source, "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["unsafe"]
    # No class of the module defines it: the tensor method's new tensor.
    other = source.replace(f"def {method}(", "def other(")
    found = check_source(other, "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["safe"]


@pytest.mark.parametrize("method", ["new_zeros", "new_empty"])
def test_atn101_a_method_of_the_modules_class_may_be_called_instead(method):
    source = HOLDER.format(method=method) + dedent("""
        def plan(h, y, n):
            x = h.new_zeros(n)
            x.copy_(y)
            return x
    """)
    settings = Settings(select=("ATN101",), hot_paths_only=False)
    found = check_source(source, "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["unsafe"]
    assert "a class of this module defines a method" in found[0].message
    other = source.replace(f"def {method}(", "def other(")
    found = check_source(other, "t.py", settings)
    assert [f.fix.applicability.value for f in found] == ["safe"]


@pytest.mark.parametrize(
    "annotation",
    [
        "def g(a: x.sum()):",
        "def g(*a: x.sum()):",
        "def g(**a: x.sum()):",
        "def g() -> x.sum():",
        "async def g(a, /, b: x.sum()):",
    ],
)
def test_atn101_a_nested_functions_annotation_reads_the_zeros(annotation):
    # A ``def``'s annotations are evaluated where it stands, before the write.
    source = dedent(f"""
        import torch

        def plan(y, n):
            x = torch.zeros(n)
            {annotation}
                pass
            x.copy_(y)
            return x, g.__annotations__
    """)
    settings = Settings(select=("ATN101",), hot_paths_only=False)
    assert check_source(source, "t.py", settings) == []
    # An annotation that does not read it leaves the finding.
    other = source.replace("x.sum()", "int")
    assert [f.code for f in check_source(other, "t.py", settings)] == ["ATN101"]


@pytest.mark.parametrize(
    ("head", "parameters"),
    [
        ("def range(*bounds):\n    return []\n", "y, n"),
        ("from itertools import repeat as range\n", "y, n"),
        ("", "y, n, range=range"),
    ],
)
def test_a_range_that_may_not_be_the_builtin_may_run_no_iteration(head, parameters):
    # ``for _ in range(1):`` runs its body once only with Python's ``range``.
    source = (
        "import torch\n" + head + f"\ndef plan({parameters}):\n"
        "    x = torch.zeros(n)\n    for _ in range(1):\n        x.copy_(y)\n"
        "    return x\n"
    )
    settings = Settings(select=("ATN101", "ATN104"), hot_paths_only=False)
    assert check_source(source, "t.py", settings) == []
    fill = source.replace("torch.zeros(n)\n", "torch.ones(n)\n    x.zero_()\n")
    fill = fill.replace("return x\n", "return x.tolist()\n")
    assert check_source(fill, "t.py", settings) == []
    # The builtin: the body runs, the write is a full one on every path.
    builtin = source.replace(head, "").replace(parameters, "y, n")
    assert [f.code for f in check_source(builtin, "t.py", settings)] == ["ATN101"]


# --------------------------------------------------------------------------- ATN101 lists

_LIST = """
import torch
import torch.distributed as dist
from torch import zeros
from torch.distributed import all_gather


def _gather(out, inp):
    dist.all_gather(out, inp)


def f(y, n, pg, ys):
{body}
"""


@pytest.mark.parametrize(
    ("body", "applicability"),
    [
        ("g = [torch.zeros_like(y) for _ in range(n)]\ndist.all_gather(g, y)", "safe"),
        ("g = [zeros(y.shape) for i in range(n)]\nall_gather(g, y)", "safe"),
        ("g = [y.new_zeros(y.shape) for _ in ys]\ndist.all_gather(g, y)", "safe"),
        (
            "g = [torch.full_like(y, 0) for _ in range(n)]\ndist.all_gather(g, y)",
            "safe",
        ),
        ("g = [torch.zeros_like(y) for _ in range(n)]\n_gather(g, y)", "safe"),
        (
            "g = [torch.zeros_like(y) for _ in range(n)]\n"
            "dist.all_gather(tensor_list=g, tensor=y)",
            "safe",
        ),
        (
            "g = [torch.zeros_like(t) for t in ys if t is not None]\n"
            "dist.all_to_all(g, ys)",
            "safe",
        ),
        (
            "g = [torch.zeros_like(y) for _ in range(n)]\ndist.all_gather(g, y, pg)",
            "unsafe",
        ),
        (
            "g = [torch.zeros_like(y) for _ in range(n)]\n"
            "m = len(g)\ndist.all_gather(g, y, group=pg)",
            "unsafe",
        ),
    ],
)
def test_atn101_a_list_of_zero_fills_a_collective_writes(body, applicability):
    source = _LIST.format(body=textwrap.indent(body + "\nreturn g", "    "))
    found = check_source(source, "t.py", Settings(select=("ATN101",)))
    assert [f.fix.applicability.value for f in found] == [applicability]
    assert found[0].message.startswith("`g` is a list of tensors zero-filled by")
    fixed_text = fix_text(source, "t.py", Settings(select=("ATN101",)), True).text
    assert "zeros" not in fixed_text.split("def f", 1)[1].replace("_zeros", "")


@pytest.mark.parametrize(
    "body",
    [
        # Written on the destination rank only.
        "g = [torch.zeros_like(y) for _ in range(n)]\ndist.gather(y, g, dst=0)",
        # Later, at ``wait()``.
        "g = [torch.zeros_like(y) for _ in range(n)]\n"
        "w = dist.all_gather(g, y, async_op=True)\nw.wait()",
        # Read, written in part, or let go first.
        "g = [torch.zeros_like(y) for _ in range(n)]\nprint(g[0].sum())\n"
        "dist.all_gather(g, y)",
        "g = [torch.zeros_like(y) for _ in range(n)]\ng[0].copy_(y)\n"
        "dist.all_gather(g, y)",
        "g = [torch.zeros_like(y) for _ in range(n)]\nys.append(g)\n"
        "dist.all_gather(g, y)",
        "g = [torch.zeros_like(y) for _ in range(n)]\nfor t in g:\n    t.fill_(1)",
        "g = [torch.zeros_like(y) for _ in range(n)]\ndist.all_gather(g[:1], y)",
        "g = [torch.zeros_like(y) for _ in range(n)]\ndist.all_gather(g, g[0])",
        # In one branch only.
        "g = [torch.zeros_like(y) for _ in range(n)]\nif n:\n    dist.all_gather(g, y)",
        # Not a list of fresh zero fills.
        "g = [y.zero_() for _ in range(n)]\ndist.all_gather(g, y)",
        "g = [torch.zeros_like(y)] * n\ndist.all_gather(g, y)",
        "g = list(torch.zeros_like(y) for _ in range(n))\ndist.all_gather(g, y)",
        "g = [torch.empty_like(y) for _ in range(n)]\ndist.all_gather(g, y)",
        # ``torch`` here is what the comprehension binds, not the module.
        "g = [torch.zeros(2) for torch in ys]\ndist.all_gather(g, y)",
    ],
)
def test_atn101_a_list_that_keeps_its_zeros(body):
    source = _LIST.format(body=textwrap.indent(body + "\nreturn g", "    "))
    assert check_source(source, "t.py", Settings(select=("ATN101",))) == []


def test_atn103_leaves_a_list_of_uninitialized_tensors_alone():
    # A list's own uses (``g + h``) do not read the tensors in it.
    source = _LIST.format(
        body="    g = [torch.empty_like(y) for _ in range(n)]\n    return g + ys"
    )
    assert check_source(source, "t.py", Settings(select=("ATN103",))) == []
