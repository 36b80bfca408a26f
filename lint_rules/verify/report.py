"""What a verification tells: progress while it runs, the report at the end."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import IO

from lint_rules.paths import quote_path
from lint_rules.verify.candidates import (
    CONFIRMED,
    PENDING,
    REJECTED,
    SKIPPED,
    UNCONFIRMED,
    CandidateFix,
)
from lint_rules.verify.errors import EXIT_OK
from lint_rules.verify.runs import RunResult


@dataclasses.dataclass
class VerifyReport:
    outcome: str
    exit_code: int
    candidates: list[CandidateFix]
    runs: int = 0
    elapsed: float = 0.0
    files_changed: list[str] = dataclasses.field(default_factory=list)
    #: Files somebody else changed while verify ran: not restored, left as found.
    files_left_as_found: list[str] = dataclasses.field(default_factory=list)
    #: Files that could not be put back (a full disk), each with why: their
    #: originals stay in the journal, for ``attnlint verify --restore``.
    files_not_restored: dict[str, str] = dataclasses.field(default_factory=dict)
    detail: str = ""


#: Seconds between two heartbeat lines while a test run lasts.
HEARTBEAT_SECONDS = 10.0
#: Set this environment variable to another number of seconds to change it.
HEARTBEAT_ENV = "ATTNLINT_VERIFY_HEARTBEAT"


def heartbeat_seconds(environ: dict[str, str] | None = None) -> float:
    """The heartbeat interval: ``ATTNLINT_VERIFY_HEARTBEAT`` if set (a positive
    number of seconds; ValueError saying so otherwise), else the default."""
    value = (os.environ if environ is None else environ).get(HEARTBEAT_ENV, "")
    if not value.strip():
        return HEARTBEAT_SECONDS
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise ValueError(
            f"{HEARTBEAT_ENV}={value!r}: expected a positive number of seconds"
        )
    return seconds


class Progress:
    """Progress on stderr while verify runs.

    Each test run is announced (which run of at most how many, the fixes it
    tries, the time elapsed) and its verdict follows; while a run lasts, a
    heartbeat line says it still runs, its time so far and the time in all,
    every ``interval`` seconds (:data:`HEARTBEAT_SECONDS`), on a terminal, in
    a pipe and in CI alike: a log that stays silent is a verify that hangs,
    not a slow test suite. On a terminal outside CI (``interactive``) a run
    that ends before its first heartbeat has its announcement and verdict
    on one line; elsewhere every message is a line of its own, flushed at
    once. ``enabled=False`` prints nothing.
    """

    def __init__(
        self,
        stream: IO[str] | None = None,
        enabled: bool = True,
        *,
        interactive: bool | None = None,
        interval: float | None = None,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        if interactive is None:
            interactive = _isatty(self.stream) and not _truthy(os.environ.get("CI", ""))
        self.interactive = interactive
        if interval is None:
            try:
                interval = heartbeat_seconds()
            except ValueError:  # verify reports it before any run
                interval = HEARTBEAT_SECONDS
        self.interval = interval
        self.started = time.monotonic()
        self.most_runs: int | None = None
        self._run: str | None = None
        self._open_line = False

    def expect_runs(self, most: int) -> None:
        """At most ``most`` test runs will be needed (shown with each run)."""
        self.most_runs = most

    def start(self, run: int, what: str) -> None:
        self._run = f"run {run}" + (
            f" of at most {self.most_runs}" if self.most_runs else ""
        )
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        if self.interactive:
            self._write(f"attnlint verify: {self._run} [{elapsed:5.1f} s] {what} ... ")
            self._open_line = True
        else:
            self._write(f"attnlint verify: {self._run} [{elapsed:.1f} s]: {what}\n")

    def beat(self, run_seconds: float) -> None:
        """The heartbeat: the run under way has lasted ``run_seconds``."""
        if not self.enabled:
            return
        self.end_line()
        elapsed = time.monotonic() - self.started
        self._write(
            f"attnlint verify: {self._run or 'a test run'} still running: "
            f"{run_seconds:.0f} s so far, {elapsed:.0f} s in all\n"
        )

    def finish(self, result: RunResult) -> None:
        if not self.enabled:
            return
        verdict = "passed" if result.passed else failure_summary(result)
        if self._open_line:
            self._write(f"{verdict} ({result.duration:.1f} s)\n")
            self._open_line = False
        else:
            self._write(
                f"attnlint verify: {self._run} {verdict} ({result.duration:.1f} s)\n"
            )

    def note(self, message: str) -> None:
        if self.enabled:
            self.end_line()
            self._write(f"attnlint verify: {message}\n")

    def end_line(self) -> None:
        if self._open_line:
            self._open_line = False
            self._write("\n")

    def _write(self, text: str) -> None:
        # Progress is a courtesy: a closed or broken stderr must not stop
        # a verification (which would then restore every file).
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _truthy(value: str) -> bool:
    return value.strip().lower() not in {"", "0", "false", "no", "off"}


def failure_summary(result: RunResult) -> str:
    count = len(result.failing_tests)
    if count:
        return f"failed ({count} test{'s' if count != 1 else ''})"
    return f"failed (exit code {result.returncode})"


def describe(chosen: Sequence[CandidateFix], total: int) -> str:
    """``3 of 8 fixes (backend.py:227,230,236)``: which set a run tries."""
    if not chosen:
        return "unchanged files"
    rows: dict[str, list[str]] = {}
    for candidate in chosen:
        display = candidate.source.display
        # A quoted display ("a\\nb/c.py") is quoted whole: its file's own
        # name is quoted on its own.
        name = (
            quote_path(candidate.source.path.name)
            if display.startswith('"')
            else os.path.basename(display)
        )
        rows.setdefault(name, []).append(str(candidate.finding.location.row))
    where = "; ".join(f"{name}:{','.join(numbers)}" for name, numbers in rows.items())
    if len(where) > 72:
        where = where[:69] + "..."
    return f"{len(chosen)} of {total} fixes ({where})"


def failing_clause(result: RunResult) -> str:
    if not result.failing_tests:
        return ""
    shown = ", ".join(result.failing_tests[:5])
    more = (
        f" and {len(result.failing_tests) - 5} more"
        if len(result.failing_tests) > 5
        else ""
    )
    return f" (failing: {shown}{more})"


def tail(output: str, lines: int = 30) -> str:
    kept = output.rstrip().splitlines()[-lines:]
    if not kept:
        return ""
    return "last lines of its output:\n" + "\n".join("  " + line for line in kept)


def write_report(
    report: VerifyReport,
    *,
    command: Sequence[str],
    paths: Sequence[str],
    dry_run: bool,
    output_format: str,
    stdout: IO[str],
    stderr: IO[str],
) -> None:
    if output_format == "json":
        data = json_report(report, command=command, paths=paths, dry_run=dry_run)
        json.dump(data, stdout, indent=2)
        stdout.write("\n")
        if report.detail and report.exit_code != EXIT_OK:
            stderr.write(f"attnlint verify: {report.detail}\n")
        return
    counts = {
        status: sum(c.status == status for c in report.candidates)
        for status in (CONFIRMED, REJECTED, UNCONFIRMED, SKIPPED)
    }
    for candidate in report.candidates:
        if candidate.status == PENDING:
            continue
        finding = candidate.finding
        line = (
            f"{candidate.source.display}:{finding.location.row}:{finding.location.column}: "
            f"{finding.code} {candidate.status}"
        )
        stdout.write(f"{line}\n    {finding.message}\n")
        if candidate.rejecting_tests:
            verb = "failed" if candidate.status == UNCONFIRMED else "rejected by"
            for index, test in enumerate(candidate.rejecting_tests):
                label = verb if index == 0 else " " * len(verb)
                stdout.write(f"    {label}  {test}\n")
        if candidate.reason:
            stdout.write(f"    ({candidate.reason})\n")
    if report.detail and report.exit_code != EXIT_OK:
        stderr.write(f"attnlint verify: {report.detail}\n")
    total = len(report.candidates)
    if not total:
        stdout.write("attnlint verify: no unsafe fixes to verify\n")
        return
    summary = (
        f"attnlint verify: {total} unsafe fix{'es' if total != 1 else ''}: "
        f"{counts[CONFIRMED]} confirmed, {counts[REJECTED]} rejected"
    )
    if counts[UNCONFIRMED]:
        summary += f", {counts[UNCONFIRMED]} unconfirmed"
    if counts[SKIPPED]:
        summary += f", {counts[SKIPPED]} skipped"
    summary += f"; {report.runs} test run{'s' if report.runs != 1 else ''}, {report.elapsed:.1f} s"
    stdout.write(summary + "\n")
    left = report.files_left_as_found
    not_restored = report.files_not_restored
    restored = (
        "every other file restored" if left or not_restored else "every file restored"
    )
    if left:
        restored += " (" + ", ".join(left) + " changed meanwhile: left as found)"
    if not_restored:
        by_reason: dict[str, list[str]] = {}
        for name, why in not_restored.items():
            by_reason.setdefault(why, []).append(name)
        failed = "; ".join(
            f"{', '.join(names)} not restored ({why})"
            for why, names in by_reason.items()
        )
        one = len(not_restored) == 1
        restored = (
            f"{failed}: the journal keeps {'its original' if one else 'their originals'}, "
            f"and `attnlint verify --restore` puts {'it' if one else 'them'} back "
            f"once that is fixed; {restored}"
        )
    if report.exit_code != EXIT_OK:
        stdout.write(f"attnlint verify: {restored}\n")
    elif dry_run:
        stdout.write(f"attnlint verify: dry run, {restored}\n")
    elif report.files_changed:
        stdout.write(
            "attnlint verify: confirmed fixes written to "
            + ", ".join(report.files_changed)
            + "\n"
        )


def json_report(
    report: VerifyReport,
    *,
    command: Sequence[str],
    paths: Sequence[str],
    dry_run: bool,
) -> dict[str, object]:
    return {
        "version": 1,
        "outcome": report.outcome,
        "exit_code": report.exit_code,
        "detail": report.detail or None,
        "command": list(command),
        "paths": list(paths),
        "dry_run": dry_run,
        "runs": report.runs,
        "elapsed_seconds": round(report.elapsed, 3),
        "files_changed": report.files_changed,
        "files_left_as_found": report.files_left_as_found,
        "files_not_restored": list(report.files_not_restored),
        "fixes": [c.to_json() for c in report.candidates],
    }
