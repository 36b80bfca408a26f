"""``attnlint server``: the language server, for editors.

It needs the ``server`` extra, pygls (``pip install '.[server]'`` in a
checkout of attnlint, or ``pip install 'pygls>=2,<3'`` beside an installed
attnlint); nothing on the check path imports this package.
"""

from __future__ import annotations

import importlib.util

#: What to install when pygls is missing: the requirement of the ``server``
#: extra itself, which pip finds wherever attnlint came from (attnlint is not
#: on PyPI: ``pip install 'attnlint[server]'`` finds nothing there).
INSTALL_HINT = "pip install 'pygls>=2,<3' (attnlint's `server` extra)"


class ServerUnavailable(Exception):
    """pygls (or lsprotocol) is not installed."""


def run(debounce: float | None = None) -> int:
    """Serve one editor over stdin/stdout until it says ``exit``; the exit code."""
    for module in ("pygls", "lsprotocol"):
        if importlib.util.find_spec(module) is None:
            raise ServerUnavailable(
                f"`attnlint server` needs {module}, which is not installed: "
                f"{INSTALL_HINT}"
            )
    from lint_rules.server.server import DEFAULT_DEBOUNCE, serve

    return serve(DEFAULT_DEBOUNCE if debounce is None else debounce)
