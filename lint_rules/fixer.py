"""Applying fixes: non-overlapping edits, re-parse, repeat; guarded atomic writes.

The loop is ruff's: check, apply every applicable fix that does not overlap
one already taken, parse the result, and check again, until a pass applies
nothing (one fix may enable another) or :data:`MAX_PASSES` passes have run.
The fixes of rules that judge suppression comments (ATN001) apply only
once no other fix does, so a ``# noqa`` is judged on the text the other
fixes leave. Where a pass has both safe and unsafe fixes to apply, the
unsafe ones apply alone: a safe fix is proven against its pass's text, which an unsafe one may
change under it; the next pass proves the safe ones again.
A fix that alone makes the text unparsable is left out and reported (through
``errors``) while the others apply; if the pass still does not parse, every
change is dropped and the original text comes back with an error naming the
rules whose fixes broke it.
Text outside the edited ranges is never touched, so comments, formatting and
line endings stay byte-identical.

``write_atomic`` puts a result on disk: the whole new content or none of it,
only over the very file that was read (unchanged since: same inode, size,
times and content hash, checked just before the rename), never over a
read-only file or one with other hard links, with its mode, owner, group
and extended attributes (ACLs, SELinux labels).

These functions are public: ``attnlint check --fix`` and ``attnlint verify``
both use them.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lint_rules.checker import check_source, parse, rules_for_file
from lint_rules.config import Settings
from lint_rules.diagnostics import Applicability, Edit, Finding, Fix
from lint_rules.paths import quote_path
from lint_rules.rules import Registry
from lint_rules.source import (
    FileKey,
    content_digest,
    file_header,
    file_key,
    read_regular_file,
)

#: ruff's bound on fix passes over one file.
MAX_PASSES = 100


@dataclass
class FixResult:
    """The outcome of fixing one text.

    ``text`` is the fixed text (the original one if ``error`` is set);
    ``fixed_count_by_code`` counts applied fixes per rule code;
    ``remaining_findings`` are the findings on ``text``, and
    ``original_findings`` those on the text before any fix; ``error`` says why
    nothing was changed when a fix broke the code; ``converged`` is False when
    the pass limit was reached with fixes still applying; ``left_out`` says,
    for each fix left out because it alone broke the code, which rule made it
    (those messages also go to ``errors``).
    """

    text: str
    fixed_count_by_code: dict[str, int] = field(default_factory=dict)
    remaining_findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    converged: bool = True
    changed: bool = False
    original_findings: list[Finding] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    @property
    def fixed_count(self) -> int:
        return sum(self.fixed_count_by_code.values())


def _unsafe_alone(
    text: str, filename: str, candidates: list[tuple[Finding, Fix]]
) -> list[tuple[Finding, Fix]]:
    """The fixes to apply in one pass: the unsafe ones alone, where there
    are both. A safe fix is proven against the text of its pass; an unsafe
    fix of the same pass may take away what the proof rests on (an
    ATN104 deletion of the ``zero_()`` that an ATN101 ``empty`` counts as
    the full write), and together the two change what neither does alone.
    The safe fixes wait for the next pass, checked again against the text
    the unsafe ones left. Where the unsafe ones change nothing, or change
    the file's header or break the code (reported once no safe fix is
    left), the safe ones apply alone."""
    unsafe = [
        pair for pair in candidates if pair[1].applicability is not Applicability.SAFE
    ]
    if not unsafe or len(unsafe) == len(candidates):
        return candidates
    new_text, applied = apply_fixes(text, (fix for _, fix in unsafe))
    if (
        applied
        and new_text != text
        and file_header(new_text) == file_header(text)
        and not isinstance(parse(new_text, filename), Finding)
    ):
        return unsafe
    return [pair for pair in candidates if pair[1].applicability is Applicability.SAFE]


def _valid_range(edit: Edit, size: int) -> bool:
    return 0 <= edit.start <= edit.end <= size


def apply_fixes(text: str, fixes: Iterable[Fix]) -> tuple[str, list[Fix]]:
    """Apply the fixes that fit together; return the new text and the fixes applied.

    Fixes are taken in order of their first edit. A fix is skipped when one of
    its edits overlaps an edit already taken (``Edit.overlaps``), when its own
    edits overlap each other or fall outside the text, or when a fix of the
    same isolation group was already taken. A fix whose edits were all taken
    already (the same fix reported twice) counts as applied. All of a fix's
    edits are applied, or none.
    """
    size = len(text)
    accepted: list[Edit] = []
    accepted_set: set[Edit] = set()
    isolation_groups: set[int] = set()
    applied: list[Fix] = []
    for fix in sorted((fix for fix in fixes if fix.edits), key=lambda fix: fix.start):
        new_edits = [edit for edit in fix.edits if edit not in accepted_set]
        if not new_edits:
            applied.append(fix)
            continue
        if fix.isolation is not None and fix.isolation in isolation_groups:
            continue
        if not all(_valid_range(edit, size) for edit in new_edits):
            continue
        ordered = sorted(new_edits, key=lambda edit: (edit.start, edit.end))
        if any(a.overlaps(b) for a, b in zip(ordered, ordered[1:], strict=False)):
            continue
        if any(edit.overlaps(taken) for edit in ordered for taken in accepted):
            continue
        accepted.extend(ordered)
        accepted_set.update(ordered)
        if fix.isolation is not None:
            isolation_groups.add(fix.isolation)
        applied.append(fix)
    if not accepted:
        return text, applied
    pieces: list[str] = []
    position = 0
    for edit in sorted(accepted, key=lambda edit: (edit.start, edit.end)):
        pieces.append(text[position : edit.start])
        pieces.append(edit.content)
        position = edit.end
    pieces.append(text[position:])
    return "".join(pieces), applied


def applicable_fixes(
    findings: Iterable[Finding], unsafe_fixes: bool
) -> list[tuple[Finding, Fix]]:
    """The (finding, fix) pairs that ``--fix`` applies under ``unsafe_fixes``."""
    return [
        (finding, finding.fix)
        for finding in findings
        if finding.fix is not None and finding.fix.is_applicable(unsafe_fixes)
    ]


def fix_text(
    text: str,
    filename: str,
    settings: Settings,
    unsafe_fixes: bool,
    *,
    errors: list[str] | None = None,
    registry: Registry | None = None,
) -> FixResult:
    """Fix ``text`` until nothing fixable remains (at most MAX_PASSES passes).

    Safe fixes are applied, and unsafe ones too when ``unsafe_fixes``. A fix
    that alone makes the text unparsable is left out, with a message in
    ``errors``, and the others apply. If a pass still yields text that does
    not parse, the result is the original text, unchanged, with ``error``
    naming the rule(s) whose fixes broke it and the findings of the first
    check. A fix that would change the encoding the first two lines declare
    (PEP 263: what the bytes mean) or the ``#!`` line is left out too
    (``left_out`` says so). Internal rule failures go to ``errors``. ``registry`` maps the
    selected codes to rules (default: attnlint's).
    """
    original = text
    header = file_header(text)
    tree: ast.Module | None = None
    fixed: Counter[str] = Counter()
    first_findings: list[Finding] | None = None
    findings: list[Finding] = []
    left_out: list[str] = []
    # Rules that judge the suppression comments (ATN001): their fixes wait
    # until no other fix applies.
    reviewers = {
        rule.code
        for rule in rules_for_file(settings, filename, registry)
        if rule.checks_suppressions
    }
    for _ in range(MAX_PASSES):
        findings = check_source(
            text, filename, settings, tree=tree, errors=errors, registry=registry
        )
        if first_findings is None:
            first_findings = findings
        candidates = applicable_fixes(findings, unsafe_fixes)
        if not candidates:
            break
        if reviewers and any(
            finding.code not in reviewers for finding, _ in candidates
        ):
            # A suppression comment is judged on the text the other fixes
            # leave: one unused now may suppress a finding they expose.
            candidates = [pair for pair in candidates if pair[0].code not in reviewers]
        candidates = _unsafe_alone(text, filename, candidates)
        code_of = {id(fix): finding.code for finding, fix in candidates}
        name_of = {id(fix): finding.name for finding, fix in candidates}
        new_text, applied = apply_fixes(text, (fix for _, fix in candidates))
        if not applied or new_text == text:
            break
        if file_header(new_text) != header:
            # A fix that changes the declared encoding (a cookie removed, or
            # one moved up to line 2) changes what the bytes mean; one that
            # changes the ``#!`` line changes what runs the file. Left out.
            moving = [
                fix
                for fix in applied
                if file_header(apply_fixes(text, [fix])[0]) != header
            ]
            for fix in moving:
                message = (
                    f"{quote_path(filename)}: a fix by {code_of[id(fix)]} "
                    f"({name_of[id(fix)]}: {fix.message}) would change the file's encoding declaration "
                    "or its #! line and was left out."
                )
                if message not in left_out:
                    left_out.append(message)
            kept = [fix for _, fix in candidates if fix not in moving]
            new_text, applied = apply_fixes(text, kept)
            if not applied or new_text == text or file_header(new_text) != header:
                break
        parsed = parse(new_text, filename)
        if isinstance(parsed, Finding):
            # A fix that breaks the code on its own is left out (and reported
            # as the bug it is); the others still apply.
            broken = _breaking_alone(text, filename, applied)
            for fix in broken:
                message = (
                    f"{quote_path(filename)}: a fix by {code_of[id(fix)]} "
                    f"({name_of[id(fix)]}: {fix.message}) produced invalid code and was left out. This "
                    "is a bug in attnlint; please report it together with the file."
                )
                if message not in left_out:
                    left_out.append(message)
                if errors is not None and message not in errors:
                    errors.append(message)
            if broken:
                kept = [fix for _, fix in candidates if fix not in broken]
                new_text, applied = apply_fixes(text, kept)
                if not applied or new_text == text:
                    break
                parsed = parse(new_text, filename)
        if isinstance(parsed, Finding):
            return FixResult(
                text=original,
                remaining_findings=first_findings,
                error=_broken_fix_message(filename, text, candidates, applied, parsed),
                original_findings=first_findings,
                left_out=left_out,
            )
        fixed.update(code_of[id(fix)] for fix in applied)
        text, tree = new_text, parsed
    else:
        findings = check_source(
            text, filename, settings, tree=tree, errors=errors, registry=registry
        )
        return FixResult(
            text,
            dict(fixed),
            findings,
            converged=False,
            changed=text != original,
            original_findings=first_findings or [],
            left_out=left_out,
        )
    return FixResult(
        text,
        dict(fixed),
        findings,
        changed=text != original,
        original_findings=first_findings or [],
        left_out=left_out,
    )


def _breaking_alone(text: str, filename: str, fixes: Sequence[Fix]) -> list[Fix]:
    """The fixes among ``fixes`` whose edits alone make ``text`` unparsable."""
    return [
        fix
        for fix in fixes
        if isinstance(parse(apply_fixes(text, [fix])[0], filename), Finding)
    ]


def _broken_fix_message(
    filename: str,
    text: str,
    candidates: Sequence[tuple[Finding, Fix]],
    applied: Sequence[Fix],
    syntax_error: Finding,
) -> str:
    """Name the rules whose fixes broke the code: alone if possible, else together."""
    applied_ids = {id(fix) for fix in applied}
    by_code: dict[str, tuple[str, list[Fix]]] = {}
    for finding, fix in candidates:
        if id(fix) in applied_ids:
            by_code.setdefault(finding.code, (finding.name, []))[1].append(fix)
    culprits = [
        code
        for code, (_, fixes) in by_code.items()
        if isinstance(parse(apply_fixes(text, fixes)[0], filename), Finding)
    ] or list(by_code)
    names = ", ".join(f"{code} ({by_code[code][0]})" for code in sorted(culprits))
    where = f"{syntax_error.location.row}:{syntax_error.location.column}"
    return (
        f"{quote_path(filename)}: fixes by {names} produced invalid code "
        f"({syntax_error.message} at {where}); the file was left unchanged. "
        "This is a bug in attnlint; please report it together with the file."
    )


# ------------------------------------------------------------------- writing


class FileNotRewritten(OSError):
    """A file ``write_atomic`` left as it is; ``strerror`` says why, in words
    for the user (the file changed meanwhile, is read-only, has hard links...)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(errno.EPERM, reason, os.fspath(path))


class FileChanged(FileNotRewritten):
    """The file on disk is not the one that was read: another program (an
    editor, a branch switch) changed, replaced or deleted it meanwhile."""


def why_not_rewritable(
    path: str | os.PathLike[str], info: os.stat_result
) -> str | None:
    """Why attnlint will not replace the file ``info`` describes (None: it may).

    - Not a regular file.
    - Read-only: no write permission for this user (for root, which may
      write anything: no write permission bit at all, its owner's intent).
    - Hard links: the new text would go to this name only, the other names
      keeping the old one; writing into the shared inode instead could not
      be atomic (a crash would leave every name half written), and a file
      linked from a package cache or a backup snapshot is shared with other
      trees that did not ask for the fix.
    """
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if _read_only(path, info):
        return "read-only"
    if info.st_nlink > 1:
        return (
            f"it has {info.st_nlink} hard links, which would no longer share one text"
        )
    return None


def _read_only(path: str | os.PathLike[str], info: os.stat_result) -> bool:
    geteuid = getattr(os, "geteuid", None)
    if geteuid is not None and geteuid() == 0:
        return not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    if os.access in os.supports_effective_ids:
        return not os.access(path, os.W_OK, effective_ids=True)
    return not os.access(path, os.W_OK)  # pragma: no cover - Windows


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: Names of temporary files: ``.NAME.<random>.attnlint-tmp`` beside NAME.
TEMPORARY_SUFFIX = ".attnlint-tmp"


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    expected: tuple[FileKey, bytes] | None = None,
    times_ns: tuple[int, int] | None = None,
) -> os.stat_result:
    """Replace the file at ``path`` with ``data`` atomically; return the new
    file's status.

    The bytes go to an unnamed temporary file in the same folder (a named
    one where the system has no ``O_TMPFILE``), are flushed to disk with the
    file's mode, owner, group and extended attributes (and ``times_ns``, (atime, mtime), when
    given), and the temporary file is renamed over the target: a reader sees
    the old file or the new one, never a mix, and a run killed while writing
    leaves no file behind (with ``O_TMPFILE``: a name exists only between
    the two system calls that give it one and rename it). A symbolic link is
    followed: the file it points to is replaced and the link stays a link.

    A writer holds a lock (``flock``) on its temporary file until it is
    renamed. A ``kill -9`` that lands between naming it and renaming it
    leaves a complete, unlocked copy behind; the next write of the same
    file removes such leftovers (``remove_stale_temporaries``).

    ``expected`` is (``file_key``, ``content_digest``) of the file as it was
    read; just before the rename, the file on disk must still be that one,
    or ``FileChanged`` is raised and nothing is written. A file that
    ``why_not_rewritable`` refuses raises ``FileNotRewritten``; so does one
    whose owner and group cannot be kept. Other failures raise OSError;
    in every case no temporary file is left.
    """
    target = os.path.realpath(path)
    try:
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        if expected is not None:
            raise FileChanged(
                path, "changed while attnlint was fixing it (deleted)"
            ) from None
        info = None
    if info is not None and expected is not None and file_key(info) != expected[0]:
        # Changed already: say so (not that the new file is read-only, say),
        # unless it already holds the new text.
        done = _check_unchanged(path, target, expected, data)
        if done is not None:
            return done
    if info is not None:
        reason = why_not_rewritable(target, info)
        if reason is not None:
            raise FileNotRewritten(path, reason)
        mode = stat.S_IMODE(info.st_mode)
    else:
        mode = 0o666 & ~_current_umask()
    remove_stale_temporaries(target)
    try:
        return _replace(target, data, info, mode, times_ns, expected, path)
    except _NoLinkToUnnamed:
        # The system made an unnamed file but cannot name it (no /proc).
        return _replace(target, data, info, mode, times_ns, expected, path, False)


class _NoLinkToUnnamed(Exception):
    """An ``O_TMPFILE`` file that cannot be given a name."""


def _replace(
    target: str,
    data: bytes,
    info: os.stat_result | None,
    mode: int,
    times_ns: tuple[int, int] | None,
    expected: tuple[FileKey, bytes] | None,
    path: str | os.PathLike[str],
    unnamed: bool = True,
) -> os.stat_result:
    """``write_atomic``'s work once the target is known to be replaceable."""
    folder = os.path.dirname(target) or "."
    name = os.path.basename(target)
    try:
        descriptor, temporary = _temporary_file(folder, name, unnamed)
    except PermissionError as error:
        # A writable file in a folder this user cannot write in: ruff and
        # black would write into the file itself, which a crash can leave
        # half written; the new text needs a new file beside it.
        raise FileNotRewritten(
            path,
            f"cannot create a file in its folder ({error.strerror or error}), "
            "where the fixed text is written before it is renamed over the file",
        ) from None
    try:
        _lock(descriptor)
        with os.fdopen(descriptor, "wb", closefd=False) as stream:
            stream.write(data)
        if info is not None:
            _keep_owner(descriptor, info, path)
            _keep_extended_attributes(descriptor, target, path)
        # Last: chown clears set-id bits, and an ACL set above sets the mode.
        os.fchmod(descriptor, mode)
        if times_ns is not None:
            os.utime(descriptor, ns=times_ns)
        os.fsync(descriptor)
        if expected is not None:
            done = _check_unchanged(path, target, expected, data)
            if done is not None:
                # Another run (another attnlint --fix) already wrote this text.
                if temporary is not None:
                    os.unlink(temporary)
                    temporary = None
                return done
        if temporary is None:
            temporary = _name_unnamed(descriptor, folder, name)
        os.replace(temporary, target)
        temporary = None
        new_info = os.fstat(descriptor)  # renaming changed its status time
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
    finally:
        os.close(descriptor)
    with contextlib.suppress(OSError):
        # Make the rename itself durable (POSIX; not possible everywhere).
        directory = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    return new_info


def _temporary_file(folder: str, name: str, unnamed: bool) -> tuple[int, str | None]:
    """An open temporary file in ``folder``: (descriptor, None) when it has
    no name yet (``O_TMPFILE``, if ``unnamed`` and the system has it), else
    (descriptor, its path)."""
    flag = getattr(os, "O_TMPFILE", 0) if unnamed else 0
    if flag:
        try:
            return os.open(folder, flag | os.O_WRONLY | os.O_CLOEXEC, 0o600), None
        except OSError as error:
            # Not supported by this file system or kernel: a named file.
            if error.errno not in (
                errno.EOPNOTSUPP,
                errno.EISDIR,
                errno.EINVAL,
                errno.ENOENT,
            ):
                raise
    return tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=TEMPORARY_SUFFIX)


def _lock(descriptor: int, wait: bool = True) -> bool:
    """Take the exclusive lock of the file open as ``descriptor``: held by
    a writer on its temporary file for as long as the writer lives (the
    system drops it with the writer's descriptors, ``kill -9`` included).
    False when ``wait`` is False and another open file holds it."""
    try:
        import fcntl
    except (
        ImportError
    ):  # pragma: no cover - without flock no leftover is provably stale
        return wait
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    return True


def remove_stale_temporaries(target: str) -> list[str]:
    """Remove the temporary files of ``target`` (``.NAME.<random>.attnlint-tmp``
    beside it) that no living writer holds: what a writer killed between
    naming its temporary file and renaming it left. Return their paths.

    A writer locks its temporary file before the file has a name and keeps
    the lock until the rename, so an unlocked one is a leftover; one being
    written or renamed right now is locked, or already gone, and kept.
    """
    folder = os.path.dirname(target) or "."
    prefix = f".{os.path.basename(target)}."
    removed: list[str] = []
    try:
        entries = [
            entry.name
            for entry in os.scandir(folder)
            if entry.name.startswith(prefix) and entry.name.endswith(TEMPORARY_SUFFIX)
        ]
    except OSError:
        return removed
    for entry in entries:
        path = os.path.join(folder, entry)
        try:
            descriptor = os.open(
                path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            )
        except OSError:
            continue
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode) or not _lock(descriptor, wait=False):
                continue
            # Still the file that was opened (not renamed and replaced since).
            now = os.lstat(path)
            if (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino):
                os.unlink(path)
                removed.append(path)
        except OSError:
            continue
        finally:
            os.close(descriptor)
    return removed


def _name_unnamed(descriptor: int, folder: str, name: str) -> str:
    """Give an ``O_TMPFILE`` file a temporary name beside its target."""
    for _ in range(100):
        temporary = os.path.join(
            folder, f".{name}.{os.urandom(4).hex()}{TEMPORARY_SUFFIX}"
        )
        try:
            # linkat(2) following the /proc link to the file itself (a
            # src_dir_fd makes Python call linkat; the path is absolute).
            os.link(
                f"/proc/self/fd/{descriptor}",
                temporary,
                src_dir_fd=descriptor,
                follow_symlinks=True,
            )
        except FileExistsError:
            continue
        except OSError as error:
            raise _NoLinkToUnnamed(error) from None
        return temporary
    raise FileExistsError(errno.EEXIST, "no free temporary name", folder)


def _keep_owner(
    descriptor: int, info: os.stat_result, path: str | os.PathLike[str]
) -> None:
    new = os.fstat(descriptor)
    if (new.st_uid, new.st_gid) == (info.st_uid, info.st_gid):
        return
    try:
        os.fchown(descriptor, info.st_uid, info.st_gid)
    except PermissionError:
        raise FileNotRewritten(
            path,
            f"its owner and group (uid {info.st_uid}, gid {info.st_gid}) could "
            "not be kept",
        ) from None


#: Errors saying a file system keeps no extended attributes at all.
_NO_ATTRIBUTES = frozenset(
    {errno.ENOTSUP, errno.EOPNOTSUPP, getattr(errno, "ENOATTR", errno.ENODATA)}
)


def _keep_extended_attributes(
    descriptor: int, target: str, path: str | os.PathLike[str]
) -> None:
    """Give the new file (open as ``descriptor``) the extended attributes of
    the file it replaces, and only those: user attributes, POSIX ACLs
    (``system.posix_acl_*``), SELinux labels, file capabilities. A rename
    keeps none of them; one that cannot be set (or one the new file got
    from its folder that cannot be removed) raises ``FileNotRewritten``.
    Linux only: elsewhere there is no ``os.listxattr``."""
    listxattr = getattr(os, "listxattr", None)
    if listxattr is None:  # pragma: no cover - not Linux
        return
    try:
        names = listxattr(target)
        wanted = {name: os.getxattr(target, name) for name in names}
    except OSError as error:
        if error.errno in _NO_ATTRIBUTES:
            return  # a file system without them: nothing to keep
        raise
    try:
        have = {name: os.getxattr(descriptor, name) for name in listxattr(descriptor)}
    except OSError as error:
        if error.errno not in _NO_ATTRIBUTES:
            raise
        have = {}
    for name, value in wanted.items():
        if have.get(name) == value:
            continue  # already so (an SELinux label from the folder, say)
        try:
            os.setxattr(descriptor, name, value)
        except OSError as error:
            raise FileNotRewritten(
                path,
                f"its extended attribute {name} could not be kept "
                f"({error.strerror or error})",
            ) from None
    for name in have.keys() - wanted.keys():
        try:
            os.removexattr(descriptor, name)
        except OSError as error:
            raise FileNotRewritten(
                path,
                f"the new file got an extended attribute, {name}, that it does "
                f"not have and that could not be removed ({error.strerror or error})",
            ) from None


def _check_unchanged(
    path: str | os.PathLike[str],
    target: str,
    expected: tuple[FileKey, bytes],
    data: bytes,
) -> os.stat_result | None:
    """Raise FileChanged unless the file at ``target`` is the one ``expected``
    describes; None if it is, its status if it already holds ``data``."""
    key, digest = expected
    try:
        current, info = read_regular_file(target)
    except FileNotFoundError:
        raise FileChanged(
            path, "changed while attnlint was fixing it (deleted)"
        ) from None
    if file_key(info) == key and content_digest(current) == digest:
        return None
    if current == data:
        return info
    raise FileChanged(path, "changed while attnlint was fixing it")


def fix_file(
    path: str | os.PathLike[str],
    settings: Settings,
    unsafe_fixes: bool,
    *,
    errors: list[str] | None = None,
    write: bool = True,
    registry: Registry | None = None,
) -> FixResult:
    """Fix one file in place (only if its text changed), keeping encoding and BOM.

    Raises OSError (``FileNotRewritten`` when ``write_atomic`` refuses the
    file) or ``SourceError`` when the file cannot be read or decoded. With
    ``write=False`` nothing is written (``--diff``).
    """
    from lint_rules.checker import decode_source

    raw, info = read_regular_file(path)
    source = decode_source(raw)
    result = fix_text(
        source.text,
        os.fspath(path),
        settings,
        unsafe_fixes,
        errors=errors,
        registry=registry,
    )
    if write and result.changed and result.error is None:
        try:
            data = source.to_bytes(result.text)
        except (UnicodeError, LookupError, ValueError) as error:
            reason = getattr(error, "reason", None) or str(error)
            result.error = (
                f"{quote_path(os.fspath(path))}: the fixed text cannot be encoded as {source.encoding} "
                f"({reason}); the file was left unchanged."
            )
            result.text, result.changed = source.text, False
            return result
        write_atomic(path, data, expected=(file_key(info), content_digest(raw)))
    return result
