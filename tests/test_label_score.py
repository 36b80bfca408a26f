"""The label tooling: the candidate finder and the precision/recall scorer.

Runs on a synthetic mini-corpus written here (no network); the real inventories
live in ``benchmarks/labels`` and are scored with ``python -m
benchmarks.labels.score``.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from benchmarks.labels.candidates import candidates_in_source
from benchmarks.labels.score import (
    load_labels,
    match,
    run_attnlint,
    score_rule,
)

SOURCE = textwrap.dedent(
    """\
    import torch
    import triton


    def step(x, lens):
        buf = torch.zeros(4, device="cuda")
        buf.copy_(x)
        keep = torch.zeros(4, device="cuda")
        y = keep + 1
        n = lens.sum().item()
        host = torch.tensor([1, 2]).to("cuda", non_blocking=True)
        return buf, y, n, host


    @triton.jit
    def kernel(ptr):
        acc = tl.zeros([16], dtype=tl.float32)


    def annotated(mask: Optional[Mask]) -> Optional[Mask]:
        return mask
    """
)


def _label(**fields):
    base = {
        "set": "dev",
        "package": "pkg",
        "version": "0",
        "file": "pkg/mod.py",
        "end_line": fields["line"],
        "col": 0,
        "qualname": "step",
        "call": "",
        "reason": "synthetic",
    }
    base.update(fields)
    return base


ZERO_FILLS = [
    _label(
        line=6,
        col=10,
        kind="zeros",
        fill_value=None,
        zero="yes",
        phase="per_step",
        overwritten="yes",
        cover="full",
        storage="local",
        write_visible="local",
    ),
    _label(
        line=8,
        col=11,
        kind="zeros",
        fill_value=None,
        zero="yes",
        phase="per_step",
        overwritten="no",
        cover="n/a",
        storage="local",
        write_visible="local",
    ),
]
HOST_SYNCS = [
    _label(
        line=10,
        col=8,
        kind="item",
        phase="per_step",
        device_or_host="device",
        worth_reporting="yes",
    ),
    _label(
        line=11,
        col=11,
        kind="non_blocking",
        phase="per_step",
        device_or_host="h2d_blocking",
        worth_reporting="n/a",
        direction="h2d",
        source_pinned="no",
    ),
]


@pytest.fixture
def mini_corpus(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "corpus"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text(SOURCE)
    labels_dir = tmp_path / "labels"
    labels_dir.mkdir()
    for name, rows in (("zero_fills", ZERO_FILLS), ("host_syncs", HOST_SYNCS)):
        with (labels_dir / f"dev_{name}.jsonl").open("w") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
    return root, labels_dir


def _finding(code: str, row: int, column: int = 1, message: str = "m") -> dict:
    return {
        "code": code,
        "filename": "pkg/mod.py",
        "location": {"row": row, "column": column},
        "message": message,
    }


def test_finder_lists_every_candidate_of_the_synthetic_module():
    found = {(c.line, c.kind) for c in candidates_in_source(SOURCE, "pkg/mod.py")}
    assert found == {
        (6, "zeros"),
        (8, "zeros"),
        (10, "item"),
        (11, "non_blocking"),
    }


def test_finder_skips_kernel_bodies_and_annotations():
    kinds = {(c.qualname, c.kind) for c in candidates_in_source(SOURCE, "pkg/mod.py")}
    assert not any(name in ("kernel", "annotated") for name, _ in kinds)


def test_finder_sees_syncs_hidden_in_slices_sizes_and_truth_tests():
    source = textwrap.dedent(
        """\
        import torch

        def plan(indptr: torch.Tensor, lens):
            last = indptr[-1]
            out = torch.empty(last, dtype=torch.int32)
            out[:last] = 0
            if lens.max() > 4:
                pass
            return lens[lens > 0]
        """
    )
    kinds = {c.kind for c in candidates_in_source(source, "m.py")}
    assert {"tensor_as_size", "tensor_slice_bound", "truth_test"} <= kinds
    assert "bool_mask_index" in kinds


def test_a_true_positive_a_false_positive_and_a_miss_are_told_apart(mini_corpus):
    root, labels_dir = mini_corpus
    labels = load_labels("dev", labels_dir)
    findings = [_finding("ATN101", 6, 11), _finding("ATN101", 8, 12)]
    report = score_rule("ATN101", findings, labels, root)
    assert (report["tp"], report["fp"], report["fn"]) == (1, 1, 0)
    assert report["precision"] == 0.5 and report["recall"] == 1.0


def test_unlabelled_and_duplicate_findings_count_as_false_positives(mini_corpus):
    root, labels_dir = mini_corpus
    labels = load_labels("dev", labels_dir)
    findings = [
        _finding("ATN203", 10, 9),
        _finding("ATN203", 10, 9),
        _finding("ATN203", 3, 1),
    ]
    report = score_rule("ATN203", findings, labels, root)
    assert (report["tp"], report["fp"]) == (1, 2)
    assert report["worth_reading"] == 1.0
    assert any("duplicate" in item for item in report["false_positives"])
    assert any("unlabelled" in item for item in report["false_positives"])


def test_a_finding_matches_only_labels_of_its_rule_family(mini_corpus):
    root, labels_dir = mini_corpus
    labels = load_labels("dev", labels_dir)
    matched, unlabelled, _ = match([_finding("ATN205", 11, 12)], labels, None, root)
    assert len(matched) == 1 and not unlabelled
    report = score_rule("ATN205", [_finding("ATN205", 11, 12)], labels, root)
    assert (report["tp"], report["fp"], report["fn"]) == (1, 0, 0)


def test_a_rule_with_no_findings_has_recall_zero(mini_corpus):
    root, labels_dir = mini_corpus
    report = score_rule("ATN203", [], load_labels("dev", labels_dir), root)
    assert report["recall"] == 0.0 and report["fn"] == 1
    assert report["precision"] is None


def test_an_unknown_rule_runs_as_no_findings(mini_corpus):
    root, _ = mini_corpus
    assert run_attnlint(root, ["pkg/mod.py"], ["ATN999"], []) == []


def test_attnlint_findings_are_scored_end_to_end(mini_corpus):
    root, labels_dir = mini_corpus
    findings = run_attnlint(root, ["pkg/mod.py"], ["ATN101"], [])
    report = score_rule("ATN101", findings, load_labels("dev", labels_dir), root)
    assert (report["tp"], report["fp"], report["fn"]) == (1, 0, 0)
