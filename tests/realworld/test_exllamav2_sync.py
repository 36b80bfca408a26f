"""ATN203 on exllamav2 0.3.2's dynamic generator (downloaded, never
committed), with its per-step entry points named as a maintainer would.

``defrag_cache`` (called from ``iterate_gen`` every step) walks a rotation
of cache pages: each pass of its outer loop binds ``rotation = [target]``,
tests ``while source != rotation[0]:`` and only then rebinds ``rotation``
to a device tensor (``torch.tensor(rotation).to(cache.device)``). The
device tensor never reaches the test: the list bound at the top of the pass
comes first, every pass. ``iterate_gen`` compares ``sampled_token.item()``
with a draft token inside its loop over the batch's tokens: the sampled
token comes from the job's sampling on the CPU (``batch_logits`` is a host
buffer the logits are copied into), and the one binding of the pass is now
the only one that reaches it.
"""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract

EXLLAMAV2 = ("exllamav2", "0.3.2")
DYNAMIC = "exllamav2/generator/dynamic.py"
SETTINGS = Settings(
    select=("ATN203",),
    hot_path_methods=(
        "forward",
        "forward_*",
        "iterate",
        "iterate_*",
        "receive_logits",
        "receive_sample",
        "prefill",
    ),
)


def _rows(text: str, needle: str) -> list[int]:
    rows = [row for row, line in enumerate(text.splitlines(), 1) if needle in line]
    assert rows, f"{needle!r} not found"
    return rows


def test_a_list_bound_at_the_top_of_each_pass_is_no_device_tensor(
    tmp_path: Path,
) -> None:
    text = extract(*EXLLAMAV2, DYNAMIC, tmp_path).read_text(encoding="utf-8")
    findings = check_source(text, "m.py", SETTINGS)
    reported = {finding.location.row for finding in findings}
    (test,) = _rows(text, "while source != rotation[0]:")
    assert test not in reported
    # The same pass does make the device tensor (so the test is not empty).
    assert _rows(text, "rotation = rotation.to(cache.device)")
    # The draft comparison: the draft token (a parameter of the public
    # `iterate_gen`, not known) is still reported, the sampled token not.
    (compare,) = _rows(text, "if draft_tokens[j, i].item() != sampled_token.item():")
    line = text.splitlines()[compare - 1]
    columns = {
        finding.location.column
        for finding in findings
        if finding.location.row == compare
    }
    assert columns == {line.index("draft_tokens[j, i].item()") + 1}
    # Per-step syncs of the same function are still found.
    assert set(_rows(text, "new_text = id_to_piece[next_token.item()]")) <= reported
