"""The whole matrix again with uninitialized memory poisoned.

Under poisoning ``torch.empty`` returns NaN or the integer maximum, so a
backend that reads one of its ``torch.empty`` static buffers before writing
it, or indexes with an unwritten page-table entry, gives different results
(or fails). Poisoned results must be identical to unpoisoned ones.
"""

from __future__ import annotations

import pytest
import torch

from lint_rules.poison import poisoned_memory
from reference_backend.forward_batch import ForwardMode
from reference_backend.workload import GRAPH_MODES, MODES
from tests.backend.support import (
    BATCH_SIZES,
    GRAPH_TOLERANCE,
    PAGE_SIZES,
    VARIANTS,
    backend_module,
    eager_output,
    graph_run,
    make_cache,
)

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
INT32_POISON = torch.iinfo(torch.int32).max


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("mode", "page_size", "batch_size"), EAGER_CASES)
def test_poisoned_eager_output_identical_to_unpoisoned(
    variant, mode, page_size, batch_size
):
    poisoned = eager_output(variant, mode, page_size, batch_size, poisoned=True)
    clean = eager_output(variant, mode, page_size, batch_size)
    assert torch.equal(poisoned, clean)


@pytest.mark.parametrize(("mode", "page_size", "batch_size"), EAGER_CASES)
def test_poisoned_unoptimized_and_shipped_identical(mode, page_size, batch_size):
    unoptimized = eager_output(
        "unoptimized", mode, page_size, batch_size, poisoned=True
    )
    shipped = eager_output("shipped", mode, page_size, batch_size, poisoned=True)
    assert torch.equal(unoptimized, shipped)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("mode", "page_size"), GRAPH_CASES)
def test_poisoned_replays_identical_to_unpoisoned(variant, mode, page_size):
    poisoned = graph_run(variant, mode, page_size, poisoned=True)
    clean = graph_run(variant, mode, page_size)
    for replay, (a, b) in enumerate(zip(poisoned.graph, clean.graph, strict=True)):
        assert torch.equal(a, b), f"replay {replay} differs"


@pytest.mark.parametrize(("mode", "page_size"), GRAPH_CASES)
def test_poisoned_unoptimized_and_shipped_replays_identical(mode, page_size):
    unoptimized = graph_run("unoptimized", mode, page_size, poisoned=True)
    shipped = graph_run("shipped", mode, page_size, poisoned=True)
    for replay, (a, b) in enumerate(zip(unoptimized.graph, shipped.graph, strict=True)):
        assert torch.equal(a, b), f"replay {replay} differs"


@pytest.mark.parametrize(("mode", "page_size"), GRAPH_CASES)
def test_poisoned_replays_match_eager(mode, page_size):
    run = graph_run("shipped", mode, page_size, poisoned=True)
    for graph, eager in zip(run.graph, run.eager, strict=True):
        torch.testing.assert_close(graph, eager, **GRAPH_TOLERANCE)


def test_poison_reaches_the_shipped_static_buffers():
    """The shipped buffers are torch.empty: poisoned, so the tests above bite."""
    cache = make_cache(seed=0, page_size=1, device="cpu")
    with poisoned_memory():
        backend = backend_module("shipped").FlashAttentionBackend(
            cache.req_to_token_pool, cache.page_size
        )
        backend.init_cuda_graph_state(max_bs=4)
    buffers = {**backend.decode_cuda_graph_metadata}
    buffers.update(
        {f"verify_{k}": t for k, t in backend.target_verify_metadata.items()}
    )
    poisoned = {name for name, t in buffers.items() if bool((t == INT32_POISON).all())}
    assert poisoned == {
        "page_table",
        "page_table_draft_decode",
        "cache_seqlens",
        "cu_seqlens_k",
        "verify_page_table",
        "verify_cache_seqlens",
        "verify_cu_seqlens_q",
        "verify_cu_seqlens_k",
    }


def test_unoptimized_static_buffers_are_zero_filled_under_poison():
    cache = make_cache(seed=0, page_size=1, device="cpu")
    with poisoned_memory():
        backend = backend_module("unoptimized").FlashAttentionBackend(
            cache.req_to_token_pool, cache.page_size
        )
        backend.init_cuda_graph_state(max_bs=4)
    assert not (backend.decode_cuda_graph_metadata["page_table"] == INT32_POISON).any()


@pytest.mark.parametrize("page_size", PAGE_SIZES)
def test_replay_leaves_unwritten_page_table_entries_the_kernel_must_mask(page_size):
    """After a replay, page-table entries past the longest sequence hold poison.

    The kernel reads the whole static page table, so this is what it sees: it
    must mask entries past each sequence's length before using them as indices.
    """
    cache = make_cache(seed=1, page_size=page_size, device="cpu")
    seq_lens = torch.tensor([5, 20, 33])
    req_pool_indices = torch.tensor([1, 2, 3])
    with poisoned_memory():
        backend = backend_module("shipped").FlashAttentionBackend(
            cache.req_to_token_pool, cache.page_size
        )
        backend.init_cuda_graph_state(max_bs=3)
        backend.init_forward_metadata_capture_cuda_graph(
            3,
            req_pool_indices,
            torch.ones(3, dtype=torch.int64),
            ForwardMode.DECODE,
            None,
        )
        backend.init_forward_metadata_replay_cuda_graph(
            3, req_pool_indices, seq_lens, ForwardMode.DECODE, None, seq_lens
        )
    page_table = backend.forward_metadata.page_table
    pages_written = -(-33 // page_size)
    assert (page_table[:, pages_written:] == INT32_POISON).all()
