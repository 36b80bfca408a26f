"""What a verification tells: progress while it runs, the report at the end."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import IO

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
    detail: str = ""


class Progress:
    """One line per test run on stderr: which set, runs done, time elapsed."""

    def __init__(
        self, stream: IO[str] | None = None, enabled: bool | None = None
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = _isatty(self.stream) and not _truthy(os.environ.get("CI", ""))
        self.enabled = enabled
        self.started = time.monotonic()
        self._open_line = False

    def start(self, run: int, what: str) -> None:
        if self.enabled:
            elapsed = time.monotonic() - self.started
            self.stream.write(
                f"attnlint verify: run {run} [{elapsed:5.1f} s] {what} ... "
            )
            self.stream.flush()
            self._open_line = True

    def finish(self, result: RunResult) -> None:
        if self.enabled:
            verdict = "passed" if result.passed else failure_summary(result)
            self.stream.write(f"{verdict} ({result.duration:.1f} s)\n")
            self.stream.flush()
            self._open_line = False

    def note(self, message: str) -> None:
        if self.enabled:
            self.end_line()
            self.stream.write(f"attnlint verify: {message}\n")
            self.stream.flush()

    def end_line(self) -> None:
        if self._open_line:
            self.stream.write("\n")
            self._open_line = False


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
        name = os.path.basename(candidate.source.display)
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
    if report.exit_code != EXIT_OK:
        stdout.write("attnlint verify: every file restored\n")
    elif dry_run:
        stdout.write("attnlint verify: dry run, every file restored\n")
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
        "fixes": [c.to_json() for c in report.candidates],
    }
