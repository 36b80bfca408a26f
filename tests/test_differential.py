"""Safe fixes, proven by execution: programs run before and after ``--fix``
compute the same results, change their arguments the same way, raise the
same exceptions and print the same output (tests/differential.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from itertools import islice
from pathlib import Path

import pytest

from lint_rules.checker import check_source
from lint_rules.config import Settings
from lint_rules.fixer import fix_text
from tests.differential import SETTINGS, Tally, compare
from tests.differential_programs import PROGRAMS_FROM_REPRODUCTIONS, program, programs
from tests.differential_reproductions import REPRODUCTIONS

ROOT = Path(__file__).resolve().parents[1]
#: Generated programs of the CI run, after the reproductions (a fixed number
#: of them, so that each rule's fixes apply in enough programs however many
#: reproductions come first): about 15 s on two cores.
CI_GENERATED = 320


@pytest.mark.parametrize("name", sorted(REPRODUCTIONS))
def test_reproduction_computes_the_same_after_fix(name):
    comparison = compare(REPRODUCTIONS[name].lstrip())
    assert comparison.same, comparison.explain()


def test_generated_programs_compute_the_same_after_fix():
    tally = Tally()
    for source in islice(programs(0), len(PROGRAMS_FROM_REPRODUCTIONS) + CI_GENERATED):
        tally.add(compare(source))
    assert not tally.differences, tally.differences[0].explain()
    # The programs are in the rules' shapes: each rule's fixes really apply.
    for code in ("ATN101", "ATN201", "ATN202", "ATN301"):
        assert tally.fixed_programs[code] >= 30, tally.summary()
    # The deletion of a zero fill (the rarer shape: most fills there are of
    # tensors other names may share, whose fix is unsafe).
    assert tally.fixed_programs["ATN104"] >= 8, tally.summary()


def test_programs_fixed_by_the_command_line_compute_the_same(tmp_path):
    sources = {f"program_{seed}.py": program(seed) for seed in range(50_000, 50_030)}
    for name, source in sources.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        "[tool.attnlint]\nhot-paths-only = false\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run(
        [sys.executable, "-m", "lint_rules", "check", "--fix", "--no-cache",
         "--exit-zero", "-q", "."],
        cwd=tmp_path, env=env, check=True, capture_output=True,
    )  # fmt: skip
    fixed_some = 0
    for name, source in sources.items():
        fixed = (tmp_path / name).read_text(encoding="utf-8")
        assert fixed == fix_text(source, name, SETTINGS, False).text
        fixed_some += fixed != source
        comparison = compare(source, fixed=fixed)
        assert comparison.same, comparison.explain()
    assert fixed_some >= 15


def test_one_unparsable_inlining_drops_no_other_fix():
    comparison = compare(REPRODUCTIONS["fstring_bytes"].lstrip())
    assert comparison.error is None
    assert comparison.fixed_by_code.get("ATN301") == 1  # ``j = i`` in case_other


def _codes(source: str, select: str) -> list[tuple[int, str]]:
    found = check_source(
        textwrap.dedent(source),
        "t.py",
        Settings(select=(select,), hot_paths_only=False),
    )
    return [(f.location.row, f.code) for f in found]


def test_read_only_method_between_syncs_is_no_write():
    source = """
        def f(s):
            a = s.max().item()
            s.isnan()
            c = s.max().item()
            return a, c
    """
    assert _codes(source, "ATN201") == [(5, "ATN201")]


def test_function_level_import_resolves_to_torch():
    source = """
        def f(y, n):
            import torch
            x = torch.zeros(n)
            x[:] = y
            return x
    """
    assert _codes(source, "ATN101") == [(4, "ATN101")]


_COLLECTIVES = """
import torch
import torch.distributed as dist


def make_args():
    return (torch.arange(6.0) + 1, 6)


def _in_a_group(function, *args):
    # One gloo rank, the default group: what the collectives write there.
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        return function(*args)
    finally:
        dist.destroy_process_group()


def _gathered(y, n):
    gathered = [torch.zeros_like(y) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, y)
    return torch.cat(gathered)


def _exchanged(y, n):
    outputs = [torch.zeros(t.shape, dtype=t.dtype) for t in [y]]
    dist.all_to_all(outputs, [y * 2])
    return outputs


def _scattered(y, n):
    out = torch.full((n,), 0.0)
    dist.scatter(out, [y + 1], src=0)
    return out


def case_gather(y, n):
    return _in_a_group(_gathered, y, n)


def case_all_to_all(y, n):
    return _in_a_group(_exchanged, y, n)


def case_scatter(y, n):
    return _in_a_group(_scattered, y, n)
"""


def test_zero_fills_a_collective_writes_compute_the_same_after_fix():
    """The safe fix of a zero fill that a collective of the default group
    writes (``all_gather``'s and ``all_to_all``'s output lists, made by a
    comprehension, and ``scatter``'s output), run on one gloo rank with the
    uninitialized memory poisoned."""
    comparison = compare(_COLLECTIVES.lstrip())
    assert comparison.fixed_by_code.get("ATN101") == 3, comparison.fixed
    assert comparison.same, comparison.explain()
    assert all(raised is None for *_, raised, _, _ in comparison.before.cases.values())
