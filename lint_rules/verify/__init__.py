"""``attnlint verify``: keep the unsafe fixes that a poisoned test run accepts.

An unsafe fix such as ATN102's ``torch.zeros`` -> ``torch.empty`` on a
persistent buffer is right only if nothing reads the buffer before writing
it. verify checks that at run time:

1. it runs the test command on the unchanged files, with uninitialized memory
   poisoned (``ATTNLINT_POISON=1``, read by attnlint's pytest plugin); this
   baseline must pass;
2. it applies every unsafe fix and runs the command again; under poisoning,
   a buffer read before it is written holds NaN or the integer maximum, which
   the tests see;
3. if that run fails, it finds the fixes that break it by bisection (each
   step keeps what passed and splits what failed), reverts them, and confirms
   the rest with a final run.

Before it touches any file, verify writes every original to an on-disk
journal (``.attnlint_verify/`` in the project root, flushed to disk). Every
file it writes is written atomically by the fixer's guarded writer
(``lint_rules.fixer.write_atomic``) and restored byte for byte, with its
modification time, on any failure, timeout, Ctrl-C or SIGTERM, and always
after ``--dry-run``; when verify cannot (SIGKILL, a power cut),
``attnlint verify --restore`` does it from the journal. Each write of a
changed file gets a modification time (in whole seconds) no earlier version
of it had this session, so Python and pytest never load a stale cached
``.pyc`` when a fix is applied and reverted within one second (``zeros`` and
``empty`` have the same length). Test commands run under a supervisor that
stops their whole process group when verify goes away.

One module per job: ``command`` (arguments, one verification from start to
report, ``--restore``), ``candidates`` (the unsafe fixes per file),
``journal`` (the originals on disk), ``transaction`` (writing and restoring
files), ``runs`` and ``supervisor`` (running the test command), ``bisection``
(which fixes break the tests), ``report`` (progress and the report),
``signals`` and ``errors``. The CLI registers the subcommand with
:func:`add_verify_parser` and runs it with :func:`run_verify`, which also
accepts a raw argument list.
"""

from __future__ import annotations

from lint_rules.verify.bisection import Verifier
from lint_rules.verify.candidates import (
    CONFIRMED,
    REJECTED,
    SKIPPED,
    UNCONFIRMED,
    CandidateFix,
    SourceState,
    collect_candidates,
)
from lint_rules.verify.command import (
    VerifyOptions,
    _options_from,
    add_verify_parser,
    build_parser,
    run_verify,
    verify,
)
from lint_rules.verify.errors import (
    EXIT_INTERRUPTED,
    EXIT_NOT_CONFIRMED,
    EXIT_OK,
    EXIT_TIMEOUT,
    EXIT_USAGE,
    VerifyUsageError,
)
from lint_rules.verify.journal import JOURNAL_FOLDER, Journal, JournalError
from lint_rules.verify.report import Progress, VerifyReport
from lint_rules.verify.runs import WITNESS_ENV, RunResult, TestRunner, failing_tests_in
from lint_rules.verify.transaction import FileTransaction

__all__ = [
    "CONFIRMED",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_CONFIRMED",
    "EXIT_OK",
    "EXIT_TIMEOUT",
    "EXIT_USAGE",
    "REJECTED",
    "SKIPPED",
    "UNCONFIRMED",
    "WITNESS_ENV",
    "CandidateFix",
    "FileTransaction",
    "JOURNAL_FOLDER",
    "Journal",
    "JournalError",
    "Progress",
    "RunResult",
    "SourceState",
    "TestRunner",
    "Verifier",
    "VerifyOptions",
    "VerifyReport",
    "VerifyUsageError",
    "_options_from",
    "add_verify_parser",
    "build_parser",
    "collect_candidates",
    "failing_tests_in",
    "run_verify",
    "verify",
]
