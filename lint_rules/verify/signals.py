"""Signals during a verification: held back while files are restored, turned
into exceptions while tests run, so that every file is put back."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

from lint_rules.verify.errors import Terminated

STOP_SIGNALS = tuple(
    s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s
)


def in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def signals_deferred() -> Iterator[list[int]]:
    """Hold SIGINT, SIGTERM and SIGHUP in the block; yield the list of those held."""
    pending: list[int] = []
    if not in_main_thread():
        yield pending
        return
    previous = {
        s: signal.signal(s, lambda signum, frame: pending.append(signum))
        for s in STOP_SIGNALS
    }
    try:
        yield pending
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def signals_raised() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into an exception, so files get restored.
    (SIGINT already raises KeyboardInterrupt.)"""
    if not in_main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise Terminated(signum)

    watched = [s for s in STOP_SIGNALS if s != signal.SIGINT]
    previous = {s: signal.signal(s, handler) for s in watched}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Make SIGINT raise KeyboardInterrupt in the block even when this process
    started with it ignored.

    A background job of a non-interactive shell (``sh -c 'attnlint verify
    ... &'``, many CI runners and job scripts) inherits SIGINT ignored, and
    Python then installs no handler: Ctrl-C and ``kill -INT`` would do
    nothing. A program is usually right to keep such a signal ignored; verify
    is not, because it turns the signal into putting every file back, and a
    verify that cannot be interrupted is only stopped by means that leave
    the fixes in the files (SIGKILL, then ``verify --restore``).
    """
    if not in_main_thread() or signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
