"""poisoned_memory: every allocation path that attnlint's ``empty`` fixes reach.

Each test reads memory that nothing wrote and asserts that it sees the poison
(NaN, the integer maximum, True): a path that returns whatever the allocator
had (often zeros) lets a test pass on a fix that reads garbage in production.
"""

from __future__ import annotations

import warnings

import pytest

from lint_rules.poison import poisoned_memory

torch = pytest.importorskip("torch")
deterministic = pytest.importorskip("torch.utils.deterministic")


def poisoned(t) -> bool:
    """Whether every element of ``t`` holds the poison of its dtype."""
    t = t.detach()
    if t.is_floating_point() or t.is_complex():  # complex: NaN + 0j
        return bool(t.isnan().all())
    if t.dtype == torch.bool:
        return bool(t.all())
    return bool((t == torch.iinfo(t.dtype).max).all())


@pytest.fixture(autouse=True)
def quiet_outer_state():
    """Run each test unpoisoned outside its block, warnings of warn-only mode off."""
    was = (
        torch.are_deterministic_algorithms_enabled(),
        torch.is_deterministic_algorithms_warn_only_enabled(),
        deterministic.fill_uninitialized_memory,
    )
    torch.use_deterministic_algorithms(False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
    torch.use_deterministic_algorithms(was[0], warn_only=was[1])
    deterministic.fill_uninitialized_memory = was[2]


EAGER_DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint16,
    torch.uint32,
    torch.uint64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.complex128,
    torch.float8_e4m3fn,
    torch.float8_e5m2,
]


@pytest.mark.parametrize("dtype", EAGER_DTYPES, ids=str)
def test_eager_family_is_poisoned_for_every_dtype(dtype) -> None:
    like = torch.ones(16, dtype=dtype)
    with poisoned_memory():
        made = [
            torch.empty(16, dtype=dtype),
            torch.empty_like(like),
            like.new_empty(16),
            torch.empty_strided((4, 4), (8, 1), dtype=dtype),
            torch.ops.aten.empty.memory_format([16], dtype=dtype),
            torch.empty(16, dtype=dtype, out=torch.ones(4, dtype=dtype)),
        ]
    for t in made:
        assert poisoned(t), (dtype, t)


@torch.library.custom_op("attnlint_poison_test::write_head", mutates_args=("out",))
def write_head(x: torch.Tensor, out: torch.Tensor) -> None:
    """An opaque kernel that writes only the first ``x.numel()`` elements."""
    out[: x.numel()].copy_(x)


@write_head.register_fake
def _write_head_fake(x: torch.Tensor, out: torch.Tensor) -> None:
    return None


def buffer_for_opaque_kernel(x):
    # The vLLM pattern: an output buffer made inside the compiled graph and
    # handed to a custom op that inductor cannot see into. Inductor allocates
    # it with its own empty_strided_cpu, not through aten.empty.
    out = torch.empty(64, dtype=x.dtype)
    write_head(x, out)
    return out


def bare_empty_output(n: int):
    return torch.empty(n), torch.empty(n, dtype=torch.int32)


def test_inductor_buffer_passed_to_opaque_kernel_is_poisoned() -> None:
    torch._dynamo.reset()
    compiled = torch.compile(
        buffer_for_opaque_kernel, backend="inductor", fullgraph=True
    )
    with poisoned_memory():
        out = compiled(torch.ones(16))
    assert (out[:16] == 1).all()
    assert poisoned(out[16:]), out[16:20]


def test_inductor_empty_returned_from_graph_is_poisoned() -> None:
    torch._dynamo.reset()
    compiled = torch.compile(bare_empty_output, backend="inductor", fullgraph=True)
    with poisoned_memory():
        floats, ints = compiled(64)
    assert poisoned(floats) and poisoned(ints)


def test_wrapped_allocators_are_restored_after_nested_blocks() -> None:
    import multiprocessing.process

    guards = torch._C._dynamo.guards
    process = multiprocessing.process.BaseProcess

    def current():
        return guards._empty_strided_cpu, guards._empty_strided_cuda, process.start

    before = current()
    with poisoned_memory():
        inside = current()
        assert all(getattr(f, "_attnlint_poisons", False) for f in inside)
        with poisoned_memory():
            assert current() == inside
        assert current() == inside
    assert current() == before


class UnwrittenDataset(torch.utils.data.Dataset):
    """Items that a DataLoader worker allocates and never writes."""

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int):
        return torch.empty(32), torch.empty(32, dtype=torch.int64)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_dataloader_workers_are_poisoned(method: str) -> None:
    # A forked worker inherits the switches; a spawned one (the default on
    # macOS, and forkserver on Linux from Python 3.14) starts with torch's.
    with poisoned_memory():
        loader = torch.utils.data.DataLoader(
            UnwrittenDataset(),
            batch_size=None,
            num_workers=1,
            multiprocessing_context=method,
        )
        items = [t for pair in loader for t in pair]
    assert len(items) == 4
    assert all(poisoned(t) for t in items), items
