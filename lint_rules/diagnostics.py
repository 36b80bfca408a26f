"""Findings and fixes as plain data (ruff's model: a fix is edits + applicability)."""

from __future__ import annotations

import enum

from lint_rules.records import Record


class Applicability(str, enum.Enum):
    """How sure attnlint is that a fix keeps the program's meaning."""

    SAFE = "safe"
    UNSAFE = "unsafe"

    def __str__(self) -> str:
        return self.value


class Edit(Record):
    """Replace the text in ``[start, end)`` (character offsets) with ``content``."""

    __slots__ = ("start", "end", "content")
    _fields = __slots__

    def __init__(self, start: int, end: int, content: str = "") -> None:
        self.start = start
        self.end = end
        self.content = content

    def overlaps(self, other: Edit) -> bool:
        if self.start == self.end == other.start == other.end:
            return True  # two insertions at one point: order would be ambiguous
        return self.start < other.end and other.start < self.end


class Fix(Record):
    """Edits that are applied together or not at all.

    Fixes with the same ``isolation`` key are never applied in the same fixer
    pass (ruff's isolation groups): two deletions from one block could each be
    valid alone and leave the block empty together. The fixer applies one of
    them and finds the other again on the next pass.
    """

    __slots__ = ("edits", "applicability", "message", "isolation")
    _fields = __slots__
    _compared = ("edits", "applicability", "message")

    def __init__(
        self,
        edits: tuple[Edit, ...],
        applicability: Applicability,
        message: str,
        isolation: int | None = None,
    ) -> None:
        self.edits = edits
        self.applicability = applicability
        self.message = message
        self.isolation = isolation

    @property
    def start(self) -> int:
        return min(edit.start for edit in self.edits)

    def is_applicable(self, unsafe_fixes: bool) -> bool:
        return self.applicability is Applicability.SAFE or unsafe_fixes


class Location(Record):
    """A 1-based row and a 1-based column, counted in characters."""

    __slots__ = ("row", "column")
    _fields = __slots__

    def __init__(self, row: int, column: int) -> None:
        self.row = row
        self.column = column


class Finding(Record):
    """One diagnostic in one file."""

    __slots__ = (
        "code",
        "name",
        "message",
        "location",
        "end_location",
        "fix",
        "filename",
        "offset",
        "noqa_row",
        "cost",
    )
    _fields = __slots__
    _compared = __slots__[:7]
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        code: str,
        name: str,
        message: str,
        location: Location,
        end_location: Location,
        fix: Fix | None = None,
        filename: str = "",
        offset: int = 0,
        noqa_row: int | None = None,
        cost: str | None = None,
    ) -> None:
        self.code = code
        self.name = name
        self.message = message
        self.location = location
        self.end_location = end_location
        self.fix = fix
        self.filename = filename
        # Offset of the finding's start in the file text, for noqa lookup and sorting.
        self.offset = offset
        # The row whose noqa comment applies (set by the checker; None for
        # findings that cannot be suppressed, such as syntax errors).
        self.noqa_row = noqa_row
        # When the code runs, for a rule's finding in a module's function
        # (set by the checker from the module's hot paths): "per step (a -> b)",
        # "start-up (x)" or "unknown"; None for findings about the file itself.
        self.cost = cost

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.filename, self.location.row, self.location.column, self.code)


#: Rules that report everywhere and say in their message whether the code runs
#: per step (a wasted fill or sync, or a garbage read, is worth knowing
#: anywhere); the outputs do not repeat the cost after their message.
COST_IN_MESSAGE = frozenset({"ATN101", "ATN103", "ATN104", "ATN201"})

SYNTAX_ERROR_CODE = "E999"
SYNTAX_ERROR_NAME = "syntax-error"
IO_ERROR_CODE = "E902"
IO_ERROR_NAME = "io-error"
