"""A stand-in test command for verify's transaction tests: no pytest, no torch.

It reads MODULE's text to see which buffers (``name = torch.zeros(...)`` or
``self.name = torch.zeros(...)`` lines) were rewritten to ``torch.empty``, and
behaves as told. Like a pytest run with
attnlint's plugin, it records a poisoned session in the witness file.

usage: python fake_tests.py MODULE [--fail-if NAMES] [--fail-on-run N]
           [--fail-if-poisoned] [--sleep-if NAMES] [--pid-file PATH]
           [--delay SECONDS] [--edit-on-run N]

``--pid-file`` receives the pid of a run that sleeps (``--sleep-if``), or of
every run with ``--delay`` (each run then takes that long). ``--edit-on-run``
appends a comment to MODULE during run N, as a user editing it meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path


def _write(path: Path, text: str) -> None:
    """Write whole or not at all: a run killed meanwhile (as verify's fault
    injection kills it) leaves no empty file for the next reader (and no
    name the trials take for a temporary file attnlint left)."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    partial.write_text(text)
    os.replace(partial, path)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("module", type=Path)
    parser.add_argument("--fail-if", default="")
    parser.add_argument("--fail-on-run", type=int, default=0)
    parser.add_argument("--fail-if-poisoned", action="store_true")
    parser.add_argument("--sleep-if", default="")
    parser.add_argument("--pid-file", type=Path)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--edit-on-run", type=int, default=0)
    args = parser.parse_args()
    poisoned = os.environ.get("ATTNLINT_POISON") == "1"
    witness = os.environ.get("ATTNLINT_POISON_WITNESS")
    if poisoned and witness:
        with open(witness, "a") as stream:
            stream.write(json.dumps({"event": "poisoned", "pid": os.getpid()}) + "\n")
    counter = args.module.with_name("runs.count")
    run = int(counter.read_text()) + 1 if counter.exists() else 1
    _write(counter, str(run))
    if run == args.edit_on_run:
        with open(args.module, "a") as stream:
            stream.write("# edited while verify ran\n")

    if args.delay:
        if args.pid_file:
            _write(args.pid_file, str(os.getpid()))
        time.sleep(args.delay)
    applied = set(
        re.findall(
            r"^\s*(?:self\.)?(\w+) = torch\.empty", args.module.read_text(), re.M
        )
    )
    if applied & set(filter(None, args.sleep_if.split(","))):
        if args.pid_file:
            _write(args.pid_file, str(os.getpid()))
        time.sleep(60)
    failing = sorted(applied & set(filter(None, args.fail_if.split(","))))
    if run == args.fail_on_run:
        failing.append("flaky")
    if poisoned and args.fail_if_poisoned:
        failing.append("poisoned")
    for name in failing:
        print(f"FAILED test_fake.py::test_{name} - AssertionError")
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())
