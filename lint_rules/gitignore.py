"""Which files git ignores: ``.gitignore`` files and ``.git/info/exclude``.

Discovery skips what git ignores, as ruff does (``respect-gitignore``). The
patterns are read as git reads them (``gitignore(5)``): blank lines and
``#`` comments are skipped, ``!`` re-includes, a trailing ``/`` matches
folders only, a pattern with a ``/`` before its end is anchored to the
folder of its file and one without matches at any depth, ``*`` and ``?``
never match ``/``, ``**`` matches across folders. Within one file the last
matching pattern decides; a deeper file decides before a shallower one.

As git does, ignore files count only inside a repository (a folder with a
``.git`` at or above it); the user's global excludes file is not read.
"""

from __future__ import annotations

import os
import re

from lint_rules.records import Record

GITIGNORE = ".gitignore"


class IgnoreFile(Record):
    """The patterns of one ignore file; ``base`` is the folder they are
    relative to (absolute, ``/``-separated, no trailing ``/``)."""

    __slots__ = ("base", "patterns")
    _fields = __slots__

    def __init__(
        self, base: str, patterns: tuple[tuple[re.Pattern[str], bool, bool], ...]
    ) -> None:
        self.base = base
        # (regex over the path relative to base, negated, folders only)
        self.patterns = patterns

    @classmethod
    def parse(cls, text: str, base: str) -> IgnoreFile:
        patterns = []
        for line in text.splitlines():
            compiled = _compile(line)
            if compiled is not None:
                patterns.append(compiled)
        return cls(base.replace(os.sep, "/").rstrip("/") or "/", tuple(patterns))

    @classmethod
    def read(cls, path: str, base: str) -> IgnoreFile | None:
        from lint_rules.source import read_regular_file

        try:
            # Never waits on a FIFO by that name (nor reads a device).
            data, _ = read_regular_file(path)
        except OSError:
            return None  # an unreadable ignore file ignores nothing, as in git
        text = data.decode("utf-8", "surrogateescape")
        return cls.parse(text, base)

    def decision(self, absolute: str, is_folder: bool) -> bool | None:
        """True: ignored; False: re-included (``!``); None: no pattern matches."""
        path = absolute.replace(os.sep, "/")
        prefix = self.base.rstrip("/") + "/"
        if not path.startswith(prefix):
            return None
        relative = path[len(prefix) :]
        for regex, negated, folders_only in reversed(self.patterns):
            if folders_only and not is_folder:
                continue
            if regex.match(relative):
                return not negated
        return None


def _compile(line: str) -> tuple[re.Pattern[str], bool, bool] | None:
    """(regex, negated, folders only) of one line of an ignore file, or None."""
    if line.endswith("\r"):
        line = line[:-1]
    # Trailing spaces are dropped unless escaped with a backslash.
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line = stripped
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    elif line.startswith(("\\!", "\\#")):
        line = line[1:]
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    body = _glob(line)
    if body is None:
        return None
    regex = body if anchored else "(?:.*/)?" + body
    return re.compile(regex + r"\Z", re.DOTALL), negated, folders_only


def _glob(pattern: str) -> str | None:
    """A gitignore glob as a regex over ``/``-separated relative paths (None:
    a pattern git would not match anything with, such as an unclosed ``[``)."""
    out: list[str] = []
    index, size = 0, len(pattern)
    while index < size:
        char = pattern[index]
        if char == "*" and pattern.startswith("**", index):
            at_start = index == 0 or pattern[index - 1] == "/"
            end = index + 2
            if at_start and end == size:
                out.append(".*")
                index = end
                continue
            if at_start and pattern.startswith("/", end):
                out.append("(?:.*/)?")
                index = end + 1
                continue
            out.append("[^/]*")
            index = end
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\" and index + 1 < size:
            index += 1
            out.append(re.escape(pattern[index]))
        elif char == "[":
            end = index + 1
            if end < size and pattern[end] in "!^":
                end += 1
            if end < size and pattern[end] == "]":
                end += 1
            while end < size and pattern[end] != "]":
                end += 1
            if end >= size:
                return None
            body = pattern[index + 1 : end]
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            body = body.replace("\\", "\\\\").replace("^", "\\^")
            out.append(f"[{'^' if negate else ''}{body}]")
            index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def repository_root(folder: str) -> str | None:
    """The folder at or above ``folder`` that holds ``.git``, if any."""
    current = os.path.abspath(folder)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def ignore_files_above(folder: str) -> tuple[IgnoreFile, ...]:
    """The ignore files that apply in ``folder`` from the folders above it
    and itself, shallowest first (``.git/info/exclude`` before all): none
    outside a repository."""
    folder = os.path.abspath(folder)
    root = repository_root(folder)
    if root is None:
        return ()
    chain: list[IgnoreFile] = []
    exclude = IgnoreFile.read(os.path.join(root, ".git", "info", "exclude"), root)
    if exclude is not None:
        chain.append(exclude)
    folders = [folder]
    while folders[-1] != root:
        folders.append(os.path.dirname(folders[-1]))
    for current in reversed(folders):
        found = IgnoreFile.read(os.path.join(current, GITIGNORE), current)
        if found is not None:
            chain.append(found)
    return tuple(chain)


def is_ignored(chain: tuple[IgnoreFile, ...], absolute: str, is_folder: bool) -> bool:
    """Whether the ignore files of ``chain`` (shallowest first) ignore the path."""
    for ignore_file in reversed(chain):
        decision = ignore_file.decision(absolute, is_folder)
        if decision is not None:
            return decision
    return False
