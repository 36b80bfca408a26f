"""ATN205 on transformers 5.23.0's continuous-batching offloading manager
(downloaded, never committed).

Restoring offloaded blocks gathers the destination block ids into
``all_gpu_ids: dict[str, list[int]]`` and uploads each allocator's list with
``torch.as_tensor(all_gpu_ids[name], dtype=torch.long).to(device,
non_blocking=True)``: ``as_tensor`` copies a Python list into new pageable
memory, so the copy the comment calls stream-ordered ("the host never
waits") is staged through the host. The pinned staging copies beside it
(``cpu_view`` slices) are not reported.
"""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract

TRANSFORMERS = ("transformers", "5.23.0")
OFFLOADING = "transformers/generation/continuous_batching/offloading_manager.py"
SETTINGS = Settings(select=("ATN205",))


def test_as_tensor_of_a_declared_list_is_pageable(tmp_path: Path) -> None:
    text = extract(*TRANSFORMERS, OFFLOADING, tmp_path).read_text(encoding="utf-8")
    uploads = [
        row
        for row, line in enumerate(text.splitlines(), 1)
        if "torch.as_tensor(all_gpu_ids[name]" in line
    ]
    assert len(uploads) == 2
    findings = check_source(text, "o.py", SETTINGS)
    assert sorted(finding.location.row for finding in findings) == uploads
    assert all("`torch.as_tensor`" in finding.message for finding in findings)
