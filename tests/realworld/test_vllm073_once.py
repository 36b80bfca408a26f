"""ATN203 on vLLM 0.7.3 and kvpress 0.5.5 (downloaded, never committed).

vLLM 0.7.3's ``Attention.forward`` calls ``calc_kv_scales`` under ``if
self.calculate_kv_scales:``, and ``calc_kv_scales`` reads the scales back
with ``.item()`` and then sets ``self.calculate_kv_scales = False``: its
comment says "We only calculate the scales once". Nothing else in the
module sets the flag again, so the method runs once per layer, not per
step: its two ``.item()`` are no per-step syncs. Without the clearing
store they would be.

kvpress 0.5.5's CriticalKV press takes ``max(head_budgets)`` of a device
tensor of per-head budgets in ``compress`` (run for every layer of every
prefill): the builtin ``max`` compares the tensor's elements one by one,
reading each comparison's truth on the host.
"""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract

VLLM = ("vllm", "0.7.3")
LAYER = "vllm/attention/layer.py"
KVPRESS = ("kvpress", "0.5.5")
CRITICALKV = "kvpress/presses/criticalkv_press.py"


def _rows(text: str, needle: str) -> list[int]:
    rows = [row for row, line in enumerate(text.splitlines(), 1) if needle in line]
    assert rows, f"{needle!r} not found"
    return rows


def _reported(text: str, settings: Settings) -> set[int]:
    return {finding.location.row for finding in check_source(text, "m.py", settings)}


def test_a_method_that_clears_the_flag_guarding_its_call_runs_once(
    tmp_path: Path,
) -> None:
    settings = Settings(select=("ATN203",))
    text = extract(*VLLM, LAYER, tmp_path).read_text(encoding="utf-8")
    reads = [
        *_rows(text, "self._k_scale_float = self._k_scale.item()"),
        *_rows(text, "self._v_scale_float = self._v_scale.item()"),
    ]
    assert len(reads) == 2
    assert not _reported(text, settings) & set(reads)
    # The clearing store is what makes it run once.
    (clear,) = _rows(text, "        self.calculate_kv_scales = False")
    lines = text.splitlines(keepends=True)
    lines[clear - 1] = lines[clear - 1].replace(
        "self.calculate_kv_scales = False", "pass"
    )
    assert set(reads) <= _reported("".join(lines), settings)


def test_the_builtin_max_of_a_device_tensor_reads_its_elements(tmp_path: Path) -> None:
    settings = Settings(select=("ATN203",), hot_path_methods=("forward*", "compress"))
    text = extract(*KVPRESS, CRITICALKV, tmp_path).read_text(encoding="utf-8")
    reported = _reported(text, settings)
    (device,) = _rows(text, "torch.topk(scores, max(head_budgets), sorted=True")
    assert device in reported
    # The same over the list `.tolist()` made: no sync.
    (host,) = _rows(text, "max(head_selection_budget_1st)")
    finding_rows = [
        f for f in check_source(text, "m.py", settings) if f.location.row == host
    ]
    assert all("max()" not in f.message for f in finding_rows)
