"""Checking (or fixing) many files: the cache first, then worker processes.

A run looks every file up in the cache (:mod:`lint_rules.cache`); the others
are checked in ``jobs`` worker processes (forked where the platform allows it,
so the rules are imported once), largest files first. A worker reads, checks
(or fixes) one file at a time and sends back its findings as plain data,
never a tree, so memory stays bounded by the largest file, not the corpus.
Small runs (fewer than :data:`MIN_FILES_FOR_WORKERS` files to check) stay in
the calling process. Files are written and the cache is updated by the
calling process only.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence

from lint_rules.cache import (
    Cache,
    FileKey,
    FindingData,
    file_key,
    finding_from_data,
    finding_to_data,
)
from lint_rules.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from lint_rules.config import Settings
    from lint_rules.diagnostics import Finding
    from lint_rules.rules import Registry

#: The modes that write files: their outcomes carry the digest of the bytes read.
WRITING_MODES = ("fix", "add-noqa")
#: Below this many files to check, worker processes cost more than they save.
MIN_FILES_FOR_WORKERS = 8
#: Worker processes collect garbage themselves, once this many more objects
#: are alive than after the last collection (see ``_start_worker``).
WORKER_GC_OBJECTS = 500_000


def default_jobs() -> int:
    """One worker per CPU this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class FileOutcome(Record):
    """What checking (and maybe fixing) one file produced.

    ``text`` is set in fix and diff mode (the text the findings refer to);
    ``fixed`` counts the fixes applied per code, every pass included;
    ``resolved`` counts, per code, the findings a plain check reports as
    fixable that the fixes removed (see :func:`resolved_by_fixes`): what the
    summary calls fixed, so ``check``, ``--diff`` and ``--fix`` agree even when
    one fix exposes another. ``new_bytes`` is what a fix run should write, and
    ``original_findings`` the findings of the text as read (what to report if
    it cannot be written); ``warnings`` and ``errors`` are one-line messages
    for the user. ``read_key`` is the file's :func:`lint_rules.cache.file_key`
    once read, and ``digest`` the :func:`lint_rules.source.content_digest` of
    the bytes read: what a cache entry of these findings is keyed by, and what
    a fix must find on disk before it replaces the file. ``noqa_added``
    counts the rows ``--add-noqa`` gave a directive.
    """

    _fields = (
        "filename",
        "findings",
        "text",
        "fixed",
        "diff",
        "errors",
        "warnings",
        "new_bytes",
        "cached",
        "read_key",
        "digest",
        "original_findings",
        "resolved",
        "noqa_added",
    )
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        filename: str,
        findings: list[Finding] | None = None,
        text: str | None = None,
        fixed: dict[str, int] | None = None,
        diff: str = "",
        errors: list[str] | None = None,
        warnings: list[str] | None = None,
        new_bytes: bytes | None = None,
        cached: bool = False,
        read_key: FileKey | None = None,
        digest: bytes | None = None,
        original_findings: list[Finding] | None = None,
        resolved: dict[str, int] | None = None,
        noqa_added: int = 0,
    ) -> None:
        self.filename = filename
        self.findings: list[Finding] = [] if findings is None else findings
        self.text = text
        self.fixed: dict[str, int] = {} if fixed is None else fixed
        self.diff = diff
        self.errors: list[str] = [] if errors is None else errors
        self.warnings: list[str] = [] if warnings is None else warnings
        self.new_bytes = new_bytes
        self.cached = cached
        self.read_key = read_key
        self.digest = digest
        self.original_findings = original_findings
        self.resolved: dict[str, int] = {} if resolved is None else resolved
        self.noqa_added = noqa_added

    def not_written(self, reason: str) -> None:
        """The fixed text could not be written: report ``reason``, and the
        findings of the text as read, with nothing counted as fixed."""
        self.errors.append(reason)
        if self.original_findings is not None:
            self.findings = self.original_findings
        self.fixed = {}
        self.resolved = {}
        self.noqa_added = 0
        self.text = None  # the output reads the file as it is, if it shows lines
        self.new_bytes = None


def resolved_by_fixes(
    first: Sequence[Finding], remaining: Sequence[Finding], unsafe_fixes: bool
) -> dict[str, int]:
    """Per code, how many of the fixable findings in ``first`` (the findings of
    the unfixed text) are gone from ``remaining`` (those of the fixed text).

    A finding is the same one after the fixes when its code and message are:
    positions move as edits above it change the line count, messages do not.
    Findings that only a fix exposed are not in ``first`` and count here as
    nothing, however many passes fixed them.
    """
    from collections import Counter

    fixable = Counter(
        (finding.code, finding.message)
        for finding in first
        if finding.fix is not None and finding.fix.is_applicable(unsafe_fixes)
    )
    left = Counter((finding.code, finding.message) for finding in remaining)
    resolved: Counter[str] = Counter()
    for (code, _), count in (fixable - left).items():
        resolved[code] += count
    return dict(resolved)


def _unified_diff(old: str, new: str, name: str) -> str:
    """The patch from ``old`` to ``new`` as ``patch`` and ``git apply`` read
    it: lines end at ``\\n`` only (a ``\\r``, form feed or ``\\x85`` is part
    of its line, as ``str.splitlines`` would not have it), and a last line
    without one is marked ``\\ No newline at end of file``; applied to the
    file's text, it gives exactly the text ``--fix`` writes."""
    import difflib

    # As git writes it: a name with a space ends at a tab, where GNU patch
    # (which reads a header's name up to the first blank otherwise) stops.
    if " " in name:
        name += "\t"
    lines = []
    for line in difflib.unified_diff(
        _patch_lines(old), _patch_lines(new), fromfile=name, tofile=name
    ):
        lines.append(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        )
    return "".join(lines)


def _patch_lines(text: str) -> list[str]:
    """The lines of ``text`` as a patch counts them, each with its ``\\n``."""
    lines = text.split("\n")
    last = lines.pop()
    lines = [line + "\n" for line in lines]
    if last:
        lines.append(last)
    return lines


def process_file(
    filename: str,
    data: bytes | None,
    settings: Settings,
    mode: str,
    unsafe_fixes: bool,
    display: str,
    *,
    keep_text: bool = False,
    digest: bool = False,
    noqa_reason: str | None = None,
    registry: Registry | None = None,
) -> FileOutcome:
    """Check, fix or diff one file's bytes (read here when ``data`` is None),
    or add ``# noqa`` directives to it (mode "add-noqa", with ``noqa_reason``).

    In fix and add-noqa mode ``new_bytes`` holds the new content when the
    text changed. In check mode the text is kept in the outcome only with
    ``keep_text``.
    ``digest``: record the bytes' content digest (for the cache; fix mode
    always records it, for the write). Nothing about one file stops a run:
    a failure inside attnlint becomes an error naming the file.
    """
    outcome = FileOutcome(filename)
    try:
        _process(
            outcome,
            data,
            settings,
            mode,
            unsafe_fixes,
            display,
            keep_text,
            digest,
            noqa_reason,
            registry,
        )
    except Exception as error:  # a bug in attnlint must not end the run
        outcome.findings, outcome.new_bytes, outcome.fixed = [], None, {}
        outcome.errors.append(
            f"{display}: attnlint failed on this file: {type(error).__name__}: "
            f"{error}. This is a bug in attnlint; please report it together "
            "with the file."
        )
    return outcome


def _process(
    outcome: FileOutcome,
    data: bytes | None,
    settings: Settings,
    mode: str,
    unsafe_fixes: bool,
    display: str,
    keep_text: bool,
    digest: bool,
    noqa_reason: str | None = None,
    registry: Registry | None = None,
) -> None:
    from lint_rules.checker import check_source, decode_source, io_error_finding
    from lint_rules.source import SourceError, content_digest, read_regular_file

    filename = outcome.filename
    if data is None:
        try:
            data, info = read_regular_file(filename)
        except OSError as error:
            outcome.errors.append(f"{display}: {error.strerror or error}")
            return
        outcome.read_key = file_key(info)
        if digest or mode in WRITING_MODES:
            outcome.digest = content_digest(data)
    try:
        source = decode_source(data)
    except SourceError as error:
        outcome.findings = [io_error_finding(filename, str(error))]
        return
    if mode == "check":
        if keep_text:
            outcome.text = source.text
        outcome.findings = check_source(
            source.text, filename, settings, errors=outcome.errors, registry=registry
        )
        return
    if mode == "add-noqa":
        _add_noqa(outcome, source, settings, display, noqa_reason, registry)
        return
    from lint_rules.fixer import fix_text

    outcome.text = source.text
    result = fix_text(
        source.text,
        filename,
        settings,
        unsafe_fixes,
        errors=outcome.errors,
        registry=registry,
    )
    outcome.findings = result.remaining_findings
    if result.error is not None:
        outcome.errors.append(result.error)
        return
    if not result.converged:
        outcome.warnings.append(
            f"{display}: fixes did not settle after 100 passes; the last result is kept"
        )
    if not result.changed:
        return
    try:
        new_bytes = source.to_bytes(result.text)
    except (UnicodeError, LookupError, ValueError, TypeError) as error:
        reason = getattr(error, "reason", None) or str(error)
        outcome.errors.append(
            f"{display}: the fixed text cannot be encoded as {source.encoding} "
            f"({reason}); left unchanged"
        )
        outcome.findings = result.original_findings
        return
    outcome.fixed = result.fixed_count_by_code
    outcome.resolved = resolved_by_fixes(
        result.original_findings, result.remaining_findings, unsafe_fixes
    )
    if mode == "diff":
        # In the file's bytes (a Latin-1 or byte-order-marked file's lines
        # are not their UTF-8 text): what ``patch`` matches and writes.
        outcome.diff = _unified_diff(
            data.decode("utf-8", "surrogateescape"),
            new_bytes.decode("utf-8", "surrogateescape"),
            display,
        )
        # --diff reports nothing as fixed on disk; the remaining findings refer to the
        # original text only through the summary counts.
        return
    outcome.text = result.text
    outcome.new_bytes = new_bytes
    outcome.original_findings = result.original_findings


def _add_noqa(
    outcome: FileOutcome,
    source: Any,
    settings: Settings,
    display: str,
    reason: str | None,
    registry: Registry | None = None,
) -> None:
    """``--add-noqa`` on one decoded file: a directive on every row with a
    finding, checked by checking the new text again (it must report exactly
    the findings no directive could take), then encoded as the file was."""
    from lint_rules.checker import check_source
    from lint_rules.noqa import add_noqa_directives

    filename = outcome.filename
    # Suppression comments are what this run writes, not what it judges:
    # ATN001 does not run (nor does ruff's RUF100 under its --add-noqa).
    findings = check_source(
        source.text,
        filename,
        settings,
        errors=outcome.errors,
        review_suppressions=False,
        registry=registry,
    )
    outcome.findings = findings
    new_text, added, left = add_noqa_directives(source.text, findings, reason=reason)
    if not added:
        return
    again = check_source(
        new_text,
        filename,
        settings,
        errors=[],
        review_suppressions=False,
        registry=registry,
    )
    if sorted(map(_place, again)) != sorted(map(_place, left)):
        outcome.errors.append(
            f"{display}: the noqa directives would not suppress its findings; left "
            "unchanged. This is a bug in attnlint; please report it together "
            "with the file."
        )
        return
    try:
        new_bytes = source.to_bytes(new_text)
    except (UnicodeError, LookupError, ValueError, TypeError) as error:
        problem = getattr(error, "reason", None) or str(error)
        outcome.errors.append(
            f"{display}: the noqa reason cannot be encoded as {source.encoding} "
            f"({problem}); left unchanged"
        )
        return
    outcome.findings = left
    outcome.original_findings = findings
    outcome.text = new_text
    outcome.new_bytes = new_bytes
    outcome.noqa_added = added


def _place(finding: Finding) -> tuple[str, int, int]:
    return (finding.code, finding.location.row, finding.location.column)


# ------------------------------------------------------------------ worker side

# What every task of a run shares; set in each worker by ``_start_worker``.
_job: tuple[Settings, str, bool, bool, str | None, Registry | None] | None = None

# A finished file as sent back by a worker: (index, findings, text, fixed,
# diff, errors, warnings, new_bytes, read_key, digest, original_findings,
# resolved, noqa_added).
_Result = tuple[
    int,
    tuple[FindingData, ...],
    "str | None",
    dict,
    str,
    list,
    list,
    "bytes | None",
    "FileKey | None",
    "bytes | None",
    "tuple[FindingData, ...] | None",
    dict,
    int,
]


def _start_worker(
    settings: Settings,
    mode: str,
    unsafe_fixes: bool,
    digest: bool,
    noqa_reason: str | None = None,
    registry: Registry | None = None,
) -> None:
    import signal

    global _job
    _job = (settings, mode, unsafe_fixes, digest, noqa_reason, registry)
    # The parent handles Ctrl-C and SIGTERM and stops the workers; a SIGHUP
    # the worker meets is dropped (the parent meets it too). A worker is
    # forked with these signals blocked (``_with_signals_held``): one sent
    # before this point is pending, and met now, by these handlers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    held = _held_signals()
    if "SIGHUP" in held:
        signal.signal(held["SIGHUP"], signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(held.values()))
    # A parent killed outright (SIGKILL) leaves the workers a broken pipe and
    # a traceback to print on its terminal: not worth showing.
    sys.stderr = _SilentOnceOrphaned(sys.stderr, os.getppid())
    # Python's collector would scan each tree again and again while the parser
    # builds it (a quarter of the parse time), yet trees hold no cycles: they
    # are freed by reference counting. The analysis' graphs do hold cycles, so
    # a worker collects them itself, between files, once enough have piled up.
    # Objects inherited from the parent are never garbage: frozen, never scanned.
    gc.disable()
    gc.freeze()


class _SilentOnceOrphaned:
    """A worker's stderr: writes nothing once its parent is gone.

    A parent killed outright closes its ends of the pipes before the system
    gives its workers a new parent: a worker can meet the broken pipe, and
    start reporting it, while its parent still looks alive. So the first
    write made while an exception is being handled waits a moment (at most
    ``ORPHAN_WAIT`` seconds, once) for the parent to go."""

    ORPHAN_WAIT = 0.5

    def __init__(self, stream: Any, parent: int) -> None:
        self._stream = stream
        self._parent = parent
        self._waited = False

    def write(self, text: str) -> int:
        if self._orphaned():
            return len(text)
        return self._stream.write(text)

    def _orphaned(self) -> bool:
        if os.getppid() != self._parent:
            return True
        if self._waited or sys.exc_info()[0] is None:
            return False
        self._waited = True
        import time

        deadline = time.monotonic() + self.ORPHAN_WAIT
        while time.monotonic() < deadline:
            time.sleep(0.01)
            if os.getppid() != self._parent:
                return True
        return False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _work(task: tuple[int, str, str]) -> _Result:
    assert _job is not None
    settings, mode, unsafe_fixes, digest, noqa_reason, registry = _job
    index, filename, display = task
    outcome = process_file(
        filename,
        None,
        settings,
        mode,
        unsafe_fixes,
        display,
        digest=digest,
        noqa_reason=noqa_reason,
        registry=registry,
    )
    result = _pack(index, outcome)
    if gc.get_count()[0] > WORKER_GC_OBJECTS:
        gc.collect()
    return result


def _pack(index: int, outcome: FileOutcome) -> _Result:
    return (
        index,
        tuple(finding_to_data(finding) for finding in outcome.findings),
        outcome.text,
        outcome.fixed,
        outcome.diff,
        outcome.errors,
        outcome.warnings,
        outcome.new_bytes,
        outcome.read_key,
        outcome.digest,
        None
        if outcome.original_findings is None
        else tuple(finding_to_data(finding) for finding in outcome.original_findings),
        outcome.resolved,
        outcome.noqa_added,
    )


def _unpack(result: _Result, filename: str) -> FileOutcome:
    (_, findings, text, fixed, diff, errors, warnings, new_bytes) = result[:8]
    read_key, digest, original, resolved, noqa_added = result[8:]
    return FileOutcome(
        filename,
        [finding_from_data(item, filename) for item in findings],
        text,
        fixed,
        diff,
        errors,
        warnings,
        new_bytes,
        read_key=read_key,
        digest=digest,
        original_findings=None
        if original is None
        else [finding_from_data(item, filename) for item in original],
        resolved=resolved,
        noqa_added=noqa_added,
    )


def _pool_context() -> Any:
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    # fork shares the imported rules with the workers at no cost; macOS's
    # system libraries are not fork-safe, so it uses spawn, as Windows does.
    if "fork" in methods and sys.platform != "darwin":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


# ------------------------------------------------------------------ the run


def run_files(
    files: Sequence[str],
    settings: Settings,
    mode: str,
    unsafe_fixes: bool,
    *,
    jobs: int = 1,
    cache: Cache | None = None,
    display: Callable[[str], str] = str,
    write: Callable[[FileOutcome], None] | None = None,
    noqa_reason: str | None = None,
    registry: Registry | None = None,
) -> list[FileOutcome]:
    """The outcome of every file in ``files``, in that order.

    ``write`` is called in this process for each outcome with ``new_bytes``
    (fix and add-noqa mode), before the cache learns about that file.
    ``noqa_reason`` is the reason add-noqa mode writes after the codes. Files whose cached
    findings hold nothing a fix run would apply are not checked again; a
    cached entry is used only for the file it describes (same identity, see
    :func:`lint_rules.cache.file_key`, and same content digest).
    """
    outcomes: list[FileOutcome | None] = [None] * len(files)
    sizes: list[int | None] = [None] * len(files)
    misses: list[int] = []
    for index, filename in enumerate(files):
        if cache is not None:
            found = _cached_findings(cache, filename, sizes, index)
            if found is not None and not _cached_findings_need_work(
                found, mode, unsafe_fixes
            ):
                outcomes[index] = FileOutcome(filename, found, cached=True)
                continue
        misses.append(index)

    for outcome_index, outcome in _check(
        files,
        misses,
        settings,
        mode,
        unsafe_fixes,
        jobs,
        display,
        sizes,
        digest=cache is not None,
        noqa_reason=noqa_reason,
        registry=registry,
    ):
        if outcome.new_bytes is not None and write is not None:
            write(outcome)
        if cache is not None:
            path = os.path.abspath(files[outcome_index])
            if (
                outcome.errors
                or outcome.new_bytes is not None
                or outcome.diff
                or outcome.read_key is None
                or outcome.digest is None
                # add-noqa's findings leave out ATN001's: not what a check stores.
                or mode == "add-noqa"
            ):
                cache.forget(path)
            else:
                cache.store(
                    path,
                    outcome.read_key,
                    outcome.digest,
                    (finding_to_data(f) for f in outcome.findings),
                )
        outcome.new_bytes = None  # written; do not keep every new file in memory
        outcomes[outcome_index] = outcome
    return [outcome for outcome in outcomes if outcome is not None]


def _cached_findings(
    cache: Cache, filename: str, sizes: list[int | None], index: int
) -> list[Finding] | None:
    """The cached findings of ``filename`` if its entry describes it: the
    status first (cheap), then the content digest of its bytes."""
    from lint_rules.source import content_digest, read_regular_file

    try:
        info = os.stat(filename)
    except OSError:
        return None
    sizes[index] = info.st_size
    path = os.path.abspath(filename)
    key = file_key(info)
    if not cache.may_hold(path, key):
        return None
    try:
        data, _ = read_regular_file(filename, info)
    except OSError:
        return None
    return cache.findings(path, key, content_digest(data), filename)


def _cached_findings_need_work(
    findings: list[Finding], mode: str, unsafe_fixes: bool
) -> bool:
    """Whether a file whose cached findings are ``findings`` must be read
    again: to fix one (fix and diff mode), or to suppress one (add-noqa)."""
    if mode == "check":
        return False
    if mode == "add-noqa":
        return any(finding.noqa_row is not None for finding in findings)
    return any(
        finding.fix is not None and finding.fix.is_applicable(unsafe_fixes)
        for finding in findings
    )


def _check(
    files: Sequence[str],
    misses: list[int],
    settings: Settings,
    mode: str,
    unsafe_fixes: bool,
    jobs: int,
    display: Callable[[str], str],
    sizes: list[int | None],
    *,
    digest: bool = False,
    noqa_reason: str | None = None,
    registry: Registry | None = None,
) -> Iterator[tuple[int, FileOutcome]]:
    """(index, outcome) of each file to check, as they finish; ``digest``:
    outcomes carry their content digest (for the cache)."""
    if jobs <= 1 or len(misses) < MIN_FILES_FOR_WORKERS:
        # As in a worker: no cyclic collector while checking (see _start_worker).
        collecting = gc.isenabled()
        gc.disable()
        try:
            for index in misses:
                filename = files[index]
                outcome = process_file(
                    filename,
                    None,
                    settings,
                    mode,
                    unsafe_fixes,
                    display(filename),
                    digest=digest,
                    noqa_reason=noqa_reason,
                    registry=registry,
                )
                if gc.get_count()[0] > WORKER_GC_OBJECTS:
                    gc.collect()
                yield index, outcome
        finally:
            if collecting:
                gc.enable()
        return

    # Largest first: the last files to finish are small ones, so the workers
    # run out of work at nearly the same time.
    def size(index: int) -> int:
        known = sizes[index]
        if known is not None:
            return known
        try:
            return os.stat(files[index]).st_size
        except OSError:
            return 0

    order = sorted(misses, key=size, reverse=True)
    tasks = [(index, files[index], display(files[index])) for index in order]
    chunksize = max(1, min(8, len(tasks) // (jobs * 16)))
    context = _pool_context()
    workers = min(jobs, len(tasks))
    # Made with the signals held, and kept before a held one is raised: a
    # SIGTERM between two workers' forks would otherwise leave the forked
    # ones alive after the command exits, blocked on the task queue and
    # holding its standard streams (a caller waiting for them waits forever).
    # The workers are forked with the signals blocked, and their initializer
    # sets its own handlers before it unblocks them (``_start_worker``).
    made: list[Any] = []
    try:
        _with_signals_held(
            lambda: made.append(
                context.Pool(
                    workers,
                    initializer=_start_worker,
                    initargs=(
                        settings,
                        mode,
                        unsafe_fixes,
                        digest,
                        noqa_reason,
                        registry,
                    ),
                )
            )
        )
        for result in made[0].imap_unordered(_work, tasks, chunksize):
            index = result[0]
            yield index, _unpack(result, files[index])
    finally:
        if made:
            _with_signals_held(made[0].terminate)


def _held_signals() -> dict[str, int]:
    """Ctrl-C, SIGTERM and SIGHUP, those the platform has, by name."""
    import signal

    names = ("SIGINT", "SIGTERM", "SIGHUP")
    return {name: getattr(signal, name) for name in names if hasattr(signal, name)}


def _with_signals_held(action: Callable[[], object]) -> None:
    """Run ``action`` with Ctrl-C, SIGTERM and SIGHUP held until it ends:
    stopping the workers runs multiprocessing's finalizers, and a signal
    raised inside one is only printed ("Exception ignored in ...") and
    lost. Held, it is handled when ``action`` is done, by the handler it
    would have met (in the main thread; elsewhere nothing changes).

    Held twice: blocked (where the platform can), and caught by a handler
    that notes it, for one that reaches another thread. A process forked
    meanwhile (a worker) starts with them blocked: one sent to it before
    its initializer sets its own handlers stays pending in the system
    until they are unblocked there. A handler inherited from here would
    have dropped it (and Python clears what it caught just after a fork),
    leaving a worker that never stops, and a parent waiting for it."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        action()
        return
    pending: list[int] = []

    def hold(signum: int, frame: object) -> None:
        pending.append(signum)

    previous = {}
    for signum in _held_signals().values():
        previous[signum] = signal.signal(signum, hold)
    mask = None
    if hasattr(signal, "pthread_sigmask"):
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, set(previous))
    try:
        action()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if mask is not None:
            # (a signal blocked meanwhile is met here, by the handler back in place)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if pending:
            signum = pending[0]
            handler = previous[signum]
            if callable(handler):
                handler(signum, None)
            elif handler != signal.SIG_IGN:
                os.kill(os.getpid(), signum)


class LazySources(Mapping[str, str]):
    """File texts for the output, read when first asked for.

    A checked file's text is not kept after its check; the few files the
    output shows source lines or fix positions for are read again.
    """

    def __init__(self, known: dict[str, str | None]) -> None:
        # filename -> text, or None: not read yet.
        self._texts = known

    def __getitem__(self, filename: str) -> str:
        if filename not in self._texts:
            raise KeyError(filename)
        text = self._texts[filename]
        if text is None:
            text = _read_text(filename)
            if text is None:
                raise KeyError(filename)
            self._texts[filename] = text
        return text

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


def _read_text(filename: str) -> str | None:
    from lint_rules.source import SourceError, SourceFile, read_regular_file

    try:
        return SourceFile.from_bytes(read_regular_file(filename)[0]).text
    except (OSError, SourceError):
        return None
