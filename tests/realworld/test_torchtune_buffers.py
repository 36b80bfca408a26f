"""ATN203 on torchtune 0.6.1 (downloaded, never committed).

torchtune's ``KVCache`` registers its caches and its position tensor as
buffers in ``__init__`` (``self.register_buffer("cache_pos",
torch.arange(...), persistent=False)``), and its ``update``, run by every
attention layer on every decode step, checks ``assert (self.cache_pos[0] +
seq_len) <= self.k_cache.shape[2]``: the truth of a device tensor, read on
the host. A buffer lives where the module is moved (``model.to(device)``,
or a ``with torch.device(d):`` around its construction), not where its
factory made it; ``reset``'s ``self.cache_pos -= self.size`` keeps it the
same tensor. ``update`` is called from another module's ``forward``
(``self.kv_cache.update(k, v)``), so it is named a per-step method here.
"""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract

TORCHTUNE = ("torchtune", "0.6.1")
KV_CACHE = "torchtune/modules/kv_cache.py"
ASSERT = "assert (self.cache_pos[0] + seq_len) <= self.k_cache.shape[2]"
SETTINGS = Settings(select=("ATN203",), hot_path_methods=("forward*", "update"))


def _rows(text: str, needle: str) -> list[int]:
    rows = [row for row, line in enumerate(text.splitlines(), 1) if needle in line]
    assert rows, f"{needle!r} not found"
    return rows


def _truth_rows(text: str) -> set[int]:
    return {
        finding.location.row
        for finding in check_source(text, "m.py", SETTINGS)
        if "truth value" in finding.message and "(update)" in finding.message
    }


def test_a_buffer_truth_test_in_the_kv_cache_update_is_a_sync(tmp_path: Path) -> None:
    text = extract(*TORCHTUNE, KV_CACHE, tmp_path).read_text(encoding="utf-8")
    (row,) = _rows(text, ASSERT)
    assert _truth_rows(text) == {row}
    # Stored a host tensor after construction, the buffer is no longer
    # known to be on the device.
    (reset,) = _rows(text, "        self.cache_pos -= self.size")
    lines = text.splitlines(keepends=True)
    lines[reset - 1] = lines[reset - 1].replace(
        "self.cache_pos -= self.size", "self.cache_pos = torch.arange(0, 8)"
    )
    assert _truth_rows("".join(lines)) == set()
