"""What ends a verification early, and the exit codes ``attnlint verify`` returns."""

from __future__ import annotations

#: Exit codes (documented in the ``--help`` epilog).
EXIT_OK = 0
EXIT_NOT_CONFIRMED = 1
EXIT_USAGE = 2
EXIT_TIMEOUT = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C


class VerifyUsageError(Exception):
    """A problem with the arguments or the environment; exit code 2."""


class TestTimeout(Exception):
    """A test run exceeded ``--timeout``."""

    __test__ = False  # not a pytest test class


class Terminated(BaseException):
    """Raised from a signal handler, like KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
