"""The attention layer shape the backend is called with."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class AttentionLayer:
    """One attention layer: its KV pool index and its (grouped-query) head shape."""

    layer_id: int
    num_q_heads: int
    num_kv_heads: int
    head_dim: int
    scaling: float | None = None

    def __post_init__(self) -> None:
        if self.num_q_heads % self.num_kv_heads:
            raise ValueError("num_q_heads must be a multiple of num_kv_heads")

    @property
    def softmax_scale(self) -> float:
        return (
            self.scaling if self.scaling is not None else 1.0 / math.sqrt(self.head_dim)
        )
