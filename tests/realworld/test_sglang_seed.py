"""The seed optimization, all together, on SGLang 0.4.5's FlashAttention backend.

The seed removed three kinds of waste from
``sglang/srt/layers/attention/flashattention_backend.py``: the eight zero-filled
buffers of ``init_cuda_graph_state`` (ATN102), the two loop aliases of the
draft-decode branch of ``init_forward_metadata`` (ATN301), and the repeated
host sync of the draft-decode replay (ATN201). With every rule on, attnlint
finds exactly those and two more findings, listed below with their reason; and
``check --fix --unsafe-fixes`` changes exactly those statements and the two
slices that used the aliases (the file is downloaded, never committed).
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from lint_rules.checker import check_source
from lint_rules.cli import main
from lint_rules.config import Settings

EVERY_RULE = Settings()
ZERO_ROWS = (723, 729, 738, 742, 748, 754, 755, 758)
ALIAS_ROWS = (344, 345)
# The statement that uses the aliases: two slices, rows 347 and 350.
ALIAS_USE_ROWS = (347, 350)
REPEATED_SYNC_ROW = 893
# The findings beyond the seed's: two device-to-host copies of the local
# attention set-up in init_forward_metadata, every extend step with chunked
# local attention (`metadata.cu_seqlens_q.cpu().numpy()`), reported and not
# fixed. (`device = seq_lens.device` assigned again in the capture method,
# a true redundancy shown in test_sglang_sync.py, runs at start-up: it is
# reported with `hot-paths-only = false` only, see test_sglang_cost.py.)
OTHER_FINDINGS = {
    ("ATN203", 422): (
        "Host sync `.cpu()` in per-step code (init_forward_metadata)",
        "cu_seqlens_q_np = metadata.cu_seqlens_q.cpu().numpy()",
    ),
    ("ATN203", 423): (
        "Host sync `.cpu()` in per-step code (init_forward_metadata)",
        "seq_lens_np = metadata.cache_seqlens_int32.cpu().numpy()",
    ),
}
EXPECTED = sorted(
    [("ATN102", row) for row in ZERO_ROWS]
    + [("ATN301", row) for row in ALIAS_ROWS]
    + [("ATN201", REPEATED_SYNC_ROW)]
    + list(OTHER_FINDINGS),
    key=lambda item: item[1],
)


def _findings(text: str):
    return check_source(text, "flashattention_backend.py", EVERY_RULE)


def test_every_rule_finds_the_seed_and_one_justified_redundancy(
    sglang_fa_backend: Path,
):
    text = sglang_fa_backend.read_text(encoding="utf-8")
    found = _findings(text)
    assert [(f.code, f.location.row) for f in found] == EXPECTED
    lines = text.splitlines()
    by_key = {(f.code, f.location.row): f for f in found}
    # Each seed finding is fixable: the ATN102 ones only with --unsafe-fixes.
    for (code, _), finding in by_key.items():
        if code == "ATN203":
            assert finding.fix is None, finding
            continue
        assert finding.fix is not None, finding
        expected = "unsafe" if code == "ATN102" else "safe"
        assert finding.fix.applicability.value == expected, finding
    # The loop aliases of init_forward_metadata's draft-decode branch.
    assert lines[ALIAS_ROWS[0] - 1].strip() == "real_bsz_start_idx = idx"
    assert lines[ALIAS_ROWS[1] - 1].strip() == "real_bsz_end_idx = idx + 1"
    assert lines[343 - 1].strip() == (
        "for idx, single_seq_len in enumerate(seq_lens_with_decode):"
    )
    assert by_key["ATN301", 344].message == (
        "Loop alias `real_bsz_start_idx` only renames `idx`; use `idx` directly"
    )
    assert by_key["ATN301", 345].message == (
        "Loop alias `real_bsz_end_idx` only renames `idx + 1`; use `idx + 1` directly"
    )
    # The zero-filled buffers, each a `torch.zeros(` call in a dict literal.
    for row in ZERO_ROWS:
        assert '": torch.zeros(' in lines[row - 1], row
    # The repeated reduction of the draft-decode replay.
    assert lines[REPEATED_SYNC_ROW - 1].strip() == (
        "metadata.max_seq_len_k = seq_lens_cpu.max().item() + (self.step_id + 1)"
    )
    for key, (prefix, line) in OTHER_FINDINGS.items():
        assert by_key[key].message.startswith(prefix), by_key[key].message
        assert lines[key[1] - 1].strip() == line


@pytest.fixture
def project(sglang_fa_backend: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = sglang_fa_backend.parents[3]
    (root / "pyproject.toml").write_text("[tool.attnlint]\n")
    monkeypatch.chdir(root)
    return root


def _changed_rows(old: list[str], new: list[str]) -> dict[int, str | None]:
    """Original row -> its new text (None: deleted), for every row the fix touched.

    A replaced run of rows must map one to one (the fix rewrites lines in
    place or deletes them; it never merges or splits lines here).
    """
    changed: dict[int, str | None] = {}
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        assert tag != "insert", f"lines inserted at {a1 + 1}: {new[b1:b2]}"
        if tag == "delete":
            changed.update({row + 1: None for row in range(a1, a2)})
        else:
            assert a2 - a1 == b2 - b1, f"rows {a1 + 1}-{a2} rewritten unevenly"
            changed.update({a1 + k + 1: new[b1 + k] for k in range(a2 - a1)})
    return changed


def test_fix_changes_only_the_seed_statements_and_the_alias_slices(
    sglang_fa_backend: Path, project: Path, capsys
):
    before = sglang_fa_backend.read_bytes()
    code = main(
        ["check", "--fix", "--unsafe-fixes", "--no-cache", str(sglang_fa_backend)]
    )
    out, err = capsys.readouterr()
    # The two host syncs have no fix and remain.
    assert code == 1, out + err
    assert "2 remaining" in out, out
    assert err == ""
    after = sglang_fa_backend.read_bytes()
    old = before.decode("utf-8").splitlines(keepends=True)
    new = after.decode("utf-8").splitlines(keepends=True)

    changed = _changed_rows(old, new)
    expected_rows = {
        *ALIAS_ROWS,
        *ALIAS_USE_ROWS,
        *ZERO_ROWS,
        REPEATED_SYNC_ROW,
    }
    assert set(changed) == expected_rows

    # The aliases are deleted, their uses in both slices become `idx : idx + 1`.
    assert changed[344] is None and changed[345] is None
    assert changed[347] == old[347 - 1].replace(
        "real_bsz_start_idx:real_bsz_end_idx", "idx : idx + 1"
    )
    assert changed[347].strip() == "idx : idx + 1,"
    assert changed[350] == old[350 - 1].replace(
        "real_bsz_start_idx:real_bsz_end_idx", "idx : idx + 1"
    )
    assert changed[350].strip() == "idx : idx + 1, : (self.step_id + 1)"
    # Each buffer's `torch.zeros(` becomes `torch.empty(`, nothing else on the line.
    for row in ZERO_ROWS:
        assert old[row - 1].count("torch.zeros(") == 1
        assert changed[row] == old[row - 1].replace("torch.zeros(", "torch.empty(")
    # The repeated host sync goes (pass 1 reuses `max_len`, pass 2 finds the
    # statement identical to row 887's and deletes it). The redundant `device`
    # assignment of the capture method stays: start-up code is not reported.
    assert changed[REPEATED_SYNC_ROW] is None
    assert 809 not in changed
    assert len(new) == len(old) - 3

    # Every other byte is unchanged: same line endings, same text.
    assert after.count(b"\r") == before.count(b"\r") == 0
    kept = [line for row, line in enumerate(old, 1) if changed.get(row, "") is not None]
    rewritten = [
        changed[row] if row in changed else line
        for row, line in enumerate(old, 1)
        if changed.get(row, "") is not None
    ]
    assert "".join(rewritten).encode("utf-8") == after
    assert len(kept) == len(new)
    # Nothing is left to find but the two host syncs, which have no fix.
    left = _findings(after.decode("utf-8"))
    assert [f.code for f in left] == ["ATN203", "ATN203"]
