"""Backend tests run torch single-threaded.

Their tensors are tiny: intra-op threads only add synchronization, and on a
busy 2-core machine OpenMP waiting on descheduled threads made the suite about
four times slower.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True, scope="package")
def single_threaded_torch() -> Iterator[None]:
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
