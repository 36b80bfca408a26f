"""Long-running fuzzing: ``python -m benchmarks.fuzz [--minutes N]``.

Runs the properties of tests/fuzzing.py on many more programs than CI does
(each program is checked with the rules' pre-filters and without them, and
the findings must be the same), from all three generators (hypothesmith from the grammar and from libcst
nodes, pysource-codegen), and stops at the first counterexample (printed,
and saved to ``fuzz-failure.py``).
"""

from __future__ import annotations

import argparse
import itertools
import time
import traceback
from pathlib import Path

import hypothesmith
from hypothesis import HealthCheck, given, settings
from pysource_codegen import generate

from tests.fuzzing import backend_programs, check_properties


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fuzz")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed-start", type=int, default=1000)
    args = parser.parse_args()
    deadline = time.monotonic() + args.minutes * 60
    counts = {
        "backend": 0,
        "grammar": 0,
        "libcst": 0,
        "codegen": 0,
        "codegen-skipped": 0,
    }
    fuzz_settings = settings(
        max_examples=300,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )

    def counted(kind):
        def run(source):
            counts[kind] += 1
            try:
                check_properties(source)
            except Exception:
                Path("fuzz-failure.py").write_text(source, encoding="utf-8")
                raise

        return run

    started = time.monotonic()

    def report(prefix: str) -> None:
        minutes = (time.monotonic() - started) / 60
        print(f"{prefix} after {minutes:.1f} min: {counts}", flush=True)

    def codegen_round(seed: int) -> None:
        for offset in range(200):
            if time.monotonic() > deadline:
                return
            try:
                source = generate(seed * 200 + offset, depth_limit=8, node_limit=3000)
            except Exception:
                # The generator's own unparse fails on some trees (a
                # backslash in an f-string part): not attnlint's input.
                counts["codegen-skipped"] += 1
                continue
            counted("codegen")(source)

    stages = (
        lambda seed: given(backend_programs())(fuzz_settings(counted("backend")))(),
        lambda seed: given(hypothesmith.from_grammar())(
            fuzz_settings(counted("grammar"))
        )(),
        lambda seed: given(hypothesmith.from_node())(
            fuzz_settings(counted("libcst"))
        )(),
        codegen_round,
    )

    try:
        for seed in itertools.count(args.seed_start):
            for stage in stages:
                if time.monotonic() > deadline:
                    report("no counterexample")
                    return 0
                stage(seed)
            report(f"round {seed - args.seed_start + 1}")
    except KeyboardInterrupt:
        report("interrupted, no counterexample")
        return 0
    except Exception:
        traceback.print_exc()
        report("counterexample saved to fuzz-failure.py")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
