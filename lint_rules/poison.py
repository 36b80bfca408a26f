"""Poison uninitialized memory so that reading ``torch.empty`` output shows.

Under :func:`poisoned_memory`, PyTorch fills the memory of ``torch.empty`` and
its family with NaN (floating point and complex) or the integer maximum, using
its own ``torch.utils.deterministic.fill_uninitialized_memory`` switch, which
acts only while deterministic algorithms are on. Deterministic algorithms are
switched on in warn-only mode, so operations without a deterministic
implementation warn instead of failing. Everything is restored on exit.

torch is imported only when poisoning is switched on.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

#: Environment variable that switches poisoning on for every pytest run that
#: loads the attnlint plugin (``attnlint verify`` sets it for the test command).
POISON_ENV = "ATTNLINT_POISON"


def poison_requested_by_env(environ: dict[str, str] | None = None) -> bool:
    value = (os.environ if environ is None else environ).get(POISON_ENV, "")
    return value.strip().lower() in {"1", "true", "yes", "on"}


@contextlib.contextmanager
def poisoned_memory() -> Iterator[None]:
    """Switch on uninitialized-memory poisoning for the duration of the block."""
    import torch
    import torch.utils.deterministic

    was_deterministic = torch.are_deterministic_algorithms_enabled()
    was_warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    was_filling = torch.utils.deterministic.fill_uninitialized_memory
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        yield
    finally:
        torch.utils.deterministic.fill_uninitialized_memory = was_filling
        torch.use_deterministic_algorithms(was_deterministic, warn_only=was_warn_only)
