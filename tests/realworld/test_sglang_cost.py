"""Where waste costs, on SGLang 0.4.5's FlashAttention backend (downloaded, never committed).

The loop aliases of ``init_forward_metadata`` run every step and stay reported;
the repeated ``device = seq_lens.device`` of
``init_forward_metadata_capture_cuda_graph`` runs once per captured batch size
and is reported only with ``hot-paths-only = false``, marked start-up.
"""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings

ALIAS_ROWS = [344, 345]
CAPTURE_DEVICE_ROW = 809


def _findings(path: Path, **options):
    settings = Settings(select=("ATN202", "ATN301"), **options)
    return check_source(path.read_text(encoding="utf-8"), str(path), settings)


def test_per_step_loop_aliases_are_reported_and_capture_code_is_quiet(
    sglang_fa_backend: Path,
) -> None:
    found = _findings(sglang_fa_backend)
    assert [(f.code, f.location.row) for f in found] == [
        ("ATN301", row) for row in ALIAS_ROWS
    ]
    assert {f.cost for f in found} == {"per step (init_forward_metadata)"}


def test_reporting_everywhere_marks_the_capture_finding_start_up(
    sglang_fa_backend: Path,
) -> None:
    found = _findings(sglang_fa_backend, hot_paths_only=False)
    (capture,) = [f for f in found if f.code == "ATN202"]
    assert capture.location.row == CAPTURE_DEVICE_ROW
    assert "device" in capture.message
    assert capture.cost == "start-up (init_forward_metadata_capture_cuda_graph)"
