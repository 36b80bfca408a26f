"""The floor for any linter whose check path runs on CPython's parser.

Finds the ``*.py`` files under the given folders, reads each one and parses it
with ``ast.parse``, and does nothing else: no analysis, no output. It runs as a
process of its own (so interpreter start-up counts as it does for a linter)
with the same number of worker processes, the same start method and the same
largest-first scheduling as attnlint. Python's defaults are left alone.

    python benchmarks/parse_floor.py --jobs 2 PATH...
"""

from __future__ import annotations

import argparse
import ast
import multiprocessing
import os
import sys


def python_files(roots: list[str]) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for root in roots:
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = sorted(
                name for name in subfolders if not name.startswith(".")
            )
            for name in sorted(names):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    found.append((os.stat(path).st_size, path))
    return found


def parse(path: str) -> None:
    with open(path, "rb") as handle:
        ast.parse(handle.read(), filename=path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    files = [path for _, path in sorted(python_files(args.paths), reverse=True)]
    if args.jobs <= 1:
        for path in files:
            parse(path)
        return 0
    method = "fork" if sys.platform != "darwin" else "spawn"
    chunksize = max(1, min(8, len(files) // (args.jobs * 16)))
    with multiprocessing.get_context(method).Pool(args.jobs) as pool:
        for _ in pool.imap_unordered(parse, files, chunksize):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
