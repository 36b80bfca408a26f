"""ATN203 on ibm-fms 1.13.1 (downloaded, never committed).

``truncate_after_eos`` finds the end-of-sequence tokens with
``torch.where(result == eos_token_id)``: ``torch.where`` of one argument is
``torch.nonzero(cond, as_tuple=True)``, whose output size the host must
read. Of three arguments it selects on the device, no sync.
"""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract

FMS = ("ibm-fms", "1.13.1")
GENERATION = "fms/utils/generation.py"


def _reported(text: str, settings: Settings) -> dict[int, str]:
    return {
        finding.location.row: finding.message
        for finding in check_source(text, "m.py", settings)
    }


def test_where_of_one_argument_is_a_sync(tmp_path: Path) -> None:
    settings = Settings(select=("ATN203",), hot_path_methods=("truncate_after_eos",))
    text = extract(*FMS, GENERATION, tmp_path).read_text(encoding="utf-8")
    needle = "eos_idx = torch.where(result == eos_token_id)"
    (row,) = [n for n, line in enumerate(text.splitlines(), 1) if needle in line]
    assert "torch.where()" in _reported(text, settings).get(row, "")
    selecting = text.replace(
        needle, "eos_idx = torch.where(result == eos_token_id, 1, 0)"
    )
    assert "torch.where()" not in _reported(selecting, settings).get(row, "")
