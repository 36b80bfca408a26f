"""``--fix`` and ``verify`` killed at random moments leave every file whole.

SIGKILL (nothing can be cleaned up), SIGTERM and SIGINT, a few trials each
here; twenty each in the ``slow`` tests (``pytest -m slow``). What a trial
checks is in tests/fault_injection.py.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.fault_injection import SIGNALS, fix_run_seconds, fix_trial, verify_trial

#: Copies of the reference backend's unoptimized twin in a --fix trial.
COPIES = 24


@pytest.fixture(scope="module")
def fix_seconds(tmp_path_factory: pytest.TempPathFactory) -> float:
    return fix_run_seconds(tmp_path_factory.mktemp("calibrate"), COPIES)


def _fix_trials(tmp_path: Path, name: str, trials: int, seconds: float) -> None:
    rng = random.Random(f"fix-{name}")
    for trial in range(trials):
        problems = fix_trial(
            tmp_path / f"{name}-{trial}", SIGNALS[name], rng, COPIES, seconds
        )
        assert problems == [], f"{name}, trial {trial}"


def _verify_trials(tmp_path: Path, name: str, trials: int) -> None:
    rng = random.Random(f"verify-{name}")
    for trial in range(trials):
        problems = verify_trial(tmp_path / f"{name}-{trial}", SIGNALS[name], rng)
        assert problems == [], f"{name}, trial {trial}"


@pytest.mark.parametrize("name", SIGNALS)
def test_fix_killed_leaves_every_file_original_or_fixed(
    tmp_path: Path, fix_seconds: float, name: str
) -> None:
    _fix_trials(tmp_path, name, 2, fix_seconds)


@pytest.mark.parametrize("name", SIGNALS)
def test_verify_killed_then_restore_leaves_every_file_original(
    tmp_path: Path, name: str
) -> None:
    _verify_trials(tmp_path, name, 2)


@pytest.mark.slow
@pytest.mark.parametrize("name", SIGNALS)
def test_fix_killed_twenty_times(tmp_path: Path, fix_seconds: float, name: str) -> None:
    _fix_trials(tmp_path, name, 20, fix_seconds)


@pytest.mark.slow
@pytest.mark.parametrize("name", SIGNALS)
def test_verify_killed_twenty_times(tmp_path: Path, name: str) -> None:
    _verify_trials(tmp_path, name, 20)


def test_a_signal_while_the_workers_stop_is_handled_after() -> None:
    """A Ctrl-C that comes while the workers are being stopped (when
    multiprocessing's finalizers run) is held, then raised as the handler
    in place would: not printed and lost inside a finalizer."""
    import os
    import signal

    from lint_rules.runner import _with_signals_held

    stopped = []

    def stop() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        stopped.append(True)  # reached: the signal did not interrupt this

    with pytest.raises(KeyboardInterrupt):
        _with_signals_held(stop)
    assert stopped == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    _with_signals_held(lambda: None)  # nothing held: nothing raised


def test_a_signal_while_the_workers_start_stops_them(monkeypatch, tmp_path) -> None:
    """A SIGTERM that comes while the worker processes are being made (after
    some are forked, before the pool is returned) is held until the pool
    exists, then raised, and the pool's workers are stopped: none is left
    blocked on the task queue, holding the command's standard streams, after
    the command exits."""
    import multiprocessing
    import os
    import signal

    from lint_rules import runner
    from lint_rules.cli import _Terminated, _termination_raises
    from lint_rules.config import Settings

    fork = multiprocessing.get_context("fork")
    pools = []

    class Context:
        def Pool(self, *args, **kwargs):  # noqa: N802 (multiprocessing's name)
            pool = fork.Pool(*args, **kwargs)
            pools.append(pool)
            os.kill(os.getpid(), signal.SIGTERM)  # before the caller has it
            return pool

    monkeypatch.setattr(runner, "_pool_context", lambda: Context())
    files = []
    for number in range(runner.MIN_FILES_FOR_WORKERS):
        path = tmp_path / f"m{number}.py"
        path.write_text("x = 1\n", encoding="utf-8")
        files.append(str(path))
    with _termination_raises(), pytest.raises(_Terminated):
        for _ in runner._check(
            files,
            list(range(len(files))),
            Settings(),
            "check",
            False,
            2,
            str,
            [None] * len(files),
        ):
            pass
    assert pools, "the pool was made"
    workers = pools[0]._pool
    assert workers and not any(worker.is_alive() for worker in workers)


_SLOW_WORKERS = """
import multiprocessing, os, signal, sys, time
from pathlib import Path
from lint_rules import runner
from lint_rules.config import Settings
fork = multiprocessing.get_context("fork")
pools = []
start_worker = runner._start_worker

def slow_start(*args):
    time.sleep(0.5)  # the parent's SIGTERM comes before the handlers are set
    start_worker(*args)

class Context:
    def Pool(self, processes, initializer, initargs):  # noqa: N802
        pool = fork.Pool(processes, initializer=slow_start, initargs=initargs)
        pools.append(pool)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C as the pool is made
        return pool

runner._pool_context = lambda: Context()
files = []
for number in range(runner.MIN_FILES_FOR_WORKERS):
    path = Path(sys.argv[1]) / f"m{number}.py"
    path.write_text("x = 1\\n", encoding="utf-8")
    files.append(str(path))
try:
    for _ in runner._check(
        files, list(range(len(files))), Settings(), "check", False, 2, str,
        [None] * len(files),
    ):
        pass
except KeyboardInterrupt:
    workers = pools[0]._pool
    print("stopped" if workers and not any(w.is_alive() for w in workers) else "alive")
"""


def test_a_signal_before_the_workers_set_their_handlers_stops_them(tmp_path) -> None:
    """A Ctrl-C that comes as the pool is made, before the workers' own
    initializer has set their handlers: the parent stops the pool, and the
    SIGTERM each worker meets then waits (blocked) for those handlers
    instead of meeting one inherited from the parent, which dropped it and
    left a worker that never stopped and a parent waiting for it."""
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", _SLOW_WORKERS, str(tmp_path)],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.strip() == "stopped", (result.returncode, result.stderr)


def test_a_worker_orphaned_while_reporting_an_error_writes_nothing(monkeypatch) -> None:
    """A worker whose parent was killed outright can meet the broken pipe
    before it is given a new parent: the report of that error waits for the
    parent to go, and then writes nothing; with the parent alive it is
    written, after one wait only."""
    import io
    import os

    from lint_rules import runner

    parents = iter([41, 41, 41, 1])  # the parent goes on the third look
    monkeypatch.setattr(os, "getppid", lambda: next(parents, 1))
    stream = io.StringIO()
    orphan = runner._SilentOnceOrphaned(stream, 41)
    orphan.write("before\n")  # no error being handled: written at once
    try:
        raise BrokenPipeError
    except BrokenPipeError:
        orphan.write("Process ForkPoolWorker-1:\n")
        orphan.write("Traceback (most recent call last):\n")
    assert stream.getvalue() == "before\n"

    monkeypatch.setattr(os, "getppid", lambda: 41)
    monkeypatch.setattr(runner._SilentOnceOrphaned, "ORPHAN_WAIT", 0.05)
    alive = runner._SilentOnceOrphaned(io.StringIO(), 41)
    try:
        raise ValueError("a worker's own error")
    except ValueError:
        alive.write("Process ForkPoolWorker-2:\n")
        alive.write("Traceback (most recent call last):\n")
    assert alive._stream.getvalue() == (
        "Process ForkPoolWorker-2:\nTraceback (most recent call last):\n"
    )


_PTH_REPORT = (
    "Error processing line 1 of /v/site-packages/__editable__.attnlint-0.1.0.pth:\n"
    "\n"
    "  Traceback (most recent call last):\n"
    '    File "/usr/lib/python3.11/functools.py", line 972, in __set_name__\n'
    "      def __set_name__(self, owner, name):\n"
    "      \n"
    "  KeyboardInterrupt\n"
    "  \n"
    "  The above exception was the direct cause of the following exception:\n"
    "  \n"
    "  Traceback (most recent call last):\n"
    '    File "<frozen site>", line 186, in addpackage\n'
    "  RuntimeError: Error calling __set_name__ on 'cached_property' instance\n"
    "\n"
    "Remainder of file ignored\n"
)


def test_a_ctrl_c_while_site_reads_a_pth_file_is_not_attnlints_traceback() -> None:
    """A SIGINT that lands while ``site`` runs an editable install's ``.pth``
    line is reported by ``site`` itself, which goes on starting Python:
    not a traceback of attnlint's. Anything else printed still counts."""
    from tests.fault_injection import _traceback

    sigint, sigterm = SIGNALS["SIGINT"], SIGNALS["SIGTERM"]
    assert _traceback(_PTH_REPORT.encode(), sigint) is None
    attnlint_own = 'Traceback (most recent call last):\n  File "x"\nValueError: x\n'
    assert _traceback((_PTH_REPORT + attnlint_own).encode(), sigint)
    # Not a Ctrl-C: the .pth line failed for another reason.
    other = _PTH_REPORT.replace("KeyboardInterrupt", "ImportError: no module")
    assert _traceback(other.encode(), sigint)
    assert _traceback(_PTH_REPORT.encode(), sigterm)
