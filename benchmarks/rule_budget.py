"""What the rules cost beside the parse, and what the least analysis would.

    python -m benchmarks.rule_budget            # the backends tier
    python -m benchmarks.rule_budget --rounds 5

In one process, with the collector off as in attnlint's workers, over the
backends tier (``benchmarks/corpora.py``): the seconds of ``ast.parse``, of
attnlint's rules (each rule alone, shared analysis charged to the first rule
that asks for it, in the registry's order), and of two plain Python walks
that any analysis of the code's nodes would at least make: ``ast.walk``
over every node, and over the nodes of the functions that run per step
(``analysis/hot_paths.py``), the code the per-step rules must read. Each
figure is the least of ``--rounds`` rounds, and is shown as a share of the
parse: ``benchmarks.speed``'s cold target (1.25 x the parse floor) leaves
the rules about a quarter of it.
"""

from __future__ import annotations

import argparse
import ast
import gc
import sys
import time
from collections import defaultdict

from benchmarks.corpora import corpus, python_files
from lint_rules.checker import Context, Locator, rules_for_file, triggered_rules
from lint_rules.config import Settings


def measure(texts: list[tuple[str, str]], settings: Settings) -> dict[str, float]:
    seconds: dict[str, float] = defaultdict(float)
    for name, text in texts:
        started = time.perf_counter()
        tree = ast.parse(text)
        seconds["parse"] += time.perf_counter() - started
        started = time.perf_counter()
        for _ in ast.walk(tree):
            pass
        seconds["walk: every node"] += time.perf_counter() - started
        ctx = Context(text, tree, name, settings.options, Locator(text))
        for rule in triggered_rules(rules_for_file(settings, name), text):
            started = time.perf_counter()
            list(rule().check(ctx) or [])
            seconds[f"rule {rule.code}"] += time.perf_counter() - started
        hot = [
            info.node
            for info in ctx.model.functions
            if info.parent is None and ctx.hot_paths.per_step(info.node) is not None
        ]
        started = time.perf_counter()
        for function in hot:
            for _ in ast.walk(function):
                pass
        seconds["walk: per-step functions"] += time.perf_counter() - started
        ctx.release()
        del tree, ctx
        gc.collect(0)
    return seconds


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tier", default="backends")
    args = parser.parse_args(argv)
    folder = corpus(args.tier)
    texts = [
        (str(path), path.read_text(encoding="utf-8")) for path in python_files(folder)
    ]
    settings = Settings()
    gc.disable()
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for key, value in measure(texts, settings).items():
            best[key] = min(best.get(key, value), value)
    parse = best["parse"]
    rules = sum(value for key, value in best.items() if key.startswith("rule "))
    print(f"{args.tier}: {len(texts)} files; least of {args.rounds} rounds\n")
    print("| what | seconds | x parse |\n|---|---:|---:|")
    rows = [("parse (ast.parse, collector off)", parse)]
    rows += [
        (key, best[key]) for key in ("walk: every node", "walk: per-step functions")
    ]
    rows += [("every rule", rules)]
    rows += sorted(
        ((key, value) for key, value in best.items() if key.startswith("rule ")),
        key=lambda item: -item[1],
    )
    for key, value in rows:
        print(f"| {key} | {value:.3f} | {value / parse:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
