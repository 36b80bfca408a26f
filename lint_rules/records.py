"""Value classes without ``dataclasses``.

Importing ``dataclasses`` (and with it ``inspect``) and generating each
class's methods cost a short run about a fifth of its start-up, on every
run and in the main process before any file is checked. The check path's
value classes write their ``__init__`` by hand and take ``__repr__``,
``__eq__`` and ``__hash__`` from :class:`Record`.
"""

from __future__ import annotations


class Record:
    """What ``dataclasses`` would generate from the fields named in
    ``_fields``: a repr, and equality and a hash over the fields (over
    ``_compared`` when some fields do not count). A subclass whose instances
    change sets ``__hash__ = None``; one compared by identity sets
    ``__eq__ = object.__eq__`` and ``__hash__ = object.__hash__``."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _compared: tuple[str, ...] | None = None

    def _key(self) -> tuple[object, ...]:
        names = self._fields if self._compared is None else self._compared
        return tuple([getattr(self, name) for name in names])

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({fields})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._key() == other._key()  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())
