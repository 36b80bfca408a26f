"""Unoptimized vs shipped reference backend, side by side, at a realistic size.

Measures, for each variant (runs alternate between them):

- ``init_cuda_graph_state`` time: the static buffers for max batch 160 and a
  131072-token context (page size 1), zero-filled vs left uninitialized;
- per-replay metadata time of a draft-decode step
  (``init_forward_metadata_replay_cuda_graph`` at batch size 160);
- host syncs per draft-decode replay: ``aten::_local_scalar_dense`` events
  (what ``.item()`` runs) under ``torch.profiler``.

CPU always, CUDA where present. Prints a table of medians and ratios
(unoptimized / shipped). Not a timed test: run it by hand::

    python benchmarks/backend_bench.py [--repeats 9] [--replays 60] [--threads N]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

import torch
from torch.profiler import ProfilerActivity, profile

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reference_backend import flashattention_backend as shipped_module  # noqa: E402
from reference_backend.forward_batch import DraftInput, ForwardMode  # noqa: E402
from reference_backend.kv_cache import ReqToTokenPool  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "flashattention_backend_unoptimized.py"
HOST_SYNC_EVENT = "aten::_local_scalar_dense"


def load_unoptimized() -> ModuleType:
    name = "flashattention_backend_unoptimized"
    spec = importlib.util.spec_from_file_location(name, FIXTURE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_init(
    module: ModuleType, pool: ReqToTokenPool, args: argparse.Namespace
) -> float:
    """Seconds for one ``init_cuda_graph_state``; the buffers are freed after."""
    backend = module.FlashAttentionBackend(pool, args.page_size)
    synchronize(pool.req_to_token.device)
    start = time.perf_counter()
    backend.init_cuda_graph_state(args.max_bs)
    synchronize(pool.req_to_token.device)
    elapsed = time.perf_counter() - start
    del backend
    gc.collect()
    return elapsed


def draft_backend(module: ModuleType, pool: ReqToTokenPool, args, spec_info):
    """A draft-step backend with its batch-size-``max_bs`` metadata captured."""
    device = pool.req_to_token.device
    backend = module.FlashAttentionBackend(
        pool,
        args.page_size,
        topk=1,
        speculative_num_steps=args.num_steps,
        step_id=args.step_id,
    )
    backend.init_cuda_graph_state(args.max_bs)
    backend.init_forward_metadata_capture_cuda_graph(
        args.max_bs,
        torch.arange(1, args.max_bs + 1, device=device),
        torch.ones(args.max_bs, dtype=torch.int64, device=device),
        ForwardMode.DECODE,
        spec_info,
    )
    return backend


def replay(backend, batch, spec_info) -> None:
    req_pool_indices, seq_lens, seq_lens_cpu = batch
    backend.init_forward_metadata_replay_cuda_graph(
        seq_lens.shape[0],
        req_pool_indices,
        seq_lens,
        ForwardMode.DECODE,
        spec_info,
        seq_lens_cpu,
    )


def count_host_syncs(backend, batch, spec_info) -> int:
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        replay(backend, batch, spec_info)
    return sum(event.name == HOST_SYNC_EVENT for event in prof.events())


def bench_device(device: torch.device, args: argparse.Namespace) -> dict[str, dict]:
    variants = {"unoptimized": load_unoptimized(), "shipped": shipped_module}
    generator = torch.Generator().manual_seed(0)
    pool = ReqToTokenPool(args.max_bs + 1, args.context_len, device)
    # Each request owns a distinct run of slots: realistic, and all in range.
    slots = torch.arange(args.context_len, dtype=torch.int32, device=device)
    pool.req_to_token.copy_(slots.expand_as(pool.req_to_token))

    results: dict[str, dict] = {name: {"init": [], "replay": []} for name in variants}
    names = list(variants)
    for name in names:  # warm up allocator and code paths, untimed
        time_init(variants[name], pool, args)
    for repeat in range(args.repeats):
        for name in names if repeat % 2 == 0 else reversed(names):
            results[name]["init"].append(time_init(variants[name], pool, args))

    draft_cache_loc = torch.randint(
        1, args.context_len, (args.max_bs, args.num_steps), generator=generator
    ).to(device)
    spec_info = DraftInput(draft_cache_loc=draft_cache_loc)
    backends = {
        name: draft_backend(module, pool, args, spec_info)
        for name, module in variants.items()
    }
    req_pool_indices = torch.arange(1, args.max_bs + 1, device=device)
    batches = []
    for _ in range(args.replays):
        seq_lens_cpu = torch.randint(
            args.min_seq_len, args.max_seq_len + 1, (args.max_bs,), generator=generator
        )
        batches.append((req_pool_indices, seq_lens_cpu.to(device), seq_lens_cpu))
    for name in names:
        replay(backends[name], batches[0], spec_info)
    for index, batch in enumerate(batches):
        for name in names if index % 2 == 0 else reversed(names):
            synchronize(device)
            start = time.perf_counter()
            replay(backends[name], batch, spec_info)
            synchronize(device)
            results[name]["replay"].append(time.perf_counter() - start)
    for name in names:
        results[name]["syncs"] = count_host_syncs(
            backends[name], batches[-1], spec_info
        )
    return results


def print_table(device: torch.device, results: dict[str, dict], args) -> None:
    unopt, shipped = results["unoptimized"], results["shipped"]
    rows = [
        (
            f"init_cuda_graph_state (ms, median of {args.repeats})",
            statistics.median(unopt["init"]) * 1e3,
            statistics.median(shipped["init"]) * 1e3,
        ),
        (
            f"draft-decode replay metadata (ms, median of {args.replays})",
            statistics.median(unopt["replay"]) * 1e3,
            statistics.median(shipped["replay"]) * 1e3,
        ),
        (
            "host syncs per draft-decode replay",
            unopt["syncs"],
            shipped["syncs"],
        ),
    ]
    print(
        f"\ndevice {device}, max_bs {args.max_bs}, context {args.context_len}, "
        f"page size {args.page_size}, draft step {args.step_id} of {args.num_steps}, "
        f"seq lens {args.min_seq_len}..{args.max_seq_len}, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads"
    )
    header = f"{'':<52} {'unoptimized':>12} {'shipped':>12} {'ratio':>8}"
    print(header)
    print("-" * len(header))
    for label, a, b in rows:
        ratio = f"{a / b:8.2f}" if b else f"{'inf':>8}"
        if isinstance(a, int):
            print(f"{label:<52} {a:>12d} {b:>12d} {ratio}")
        else:
            print(f"{label:<52} {a:>12.3f} {b:>12.3f} {ratio}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-bs", type=int, default=160)
    parser.add_argument("--context-len", type=int, default=131072)
    parser.add_argument("--page-size", type=int, default=1)
    parser.add_argument("--num-steps", type=int, default=3)
    parser.add_argument("--step-id", type=int, default=0)
    parser.add_argument("--min-seq-len", type=int, default=256)
    parser.add_argument("--max-seq-len", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--replays", type=int, default=60)
    parser.add_argument("--device", choices=["all", "cpu", "cuda"], default="all")
    parser.add_argument(
        "--threads", type=int, default=0, help="torch intra-op threads (0: default)"
    )
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)

    devices = []
    if args.device in ("all", "cpu"):
        devices.append(torch.device("cpu"))
    if args.device in ("all", "cuda") and torch.cuda.is_available():
        devices.append(torch.device("cuda"))
    elif args.device == "cuda":
        print("no CUDA device", file=sys.stderr)
        return 2
    for device in devices:
        print_table(device, bench_device(device, args), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
