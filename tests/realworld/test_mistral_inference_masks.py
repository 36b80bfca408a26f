"""ATN203 on mistral-inference 1.6.0 (downloaded, never committed).

``Transformer.embed_vision_language_features`` checks its lengths with an
``assert`` whose message reads ``image_locations.sum().item()``: the message
is evaluated only when the test fails, to be raised, so it is no per-step
sync. It then stores the text and image features through boolean masks
given as one element of a tuple index (``combined_features[text_locations,
:] = text_features``): PyTorch finds the mask's true elements with
``nonzero``, a sync, as for ``x[mask]``.

``BufferCache._get_input_metadata_layer`` (run per cache size on every
step) binds ``to_cache_mask = torch.tensor(..., device=self.device,
dtype=torch.bool)`` and indexes ``cache_positions[to_cache_mask]``: a
tensor of booleans torch makes on the device is a mask too.
"""

from __future__ import annotations

from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import Settings
from tests.realworld.wheels import extract

MISTRAL = ("mistral-inference", "1.6.0")
TRANSFORMER = "mistral_inference/transformer.py"
CACHE = "mistral_inference/cache.py"


def _rows(text: str, needle: str) -> list[int]:
    rows = [row for row, line in enumerate(text.splitlines(), 1) if needle in line]
    assert rows, f"{needle!r} not found"
    return rows


def _reported(text: str, settings: Settings) -> dict[int, str]:
    return {
        finding.location.row: finding.message
        for finding in check_source(text, "m.py", settings)
    }


def test_assert_messages_and_tuple_index_masks(tmp_path: Path) -> None:
    settings = Settings(select=("ATN203",))
    text = extract(*MISTRAL, TRANSFORMER, tmp_path).read_text(encoding="utf-8")
    reported = _reported(text, settings)
    (message,) = _rows(text, "image_locations.sum().item()")
    assert message not in reported
    stores = [
        *_rows(text, "combined_features[text_locations, :] = text_features"),
        *_rows(text, "combined_features[image_locations, :] = image_features"),
    ]
    assert len(stores) == 2
    for row in stores:
        assert "boolean-mask indexing" in reported.get(row, "")
    # The same read as the assert's test is a sync.
    (test,) = _rows(text, "assert seq_len == N_txt + N_img, (")
    syncing = text.replace(
        "assert seq_len == N_txt + N_img, (",
        "assert seq_len == image_locations.sum().item(), (",
    )
    assert test in _reported(syncing, settings)


def test_a_boolean_tensor_made_on_the_device_is_a_mask(tmp_path: Path) -> None:
    settings = Settings(
        select=("ATN203",),
        hot_path_methods=("forward", "get_input_metadata", "_get_input_metadata_layer"),
    )
    text = extract(*MISTRAL, CACHE, tmp_path).read_text(encoding="utf-8")
    (read,) = _rows(text, "cache_positions=cache_positions[to_cache_mask]")
    assert "boolean-mask indexing" in _reported(text, settings).get(read, "")
    # Made on the host (no device), the mask is found on the host.
    host = text.replace(
        "torch.tensor(sum(masks, []), device=self.device, dtype=torch.bool)",
        "torch.tensor(sum(masks, []), dtype=torch.bool)",
    )
    assert host != text
    assert read not in _reported(host, settings)
