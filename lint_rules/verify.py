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

Every file it writes is written atomically (temporary file in the same
directory, then ``os.replace``; mode kept) and restored byte for byte, with its
modification time, on any failure, timeout, Ctrl-C or SIGTERM, and always
after ``--dry-run``. Each write of a changed file gets a modification time (in
whole seconds) no earlier version of it had this session, so Python and
pytest never load a stale cached ``.pyc`` when a fix is applied and reverted
within one second (``zeros`` and ``empty`` have the same length).

The CLI registers the subcommand with :func:`add_verify_parser` and runs it
with :func:`run_verify`, which also accepts a raw argument list.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from lint_rules.checker import check_source
from lint_rules.config import ConfigError, load_settings
from lint_rules.diagnostics import Applicability, Finding, Fix
from lint_rules.discover import DiscoveryError, discover_files
from lint_rules.fixer import apply_fixes
from lint_rules.output import display_path
from lint_rules.poison import POISON_ENV
from lint_rules.source import SourceError, SourceFile

#: Exit codes (documented in the ``--help`` epilog).
EXIT_OK = 0
EXIT_NOT_CONFIRMED = 1
EXIT_USAGE = 2
EXIT_TIMEOUT = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C

#: The pytest plugin appends JSON lines to this file in a poisoned session.
WITNESS_ENV = "ATTNLINT_POISON_WITNESS"

CONFIRMED = "confirmed"
REJECTED = "rejected"
UNCONFIRMED = "unconfirmed"
SKIPPED = "skipped"

_DESCRIPTION = """\
Run TEST COMMAND with uninitialized memory poisoned and keep the unsafe fixes
(zeros -> empty on persistent buffers, ATN1xx) that it accepts. Safe fixes are
not verify's business: apply them with `attnlint check --fix`.

The command runs once on the unchanged files (it must pass), then with every
unsafe fix applied; if that fails, the fixes that break it are found by
bisection, reverted, and the rest confirmed by a final run. Poisoning reaches
every pytest run inside the command through the ATTNLINT_POISON environment
variable, read by attnlint's pytest plugin, which must be installed where the
command runs.
"""

_EPILOG = """\
files: written atomically and restored byte for byte on any failure, timeout,
  Ctrl-C or SIGTERM. With --dry-run the fixes are applied during the test runs
  as usual, and every file is restored at the end.

exit codes:
  0    every unsafe fix confirmed, or the rejected ones reverted and the rest
       confirmed by a final run (also: no unsafe fixes to verify)
  1    the final run with the rejected fixes reverted still failed; every file
       restored
  2    usage or configuration error, or the baseline (unchanged files,
       poisoning on) fails, or poisoning did not reach any pytest run
  3    a test run exceeded --timeout; every file restored
  130  interrupted (Ctrl-C), 143 terminated (SIGTERM); every file restored

example:
  attnlint verify src/backend -- python -m pytest -x -q tests/backend
"""


class VerifyUsageError(Exception):
    """A problem with the arguments or the environment; exit code 2."""


class _Timeout(Exception):
    pass


class _Terminated(BaseException):
    """Raised from a signal handler, like KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# --------------------------------------------------------------------------
# Arguments


def add_verify_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``verify`` on an ``argparse`` subparsers object.

    The parsed namespace has ``func`` set to :func:`run_verify`; call
    ``run_verify(args)`` with it.
    """
    parser = subparsers.add_parser(
        "verify",
        help="run the tests with poisoned memory and keep the unsafe fixes they accept",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="%(prog)s [options] [PATHS ...] -- TEST COMMAND ...",
    )
    _add_arguments(parser)
    parser.set_defaults(func=run_verify)
    return parser


def build_parser(prog: str = "attnlint verify") -> argparse.ArgumentParser:
    """A standalone parser for ``verify`` (what :func:`run_verify` uses for a list)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="%(prog)s [options] [PATHS ...] -- TEST COMMAND ...",
    )
    _add_arguments(parser)
    return parser


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    _add_options(parser)
    # Everything from the first path on: paths, then `--`, then the command.
    # (A REMAINDER keeps the `--`, so the split is ours, not argparse's.)
    parser.add_argument(
        "arguments",
        nargs=argparse.REMAINDER,
        metavar="PATHS -- TEST COMMAND",
        help="files or directories to fix (default: .), then `--` and the test "
        "command, run without a shell",
    )


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help="limit for each test run; a run that exceeds it aborts verify and "
        "restores every file (default: no limit)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="apply the fixes during the test runs as usual, but restore every "
        "file at the end; only report",
    )
    parser.add_argument(
        "--select",
        metavar="CODES",
        type=_codes,
        help="comma-separated codes or prefixes of the unsafe fixes to verify "
        "(default: every unsafe fix the configuration enables)",
    )
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="the pyproject.toml to read [tool.attnlint] from (default: the "
        "nearest one above the first path)",
    )
    parser.add_argument(
        "--output-format",
        choices=("text", "json"),
        default="text",
        help="report format on stdout (default: text)",
    )


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def _codes(text: str) -> tuple[str, ...]:
    codes = tuple(part.strip().upper() for part in text.split(",") if part.strip())
    if not codes:
        raise argparse.ArgumentTypeError("no codes given")
    return codes


@dataclasses.dataclass
class VerifyOptions:
    paths: list[str]
    command: list[str]
    timeout: float | None = None
    dry_run: bool = False
    select: tuple[str, ...] | None = None
    output_format: str = "text"
    config: str | None = None


def _options_from(args: argparse.Namespace) -> VerifyOptions:
    rest = list(args.arguments or [])
    if "--" not in rest:
        raise VerifyUsageError(
            "no test command: put it after `--`, as in "
            "`attnlint verify src -- python -m pytest tests`"
        )
    split = rest.index("--")
    before, command = rest[:split], rest[split + 1 :]
    if any(item.startswith("-") for item in before):
        # Options written after a path: argparse's REMAINDER kept them for us.
        paths_parser = argparse.ArgumentParser(prog="attnlint verify", add_help=False)
        _add_options(paths_parser)
        paths_parser.add_argument("paths", nargs="*")
        extra = paths_parser.parse_intermixed_args(before)
        for key, default in (
            ("timeout", None),
            ("dry_run", False),
            ("select", None),
            ("config", None),
        ):
            if getattr(extra, key) != default:
                setattr(args, key, getattr(extra, key))
        if extra.output_format != "text":
            args.output_format = extra.output_format
        before = extra.paths
    if not command:
        raise VerifyUsageError("the test command after `--` is empty")
    return VerifyOptions(
        paths=before or ["."],
        command=command,
        timeout=args.timeout,
        dry_run=args.dry_run,
        select=args.select,
        output_format=args.output_format,
        config=args.config,
    )


# --------------------------------------------------------------------------
# Candidate fixes


@dataclasses.dataclass(eq=False)
class CandidateFix:
    """One unsafe fix under test, and what the test runs said about it."""

    source: SourceState
    finding: Finding
    status: str = "pending"
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
    """One file with candidate fixes: its original bytes, and any subset applied."""

    def __init__(self, path: Path, display: str, data: bytes) -> None:
        self.path = path
        self.display = display
        self.original = data
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
    for path in files:
        display = display_path(str(path))
        try:
            data = path.read_bytes()
            state = SourceState(path.resolve(), display, data)
        except (OSError, SourceError) as error:
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
            if (
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


# --------------------------------------------------------------------------
# Files: atomic writes, byte-for-byte restore


@dataclasses.dataclass
class _Original:
    data: bytes
    mode: int
    atime_ns: int
    mtime_ns: int


class FileTransaction:
    """Writes files atomically and can put every one back as it was.

    A file somebody else changed while verify ran (neither its original
    content nor the last one written here) is left alone and listed in
    ``conflicts``.
    """

    def __init__(self) -> None:
        self._originals: dict[Path, _Original] = {}
        # What the file holds now; None while a write is under way.
        self._current: dict[Path, bytes | None] = {}
        self._last_mtime: dict[Path, int] = {}
        self.conflicts: list[Path] = []
        # Signals that arrived during the last restore (held until it ended).
        self.signals_held: list[int] = []

    def remember(self, path: Path, data: bytes) -> None:
        """Record ``path``'s original content (already read) and metadata."""
        stat = path.stat()
        self._originals[path] = _Original(
            data, stat.st_mode & 0o7777, stat.st_atime_ns, stat.st_mtime_ns
        )
        self._current[path] = data
        self._last_mtime[path] = stat.st_mtime_ns // 1_000_000_000

    def write(self, path: Path, data: bytes) -> bool:
        """Give ``path`` the content ``data``; return whether it changed."""
        if self._current[path] == data:
            return False
        original = self._originals[path]
        if data == original.data:
            self._restore_one(path, original)
            return True
        # A whole second no earlier version of this file had: a cached .pyc of
        # an earlier version can never match (it records seconds and size).
        mtime = max(int(time.time()), self._last_mtime[path] + 1)
        self._last_mtime[path] = mtime
        self._current[path] = None
        _atomic_write(path, data, original.mode)
        os.utime(path, ns=(original.atime_ns, mtime * 1_000_000_000))
        self._current[path] = data
        return True

    def changed(self) -> list[Path]:
        return [
            p for p, data in self._current.items() if data != self._originals[p].data
        ]

    def restore(self) -> list[Path]:
        """Put back every changed file; return the paths restored.

        Signals that arrive meanwhile are held back and listed in
        ``signals_held``: a restore is never left half done.
        """
        restored = []
        with _signals_deferred() as self.signals_held:
            for path, original in self._originals.items():
                expected = self._current[path]
                try:
                    on_disk: bytes | None = path.read_bytes()
                except FileNotFoundError:
                    on_disk = None
                if expected == original.data and on_disk == original.data:
                    continue
                if expected is not None and on_disk not in (expected, original.data):
                    self.conflicts.append(path)
                    continue
                self._restore_one(path, original)
                restored.append(path)
        return restored

    def _restore_one(self, path: Path, original: _Original) -> None:
        self._current[path] = None
        _atomic_write(path, original.data, original.mode)
        os.utime(path, ns=(original.atime_ns, original.mtime_ns))
        self._current[path] = original.data


def _atomic_write(path: Path, data: bytes, mode: int) -> None:
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".attnlint-tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def _signals_deferred() -> Iterator[list[int]]:
    """Hold SIGINT, SIGTERM and SIGHUP in the block; yield the list of those held."""
    pending: list[int] = []
    if not _in_main_thread():
        yield pending
        return
    previous = {
        s: signal.signal(s, lambda signum, frame: pending.append(signum))
        for s in _STOP_SIGNALS
    }
    try:
        yield pending
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


_STOP_SIGNALS = tuple(
    s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s
)


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


# --------------------------------------------------------------------------
# Test runs


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


class TestRunner:
    """Runs the test command with poisoning on, in its own process group."""

    __test__ = False  # not a pytest test class

    def __init__(
        self, command: Sequence[str], timeout: float | None, workdir: Path
    ) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.workdir = workdir
        self.runs = 0

    def run(self, poison: bool = True) -> RunResult:
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
                    self.command,
                    stdin=subprocess.DEVNULL,
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
                returncode = process.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                raise _Timeout() from None
            except BaseException:
                with _signals_deferred():  # a second Ctrl-C must not orphan it
                    _kill_group(process)
                raise
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


def _read_witness(path: Path) -> list[dict[str, Any]]:
    records = []
    with contextlib.suppress(FileNotFoundError):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict):
                    records.append(record)
    return records


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Stop the command and everything it started: TERM, then KILL after a grace."""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


# --------------------------------------------------------------------------
# Progress


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
            verdict = "passed" if result.passed else _failure_summary(result)
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


def _failure_summary(result: RunResult) -> str:
    count = len(result.failing_tests)
    if count:
        return f"failed ({count} test{'s' if count != 1 else ''})"
    return f"failed (exit code {result.returncode})"


def _describe(chosen: Sequence[CandidateFix], total: int) -> str:
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


# --------------------------------------------------------------------------
# The verification


@dataclasses.dataclass
class VerifyReport:
    outcome: str
    exit_code: int
    candidates: list[CandidateFix]
    runs: int = 0
    elapsed: float = 0.0
    files_changed: list[str] = dataclasses.field(default_factory=list)
    detail: str = ""


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
        self.testable = [c for c in self.candidates if c.status == "pending"]
        # The set of fixes of the latest poisoned run, and how it went.
        self.latest: tuple[frozenset[int], RunResult] | None = None

    def try_set(self, chosen: Sequence[CandidateFix], poison: bool = True) -> RunResult:
        """Write exactly ``chosen`` into the files and run the tests."""
        self.write_set(chosen)
        self.progress.start(self.runner.runs + 1, _describe(chosen, len(self.testable)))
        result = self.runner.run(poison=poison)
        self.progress.finish(result)
        if poison:
            self.latest = (frozenset(map(id, chosen)), result)
        if poison and result.passed and not result.poisoned:
            raise VerifyUsageError(_NOT_POISONED)
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
        self.testable = [c for c in self.testable if c.status == "pending"]

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
            f"{_failure_summary(result)} with all {len(everything)} fixes; bisecting"
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
                    + _failing_clause(final)
                    + "; the tests may be flaky or the fixes may interact.\n"
                    + _tail(final.output)
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
                + _failing_clause(baseline)
                + ": the code already reads memory it never wrote, or the tests "
                "do not run under torch's deterministic mode. verify needs a "
                "poisoned baseline that passes.\n" + _tail(baseline.output)
            )
        else:
            detail = (
                "the test command fails on the unchanged files "
                f"(exit code {plain.returncode})"
                + _failing_clause(plain)
                + "; verify needs a passing test command to start from.\n"
                + _tail(plain.output)
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


_NOT_POISONED = (
    "the test command passed, but no pytest session in it ran with poisoning on: "
    "is attnlint installed in the environment the command runs in, and is its "
    "pytest plugin enabled (not disabled with `-p no:attnlint` or "
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD)? Without poisoning a test run proves nothing."
)


def _failing_clause(result: RunResult) -> str:
    if not result.failing_tests:
        return ""
    shown = ", ".join(result.failing_tests[:5])
    more = (
        f" and {len(result.failing_tests) - 5} more"
        if len(result.failing_tests) > 5
        else ""
    )
    return f" (failing: {shown}{more})"


def _tail(output: str, lines: int = 30) -> str:
    kept = output.rstrip().splitlines()[-lines:]
    if not kept:
        return ""
    return "last lines of its output:\n" + "\n".join("  " + line for line in kept)


# --------------------------------------------------------------------------
# Entry point


def run_verify(
    args: argparse.Namespace | Sequence[str] | None = None,
    *,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    find: Callable[[str, str], list[Finding]] | None = None,
) -> int:
    """Run ``attnlint verify``; return the exit code.

    ``args`` is the namespace parsed by a parser from :func:`add_verify_parser`,
    or a list of arguments (``[PATHS] -- COMMAND``, options anywhere before
    ``--``), or None for ``sys.argv[1:]``. ``find(text, filename)`` replaces
    the checker (tests use it to verify synthetic fixes).
    """
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if args is None or not isinstance(args, argparse.Namespace):
        parser = build_parser()
        try:
            args = parser.parse_args(list(sys.argv[1:] if args is None else args))
        except SystemExit as exit_:
            return EXIT_USAGE if exit_.code else EXIT_OK
    try:
        options = _options_from(args)
    except VerifyUsageError as error:
        err.write(f"attnlint verify: error: {error}\n")
        return EXIT_USAGE
    except SystemExit:  # argparse has printed the error
        return EXIT_USAGE
    try:
        return verify(options, stdout=out, stderr=err, find=find)
    except _Terminated as terminated:  # only between two safe points: files restored
        return 128 + terminated.signum


def verify(
    options: VerifyOptions,
    *,
    stdout: IO[str],
    stderr: IO[str],
    find: Callable[[str, str], list[Finding]] | None = None,
    progress: Progress | None = None,
) -> int:
    """Verify the unsafe fixes under ``options.paths``; report; return the exit code."""
    started = time.monotonic()
    progress = progress or Progress(stderr)
    try:
        states = collect_candidates(options.paths, options.select, find, options.config)
        _check_writable(states)
    except VerifyUsageError as error:
        stderr.write(f"attnlint verify: error: {error}\n")
        return EXIT_USAGE
    transaction = FileTransaction()
    for state in states:
        transaction.remember(state.path, state.original)
    report: VerifyReport
    with tempfile.TemporaryDirectory(prefix="attnlint-verify-") as workdir:
        runner = TestRunner(options.command, options.timeout, Path(workdir))
        verifier = Verifier(states, runner, transaction, progress)
        restore_at_end = True
        held: list[int] = []
        with _signals_raised():
            try:
                report = verifier.verify()
            except VerifyUsageError as error:
                report = verifier.make_report("error", EXIT_USAGE, str(error))
            except _Timeout:
                report = verifier.make_report(
                    "timeout",
                    EXIT_TIMEOUT,
                    f"test run {runner.runs} exceeded the --timeout of "
                    f"{options.timeout:g} s",
                )
            except KeyboardInterrupt:
                report = verifier.make_report(
                    "interrupted", EXIT_INTERRUPTED, "interrupted"
                )
            except _Terminated as terminated:
                report = verifier.make_report(
                    "interrupted",
                    128 + terminated.signum,
                    f"terminated by signal {terminated.signum}",
                )
            else:
                restore_at_end = options.dry_run or report.exit_code != EXIT_OK
            finally:
                # Runs even for an internal error, which then propagates.
                with _signals_deferred() as held:
                    progress.end_line()
                    changed = _changed_displays(states, transaction)
                    if restore_at_end:
                        transaction.restore()
    held = held + transaction.signals_held
    if held and restore_at_end and report.outcome != "interrupted":
        # Stopped while restoring: the files are back, and the exit code says why.
        # (After a success the signal came too late to change anything.)
        report.outcome, report.exit_code = "interrupted", 128 + held[0]
    if transaction.conflicts:
        names = ", ".join(_display(states, p) for p in transaction.conflicts)
        note = f"{names} changed on disk while verify ran: left as found, not restored"
        report.detail = f"{report.detail}\n{note}" if report.detail else note
    report.elapsed = time.monotonic() - started
    report.files_changed = [] if restore_at_end else sorted(changed.values())
    for candidate in report.candidates:
        # An aborted or failed verification leaves no fix behind, and says so.
        undecided = candidate.status == "pending"
        if undecided or (report.exit_code != EXIT_OK and candidate.status == CONFIRMED):
            candidate.status = UNCONFIRMED
    _write_report(report, options, stdout, stderr)
    return report.exit_code


def _display(states: list[SourceState], path: Path) -> str:
    return next((s.display for s in states if s.path == path), str(path))


def _changed_displays(
    states: list[SourceState], transaction: FileTransaction
) -> dict[Path, str]:
    changed = set(transaction.changed())
    return {s.path: s.display for s in states if s.path in changed}


def _check_writable(states: list[SourceState]) -> None:
    for state in states:
        if not os.access(state.path, os.W_OK) or not os.access(
            state.path.parent, os.W_OK
        ):
            raise VerifyUsageError(
                f"{state.display} (or its directory) is not writable; verify "
                "writes the fixes into the file while the tests run"
            )


@contextlib.contextmanager
def _signals_raised() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into an exception, so files get restored."""
    if not _in_main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise _Terminated(signum)

    watched = [
        s for s in _STOP_SIGNALS if s != signal.SIGINT
    ]  # SIGINT: KeyboardInterrupt
    previous = {s: signal.signal(s, handler) for s in watched}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


def _write_report(
    report: VerifyReport, options: VerifyOptions, stdout: IO[str], stderr: IO[str]
) -> None:
    if options.output_format == "json":
        json.dump(_json_report(report, options), stdout, indent=2)
        stdout.write("\n")
        if report.detail and report.exit_code != EXIT_OK:
            stderr.write(f"attnlint verify: {report.detail}\n")
        return
    counts = {
        status: sum(c.status == status for c in report.candidates)
        for status in (CONFIRMED, REJECTED, UNCONFIRMED, SKIPPED)
    }
    for candidate in report.candidates:
        if candidate.status == "pending":
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
    elif options.dry_run:
        stdout.write("attnlint verify: dry run, every file restored\n")
    elif report.files_changed:
        stdout.write(
            "attnlint verify: confirmed fixes written to "
            + ", ".join(report.files_changed)
            + "\n"
        )


def _json_report(report: VerifyReport, options: VerifyOptions) -> dict[str, object]:
    return {
        "version": 1,
        "outcome": report.outcome,
        "exit_code": report.exit_code,
        "detail": report.detail or None,
        "command": options.command,
        "paths": options.paths,
        "dry_run": options.dry_run,
        "runs": report.runs,
        "elapsed_seconds": round(report.elapsed, 3),
        "files_changed": report.files_changed,
        "fixes": [c.to_json() for c in report.candidates],
    }
