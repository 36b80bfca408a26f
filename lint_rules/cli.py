"""The ``attnlint`` command: ``check``, ``rule``, ``clean``, ``server`` (and
``verify`` when installed).

Exit codes, as ruff's: 0 nothing left to report, 1 findings remain (or, with
``--diff``, something would change), 2 a usage, configuration, input or
internal error. Problems in the user's input are reported in one line each,
never as a traceback.

The ``check`` path imports neither libcst nor torch, nor the language
server's pygls.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import sys
from collections.abc import Iterator, Mapping, Sequence

from lint_rules import __version__
from lint_rules.paths import quote_path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import IO, Any

VERIFY_MODULE = "lint_rules.verify"
#: Set this environment variable to see the traceback of an internal failure.
TRACEBACK_ENV = "ATTNLINT_TRACEBACK"


class UsageError(Exception):
    """A problem with what the user asked for; reported in one line, exit 2."""


# ------------------------------------------------------------------------ parser


def _comma_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _add_check_parser(subparsers: Any) -> None:
    from lint_rules.config import OUTPUT_FORMATS

    check = subparsers.add_parser(
        "check",
        help="check files for wasteful patterns (and fix them)",
        description="Check Python files for waste in attention-backend hot paths.",
    )
    check.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders (default: .)"
    )
    fixing = check.add_argument_group("fixing")
    fixing.add_argument(
        "--fix",
        action="store_true",
        default=None,
        help="apply fixes (safe ones; unsafe ones too with --unsafe-fixes)",
    )
    fixing.add_argument(
        "--no-fix", dest="fix", action="store_false", help=argparse.SUPPRESS
    )
    fixing.add_argument(
        "--unsafe-fixes",
        dest="unsafe_fixes",
        action="store_const",
        const=True,
        default=None,
        help="include unsafe fixes (applied with --fix, shown as fixable without)",
    )
    fixing.add_argument(
        "--no-unsafe-fixes",
        dest="unsafe_fixes",
        action="store_const",
        const=False,
        help="never apply or offer unsafe fixes",
    )
    fixing.add_argument(
        "--diff",
        action="store_true",
        help="print the diffs --fix would make, change nothing (exit 1 if any)",
    )
    fixing.add_argument(
        "--show-fixes", action="store_true", default=None, help="list what was fixed"
    )
    fixing.add_argument(
        "--add-noqa",
        nargs="?",
        const="",
        default=None,
        metavar="REASON",
        help="add `# noqa: CODE` to every line with a finding, and REASON after "
        "the codes if given as --add-noqa=REASON (changes nothing else)",
    )
    fixing.add_argument(
        "--no-show-fixes",
        dest="show_fixes",
        action="store_false",
        help=argparse.SUPPRESS,
    )
    rules = check.add_argument_group("rule selection")
    for flag, text in (
        (
            "--select",
            "rules to check, comma-separated codes or prefixes (ALL: every rule)",
        ),
        ("--ignore", "rules not to check"),
        ("--extend-select", "rules to check on top of those selected"),
        ("--extend-ignore", "rules not to check, on top of those ignored"),
    ):
        rules.add_argument(
            flag,
            action="append",
            type=_comma_list,
            metavar="CODES",
            default=None,
            help=text,
        )
    rules.add_argument(
        "--per-file-ignores",
        action="append",
        type=_comma_list,
        metavar="PATTERN:CODE",
        default=None,
        help="rules not to check in the files a glob matches, comma-separated "
        "PATTERN:CODE pairs (replaces per-file-ignores)",
    )
    rules.add_argument(
        "--extend-per-file-ignores",
        action="append",
        type=_comma_list,
        metavar="PATTERN:CODE",
        default=None,
        help="PATTERN:CODE pairs added to per-file-ignores",
    )
    files = check.add_argument_group("files")
    files.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="PATH|KEY=VALUE",
        help="a configuration file to use for every file (no discovery), or a "
        "setting in TOML (repeatable)",
    )
    files.add_argument(
        "--exclude",
        action="append",
        type=_comma_list,
        metavar="GLOB",
        default=None,
        help="files and folders not to discover, comma-separated (replaces exclude)",
    )
    files.add_argument(
        "--extend-exclude",
        action="append",
        type=_comma_list,
        metavar="GLOB",
        default=None,
        help="files and folders not to discover, on top of exclude",
    )
    files.add_argument(
        "--respect-gitignore",
        dest="respect_gitignore",
        action="store_const",
        const=True,
        default=None,
        help=argparse.SUPPRESS,
    )
    files.add_argument(
        "--no-respect-gitignore",
        dest="respect_gitignore",
        action="store_const",
        const=False,
        help="discover files that .gitignore files ignore too",
    )
    files.add_argument(
        "--show-files",
        action="store_true",
        help="list the files that would be checked, and stop",
    )
    files.add_argument(
        "--show-settings",
        action="store_true",
        help="print the settings of the first file to check and where they "
        "come from, and stop",
    )
    files.add_argument(
        "--force-exclude",
        action="store_true",
        default=None,
        help="apply excludes to paths named on the command line too",
    )
    files.add_argument(
        "--no-force-exclude",
        dest="force_exclude",
        action="store_false",
        help=argparse.SUPPRESS,
    )
    files.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="read the source from stdin and report it under this name",
    )
    files.add_argument(
        "--no-cache",
        action="store_true",
        help="check every file; neither read nor write the cache",
    )
    files.add_argument(
        "--cache-dir", metavar="PATH", help="where to keep the cache (.attnlint_cache)"
    )
    files.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="worker processes (default: one per CPU)",
    )
    out = check.add_argument_group("output")
    out.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        default=None,
        help="how to print findings (default: concise)",
    )
    out.add_argument(
        "-o",
        "--output-file",
        metavar="PATH",
        help="write the report to PATH instead of stdout (whole, or not at all)",
    )
    out.add_argument("--statistics", action="store_true", help="print counts per rule")
    out.add_argument(
        "-q", "--quiet", action="store_true", help="print findings, nothing else"
    )
    out.add_argument(
        "-s",
        "--silent",
        action="store_true",
        help="print nothing (the exit code still tells)",
    )
    exits = check.add_argument_group("exit status")
    exits.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when findings remain"
    )
    exits.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="exit 1 if anything was fixed, even if no findings remain",
    )
    check.set_defaults(func=run_check)


def _add_rule_parser(subparsers: Any) -> None:
    rule = subparsers.add_parser(
        "rule",
        help="explain a rule (or every rule)",
        description="Print a rule's documentation.",
    )
    rule.add_argument(
        "code", nargs="?", metavar="CODE", help="a rule code, e.g. ATN301"
    )
    rule.add_argument("--all", action="store_true", help="explain every rule")
    rule.add_argument(
        "--output-format", choices=("text", "json"), default="text", help="text or json"
    )
    rule.set_defaults(func=run_rule)


def _add_clean_parser(subparsers: Any) -> None:
    clean = subparsers.add_parser(
        "clean",
        help="delete the cache",
        description=(
            "Delete the cache folder that `attnlint check` uses here "
            "(cache-dir of the configuration found from the current directory)."
        ),
    )
    clean.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="PATH|KEY=VALUE",
        help="a configuration file to use, or a setting in TOML (repeatable)",
    )
    clean.add_argument("--cache-dir", metavar="PATH", help="the cache folder to delete")
    clean.set_defaults(func=run_clean)


def _milliseconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 60_000:  # NaN and infinity too
        raise argparse.ArgumentTypeError(
            f"expected a number of milliseconds from 0 to 60000, got {text!r}"
        )
    return value


def _add_server_parser(subparsers: Any) -> None:
    server = subparsers.add_parser(
        "server",
        help="run the language server (for editors)",
        description=(
            "Serve diagnostics, quick fixes and fix-all to an editor over "
            "stdin/stdout (the Language Server Protocol). Needs pygls, the "
            "server extra: pip install 'pygls>=2,<3'."
        ),
    )
    server.add_argument(
        "--debounce",
        type=_milliseconds,
        default=None,
        metavar="MS",
        help="quiet time after an edit before the file is checked (default: 25)",
    )
    server.set_defaults(func=run_server)


def _first_command(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser. ``verify`` is added only if its module is installed;
    it is imported only when ``argv`` asks for it, so ``check`` stays light."""
    parser = argparse.ArgumentParser(
        prog="attnlint",
        description="A linter and autofixer for the hot paths of PyTorch attention backends.",
    )
    parser.add_argument(
        "--version", action="version", version=f"attnlint {__version__}"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_check_parser(subparsers)
    _add_rule_parser(subparsers)
    _add_clean_parser(subparsers)
    _add_server_parser(subparsers)
    if importlib.util.find_spec(VERIFY_MODULE) is not None:
        if _first_command(argv) == "verify":
            from lint_rules.verify import add_verify_parser

            add_verify_parser(subparsers)
        else:
            subparsers.add_parser(
                "verify",
                help="run the tests with poisoned memory and keep the unsafe fixes they accept",
                add_help=False,
            )
    return parser


def _reconfigure_streams() -> None:
    # Source lines and messages may hold characters the terminal cannot show.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # pragma: no cover - detached streams
                pass


#: Options whose value must be joined to them by '=' (as ruff's
#: ``--add-noqa[=REASON]``): alone, they take no value, never the next path.
_EQUALS_ONLY = ("--add-noqa",)


def _values_after_equals_only(arguments: list[str]) -> list[str]:
    """``arguments`` with each option of ``_EQUALS_ONLY`` given alone written
    ``--option=`` (an empty value), so argparse does not take the next
    argument (a path) for its value."""
    if "--" in arguments:
        end = arguments.index("--")
        return _values_after_equals_only(arguments[:end]) + arguments[end:]
    return [f"{arg}=" if arg in _EQUALS_ONLY else arg for arg in arguments]


def main(argv: Sequence[str] | None = None, *, registry: Any = None) -> int:
    """Run ``attnlint`` with ``argv`` (default: the command line); return the
    exit code. ``registry`` (a :class:`lint_rules.rules.Registry`) is the set
    of rules to choose from; None: attnlint's (tests and embedders pass
    their own; results are then never cached)."""
    arguments = _values_after_equals_only(list(sys.argv[1:] if argv is None else argv))
    _reconfigure_streams()
    parser = build_parser(arguments)
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exit_:  # argparse: --help, --version, usage errors (2)
        return exit_.code if isinstance(exit_.code, int) else 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    args.registry = registry
    stdout = sys.stdout
    if args.command != "server":  # the server speaks its protocol there itself
        sys.stdout = _GuardedStream(stdout)  # type: ignore[assignment]
    try:
        with _termination_raises():
            code = int(args.func(args))
            sys.stdout.flush()
            return code
    except _OutputFailed as failed:
        # `> /dev/full`: the report is lost; no bug in attnlint, and the exit
        # code must not say "clean" or "findings" of a report nobody got.
        with contextlib.suppress(OSError):
            _error(f"cannot write the output: {failed.reason}")
        return 2
    except UsageError as error:
        _error(str(error))
        return 2
    except KeyboardInterrupt:
        return 130
    except _Terminated as terminated:
        return 128 + terminated.signum
    except BrokenPipeError:
        # The reader went away (``attnlint check | head``): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as error:  # a bug in attnlint: one line, traceback on request
        if os.environ.get(TRACEBACK_ENV):
            raise
        _error(
            f"attnlint failed: {type(error).__name__}: {error}. This is a bug in "
            f"attnlint; rerun with {TRACEBACK_ENV}=1 for the traceback and report it."
        )
        return 2
    finally:
        if isinstance(sys.stdout, _GuardedStream):
            sys.stdout = stdout


class _OutputFailed(Exception):
    """Writing to the standard output failed (other than a closed pipe)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.reason = error.strerror or str(error)


class _GuardedStream:
    """The standard output during a command: a write or flush that fails
    (``ENOSPC`` from ``> /dev/full``, ``EIO``) raises ``_OutputFailed``, so
    ``main`` says the output could not be written instead of calling it a
    bug. A closed pipe still raises ``BrokenPipeError``; the rest is the
    stream's own (``isatty``, ``fileno``, ``encoding``)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, data: Any) -> int:
        try:
            return self._stream.write(data)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise _OutputFailed(error) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise _OutputFailed(error) from None

    @property
    def buffer(self) -> _GuardedStream:
        return _GuardedStream(self._stream.buffer)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Terminated(BaseException):
    """SIGTERM or SIGHUP, raised like KeyboardInterrupt: a write under way
    removes its temporary file, and the files not yet written stay as they were."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _termination_raises:
    """Within the block, SIGTERM and SIGHUP raise ``_Terminated`` (in the
    main thread; elsewhere nothing changes)."""

    def __enter__(self) -> None:
        import signal
        import threading

        self._previous: dict[int, Any] = {}
        if threading.current_thread() is not threading.main_thread():
            return

        def raise_terminated(signum: int, frame: object) -> None:
            raise _Terminated(signum)

        for name in ("SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None:
                self._previous[signum] = signal.signal(signum, raise_terminated)

    def __exit__(self, *exc_info: object) -> None:
        import signal

        for signum, handler in self._previous.items():
            signal.signal(signum, handler)


def run() -> None:
    """The ``attnlint`` command: :func:`main`, then a quick exit.

    Once the output is flushed nothing is left to do, yet the interpreter's
    teardown (freeing every module and object) would cost a tenth of a small
    run; it is skipped, as mypy does. ``main`` itself returns normally, for
    callers that embed it.
    """
    _open_closed_standard_streams()
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = code or 1
    except OSError as error:
        with contextlib.suppress(OSError):
            _error(f"cannot write the output: {error.strerror or error}")
        code = 2
    os._exit(code)


def _open_closed_standard_streams() -> None:
    """Give a standard stream the caller closed (``attnlint check >&-``) the
    null device. Otherwise Python leaves ``sys.stdout`` (or ``stderr``,
    ``stdin``) None, which the first message trips over, and the next file
    attnlint opens takes the free descriptor: a temporary file about to be
    renamed over a source would receive whatever is written to that stream
    at the descriptor level. As in ruff, what goes to a closed stream is
    dropped, and the exit code is the run's."""
    for descriptor, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(descriptor)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, os.O_RDWR)
        if null != descriptor:
            os.dup2(null, descriptor)
            os.close(null)
        if getattr(sys, name) is None:
            stream = open(
                descriptor,
                "r" if descriptor == 0 else "w",
                encoding="utf-8",
                errors="backslashreplace",
                closefd=False,
            )
            setattr(sys, name, stream)


def _error(message: str) -> None:
    sys.stderr.write(f"error: {message}\n")


def _warning(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


# ------------------------------------------------------------------------- rule


_FIX_SENTENCE = {
    "safe": "Fix is always available.",
    "unsafe": "Fix is always available (unsafe).",
    "sometimes": "Fix is sometimes available.",
}


def rule_text(rule: Any) -> str:
    """``attnlint rule CODE``'s text: a ``# name (CODE)`` header, fix availability, docs."""
    parts = [f"# {rule.name} ({rule.code})", ""]
    sentence = _FIX_SENTENCE.get(rule.fix_availability)
    if sentence:
        parts += [sentence, ""]
    parts.append(rule.documentation())
    return "\n".join(parts).rstrip() + "\n"


def run_rule(args: argparse.Namespace) -> int:
    import json

    from lint_rules.rules import ALL_RULES

    if args.all and args.code:
        raise UsageError("give a rule code or --all, not both")
    if args.all:
        rules = list(ALL_RULES)
    elif args.code:
        wanted = args.code.strip()
        rules = [
            rule
            for rule in ALL_RULES
            if rule.code == wanted.upper() or rule.name == wanted
        ]
        if not rules:
            known = ", ".join(rule.code for rule in ALL_RULES)
            raise UsageError(f"unknown rule code {args.code!r} (known: {known})")
    else:
        raise UsageError("give a rule code (e.g. `attnlint rule ATN301`) or --all")
    if args.output_format == "json":
        data = [
            {
                "name": rule.name,
                "code": rule.code,
                "summary": rule.summary(),
                "fix": _FIX_SENTENCE.get(
                    rule.fix_availability, "Fix is not available."
                ),
                "fix_availability": rule.fix_availability,
                "explanation": rule.documentation(),
            }
            for rule in rules
        ]
        sys.stdout.write(json.dumps(data if args.all else data[0], indent=2) + "\n")
    else:
        sys.stdout.write("\n".join(rule_text(rule) for rule in rules))
    return 0


# ----------------------------------------------------------------------- server


def run_server(args: argparse.Namespace) -> int:
    from lint_rules.server import ServerUnavailable, run

    try:
        return run(None if args.debounce is None else args.debounce / 1000)
    except ServerUnavailable as error:
        raise UsageError(str(error)) from None


# ------------------------------------------------------------------------ clean


def run_clean(args: argparse.Namespace) -> int:
    from lint_rules.cache import CacheError, remove_cache_folder
    from lint_rules.config import ConfigError, load_settings

    if args.cache_dir:
        folder = os.path.abspath(args.cache_dir)
    else:
        config_path, overrides = _split_config_args(args.config)
        try:
            settings = load_settings(config_path, overrides=overrides)
        except ConfigError as error:
            raise UsageError(str(error)) from None
        folder = os.path.abspath(settings.cache_path)
    try:
        removed, left = remove_cache_folder(folder)
    except CacheError as error:
        raise UsageError(str(error)) from None
    shown = _shown(folder)
    if removed:
        sys.stderr.write(f"Removed the cache at {shown}\n")
    else:
        sys.stderr.write(f"No cache at {shown}\n")
    if left:
        names = ", ".join(_shown(path) for path in left[:5])
        more = f" and {len(left) - 5} more" if len(left) > 5 else ""
        _warning(
            f"left {_plural(len(left), 'file')} attnlint did not write in "
            f"{shown}: {names}{more}"
        )
    return 0


def _shown(path: str) -> str:
    """``path`` relative to the current folder if it is inside it, quoted as
    git quotes a name (see ``quote_path``)."""
    here = os.getcwd()
    try:
        inside = os.path.commonpath([path, here]) == here
    except ValueError:  # pragma: no cover - another drive (Windows)
        inside = False
    return quote_path(os.path.relpath(path) if inside else path)


# ------------------------------------------------------------------------ check


def _split_config_args(values: Sequence[str]) -> tuple[str | None, dict[str, Any]]:
    """``--config`` values: at most one file, the rest ``KEY = VALUE`` overrides."""
    from lint_rules.config import toml_module

    path: str | None = None
    overrides: dict[str, Any] = {}
    for value in values:
        if os.path.isfile(value):
            if path is not None:
                raise UsageError(
                    f"--config: more than one configuration file ({quote_path(path)}, "
                    f"{quote_path(value)})"
                )
            path = value
            continue
        if "=" not in value:
            raise UsageError(
                f"--config: {quote_path(value)}: no such file (nor a KEY = VALUE setting)"
            )
        tomllib = toml_module()
        try:
            overrides.update(tomllib.loads(value))
        except tomllib.TOMLDecodeError as error:
            raise UsageError(
                f"--config: {value!r} is not valid TOML: {error} (a value is "
                "written as in pyproject.toml, strings in quotes and lists in "
                "brackets: --config 'select = [\"ATN1\"]')"
            ) from None
        except RecursionError:
            raise UsageError(
                f"--config: {value[:40]!r}... is not valid TOML: too deeply nested"
            ) from None
    return path, overrides


def _resolver_for(args: argparse.Namespace) -> Any:
    """The settings of the run: the default (from ``--config PATH``, or the
    nearest configuration file above the first path) and, unless a file was
    named, those of the nearest configuration file of each file; the command
    line's options on top of each."""
    from lint_rules.config import ConfigError, load_settings
    from lint_rules.resolver import Resolver

    config_path, overrides = _split_config_args(args.config)
    start = args.stdin_filename or (
        args.paths[0] if args.paths and args.paths[0] != "-" else None
    )
    registry = getattr(args, "registry", None)
    known: dict[str, Any] = {}
    if registry is not None:
        known = {"codes": registry.codes, "opt_in_codes": registry.opt_in_codes}
    try:
        default = load_settings(config_path, start=start, overrides=overrides, **known)
        on_top = _command_line_layer(args, default.available_codes)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    load = None
    if config_path is None:

        def load(path: Any) -> Any:
            return on_top(load_settings(path, overrides=overrides, **known))

    return Resolver(on_top(default), load)


def _here(pattern: str) -> str:
    """A glob given on the command line, relative to the current folder: one
    with a ``/`` made absolute, one without left to match base names."""
    negated = pattern.startswith("!")
    bare = pattern[1:] if negated else pattern
    if "/" in bare or os.sep in bare:
        bare = os.path.join(os.getcwd(), bare)
    return ("!" if negated else "") + bare


def _command_line_layer(args: argparse.Namespace, codes: Sequence[str]) -> Any:
    """What the command line's options do to a file's settings (validated
    here, once): a function from settings to settings."""
    from lint_rules.config import (
        ConfigError,
        GlobError,
        RuleSelection,
        glob_to_regex,
        validate_selectors,
    )

    def flat(values: list[list[str]] | None) -> list[str] | None:
        return None if values is None else [item for group in values for item in group]

    def selectors(
        values: list[list[str]] | None, option: str
    ) -> tuple[str, ...] | None:
        given = flat(values)
        return None if given is None else validate_selectors(given, codes, option)

    def globs(values: list[list[str]] | None, option: str) -> tuple[str, ...] | None:
        given = flat(values)
        if given is None:
            return None
        for pattern in given:
            try:
                glob_to_regex(pattern[1:] if pattern.startswith("!") else pattern)
            except GlobError as error:
                raise ConfigError(f"{option}: invalid glob: {error}") from None
        return tuple(_here(pattern) for pattern in given)

    def pairs(
        values: list[list[str]] | None, option: str
    ) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
        given = flat(values)
        if given is None:
            return None
        merged: dict[str, tuple[str, ...]] = {}
        for pair in given:
            pattern, colon, code = pair.rpartition(":")
            if not colon or not pattern or not code:
                raise ConfigError(f"{option}: expected PATTERN:CODE, got {pair!r}")
            (pattern,) = globs([[pattern]], option) or ()
            merged[pattern] = merged.get(pattern, ()) + tuple(
                validate_selectors([code], codes, option)
            )
        return tuple(merged.items())

    ignore = (selectors(args.ignore, "--ignore") or ()) + (
        selectors(args.extend_ignore, "--extend-ignore") or ()
    )
    selection = RuleSelection(
        select=selectors(args.select, "--select"),
        ignore=ignore,
        extend_select=selectors(args.extend_select, "--extend-select") or (),
    )
    changes: dict[str, Any] = {}
    for name in (
        "fix",
        "unsafe_fixes",
        "force_exclude",
        "show_fixes",
        "output_format",
        "respect_gitignore",
    ):
        value = getattr(args, name, None)
        if value is not None:
            changes[name] = value
    if getattr(args, "cache_dir", None):
        # On the command line a path is relative to the current directory, as in ruff.
        changes["cache_dir"] = os.path.abspath(args.cache_dir)
    exclude = globs(args.exclude, "--exclude")
    if exclude is not None:
        changes["exclude"] = exclude
    extend_exclude = globs(args.extend_exclude, "--extend-exclude")
    per_file = pairs(args.per_file_ignores, "--per-file-ignores")
    extend_per_file = pairs(args.extend_per_file_ignores, "--extend-per-file-ignores")

    def on_top(settings: Any) -> Any:
        more = dict(changes)
        if extend_exclude:
            more["extend_exclude"] = settings.extend_exclude + extend_exclude
        entries = settings.per_file_ignores if per_file is None else per_file
        if per_file is not None or extend_per_file:
            merged = dict(entries)
            for pattern, codes_ in extend_per_file or ():
                merged[pattern] = merged.get(pattern, ()) + codes_
            more["per_file_ignores"] = tuple(merged.items())
        return settings.with_cli_selection(selection).replace(**more)

    return on_top


def run_check(args: argparse.Namespace) -> int:
    from lint_rules.config import ConfigError
    from lint_rules.discover import is_force_excluded
    from lint_rules.output import (
        TEXT_FORMATS,
        Run,
        display_path,
        fixed_lines,
        write_findings,
        write_statistics,
        write_summary,
    )
    from lint_rules.runner import (
        FileOutcome,
        LazySources,
        default_jobs,
        process_file,
        run_files,
    )

    resolver = _resolver_for(args)
    settings = resolver.default
    if args.show_settings or args.show_files:
        return _show(args, resolver)
    if args.diff and args.statistics and args.add_noqa is None:
        # As ruff refuses it: a --diff prints the patch, never the counts,
        # and would otherwise drop --statistics silently.
        raise UsageError("--statistics cannot be used with --diff")
    mode = "diff" if args.diff else ("fix" if settings.fix else "check")
    noqa_reason: str | None = None
    if args.add_noqa is not None:
        noqa_reason = _add_noqa_reason(args, settings)
        mode = "add-noqa"
    unsafe_fixes = bool(settings.unsafe_fixes)
    output_format = settings.output_format
    use_stdin = args.stdin_filename is not None or args.paths == ["-"]
    outcomes: list[FileOutcome] = []
    stdout: IO[str] = sys.stdout
    report: IO[str] | None = None
    if args.output_file:
        import io

        report = stdout = io.StringIO()
    errors: list[str] = []

    if use_stdin:
        if args.paths and args.paths != ["-"]:
            raise UsageError("--stdin-filename reads stdin; do not also name paths")
        filename = args.stdin_filename or "-"
        data = sys.stdin.buffer.read()
        if filename != "-":
            try:
                settings = resolver.settings_for(filename)
            except ConfigError as error:
                raise UsageError(str(error)) from None
        if (
            settings.force_exclude
            and filename != "-"
            and is_force_excluded(filename, settings)
        ):
            if mode == "fix":
                sys.stdout.buffer.write(data)
            return 0
        outcome = process_file(
            filename,
            data,
            settings,
            mode,
            unsafe_fixes,
            display_path(filename),
            keep_text=True,
            registry=args.registry,
        )
        outcomes.append(outcome)
        if mode == "fix":
            # The fixed source goes to stdout; findings and summary to stderr, as ruff.
            sys.stdout.flush()
            new_bytes = outcome.new_bytes
            sys.stdout.buffer.write(new_bytes if new_bytes is not None else data)
            sys.stdout.buffer.flush()
            if report is None:
                stdout = sys.stderr
    else:
        files = _discover(args, resolver)
        if not files:
            _warning("No Python files found under the given path(s)")
        if mode != "check":
            from lint_rules.discover import one_name_per_file

            # (a report names each; a fix or a patch is made once per file)
            files = one_name_per_file(files)
        if args.output_file:
            _refuse_report_over_a_checked_file(args.output_file, files)

        def write(outcome: FileOutcome) -> None:
            from lint_rules.fixer import FileNotRewritten, write_atomic

            assert outcome.new_bytes is not None
            expected = None
            if outcome.read_key is not None and outcome.digest is not None:
                expected = (outcome.read_key, outcome.digest)
            try:
                write_atomic(outcome.filename, outcome.new_bytes, expected=expected)
            except FileNotRewritten as refused:
                if mode == "add-noqa":
                    lost = _plural(outcome.noqa_added, "noqa directive")
                    lost += " not added"
                else:
                    lost = _plural(sum(outcome.fixed.values()), "fix", "es")
                    lost += " not applied"
                outcome.not_written(
                    f"{display_path(outcome.filename)}: {refused.strerror}; "
                    f"left as it is, its {lost}"
                )
            except OSError as error:
                outcome.not_written(
                    f"{display_path(outcome.filename)}: cannot write: "
                    f"{error.strerror or error}; left as it was"
                )

        # Files of one configuration are checked together, with its cache.
        groups: dict[int, tuple[Any, list[str]]] = {}
        for path in files:
            own = resolver.settings_for(path)
            groups.setdefault(id(own), (own, []))[1].append(str(path))
        by_file: dict[str, FileOutcome] = {}
        unwritable_caches: set[str] = set()
        for own, group in groups.values():
            cache = None
            if not args.no_cache and args.registry is None:
                from lint_rules.cache import Cache, CacheError

                try:
                    cache = Cache.for_settings(own)
                except CacheError as error:
                    _warning(str(error))
            for outcome in run_files(
                group,
                own,
                mode,
                unsafe_fixes,
                jobs=args.jobs if args.jobs is not None else default_jobs(),
                cache=cache,
                display=display_path,
                write=write,
                noqa_reason=noqa_reason,
                registry=args.registry,
            ):
                by_file[outcome.filename] = outcome
            if cache is not None:
                failed = cache.save()
                if failed is not None and cache.root not in unwritable_caches:
                    # Said once per folder, as ruff does; the run goes on.
                    unwritable_caches.add(cache.root)
                    _warning(
                        f"cannot write the cache in {display_path(cache.root)}: "
                        f"{failed.strerror or failed}; results are not cached "
                        "(--no-cache, or cache-dir elsewhere, to avoid this)"
                    )
        outcomes = [by_file[str(path)] for path in files if str(path) in by_file]
    for outcome in outcomes:
        for message in outcome.warnings:
            _warning(message)

    findings = [finding for outcome in outcomes for finding in outcome.findings]
    findings.sort(key=lambda finding: finding.sort_key())
    for outcome in outcomes:
        errors.extend(outcome.errors)
    run = Run(
        findings=findings,
        sources=LazySources(
            {o.filename: o.text for o in outcomes if o.text is not None or o.findings}
        ),
        fixed={o.filename: o.fixed for o in outcomes if o.fixed},
        resolved={o.filename: o.resolved for o in outcomes if o.fixed},
        unsafe_fixes=settings.unsafe_fixes,
        fix_mode=mode,
        rules=_RulesByCode(args.registry),
        errors=len(errors),
    )

    if mode == "add-noqa":
        # What no directive could suppress (files that do not parse or cannot
        # be read), as a check would report it, then ruff's count of changes.
        if not args.silent and findings:
            write_findings(run, output_format, stdout)
            if output_format in TEXT_FORMATS and not args.quiet:
                write_summary(run, stdout)
        added = sum(outcome.noqa_added for outcome in outcomes)
        if added and not (args.silent or args.quiet):
            sys.stderr.write(f"Added {_plural(added, 'noqa directive')}.\n")
    elif mode == "diff":
        if not args.silent:
            for outcome in outcomes:
                _write_patch(stdout, outcome.diff)
            if not args.quiet:
                for line in _summary(run, write_summary):
                    sys.stderr.write(line)
    elif not args.silent:
        if args.statistics:
            write_statistics(run, output_format, stdout)
        else:
            write_findings(run, output_format, stdout)
        if output_format in TEXT_FORMATS and not args.quiet:
            if mode == "fix" and settings.show_fixes:
                lines = fixed_lines(run)
                if lines:
                    stdout.write("\n" + "\n".join(lines) + "\n\n")
            write_summary(run, stdout)
    stdout.flush()
    if report is not None:
        _write_report(args.output_file, report.getvalue())
    for message in errors:
        _error(message)

    if errors:
        return 2
    if args.exit_zero:
        return 0
    if mode == "diff":
        return 1 if any(outcome.diff for outcome in outcomes) else 0
    if mode == "fix" and args.exit_non_zero_on_fix and run.fixed_total:
        return 1
    return 1 if findings else 0


def _discover(args: argparse.Namespace, resolver: Any) -> list[Any]:
    """The files to check (``discover_files`` with the run's settings)."""
    from lint_rules.config import ConfigError
    from lint_rules.discover import DiscoveryError, discover_files

    try:
        return discover_files(args.paths or ["."], resolver)
    except (DiscoveryError, ConfigError) as error:
        raise UsageError(str(error)) from None


def _refuse_report_over_a_checked_file(path: str, files: list[Any]) -> None:
    """A report written to one of the files being checked would replace the
    user's source with it: refuse before anything is checked or fixed."""
    from lint_rules.output import display_path

    try:
        target = os.stat(path)
    except OSError:
        return  # not there yet (or unreachable: the write says so)
    for file in files:
        with _suppressed(OSError):
            if os.path.samestat(target, os.stat(file)):
                raise UsageError(
                    f"--output-file: {quote_path(path)}: is {display_path(str(file))}, "
                    "one of the files being checked; name another file"
                )


def _report_mode(path: str) -> int:
    """The mode the report gets: the one of the file it replaces, else what
    ``open`` would give a new file (0o666 less the umask), as ruff does;
    ``mkstemp`` alone makes it private (0o600)."""
    import stat

    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask


def output_bytes(text: str) -> bytes:
    """``text`` as attnlint writes it: UTF-8, and a ``--diff`` hunk's lines
    in the file's own bytes (held as lone surrogates, ``surrogateescape``:
    a Latin-1 ``é`` is the byte 0xe9 the file has, or the patch would not
    apply); anything else that is not text, backslash-escaped."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace")


def _write_patch(stream: IO[str], text: str) -> None:
    """Write a ``--diff`` patch in the bytes of the files it patches (see
    :func:`output_bytes`); a stream without bytes underneath (the report
    of ``--output-file``, written by ``_write_report``) takes the text."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text)
        return
    stream.flush()
    buffer.write(output_bytes(text))
    buffer.flush()


def _write_report(path: str, text: str) -> None:
    """Write the report to ``path`` whole: to a temporary file beside it,
    then renamed over it, so a reader never sees half a report.

    What is not a regular file (``/dev/null``, ``/dev/stdout`` on a
    terminal or a pipe, a shell's ``>(...)``) is written to as it is, never
    replaced by a regular file; a symbolic link stays a link, and the file
    it names gets the report."""
    import stat
    import tempfile

    data = output_bytes(text)
    try:
        kind = os.stat(path).st_mode
    except OSError:
        kind = None  # not there yet (or unreachable: the write says so)
    if kind is not None and not stat.S_ISREG(kind):
        try:
            with open(path, "wb") as stream:
                stream.write(data)
        except OSError as error:
            raise UsageError(
                f"--output-file: {quote_path(path)}: cannot write: "
                f"{error.strerror or error}"
            ) from None
        return
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=".attnlint-report-", dir=folder, text=True
        )
    except OSError as error:
        raise UsageError(
            f"--output-file: {quote_path(path)}: cannot write: "
            f"{error.strerror or error}"
        ) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            os.fchmod(stream.fileno(), _report_mode(target))
        os.replace(temporary, target)
    except OSError as error:
        with _suppressed(OSError):
            os.unlink(temporary)
        raise UsageError(
            f"--output-file: {quote_path(path)}: cannot write: "
            f"{error.strerror or error}"
        ) from None
    except BaseException:
        with _suppressed(OSError):
            os.unlink(temporary)
        raise


class _suppressed:
    """``contextlib.suppress`` without importing contextlib on this path."""

    def __init__(self, *kinds: type[BaseException]) -> None:
        self._kinds = kinds

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> bool:
        return kind is not None and issubclass(kind, self._kinds)


def _show(args: argparse.Namespace, resolver: Any) -> int:
    """``--show-files`` (the files a check would read) and ``--show-settings``
    (the settings of the first of them, and the file they come from)."""
    from lint_rules.config import ConfigError

    use_stdin = args.stdin_filename is not None or args.paths == ["-"]
    if use_stdin:
        files = [args.stdin_filename] if args.stdin_filename else []
    else:
        files = _discover(args, resolver)

    out = sys.stdout
    if args.show_files:
        # One line per file, quoted as ``git ls-files`` quotes it.
        for path in files:
            out.write(f"{quote_path(os.path.abspath(path))}\n")
        return 0
    try:
        if files:
            target = os.path.abspath(files[0])
            settings = resolver.settings_for(target)
        else:
            target = os.path.abspath((args.paths or ["."])[0])
            settings = (
                resolver.settings_for_folder(target)
                if os.path.isdir(target)
                else resolver.settings_for(target)
            )
    except ConfigError as error:
        raise UsageError(str(error)) from None
    out.write(show_settings(target, settings))
    return 0


def show_settings(target: str, settings: Any) -> str:
    """The text of ``--show-settings``: the file, where its settings come
    from, then every option as TOML would write it, and the enabled rules."""
    from lint_rules.config import OPTIONS

    source = quote_path(str(settings.config_file or "")) or "(none: the defaults)"
    lines = [
        f"Resolved settings for: {quote_path(target)}",
        f"Settings path: {source}",
        f"Project root: {quote_path(os.path.abspath(settings.root))}",
        "",
    ]
    for option in OPTIONS:
        if option.extends is not None:
            continue  # merged into the option it extends
        value = getattr(settings, option.attribute)
        lines.append(f"{option.key} = {_toml(value)}")
    for layer in settings.extra_selections:
        lines.append(
            "# command line: "
            + ", ".join(
                f"{name.replace('_', '-')} = {_toml(getattr(layer, name))}"
                for name in ("select", "ignore", "extend_select")
                if getattr(layer, name)
            )
        )
    enabled = [
        code for code in settings.available_codes if code in settings.enabled_codes
    ]
    lines.append(f"# enabled rules = {_toml(tuple(enabled))}")
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    """``value`` as a TOML value (a table of pairs as an inline table)."""
    import json

    if value is None:
        return '"unset"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if (
        isinstance(value, tuple)
        and value
        and all(isinstance(item, tuple) and len(item) == 2 for item in value)
    ):
        return (
            "{ "
            + ", ".join(f"{json.dumps(key)} = {_toml(codes)}" for key, codes in value)
            + " }"
        )
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return json.dumps(value)


def _add_noqa_reason(args: argparse.Namespace, settings: Any) -> str | None:
    """The reason ``--add-noqa`` writes (None: none), once the options it
    cannot be combined with are ruled out (as ruff rules them out)."""
    from lint_rules.noqa import reason_problem

    for given, option in (
        (args.fix, "--fix"),
        (args.diff, "--diff"),
        (args.statistics, "--statistics"),
        (args.stdin_filename is not None or args.paths == ["-"], "--stdin-filename"),
    ):
        if given:
            raise UsageError(f"--add-noqa cannot be used with {option}")
    if settings.fix:
        _warning("fix = true (configuration) is ignored with --add-noqa")
    reason = args.add_noqa.strip()
    problem = reason_problem(reason)
    if problem is not None:
        raise UsageError(f"--add-noqa: the reason {reason!r} cannot be used: {problem}")
    return reason or None


class _RulesByCode(Mapping):  # Mapping[str, Any]
    """code -> rule class, importing the rules only when an output asks
    (concise output of cached findings never does)."""

    def __init__(self, registry: Any = None) -> None:
        self._registry = registry
        self._rules: dict[str, Any] | None = None

    def _load(self) -> dict[str, Any]:
        if self._rules is None:
            from lint_rules.rules import default_registry

            registry = self._registry or default_registry()
            self._rules = {rule.code: rule for rule in registry.rules}
        return self._rules

    def __getitem__(self, code: str) -> Any:
        return self._load()[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


def _plural(count: int, word: str, suffix: str = "s") -> str:
    return f"{count} {word}{'' if count == 1 else suffix}"


def _summary(run: Any, writer: Any) -> list[str]:
    import io

    buffer = io.StringIO()
    writer(run, buffer)
    return buffer.getvalue().splitlines(keepends=True)
