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

from lint_rules.cache import Cache, FindingData, finding_from_data, finding_to_data
from lint_rules.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from lint_rules.config import Settings
    from lint_rules.diagnostics import Finding

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
    one fix exposes another. ``new_bytes`` is what a fix run should write;
    ``warnings`` and ``errors``
    are one-line messages for the user. ``read_stat`` is the (size, mtime_ns)
    of the bytes that were read, when the file did not change while it was
    read: what a cache entry of these findings is keyed by.
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
        "read_stat",
        "resolved",
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
        read_stat: tuple[int, int] | None = None,
        resolved: dict[str, int] | None = None,
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
        self.read_stat = read_stat
        self.resolved: dict[str, int] = {} if resolved is None else resolved


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
    import difflib

    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    lines = []
    for line in difflib.unified_diff(old_lines, new_lines, fromfile=name, tofile=name):
        lines.append(line if line.endswith(("\n", "\r")) else line + "\n")
    return "".join(lines)


def process_file(
    filename: str,
    data: bytes | None,
    settings: Settings,
    mode: str,
    unsafe_fixes: bool,
    display: str,
    *,
    keep_text: bool = False,
) -> FileOutcome:
    """Check, fix or diff one file's bytes (read here when ``data`` is None).

    In fix mode ``new_bytes`` holds the new content when the text changed. In
    check mode the text is kept in the outcome only with ``keep_text``.
    """
    from lint_rules.checker import check_source, decode_source, io_error_finding
    from lint_rules.source import SourceError

    outcome = FileOutcome(filename)
    if data is None:
        try:
            with open(filename, "rb") as handle:
                before = os.fstat(handle.fileno())
                data = handle.read()
                after = os.fstat(handle.fileno())
            stat = (before.st_size, before.st_mtime_ns)
            if stat == (after.st_size, after.st_mtime_ns):
                outcome.read_stat = stat
        except OSError as error:
            outcome.errors.append(f"{display}: {error.strerror or error}")
            return outcome
    try:
        source = decode_source(data)
    except SourceError as error:
        outcome.findings = [io_error_finding(filename, str(error))]
        return outcome
    if mode == "check":
        if keep_text:
            outcome.text = source.text
        outcome.findings = check_source(
            source.text, filename, settings, errors=outcome.errors
        )
        return outcome
    from lint_rules.fixer import fix_text

    outcome.text = source.text
    result = fix_text(
        source.text, filename, settings, unsafe_fixes, errors=outcome.errors
    )
    outcome.findings = result.remaining_findings
    if result.error is not None:
        outcome.errors.append(result.error)
        return outcome
    if not result.converged:
        outcome.warnings.append(
            f"{display}: fixes did not settle after 100 passes; the last result is kept"
        )
    if not result.changed:
        return outcome
    try:
        new_bytes = source.to_bytes(result.text)
    except UnicodeEncodeError as error:
        outcome.errors.append(
            f"{display}: the fixed text cannot be encoded as {source.encoding} "
            f"({error.reason}); left unchanged"
        )
        return outcome
    outcome.fixed = result.fixed_count_by_code
    outcome.resolved = resolved_by_fixes(
        result.first_findings, result.remaining_findings, unsafe_fixes
    )
    if mode == "diff":
        outcome.diff = _unified_diff(source.text, result.text, display)
        # --diff reports nothing as fixed on disk; the remaining findings refer to the
        # original text only through the summary counts.
        return outcome
    outcome.text = result.text
    outcome.new_bytes = new_bytes
    return outcome


# ------------------------------------------------------------------ worker side

# What every task of a run shares; set in each worker by ``_start_worker``.
_job: tuple[Settings, str, bool] | None = None

# A finished file as sent back by a worker: (index, findings, text, fixed, diff,
# errors, warnings, new_bytes, read_stat, resolved).
_Result = tuple[
    int,
    tuple[FindingData, ...],
    "str | None",
    dict,
    str,
    list,
    list,
    "bytes | None",
    "tuple[int, int] | None",
    dict,
]


def _start_worker(settings: Settings, mode: str, unsafe_fixes: bool) -> None:
    import signal

    global _job
    _job = (settings, mode, unsafe_fixes)
    # The parent handles Ctrl-C and stops the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Python's collector would scan each tree again and again while the parser
    # builds it (a quarter of the parse time), yet trees hold no cycles: they
    # are freed by reference counting. The analysis' graphs do hold cycles, so
    # a worker collects them itself, between files, once enough have piled up.
    # Objects inherited from the parent are never garbage: frozen, never scanned.
    gc.disable()
    gc.freeze()


def _work(task: tuple[int, str, str]) -> _Result:
    assert _job is not None
    settings, mode, unsafe_fixes = _job
    index, filename, display = task
    result = _pack(
        index, process_file(filename, None, settings, mode, unsafe_fixes, display)
    )
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
        outcome.read_stat,
        outcome.resolved,
    )


def _unpack(result: _Result, filename: str) -> FileOutcome:
    _, findings, text, fixed, diff, errors, warnings, new_bytes, read_stat, resolved = (
        result
    )
    return FileOutcome(
        filename,
        [finding_from_data(item, filename) for item in findings],
        text,
        fixed,
        diff,
        errors,
        warnings,
        new_bytes,
        read_stat=read_stat,
        resolved=resolved,
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
) -> list[FileOutcome]:
    """The outcome of every file in ``files``, in that order.

    ``write`` is called in this process for each outcome with ``new_bytes``
    (fix mode), before the cache learns about that file. Files whose cached
    findings hold nothing a fix run would apply are not checked again.
    """
    outcomes: list[FileOutcome | None] = [None] * len(files)
    stats: list[tuple[str, int, int] | None] = [None] * len(files)
    misses: list[int] = []
    for index, filename in enumerate(files):
        if cache is not None:
            try:
                info = os.stat(filename)
            except OSError:
                misses.append(index)
                continue
            path = os.path.abspath(filename)
            stats[index] = (path, info.st_size, info.st_mtime_ns)
            found = cache.findings(path, info.st_size, info.st_mtime_ns, filename)
            if found is not None and (
                mode == "check" or not _has_applicable_fix(found, unsafe_fixes)
            ):
                outcomes[index] = FileOutcome(filename, found, cached=True)
                continue
        misses.append(index)

    for outcome_index, outcome in _check(
        files, misses, settings, mode, unsafe_fixes, jobs, display, stats
    ):
        if outcome.new_bytes is not None and write is not None:
            write(outcome)
        if cache is not None and stats[outcome_index] is not None:
            path, size, mtime_ns = stats[outcome_index]  # type: ignore[misc]
            if (
                outcome.errors
                or outcome.new_bytes is not None
                or outcome.diff
                # The file changed after it was looked up (another run fixed
                # it, say): these findings are not those of that version.
                or outcome.read_stat != (size, mtime_ns)
            ):
                cache.forget(path)
            else:
                cache.store(
                    path, size, mtime_ns, (finding_to_data(f) for f in outcome.findings)
                )
        outcome.new_bytes = None  # written; do not keep every new file in memory
        outcomes[outcome_index] = outcome
    return [outcome for outcome in outcomes if outcome is not None]


def _has_applicable_fix(findings: list[Finding], unsafe_fixes: bool) -> bool:
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
    stats: list[tuple[str, int, int] | None],
) -> Iterator[tuple[int, FileOutcome]]:
    """(index, outcome) of each file to check, as they finish."""
    if jobs <= 1 or len(misses) < MIN_FILES_FOR_WORKERS:
        # As in a worker: no cyclic collector while checking (see _start_worker).
        collecting = gc.isenabled()
        gc.disable()
        try:
            for index in misses:
                filename = files[index]
                outcome = process_file(
                    filename, None, settings, mode, unsafe_fixes, display(filename)
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
        known = stats[index]
        if known is not None:
            return known[1]
        try:
            return os.stat(files[index]).st_size
        except OSError:
            return 0

    order = sorted(misses, key=size, reverse=True)
    tasks = [(index, files[index], display(files[index])) for index in order]
    chunksize = max(1, min(8, len(tasks) // (jobs * 16)))
    context = _pool_context()
    workers = min(jobs, len(tasks))
    with context.Pool(
        workers, initializer=_start_worker, initargs=(settings, mode, unsafe_fixes)
    ) as pool:
        for result in pool.imap_unordered(_work, tasks, chunksize):
            index = result[0]
            yield index, _unpack(result, files[index])


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
    from lint_rules.source import SourceError, SourceFile

    try:
        with open(filename, "rb") as handle:
            return SourceFile.from_bytes(handle.read()).text
    except (OSError, SourceError):
        return None
