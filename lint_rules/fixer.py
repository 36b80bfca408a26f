"""Applying fixes: non-overlapping edits, re-parse, repeat; atomic writes.

The loop is ruff's: check, apply every applicable fix that does not overlap
one already taken, parse the result, and check again, until a pass applies
nothing (one fix may enable another) or :data:`MAX_PASSES` passes have run.
A fix that alone makes the text unparsable is left out and reported (through
``errors``) while the others apply; if the pass still does not parse, every
change is dropped and the original text comes back with an error naming the
rules whose fixes broke it.
Text outside the edited ranges is never touched, so comments, formatting and
line endings stay byte-identical; ``write_atomic`` puts the result on disk.

These functions are public: ``attnlint check --fix`` and ``attnlint verify``
both use them.
"""

from __future__ import annotations

import ast
import contextlib
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lint_rules.checker import check_source, parse, read_source
from lint_rules.config import Settings
from lint_rules.diagnostics import Edit, Finding, Fix

#: ruff's bound on fix passes over one file.
MAX_PASSES = 100


@dataclass
class FixResult:
    """The outcome of fixing one text.

    ``text`` is the fixed text (the original one if ``error`` is set);
    ``fixed_count_by_code`` counts applied fixes per rule code;
    ``remaining_findings`` are the findings on ``text``; ``error`` says why
    nothing was changed when a fix broke the code; ``converged`` is False when
    the pass limit was reached with fixes still applying.
    """

    text: str
    fixed_count_by_code: dict[str, int] = field(default_factory=dict)
    remaining_findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    converged: bool = True
    changed: bool = False

    @property
    def fixed_count(self) -> int:
        return sum(self.fixed_count_by_code.values())


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
) -> FixResult:
    """Fix ``text`` until nothing fixable remains (at most MAX_PASSES passes).

    Safe fixes are applied, and unsafe ones too when ``unsafe_fixes``. A fix
    that alone makes the text unparsable is left out, with a message in
    ``errors``, and the others apply. If a pass still yields text that does
    not parse, the result is the original text, unchanged, with ``error``
    naming the rule(s) whose fixes broke it and the findings of the first
    check. Internal rule failures go to ``errors``.
    """
    original = text
    tree: ast.Module | None = None
    fixed: Counter[str] = Counter()
    first_findings: list[Finding] | None = None
    findings: list[Finding] = []
    for _ in range(MAX_PASSES):
        findings = check_source(text, filename, settings, tree=tree, errors=errors)
        if first_findings is None:
            first_findings = findings
        candidates = applicable_fixes(findings, unsafe_fixes)
        if not candidates:
            break
        code_of = {id(fix): finding.code for finding, fix in candidates}
        new_text, applied = apply_fixes(text, (fix for _, fix in candidates))
        if not applied or new_text == text:
            break
        parsed = parse(new_text, filename)
        if isinstance(parsed, Finding):
            # A fix that breaks the code on its own is left out (and reported
            # as the bug it is); the others still apply.
            broken = _breaking_alone(text, filename, applied)
            if broken and errors is not None:
                for fix in broken:
                    message = (
                        f"{filename}: a fix by {code_of[id(fix)]} ({fix.message}) "
                        "produced invalid code and was left out. This is a bug in "
                        "attnlint; please report it together with the file."
                    )
                    if message not in errors:
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
            )
        fixed.update(code_of[id(fix)] for fix in applied)
        text, tree = new_text, parsed
    else:
        findings = check_source(text, filename, settings, tree=tree, errors=errors)
        return FixResult(
            text, dict(fixed), findings, converged=False, changed=text != original
        )
    return FixResult(text, dict(fixed), findings, changed=text != original)


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
        f"{filename}: fixes by {names} produced invalid code "
        f"({syntax_error.message} at {where}); the file was left unchanged. "
        "This is a bug in attnlint; please report it together with the file."
    )


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the file at ``path`` with ``data`` atomically, keeping its mode.

    The bytes go to a temporary file in the same folder, are flushed to disk,
    and the temporary file is renamed over the target, so a reader sees the old
    file or the new one, never a mix. A symbolic link is followed: the file it
    points to is replaced and the link stays a link.
    """
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_current_umask()
    handle, temporary = tempfile.mkstemp(
        dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".attnlint-tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):
        # Make the rename itself durable (POSIX; not possible everywhere).
        directory = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def fix_file(
    path: str | os.PathLike[str],
    settings: Settings,
    unsafe_fixes: bool,
    *,
    errors: list[str] | None = None,
    write: bool = True,
) -> FixResult:
    """Fix one file in place (only if its text changed), keeping encoding and BOM.

    Raises OSError or ``SourceError`` when the file cannot be read or decoded.
    With ``write=False`` nothing is written (``--diff``).
    """
    source = read_source(path)
    result = fix_text(
        source.text, os.fspath(path), settings, unsafe_fixes, errors=errors
    )
    if write and result.changed and result.error is None:
        try:
            data = source.to_bytes(result.text)
        except UnicodeEncodeError as error:
            result.error = (
                f"{os.fspath(path)}: the fixed text cannot be encoded as {source.encoding} "
                f"({error.reason}); the file was left unchanged."
            )
            result.text, result.changed = source.text, False
            return result
        write_atomic(path, data)
    return result
