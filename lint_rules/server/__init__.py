"""``attnlint server``: the language server, for editors.

It needs the ``server`` extra (``pip install 'attnlint[server]'``, which
installs pygls); nothing on the check path imports this package.
"""

from __future__ import annotations

import importlib.util

#: What to install when pygls is missing.
INSTALL_HINT = "pip install 'attnlint[server]'"


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
