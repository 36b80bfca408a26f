"""Path names as attnlint prints them: one line, valid UTF-8, one text per name."""

from __future__ import annotations

import os
import re

__all__ = ["quote_path"]

#: What makes git quote a path (``core.quotePath=false``): a control
#: character, a double quote, a backslash (on systems where it is no
#: separator), and here also a byte that is not UTF-8 (which Python reads as
#: a lone surrogate).
_NEEDS_QUOTING = re.compile(
    '[\x00-\x1f\x7f"\ud800-\udfff' + (r"\\" if os.sep == "/" else "") + "]"
)
_C_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


def quote_path(name: str) -> str:
    """``name`` as git writes a path in ``git diff`` headers and ``git status``
    (``core.quotePath=false``): as it is, or, when it holds a control
    character (a newline), a double quote, a backslash or a byte that is not
    UTF-8, in double quotes with C escapes (``"a\\nb.py"``, ``"caf\\351.py"``
    for the Latin-1 name). One line, valid UTF-8, one text per name, and read
    back by ``git apply`` and GNU ``patch``."""
    if not _NEEDS_QUOTING.search(name):
        return name
    out = ['"']
    for character in name:
        escape = _C_ESCAPES.get(character)
        if escape is not None:
            out.append(escape)
        elif character < " " or character == "\x7f":
            out.append(f"\\{ord(character):03o}")
        elif "\udc80" <= character <= "\udcff":  # an undecodable byte
            out.append(f"\\{ord(character) - 0xDC00:03o}")
        elif "\ud800" <= character <= "\udfff":
            raw = character.encode("utf-8", "surrogatepass")
            out.extend(f"\\{byte:03o}" for byte in raw)
        else:
            out.append(character)
    out.append('"')
    return "".join(out)
