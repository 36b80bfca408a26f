"""Lists of zero fills that a collective writes, on real packages (downloaded,
never committed): SGLang 0.5.23's ``LlamaForCausalLM.get_weights_by_name``
gathers the tensor-parallel shards of a weight into
``[torch.zeros_like(weight) for _ in range(tp_size)]`` with
``torch.distributed.all_gather`` in the default group (ATN101, safe), and
vLLM 0.33.0's GLM-4.1V ``all_gather_interleave`` does the same in the
tensor-parallel group (ATN101, unsafe: a rank outside the group would keep
the zeros)."""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from lint_rules.fixer import fix_text
from tests.realworld.wheels import extract, row_of

SGLANG = ("sglang", "0.5.23")
LLAMA = "sglang/srt/models/llama.py"
VLLM = ("vllm", "0.33.0")
GLM4V = "vllm/model_executor/models/glm4_1v.py"
SETTINGS = Settings(select=("ATN101",))


def test_sglang_weights_gathered_in_the_default_group(tmp_path: Path):
    text = extract(*SGLANG, LLAMA, tmp_path).read_text(encoding="utf-8")
    found = check_source(text, "llama.py", SETTINGS)
    method = row_of(text, "def get_weights_by_name")
    comprehension = (
        "gathered_weights = [torch.zeros_like(weight) for _ in range(tp_size)]"
    )
    row = row_of(text, comprehension, method)
    gather = row_of(text, "torch.distributed.all_gather(gathered_weights, weight)", row)
    assert [f.location.row for f in found] == [row]
    (finding,) = found
    assert finding.fix.applicability.value == "safe"
    assert finding.message.startswith("`gathered_weights` is a list of tensors")
    assert f"(line {gather})" in finding.message
    fixed = fix_text(text, "llama.py", SETTINGS, False).text
    assert fixed == text.replace(
        comprehension,
        "gathered_weights = [torch.empty_like(weight) for _ in range(tp_size)]",
    )


def test_vllm_interleaved_gather_in_the_tensor_parallel_group(tmp_path: Path):
    text = extract(*VLLM, GLM4V, tmp_path).read_text(encoding="utf-8")
    found = check_source(text, "glm4_1v.py", SETTINGS)
    function = row_of(text, "def all_gather_interleave")
    row = row_of(text, "gathered_tensors = [torch.zeros_like(local_tensor)", function)
    assert [f.location.row for f in found] == [row]
    (finding,) = found
    assert finding.fix.applicability.value == "unsafe"
    assert "written by a collective only on the ranks of its group" in finding.message
    # Only with --unsafe-fixes.
    assert fix_text(text, "glm4_1v.py", SETTINGS, False).text == text
    fixed = fix_text(text, "glm4_1v.py", SETTINGS, True).text
    assert "[torch.empty_like(local_tensor) for _ in range(tp_size)]" in fixed
