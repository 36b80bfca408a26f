"""ATN203 on vllm-ascend 0.9.1's model runners (downloaded, never committed;
the wheel is built for aarch64 only, and its Python code is read here).

``_get_forward_metadata_across_dp`` binds ``num_tokens_across_dp`` to a
list, then to a slice of a ``device="cpu"`` tensor in both arms of an
``if``/``else``, then reads ``torch.max(num_tokens_across_dp).item()``: a
host value, not a sync. The ``.item()`` of the all-reduced ``device="npu"``
flag above it is one. In the multi-step runner, ``out.sampled_token_ids_cpu
= out.sampled_token_ids.cpu()`` is the copy the sync makes, not one the
function had before it.
"""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract

VLLM_ASCEND = ("vllm-ascend", "0.9.1")
AARCH64 = ("manylinux2014_aarch64", "3.11")
RUNNER = "vllm_ascend/worker/model_runner_v1.py"
MULTI_STEP = "vllm_ascend/worker/multi_step_runner.py"
# The runners' own per-step entry points, as a maintainer would name them.
SETTINGS = Settings(
    select=("ATN203",), hot_path_methods=("forward", "execute_model", "_process_reqs")
)


def _row(text: str, needle: str) -> int:
    for row, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return row
    raise AssertionError(f"{needle!r} not found")


def test_a_host_slice_bound_in_both_arms_is_no_sync(tmp_path: Path) -> None:
    text = extract(*VLLM_ASCEND, RUNNER, tmp_path, AARCH64).read_text(encoding="utf-8")
    rows = {finding.location.row for finding in check_source(text, "r.py", SETTINGS)}
    assert _row(text, "if not with_prefill_tensor.item():") in rows
    assert _row(text, "torch.max(num_tokens_across_dp).item()") not in rows


def test_the_attribute_the_sync_stores_is_no_copy_at_hand(tmp_path: Path) -> None:
    text = extract(*VLLM_ASCEND, MULTI_STEP, tmp_path, AARCH64).read_text(
        encoding="utf-8"
    )
    row = _row(text, "output[0].sampled_token_ids_cpu = output[")
    (finding,) = [
        finding
        for finding in check_source(text, "m.py", SETTINGS)
        if finding.location.row == row
    ]
    assert "`.cpu()`" in finding.message
    assert "already has" not in finding.message
