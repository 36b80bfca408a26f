"""The backend test matrix: both backend variants, run eagerly and as graphs.

Every case builds its own paged cache from a seed that depends only on the
case, so the unoptimized and shipped variants, poisoned or not, see exactly
the same requests, slots and inputs. Results are cached per case so that each
test asks one question of them.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import torch

import reference_backend.flashattention_backend as shipped_module
from lint_rules.poison import poisoned_memory
from reference_backend.forward_batch import ForwardMode
from reference_backend.graph_runner import GraphRunner, forward_eager
from reference_backend.workload import (
    MODES,
    ModelShape,
    PagedCache,
    Workload,
    dense_reference,
    make_workload,
)

FIXTURE_PATH = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "flashattention_backend_unoptimized.py"
)
VARIANTS = ("unoptimized", "shipped")
PAGE_SIZES = (1, 16)
BATCH_SIZES = (1, 3, 8)
#: Graphs are captured for BATCH_SIZES; 2 and 5 replay padded to 3 and 8.
REPLAY_BATCH_SIZES = (8, 3, 1, 5, 8, 2, 3, 1, 8)
SHAPE = ModelShape(num_layers=2, num_q_heads=4, num_kv_heads=2, head_dim=16)
MAX_CONTEXT_LEN = 128
MAX_REQUESTS = 12
NUM_STEPS = 3
DRAFT_TOKEN_NUM = 4

#: Tolerances: float32 kernel against the float64 dense reference, and graph
#: against eager (they reduce over different page-table widths).
REFERENCE_TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}
GRAPH_TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}


@functools.cache
def backend_module(variant: str) -> ModuleType:
    """The shipped backend module, or its unoptimized twin loaded by file path."""
    if variant == "shipped":
        return shipped_module
    name = "flashattention_backend_unoptimized"
    spec = importlib.util.spec_from_file_location(name, FIXTURE_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def case_seed(mode: str, page_size: int, batch_size: int = 0) -> int:
    return 10_000 * page_size + 100 * MODES.index(mode) + batch_size


def make_cache(seed: int, page_size: int, device: str) -> PagedCache:
    return PagedCache(
        SHAPE, page_size, MAX_CONTEXT_LEN, MAX_REQUESTS, device=device, seed=seed
    )


def new_workload(cache: PagedCache, mode: str, batch_size: int) -> Workload:
    return make_workload(
        cache, mode, batch_size, num_steps=NUM_STEPS, draft_token_num=DRAFT_TOKEN_NUM
    )


def make_backend(variant: str, mode: str, cache: PagedCache):
    """A backend of ``variant`` for ``mode``: multi-step for draft decode."""
    module = backend_module(variant)
    if mode == "draft_decode":
        return module.FlashAttentionMultiStepBackend(
            cache.req_to_token_pool,
            cache.page_size,
            topk=1,
            speculative_num_steps=NUM_STEPS,
        )
    return module.FlashAttentionBackend(cache.req_to_token_pool, cache.page_size)


def make_graph_runner(backend, mode: str, cache: PagedCache) -> GraphRunner:
    return GraphRunner(
        backend,
        cache.layers,
        cache.req_to_token_pool,
        cache.token_to_kv_pool,
        ForwardMode.TARGET_VERIFY if mode == "target_verify" else ForwardMode.DECODE,
        BATCH_SIZES,
        dtype=SHAPE.dtype,
        num_steps=NUM_STEPS if mode == "draft_decode" else 1,
        draft_token_num=DRAFT_TOKEN_NUM if mode == "target_verify" else 0,
    )


def _poison_if(poisoned: bool) -> contextlib.AbstractContextManager[None]:
    return poisoned_memory() if poisoned else contextlib.nullcontext()


def _synchronize(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


@functools.cache
def eager_output(
    variant: str,
    mode: str,
    page_size: int,
    batch_size: int,
    poisoned: bool = False,
    device: str = "cpu",
) -> torch.Tensor:
    """One eager forward pass of a fresh backend on the case's batch (on CPU)."""
    with _poison_if(poisoned):
        cache = make_cache(case_seed(mode, page_size, batch_size), page_size, device)
        backend = make_backend(variant, mode, cache)
        workload = new_workload(cache, mode, batch_size)
        output = forward_eager(
            backend,
            cache.layers,
            workload.forward_batch,
            workload.q,
            workload.k,
            workload.v,
        )
        _synchronize(device)
        return output.cpu()


@functools.cache
def eager_reference(mode: str, page_size: int, batch_size: int) -> torch.Tensor:
    """The dense attention the case's batch should give."""
    cache = make_cache(case_seed(mode, page_size, batch_size), page_size, "cpu")
    return dense_reference(new_workload(cache, mode, batch_size), cache.layers)


@dataclass
class GraphRun:
    """Outputs of each replay, and of the same backend run eagerly on the same batch."""

    graph: list[torch.Tensor]
    eager: list[torch.Tensor]
    #: How many CUDA graphs the runner captured (0 on the CPU path).
    num_cuda_graphs: int = 0


@functools.cache
def graph_run(
    variant: str, mode: str, page_size: int, poisoned: bool = False, device: str = "cpu"
) -> GraphRun:
    """Capture every batch size, then replay batches of changing sizes and lengths.

    Between replays the same backend also runs each batch eagerly, as a server
    mixes graph and eager passes; the eager pass must not disturb the graphs.
    """
    graph, eager = [], []
    with _poison_if(poisoned):
        cache = make_cache(case_seed(mode, page_size), page_size, device)
        backend = make_backend(variant, mode, cache)
        runner = make_graph_runner(backend, mode, cache)
        runner.capture()
        for batch_size in REPLAY_BATCH_SIZES:
            workload = new_workload(cache, mode, batch_size)
            inputs = (workload.q, workload.k, workload.v)
            graph.append(runner.replay(workload.forward_batch, *inputs))
            eager.append(
                forward_eager(backend, cache.layers, workload.forward_batch, *inputs)
            )
        _synchronize(device)
    return GraphRun(
        [g.cpu() for g in graph], [e.cpu() for e in eager], len(runner.graphs)
    )


@functools.cache
def graph_references(mode: str, page_size: int) -> list[torch.Tensor]:
    """Dense attention of each replayed batch (same seed, same batches)."""
    cache = make_cache(case_seed(mode, page_size), page_size, "cpu")
    return [
        dense_reference(new_workload(cache, mode, batch_size), cache.layers)
        for batch_size in REPLAY_BATCH_SIZES
    ]
