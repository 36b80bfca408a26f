"""Running a function with room for very deep recursion.

Python code can nest expressions thousands of levels deep (a chain of 2,000
unary minuses, or of ``a if c else`` arms, parses fine). Parsing such a file
and walking its tree recursively exceeds the default recursion limit of
1,000. The checker calls :func:`call_with_deep_stack` only after a
``RecursionError``: the function runs again on a thread with a large stack
and a raised recursion limit, so the common case costs nothing.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


#: Enough for the deepest tree ``ast.parse`` builds (its parser stops near
#: 6,000 levels) with a few recursive frames per level.
DEEP_RECURSION_LIMIT = 40_000
#: Reserved, not committed: the pages are used only as deep as the recursion goes.
DEEP_STACK_BYTES = 512 * 1024 * 1024

_lock = threading.Lock()


def call_with_deep_stack(function: Callable[[], T]) -> T:
    """``function()`` on a thread with a large stack and a high recursion limit.

    Returns its result or raises its exception. If no such thread can be
    made (a platform limit), raises ``RecursionError``.
    """
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["result"] = function()
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error

    # The recursion limit is per interpreter: one deep call at a time, and the
    # caller's thread waits for it.
    with _lock:
        old_limit = sys.getrecursionlimit()
        try:
            old_size = threading.stack_size(DEEP_STACK_BYTES)
        except (ValueError, RuntimeError):
            raise RecursionError("nesting too deep for this platform's stack") from None
        try:
            sys.setrecursionlimit(max(old_limit, DEEP_RECURSION_LIMIT))
            worker = threading.Thread(target=run, name="attnlint-deep-stack")
            try:
                worker.start()
            except RuntimeError:
                raise RecursionError(
                    "nesting too deep: no thread with a larger stack could start"
                ) from None
            worker.join()
        finally:
            sys.setrecursionlimit(old_limit)
            threading.stack_size(old_size)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["result"]  # type: ignore[return-value]
