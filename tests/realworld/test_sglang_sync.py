"""ATN201/ATN202 on SGLang 0.4.5's FlashAttention backend (downloaded, never committed).

The draft-decode branch of ``init_forward_metadata_replay_cuda_graph`` computes
``seq_lens_cpu.max().item()`` into ``max_len``, then computes it again a few
lines later to set ``metadata.max_seq_len_k`` a second time, to the same value.
"""

from __future__ import annotations

import ast
import difflib
from pathlib import Path

import pytest

from lint_rules.checker import check_source
from lint_rules.cli import main
from lint_rules.config import Settings
from tests.realworld.wheels import SGLANG_045, extract

# Everywhere: the ATN202 of the capture method runs at start-up.
SETTINGS = Settings(select=("ATN201", "ATN202"), hot_paths_only=False)
REPEATED_ROW = 893
REPEATED_STATEMENT = (
    "metadata.max_seq_len_k = seq_lens_cpu.max().item() + (self.step_id + 1)"
)
FIRST_ROW = 886
# The one other ATN202 in the file, in init_forward_metadata_capture_cuda_graph.
DEVICE_FIRST_ROW, DEVICE_REPEAT_ROW = 779, 809


def _method(tree: ast.Module, name: str) -> ast.FunctionDef:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "FlashAttentionBackend":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == name:
                    return item
    raise AssertionError(f"FlashAttentionBackend.{name} not found")


def _decode_branches(function: ast.FunctionDef) -> ast.If:
    """``if spec_info is not None:`` (draft decode) ``else:`` (normal decode),
    inside ``if forward_mode.is_decode():``."""
    decode = next(
        stmt
        for stmt in function.body
        if isinstance(stmt, ast.If) and "is_decode" in ast.unparse(stmt.test)
    )
    return next(
        stmt
        for stmt in decode.body
        if isinstance(stmt, ast.If)
        and ast.unparse(stmt.test) == "spec_info is not None"
    )


def _rows(nodes: list[ast.stmt]) -> tuple[int, int]:
    return nodes[0].lineno, nodes[-1].end_lineno or nodes[-1].lineno


def test_exactly_one_atn201_at_the_draft_decode_repeat(sglang_fa_backend: Path):
    text = sglang_fa_backend.read_text(encoding="utf-8")
    found = [f for f in check_source(text, "fa.py", SETTINGS) if f.code == "ATN201"]
    assert [(f.location.row, f.location.column) for f in found] == [(REPEATED_ROW, 42)]
    (finding,) = found
    lines = text.splitlines()
    assert lines[REPEATED_ROW - 1].strip() == REPEATED_STATEMENT
    assert lines[REPEATED_ROW - 1][41:].startswith("seq_lens_cpu.max().item()")
    assert lines[FIRST_ROW - 1].strip() == "max_len = seq_lens_cpu.max().item()"
    assert f"line {FIRST_ROW}" in finding.message
    # It sits in the draft-decode branch of the replay method.
    replay = _method(ast.parse(text), "init_forward_metadata_replay_cuda_graph")
    draft_first, draft_last = _rows(_decode_branches(replay).body)
    assert draft_first <= FIRST_ROW < REPEATED_ROW <= draft_last
    # Safe: the repeat becomes the name bound to the first value.
    assert finding.fix is not None and finding.fix.applicability.value == "safe"
    (edit,) = finding.fix.edits
    assert edit.content == "max_len"
    assert text[edit.start : edit.end] == "seq_lens_cpu.max().item()"


def test_fix_deletes_the_repeated_statement_and_changes_nothing_else_there(
    sglang_fa_backend: Path, monkeypatch: pytest.MonkeyPatch, capsys
):
    root = sglang_fa_backend.parents[3]
    (root / "pyproject.toml").write_text("[tool.attnlint]\nhot-paths-only = false\n")
    monkeypatch.chdir(root)
    before = sglang_fa_backend.read_text(encoding="utf-8")
    code = main(
        [
            "check",
            "--fix",
            "--no-cache",
            "--select",
            "ATN201,ATN202",
            str(sglang_fa_backend),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    after = sglang_fa_backend.read_text(encoding="utf-8")

    # Pass 1 reuses `max_len`, pass 2 finds the statement identical to the one
    # at row 887 and deletes it: one host sync fewer in every draft-decode replay.
    assert after.count(".item()") == before.count(".item()") - 1
    old_replay = _method(ast.parse(before), "init_forward_metadata_replay_cuda_graph")
    new_replay = _method(ast.parse(after), "init_forward_metadata_replay_cuda_graph")
    old_draft = _decode_branches(old_replay)
    new_draft = _decode_branches(new_replay)
    old_body = [ast.dump(stmt) for stmt in old_draft.body]
    deleted = [ast.unparse(stmt) for stmt in old_draft.body].index(REPEATED_STATEMENT)
    assert old_draft.body[deleted].lineno == REPEATED_ROW
    assert [ast.dump(stmt) for stmt in new_draft.body] == (
        old_body[:deleted] + old_body[deleted + 1 :]
    )
    # The normal-decode branch, and the rest of the method, are unchanged.
    assert [ast.dump(s) for s in new_draft.orelse] == [
        ast.dump(s) for s in old_draft.orelse
    ]
    old_lines = before.splitlines(keepends=True)
    new_lines = after.splitlines(keepends=True)
    replay_start, replay_end = old_replay.lineno, old_replay.end_lineno
    assert new_lines[new_replay.lineno - 1 : new_replay.end_lineno] == (
        old_lines[replay_start - 1 : REPEATED_ROW - 1]
        + old_lines[REPEATED_ROW:replay_end]
    )
    # In the whole file exactly two lines went: this statement and the
    # redundant `device = seq_lens.device` (see the next test); none was added.
    removed = [
        line
        for line in difflib.ndiff(old_lines, new_lines)
        if line.startswith(("- ", "+ "))
    ]
    assert [(line[0], line[2:].strip()) for line in removed] == [
        ("-", "device = seq_lens.device"),
        ("-", REPEATED_STATEMENT),
    ]
    # Nothing is left to report.
    assert check_source(after, "fa.py", SETTINGS) == []


def test_the_other_atn202_is_a_true_redundancy(sglang_fa_backend: Path):
    """``device = seq_lens.device`` is assigned at the top of
    ``init_forward_metadata_capture_cuda_graph`` and again, unchanged, in its
    normal-decode branch. Between the two, nothing rebinds ``device`` or
    ``seq_lens`` or changes ``seq_lens`` in place (only ``forward_mode.is_decode()``,
    ``seq_lens.to(torch.int32)`` and ``len(seq_lens)`` run), and a tensor's
    ``.device`` cannot change otherwise. The later assignment is dead weight;
    ``device`` keeps the value its uses at rows 821 and 843 need."""
    text = sglang_fa_backend.read_text(encoding="utf-8")
    found = [f for f in check_source(text, "fa.py", SETTINGS) if f.code == "ATN202"]
    assert [f.location.row for f in found] == [DEVICE_REPEAT_ROW]
    assert f"line {DEVICE_FIRST_ROW}" in found[0].message

    capture = _method(ast.parse(text), "init_forward_metadata_capture_cuda_graph")
    # The first assignment is a top-level statement of the method: it
    # dominates everything after it.
    first = next(s for s in capture.body if s.lineno == DEVICE_FIRST_ROW)
    assert ast.unparse(first) == "device = seq_lens.device"
    normal_decode = _decode_branches(capture).orelse
    index = next(
        i for i, s in enumerate(normal_decode) if s.lineno == DEVICE_REPEAT_ROW
    )
    assert ast.unparse(normal_decode[index]) == "device = seq_lens.device"
    # Everything that runs between them on the way to the repeat.
    path_between = [ast.unparse(s) for s in normal_decode[:index]]
    assert path_between == [
        "metadata.cache_seqlens_int32 = seq_lens.to(torch.int32)",
        "batch_size = len(seq_lens)",
    ]
    rebinding = {
        node.id
        for stmt in capture.body
        for node in ast.walk(stmt)
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))
    }
    assert "seq_lens" not in rebinding


def test_a_device_tensor_clamped_by_a_scalar_tensor_stays_on_the_device(
    tmp_path: Path,
) -> None:
    """SGLang 0.4.5's FlashInfer sliding-window update binds, in a loop,
    ``paged_kernel_lens_tmp = torch.minimum(seq_lens, torch.tensor(w + 1))``
    in one arm and ``seq_lens`` in the other. Only the first reaches the
    ``.sum().item()`` of its arm; ``torch.tensor(w + 1)`` is a 0-d CPU
    tensor, which PyTorch moves to the device of ``seq_lens``: the sum is on
    the device, and its ``.item()`` a sync."""
    path = extract(
        *SGLANG_045, "sglang/srt/layers/attention/flashinfer_backend.py", tmp_path
    )
    text = path.read_text(encoding="utf-8")
    settings = Settings(select=("ATN203",))
    reported = {
        finding.location.row for finding in check_source(text, "m.py", settings)
    }
    rows = [
        row
        for row, line in enumerate(text.splitlines(), 1)
        if "paged_kernel_lens_sum_tmp = paged_kernel_lens_tmp.sum().item()" in line
    ]
    assert len(rows) == 1
    assert rows[0] in reported


def test_an_upload_of_no_element_is_no_pageable_copy(tmp_path: Path) -> None:
    """SGLang 0.4.5's ``prepare_encoder_info_extend`` sets an empty
    ``out_cache_loc`` with ``torch.zeros(0, dtype=torch.int64).to(device,
    non_blocking=True)``: nothing is copied, nothing waits. The uploads of
    the batch's lists beside it (``torch.tensor(seq_lens, ...).to(...,
    non_blocking=True)``) are pageable, and still reported."""
    path = extract(*SGLANG_045, "sglang/srt/managers/schedule_batch.py", tmp_path)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    empty = [row for row, line in enumerate(lines, 1) if "torch.zeros(0, dtype" in line]
    uploads = [
        row
        for row, line in enumerate(lines, 1)
        if "torch.tensor(seq_lens, dtype=torch.int64).to(" in line
    ]
    assert len(empty) == 2
    assert uploads
    settings = Settings(select=("ATN205",))
    reported = {
        finding.location.row for finding in check_source(text, "m.py", settings)
    }
    assert not reported & set(empty)
    assert set(uploads) <= reported
