"""``python -m lint_rules``: the ``attnlint`` command.

``python -m`` puts the current folder first on ``sys.path``; in a project
being checked, its own ``ast.py`` or ``tokenize.py`` would then be imported
in place of the standard library's, and run. That entry is dropped before
anything else is imported (what ``python -P`` does). A folder named
``lint_rules`` in the current folder is beyond help: Python runs it instead
of attnlint, before any of this; ``attnlint`` and ``python -P -m
lint_rules`` never look there.
"""

import os
import sys


def _drop_the_current_folder() -> None:
    if getattr(sys.flags, "safe_path", False) or not sys.path:
        return  # -P: Python added no such entry
    first = sys.path[0] or "."
    # attnlint's own checkout, run from its root without being installed:
    # the entry is where attnlint itself comes from (worker processes that
    # start afresh need it).
    source = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        here = os.path.samefile(first, os.getcwd())
        own = os.path.samefile(first, source)
    except OSError:
        return
    if here and not own:
        del sys.path[0]


_drop_the_current_folder()

from lint_rules.cli import run  # noqa: E402 - after sys.path is safe

run()
