"""ATN202 on thousands of repeated assignments in one function: seconds per size.

    python -m benchmarks.atn202_scaling            # 1,000 to 50,000 statements
    python -m benchmarks.atn202_scaling 4000       # the sizes given

Each size is one function of N copies of ``m.k = a`` (N - 1 findings), then
one of N statements alternating ``m.j = a`` and ``m.k = b`` (N - 2
findings), each checked in this process with ATN202 alone and with every
rule (the parse included).
Time that grows N times for N times the statements is linear; the test
(tests/test_atn202_scaling.py) counts work instead of timing it.
"""

from __future__ import annotations

import sys
import time

from lint_rules.checker import check_source
from lint_rules.config import Settings

SIZES = (1_000, 4_000, 16_000, 50_000)
SHAPES = {
    "same": lambda size: "def f(m, a):\n" + "    m.k = a\n" * size,
    "alternating": lambda size: (
        "def f(m, a, b):\n" + "    m.j = a\n    m.k = b\n" * (size // 2)
    ),
}


def main(argv: list[str]) -> int:
    sizes = [int(arg) for arg in argv] or list(SIZES)
    only = Settings(select=("ATN202",), hot_paths_only=False)
    every = Settings(hot_paths_only=False)
    print(
        f"{'shape':>11} {'statements':>10} {'findings':>9} {'ATN202 s':>9}"
        f" {'all rules s':>12}"
    )
    for shape, make in SHAPES.items():
        for size in sizes:
            text = make(size)
            started = time.perf_counter()
            findings = check_source(text, "f.py", only)
            alone = time.perf_counter() - started
            started = time.perf_counter()
            check_source(text, "f.py", every)
            together = time.perf_counter() - started
            print(
                f"{shape:>11} {size:>10} {len(findings):>9} {alone:>9.3f}"
                f" {together:>12.3f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
