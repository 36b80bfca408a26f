"""The long differential run: ``python -m benchmarks.differential --programs N``.

Runs programs from tests/differential_programs.py (the reproductions of
every way a safe fix once changed what code computes, then random programs
in the rules' shapes) before and after ``--fix`` (safe fixes, the library
path), on CPU torch with uninitialized memory poisoned, and compares what
they compute (tests/differential.py). Prints how many programs ran, how many
got a fix of each rule, and every difference; the first differing program is
saved to ``differential-failure.py``. Exit status 1 when any differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import islice
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.differential import Tally, compare  # noqa: E402
from tests.differential_programs import programs  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.differential")
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0, help="the first random seed")
    parser.add_argument("--report-every", type=int, default=1000)
    args = parser.parse_args(argv)
    tally = Tally()
    started = time.monotonic()
    for source in islice(programs(args.seed), args.programs):
        comparison = compare(source)
        tally.add(comparison)
        if not comparison.same and len(tally.differences) == 1:
            Path("differential-failure.py").write_text(source, encoding="utf-8")
            print(comparison.explain(), flush=True)
        if tally.programs % args.report_every == 0:
            print(f"{time.monotonic() - started:.0f} s: {tally.summary()}", flush=True)
    print(f"done in {time.monotonic() - started:.0f} s: {tally.summary()}")
    for comparison in tally.differences[1:6]:
        print(comparison.explain())
    return 1 if tally.differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
