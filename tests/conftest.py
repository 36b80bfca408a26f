"""What every test of the suite runs with."""

from __future__ import annotations

import signal

import pytest


@pytest.fixture(autouse=True, scope="session")
def _ctrl_c_raises():
    """Ctrl-C raises ``KeyboardInterrupt`` here, and in the processes the
    tests start, as where a user presses it: a suite run as a background
    job of a shell without job control (``pytest &`` in a script) starts
    with SIGINT ignored, which its children would keep, and the tests that
    send one (the fault injection, ``attnlint verify``) would test nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if previous is not None:  # (None: a handler not installed from Python)
        signal.signal(signal.SIGINT, previous)
