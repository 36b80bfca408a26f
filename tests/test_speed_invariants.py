"""What the speed work must not change: the same findings however a run is made.

Runs of ``attnlint check`` with and without the cache, in one process and in
several, report exactly the same JSON on a realistic tree (the reference
backend, its unoptimized twin, the rule fixtures, every rule's examples, and
generated files); a changed file is checked again; other settings use other
cache entries; a damaged cache file is ignored; runs writing the cache at
the same time leave a valid one. That findings come from the cache is seen
by planting an entry there (as only this user, on this machine, can: the
entry must describe the very file, see lint_rules.cache).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lint_rules.cache import Cache
from lint_rules.rules import ALL_RULES
from lint_rules.runner import MIN_FILES_FOR_WORKERS

REPO = Path(__file__).resolve().parents[1]
AN_HOUR_AGO = time.time() - 3600


def _age(folder: Path) -> None:
    """Files an hour old (as files found in a tree mostly are)."""
    for path in folder.rglob("*.py"):
        os.utime(path, (AN_HOUR_AGO, AN_HOUR_AGO))


def _generated_backend(index: int) -> str:
    """A module in the shape of an attention backend, varied by ``index``."""
    return (
        "import torch\n\n\n"
        f"class Backend{index}:\n"
        "    def init_cuda_graph_state(self, max_bs, n):\n"
        f"        self.lens_{index} = torch.zeros(max_bs, dtype=torch.int32)\n"
        "        self.meta = {\n"
        f'            "page_table": torch.zeros(max_bs, n + {index}),\n'
        '            "strided": torch.arange(0, n),\n'
        "        }\n\n"
        "    def capture(self, rows):\n"
        '        return self.meta["page_table"][rows, :]\n\n'
        "    def replay(self, metadata, seq_lens_cpu, step, y):\n"
        "        max_len = seq_lens_cpu.max().item()\n"
        "        metadata.max_seq_len_k = max_len + step\n"
        "        metadata.page_limit = seq_lens_cpu.max().item() // 16\n"
        "        metadata.device = y.device\n"
        "        metadata.cache_seqlens.copy_(y)\n"
        "        metadata.device = y.device\n"
        "        out = torch.zeros_like(y)\n"
        "        out.copy_(y * 2)\n"
        "        tmp = torch.empty(4)\n"
        f"        total = tmp.sum() + {index}  # noqa: ATN103\n"
        "        return out, total\n\n"
        "    def forward(self, table, cache, lens):\n"
        "        for idx, n in enumerate(lens):\n"
        "            start = idx\n"
        "            end = idx + 1\n"
        "            table[start:end, :n] = cache[start:end, :n]\n"
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("speed") / "tree"
    shutil.copytree(
        REPO / "reference_backend",
        root / "reference_backend",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(
        REPO / "tests" / "fixtures" / "flashattention_backend_unoptimized.py",
        root / "unoptimized.py",
    )
    shutil.copytree(REPO / "tests" / "fixtures" / "rules", root / "rule_fixtures")
    examples = root / "examples"
    examples.mkdir()
    for rule in ALL_RULES:
        for index, example in enumerate(rule.invalid):
            (examples / f"{rule.code.lower()}_invalid_{index}.py").write_text(
                example.source
            )
        for index, source in enumerate(rule.valid):
            (examples / f"{rule.code.lower()}_valid_{index}.py").write_text(source)
    generated = root / "generated"
    generated.mkdir()
    for index in range(12):
        (generated / f"backend_{index}.py").write_text(_generated_backend(index))
    (generated / "broken.py").write_text("def f(:\n    pass\n")
    (generated / "latin1.py").write_bytes(b"x = '\xff'\n")  # not UTF-8: E902
    _age(root)
    return root


def attnlint(tree: Path, cache: Path | None, *args: str) -> list[dict]:
    """The JSON findings of ``attnlint check`` on ``tree`` (``cache`` None: --no-cache)."""
    command = [sys.executable, "-m", "lint_rules", "check", "--exit-zero"]
    command += ["--output-format", "json", *args]
    command += ["--no-cache"] if cache is None else ["--cache-dir", str(cache)]
    result = subprocess.run(
        [*command, str(tree)],
        cwd=tree.parent,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def cache_file(cache: Path) -> Path:
    (found,) = [
        path for path in cache.rglob("*") if path.is_file() and path.parent != cache
    ]
    return found


def swap_same_size(path: Path, new_text: str) -> None:
    """Replace the file's text with ``new_text`` of the same size, keeping its
    mtime (as ``cp -p`` or ``tar`` would): a change a key of size and
    modification time alone cannot see."""
    old = path.stat()
    data = new_text.encode()
    assert len(data) == old.st_size
    path.write_bytes(data)
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))


def test_the_tree_is_big_enough_for_worker_processes(tree: Path) -> None:
    assert len(list(tree.rglob("*.py"))) >= 4 * MIN_FILES_FOR_WORKERS


def test_cached_uncached_single_and_multi_process_runs_agree(
    tree: Path, tmp_path: Path
) -> None:
    reference = attnlint(tree, None, "--jobs", "1")
    assert {finding["code"] for finding in reference} >= {
        "ATN101", "ATN102", "ATN103", "ATN201", "ATN202", "ATN301", "E999", "E902",
    }  # fmt: skip
    assert attnlint(tree, None, "--jobs", "2") == reference
    cache = tmp_path / "cache"
    assert attnlint(tree, cache, "--jobs", "2") == reference  # fills the cache
    assert cache_file(cache).stat().st_size > 0
    assert attnlint(tree, cache, "--jobs", "2") == reference  # from the cache
    assert attnlint(tree, cache, "--jobs", "1") == reference


def plant_entry(cache: Path, target: Path, findings: tuple = ()) -> None:
    """Make the cache entry of ``target`` (the file as it is now) hold
    ``findings``: what only a cached run can report."""
    path = cache_file(cache)
    loaded = Cache(str(path), _fingerprint_of(path))
    loaded.load()
    key, digest, _ = loaded.entries[str(target)]
    loaded.store(str(target), key, digest, findings)
    loaded.save()


def test_unchanged_files_come_from_the_cache(tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    before = attnlint(tree, cache)
    target = tree / "generated" / "backend_3.py"
    plant_entry(cache, target)
    served = attnlint(tree, cache)
    assert served == [f for f in before if f["filename"] != str(target)]
    assert attnlint(tree, None) == before


def test_a_file_changed_keeping_size_and_mtime_is_checked_again(
    tree: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    before = attnlint(tree, cache)
    target = tree / "generated" / "backend_4.py"
    original = target.read_text()
    try:
        # ``start = idx`` -> ``begin = idx``: same size, same mtime, one finding renamed.
        swap_same_size(target, original.replace("start", "begin"))
        changed = attnlint(tree, cache)
        assert changed == attnlint(tree, None) != before
        assert any("`begin`" in finding["message"] for finding in changed)
    finally:
        swap_same_size(target, original)


def test_a_changed_file_is_checked_again(tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    attnlint(tree, cache)
    target = tree / "generated" / "backend_5.py"
    original = target.read_bytes()
    try:
        # Same size, another mtime.
        swap_same_size(target, original.decode().replace("start", "begin"))
        os.utime(target, (AN_HOUR_AGO + 60, AN_HOUR_AGO + 60))
        changed = attnlint(tree, cache)
        assert changed == attnlint(tree, None)
        assert any("`begin`" in finding["message"] for finding in changed)
        # Another size (a finding more), the original mtime.
        target.write_bytes(
            original + b"\n\ndef forward_g(x, y):\n    x = y\n    x = y\n"
        )
        os.utime(target, (AN_HOUR_AGO, AN_HOUR_AGO))
        grown = attnlint(tree, cache)
        assert grown == attnlint(tree, None)
        assert len(grown) == len(changed) + 1
    finally:
        target.write_bytes(original)
        os.utime(target, (AN_HOUR_AGO, AN_HOUR_AGO))


@pytest.mark.parametrize(
    "settings",
    [
        ("--select", "ATN301,ATN202"),
        ("--ignore", "ATN102"),
        ("--config", "graph-state-methods = ['capture']"),
        ("--config", "per-file-ignores = { '**/generated/*' = ['ATN1'] }"),
    ],
    ids=["select", "ignore", "graph-state-methods", "per-file-ignores"],
)
def test_other_settings_do_not_use_the_cached_findings(
    tree: Path, tmp_path: Path, settings: tuple[str, str]
) -> None:
    cache = tmp_path / "cache"
    attnlint(tree, cache)
    target = tree / "generated" / "backend_7.py"
    # Planted for the default settings: only their runs may report it.
    plant_entry(cache, target)
    with_settings = attnlint(tree, cache, *settings)
    assert with_settings == attnlint(tree, None, *settings)
    assert any(f["filename"] == str(target) for f in with_settings)
    assert not any(f["filename"] == str(target) for f in attnlint(tree, cache))


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _bit_flipped(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1 :]


@pytest.mark.parametrize(
    "damage",
    [_truncated, _bit_flipped, lambda data: b"", lambda data: os.urandom(4096)],
    ids=["truncated", "bit-flipped", "empty", "garbage"],
)
def test_a_damaged_cache_file_is_ignored_and_replaced(
    tree: Path, tmp_path: Path, damage
) -> None:
    cache = tmp_path / "cache"
    reference = attnlint(tree, cache)
    path = cache_file(cache)
    path.write_bytes(damage(path.read_bytes()))
    assert attnlint(tree, cache) == reference
    assert cache_file(cache) == path  # rewritten whole
    assert attnlint(tree, cache) == reference
    entries = Cache(str(path), _fingerprint_of(path))
    entries.load()
    assert len(entries.entries) >= len(list(tree.rglob("*.py"))) - 1  # not the E902 one


def _fingerprint_of(path: Path) -> str:
    import marshal

    from lint_rules.cache import _HEADER

    return marshal.loads(path.read_bytes()[_HEADER:])[0]


def test_runs_writing_the_cache_at_once_leave_a_valid_cache(
    tree: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    folders = ["reference_backend", "rule_fixtures", "examples", "generated"]
    command = [sys.executable, "-m", "lint_rules", "check", "--exit-zero", "-q"]
    for _ in range(3):
        processes = [
            subprocess.Popen(
                [*command, "--cache-dir", str(cache), str(tree / folder)],
                cwd=tree.parent,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            )
            for folder in folders
        ]
        for process in processes:
            _, stderr = process.communicate()
            assert process.returncode == 0, stderr
    assert attnlint(tree, cache) == attnlint(tree, None)


def test_fix_runs_forget_the_files_they_rewrite(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    target = project / "rows.py"
    target.write_text(_generated_backend(0))
    _age(project)
    cache = tmp_path / "cache"
    assert any(f["code"] == "ATN301" for f in attnlint(project, cache))
    fixed = subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "--fix", "--exit-zero"]
        + ["--cache-dir", str(cache), str(project)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert fixed.returncode == 0, fixed.stderr
    # Same mtime as before the fix (within the racy window or not, the entry is gone).
    os.utime(target, (AN_HOUR_AGO, AN_HOUR_AGO))
    after = attnlint(project, cache)
    assert after == attnlint(project, None)
    assert not any(f["code"] == "ATN301" for f in after)


def test_files_modified_just_now_are_stored_for_their_content(tmp_path: Path) -> None:
    # No window of "racily clean" timestamps: an entry holds the digest of
    # the bytes checked, and is served for those bytes only.
    from lint_rules.cache import file_key
    from lint_rules.source import content_digest

    source = tmp_path / "recent.py"
    source.write_text("x = 1\n")
    cache = Cache(str(tmp_path / "c" / "0" / "key"), "fingerprint")
    key = file_key(source.stat())
    cache.store(str(source), key, content_digest(b"x = 1\n"), [])
    assert cache.lookup(str(source), key, content_digest(b"x = 1\n")) == []
    assert cache.lookup(str(source), key, content_digest(b"x = 2\n")) is None


def test_saving_merges_what_another_run_stored_meanwhile(tmp_path: Path) -> None:
    path = str(tmp_path / "c" / "0" / "key")
    old = time.time_ns() - 3_600_000_000_000
    for name in ("/a.py", "/b.py"):
        Path(tmp_path / name.strip("/")).write_text("")
    first, second = Cache(path, "fingerprint"), Cache(path, "fingerprint")
    first.load()
    second.load()
    first.store(str(tmp_path / "a.py"), (1, old, old, 1, 1), b"a", [])
    second.store(str(tmp_path / "b.py"), (2, old, old, 2, 1), b"b", [])
    first.save()
    second.save()
    merged = Cache(path, "fingerprint")
    merged.load()
    assert set(merged.entries) == {str(tmp_path / "a.py"), str(tmp_path / "b.py")}
    other = Cache(path, "another fingerprint")
    other.load()
    assert other.entries == {}


def test_the_rule_catalogue_names_the_rules_it_imports() -> None:
    from lint_rules.rules import CATALOGUE, CODES

    assert [
        (rule.code, rule.name, rule.__module__.rsplit(".", 1)[-1], rule.__name__)
        for rule in ALL_RULES
    ] == list(CATALOGUE)
    assert CODES == tuple(rule.code for rule in ALL_RULES)


def test_a_run_served_from_the_cache_imports_no_rule(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "rows.py").write_text(_generated_backend(1))
    _age(project)
    cache = tmp_path / "cache"
    program = (
        "import sys\n"
        "from lint_rules.cli import main\n"
        f"main(['check', '--quiet', '--cache-dir', {str(cache)!r}, {str(project)!r}])\n"
        "print(sorted(m for m in sys.modules if m.startswith('lint_rules.')))\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", program],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        for _ in range(2)
    ]
    cold, warm = (eval(run.stdout.splitlines()[-1]) for run in runs)
    assert "lint_rules.rules.atn301_dead_loop_alias" in cold
    assert runs[0].stdout.splitlines()[:-1] == runs[1].stdout.splitlines()[:-1]
    assert not [
        name
        for name in warm
        if name.startswith(("lint_rules.rules.", "lint_rules.analysis"))
        or name in ("lint_rules.checker", "lint_rules.fixer")
    ]


def test_checking_leaves_no_cycle_holding_a_tree() -> None:
    """Workers run without the cyclic collector: a check must free its trees,
    flows and analyses by reference counting alone."""
    import ast
    import gc

    from lint_rules.checker import check_source
    from lint_rules.config import Settings

    settings = Settings()
    sources = [
        REPO / "tests" / "fixtures" / "flashattention_backend_unoptimized.py",
        REPO / "reference_backend" / "flashattention_backend.py",
    ]
    # What the fixtures above do not reach: a helper's summary asked for a
    # call (ATN101), a tuple target of a non-blocking copy's function
    # (ATN205), an attribute's kind and a private function's callers (ATN203).
    extra = (
        "import torch\n"
        "def _fill(dst, src):\n    dst.copy_(src)\n"
        "def _n(lens):\n    return lens[-1]\n"
        "class B:\n"
        "    def __init__(self, n):\n"
        "        self.indptr = torch.zeros(n + 1, device='cuda')\n"
        "    def forward(self, x, host):\n"
        "        buf = torch.zeros(4)\n        _fill(buf, x)\n"
        "        (a, b), c = host, 1\n"
        "        t = torch.tensor(a)\n        t = t.to('cuda', non_blocking=True)\n"
        "        return x[: self.indptr[-1]], _n(self.indptr), buf, t, b, c\n"
    )
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        check_source(extra, "extra.py", settings)
        for path in sources:
            check_source(path.read_text(), str(path), settings)
        gc.collect()
        leaked = [obj for obj in gc.garbage if isinstance(obj, ast.AST)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if collecting:
            gc.enable()
    assert leaked == []
