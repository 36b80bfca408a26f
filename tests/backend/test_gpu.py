"""The backend matrix on CUDA, with real CUDA-graph capture and replay.

Skipped without a CUDA device. The graph runner warms up on a side stream
before capture, copies each batch into the static inputs before replay, and
the comparisons synchronize first (see ``reference_backend.graph_runner`` and
``tests.backend.support``).
"""

from __future__ import annotations

import os

import pytest
import torch

from reference_backend.workload import GRAPH_MODES, MODES
from tests.backend.support import (
    BATCH_SIZES,
    GRAPH_TOLERANCE,
    PAGE_SIZES,
    REFERENCE_TOLERANCE,
    VARIANTS,
    eager_output,
    eager_reference,
    graph_references,
    graph_run,
)

# Deterministic cuBLAS under poisoning (deterministic algorithms are on there).
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

CUDA = "cuda"
POISON = [pytest.param(False, id="clean"), pytest.param(True, id="poisoned")]
EAGER_CASES = [
    pytest.param(
        mode, page_size, batch_size, id=f"{mode}-page{page_size}-bs{batch_size}"
    )
    for mode in MODES
    for page_size in PAGE_SIZES
    for batch_size in BATCH_SIZES
]
GRAPH_CASES = [
    pytest.param(mode, page_size, id=f"{mode}-page{page_size}")
    for mode in GRAPH_MODES
    for page_size in PAGE_SIZES
]


@pytest.mark.parametrize("poisoned", POISON)
@pytest.mark.parametrize(("mode", "page_size", "batch_size"), EAGER_CASES)
def test_cuda_unoptimized_and_shipped_identical(mode, page_size, batch_size, poisoned):
    args = (mode, page_size, batch_size, poisoned, CUDA)
    assert torch.equal(
        eager_output("unoptimized", *args), eager_output("shipped", *args)
    )


@pytest.mark.parametrize("poisoned", POISON)
@pytest.mark.parametrize(("mode", "page_size", "batch_size"), EAGER_CASES)
def test_cuda_output_matches_dense_reference(mode, page_size, batch_size, poisoned):
    output = eager_output("shipped", mode, page_size, batch_size, poisoned, CUDA)
    expected = eager_reference(mode, page_size, batch_size)
    torch.testing.assert_close(output.double(), expected, **REFERENCE_TOLERANCE)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("mode", "page_size"), GRAPH_CASES)
def test_cuda_graphs_are_captured(variant, mode, page_size):
    assert graph_run(variant, mode, page_size, False, CUDA).num_cuda_graphs == len(
        BATCH_SIZES
    )


@pytest.mark.parametrize("poisoned", POISON)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("mode", "page_size"), GRAPH_CASES)
def test_cuda_graph_replays_match_eager(variant, mode, page_size, poisoned):
    run = graph_run(variant, mode, page_size, poisoned, CUDA)
    for replay, (graph, eager) in enumerate(zip(run.graph, run.eager, strict=True)):
        torch.testing.assert_close(
            graph, eager, **GRAPH_TOLERANCE, msg=lambda m, i=replay: f"replay {i}: {m}"
        )


@pytest.mark.parametrize("poisoned", POISON)
@pytest.mark.parametrize(("mode", "page_size"), GRAPH_CASES)
def test_cuda_graph_unoptimized_and_shipped_identical(mode, page_size, poisoned):
    unoptimized = graph_run("unoptimized", mode, page_size, poisoned, CUDA)
    shipped = graph_run("shipped", mode, page_size, poisoned, CUDA)
    for replay, (a, b) in enumerate(zip(unoptimized.graph, shipped.graph, strict=True)):
        assert torch.equal(a, b), f"replay {replay} differs"


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("mode", "page_size"), GRAPH_CASES)
def test_cuda_poisoned_replays_match_unpoisoned(variant, mode, page_size):
    # Close, not equal: deterministic mode (on under poisoning) may pick other kernels.
    poisoned = graph_run(variant, mode, page_size, True, CUDA)
    clean = graph_run(variant, mode, page_size, False, CUDA)
    for a, b in zip(poisoned.graph, clean.graph, strict=True):
        torch.testing.assert_close(a, b, **GRAPH_TOLERANCE)


@pytest.mark.parametrize(("mode", "page_size"), GRAPH_CASES)
def test_cuda_graph_replays_match_dense_reference(mode, page_size):
    run = graph_run("shipped", mode, page_size, False, CUDA)
    for graph, expected in zip(
        run.graph, graph_references(mode, page_size), strict=True
    ):
        torch.testing.assert_close(graph.double(), expected, **REFERENCE_TOLERANCE)
