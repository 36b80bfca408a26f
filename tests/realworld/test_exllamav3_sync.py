"""ATN203 on exllamav3 1.6.5's generator and modules (downloaded, never
committed), with their per-step entry points named as a maintainer would.

``Job.receive_sample`` starts with ``next_token = next_token.cpu()``: one
sync, after which every ``next_token.item()`` reads the host copy (the
caller's device tensor no longer reaches them). ``prepare_logit_mask`` and
``_expand_bitmask`` read pinned logit masks through ``.numpy()``, which
raises on a tensor not on the CPU and so never waits. The recurrent layers
read their slots through ``get_for_device(params, "recurrent_slots",
"cpu")``: a function told to give its result on the CPU; Mamba-2's scan
falls back to a device ``buffered_arange`` when the host slots are missing,
and that fallback's ``.tolist()`` is still a sync. The drafters read the
confidence the draft model's forward stored in ``params`` through
``params.get("draft_conf")``, a device tensor: its ``.cpu()`` is a sync.
MLA's ``_host_seqlens`` reads ``src.tolist()`` only under ``if
isinstance(src, torch.Tensor) and src.device.type == "cpu":``, a host read.
"""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract

EXLLAMAV3 = ("exllamav3", "1.6.5")
JOB = "exllamav3/generator/job.py"
SHORT_CONV = "exllamav3/modules/short_conv.py"
PLE = "exllamav3/modules/ple.py"
MAMBA2 = "exllamav3/modules/mamba2.py"
GENERATOR = "exllamav3/generator/generator.py"
MLA = "exllamav3/modules/mla_attn.py"
SETTINGS = Settings(
    select=("ATN203",),
    hot_path_methods=(
        "forward",
        "receive_sample",
        "receive_logits",
        "prepare_logit_mask",
        "iterate_*",
        "decode_flash_attn",
    ),
)


def _rows(text: str, needle: str) -> list[int]:
    rows = [row for row, line in enumerate(text.splitlines(), 1) if needle in line]
    assert rows, f"{needle!r} not found"
    return rows


def _reported(text: str) -> set[int]:
    return {finding.location.row for finding in check_source(text, "m.py", SETTINGS)}


def test_reads_after_a_parameter_is_replaced_by_its_host_copy_are_no_syncs(
    tmp_path: Path,
) -> None:
    text = extract(*EXLLAMAV3, JOB, tmp_path).read_text(encoding="utf-8")
    reported = _reported(text)
    (copy,) = _rows(text, "next_token = next_token.cpu()")
    assert copy in reported
    reads = [
        *_rows(text, "next_token_i = next_token.item()"),
        *_rows(text, "new_text = id_to_piece[next_token.item()]"),
        *_rows(text, "token = next_token.item()"),
    ]
    assert len(reads) == 3
    assert not reported & set(reads)


def test_numpy_of_a_pinned_mask_is_no_sync(tmp_path: Path) -> None:
    text = extract(*EXLLAMAV3, JOB, tmp_path).read_text(encoding="utf-8")
    reported = _reported(text)
    numpy_rows = _rows(text, ".numpy().view(np.")
    assert len(numpy_rows) == 2
    assert not reported & set(numpy_rows)
    # The once-per-job finite check of the first logits is still reported.
    assert set(_rows(text, "if not bool(torch.isfinite(logits).all()):")) <= reported


def test_values_a_function_gives_on_the_cpu_are_on_the_host(tmp_path: Path) -> None:
    for member in (SHORT_CONV, PLE):
        text = extract(*EXLLAMAV3, member, tmp_path).read_text(encoding="utf-8")
        rows = _rows(text, 'get_for_device(params, "recurrent_slots", "cpu").tolist()')
        assert not _reported(text) & set(rows), member
    text = extract(*EXLLAMAV3, MAMBA2, tmp_path).read_text(encoding="utf-8")
    reported = _reported(text)
    # The host slots, or the list made from them: no sync.
    assert not reported & set(_rows(text, "rows_in = rows_in.tolist() if rows_in"))
    # The device fallback when the host slots are missing: a sync.
    assert set(_rows(text, "rows_out = rows_out.tolist()")) <= reported


def test_a_value_read_back_from_the_params_dict_may_be_on_the_device(
    tmp_path: Path,
) -> None:
    text = extract(*EXLLAMAV3, GENERATOR, tmp_path).read_text(encoding="utf-8")
    reported = _reported(text)
    copies = [
        *_rows(text, "c = draft_conf.float().cpu()"),
        *_rows(text, "conf = draft_conf[:batch_size, 1:].float().cpu()"),
    ]
    assert len(copies) == 2
    assert set(copies) <= reported


def test_a_device_guard_in_an_and_tells_its_body(tmp_path: Path) -> None:
    text = extract(*EXLLAMAV3, MLA, tmp_path).read_text(encoding="utf-8")
    reported = _reported(text)
    (host_read,) = _rows(text, "host = src.tolist()")
    assert host_read not in reported
    # The fallback for a caller that passed device lengths is a sync.
    (fallback,) = _rows(text, "host = cache_seqlens.cpu().tolist()")
    assert fallback in reported
