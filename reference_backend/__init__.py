"""A FlashAttention-style attention backend over a paged KV cache, in plain torch.

``flashattention_backend`` is the shipped, optimized backend; its unoptimized
twin is ``tests/fixtures/flashattention_backend_unoptimized.py``, which
``attnlint check --fix --unsafe-fixes`` turns into it.
"""

from reference_backend.flashattention_backend import (
    FlashAttentionBackend,
    FlashAttentionMetadata,
    FlashAttentionMultiStepBackend,
)
from reference_backend.forward_batch import (
    DraftInput,
    ForwardBatch,
    ForwardMode,
    VerifyInput,
)
from reference_backend.graph_runner import GraphRunner, forward_eager
from reference_backend.kv_cache import PageAllocator, ReqToTokenPool, TokenToKVPool
from reference_backend.layer import AttentionLayer

__all__ = [
    "AttentionLayer",
    "DraftInput",
    "FlashAttentionBackend",
    "FlashAttentionMetadata",
    "FlashAttentionMultiStepBackend",
    "ForwardBatch",
    "ForwardMode",
    "GraphRunner",
    "PageAllocator",
    "ReqToTokenPool",
    "TokenToKVPool",
    "VerifyInput",
    "forward_eager",
]
