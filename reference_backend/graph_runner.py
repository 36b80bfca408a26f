"""Run a backend eagerly, or through static buffers captured once per batch size.

On CUDA each batch size gets a ``torch.cuda.CUDAGraph``. On CPU the same
static-buffer path runs eagerly: metadata is captured once per batch size,
refilled with each batch's lengths, and attention reads only the static
buffers, exactly what a graph replay would read.

A forward pass here is the attention part of a model: for each step (one, or
one per draft step in draft decode) and each layer, cache the new K/V and
attend. Inputs ``q``, ``k``, ``v`` are [steps, layers, tokens, heads, head_dim];
the output is [steps, layers, tokens, q_heads * head_dim].
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import torch

from reference_backend.forward_batch import (
    DraftInput,
    ForwardBatch,
    ForwardMode,
    VerifyInput,
)
from reference_backend.kv_cache import ReqToTokenPool, TokenToKVPool
from reference_backend.layer import AttentionLayer

#: Sequence length of padding rows and of the capture batch: one key each.
SEQ_LEN_FILL_VALUE = 1


def _step_backends(backend: Any, num_steps: int) -> list[Any]:
    """The backend of each step: the multi-step backend's per-step backends."""
    if hasattr(backend, "attn_backends"):
        return backend.attn_backends[:num_steps]
    return [backend]


def _step_batch(forward_batch: ForwardBatch, step: int) -> ForwardBatch:
    """The batch as one draft step sees it: that step's slots for the new K/V."""
    if not isinstance(forward_batch.spec_info, DraftInput):
        return forward_batch
    out_cache_loc = forward_batch.spec_info.draft_cache_loc[:, step]
    return dataclasses.replace(forward_batch, out_cache_loc=out_cache_loc)


def run_layers(
    backend: Any,
    layers: Sequence[AttentionLayer],
    forward_batch: ForwardBatch,
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
) -> torch.Tensor:
    """Attention of every step and layer, with metadata already initialized."""
    num_steps = q.shape[0]
    outputs = []
    for step, step_backend in enumerate(_step_backends(backend, num_steps)):
        step_batch = _step_batch(forward_batch, step)
        for layer in layers:
            outputs.append(
                step_backend.forward(
                    q[step, layer.layer_id],
                    k[step, layer.layer_id],
                    v[step, layer.layer_id],
                    layer,
                    step_batch,
                )
            )
    return torch.stack(outputs).view(num_steps, len(layers), *outputs[0].shape)


def forward_eager(
    backend: Any,
    layers: Sequence[AttentionLayer],
    forward_batch: ForwardBatch,
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
) -> torch.Tensor:
    """One eager forward pass: fresh metadata, then every step and layer."""
    backend.init_forward_metadata(forward_batch)
    return run_layers(backend, layers, forward_batch, q, k, v)


class GraphRunner:
    """Captures one graph per batch size for decode, draft decode or target verify.

    ``backend`` is a ``FlashAttentionBackend`` for decode and target verify and
    a ``FlashAttentionMultiStepBackend`` for draft decode (``num_steps`` > 1
    or a draft backend). Batches smaller than a captured size are padded to
    the next one with rows that read request slot 0 and write KV slot 0.
    """

    def __init__(
        self,
        backend: Any,
        layers: Sequence[AttentionLayer],
        req_to_token_pool: ReqToTokenPool,
        token_to_kv_pool: TokenToKVPool,
        forward_mode: ForwardMode,
        batch_sizes: Sequence[int],
        *,
        dtype: torch.dtype,
        num_steps: int = 1,
        draft_token_num: int = 0,
        use_cuda_graph: bool | None = None,
    ):
        if not forward_mode.is_cuda_graph():
            raise ValueError(f"no graph for {forward_mode.name}")
        self.backend = backend
        self.layers = list(layers)
        self.req_to_token_pool = req_to_token_pool
        self.token_to_kv_pool = token_to_kv_pool
        self.forward_mode = forward_mode
        self.batch_sizes = sorted(batch_sizes)
        self.max_bs = self.batch_sizes[-1]
        self.is_draft = hasattr(backend, "attn_backends")
        self.num_steps = num_steps
        self.draft_token_num = draft_token_num
        self.tokens_per_request = (
            draft_token_num if forward_mode.is_target_verify() else 1
        )
        device = req_to_token_pool.req_to_token.device
        self.device = device
        self.use_cuda_graph = (
            device.type == "cuda" if use_cuda_graph is None else use_cuda_graph
        )

        # Static inputs: capture reads these, every replay copies into them.
        # Zero-filled: capture runs the kernels on them once before any batch.
        max_tokens = self.max_bs * self.tokens_per_request
        layer = self.layers[0]
        self.req_pool_indices = torch.zeros(
            self.max_bs, dtype=torch.int64, device=device
        )
        self.seq_lens = torch.full(
            (self.max_bs,), SEQ_LEN_FILL_VALUE, dtype=torch.int64, device=device
        )
        # KV slot 0 is padding: the capture batch writes there.
        self.out_cache_loc = torch.zeros(max_tokens, dtype=torch.int64, device=device)
        self.draft_cache_loc = torch.zeros(
            (self.max_bs, num_steps), dtype=torch.int64, device=device
        )
        steps_layers = (num_steps, len(self.layers), max_tokens)
        self.q = torch.zeros(
            (*steps_layers, layer.num_q_heads, layer.head_dim),
            dtype=dtype,
            device=device,
        )
        self.k = torch.zeros(
            (*steps_layers, layer.num_kv_heads, layer.head_dim),
            dtype=dtype,
            device=device,
        )
        self.v = torch.zeros_like(self.k)

        self.graphs: dict[int, torch.cuda.CUDAGraph] = {}
        self.outputs: dict[int, torch.Tensor] = {}
        self.runs: dict[int, Callable[[], torch.Tensor]] = {}
        self.graph_pool: Any = None

    def _spec_info(self, bs: int) -> DraftInput | VerifyInput | None:
        if self.is_draft:
            return DraftInput(draft_cache_loc=self.draft_cache_loc[:bs])
        if self.forward_mode.is_target_verify():
            return VerifyInput(draft_token_num=self.draft_token_num)
        return None

    def _static_batch(self, bs: int, seq_lens_cpu: torch.Tensor) -> ForwardBatch:
        """A batch of size ``bs`` made of views of the static inputs."""
        return ForwardBatch(
            forward_mode=self.forward_mode,
            batch_size=bs,
            req_pool_indices=self.req_pool_indices[:bs],
            seq_lens=self.seq_lens[:bs],
            seq_lens_cpu=seq_lens_cpu,
            out_cache_loc=self.out_cache_loc[: bs * self.tokens_per_request],
            req_to_token_pool=self.req_to_token_pool,
            token_to_kv_pool=self.token_to_kv_pool,
            spec_info=self._spec_info(bs),
        )

    def capture(self) -> None:
        """Allocate the backend's static state and capture every batch size."""
        self.backend.init_cuda_graph_state(self.max_bs)
        for bs in reversed(self.batch_sizes):  # largest first, so the pool is reused
            self._capture_one(bs)

    def _capture_one(self, bs: int) -> None:
        forward_batch = self._static_batch(bs, self.seq_lens[:bs].cpu())
        if self.is_draft:
            self.backend.init_forward_metadata_capture_cuda_graph(forward_batch)
        else:
            self.backend.init_forward_metadata_capture_cuda_graph(
                bs,
                forward_batch.req_pool_indices,
                forward_batch.seq_lens,
                self.forward_mode,
                forward_batch.spec_info,
            )
        num_tokens = bs * self.tokens_per_request

        def run() -> torch.Tensor:
            return run_layers(
                self.backend,
                self.layers,
                forward_batch,
                self.q[:, :, :num_tokens],
                self.k[:, :, :num_tokens],
                self.v[:, :, :num_tokens],
            )

        if not self.use_cuda_graph:
            # Run once now, as capture does on CUDA, so that reading a static
            # buffer capture has not written shows here too.
            run()
            self.runs[bs] = run
            return
        # As the CUDA graph docs require: warm up on a side stream first.
        stream = torch.cuda.Stream(device=self.device)
        stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(stream):
            for _ in range(2):
                run()
        torch.cuda.current_stream(self.device).wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.graph_pool):
            self.outputs[bs] = run()
        self.graph_pool = graph.pool()
        self.graphs[bs] = graph

    def graph_batch_size(self, batch_size: int) -> int:
        """The captured batch size a batch of ``batch_size`` runs in."""
        index = bisect.bisect_left(self.batch_sizes, batch_size)
        if index == len(self.batch_sizes):
            raise ValueError(
                f"batch size {batch_size} > largest captured {self.max_bs}"
            )
        return self.batch_sizes[index]

    def replay(
        self,
        forward_batch: ForwardBatch,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
    ) -> torch.Tensor:
        """Run ``forward_batch`` through its captured graph; returns a fresh tensor."""
        bs = forward_batch.batch_size
        graph_bs = self.graph_batch_size(bs)
        num_tokens = q.shape[2]
        pad = graph_bs - bs

        self.req_pool_indices[:bs].copy_(forward_batch.req_pool_indices)
        self.req_pool_indices[bs:graph_bs].fill_(0)
        self.seq_lens[:bs].copy_(forward_batch.seq_lens)
        self.seq_lens[bs:graph_bs].fill_(SEQ_LEN_FILL_VALUE)
        seq_lens_cpu = torch.cat(
            [
                forward_batch.seq_lens_cpu,
                torch.full((pad,), SEQ_LEN_FILL_VALUE, dtype=torch.int64),
            ]
        )
        if self.is_draft:
            self.draft_cache_loc[:bs].copy_(forward_batch.spec_info.draft_cache_loc)
            self.draft_cache_loc[bs:graph_bs].fill_(0)
        else:
            self.out_cache_loc[:num_tokens].copy_(forward_batch.out_cache_loc)
            self.out_cache_loc[num_tokens : graph_bs * self.tokens_per_request].fill_(0)
        self.q[:, :, :num_tokens].copy_(q)
        self.k[:, :, :num_tokens].copy_(k)
        self.v[:, :, :num_tokens].copy_(v)

        static_batch = self._static_batch(graph_bs, seq_lens_cpu)
        if self.is_draft:
            self.backend.init_forward_metadata_replay_cuda_graph(static_batch, graph_bs)
        else:
            self.backend.init_forward_metadata_replay_cuda_graph(
                graph_bs,
                self.req_pool_indices,
                self.seq_lens,
                self.forward_mode,
                static_batch.spec_info,
                seq_lens_cpu,
            )

        if self.use_cuda_graph:
            self.graphs[graph_bs].replay()
            output = self.outputs[graph_bs]
        else:
            output = self.runs[graph_bs]()
        return output[:, :, :num_tokens].clone()
