"""Reading source files faithfully, and mapping ``ast`` positions to text offsets.

A file is decoded the way Python decodes it (PEP 263 cookie, UTF-8 BOM, the
spellings of utf-8 and latin-1 that CPython's tokenizer normalizes), and
every byte that an edit does not touch must come back unchanged.
``SourceFile`` keeps what is needed to encode the text back exactly: the
encoding and whether a BOM was present. Line endings are kept because the
text is never translated.

Only regular files are read: a FIFO, a device or a socket is refused before
anything is read from it (``/dev/zero`` never ends, a FIFO blocks until a
writer comes).
"""

from __future__ import annotations

import ast
import codecs
import os
import re
import stat
from bisect import bisect_right
from collections.abc import Iterable

from lint_rules.paths import quote_path
from lint_rules.records import Record

_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_BLANK_OR_COMMENT = re.compile(rb"^[ \t\f]*(?:[#\r\n]|$)")
_ROW_END = re.compile(r"\r\n|\r|\n")
_ROW_END_BYTES = re.compile(rb"\r\n|\r|\n")


class SourceError(Exception):
    """A file that cannot be read or decoded as Python source."""


class NotRegularFileError(OSError):
    """A FIFO, device, socket or folder where a source file was expected."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(f"{quote_path(os.fspath(path))}: not a regular file")
        self.strerror = "not a regular file"
        self.filename = os.fspath(path)


def read_regular_file(
    path: str | os.PathLike[str], known: os.stat_result | None = None
) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file at ``path``, and its status when opened.

    Raises OSError, and NotRegularFileError for anything but a regular file
    (symbolic links are followed). The file is looked at before it is
    opened, as opening some devices acts on them (``known``: the caller's
    own ``os.stat`` of it, just taken), and again once open (it may have
    been replaced meanwhile); it is opened without waiting for a FIFO's
    writer and without becoming a controlling terminal.
    """
    if not stat.S_ISREG((known or os.stat(path)).st_mode):
        raise NotRegularFileError(path)
    descriptor = os.open(path, _READ_FLAGS)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(path)
        # Usually one read: the size and one byte more, and exactly the size
        # comes back. Otherwise (a file growing, or one too large for one
        # read) on to the end.
        want = info.st_size + 1
        data = os.read(descriptor, want)
        if len(data) != info.st_size:
            chunks = [data]
            while chunk := os.read(descriptor, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
    finally:
        os.close(descriptor)
    return data, info


_READ_FLAGS = os.O_RDONLY
for _flag in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC", "O_BINARY"):
    _READ_FLAGS |= getattr(os, _flag, 0)


#: What identifies one version of a file without reading it:
#: (size, mtime_ns, ctime_ns, inode, device).
FileKey = tuple


def file_key(info: os.stat_result) -> FileKey:
    """The status fields that change whenever a file is written or replaced.

    Besides size and modification time (which ``touch``, ``tar`` and
    ``cp -p`` can set to anything), the inode and the status-change time: the
    kernel sets the latter on every write, rename or ``chmod``, and nothing
    lets a program choose it, so a key recorded for one file never matches a
    file made elsewhere (say, unpacked from an archive with a cache beside
    it)."""
    return (
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
        info.st_ino,
        info.st_dev,
    )


def content_digest(data: bytes) -> bytes:
    """A 128-bit BLAKE2b hash of a file's bytes (what a cache entry and a
    guarded write compare)."""
    return _blake2b(data, digest_size=16).digest()


try:  # the hash without OpenSSL: ``hashlib`` would load it (milliseconds)
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover - Python builds without _blake2
    from hashlib import blake2b as _blake2b


def normal_encoding_name(name: str) -> str:
    """The spelling CPython's tokenizer gives a cookie's encoding name
    (``get_normal_name``): every ``utf-8`` and ``utf-8-*`` (``utf_8``,
    ``UTF-8-SIG``) is ``utf-8``, every ``latin-1``/``iso-8859-1`` spelling is
    ``iso-8859-1``; other names are kept. Only the first 12 characters count."""
    head = name[:12].replace("_", "-").lower()
    if head == "utf-8" or head.startswith("utf-8-"):
        return "utf-8"
    for latin in ("latin-1", "iso-8859-1", "iso-latin-1"):
        if head == latin or head.startswith(latin + "-"):
            return "iso-8859-1"
    return name


def detect_encoding(data: bytes) -> tuple[str, bool]:
    """Return (encoding, has_bom), following PEP 263 and CPython's tokenizer.

    Raises SourceError for an unknown encoding, a codec that is not a text
    encoding (``rot13``, ``hex``, ``zlib``...), or a cookie other than utf-8
    next to a UTF-8 BOM; exactly the files Python refuses.
    """
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[3:]
    # Rows end as the tokenizer ends them: at CRLF, CR or LF.
    lines = _ROW_END_BYTES.split(data, 2)[:2]
    for index, line in enumerate(lines):
        match = _COOKIE.match(line)
        if match:
            name = match.group(1).decode("ascii", "replace")
            normal = normal_encoding_name(name)
            try:
                info = codecs.lookup(normal)
            except LookupError:
                raise SourceError(
                    f"unknown encoding in coding cookie: {name!r}"
                ) from None
            # CPython's attribute; codecs registered elsewhere lack it.
            if not getattr(info, "_is_text_encoding", True):
                raise SourceError(
                    f"the coding cookie names {name!r}, which is not a text encoding"
                )
            if bom and normal != "utf-8":
                raise SourceError(f"encoding cookie {name!r} contradicts the UTF-8 BOM")
            return info.name, bom
        if index == 0 and not _BLANK_OR_COMMENT.match(line):
            break
    return "utf-8", bom


def file_header(text: str) -> tuple[str | None, str | None]:
    """What a fix must not change at the top of a file: the encoding its
    first two lines declare (PEP 263; None if none), under which its bytes
    are read, and its ``#!`` line (None if none), which runs it."""
    # Rows end as Python's tokenizer ends them: at CRLF, CR or LF.
    lines = _ROW_END.split(text, 2)[:2]
    first = lines[0] if lines else ""
    shebang = first if first.startswith("#!") else None
    for index, line in enumerate(lines):
        raw = line.encode("utf-8", "surrogatepass")
        match = _COOKIE.match(raw)
        if match:
            return normal_encoding_name(
                match.group(1).decode("ascii", "replace")
            ), shebang
        if index == 0 and not _BLANK_OR_COMMENT.match(raw):
            break
    return None, shebang


class NotEncodedBack(ValueError):
    """The file's own text does not encode back to its bytes: writing any
    fixed text would change bytes no fix touches."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# Encodings whose strict decoding is undone byte for byte by encoding.
_ENCODED_BACK = frozenset({"utf-8", "ascii", "iso8859-1", "latin-1", "iso-8859-1"})


class SourceFile(Record):
    """The decoded text of a file and how to encode it back byte for byte."""

    __slots__ = ("text", "encoding", "bom", "differs_at")
    _fields = ("text", "encoding", "bom")
    __hash__ = None  # type: ignore[assignment]

    def __init__(
        self,
        text: str,
        encoding: str = "utf-8",
        bom: bool = False,
        differs_at: int | None = None,
    ) -> None:
        self.text = text
        self.encoding = encoding
        self.bom = bom
        # The first byte (of the text's bytes) that encoding the text read
        # gives otherwise: some codecs read two byte sequences as one
        # character (cp932's 0x8790 and 0x81e0). None: it encodes back.
        self.differs_at = differs_at

    @classmethod
    def from_bytes(cls, data: bytes) -> SourceFile:
        encoding, bom = detect_encoding(data)
        body = data[3:] if bom else data
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError as error:
            raise SourceError(
                f"cannot decode as {encoding}: byte {error.start} "
                f"(0x{body[error.start]:02x}) is invalid"
            ) from None
        except (LookupError, ValueError, TypeError) as error:
            # A codec that fails otherwise (one registered by a third party).
            raise SourceError(f"cannot decode as {encoding}: {error}") from None
        return cls(text, encoding, bom, _first_difference(text, encoding, body))

    def to_bytes(self, text: str | None = None) -> bytes:
        """The bytes of ``text`` (default: the text read) in this file's
        encoding, with its BOM if it had one. Raises UnicodeEncodeError (or,
        from a third-party codec, another ValueError) when the text cannot be
        encoded, and ``NotEncodedBack`` when the file's own text does not
        encode back to its bytes."""
        if self.differs_at is not None:
            raise NotEncodedBack(
                f"its text does not encode back to its bytes: byte "
                f"{self.differs_at} would change"
            )
        encoded = (self.text if text is None else text).encode(self.encoding)
        return codecs.BOM_UTF8 + encoded if self.bom else encoded


def _first_difference(text: str, encoding: str, data: bytes) -> int | None:
    """The first byte of ``data`` (which decoded to ``text``) that encoding
    ``text`` again gives otherwise; None when it gives ``data`` back."""
    if encoding in _ENCODED_BACK:
        return None
    try:
        again = text.encode(encoding)
    except (UnicodeError, LookupError, ValueError, TypeError):
        return 0
    if again == data:
        return None
    return next(
        (
            index
            for index, (a, b) in enumerate(zip(again, data, strict=False))
            if a != b
        ),
        min(len(again), len(data)),
    )


_NEWLINE = re.compile(r"\r\n|\r|\n")


def _skip_lines(text: str, offset: int, lines: int) -> int:
    """The offset just past the ``lines``-th ``\\n`` at or after ``offset``, or
    -1 if the text has fewer. Newlines are counted chunk by chunk (in C),
    each chunk sized to hold fewer lines than remain for typical code, then
    found one by one."""
    count = text.count
    size = len(text)
    while lines > 16:
        end = min(size, offset + lines * 32)
        found = count("\n", offset, end)
        if found >= lines:
            # Short lines: this chunk goes past the row; look at half of it.
            end = offset + (end - offset) // 2
            found = count("\n", offset, end)
            if found >= lines:
                break  # very short lines: found one by one below
        offset, lines = end, lines - found
        if end == size:
            return -1
    find = text.find
    for _ in range(lines):
        index = find("\n", offset)
        if index < 0:
            return -1
        offset = index + 1
    return offset


_LINE_FEED = re.compile("\n")  # when there is no carriage return: faster


class Locator:
    """Maps between ``ast`` positions (1-based row, UTF-8 byte column) and offsets.

    Rows follow Python's tokenizer: ``\\n``, ``\\r\\n`` and a lone ``\\r`` end a line.
    """

    __slots__ = ("text", "_line_starts", "_ascii", "_marks")

    def __init__(self, text: str) -> None:
        self.text = text
        # Computed when first asked for: many checks never need a position.
        self._line_starts: list[int] | None = None
        self._ascii: bool | None = None
        # Rows whose start ``line_start`` has found so far, and their starts
        # (sorted): a rule asking about a few functions has newlines counted
        # from the nearest of them, never every line's start computed.
        self._marks: tuple[list[int], list[int]] | None = None

    @property
    def line_starts(self) -> list[int]:
        """The offset at which each row starts."""
        starts = self._line_starts
        if starts is None:
            pattern = _NEWLINE if "\r" in self.text else _LINE_FEED
            starts = [0]
            starts += [match.end() for match in pattern.finditer(self.text)]
            self._line_starts = starts
        return starts

    def rows_matching(
        self, pattern: re.Pattern[str], first: int = 1, last: int | None = None
    ) -> list[int]:
        """The rows from ``first`` to ``last`` (default: the last row) that
        hold a match of ``pattern`` (which matches within one row: no match
        holds a line break), in order."""
        starts = self.line_starts
        count = len(starts)
        text = self.text
        end = starts[last] if last is not None and last < count else len(text)
        search = pattern.search
        # One search from each row's start after a match (the rows between
        # are skipped at C speed), not one per row; each search starts on a
        # row's start, as a search of that row alone would.
        rows: list[int] = []
        position = starts[first - 1]
        while True:
            found = search(text, position, end)
            if found is None:
                return rows
            row = bisect_right(starts, found.start())
            rows.append(row)
            if row >= count:
                return rows
            position = starts[row]

    def line_start(self, row: int) -> int:
        starts = self._line_starts
        if starts is not None:
            return starts[row - 1]
        if row < 1:
            raise IndexError(f"row {row} is before the first row")
        marks = self._marks
        if marks is None:
            if "\r" in self.text:  # lines may end otherwise: compute them all
                if row > len(self.line_starts):
                    raise IndexError(f"row {row} is past the end of the text")
                return self.line_starts[row - 1]
            marks = self._marks = ([1], [0])
        rows, offsets = marks
        index = bisect_right(rows, row) - 1
        if rows[index] == row:
            return offsets[index]
        offset = _skip_lines(self.text, offsets[index], row - rows[index])
        if offset < 0:
            raise IndexError(f"row {row} is past the end of the text")
        rows.insert(index + 1, row)
        offsets.insert(index + 1, offset)
        return offset

    def full_line_end(self, row: int) -> int:
        """Offset just past ``row``'s line ending (or the end of the text)."""
        try:
            return self.line_start(row + 1)
        except IndexError:
            return len(self.text)

    def line_end(self, row: int) -> int:
        """Offset of the end of ``row``, before its line ending."""
        if row < len(self.line_starts):
            end = self.line_starts[row]
            if self.text.startswith("\r\n", end - 2):
                return end - 2
            return end - 1
        return len(self.text)

    def line_text(self, row: int) -> str:
        return self.text[self.line_start(row) : self.line_end(row)]

    def offset(self, row: int, byte_column: int) -> int:
        start = self.line_starts[row - 1]
        if byte_column == 0:
            return start
        if self._ascii is None:
            self._ascii = self.text.isascii()
        if self._ascii:
            return start + byte_column
        line = self.text[start : self.line_end(row)]
        prefix = line.encode("utf-8")[:byte_column]
        return start + len(prefix.decode("utf-8", "replace"))

    def column(self, row: int, byte_column: int) -> int:
        """The 0-based character column of an ``ast`` byte column."""
        return self.offset(row, byte_column) - self.line_starts[row - 1]

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def segment(self, node: ast.AST) -> str:
        return self.text[self.start(node) : self.end(node)]

    def rows_of(self, offsets: Iterable[int]) -> set[int]:
        """The 1-based rows of ``offsets``. Without the line starts at hand,
        newlines are counted up to the last offset only (a text pre-filter
        asks about a few offsets, and most files never need the rest)."""
        return set(self.row_of_each(sorted(offsets)))

    def row_of_each(self, offsets: list[int]) -> list[int]:
        """The 1-based row of each of ``offsets`` (sorted), in order; like
        ``rows_of``, without the line starts at hand only newlines up to the
        last offset are counted."""
        marks = self._marks
        if self._line_starts is None and marks is None and "\r" not in self.text:
            marks = self._marks = ([1], [0])  # (as ``line_start`` keeps them)
        if self._line_starts is not None or marks is None:
            starts = self.line_starts
            return [bisect_right(starts, offset) for offset in offsets]
        if not offsets:
            return []
        # Newlines are counted from the nearest row start known before the
        # first offset (``line_start``'s marks), and the last offset's row
        # start is kept among them.
        known_rows, known_starts = marks
        index = bisect_right(known_starts, offsets[0]) - 1
        row, previous = known_rows[index], known_starts[index]
        text = self.text
        count = text.count
        rows: list[int] = []
        for offset in offsets:
            row += count("\n", previous, offset)
            previous = offset
            rows.append(row)
        start = text.rfind("\n", 0, previous) + 1
        index = bisect_right(known_rows, row)
        if known_rows[index - 1] != row:
            known_rows.insert(index, row)
            known_starts.insert(index, start)
        return rows

    def row_column(self, offset: int) -> tuple[int, int]:
        """1-based row and 0-based character column of an offset."""
        row = bisect_right(self.line_starts, offset)
        return row, offset - self.line_starts[row - 1]
