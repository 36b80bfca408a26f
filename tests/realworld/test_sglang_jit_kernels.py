"""ATN203 on SGLang 0.5.23's replay-SSM Triton kernels (downloaded, never
committed).

Their names match the default per-step pattern ``*replay*``
(``fused_recurrent_linear_replayssm_decode_kernel``,
``gdn_replayssm_exact_fold_kernel``), so their bodies were read as host
code: ``n_commit = tl.load(...).to(tl.int32)`` took ``.to`` for a tensor
method, ``if n_commit <= 0:`` for a tensor's truth and ``for t in range(0,
n_commit):`` for a ``range`` bound read off the device. A ``@triton.jit``
body runs on the GPU: nothing in it is a host sync.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract

SGLANG = ("sglang", "0.5.23")
PLATFORM = ("manylinux_2_34_x86_64", "3.11")
KERNELS = (
    "sglang/kernels/ops/attention/linear/fused_recurrent_linear_replayssm.py",
    "sglang/kernels/ops/attention/linear/gdn_replayssm_spec_fold.py",
)


def _jit_rows(text: str) -> set[int]:
    rows: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and any(
            ast.unparse(d).startswith(("triton.jit", "triton.autotune"))
            for d in node.decorator_list
        ):
            rows.update(range(node.lineno, node.end_lineno + 1))
    return rows


@pytest.mark.parametrize("member", KERNELS)
def test_a_triton_kernel_named_like_a_replay_is_not_host_code(
    member: str, tmp_path: Path
) -> None:
    text = extract(*SGLANG, member, tmp_path, PLATFORM).read_text(encoding="utf-8")
    kernel_rows = _jit_rows(text)
    assert kernel_rows
    # Read as host code (no compiler named), the kernels' tests and loops
    # are reported: the file exercises the mechanism.
    bare = check_source(text, "m.py", Settings(select=("ATN203",), jit_decorators=()))
    assert {f.location.row for f in bare} & kernel_rows
    found = check_source(text, "m.py", Settings(select=("ATN203",)))
    assert not {f.location.row for f in found} & kernel_rows
