"""Paged attention over a KV cache: the plain-torch reference and a flash-attn path.

Both take the same arguments as sgl-kernel's ``flash_attn_with_kvcache``:
queries packed varlen by ``cu_seqlens_q``, a page table of page indices per
request, and ``cache_seqlens`` keys per request, of which the last
``q_len`` are the queries' own tokens (causal among them).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

try:  # FA3 from sgl-kernel, on GPUs it was built for.
    from sgl_kernel.flash_attn import flash_attn_with_kvcache as _fa3_with_kvcache
except ImportError:  # pragma: no cover - depends on the machine
    _fa3_with_kvcache: Callable[..., torch.Tensor] | None = None

_FLASH_DTYPES = (torch.float16, torch.bfloat16)


def flash_attn_available(device: torch.device, dtype: torch.dtype) -> bool:
    """Whether the flash-attn kernel can serve this device and dtype."""
    return (
        _fa3_with_kvcache is not None
        and device.type == "cuda"
        and dtype in _FLASH_DTYPES
    )


def torch_paged_attention(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    page_table: torch.Tensor,
    cache_seqlens: torch.Tensor,
    cu_seqlens_q: torch.Tensor,
    max_seqlen_q: int,
    page_size: int,
    softmax_scale: float,
    causal: bool = True,
) -> torch.Tensor:
    """Attention of packed queries [T, Hq, D] over paged K/V [slots, Hkv, D].

    Gathers every page the page table names, masks keys at positions
    ``>= cache_seqlens`` (and after each query, when causal) and returns
    [T, Hq, D]. Shapes depend only on the argument shapes and ``max_seqlen_q``,
    never on tensor values, so the same call can be captured in a CUDA graph.
    """
    num_tokens, num_q_heads, head_dim = q.shape
    num_kv_heads = k_cache.shape[1]
    group = num_q_heads // num_kv_heads
    batch_size, num_pages = page_table.shape
    device = q.device
    seqlens = cache_seqlens.long()

    # Keys: page entries past a sequence's end may never have been written, so
    # they are replaced by the padding page before they become indices.
    page_start = torch.arange(num_pages, device=device) * page_size
    page_used = page_start[None, :] < seqlens[:, None]
    pages = torch.where(page_used, page_table.long(), 0)
    in_page = torch.arange(page_size, device=device)
    slots = (pages[:, :, None] * page_size + in_page).reshape(batch_size, -1)
    key_pos = torch.arange(num_pages * page_size, device=device)
    key_valid = key_pos[None, :] < seqlens[:, None]
    # Masked keys get zero values too: softmax gives them weight 0, but 0 * NaN is NaN.
    kv_valid = key_valid[:, :, None, None]
    k = torch.where(kv_valid, k_cache[slots], 0).float()
    v = torch.where(kv_valid, v_cache[slots], 0).float()

    # Queries, padded to [batch, max_seqlen_q]: row (b, i) is token cu_seqlens_q[b] + i.
    cu_q = cu_seqlens_q.long()
    q_lens = cu_q[1:] - cu_q[:-1]
    q_offset = torch.arange(max_seqlen_q, device=device)
    q_valid = q_offset[None, :] < q_lens[:, None]
    src = torch.where(q_valid, cu_q[:-1, None] + q_offset, 0).clamp_(max=num_tokens - 1)
    q_pad = q[src].float().view(batch_size, max_seqlen_q, num_kv_heads, group, head_dim)

    mask = key_valid[:, None, :] & q_valid[:, :, None]
    if causal:
        q_pos = (seqlens - q_lens)[:, None] + q_offset
        mask = mask & (key_pos[None, None, :] <= q_pos[:, :, None])
    # Padded query rows see no key; letting them see all keeps softmax finite.
    mask = mask | ~mask.any(dim=-1, keepdim=True)

    scores = torch.einsum("bqhgd,bkhd->bhgqk", q_pad, k) * softmax_scale
    scores = scores.masked_fill(~mask[:, None, None], float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhgqk,bkhd->bqhgd", probs, v)
    out = out.reshape(batch_size * max_seqlen_q, num_q_heads, head_dim)

    # Back to packed tokens: token t is row (b, t - cu_seqlens_q[b]).
    token = torch.arange(num_tokens, device=device)
    token_req = torch.searchsorted(cu_q[1:], token, right=True)
    return out[token_req * max_seqlen_q + token - cu_q[token_req]].to(q.dtype)


def paged_attention(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    page_table: torch.Tensor,
    cache_seqlens: torch.Tensor,
    cu_seqlens_q: torch.Tensor,
    max_seqlen_q: int,
    page_size: int,
    softmax_scale: float,
    causal: bool = True,
    use_flash_attn: bool = False,
) -> torch.Tensor:
    """Dispatch to flash-attn when asked for and available, else the torch kernel."""
    if use_flash_attn and flash_attn_available(q.device, q.dtype):
        num_kv_heads, head_dim = k_cache.shape[1:]
        return _fa3_with_kvcache(
            q=q,
            k_cache=k_cache.view(-1, page_size, num_kv_heads, head_dim),
            v_cache=v_cache.view(-1, page_size, num_kv_heads, head_dim),
            page_table=page_table,
            cache_seqlens=cache_seqlens,
            cu_seqlens_q=cu_seqlens_q,
            max_seqlen_q=max_seqlen_q,
            softmax_scale=softmax_scale,
            causal=causal,
        )
    return torch_paged_attention(
        q,
        k_cache,
        v_cache,
        page_table,
        cache_seqlens,
        cu_seqlens_q,
        max_seqlen_q,
        page_size,
        softmax_scale,
        causal,
    )
