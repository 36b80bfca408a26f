"""Open documents, and positions in the units the client counts.

attnlint counts columns in characters (code points) and fix edits are
character offsets into the text; an LSP client counts UTF-16 code units
unless both sides agreed on UTF-8 or UTF-32 (``positionEncoding``). A line
ends at ``\\n``, ``\\r\\n`` or a lone ``\\r`` for the protocol and for Python's
tokenizer alike, so attnlint's rows are the protocol's lines (plus one).
``str.splitlines`` would also split at form feeds and other separators and
is not used here.

A buffer whose text starts with a byte-order mark (U+FEFF, which some
clients keep in the text of a file saved with one) is checked as the file
on disk is: without it (Python reads the file's BOM as an encoding mark,
and ``ast.parse`` refuses U+FEFF in a text). The mark still takes its place
in the client's first line, so positions on that line count it.

Nothing here imports the protocol library: positions are plain
``(line, character)`` pairs, so these conversions are tested on their own.
"""

from __future__ import annotations

import re
from bisect import bisect_right

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"
ENCODINGS = (UTF8, UTF16, UTF32)

_NEWLINE = re.compile(r"\r\n|\r|\n")

BOM = "\ufeff"


def units(text: str, encoding: str) -> int:
    """How many code units of ``encoding`` ``text`` takes."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF16:
        return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)
    return len(text.encode("utf-8", "surrogatepass"))


def characters(line: str, count: int, encoding: str) -> int:
    """How many characters of ``line`` the first ``count`` code units cover.

    A count past the end gives the whole line (the protocol's rule for a
    character beyond the line's length); one that falls inside a character
    (half of a surrogate pair, part of a UTF-8 sequence) ends before it.
    """
    if count <= 0:
        return 0
    if encoding == UTF32 or line.isascii():
        return min(count, len(line))
    used = 0
    for index, char in enumerate(line):
        code = ord(char)
        if encoding == UTF16:
            width = 2 if code > 0xFFFF else 1
        else:
            width = (
                1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
            )
        if used + width > count:
            return index
        used += width
    return len(line)


class LineIndex:
    """Where each line of a text starts, and conversions between character
    offsets, attnlint's (row, column) and the client's (line, character).

    ``text`` is what is checked: the buffer's text without a leading
    byte-order mark (see the module docstring); offsets (of findings and
    fixes) count in it, while the client's positions on the first line
    count the mark too (``bom``: whether the buffer starts with one)."""

    __slots__ = ("text", "starts", "bom", "_ascii")

    def __init__(self, text: str) -> None:
        self.bom = text.startswith(BOM)
        if self.bom:
            text = text[1:]
        self.text = text
        self.starts = [0]
        self.starts += [match.end() for match in _NEWLINE.finditer(text)]
        self._ascii = text.isascii()

    def _lead(self, line: int, encoding: str) -> int:
        """The code units the byte-order mark takes on ``line`` (the first
        line only)."""
        return units(BOM, encoding) if self.bom and line == 0 else 0

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_end(self, line: int) -> int:
        """Offset of the end of 0-based ``line``, before its line ending."""
        if line + 1 >= len(self.starts):
            return len(self.text)
        end = self.starts[line + 1]
        if self.text.startswith("\r\n", end - 2):
            return end - 2
        return end - 1

    def line_text(self, line: int) -> str:
        return self.text[self.starts[line] : self.line_end(line)]

    # ------------------------------------------------------------ to the client

    def position(self, offset: int, encoding: str) -> tuple[int, int]:
        """The client's (line, character) of a character offset."""
        offset = min(max(offset, 0), len(self.text))
        line = bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        offset = min(offset, self.line_end(line))
        lead = self._lead(line, encoding)
        if self._ascii or encoding == UTF32:
            return line, lead + offset - start
        return line, lead + units(self.text[start:offset], encoding)

    def position_of_location(
        self, row: int, column: int, encoding: str
    ) -> tuple[int, int]:
        """The client's (line, character) of attnlint's 1-based row and column
        (clamped to the text: a syntax error may point past a line's end)."""
        line = min(max(row, 1), len(self.starts)) - 1
        start = self.starts[line]
        end = self.line_end(line)
        offset = min(start + max(column, 1) - 1, end)
        lead = self._lead(line, encoding)
        if self._ascii or encoding == UTF32:
            return line, lead + offset - start
        return line, lead + units(self.text[start:offset], encoding)

    # ---------------------------------------------------------- from the client

    def offset(self, line: int, character: int, encoding: str) -> int:
        """The character offset of the client's (line, character); a line past
        the end is the end of the text, a character past the line's end is
        the line's end. A position before or inside the byte-order mark is
        the start of the text."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self.line_end(line)
        character -= self._lead(line, encoding)
        if self._ascii or encoding == UTF32:
            return min(start + max(character, 0), end)
        return start + characters(self.text[start:end], character, encoding)

    def buffer_offset(self, line: int, character: int, encoding: str) -> int:
        """The character offset of the client's (line, character) in the
        buffer's own text, the byte-order mark included: where an
        incremental change applies (at the very start: before the mark)."""
        if not self.bom:
            return self.offset(line, character, encoding)
        if line < 0 or (line == 0 and character < units(BOM, encoding)):
            return 0
        return 1 + self.offset(line, character, encoding)


class Document:
    """An open document: its latest text and version, as the client sent them."""

    __slots__ = ("uri", "path", "language_id", "version", "_text", "_index")

    def __init__(
        self,
        uri: str,
        path: str | None,
        text: str,
        version: int | None = None,
        language_id: str = "python",
    ) -> None:
        self.uri = uri
        # The file's path, or None for a document that is not a file
        # (``untitled:``): it is checked with the workspace's settings.
        self.path = path
        self.language_id = language_id
        self.version = version
        self._text = text
        self._index: LineIndex | None = None

    @property
    def text(self) -> str:
        return self._text

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self._text)
        return self._index

    def replace(self, text: str, version: int | None) -> None:
        """The whole text changed (a full change, or a save that sent it)."""
        self._text = text
        self._index = None
        self.version = version

    def edit(
        self,
        start: tuple[int, int],
        end: tuple[int, int],
        new_text: str,
        encoding: str,
    ) -> None:
        """Apply one incremental change: ``new_text`` in place of the range
        from ``start`` to ``end`` (client positions in ``encoding``)."""
        index = self.index
        begin = index.buffer_offset(*start, encoding)
        finish = max(begin, index.buffer_offset(*end, encoding))
        self._text = self._text[:begin] + new_text + self._text[finish:]
        self._index = None
