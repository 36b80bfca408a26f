"""Reading sources as Python does (encodings), and the Locator: rows and
offsets as Python's tokenizer counts them."""

from __future__ import annotations

import codecs

import pytest

from lint_rules.source import Locator, SourceError, SourceFile


@pytest.mark.parametrize(
    "text",
    ["", "x", "a\nb\n", "\n\n\n", "a\r\nb\rc\nd", "é = 1\n# ü\nx = 'ß'\n"],
)
def test_rows_of_agrees_with_row_column(text):
    offsets = list(range(len(text) + 1))
    expected = {Locator(text).row_column(offset)[0] for offset in offsets}
    assert Locator(text).rows_of(offsets) == expected
    for offset in offsets:
        fresh = Locator(text)
        assert fresh.rows_of([offset]) == {fresh.row_column(offset)[0]}
        # With the line starts already computed, the same answer.
        assert fresh.rows_of([offset]) == {fresh.row_column(offset)[0]}


@pytest.mark.parametrize(
    "text",
    ["", "a", "a\n", "a\nb", "a\r\nb\rc\n", "\n\n\r\n\r", "x = 1\n" * 50],
)
def test_line_start_agrees_with_line_starts_whatever_is_asked_first(text):
    expected = Locator(text).line_starts
    rows = len(expected)
    for order in (range(1, rows + 1), range(rows, 0, -1)):
        locator = Locator(text)
        for row in order:
            assert locator.line_start(row) == expected[row - 1]
            end = expected[row] if row < rows else len(text)
            assert locator.full_line_end(row) == end
        assert locator.line_starts == expected
    with pytest.raises(IndexError):
        Locator(text).line_start(rows + 1)


@pytest.mark.parametrize("text", ["", "a\nbb\n\nc", "a\r\nb\rc\nd", "x\n" * 30])
def test_row_of_each(text):
    offsets = list(range(len(text) + 1))
    expected = [Locator(text).row_column(offset)[0] for offset in offsets]
    assert Locator(text).row_of_each(offsets) == expected
    located = Locator(text)
    located.line_starts  # noqa: B018 (with the line starts at hand)
    assert located.row_of_each(offsets) == expected


@pytest.mark.parametrize("seed", range(40))
def test_line_start_on_long_texts_in_any_order(seed):
    # Long texts, so that newlines are counted chunk by chunk: lines of every
    # length (empty ones, one-character ones, and ones longer than a chunk's
    # guess), rows asked for in random order, some of them twice.
    import random

    chance = random.Random(seed)
    widths = chance.choice([(0, 2), (0, 40), (20, 120), (0, 400)])
    lines = ["x" * chance.randint(*widths) for _ in range(chance.randint(1, 3000))]
    text = "\n".join(lines) + chance.choice(["", "\n"])
    expected = Locator(text).line_starts
    rows = len(expected)
    locator = Locator(text)
    asked = [chance.randint(1, rows) for _ in range(chance.randint(1, 40))]
    for row in asked + asked[:5]:
        assert locator.line_start(row) == expected[row - 1]
    assert locator.line_start(rows) == expected[-1]
    with pytest.raises(IndexError):
        locator.line_start(rows + 1)
    with pytest.raises(IndexError):
        Locator(text).line_start(rows + 1 + chance.randint(0, 100))


@pytest.mark.parametrize("seed", range(30))
def test_row_of_each_and_line_start_in_any_order(seed):
    # ``row_of_each`` counts newlines from the nearest row start known
    # (``line_start``'s, and the rows it found before), and keeps the last
    # offset's: asked in any order, between ``line_start``s, the rows of
    # ``row_column``, and the row starts of ``line_starts``.
    import random

    chance = random.Random(seed)
    lines = [
        "é" * chance.randint(0, 3) + "x" * chance.randint(0, 60)
        for _ in range(chance.randint(1, 400))
    ]
    text = "\n".join(lines) + chance.choice(["", "\n"])
    expected = Locator(text).line_starts
    truth = Locator(text)
    locator = Locator(text)
    for _ in range(30):
        if chance.random() < 0.3:
            row = chance.randint(1, len(expected))
            assert locator.line_start(row) == expected[row - 1]
        else:
            offsets = sorted(
                chance.randint(0, len(text)) for _ in range(chance.randint(0, 5))
            )
            rows = [truth.row_column(offset)[0] for offset in offsets]
            assert locator.row_of_each(offsets) == rows
            assert locator._line_starts is None  # (counted, not all computed)
    known_rows, known_starts = locator._marks
    assert [expected[row - 1] for row in known_rows] == known_starts
    assert len(known_rows) > 10


# ------------------------------------------------------------- encodings


def test_a_utf8_sig_cookie_without_a_bom_gains_no_bom() -> None:
    # CPython reads the cookie as utf-8 (tokenizer's get_normal_name): the
    # file has no BOM, and its fixed bytes must not gain one.
    data = b"# -*- coding: utf-8-sig -*-\nx = '\xc3\xa9'\n"
    source = SourceFile.from_bytes(data)
    assert source.to_bytes() == data
    assert source.to_bytes(source.text.replace("x", "y")) == data.replace(b"x", b"y")


_COOKIES = (
    "utf-8",
    "UTF-8",
    "utf_8",
    "utf-8-sig",
    "UTF_8_SIG",
    "utf8",
    "utf-8-unix",
    "latin-1",
    "iso-8859-1",
    "ascii",
    "cp1252",
    "euc-jp",
    "no-such-codec",
    "rot13",
    "hex",
    "zlib",
    "utf-16",
)


@pytest.mark.parametrize("bom", [b"", codecs.BOM_UTF8], ids=["no-bom", "bom"])
@pytest.mark.parametrize("cookie", _COOKIES)
def test_a_file_is_decoded_exactly_when_python_accepts_it(
    cookie: str, bom: bytes
) -> None:
    data = bom + f"# coding: {cookie}\nx = 1\n".encode("ascii")
    try:
        compile(data, "m.py", "exec")
    except SyntaxError:
        python_accepts = False
    else:
        python_accepts = True
    try:
        source = SourceFile.from_bytes(data)
    except SourceError:
        assert not python_accepts, f"Python accepts {data!r}"
        return
    assert python_accepts, f"Python rejects {data!r}"
    assert source.to_bytes() == data  # and it comes back byte for byte


# ------------------------------------------------------------------ reading


def test_a_file_is_read_whole_when_reads_come_back_short(tmp_path, monkeypatch):
    # Linux returns at most about 2 GiB from one read: larger files come in
    # pieces, as here in pieces of 70 kB.
    import os

    from lint_rules.source import read_regular_file

    path = tmp_path / "big.py"
    data = os.urandom(300_000)
    path.write_bytes(data)
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: real_read(fd, min(n, 70_000)))
    read, info = read_regular_file(path)
    assert read == data and info.st_size == len(data)


def test_only_regular_files_are_read(tmp_path):
    import os

    from lint_rules.source import NotRegularFileError, read_regular_file

    os.mkfifo(tmp_path / "pipe.py")
    for path in (tmp_path / "pipe.py", tmp_path, "/dev/null"):
        with pytest.raises(NotRegularFileError, match="not a regular file"):
            read_regular_file(path)


@pytest.mark.parametrize("newline", ["\n", "\r", "\r\n"], ids=["lf", "cr", "crlf"])
@pytest.mark.parametrize(
    "rows",
    [
        ["# a", "# b", "# coding: latin-1"],  # row 3 declares nothing
        ["# a", "# coding: latin-1"],
        ["x = 1", "# coding: latin-1"],  # row 2 counts only after a comment
        ["# coding: latin-1"],
    ],
    ids=["row-3", "row-2", "row-2-after-code", "row-1"],
)
def test_the_encoding_is_read_from_rows_as_python_ends_them(
    newline: str, rows: list[str]
) -> None:
    from lint_rules.source import detect_encoding, file_header

    data = newline.join([*rows, 'A = "\u00e9"', ""]).encode("utf-8")
    namespace: dict[str, object] = {}
    exec(compile(data, "m.py", "exec"), namespace)
    python_reads_utf8 = namespace["A"] == "\u00e9"
    encoding = detect_encoding(data)[0]
    assert (encoding == "utf-8") == python_reads_utf8
    declared = file_header(data.decode("utf-8"))[0]
    assert (declared in (None, "utf-8")) == python_reads_utf8
