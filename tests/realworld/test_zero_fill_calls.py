"""Per-step zero fills written through calls, on real backends (downloaded,
never committed): vLLM 0.33.0's Triton MLA decode, whose outputs are written
by a Triton kernel attnlint cannot see into (found only when the project
declares it in ``full-write-calls``, with an unsafe fix), and FlashInfer
0.7.2.post1's cuDNN decode ``plan()``, whose block table is stored to
``self`` before it is copied in whole (ATN101, unsafe) or zero-filled again
before that copy (ATN104, unsafe: the table is the wrapper's)."""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract, row_of

VLLM = ("vllm", "0.33.0")
TRITON_MLA = "vllm/v1/attention/backends/mla/triton_mla.py"
FLASHINFER = ("flashinfer-python", "0.7.2.post1")
DECODE = "flashinfer/decode.py"


def test_declared_triton_decode_kernel_writes_its_outputs(tmp_path: Path):
    text = extract(*VLLM, TRITON_MLA, tmp_path).read_text(encoding="utf-8")
    plain = check_source(text, "t.py", Settings(select=("ATN101",)))
    assert plain == []  # undeclared, the kernel may leave rows unwritten
    declared = Settings(
        select=("ATN101",), full_write_calls=(("decode_attention_fwd", (3, 4)),)
    )
    found = check_source(text, "t.py", declared)
    forward = row_of(text, "def forward_mqa")
    o = row_of(text, "o = torch.zeros(", forward)
    lse = row_of(text, "lse = torch.zeros(", forward)
    assert [f.location.row for f in found] == [o, lse]
    for finding in found:
        assert finding.fix is not None
        assert finding.fix.applicability.value == "unsafe"
        assert '`"decode_attention_fwd" = [3, 4]`' in finding.message


def test_cudnn_plan_block_table_is_stored_then_copied_whole(tmp_path: Path):
    text = extract(*FLASHINFER, DECODE, tmp_path).read_text(encoding="utf-8")
    found = check_source(text, "d.py", Settings(select=("ATN101", "ATN104")))
    plan = row_of(text, "def _plan_cudnn")
    allocation = row_of(text, "table = torch.zeros(", plan)
    refill = row_of(text, "table.zero_()", plan)
    by_code = {(f.code, f.location.row): f for f in found}
    atn101 = by_code[("ATN101", allocation)]
    assert "stored to `self._cudnn_block_tables` first" in atn101.message
    assert atn101.fix.applicability.value == "unsafe"
    atn104 = by_code[("ATN104", refill)]
    assert "may share memory" in atn104.message
    assert atn104.fix.applicability.value == "unsafe"
    # Nothing else in the file: the other fills are read, or partly written.
    assert set(by_code) == {("ATN101", allocation), ("ATN104", refill)}
