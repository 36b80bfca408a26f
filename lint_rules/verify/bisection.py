"""The verification itself: a baseline, every fix at once, then bisection of a failure."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from lint_rules.fixer import apply_fixes
from lint_rules.poison import POISON_ENV
from lint_rules.verify.candidates import (
    CONFIRMED,
    PENDING,
    REJECTED,
    UNCONFIRMED,
    CandidateFix,
    SourceState,
)
from lint_rules.verify.errors import (
    EXIT_NOT_CONFIRMED,
    EXIT_OK,
    EXIT_USAGE,
    VerifyUsageError,
)
from lint_rules.verify.report import (
    Progress,
    VerifyReport,
    describe,
    failing_clause,
    failure_summary,
    tail,
)
from lint_rules.verify.runs import RunResult, TestRunner
from lint_rules.verify.transaction import FileTransaction

NOT_POISONED = (
    "the test command passed, but no pytest session in it ran with poisoning on: "
    "is attnlint installed in the environment the command runs in, and is its "
    "pytest plugin enabled (not disabled with `-p no:attnlint` or "
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD)? Without poisoning a test run proves nothing."
)


def most_runs(fixes: int) -> int:
    """The most test runs a verification of ``fixes`` fixes (at least one)
    takes: the baseline, every fix at once, at most two runs per split of
    the bisection (``fixes - 1`` splits find every culprit), the final run."""
    return 2 * fixes + 1


class Verifier:
    """Applies subsets of the candidate fixes, runs the tests, bisects failures."""

    def __init__(
        self,
        states: list[SourceState],
        runner: TestRunner,
        transaction: FileTransaction,
        progress: Progress,
    ) -> None:
        self.states = states
        self.runner = runner
        self.transaction = transaction
        self.progress = progress
        self.candidates = [c for s in states for c in s.candidates]
        self.testable = [c for c in self.candidates if c.status == PENDING]
        # The set of fixes of the latest poisoned run, and how it went.
        self.latest: tuple[frozenset[int], RunResult] | None = None

    def try_set(self, chosen: Sequence[CandidateFix], poison: bool = True) -> RunResult:
        """Write exactly ``chosen`` into the files and run the tests."""
        self.write_set(chosen)
        self.progress.start(self.runner.runs + 1, describe(chosen, len(self.testable)))
        result = self.runner.run(
            poison=poison, heartbeat=self.progress.beat, every=self.progress.interval
        )
        self.progress.finish(result)
        if poison:
            self.latest = (frozenset(map(id, chosen)), result)
        if poison and result.passed and not result.poisoned:
            raise VerifyUsageError(NOT_POISONED)
        return result

    def reject_unparsable(self) -> None:
        """Fixes whose file no longer parses with them alone are rejected at once."""
        for candidate in self.testable:
            state = candidate.source
            text = apply_fixes(state.source.text, [candidate.fix])[0]
            try:
                ast.parse(text, filename=state.display)
            except (SyntaxError, ValueError) as error:
                candidate.status = REJECTED
                candidate.reason = f"the fixed file does not parse: {error}"
        self.testable = [c for c in self.testable if c.status == PENDING]

    def find_culprits(
        self,
        base: list[CandidateFix],
        suspects: list[CandidateFix],
        failure: RunResult,
    ) -> list[CandidateFix]:
        """Fixes in ``suspects`` to reject so that ``base`` + the rest passes.

        ``base`` passes; ``base + suspects`` failed with ``failure``. On return,
        ``base`` + (``suspects`` minus the culprits) has passed a run (or is
        ``base``). A culprit's rejecting tests are those of the run that
        isolated it.
        """
        if len(suspects) == 1:
            suspects[0].rejecting_tests = list(failure.failing_tests)
            if not failure.failing_tests:
                suspects[0].reason = (
                    f"the test command failed (exit code {failure.returncode}) "
                    "and named no failing test"
                )
            return suspects
        half = len(suspects) // 2
        first, second = suspects[:half], suspects[half:]
        result = self.try_set(base + first)
        if result.passed:
            # base + first passes and base + first + second is the failing set.
            return self.find_culprits(base + first, second, failure)
        culprits = self.find_culprits(base, first, result)
        kept = base + [c for c in first if c not in culprits]
        result = self.try_set(kept + second)
        if result.passed:
            return culprits
        return culprits + self.find_culprits(kept, second, result)

    def verify(self) -> VerifyReport:
        self.reject_unparsable()
        if not self.testable:
            return self.make_report("nothing-to-verify", EXIT_OK)
        self.progress.expect_runs(most_runs(len(self.testable)))
        baseline = self.try_set([])
        if not baseline.passed:
            return self._baseline_failed(baseline)
        everything = list(self.testable)
        result = self.try_set(everything)
        if result.passed:
            for candidate in everything:
                candidate.status = CONFIRMED
            return self.make_report("confirmed", EXIT_OK)
        self.progress.note(
            f"{failure_summary(result)} with all {len(everything)} fixes; bisecting"
        )
        culprits = self.find_culprits([], everything, result)
        for candidate in culprits:
            candidate.status = REJECTED
        kept = [c for c in everything if c not in culprits]
        if kept:
            final = self._final_run(kept)
            if not final.passed:
                for candidate in kept:
                    candidate.status = UNCONFIRMED
                    candidate.rejecting_tests = list(final.failing_tests)
                detail = (
                    "the final run with the rejected fixes reverted failed"
                    + failing_clause(final)
                    + "; the tests may be flaky or the fixes may interact.\n"
                    + tail(final.output)
                )
                return self.make_report("not-confirmed", EXIT_NOT_CONFIRMED, detail)
            for candidate in kept:
                candidate.status = CONFIRMED
        else:
            self.write_set([])
        return self.make_report("confirmed", EXIT_OK)

    def _final_run(self, kept: list[CandidateFix]) -> RunResult:
        """A run of exactly ``kept``; the bisection's last run when it was that."""
        if self.latest is not None and self.latest[0] == frozenset(map(id, kept)):
            self.progress.note(
                "the last run had exactly the fixes kept: it confirms them"
            )
            return self.latest[1]
        return self.try_set(kept)

    def write_set(self, chosen: Sequence[CandidateFix]) -> None:
        """Make every file hold exactly its fixes among ``chosen``."""
        for state in self.states:
            self.transaction.write(state.path, state.render(chosen))

    def _baseline_failed(self, baseline: RunResult) -> VerifyReport:
        # Tell apart "the tests fail" from "the tests fail only when poisoned".
        plain = self.try_set([], poison=False)
        if plain.passed:
            detail = (
                "the test command passes on the unchanged files but fails with "
                f"uninitialized memory poisoned ({POISON_ENV}=1)"
                + failing_clause(baseline)
                + ": the code already reads memory it never wrote, or the tests "
                "do not run under torch's deterministic mode. verify needs a "
                "poisoned baseline that passes.\n" + tail(baseline.output)
            )
        else:
            detail = (
                "the test command fails on the unchanged files "
                f"(exit code {plain.returncode})"
                + failing_clause(plain)
                + "; verify needs a passing test command to start from.\n"
                + tail(plain.output)
            )
        return self.make_report("baseline-failed", EXIT_USAGE, detail)

    def make_report(
        self, outcome: str, exit_code: int, detail: str = ""
    ) -> VerifyReport:
        return VerifyReport(
            outcome=outcome,
            exit_code=exit_code,
            candidates=self.candidates,
            runs=self.runner.runs,
            detail=detail,
        )
