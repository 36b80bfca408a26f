"""The unsafe fixes a verification tests, per file, as ``attnlint check`` finds them."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from lint_rules.checker import check_source
from lint_rules.config import ConfigError, load_settings
from lint_rules.diagnostics import Applicability, Finding, Fix
from lint_rules.discover import DiscoveryError, discover_files, one_name_per_file
from lint_rules.fixer import apply_fixes
from lint_rules.output import display_path
from lint_rules.source import SourceError, SourceFile, read_regular_file
from lint_rules.verify.errors import VerifyUsageError

PENDING = "pending"
CONFIRMED = "confirmed"
REJECTED = "rejected"
UNCONFIRMED = "unconfirmed"
SKIPPED = "skipped"


@dataclasses.dataclass(eq=False)
class CandidateFix:
    """One unsafe fix under test, and what the test runs said about it."""

    source: SourceState
    finding: Finding
    status: str = PENDING
    rejecting_tests: list[str] = dataclasses.field(default_factory=list)
    reason: str = ""

    @property
    def fix(self) -> Fix:
        assert self.finding.fix is not None
        return self.finding.fix

    def label(self) -> str:
        location = self.finding.location
        return f"{self.source.display}:{location.row}:{location.column} {self.finding.code}"

    def to_json(self) -> dict[str, object]:
        finding = self.finding
        return {
            "filename": self.source.display,
            "code": finding.code,
            "name": finding.name,
            "row": finding.location.row,
            "column": finding.location.column,
            "end_row": finding.end_location.row,
            "end_column": finding.end_location.column,
            "message": finding.message,
            "fix_message": self.fix.message,
            "status": self.status,
            "rejecting_tests": list(self.rejecting_tests),
            "reason": self.reason or None,
        }


class SourceState:
    """One file with candidate fixes: its original bytes (and status when
    read, if known), and any subset of the fixes applied."""

    def __init__(
        self,
        path: Path,
        display: str,
        data: bytes,
        info: os.stat_result | None = None,
    ) -> None:
        self.path = path
        self.display = display
        self.original = data
        self.info = info
        self.source = SourceFile.from_bytes(data)
        self.candidates: list[CandidateFix] = []

    def render(self, chosen: Iterable[CandidateFix]) -> bytes:
        """The file's bytes with exactly the ``chosen`` candidates of this file applied."""
        fixes = [c.fix for c in chosen if c.source is self]
        if not fixes:
            return self.original
        # One pass of the fixer, no re-check: exactly these fixes.
        return self.source.to_bytes(apply_fixes(self.source.text, fixes)[0])


def _selected(code: str, select: tuple[str, ...] | None) -> bool:
    return select is None or any(code.startswith(prefix) for prefix in select)


def collect_candidates(
    paths: Sequence[str],
    select: tuple[str, ...] | None = None,
    find: Callable[[str, str], list[Finding]] | None = None,
    config: str | None = None,
) -> list[SourceState]:
    """Files under ``paths`` with their unsafe fixes, in path order.

    Files are found, and checked, as ``attnlint check`` does with the
    configuration for ``paths`` (or the file ``config``). ``find(text,
    filename)``, when given, replaces the checker (tests use synthetic fixes).
    """
    try:
        settings = load_settings(config, start=paths[0] if paths else None)
        files = discover_files(paths, settings)
    except (ConfigError, DiscoveryError) as error:
        raise VerifyUsageError(str(error)) from None
    if find is None:

        def find(text: str, filename: str) -> list[Finding]:
            return check_source(text, filename, settings)

    states: list[SourceState] = []
    for path in one_name_per_file(files):
        display = display_path(str(path))
        try:
            data, info = read_regular_file(path)
            state = SourceState(path.resolve(), display, data, info)
        except OSError as error:
            raise VerifyUsageError(
                f"cannot read {display}: {error.strerror or error}"
            ) from None
        except SourceError as error:
            raise VerifyUsageError(f"cannot read {display}: {error}") from None
        findings = [
            finding
            for finding in find(state.source.text, str(path))
            if finding.fix is not None
            and finding.fix.applicability is Applicability.UNSAFE
            and _selected(finding.code, select)
        ]
        if not findings:
            continue
        taken: list[Fix] = []
        for finding in sorted(findings, key=lambda f: f.fix.start):  # type: ignore[union-attr]
            candidate = CandidateFix(state, finding)
            if state.source.differs_at is not None:
                # Writing any text would change bytes no fix touches.
                candidate.status = SKIPPED
                candidate.reason = (
                    f"the file's text does not encode back to its bytes "
                    f"as {state.source.encoding}"
                )
            elif (
                candidate.fix
                not in apply_fixes(state.source.text, [*taken, candidate.fix])[1]
            ):
                # The fixer would not take it next to the others (overlap).
                candidate.status = SKIPPED
                candidate.reason = "overlaps another unsafe fix; run verify again"
            else:
                taken.append(candidate.fix)
            state.candidates.append(candidate)
        states.append(state)
    return states
