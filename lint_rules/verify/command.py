"""The ``attnlint verify`` command: its arguments, and one verification from
start to report."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from lint_rules.config import ConfigError, load_settings
from lint_rules.diagnostics import Finding
from lint_rules.fixer import FileChanged, why_not_rewritable
from lint_rules.output import display_path
from lint_rules.verify.bisection import Verifier
from lint_rules.verify.candidates import (
    CONFIRMED,
    PENDING,
    UNCONFIRMED,
    SourceState,
    collect_candidates,
)
from lint_rules.verify.errors import (
    EXIT_INTERRUPTED,
    EXIT_NOT_CONFIRMED,
    EXIT_OK,
    EXIT_TIMEOUT,
    EXIT_USAGE,
    Terminated,
    TestTimeout,
    VerifyUsageError,
)
from lint_rules.verify.journal import (
    JOURNAL_FOLDER,
    Journal,
    JournalError,
    exists_message,
)
from lint_rules.verify.report import (
    Progress,
    VerifyReport,
    heartbeat_seconds,
    write_report,
)
from lint_rules.verify.runs import TestRunner
from lint_rules.verify.signals import interruptible, signals_deferred, signals_raised
from lint_rules.verify.transaction import FileTransaction

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
  as usual, and every file is restored at the end. Before touching any file,
  verify keeps each original in a journal (.attnlint_verify/ in the project
  root); if verify itself is killed, `attnlint verify --restore` puts every
  file back from it. A new verify will not start while a journal is there.

exit codes:
  0    every unsafe fix confirmed, or the rejected ones reverted and the rest
       confirmed by a final run (also: no unsafe fixes to verify)
  1    the final run with the rejected fixes reverted still failed; every file
       restored
  2    usage or configuration error, or the baseline (unchanged files,
       poisoning on) fails, or poisoning did not reach any pytest run, or
       a file could not be written (a full disk); a file that could not be
       written back is named, and `attnlint verify --restore` restores it
  3    a test run exceeded --timeout; every file restored
  130  interrupted (Ctrl-C), 143 terminated (SIGTERM); every file restored

  --restore: 0 every file back (or nothing to restore); 1 a file was changed
  since verify stopped and was left as it is (the journal is kept; --force
  puts it back anyway); 2 a file could not be written back

example:
  attnlint verify src/backend -- python -m pytest -x -q tests/backend
"""

_USAGE = (
    "%(prog)s [options] [PATHS ...] -- TEST COMMAND ...\n"
    "       %(prog)s --restore [--force] [PATH]"
)


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
        usage=_USAGE,
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
        usage=_USAGE,
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
    parser.add_argument(
        "--restore",
        action="store_true",
        help="put back every file an unfinished verify (killed, or the machine "
        "went down) left changed, from its journal, and delete the journal",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="with --restore: also put back files changed since verify stopped",
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
    if args.restore:
        return _restore_command(args, out, err)
    if args.force:
        err.write("attnlint verify: error: --force goes with --restore\n")
        return EXIT_USAGE
    try:
        options = _options_from(args)
    except VerifyUsageError as error:
        err.write(f"attnlint verify: error: {error}\n")
        return EXIT_USAGE
    except SystemExit:  # argparse has printed the error
        return EXIT_USAGE
    try:
        with interruptible():
            return verify(options, stdout=out, stderr=err, find=find)
    except Terminated as terminated:  # only between two safe points: files restored
        return 128 + terminated.signum
    except KeyboardInterrupt:  # before any file was touched, or after the report
        return EXIT_INTERRUPTED


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
        try:
            heartbeat_seconds()
        except ValueError as error:
            raise VerifyUsageError(str(error)) from None
        root = _project_root(options.paths, options.config)
        earlier = Journal.find(root)
        if earlier is not None:
            raise VerifyUsageError(exists_message(earlier.folder))
        states = collect_candidates(options.paths, options.select, find, options.config)
        _check_writable(states)
        runner = TestRunner(options.command, options.timeout, root / JOURNAL_FOLDER)
        runner.check_command()
        # The originals are on disk before any file is touched.
        journal = (
            Journal.begin(
                root,
                [(s.path, s.original, s.info or s.path.stat()) for s in states],
                options.command,
            )
            if states
            else None
        )
    except (VerifyUsageError, JournalError) as error:
        stderr.write(f"attnlint verify: error: {error}\n")
        return EXIT_USAGE
    except OSError as error:
        stderr.write(f"attnlint verify: error: {error.strerror or error}\n")
        return EXIT_USAGE
    transaction = FileTransaction(journal)
    for state in states:
        transaction.remember(state.path, state.original, state.info)
    report: VerifyReport
    verifier = Verifier(states, runner, transaction, progress)
    restore_at_end = True
    held: list[int] = []
    with signals_raised():
        try:
            report = verifier.verify()
        except VerifyUsageError as error:
            report = verifier.make_report("error", EXIT_USAGE, str(error))
        except FileChanged as changed:
            report = verifier.make_report(
                "error",
                EXIT_USAGE,
                f"{_display(states, Path(changed.filename))} {changed.strerror} "
                "(verify was writing it): stopped",
            )
        except OSError as error:
            # A write that failed (a full disk): that file holds one version
            # or the other, whole, and the restore below puts it back.
            where = (
                f"{_display(states, Path(error.filename))}: "
                if error.filename is not None
                else ""
            )
            report = verifier.make_report(
                "error",
                EXIT_USAGE,
                f"{where}{error.strerror or error} (verify was writing it): stopped",
            )
        except TestTimeout:
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
        except Terminated as terminated:
            report = verifier.make_report(
                "interrupted",
                128 + terminated.signum,
                f"terminated by signal {terminated.signum}",
            )
        else:
            restore_at_end = options.dry_run or report.exit_code != EXIT_OK
        finally:
            # Runs even for an internal error, which then propagates (the
            # journal stays then, unless every file was put back).
            with signals_deferred() as held:
                progress.end_line()
                changed = _changed_displays(states, transaction)
                if restore_at_end:
                    transaction.restore()
                if journal is not None and not (
                    restore_at_end and transaction.changed()
                ):
                    journal.remove()
    # The outcome is settled and every file is as it will stay: a signal from
    # now on comes too late to change either, and must not make the exit
    # code say "restored" of fixes that were kept.
    with signals_deferred():
        held = held + transaction.signals_held
        if held and restore_at_end and report.outcome != "interrupted":
            # Stopped while restoring: the files are back, and the exit code says why.
            # (After a success the signal came too late to change anything.)
            report.outcome, report.exit_code = "interrupted", 128 + held[0]
        if transaction.conflicts:
            left = [_display(states, p) for p in transaction.conflicts]
            report.files_left_as_found = left
            names = ", ".join(left)
            note = (
                f"{names} changed on disk while verify ran: left as found, not restored"
            )
            report.detail = f"{report.detail}\n{note}" if report.detail else note
        if transaction.failures:
            # Their originals are in the journal, which is kept for them.
            report.files_not_restored = {
                _display(states, path): why for path, why in transaction.failures
            }
            if report.exit_code == EXIT_OK:
                report.outcome, report.exit_code = "error", EXIT_USAGE
        report.elapsed = time.monotonic() - started
        report.files_changed = [] if restore_at_end else sorted(changed.values())
        for candidate in report.candidates:
            # An aborted or failed verification leaves no fix behind, and says so.
            undecided = candidate.status == PENDING
            if undecided or (
                report.exit_code != EXIT_OK and candidate.status == CONFIRMED
            ):
                candidate.status = UNCONFIRMED
        write_report(
            report,
            command=options.command,
            paths=options.paths,
            dry_run=options.dry_run,
            output_format=options.output_format,
            stdout=stdout,
            stderr=stderr,
        )
    return report.exit_code


def _project_root(paths: Sequence[str], config: str | None) -> Path:
    """Where the journal goes: the project root of the configuration that
    applies to ``paths`` (the folder of its pyproject.toml, or the current one)."""
    try:
        settings = load_settings(config, start=paths[0] if paths else None)
    except ConfigError as error:
        raise VerifyUsageError(str(error)) from None
    return Path(settings.root).absolute()


def _restore_command(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """``attnlint verify --restore [--force] [PATH]``."""
    rest = list(args.arguments or [])
    if "--" in rest:
        err.write("attnlint verify: error: --restore runs no test command\n")
        return EXIT_USAGE
    try:
        root = _project_root(rest or ["."], args.config)
        journal = Journal.find(root)
        if journal is None:
            out.write(
                f"attnlint verify: nothing to restore in {display_path(str(root))}\n"
            )
            return EXIT_OK
        owner = journal.owner_pid()
        if owner is not None and _alive(owner) and not args.force:
            raise VerifyUsageError(
                f"the verify that wrote {display_path(str(journal.folder))} (process {owner}) is "
                "still running; it restores every file itself when it ends "
                "(Ctrl-C or SIGTERM stop it). If that process is not attnlint, "
                "use --restore --force"
            )
        result = journal.restore(force=args.force)
    except (VerifyUsageError, JournalError) as error:
        err.write(f"attnlint verify: error: {error}\n")
        return EXIT_USAGE
    for path in result.restored:
        out.write(f"attnlint verify: restored {display_path(str(path))}\n")
    for path in result.unchanged:
        out.write(f"attnlint verify: {display_path(str(path))} was unchanged\n")
    for message in result.errors:
        err.write(f"attnlint verify: error: {message}\n")
    if result.conflicts:
        names = ", ".join(display_path(str(path)) for path in result.conflicts)
        err.write(
            f"attnlint verify: {names} changed since verify stopped (not a "
            "version verify wrote): left as it is. Its original is in "
            f"{display_path(str(journal.path))}; `attnlint verify --restore --force` puts it back "
            "anyway, discarding that change\n"
        )
    if result.errors:
        return EXIT_USAGE
    if result.conflicts:
        return EXIT_NOT_CONFIRMED
    out.write("attnlint verify: every file restored; journal deleted\n")
    return EXIT_OK


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _display(states: list[SourceState], path: Path) -> str:
    return next((s.display for s in states if s.path == path), display_path(str(path)))


def _changed_displays(
    states: list[SourceState], transaction: FileTransaction
) -> dict[Path, str]:
    changed = set(transaction.changed())
    return {s.path: s.display for s in states if s.path in changed}


def _check_writable(states: list[SourceState]) -> None:
    for state in states:
        info = state.info or state.path.stat()
        reason = why_not_rewritable(state.path, info)
        if reason is None and not os.access(state.path.parent, os.W_OK):
            reason = "its folder is not writable"
        if reason is not None:
            raise VerifyUsageError(
                f"{state.display}: {reason}; verify writes the fixes into the "
                "file while the tests run"
            )
