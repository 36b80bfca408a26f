"""Ragged batches on a paged KV cache, and the dense attention they should give.

Used by the backend tests and the benchmark: a :class:`PagedCache` holds the
pools, :func:`make_workload` fills them with a random batch in one mode, and
:func:`dense_reference` computes the expected output without any paging.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from reference_backend.forward_batch import (
    DraftInput,
    ForwardBatch,
    ForwardMode,
    VerifyInput,
)
from reference_backend.kv_cache import PageAllocator, ReqToTokenPool, TokenToKVPool
from reference_backend.layer import AttentionLayer

#: The workload modes: extend runs eagerly only, the others also as graphs.
MODES = ("decode", "extend", "draft_decode", "target_verify")
GRAPH_MODES = ("decode", "draft_decode", "target_verify")


@dataclass(frozen=True)
class ModelShape:
    """The attention shape of a small model."""

    num_layers: int = 2
    num_q_heads: int = 4
    num_kv_heads: int = 2
    head_dim: int = 16
    dtype: torch.dtype = torch.float32

    def layers(self) -> list[AttentionLayer]:
        return [
            AttentionLayer(i, self.num_q_heads, self.num_kv_heads, self.head_dim)
            for i in range(self.num_layers)
        ]


class PagedCache:
    """Pools sized for ``max_requests`` requests of up to ``max_context_len`` tokens.

    Request slot 0 and page 0 are padding and never handed out.
    """

    def __init__(
        self,
        shape: ModelShape,
        page_size: int,
        max_context_len: int,
        max_requests: int,
        device: torch.device | str = "cpu",
        seed: int = 0,
    ):
        self.shape = shape
        self.layers = shape.layers()
        self.page_size = page_size
        self.max_context_len = max_context_len
        self.max_requests = max_requests
        self.device = torch.device(device)
        self.generator = torch.Generator().manual_seed(seed)
        pages_per_request = -(-max_context_len // page_size)
        num_pages = max_requests * pages_per_request + 1
        self.req_to_token_pool = ReqToTokenPool(
            max_requests + 1, max_context_len, self.device
        )
        self.token_to_kv_pool = TokenToKVPool(
            num_pages,
            page_size,
            shape.num_layers,
            shape.num_kv_heads,
            shape.head_dim,
            shape.dtype,
            self.device,
        )
        self.allocator = PageAllocator(num_pages, self.generator)

    def randint(self, low: int, high: int) -> int:
        """A random int in [low, high]."""
        return int(torch.randint(low, high + 1, (), generator=self.generator))

    def randn(self, *size: int) -> torch.Tensor:
        return torch.randn(size, generator=self.generator, dtype=self.shape.dtype)


@dataclass
class Workload:
    """One batch: its ForwardBatch, its inputs and what the reference needs.

    ``q``, ``k``, ``v`` are [steps, layers, tokens, heads, head_dim]. Token
    ``t`` of step ``s`` belongs to request ``query_request[s, t]`` at position
    ``query_position[s, t]``. ``keys[l][b]`` and ``values[l][b]`` hold every
    K/V of request ``b`` in layer ``l`` in position order, new tokens included.
    """

    mode: str
    forward_batch: ForwardBatch
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    query_request: torch.Tensor
    query_position: torch.Tensor
    keys: list[list[torch.Tensor]]
    values: list[list[torch.Tensor]]
    num_steps: int = 1
    draft_token_num: int = 0


def _lengths(
    cache: PagedCache, mode: str, batch_size: int, num_new: int
) -> list[tuple[int, int]]:
    """(old tokens, new tokens) per request, ragged; old ones are in the cache."""
    limit = cache.max_context_len
    lengths = []
    for b in range(batch_size):
        if mode == "extend":
            # Request 0 always has a cached prefix; others may or may not.
            old = cache.randint(1 if b == 0 else 0, limit - 1)
            new = cache.randint(1, min(limit - old, 24))
        else:
            old = cache.randint(0 if mode == "decode" else 1, limit - num_new)
            new = num_new
        lengths.append((old, new))
    return lengths


def make_workload(
    cache: PagedCache,
    mode: str,
    batch_size: int,
    *,
    num_steps: int = 3,
    draft_token_num: int = 4,
) -> Workload:
    """A random ragged batch in ``mode``, with its old K/V written to the cache.

    Previous workloads' pages are freed and reused in a new random order.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    shape = cache.shape
    device = cache.device
    page_size = cache.page_size
    steps = num_steps if mode == "draft_decode" else 1
    num_new = {"decode": 1, "draft_decode": num_steps, "target_verify": draft_token_num}
    lengths = _lengths(cache, mode, batch_size, num_new.get(mode, 0))
    cache.allocator.reset()
    req_slots = (
        torch.randperm(cache.max_requests, generator=cache.generator)[:batch_size] + 1
    )
    req_to_token = cache.req_to_token_pool.req_to_token

    keys = [[] for _ in range(shape.num_layers)]
    values = [[] for _ in range(shape.num_layers)]
    new_slots = []
    for b, (old, new) in enumerate(lengths):
        total = old + new
        pages = torch.tensor(cache.allocator.alloc(-(-total // page_size)))
        positions = torch.arange(total)
        slots = pages[positions // page_size] * page_size + positions % page_size
        row = slots.clone()
        if mode == "draft_decode":
            # Draft slots are not in req_to_token: the backend must add them.
            row[old:] = 0
        req_to_token[req_slots[b], :total] = row.to(device, torch.int32)
        new_slots.append(slots[old:])
        for layer in range(shape.num_layers):
            old_k = cache.randn(old, shape.num_kv_heads, shape.head_dim)
            old_v = cache.randn(old, shape.num_kv_heads, shape.head_dim)
            k_buffer, v_buffer = cache.token_to_kv_pool.get_kv_buffer(layer)
            k_buffer[slots[:old].to(device)] = old_k.to(device)
            v_buffer[slots[:old].to(device)] = old_v.to(device)
            keys[layer].append(old_k)
            values[layer].append(old_v)

    # Queries: request-major within a step; a draft step has one per request.
    if mode == "draft_decode":
        query_request = torch.arange(batch_size).repeat(steps, 1)
        query_position = torch.stack(
            [torch.tensor([old + s for old, _ in lengths]) for s in range(steps)]
        )
    else:
        query_request = torch.cat(
            [torch.full((new,), b) for b, (_, new) in enumerate(lengths)]
        )[None]
        query_position = torch.cat(
            [torch.arange(old, old + new) for old, new in lengths]
        )[None]
    num_tokens = query_request.shape[1]
    size = (steps, shape.num_layers, num_tokens)
    q = cache.randn(*size, shape.num_q_heads, shape.head_dim)
    k = cache.randn(*size, shape.num_kv_heads, shape.head_dim)
    v = cache.randn(*size, shape.num_kv_heads, shape.head_dim)
    for layer in range(shape.num_layers):
        for b in range(batch_size):
            # New K/V in position order: step-major for drafts, token order otherwise.
            own = (query_request == b).nonzero()
            new_k = k[own[:, 0], layer, own[:, 1]]
            new_v = v[own[:, 0], layer, own[:, 1]]
            keys[layer][b] = torch.cat([keys[layer][b], new_k])
            values[layer][b] = torch.cat([values[layer][b], new_v])

    old_lens = torch.tensor([old for old, _ in lengths])
    new_lens = torch.tensor([new for _, new in lengths])
    spec_info: DraftInput | VerifyInput | None = None
    extend_kwargs = {}
    if mode == "draft_decode":
        draft_cache_loc = torch.stack(new_slots).to(device)
        spec_info = DraftInput(draft_cache_loc=draft_cache_loc)
        forward_mode = ForwardMode.DECODE
        seq_lens = old_lens
        out_cache_loc = draft_cache_loc[:, 0]
    else:
        out_cache_loc = torch.cat(new_slots).to(device)
        if mode == "target_verify":
            spec_info = VerifyInput(draft_token_num=draft_token_num)
            forward_mode = ForwardMode.TARGET_VERIFY
            seq_lens = old_lens
        else:
            forward_mode = (
                ForwardMode.DECODE if mode == "decode" else ForwardMode.EXTEND
            )
            seq_lens = old_lens + new_lens
        if mode == "extend":
            extend_kwargs = {
                "extend_seq_lens": new_lens.to(device),
                "extend_seq_lens_cpu": new_lens.tolist(),
                "extend_prefix_lens_cpu": old_lens.tolist(),
            }
    forward_batch = ForwardBatch(
        forward_mode=forward_mode,
        batch_size=batch_size,
        req_pool_indices=req_slots.to(device),
        seq_lens=seq_lens.to(device),
        seq_lens_cpu=seq_lens,
        out_cache_loc=out_cache_loc,
        req_to_token_pool=cache.req_to_token_pool,
        token_to_kv_pool=cache.token_to_kv_pool,
        spec_info=spec_info,
        **extend_kwargs,
    )
    return Workload(
        mode=mode,
        forward_batch=forward_batch,
        q=q.to(device),
        k=k.to(device),
        v=v.to(device),
        query_request=query_request,
        query_position=query_position,
        keys=keys,
        values=values,
        num_steps=steps,
        draft_token_num=draft_token_num if mode == "target_verify" else 0,
    )


def dense_reference(workload: Workload, layers: list[AttentionLayer]) -> torch.Tensor:
    """Causal attention of every query over its request's keys, in float64.

    Returns [steps, layers, tokens, q_heads * head_dim] on the CPU.
    """
    q = workload.q.detach().cpu().double()
    steps, _, num_tokens = q.shape[:3]
    out = torch.empty(*q.shape, dtype=torch.float64)
    for layer in layers:
        group = layer.num_q_heads // layer.num_kv_heads
        for step in range(steps):
            for t in range(num_tokens):
                b = int(workload.query_request[step, t])
                length = int(workload.query_position[step, t]) + 1
                k = workload.keys[layer.layer_id][b][:length].double()
                v = workload.values[layer.layer_id][b][:length].double()
                k = k.repeat_interleave(group, dim=1)
                v = v.repeat_interleave(group, dim=1)
                scores = torch.einsum("hd,khd->hk", q[step, layer.layer_id, t], k)
                probs = torch.softmax(scores * layer.softmax_scale, dim=-1)
                out[step, layer.layer_id, t] = torch.einsum("hk,khd->hd", probs, v)
    return out.flatten(3)
