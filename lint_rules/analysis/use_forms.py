"""Text pre-filters for the tensor rules: can a name's uses include a full
write (ATN101) or a read (ATN103) at all?

Building a function's flow costs more than parsing it, and most functions
that allocate a tensor never write it whole or read it before passing it on.
These tests look only at the function's source text. They over-approximate
the effects that :func:`lint_rules.analysis.tensor_effects.context_effect`
can give a use of the name: when one answers False, no use of the name can
have that effect, and the flow is not built. Anything they cannot read
cheaply (a non-ASCII function, whose identifiers Python normalizes) answers
True.

``lint_rules.analysis.allocation_rows.functions_to_analyze`` puts them
together with the rows that may allocate, and lets every function through
when the pre-filters are off (``lint_rules.prefilter``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator

from lint_rules import prefilter
from lint_rules.analysis.torch_api import (
    CONVERSION_METHODS,
    OVERWRITING_METHODS,
    READING_METHODS,
)
from lint_rules.source import Locator

# Between two tokens of one expression: spaces, line breaks, continuations
# and comments (inside brackets an expression may span commented lines).
_GAP = r"(?:[\s\\()]|#[^\r\n]*(?![^\r\n]))*"
# ``[:]``, ``[...]``, ``[:, ::]``, ``[(..., :)]``: an index of the whole tensor.
_FULL_INDEX = r"\[(?:[\s:,.()\\]|#[^\r\n]*(?![^\r\n]))*\]"
_METHODS = "|".join(sorted(OVERWRITING_METHODS))
_OPERATOR_CHARS = frozenset("+-*/%@&|^~<>=!")
_WORD_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
)


# After a name: whole-tensor indexing, then ``[:]`` again (a store) or an
# in-place method that overwrites everything.
_FULL_WRITE_AFTER = re.compile(
    rf"{_GAP}(?:{_FULL_INDEX}{_GAP})*(?:{_FULL_INDEX}|\.{_GAP}(?:{_METHODS})(?!\w))"
)


def function_text(locator: Locator, function: ast.AST) -> str:
    """The source lines of ``function``'s body, its docstring left out (the
    names the rules ask about are bound in the body; the signature and the
    docstring do not use them)."""
    body = function.body  # type: ignore[attr-defined]
    first = body[0]
    if (
        len(body) > 1
        and isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        first = body[1]
    start = locator.line_start(first.lineno)
    end = locator.full_line_end(function.end_lineno)  # type: ignore[attr-defined]
    return locator.text[start:end]


def _spelled_as_written(text: str, name: str) -> bool:
    """Whether every use of ``name`` in ``text`` is spelled ``name``: Python
    reads identifiers in NFKC form, so a non-ASCII character may spell an
    ASCII one (``ｘ`` is ``x``)."""
    if text.isascii():
        return True
    return name.isascii() and not prefilter.may_respell_ascii(text)


def may_fully_write(text: str, name: str) -> bool:
    """Whether some use of ``name`` in ``text`` may write all of its elements:
    an in-place method that overwrites everything (``x.copy_(y)``, possibly
    through ``x[:]``), an assignment to the whole tensor (``x[...] = y``), or
    ``out=x``."""
    if not _spelled_as_written(text, name):
        return True
    # (no ``out`` anywhere, at C speed: no ``out=`` keyword to look back for)
    keyword = "out" in text
    for position, end in _occurrences(text, name):
        before = _skip_back(text, position)
        if before >= 0 and text[before] == ".":
            continue  # ``a.x``: an attribute, not the name
        if _FULL_WRITE_AFTER.match(text, end):
            return True
        if keyword and _out_keyword_before(text, before):
            return True
    return False


def may_be_stored_to_attribute(text: str, name: str) -> bool:
    """Whether some use of ``name`` in ``text`` may be the value of an
    assignment to an attribute (``self.x = name``, ``a.b = (name)``)."""
    if not _spelled_as_written(text, name):
        return True
    for position, _ in _occurrences(text, name):
        before = _skip_back(text, position)
        while before >= 0 and text[before] == "(":
            before = _skip_back(text, before)
        if before == -2:
            return True
        if before < 1 or text[before] != "=" or text[before - 1] in _OPERATOR_CHARS:
            continue
        before = _skip_back(text, before)  # the attribute's name
        if before == -2:
            return True
        end = before + 1
        while before >= 0 and text[before] in _WORD_CHARS:
            before -= 1
        if before + 1 == end:
            continue
        before = _skip_back(text, before + 1)
        if before == -2 or (before >= 0 and text[before] == "."):
            return True
    return False


def called_method_names(text: str) -> set[str] | None:
    """Names that ``text`` may call as a method (``a.name(``), with what
    Python allows around the dot; None (any name) for a text that may spell
    an identifier otherwise."""
    if not _spelled_as_written(text, "_"):
        return None
    return set(_METHOD_CALL.findall(text))


_METHOD_CALL = re.compile(rf"\.{_GAP}(\w+){_GAP}\(")


def call_argument_spans(text: str, callees: Iterable[str]) -> list[tuple[int, int]]:
    """Where the arguments of each call of one of ``callees`` may be in
    ``text``: a callee's name as a whole word (``fill``, ``self.fill``),
    then its opening parenthesis, maybe a line, comments and the end of a
    group apart (``(self.fill)(x)``); the span runs from there to the
    parenthesis closing it, or to the end of the text when a string comes
    first (whose brackets cannot be told from the code's). A name that is
    not the callee's (``fill`` in a string, ``fill(a)(x)``) only adds a span."""
    spans = []
    for callee in callees:
        for _, end in _occurrences(text, callee):
            opening = _CALL_OPENING.match(text, end)
            if opening is not None:
                start = opening.end()
                spans.append((start, _closing(text, start)))
    return spans


def spelled_within(text: str, name: str, spans: Iterable[tuple[int, int]]) -> bool:
    """Whether ``name`` is spelled as a whole word in one of ``spans``."""
    spans = list(spans)
    return any(
        start <= position < stop
        for position, _ in _occurrences(text, name)
        for start, stop in spans
    )


# After a callee's name: its call's opening parenthesis (``_GAP`` without the
# opening parentheses, which would be another group's).
_CALL_OPENING = re.compile(r"(?:[\s\\)]|#[^\r\n]*(?![^\r\n]))*\(")
_BRACKET_OR_QUOTE = re.compile(r"[()\[\]{}\"'#]")
_LINE_END = re.compile(r"[\r\n]")


def _closing(text: str, start: int) -> int:
    """The index of the bracket closing the one just before ``start`` (the
    end of the text when a string comes first, or none does)."""
    depth = 1
    position = start
    while True:
        found = _BRACKET_OR_QUOTE.search(text, position)
        if found is None:
            return len(text)
        char = found.group()
        position = found.end()
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return found.start()
        elif char == "#":  # a comment, to the end of its line
            line_end = _LINE_END.search(text, position)
            if line_end is None:
                return len(text)
            position = line_end.end()
        else:
            return len(text)


def _out_keyword_before(text: str, before: int) -> bool:
    """``out=x``, ``out = (x)``: the name is the value of an ``out`` keyword
    (``before``: ``_skip_back`` from the name)."""
    while before >= 0 and text[before] == "(":
        before = _skip_back(text, before)
    if before == -2:
        return True
    if before < 1 or text[before] != "=" or text[before - 1] in _OPERATOR_CHARS:
        return False
    before = _skip_back(text, before)
    if before == -2:
        return True
    return (
        before >= 2
        and text[before - 2 : before + 1] == "out"
        and (before == 2 or text[before - 3] not in _WORD_CHARS)
    )


def spells_word(text: str, name: str) -> bool:
    """Whether ``text`` holds ``name`` as a whole word (of ASCII word
    characters: the caller makes sure each identifier is spelled as Python
    reads it)."""
    return next(_occurrences(text, name), None) is not None


def spelled_words(text: str, names: Iterable[str]) -> list[str]:
    """Those of ``names`` (in their order) that ``text`` holds as a whole
    word, as ``spells_word`` tells, with one scan of ``text`` for all the
    ASCII identifiers (such a whole word is a maximal run of ASCII word
    characters) rather than one search per name."""
    words: set[str] | None = None
    found = []
    for name in names:
        if name.isascii() and name.isidentifier():
            if words is None:
                # (its words split off at C speed: in the UTF-8 bytes of a
                # text that is not ASCII, each byte of another character is
                # no ASCII word character, and so a space, as the character
                # ends a run of ASCII word characters in the text)
                words = set(
                    text.encode("utf-8", "surrogatepass")
                    .translate(_ASCII_WORD_BYTES)
                    .decode("ascii")
                    .split()
                )
            if name in words:
                found.append(name)
        elif spells_word(text, name):
            found.append(name)
    return found


# Each byte kept where it is one of ``_WORD_CHARS``, else a space: an ASCII
# text's maximal runs of them are then its ``split()``.
_ASCII_WORD_BYTES = bytes(
    code if chr(code) in _WORD_CHARS else ord(" ") for code in range(256)
)


def _occurrences(text: str, name: str) -> Iterator[tuple[int, int]]:
    """Start and end of each occurrence of ``name`` as a whole word."""
    size = len(text)
    length = len(name)
    position = text.find(name)
    while position >= 0:
        end = position + length
        if (position == 0 or text[position - 1] not in _WORD_CHARS) and (
            end == size or text[end] not in _WORD_CHARS
        ):
            yield position, end
        position = text.find(name, end)


def may_read(text: str, name: str) -> bool:
    """Whether some use of ``name`` in ``text`` may read its elements: an
    operand of an operator or comparison (``x + 1``, ``-x``, ``a in x``,
    ``x += 1``, ``x[i] *= 2``), a method that reads (``x.sum()``, also after
    indexing or a conversion: ``x[i].float().max()``), the source of a copy
    (``y.copy_(x)``) or an indexed value bound to a name (``y = x[idx]``)."""
    if not _spelled_as_written(text, name):
        return True
    return any(
        _may_read_at(text, position, end) for position, end in _occurrences(text, name)
    )


# What the chain of indexing, calls and attributes after a name tells.
_READ = "read"  # a reading method: ``x.sum()``, ``x[i].max()``
# Another attribute: a new object (``x.shape``), not read by what follows.
_OTHER = "other"
_OPEN = "open"  # the chain ended; its operator decides


def _may_read_at(text: str, position: int, end: int) -> bool:
    before = _skip_back(text, position)
    if before >= 0 and text[before] == ".":
        return False  # ``a.x``: an attribute, not the name
    status, after, indexed = _chain(text, end)
    if status is _READ:
        return True
    if status is _OTHER:
        return False  # ``x.shape``, ``x.T``: the expression goes on with another object
    if after < 0:
        return True  # an unclosed bracket, or one holding a string
    if after < len(text) and _reads_as_left_operand(text, after):
        return True
    return _reads_as_right_operand(text, position, indexed)


def _chain(text: str, index: int) -> tuple[str, int, bool]:
    """Walk the indexing, calls, attributes and closing parentheses after a
    name: the status, the index of the first character after the chain (-1:
    unknown) and whether the chain may index by a gather (``x[idx]``, not ``x[a:b]``)."""
    indexed = False
    # Past a ``)`` that may close a group holding more than the name, or a
    # line break that may end the statement: what follows may not apply to
    # the name's value.
    loose = False
    size = len(text)
    while True:
        start = index
        index = _skip_forward(text, index)
        if index >= size:
            return _OPEN, index, indexed
        if "\n" in text[start:index] or "\r" in text[start:index]:
            loose = True
        char = text[index]
        if char == "[" or char == "(":
            index, gather = _skip_brackets(text, index)
            indexed = indexed or (char == "[" and gather)
            if index < 0:
                return _OPEN, -1, indexed
            continue
        if char == ")":
            loose = True
            index += 1
            continue
        if char != ".":
            return _OPEN, index, indexed
        start = _skip_forward(text, index + 1)
        stop = start
        while stop < size and text[stop] in _WORD_CHARS:
            stop += 1
        attribute = text[start:stop]
        if attribute in READING_METHODS:
            return _READ, stop, indexed
        if attribute not in CONVERSION_METHODS and not loose:
            return _OTHER, stop, indexed
        index = stop


def _reads_as_left_operand(text: str, index: int) -> bool:
    """``x + y``, ``x == y``, ``x += y``, ``x in y``, ``x not in y``."""
    char = text[index]
    if char in _OPERATOR_CHARS:
        # ``x = y`` and ``x[i] = y`` store; ``x == y`` compares.
        return char != "=" or text.startswith("==", index)
    if char in _WORD_CHARS:
        stop = index
        while stop < len(text) and text[stop] in _WORD_CHARS:
            stop += 1
        word = text[index:stop]
        if word == "is":
            return _compares_further(text, stop)
        return word in ("in", "not")
    return False


def _compares_further(text: str, index: int) -> bool:
    """After ``x is``: ``x is None`` and ``x is not y`` only compare
    identities, unless the comparison goes on (``x is y < z``)."""
    index = _skip_forward(text, index)
    if text.startswith("not", index) and not _word_at(text, index + 3):
        index = _skip_forward(text, index + 3)
    stop = index
    while stop < len(text) and text[stop] in _WORD_CHARS:
        stop += 1
    if stop == index:
        return True  # not a plain name or constant: do not guess
    after = _skip_forward(text, stop)
    if after >= len(text):
        return False
    char = text[after]
    if char in ".[(" or (char in _OPERATOR_CHARS and not text.startswith("=", after)):
        return True
    if char == "=":
        return text.startswith("==", after)
    if char in _WORD_CHARS:
        end = after
        while end < len(text) and text[end] in _WORD_CHARS:
            end += 1
        return text[after:end] in ("in", "not", "is")
    return False


def _word_at(text: str, index: int) -> bool:
    return index < len(text) and text[index] in _WORD_CHARS


def _reads_as_right_operand(text: str, position: int, indexed: bool) -> bool:
    """``a + x``, ``-x``, ``not x``, ``a in x``, ``y += x``, ``y.copy_(x)``,
    ``y = x[idx]``, also through grouping parentheses: ``a * (x)``."""
    before = _skip_back(text, position)
    parenthesized = False
    while before >= 0 and text[before] == "(":
        parenthesized = True
        before = _skip_back(text, before)
    if before == -2:
        return True
    if before < 0:
        return False
    char = text[before]
    if char in _OPERATOR_CHARS:
        if char != "=":
            return True  # ``a + x``, ``-x``, ``a < x``, ``*x``
        previous = text[before - 1] if before > 0 else ""
        if previous in _OPERATOR_CHARS:
            return True  # ``a == x``, ``y += x``, ``a <= x``
        # ``y = x``, ``f(k=x)``, ``(y := x)``: a read only as ``y = x[idx]``.
        return indexed
    if char in _WORD_CHARS:
        start = before
        while start > 0 and text[start - 1] in _WORD_CHARS:
            start -= 1
        word = text[start : before + 1]
        if word in ("not", "in", "is"):
            return True
        # ``y.copy_(x)``: the source of a copy (``f(x)`` passes x on).
        return parenthesized and word.endswith("copy_")
    return False


def _skip_back(text: str, index: int) -> int:
    """The index of the last character before ``index`` that is not a space,
    a line break, a continuation or a comment; -1 at the start, -2 when a
    line stepped back onto holds a ``#`` that may be in a string (the line's
    end is then unknown)."""
    while index > 0:
        char = text[index - 1]
        if char == "\n" or char == "\r":
            line_start = max(
                text.rfind("\n", 0, index - 1), text.rfind("\r", 0, index - 1)
            )
            line = text[line_start + 1 : index - 1]
            comment = line.find("#")
            if comment >= 0:
                if "'" in line or '"' in line:
                    return -2
                index = line_start + 1 + comment
                continue
        elif char not in " \t\f\\":
            return index - 1
        index -= 1
    return -1


def _skip_forward(text: str, index: int) -> int:
    """The index of the next character at or after ``index`` that is not a
    space, line break, continuation or comment (the end of the text when none
    is)."""
    size = len(text)
    while index < size:
        char = text[index]
        if char == "#":
            # From code, not from inside a string: a comment, to the line's end.
            while index < size and text[index] not in "\r\n":
                index += 1
            continue
        if char not in " \t\r\n\f\\":
            return index
        index += 1
    return index


def _skip_brackets(text: str, index: int) -> tuple[int, bool]:
    """The index just past the bracket group opening at ``index`` (-1 when it
    does not close in ``text``) and whether it may index by a gather: some
    comma-separated part at its top level is not a slice, ``...``, ``None``
    or an integer literal."""
    depth = 0
    size = len(text)
    part_start = index + 1
    gather = False
    sliced = False  # the current top-level part holds a ``:``
    while index < size:
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}" or (char == "," and depth == 1):
            if depth == 1 and not sliced:
                part = text[part_start:index].strip()
                if part not in _VIEW_PARTS and not _INTEGER.fullmatch(part):
                    gather = True
            if char == ",":
                part_start, sliced = index + 1, False
            else:
                depth -= 1
                if depth == 0:
                    return index + 1, gather
        elif char == ":" and depth == 1:
            sliced = True
        elif char == "'" or char == '"':
            index = _skip_string(text, index)
            if index < 0:
                return -1, True
            gather = gather or depth == 1  # a string index: not a view
            continue
        elif char == "#":
            while index < size and text[index] not in "\r\n":
                index += 1
            gather = True  # the part's text holds the comment
            continue
        index += 1
    return -1, True


_VIEW_PARTS = frozenset({"...", "None", "", "Ellipsis"})
_INTEGER = re.compile(r"-?\s*\d+")


def _skip_string(text: str, index: int) -> int:
    """The index just past the string literal whose quote is at ``index``
    (its prefix, if any, is before it); -1 when it does not end in ``text``."""
    quote = text[index]
    if text.startswith(quote * 3, index):
        end = index + 3
        while True:
            end = text.find(quote * 3, end)
            if end < 0:
                return -1
            backslashes = 0
            while text[end - 1 - backslashes] == "\\":
                backslashes += 1
            if backslashes % 2 == 0:
                return end + 3
            end += 1
    end = index + 1
    size = len(text)
    while end < size:
        char = text[end]
        if char == "\\":
            end += 2
            continue
        if char == quote:
            return end + 1
        if char == "\n" or char == "\r":
            return -1
        end += 1
    return -1


def may_follow_dot(text: str, position: int, length: int) -> bool:
    """Whether the word at ``position`` may be an attribute's name: a whole
    word whose nearest character before, on its line, is a dot (past blanks
    and a continuation's backslash). A word first on its line is kept: a
    comment may stand between it and its dot."""
    end = position + length
    if end < len(text) and (text[end].isalnum() or text[end] == "_"):
        return False
    index = position - 1
    while index >= 0 and text[index] in " \t\f\\":
        index -= 1
    return index < 0 or text[index] in ".\r\n"
