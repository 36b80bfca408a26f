"""The static-buffer path: capture once per batch size, replay with new lengths.

On CPU the captured path runs eagerly on the static buffers; the same checks
run with real CUDA graphs in ``test_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from reference_backend.workload import GRAPH_MODES
from tests.backend.support import (
    GRAPH_TOLERANCE,
    PAGE_SIZES,
    REFERENCE_TOLERANCE,
    REPLAY_BATCH_SIZES,
    VARIANTS,
    graph_references,
    graph_run,
)

CASES = [
    pytest.param(mode, page_size, id=f"{mode}-page{page_size}")
    for mode in GRAPH_MODES
    for page_size in PAGE_SIZES
]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("mode", "page_size"), CASES)
def test_replays_match_eager_across_changing_lengths(variant, mode, page_size):
    run = graph_run(variant, mode, page_size)
    assert len(run.graph) == len(REPLAY_BATCH_SIZES)
    for replay, (graph, eager) in enumerate(zip(run.graph, run.eager, strict=True)):
        torch.testing.assert_close(
            graph, eager, **GRAPH_TOLERANCE, msg=lambda m, i=replay: f"replay {i}: {m}"
        )


@pytest.mark.parametrize(("mode", "page_size"), CASES)
def test_unoptimized_and_shipped_replays_identical(mode, page_size):
    unoptimized = graph_run("unoptimized", mode, page_size)
    shipped = graph_run("shipped", mode, page_size)
    for replay, (a, b) in enumerate(zip(unoptimized.graph, shipped.graph, strict=True)):
        assert torch.equal(a, b), f"replay {replay} differs"


@pytest.mark.parametrize(("mode", "page_size"), CASES)
def test_replays_match_dense_reference(mode, page_size):
    run = graph_run("shipped", mode, page_size)
    for replay, (graph, expected) in enumerate(
        zip(run.graph, graph_references(mode, page_size), strict=True)
    ):
        torch.testing.assert_close(
            graph.double(),
            expected,
            **REFERENCE_TOLERANCE,
            msg=lambda m, i=replay: f"replay {i}: {m}",
        )
