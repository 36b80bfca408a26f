"""A FlashAttention-style attention backend over a paged KV cache.

Mirrors the structure of SGLang's FlashAttention (FA3) backend of spring 2025,
written from scratch: a metadata dataclass computed once per forward pass and
shared by every layer, eager metadata for extend, decode, draft decode and
target verify, and static buffers that CUDA graphs read, filled per replay.

Page tables hold page indices: entry ``j`` of a request is the page of its
token at position ``j * page_size``, taken from ``req_to_token`` at the
strided positions ``0, page_size, 2 * page_size, ...``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from reference_backend.attention_kernel import flash_attn_available, paged_attention
from reference_backend.forward_batch import (
    DraftInput,
    ForwardBatch,
    ForwardMode,
    VerifyInput,
)
from reference_backend.kv_cache import ReqToTokenPool
from reference_backend.layer import AttentionLayer


@dataclass
class FlashAttentionMetadata:
    """What every layer of one forward pass shares; computed once per pass."""

    #: Keys per request, including the new tokens.
    cache_seqlens_int32: torch.Tensor
    #: Cumulative query tokens per request, [batch_size + 1].
    cu_seqlens_q: torch.Tensor
    #: Cumulative keys per request, [batch_size + 1].
    cu_seqlens_k: torch.Tensor
    #: Page indices per request, [batch_size, pages].
    page_table: torch.Tensor
    max_seq_len_q: int = 1
    max_seq_len_k: int = 0


def _cumulative(lengths: torch.Tensor) -> torch.Tensor:
    """[0, l0, l0 + l1, ...] as int32."""
    return torch.nn.functional.pad(
        torch.cumsum(lengths, dim=0, dtype=torch.int32), (1, 0)
    )


class FlashAttentionBackend:
    """Paged attention for extend, decode, draft decode and target verify.

    Without speculative decoding one backend serves the model. With it, the
    target model has one backend and the draft model a
    :class:`FlashAttentionMultiStepBackend`, one backend per draft step.

    CUDA graphs cover decode, draft decode and target verify:
    ``init_cuda_graph_state`` allocates static buffers once,
    ``init_forward_metadata_capture_cuda_graph`` binds one batch size's
    metadata to views of them, and ``init_forward_metadata_replay_cuda_graph``
    refills those views before each replay.
    """

    def __init__(
        self,
        req_to_token_pool: ReqToTokenPool,
        page_size: int,
        topk: int = 0,
        speculative_num_steps: int = 0,
        step_id: int = 0,
        use_flash_attn: bool | None = None,
    ):
        if topk > 1:
            raise ValueError("topk must be 0 (no speculative decoding) or 1")
        self.req_to_token = req_to_token_pool.req_to_token
        self.device = self.req_to_token.device
        self.max_context_len = req_to_token_pool.max_context_len
        self.page_size = page_size
        self.topk = topk
        self.speculative_num_steps = speculative_num_steps
        self.step_id = step_id
        # None: use flash-attn wherever it is importable for the inputs.
        self.use_flash_attn = use_flash_attn
        self.forward_metadata: FlashAttentionMetadata | None = None
        self.decode_cuda_graph_metadata: dict[str, torch.Tensor] = {}
        self.target_verify_metadata: dict[str, torch.Tensor] = {}
        self.captured_decode_metadata: dict[int, FlashAttentionMetadata] = {}
        self.captured_target_verify_metadata: dict[int, FlashAttentionMetadata] = {}

    def init_forward_metadata(self, forward_batch: ForwardBatch) -> None:
        """Compute the metadata of one eager forward pass."""
        mode = forward_batch.forward_mode
        seq_lens = forward_batch.seq_lens
        batch_size = forward_batch.batch_size
        device = seq_lens.device
        max_committed_len = forward_batch.seq_lens_cpu.max().item()
        if mode.is_decode():
            # A draft step also attends to this and the earlier steps' drafts.
            num_drafts = 0 if forward_batch.spec_info is None else self.step_id + 1
            cache_seqlens = seq_lens + num_drafts
            max_seq_len_k = max_committed_len + num_drafts
            cu_seqlens_q = torch.arange(
                batch_size + 1, dtype=torch.int32, device=device
            )
            max_seq_len_q = 1
        elif mode.is_target_verify():
            draft_token_num = forward_batch.spec_info.draft_token_num
            cache_seqlens = seq_lens + draft_token_num
            max_seq_len_k = max_committed_len + draft_token_num
            cu_seqlens_q = torch.arange(
                0,
                batch_size * draft_token_num + 1,
                draft_token_num,
                dtype=torch.int32,
                device=device,
            )
            max_seq_len_q = draft_token_num
        else:
            # Extend: seq_lens already count the new tokens.
            cache_seqlens = seq_lens
            max_seq_len_k = max_committed_len
            cu_seqlens_q = _cumulative(forward_batch.extend_seq_lens)
            max_seq_len_q = max(forward_batch.extend_seq_lens_cpu)

        token_table = self.req_to_token[forward_batch.req_pool_indices, :max_seq_len_k]
        if mode.is_decode() and forward_batch.spec_info is not None:
            draft_cache_loc = forward_batch.spec_info.draft_cache_loc
            for idx, seq_len in enumerate(forward_batch.seq_lens_cpu.tolist()):
                token_table[idx, seq_len : seq_len + self.step_id + 1] = (
                    draft_cache_loc[idx, : self.step_id + 1]
                )
        strided_indices = torch.arange(
            0, max_seq_len_k, self.page_size, device=self.device
        )
        self.forward_metadata = FlashAttentionMetadata(
            cache_seqlens_int32=cache_seqlens.to(torch.int32),
            cu_seqlens_q=cu_seqlens_q,
            cu_seqlens_k=_cumulative(cache_seqlens),
            page_table=self._pages_of(token_table, strided_indices),
            max_seq_len_q=max_seq_len_q,
            max_seq_len_k=max_seq_len_k,
        )

    def forward(
        self,
        q: torch.Tensor,
        k: torch.Tensor | None,
        v: torch.Tensor | None,
        layer: AttentionLayer,
        forward_batch: ForwardBatch,
        save_kv_cache: bool = True,
    ) -> torch.Tensor:
        """Run the layer's attention in the batch's mode."""
        if forward_batch.forward_mode.is_decode():
            return self.forward_decode(q, k, v, layer, forward_batch, save_kv_cache)
        return self.forward_extend(q, k, v, layer, forward_batch, save_kv_cache)

    def forward_extend(
        self,
        q: torch.Tensor,
        k: torch.Tensor | None,
        v: torch.Tensor | None,
        layer: AttentionLayer,
        forward_batch: ForwardBatch,
        save_kv_cache: bool = True,
    ) -> torch.Tensor:
        """Attention for extend and target verify: many new tokens per request."""
        return self._attention(q, k, v, layer, forward_batch, save_kv_cache)

    def forward_decode(
        self,
        q: torch.Tensor,
        k: torch.Tensor | None,
        v: torch.Tensor | None,
        layer: AttentionLayer,
        forward_batch: ForwardBatch,
        save_kv_cache: bool = True,
    ) -> torch.Tensor:
        """Attention for decode and draft decode: one new token per request."""
        return self._attention(q, k, v, layer, forward_batch, save_kv_cache)

    def _attention(
        self,
        q: torch.Tensor,
        k: torch.Tensor | None,
        v: torch.Tensor | None,
        layer: AttentionLayer,
        forward_batch: ForwardBatch,
        save_kv_cache: bool,
    ) -> torch.Tensor:
        """Cache the new K/V, then attend over the cached pages: [T, Hq * D]."""
        kv_pool = forward_batch.token_to_kv_pool
        if k is not None and save_kv_cache:
            kv_pool.set_kv_buffer(layer.layer_id, forward_batch.out_cache_loc, k, v)
        metadata = self.forward_metadata
        k_cache, v_cache = kv_pool.get_kv_buffer(layer.layer_id)
        q = q.reshape(-1, layer.num_q_heads, layer.head_dim)
        use_flash_attn = self.use_flash_attn
        if use_flash_attn is None:
            use_flash_attn = flash_attn_available(q.device, q.dtype)
        out = paged_attention(
            q,
            k_cache,
            v_cache,
            metadata.page_table,
            metadata.cache_seqlens_int32,
            metadata.cu_seqlens_q,
            metadata.max_seq_len_q,
            self.page_size,
            layer.softmax_scale,
            causal=True,
            use_flash_attn=use_flash_attn,
        )
        return out.reshape(-1, layer.num_q_heads * layer.head_dim)

    def init_cuda_graph_state(self, max_bs: int) -> None:
        """Allocate the static buffers that captured graphs read.

        Capture binds views of these buffers and fills them before anything
        reads them; each replay refills them for its batch.
        """
        max_num_pages = (self.max_context_len + self.page_size - 1) // self.page_size
        self.decode_cuda_graph_metadata = {
            "page_table": torch.empty(
                max_bs, max_num_pages, dtype=torch.int32, device=self.device
            ),
            "page_table_draft_decode": torch.empty(
                max_bs, max_num_pages, dtype=torch.int32, device=self.device
            ),
            "strided_indices": torch.arange(
                0, self.max_context_len, self.page_size, device=self.device
            ),
            "cache_seqlens": torch.empty(max_bs, dtype=torch.int32, device=self.device),
            "cu_seqlens_q": torch.arange(
                0, max_bs + 1, dtype=torch.int32, device=self.device
            ),
            "cu_seqlens_k": torch.empty(
                max_bs + 1, dtype=torch.int32, device=self.device
            ),
        }
        self.target_verify_metadata = {
            "page_table": torch.empty(
                max_bs, max_num_pages, dtype=torch.int32, device=self.device
            ),
            "cache_seqlens": torch.empty(max_bs, dtype=torch.int32, device=self.device),
            "cu_seqlens_q": torch.empty(
                max_bs + 1, dtype=torch.int32, device=self.device
            ),
            "cu_seqlens_k": torch.empty(
                max_bs + 1, dtype=torch.int32, device=self.device
            ),
            "strided_indices": torch.arange(
                0, self.max_context_len, self.page_size, device=self.device
            ),
        }

    def init_forward_metadata_capture_cuda_graph(
        self,
        bs: int,
        req_pool_indices: torch.Tensor,
        seq_lens: torch.Tensor,
        forward_mode: ForwardMode,
        spec_info: DraftInput | VerifyInput | None,
    ) -> None:
        """Bind the metadata of batch size ``bs`` to the static buffers.

        The views are filled from the capture batch right away, so that
        neither capture nor its warmup reads a buffer before it is written.
        """
        if forward_mode.is_decode():
            buffers = self.decode_cuda_graph_metadata
            if spec_info is None:
                page_table = buffers["page_table"][:bs]
            else:
                page_table = buffers["page_table_draft_decode"][:bs]
            self.captured_decode_metadata[bs] = FlashAttentionMetadata(
                cache_seqlens_int32=buffers["cache_seqlens"][:bs],
                cu_seqlens_q=buffers["cu_seqlens_q"][: bs + 1],
                cu_seqlens_k=buffers["cu_seqlens_k"][: bs + 1],
                page_table=page_table,
            )
        elif forward_mode.is_target_verify():
            buffers = self.target_verify_metadata
            draft_token_num = spec_info.draft_token_num
            cu_seqlens_q = buffers["cu_seqlens_q"][: bs + 1]
            # Fixed for a batch size, so written once here and never on replay.
            cu_seqlens_q.copy_(
                torch.arange(
                    0,
                    bs * draft_token_num + 1,
                    draft_token_num,
                    dtype=torch.int32,
                    device=self.device,
                )
            )
            self.captured_target_verify_metadata[bs] = FlashAttentionMetadata(
                cache_seqlens_int32=buffers["cache_seqlens"][:bs],
                cu_seqlens_q=cu_seqlens_q,
                cu_seqlens_k=buffers["cu_seqlens_k"][: bs + 1],
                page_table=buffers["page_table"][:bs],
                max_seq_len_q=draft_token_num,
            )
        else:
            raise ValueError(f"no CUDA graph for {forward_mode.name}")
        self.init_forward_metadata_replay_cuda_graph(
            bs, req_pool_indices, seq_lens, forward_mode, spec_info, seq_lens.cpu()
        )

    def init_forward_metadata_replay_cuda_graph(
        self,
        bs: int,
        req_pool_indices: torch.Tensor,
        seq_lens: torch.Tensor,
        forward_mode: ForwardMode,
        spec_info: DraftInput | VerifyInput | None,
        seq_lens_cpu: torch.Tensor,
    ) -> None:
        """Refill the static metadata of batch size ``bs`` for a new batch.

        Inputs may be longer than ``bs`` (the graph runner's static inputs);
        only the first ``bs`` rows are used.
        """
        seq_lens = seq_lens[:bs]
        req_pool_indices = req_pool_indices[:bs]
        seq_lens_cpu = seq_lens_cpu[:bs]
        if forward_mode.is_decode():
            metadata = self.captured_decode_metadata[bs]
            if spec_info is None:
                self._refill_lengths_and_pages(
                    metadata,
                    req_pool_indices,
                    seq_lens,
                    seq_lens_cpu,
                    0,
                    self.decode_cuda_graph_metadata["strided_indices"],
                )
            else:
                # Draft decode: the committed prefix comes from req_to_token,
                # the draft tokens of steps 0..step_id from their own slots.
                max_len = seq_lens_cpu.max().item()
                metadata.max_seq_len_k = max_len + (self.step_id + 1)
                metadata.cache_seqlens_int32.copy_(seq_lens + (self.step_id + 1))
                metadata.cu_seqlens_k.copy_(_cumulative(metadata.cache_seqlens_int32))
                token_table = self.req_to_token[
                    req_pool_indices, : metadata.max_seq_len_k
                ]
                for idx, seq_len in enumerate(seq_lens_cpu.tolist()):
                    token_table[idx : idx + 1, seq_len : seq_len + self.step_id + 1] = (
                        spec_info.draft_cache_loc[idx : idx + 1, : self.step_id + 1]
                    )
                self._fill_page_table(
                    metadata.page_table,
                    token_table,
                    self.decode_cuda_graph_metadata["strided_indices"],
                )
        elif forward_mode.is_target_verify():
            metadata = self.captured_target_verify_metadata[bs]
            self._refill_lengths_and_pages(
                metadata,
                req_pool_indices,
                seq_lens,
                seq_lens_cpu,
                spec_info.draft_token_num,
                self.target_verify_metadata["strided_indices"],
            )
        else:
            raise ValueError(f"no CUDA graph for {forward_mode.name}")
        self.forward_metadata = metadata

    def _refill_lengths_and_pages(
        self,
        metadata: FlashAttentionMetadata,
        req_pool_indices: torch.Tensor,
        seq_lens: torch.Tensor,
        seq_lens_cpu: torch.Tensor,
        num_new_tokens: int,
        strided_indices: torch.Tensor,
    ) -> None:
        """Refill lengths and page table for requests whose tokens are all in
        req_to_token, ``num_new_tokens`` beyond ``seq_lens``."""
        metadata.max_seq_len_k = seq_lens_cpu.max().item() + num_new_tokens
        metadata.cache_seqlens_int32.copy_(seq_lens + num_new_tokens)
        metadata.cu_seqlens_k.copy_(_cumulative(metadata.cache_seqlens_int32))
        token_table = self.req_to_token[req_pool_indices, : metadata.max_seq_len_k]
        self._fill_page_table(metadata.page_table, token_table, strided_indices)

    def _fill_page_table(
        self,
        page_table: torch.Tensor,
        token_table: torch.Tensor,
        strided_indices: torch.Tensor,
    ) -> None:
        """Write the pages of ``token_table``'s positions into ``page_table``.

        Columns past the longest sequence keep whatever they held: the kernel
        masks every entry past a sequence's length before using it.
        """
        num_pages = (token_table.shape[1] + self.page_size - 1) // self.page_size
        page_table[:, :num_pages].copy_(
            self._pages_of(token_table, strided_indices[:num_pages])
        )

    def _pages_of(
        self, token_table: torch.Tensor, strided_indices: torch.Tensor
    ) -> torch.Tensor:
        """The page of each strided position of ``token_table``."""
        if self.page_size == 1:
            return token_table  # every token is a page of its own
        return token_table[:, strided_indices] // self.page_size


class FlashAttentionMultiStepBackend:
    """The draft model's backend: one :class:`FlashAttentionBackend` per draft step."""

    def __init__(
        self,
        req_to_token_pool: ReqToTokenPool,
        page_size: int,
        topk: int,
        speculative_num_steps: int,
        use_flash_attn: bool | None = None,
    ):
        self.topk = topk
        self.speculative_num_steps = speculative_num_steps
        self.attn_backends = [
            FlashAttentionBackend(
                req_to_token_pool,
                page_size,
                topk=topk,
                speculative_num_steps=speculative_num_steps,
                step_id=step_id,
                use_flash_attn=use_flash_attn,
            )
            for step_id in range(speculative_num_steps)
        ]

    def init_forward_metadata(self, forward_batch: ForwardBatch) -> None:
        """Eager metadata for every draft step of this batch."""
        for backend in self.attn_backends:
            backend.init_forward_metadata(forward_batch)

    def init_cuda_graph_state(self, max_bs: int) -> None:
        for backend in self.attn_backends:
            backend.init_cuda_graph_state(max_bs)

    def init_forward_metadata_capture_cuda_graph(
        self, forward_batch: ForwardBatch
    ) -> None:
        """Capture-time metadata of every draft step for this batch size."""
        for backend in self.attn_backends:
            backend.init_forward_metadata_capture_cuda_graph(
                forward_batch.batch_size,
                forward_batch.req_pool_indices,
                forward_batch.seq_lens,
                ForwardMode.DECODE,
                forward_batch.spec_info,
            )

    def init_forward_metadata_replay_cuda_graph(
        self, forward_batch: ForwardBatch, bs: int
    ) -> None:
        """Replay-time metadata of every draft step, for the graph of size ``bs``."""
        for backend in self.attn_backends:
            backend.init_forward_metadata_replay_cuda_graph(
                bs,
                forward_batch.req_pool_indices,
                forward_batch.seq_lens,
                ForwardMode.DECODE,
                forward_batch.spec_info,
                forward_batch.seq_lens_cpu,
            )
