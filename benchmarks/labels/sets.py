"""The file sets the labels cover, and how they were chosen.

    python -m benchmarks.labels.sets [--verify]

``dev``: the attention backends of sglang 0.5.23 and vllm 0.33.0 that the
rules may be tuned on. Chosen in two steps:

1. Every file of the ``backends`` corpus (``sglang/srt/layers/attention/``,
   ``vllm/v1/attention/``) that defines SGLang's ``AttentionBackend`` or vLLM's
   ``AttentionMetadataBuilder``, ``AttentionImpl`` or ``MLAAttentionImpl``, or
   a class deriving from one, directly or through other classes of the same
   package (base names resolved package-wide): 80 files (``--verify``
   recomputes them from the ``packages`` corpus and checks that this module
   lists each one).
2. Of those, the general-purpose softmax-attention backends for GPUs (MHA and
   MLA, any model): ``DEV_FILES``. The others are listed in ``DEV_EXCLUDED``
   with the reason: linear or state-space attention, sparse attention or
   indexers written for one model family, CPU/XPU targets, and wrappers that
   only dispatch to other backends.

Plus one file outside the ``backends`` corpus: vLLM's MLA base classes
(``vllm/model_executor/layers/attention/mla_attention.py``), whose
``MLACommonMetadataBuilder.build`` and ``MLACommonImpl`` are the per-step code
every vLLM MLA backend of the set inherits. Paths are relative to the
``packages`` corpus, which holds every file of both packages.

``heldout``: flashinfer-python 0.7.2.post1 (``benchmarks.corpora.heldout``), the
modules of its attention wrappers, whose ``plan()`` runs once per step and
whose ``run()`` once per layer per step. Labelled the same way; rules must not
be tuned on it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

SGLANG = "sglang/srt/layers/attention/"
VLLM = "vllm/v1/attention/backends/"

DEV_FILES = (
    SGLANG + "aiter_backend.py",
    SGLANG + "base_attn_backend.py",
    SGLANG + "cutedsl_mla_backend.py",
    SGLANG + "flashattention_backend.py",
    SGLANG + "flashinfer_backend.py",
    SGLANG + "flashinfer_mla_backend.py",
    SGLANG + "flashmla_backend.py",
    SGLANG + "hpc_ops_backend.py",
    SGLANG + "torch_flex_backend.py",
    SGLANG + "torch_native_backend.py",
    SGLANG + "triton_backend.py",
    SGLANG + "trtllm_mha_backend.py",
    SGLANG + "trtllm_mla_backend.py",
    SGLANG + "wave_backend.py",
    "vllm/v1/attention/backend.py",
    VLLM + "b12x.py",
    VLLM + "flash_attn.py",
    VLLM + "flash_attn_diffkv.py",
    VLLM + "flashinfer.py",
    VLLM + "flex_attention.py",
    VLLM + "hpc_attn.py",
    VLLM + "mla/aiter_triton_mla.py",
    VLLM + "mla/cutlass_mla.py",
    VLLM + "mla/flashattn_mla.py",
    VLLM + "mla/flashinfer_mla.py",
    VLLM + "mla/flashmla.py",
    VLLM + "mla/rocm_aiter_mla.py",
    VLLM + "mla/tokenspeed_mla.py",
    VLLM + "mla/triton_mla.py",
    VLLM + "rocm_aiter_fa.py",
    VLLM + "rocm_aiter_unified_attn.py",
    VLLM + "rocm_attn.py",
    VLLM + "rocm_octave_attn.py",
    VLLM + "rocm_segmented_attn.py",
    VLLM + "triton_attn.py",
    VLLM + "triton_attn_diffkv.py",
    VLLM + "turboquant_attn.py",
    VLLM + "ultraquant_attn.py",
    "vllm/model_executor/layers/attention/mla_attention.py",
)

LINEAR = "linear or state-space attention"
SPARSE = "sparse attention or indexer for one model family"
NOT_GPU = "CPU or XPU target"
WRAPPER = "dispatches to other backends"
DEV_EXCLUDED = {
    SGLANG + "deepseek_v4_backend.py": SPARSE,
    SGLANG + "deepseek_v4_backend_hip_radix.py": SPARSE,
    SGLANG + "deepseek_v4_mega_backend.py": SPARSE,
    SGLANG + "deepseek_v4_trtllm_backend.py": SPARSE,
    SGLANG + "dots_hybrid_backend.py": SPARSE,
    SGLANG + "dsa_backend.py": SPARSE,
    SGLANG + "hybrid_attn_backend.py": WRAPPER,
    SGLANG + "hybrid_linear_attn_backend.py": LINEAR,
    SGLANG + "intel_amx_backend.py": NOT_GPU,
    SGLANG + "linear/gdn_backend.py": LINEAR,
    SGLANG + "linear/inkling_sconv_backend.py": LINEAR,
    SGLANG + "linear/kda_backend.py": LINEAR,
    SGLANG + "linear/lightning_backend.py": LINEAR,
    SGLANG + "linear/short_conv_backend.py": LINEAR,
    SGLANG + "llada2_cfg_flashinfer_backend.py": WRAPPER,
    SGLANG + "minicpm/backend.py": SPARSE,
    SGLANG + "minimax_sparse_backend.py": SPARSE,
    SGLANG + "minimax_sparse_nvfp4_backend.py": SPARSE,
    SGLANG + "qwen_sparse_attn_backend.py": SPARSE,
    SGLANG + "tbo_backend.py": WRAPPER,
    SGLANG + "xpu_backend.py": NOT_GPU,
    VLLM + "composite.py": WRAPPER,
    VLLM + "cpu_attn.py": NOT_GPU,
    VLLM + "gdn_attn.py": LINEAR,
    VLLM + "linear_attn.py": LINEAR,
    VLLM + "mamba1_attn.py": LINEAR,
    VLLM + "mamba2_attn.py": LINEAR,
    VLLM + "mamba_attn.py": LINEAR,
    VLLM + "short_conv_attn.py": LINEAR,
    VLLM + "mla/amx_mla.py": NOT_GPU,
    VLLM + "mla/cpu_mla.py": NOT_GPU,
    VLLM + "mla/xpu_mla_sparse.py": NOT_GPU,
    VLLM + "mla/flashattn_mla_sparse.py": SPARSE,
    VLLM + "mla/flashinfer_mla_sparse.py": SPARSE,
    VLLM + "mla/flashinfer_mla_sparse_sm120.py": SPARSE,
    VLLM + "mla/flashinfer_mla_sparse_sm90.py": SPARSE,
    VLLM + "mla/flashmla_sparse.py": SPARSE,
    VLLM + "mla/indexer.py": SPARSE,
    VLLM + "mla/rocm_aiter_mla_sparse.py": SPARSE,
    VLLM + "mla/rocm_paged_mxfp4_indexer.py": SPARSE,
    VLLM + "mla/sparse_indexer.py": SPARSE,
    VLLM + "mla/sparse_swa.py": SPARSE,
}

HELDOUT_FILES = (
    "flashinfer/decode.py",
    "flashinfer/prefill.py",
    "flashinfer/page.py",
    "flashinfer/sparse.py",
    "flashinfer/cascade.py",
    "flashinfer/pod.py",
    "flashinfer/mla/_core.py",
    "flashinfer/mla/_batch_mla/_wrapper.py",
    "flashinfer/mla/_batch_mla/_planning.py",
)

SETS = {
    "dev": {"sglang": "0.5.23", "vllm": "0.33.0"},
    "heldout": {"flashinfer": "0.7.2.post1"},
}
ATTENTION_BASES = {
    "sglang": ("AttentionBackend",),
    "vllm": (
        "AttentionMetadataBuilder",
        "AttentionImpl",
        "MLAAttentionImpl",
        "AttentionImplBase",
    ),
}


def set_files(name: str) -> tuple[Path, list[str]]:
    """The set's root folder (downloaded and extracted once) and its files."""
    from benchmarks.corpora import corpus, heldout

    if name == "dev":
        return corpus("packages"), list(DEV_FILES)
    if name == "heldout":
        return heldout("flashinfer"), list(HELDOUT_FILES)
    raise ValueError(f"unknown label set {name!r}; choose from {sorted(SETS)}")


def package_of(name: str, relpath: str) -> tuple[str, str]:
    """(package, version) of a file of a set."""
    package = relpath.split("/", 1)[0]
    return package, SETS[name][package]


def subclass_files(packages_root: Path) -> dict[str, list[str]]:
    """Backends-corpus files defining the attention base classes or a subclass."""
    found: dict[str, list[str]] = {}
    for package, roots in ATTENTION_BASES.items():
        found.update(_package_subclass_files(packages_root, package, roots))
    return found


def _package_subclass_files(
    packages_root: Path, package: str, roots: tuple[str, ...]
) -> dict[str, list[str]]:
    import ast

    from benchmarks.corpora import BACKEND_PREFIXES

    bases_of: dict[str, list[list[str]]] = {}
    defined_in: dict[str, set[str]] = {}
    for path in sorted((packages_root / package).rglob("*.py")):
        relpath = str(path.relative_to(packages_root))
        try:
            tree = ast.parse(path.read_bytes())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = [
                    ast.unparse(b).split("[")[0].rsplit(".", 1)[-1] for b in node.bases
                ]
                bases_of.setdefault(node.name, []).append(names)
                defined_in.setdefault(relpath, set()).add(node.name)
    derived: dict[str, bool] = {}

    def derives(name: str, trail: tuple[str, ...] = ()) -> bool:
        # Base names are resolved by name within the package (no imports
        # followed): generous where two classes share a name.
        if name in roots:
            return True
        if name in trail:
            return False
        if name not in derived:
            derived[name] = any(
                derives(base, (*trail, name))
                for bases in bases_of.get(name, [])
                for base in bases
            )
        return derived[name]

    found: dict[str, list[str]] = {}
    for relpath, classes in defined_in.items():
        if not relpath.startswith(BACKEND_PREFIXES[package]):
            continue
        hits = sorted(
            c
            for c in classes
            if c in roots or any(derives(b) for bases in bases_of[c] for b in bases)
        )
        if hits:
            found[relpath] = hits
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--verify",
        action="store_true",
        help="recompute step 1 of the dev selection and compare",
    )
    args = parser.parse_args(argv)
    for name in SETS:
        root, files = set_files(name)
        lines = sum(len((root / f).read_text().splitlines()) for f in files)
        print(f"{name}: {len(files)} files, {lines} lines, root {root}")
    if not args.verify:
        return 0
    from benchmarks.corpora import corpus

    found = subclass_files(corpus("packages"))
    listed = {f for f in DEV_FILES if f.startswith(tuple(("sglang/", "vllm/v1/")))}
    listed |= set(DEV_EXCLUDED)
    missing = sorted(set(found) - listed)
    extra = sorted(listed - set(found))
    print(
        f"step 1 finds {len(found)} files; {len(missing)} unlisted, {len(extra)} listed but not found"
    )
    for relpath in missing:
        print(f"  unlisted: {relpath} ({', '.join(found[relpath])})")
    for relpath in extra:
        print(f"  not found: {relpath}")
    return 1 if missing or extra else 0


if __name__ == "__main__":
    sys.exit(main())
