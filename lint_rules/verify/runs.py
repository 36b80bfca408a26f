"""Test runs: the command with poisoning on, its failing tests, its witness."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lint_rules.poison import POISON_ENV
from lint_rules.verify.errors import TestTimeout, VerifyUsageError
from lint_rules.verify.signals import signals_deferred

#: The pytest plugin appends JSON lines to this file in a poisoned session.
WITNESS_ENV = "ATTNLINT_POISON_WITNESS"


@dataclasses.dataclass
class RunResult:
    passed: bool
    returncode: int
    duration: float
    failing_tests: list[str]
    poisoned: bool
    output: str


_SUMMARY_LINE = re.compile(r"^(?:FAILED|ERROR) (\S.*?)(?: - .*)?$")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def failing_tests_in(output: str) -> list[str]:
    """Test ids from pytest's short summary lines (``FAILED tests/x.py::name - ...``)."""
    found: list[str] = []
    for line in _ANSI.sub("", output).splitlines():
        match = _SUMMARY_LINE.match(line.rstrip())
        if match is None:
            continue
        test = match.group(1)
        # A test id, or a module that failed to import; not any "FAILED" line.
        if ("::" in test or test.endswith(".py")) and test not in found:
            found.append(test)
    return found


#: The script that runs each test command (see its docstring).
SUPERVISOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "supervisor.py")
#: How long the supervisor may take to stop the command's process group.
_STOP_SECONDS = 15.0


class TestRunner:
    """Runs the test command with poisoning on, in its own process group,
    through :mod:`lint_rules.verify.supervisor`: nothing the command starts
    outlives verify, however verify ends. Logs and witness files go to
    ``workdir`` (the journal's folder)."""

    __test__ = False  # not a pytest test class

    def __init__(
        self, command: Sequence[str], timeout: float | None, workdir: Path
    ) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.workdir = workdir
        self.runs = 0

    def check_command(self) -> None:
        """VerifyUsageError if the command cannot be found (before any run)."""
        program = self.command[0]
        if os.sep in program or (os.altsep and os.altsep in program):
            found = os.path.isfile(program) and os.access(program, os.X_OK)
        else:
            found = shutil.which(program) is not None
        if not found:
            raise VerifyUsageError(
                f"cannot run the test command {program!r}: not found or not executable"
            )

    def run(
        self,
        poison: bool = True,
        *,
        heartbeat: Callable[[float], None] | None = None,
        every: float | None = None,
    ) -> RunResult:
        """Run the command once (poisoned unless ``poison`` is False); while it
        runs, call ``heartbeat(seconds since it started)`` every ``every``
        seconds. TestTimeout past the timeout."""
        self.runs += 1
        log = self.workdir / f"run-{self.runs}.log"
        witness = self.workdir / f"run-{self.runs}.witness"
        env = dict(os.environ)
        env.pop(POISON_ENV, None)
        env.pop(WITNESS_ENV, None)
        if poison:
            env[POISON_ENV] = "1"
            env[WITNESS_ENV] = str(witness)
        started = time.monotonic()
        with open(log, "wb") as output:
            try:
                process = subprocess.Popen(
                    [sys.executable, "-I", SUPERVISOR, *self.command],
                    stdin=subprocess.PIPE,  # its lifeline: closes when verify ends
                    stdout=output,
                    stderr=subprocess.STDOUT,
                    env=env,
                    start_new_session=True,
                )
            except OSError as error:
                raise VerifyUsageError(
                    f"cannot run the test command {self.command[0]!r}: {error}"
                ) from None
            try:
                try:
                    returncode = self._wait(process, started, heartbeat, every)
                except subprocess.TimeoutExpired:
                    _stop(process)
                    raise TestTimeout() from None
                except BaseException:
                    with signals_deferred():  # a second Ctrl-C must not orphan it
                        _stop(process)
                    raise
            finally:
                with contextlib.suppress(OSError):
                    assert process.stdin is not None
                    process.stdin.close()
        text = log.read_bytes().decode("utf-8", "replace")
        records = _read_witness(witness)
        failing = failing_tests_in(text)
        if not failing:
            failing = [r["nodeid"] for r in records if r.get("event") == "failed"]
            failing = list(dict.fromkeys(failing))
        return RunResult(
            passed=returncode == 0,
            returncode=returncode,
            duration=time.monotonic() - started,
            failing_tests=failing,
            poisoned=any(r.get("event") == "poisoned" for r in records),
            output=text,
        )

    def _wait(
        self,
        process: subprocess.Popen[bytes],
        started: float,
        heartbeat: Callable[[float], None] | None,
        every: float | None,
    ) -> int:
        """The command's exit status, waited for in steps of ``every`` seconds
        with a heartbeat after each; TimeoutExpired once the timeout is past."""
        deadline = None if self.timeout is None else started + self.timeout
        while True:
            wait = every if heartbeat is not None else None
            if deadline is not None:
                left = max(0.0, deadline - time.monotonic())
                wait = left if wait is None else min(wait, left)
            try:
                return process.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                if heartbeat is None or (
                    deadline is not None and time.monotonic() >= deadline
                ):
                    raise
                heartbeat(time.monotonic() - started)


def _read_witness(path: Path) -> list[dict[str, Any]]:
    records = []
    with contextlib.suppress(FileNotFoundError):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict):
                    records.append(record)
    return records


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Have the supervisor stop the command and everything it started (TERM,
    then KILL after a grace); KILL the supervisor if it does not end."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
