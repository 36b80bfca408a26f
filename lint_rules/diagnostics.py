"""Findings and fixes as plain data (ruff's model: a fix is edits + applicability)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Applicability(str, enum.Enum):
    """How sure attnlint is that a fix keeps the program's meaning."""

    SAFE = "safe"
    UNSAFE = "unsafe"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text in ``[start, end)`` (character offsets) with ``content``."""

    start: int
    end: int
    content: str = ""

    def overlaps(self, other: Edit) -> bool:
        if self.start == self.end == other.start == other.end:
            return True  # two insertions at one point: order would be ambiguous
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True, slots=True)
class Fix:
    """Edits that are applied together or not at all.

    Fixes with the same ``isolation`` key are never applied in the same fixer
    pass (ruff's isolation groups): two deletions from one block could each be
    valid alone and leave the block empty together. The fixer applies one of
    them and finds the other again on the next pass.
    """

    edits: tuple[Edit, ...]
    applicability: Applicability
    message: str
    isolation: int | None = field(default=None, compare=False)

    @property
    def start(self) -> int:
        return min(edit.start for edit in self.edits)

    def is_applicable(self, unsafe_fixes: bool) -> bool:
        return self.applicability is Applicability.SAFE or unsafe_fixes


@dataclass(frozen=True, slots=True)
class Location:
    """A 1-based row and a 1-based column, counted in characters."""

    row: int
    column: int


@dataclass(slots=True)
class Finding:
    """One diagnostic in one file."""

    code: str
    name: str
    message: str
    location: Location
    end_location: Location
    fix: Fix | None = None
    filename: str = ""
    # Offset of the finding's start in the file text, for noqa lookup and sorting.
    offset: int = field(default=0, compare=False)
    # The row whose noqa comment applies (set by the checker; None for
    # findings that cannot be suppressed, such as syntax errors).
    noqa_row: int | None = field(default=None, compare=False)

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.filename, self.location.row, self.location.column, self.code)


SYNTAX_ERROR_CODE = "E999"
SYNTAX_ERROR_NAME = "syntax-error"
IO_ERROR_CODE = "E902"
IO_ERROR_NAME = "io-error"
