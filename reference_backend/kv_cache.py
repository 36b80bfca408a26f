"""A paged KV cache: request-to-token table, per-layer K/V pools, page allocator.

Token slot ``s`` lives in page ``s // page_size``. A request's token at
position ``p`` is at slot ``req_to_token[req, p]``; with pages, consecutive
positions share a page, so page ``p // page_size`` of a request is
``req_to_token[req, p - p % page_size] // page_size``. Slot 0 (page 0) is a
padding slot that padded batch rows read and write.
"""

from __future__ import annotations

import torch


class ReqToTokenPool:
    """Maps (request slot, position) to a KV slot; row 0 is for padding."""

    def __init__(self, size: int, max_context_len: int, device: torch.device | str):
        # Zero-filled: padded rows and stale positions must still name a real slot.
        self.req_to_token = torch.zeros(
            (size, max_context_len), dtype=torch.int32, device=device
        )

    @property
    def size(self) -> int:
        return self.req_to_token.shape[0]

    @property
    def max_context_len(self) -> int:
        return self.req_to_token.shape[1]


class TokenToKVPool:
    """Per-layer K and V buffers of shape [num_pages * page_size, heads, head_dim]."""

    def __init__(
        self,
        num_pages: int,
        page_size: int,
        num_layers: int,
        num_kv_heads: int,
        head_dim: int,
        dtype: torch.dtype,
        device: torch.device | str,
    ):
        self.page_size = page_size
        self.num_slots = num_pages * page_size
        shape = (self.num_slots, num_kv_heads, head_dim)
        # Zero-filled so that the padding slot holds finite values.
        self.k_buffer = [
            torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)
        ]
        self.v_buffer = [
            torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)
        ]

    def get_kv_buffer(self, layer_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.k_buffer[layer_id], self.v_buffer[layer_id]

    def set_kv_buffer(
        self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> None:
        """Write the new tokens' K and V at slots ``loc``."""
        self.k_buffer[layer_id][loc] = k.to(self.k_buffer[layer_id].dtype)
        self.v_buffer[layer_id][loc] = v.to(self.v_buffer[layer_id].dtype)


class PageAllocator:
    """Hands out free pages in a shuffled order; page 0 is never handed out."""

    def __init__(self, num_pages: int, generator: torch.Generator | None = None):
        self.num_pages = num_pages
        self.generator = generator
        self.reset()

    def reset(self) -> None:
        """Free every page."""
        order = torch.randperm(self.num_pages - 1, generator=self.generator) + 1
        self._free = order.tolist()

    def alloc(self, count: int) -> list[int]:
        if count > len(self._free):
            raise RuntimeError(f"out of KV pages: need {count}, have {len(self._free)}")
        pages, self._free = self._free[:count], self._free[count:]
        return pages
