"""The one switch over every pre-filter, and what the text ones share.

A pre-filter is a cheap look (at the text, or at the statements) that lets
a rule skip the analysis it shortcuts where that analysis could not report
anything: a rule's ``triggers``, the text scans of ``use_forms`` and
``rows_naming``, ATN201's sync call names, ATN102's rows holding an
attribute's name and rows opening a ``[1:``, ATN104's rows holding a
``zero_(`` or ``fill_(``, ATN205's rows holding ``non_blocking``, the
summaries' functions that may write a parameter whole
(``ModuleSummaries.may_write``), the calls of them a buffer may be passed
to (``ModuleSummaries.may_pass_to_writer``) and rows where a class may assign a
method's name, ATN202's test of which equal assignments may dominate
another, ATN301's count of binding statements, the rows where a ``:=`` may
bind a name, and the checker's look for suppression comments. Each lives
beside the analysis it shortcuts and asks ``enabled()`` first; so each one
is a second answer to a question the analysis also answers, and must never
change what is reported, only how fast.

``ATTNLINT_NO_PREFILTER=1`` in the environment turns all of them off (read
once, here, when attnlint is imported): every function then goes through
the analysis itself. The tests and the corpus check compare the findings
both ways. Findings cannot differ, so the switch is not part of the cache
key; the tests that compare run the rules without the cache.
"""

from __future__ import annotations

import os

_enabled = os.environ.get("ATTNLINT_NO_PREFILTER", "") in ("", "0")


def enabled() -> bool:
    """Whether the pre-filters run (else every one lets everything through)."""
    return _enabled


def set_enabled(value: bool) -> bool:
    """Turn the pre-filters on or off in this process (the tests and the
    corpus check compare both ways); returns the previous setting."""
    global _enabled
    previous, _enabled = _enabled, bool(value)
    return previous


_WORD_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
)


def may_respell_ascii(text: str) -> bool:
    """Whether an identifier in ``text`` may be spelled with characters that
    Python reads as ASCII ones (it reads identifiers in NFKC form: ``ｉｔｅｍ``
    is ``item``), so that a text search for an ASCII name may miss it.
    The rules of one file ask about its text several times: the last answer
    is kept."""
    if text.isascii():
        return False
    global _last
    last = _last
    if last is not None and last[0] is text:
        return last[1]
    import unicodedata

    # The non-ASCII characters, at C speed: a UTF-8 sequence of one holds no
    # ASCII byte, so deleting those bytes leaves whole characters.
    others = (
        text.encode("utf-8", "surrogatepass")
        .translate(None, _ASCII_BYTES)
        .decode("utf-8", "surrogatepass")
    )
    found = any(
        ("a" + char).isidentifier()  # (``²`` reads as ``2``, but in no name)
        and any(c in _WORD_CHARS for c in unicodedata.normalize("NFKC", char))
        for char in set(others)
    )
    _last = (text, found)
    return found


_ASCII_BYTES = bytes(range(128))
_last: tuple[str, bool] | None = None
