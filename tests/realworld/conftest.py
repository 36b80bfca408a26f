from __future__ import annotations

from pathlib import Path

import pytest

from tests.realworld.wheels import SGLANG_045, SGLANG_FA_BACKEND, extract


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/realworld/" in item.nodeid.replace("\\", "/"):
            item.add_marker(pytest.mark.realworld)


@pytest.fixture
def sglang_fa_backend(tmp_path: Path) -> Path:
    """A fresh copy of SGLang 0.4.5's FlashAttention backend in ``tmp_path``."""
    return extract(*SGLANG_045, SGLANG_FA_BACKEND, tmp_path)
