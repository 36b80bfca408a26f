"""Poison uninitialized memory so that reading ``torch.empty`` output shows.

Under :func:`poisoned_memory`, PyTorch fills the memory of ``torch.empty`` and
its family with NaN (floating point and complex) or the integer maximum, using
its own ``torch.utils.deterministic.fill_uninitialized_memory`` switch, which
acts only while deterministic algorithms are on. Deterministic algorithms are
switched on in warn-only mode, so operations without a deterministic
implementation warn instead of failing. Everything is restored on exit.

Code compiled by TorchInductor does not allocate through ``aten.empty``: its
generated wrapper calls ``torch._C._dynamo.guards._empty_strided_<device>``,
which PyTorch does not fill. Inductor reads an uninitialized buffer as the
poison within its own kernels, but a buffer it hands on unwritten, to an opaque
kernel (a custom op such as vLLM's attention with an ``output`` argument) or as
a graph output, would keep the allocator's bytes. So those allocators are
wrapped too, for the block, to fill what they return the way eager does.

A process started by fork inherits the switches; one started by spawn or
forkserver (a DataLoader worker on macOS, or on Linux from Python 3.14) starts
with torch's defaults. So, for the block, ``multiprocessing`` processes started
with a target (DataLoader workers, ``torch.multiprocessing.spawn``, pools) run
it poisoned, when torch is loaded in the child by the time the target runs.

torch is imported only when poisoning is switched on.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Iterator

#: Environment variable that switches poisoning on for every pytest run that
#: loads the attnlint plugin (``attnlint verify`` sets it for the test command).
POISON_ENV = "ATTNLINT_POISON"


def poison_requested_by_env(environ: dict[str, str] | None = None) -> bool:
    value = (os.environ if environ is None else environ).get(POISON_ENV, "")
    return value.strip().lower() in {"1", "true", "yes", "on"}


def poisoning_is_on() -> bool:
    """Whether ``torch.empty`` fills now (both of PyTorch's switches are on)."""
    import torch
    import torch.utils.deterministic

    return bool(
        torch.are_deterministic_algorithms_enabled()
        and torch.utils.deterministic.fill_uninitialized_memory
    )


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
        with _poisoned_inductor_allocators(torch), _poisoned_child_processes():
            yield
    finally:
        torch.utils.deterministic.fill_uninitialized_memory = was_filling
        torch.use_deterministic_algorithms(was_deterministic, warn_only=was_warn_only)


#: The allocators of inductor's generated code (``torch._C._dynamo.guards``).
_INDUCTOR_ALLOCATORS = (
    "_empty_strided_cpu",
    "_empty_strided_cpu_pinned",
    "_empty_strided_cuda",
    "_empty_strided_xpu",
    "_empty_strided_mtia",
)


@contextlib.contextmanager
def _poisoned_inductor_allocators(torch) -> Iterator[None]:
    guards = getattr(getattr(torch._C, "_dynamo", None), "guards", None)
    found = {
        name: getattr(guards, name)
        for name in _INDUCTOR_ALLOCATORS
        if guards is not None and hasattr(guards, name)
    }
    for name, allocator in found.items():
        if not getattr(allocator, "_attnlint_poisons", False):
            setattr(guards, name, _poisoning(torch, allocator))
    try:
        yield
    finally:
        for name, allocator in found.items():
            setattr(guards, name, allocator)


def _poisoning(torch, allocator):
    """``allocator``, filling what it returns while poisoning is on.

    Generated code binds the allocator once, when its module loads, and may
    outlive the block: the wrapper asks at each call whether poisoning is on.
    """

    def allocate(*args, **kwargs):
        tensor = allocator(*args, **kwargs)
        if (
            torch.utils.deterministic.fill_uninitialized_memory
            and torch.are_deterministic_algorithms_enabled()
        ):
            _fill_with_poison(torch, tensor)
        return tensor

    allocate._attnlint_poisons = True
    allocate.__wrapped__ = allocator
    return allocate


def _fill_with_poison(torch, tensor) -> None:
    """Fill ``tensor``'s whole storage as eager ``torch.empty`` does."""
    dtype = tensor.dtype
    if dtype.is_floating_point or dtype.is_complex:
        value = float("nan")
    elif dtype == torch.bool:
        value = True
    else:
        try:
            value = torch.iinfo(dtype).max
        except TypeError:  # quantized and bit types: eager leaves them too
            return
    storage = tensor.untyped_storage()
    if storage.nbytes() == 0:
        return
    flat = torch.empty(0, dtype=dtype, device=tensor.device)
    flat.set_(storage, 0, (storage.nbytes() // tensor.element_size(),))
    flat.fill_(value)


@contextlib.contextmanager
def _poisoned_child_processes() -> Iterator[None]:
    import multiprocessing.process

    process = multiprocessing.process.BaseProcess
    start = process.start
    if not getattr(start, "_attnlint_poisons", False):
        process.start = _starting_poisoned(start)
    try:
        yield
    finally:
        process.start = start


def _starting_poisoned(start):
    """``BaseProcess.start``, running the process's target poisoned."""

    @functools.wraps(start)
    def start_poisoned(self) -> None:
        target = getattr(self, "_target", None)
        if target is not None and not (
            isinstance(target, functools.partial) and target.func is _run_poisoned
        ):
            # Pickled by reference for spawn: lint_rules.poison and the target.
            self._target = functools.partial(_run_poisoned, target)
        return start(self)

    start_poisoned._attnlint_poisons = True
    return start_poisoned


def _run_poisoned(target, *args, **kwargs):
    """In the child: run ``target`` poisoned, if it uses torch at all."""
    if "torch" not in sys.modules:
        return target(*args, **kwargs)
    with poisoned_memory():
        return target(*args, **kwargs)
