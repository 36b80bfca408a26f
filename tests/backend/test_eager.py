"""Eager forward passes: extend with prefix, decode, draft decode, target verify."""

from __future__ import annotations

import pytest
import torch

from reference_backend.workload import MODES
from tests.backend.support import (
    BATCH_SIZES,
    PAGE_SIZES,
    REFERENCE_TOLERANCE,
    VARIANTS,
    eager_output,
    eager_reference,
)

CASES = [
    pytest.param(
        mode, page_size, batch_size, id=f"{mode}-page{page_size}-bs{batch_size}"
    )
    for mode in MODES
    for page_size in PAGE_SIZES
    for batch_size in BATCH_SIZES
]


@pytest.mark.parametrize(("mode", "page_size", "batch_size"), CASES)
def test_unoptimized_and_shipped_give_identical_outputs(mode, page_size, batch_size):
    unoptimized = eager_output("unoptimized", mode, page_size, batch_size)
    shipped = eager_output("shipped", mode, page_size, batch_size)
    assert torch.equal(unoptimized, shipped)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("mode", "page_size", "batch_size"), CASES)
def test_output_matches_dense_reference(variant, mode, page_size, batch_size):
    output = eager_output(variant, mode, page_size, batch_size)
    expected = eager_reference(mode, page_size, batch_size)
    torch.testing.assert_close(output.double(), expected, **REFERENCE_TOLERANCE)
