"""ATN101-ATN103 on SGLang 0.4.5's FlashAttention backend (downloaded, never committed).

``init_cuda_graph_state`` allocates two dicts of CUDA-graph buffers, eight of
them with ``torch.zeros``. ATN102 flags exactly those eight; the unsafe fix
turns them into ``torch.empty`` and touches nothing else. Several are read at
capture time by a gather (``self.decode_cuda_graph_metadata["page_table"]
[req_pool_indices, :]``) before any write, and the messages say so: that is
what the poisoning plugin has to confirm before the fix is applied.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lint_rules.checker import check_source
from lint_rules.cli import main
from lint_rules.config import Settings

SETTINGS = Settings(select=("ATN1",))
ZERO_ROWS = [723, 729, 738, 742, 748, 754, 755, 758]
CAPTURE = "init_forward_metadata_capture_cuda_graph"
# (dict attribute, key) of each buffer, by row.
BUFFERS = {
    723: ("decode_cuda_graph_metadata", "page_table"),
    729: ("decode_cuda_graph_metadata", "page_table_draft_decode"),
    738: ("decode_cuda_graph_metadata", "cache_seqlens"),
    742: ("decode_cuda_graph_metadata", "cu_seqlens_k"),
    748: ("target_verify_metadata", "page_table"),
    754: ("target_verify_metadata", "cache_seqlens"),
    755: ("target_verify_metadata", "cu_seqlens_q"),
    758: ("target_verify_metadata", "cu_seqlens_k"),
}
# Capture-time gathers that read a buffer before anything writes it.
GATHER_ROWS = {723: 816, 729: 801, 748: 856, 755: 837}


def _method(tree: ast.Module, name: str) -> ast.FunctionDef:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "FlashAttentionBackend":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == name:
                    return item
    raise AssertionError(f"FlashAttentionBackend.{name} not found")


def _gathers(method: ast.FunctionDef) -> dict[tuple[str, str], int]:
    """First row of ``self.<dict>["<key>"][<index with a tensor>]`` per buffer."""
    found: dict[tuple[str, str], int] = {}
    for node in ast.walk(method):
        if not (
            isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript)
        ):
            continue
        inner = node.value
        if not (
            isinstance(inner.value, ast.Attribute)
            and isinstance(inner.slice, ast.Constant)
        ):
            continue
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if all(isinstance(part, ast.Slice) for part in parts):
            continue  # a view, not a gather
        key = (inner.value.attr, inner.slice.value)
        found[key] = min(found.get(key, node.lineno), node.lineno)
    return found


def test_atn102_flags_the_eight_zero_filled_buffers_and_nothing_else(
    sglang_fa_backend: Path,
):
    text = sglang_fa_backend.read_text(encoding="utf-8")
    found = check_source(text, "fa.py", SETTINGS)
    assert [(f.code, f.location.row) for f in found] == [
        ("ATN102", row) for row in ZERO_ROWS
    ]
    lines = text.splitlines()
    tree = ast.parse(text)
    setup = _method(tree, "init_cuda_graph_state")
    for finding in found:
        line = lines[finding.location.row - 1]
        # The finding spans the allocation call, which sits in the setup method.
        assert line[finding.location.column - 1 :].startswith("torch.zeros(")
        assert setup.lineno <= finding.location.row <= setup.end_lineno
        attribute, key = BUFFERS[finding.location.row]
        assert line.strip().startswith(f'"{key}": torch.zeros(')
        assert f'`self.{attribute}["{key}"]`' in finding.message
        assert "in `init_cuda_graph_state`" in finding.message
        assert finding.message.endswith(
            "confirm with the poisoning plugin (pytest --attnlint-poison) before applying"
        )
        assert finding.fix is not None
        assert finding.fix.applicability.value == "unsafe"
    # Every torch.zeros in the file is one of them.
    zero_rows = sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "torch.zeros"
    )
    assert zero_rows == ZERO_ROWS


def test_messages_name_the_capture_time_gathers_as_reads(sglang_fa_backend: Path):
    text = sglang_fa_backend.read_text(encoding="utf-8")
    by_row = {f.location.row: f.message for f in check_source(text, "fa.py", SETTINGS)}
    gathers = _gathers(_method(ast.parse(text), CAPTURE))
    for row, gather_row in GATHER_ROWS.items():
        assert gathers[BUFFERS[row]] == gather_row
        assert (
            f"it is read at line {gather_row} in `{CAPTURE}` before any write"
            in by_row[row]
        ), by_row[row]
    lines = text.splitlines()
    assert 'self.decode_cuda_graph_metadata["page_table"][' in lines[816 - 1]
    assert lines[817 - 1].strip() == "req_pool_indices, :"
    assert 'self.target_verify_metadata["cu_seqlens_q"][' in lines[837 - 1]
    assert lines[838 - 1].strip() == "torch.arange("
    # The capture slices the sequence-length buffers into views first.
    for row in (738, 754, 758):
        assert "is sliced or passed on at line" in by_row[row]
        assert f"in `{CAPTURE}` before any write" in by_row[row]
    # The decode cu_seqlens_k is not used through the dict anywhere else.
    assert "if every replay writes it before reading it" in by_row[742]


def _check(*args: str, capsys) -> tuple[int, str]:
    code = main(["check", "--no-cache", *args])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.fixture
def project(sglang_fa_backend: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = sglang_fa_backend.parents[3]
    (root / "pyproject.toml").write_text("[tool.attnlint]\n")
    monkeypatch.chdir(root)
    return root


def test_unsafe_fix_turns_exactly_those_eight_into_empty(
    sglang_fa_backend: Path, project: Path, capsys
):
    before = sglang_fa_backend.read_text(encoding="utf-8")
    code, output = _check(
        "--fix",
        "--unsafe-fixes",
        "--select",
        "ATN1",
        str(sglang_fa_backend),
        capsys=capsys,
    )
    assert code == 0, output
    after = sglang_fa_backend.read_text(encoding="utf-8")
    old_lines = before.splitlines(keepends=True)
    new_lines = after.splitlines(keepends=True)
    assert len(new_lines) == len(old_lines)
    changed = [
        row
        for row, (old, new) in enumerate(zip(old_lines, new_lines, strict=True), 1)
        if old != new
    ]
    assert changed == ZERO_ROWS
    for row in ZERO_ROWS:
        old, new = old_lines[row - 1], new_lines[row - 1]
        assert old.count("torch.zeros(") == 1
        assert new == old.replace("torch.zeros(", "torch.empty(")
    assert check_source(after, "fa.py", SETTINGS) == []
    ast.parse(after)


def test_fix_without_unsafe_fixes_never_rewrites_an_atn102_site(
    sglang_fa_backend: Path, project: Path, capsys
):
    before = sglang_fa_backend.read_text(encoding="utf-8")
    # Every rule, as a user would run it: other rules' safe fixes may apply.
    code, output = _check("--fix", str(sglang_fa_backend), capsys=capsys)
    after = sglang_fa_backend.read_text(encoding="utf-8")
    assert code == 1, output  # the ATN102 findings remain
    assert "ATN102" in output
    remaining = [
        f.location.row
        for f in check_source(after, "fa.py", Settings(select=("ATN102",)))
    ]
    assert len(remaining) == len(ZERO_ROWS)
    assert after.count("torch.zeros(") == before.count("torch.zeros(") == 8
    assert "torch.empty(" not in after
    # Restricted to the ATN1 family, --fix changes nothing at all.
    sglang_fa_backend.write_text(before, encoding="utf-8")
    code, output = _check(
        "--fix", "--select", "ATN1", str(sglang_fa_backend), capsys=capsys
    )
    assert code == 1, output
    assert sglang_fa_backend.read_text(encoding="utf-8") == before
    assert "8 hidden fixes can be enabled with the `--unsafe-fixes` option" in output
