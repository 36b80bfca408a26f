"""What one forward pass asks of the attention backend: its mode and its batch."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import torch

from reference_backend.kv_cache import ReqToTokenPool, TokenToKVPool


class ForwardMode(enum.IntEnum):
    """How the new tokens of a batch relate to the tokens already cached."""

    #: Prefill, possibly after a cached prefix: many new tokens per request.
    EXTEND = enum.auto()
    #: One new token per request (a draft step when the batch has a DraftInput).
    DECODE = enum.auto()
    #: The target model scores ``draft_token_num`` draft tokens per request.
    TARGET_VERIFY = enum.auto()
    #: The draft model extends over the accepted tokens.
    DRAFT_EXTEND = enum.auto()

    def is_decode(self) -> bool:
        return self == ForwardMode.DECODE

    def is_target_verify(self) -> bool:
        return self == ForwardMode.TARGET_VERIFY

    def is_extend_or_draft_extend(self) -> bool:
        return self in (ForwardMode.EXTEND, ForwardMode.DRAFT_EXTEND)

    def is_cuda_graph(self) -> bool:
        """Whether batches in this mode have fixed shapes per batch size."""
        return self in (ForwardMode.DECODE, ForwardMode.TARGET_VERIFY)


@dataclass
class DraftInput:
    """Speculative draft decode: where each draft step's token is cached.

    ``draft_cache_loc[b, i]`` is the KV slot of request ``b``'s draft token of
    step ``i``, at sequence position ``seq_lens[b] + i``. These slots are not
    in ``req_to_token``; the backend adds them to its page table.
    """

    draft_cache_loc: torch.Tensor
    topk: int = 1


@dataclass
class VerifyInput:
    """Target verify: every request carries ``draft_token_num`` draft tokens."""

    draft_token_num: int


@dataclass
class ForwardBatch:
    """One batch of requests, laid out request-major.

    ``seq_lens`` counts the tokens of each request that are committed to
    ``req_to_token``: for decode and extend that includes the new tokens, for
    draft decode and target verify it excludes the draft tokens.
    """

    forward_mode: ForwardMode
    batch_size: int
    req_pool_indices: torch.Tensor
    seq_lens: torch.Tensor
    seq_lens_cpu: torch.Tensor
    #: KV slots the new tokens are written to (one draft step's slots in draft decode).
    out_cache_loc: torch.Tensor
    req_to_token_pool: ReqToTokenPool
    token_to_kv_pool: TokenToKVPool
    extend_seq_lens: torch.Tensor | None = None
    extend_seq_lens_cpu: list[int] | None = None
    extend_prefix_lens_cpu: list[int] | None = None
    spec_info: DraftInput | VerifyInput | None = None
