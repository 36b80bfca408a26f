"""flake8 as installed, with or without the attnlint plugin, for timing what it costs.

flake8 runs every registered plugin whatever ``--select`` says (it filters the
reports, not the checks), so selecting only flake8's own codes would still pay
for attnlint. ``--without-attnlint`` instead leaves attnlint's ``ATN`` entry
point out of the plugins flake8 finds; everything else (options, defaults,
configuration, worker processes) is flake8's own. Both variants run through
this script, so they start up alike.

    python benchmarks/flake8_runner.py [--without-attnlint] [flake8 options] PATH...
"""

from __future__ import annotations

import sys


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--without-attnlint"]:
        args = args[1:]
        from flake8.plugins import finder

        find_plugins = finder.find_plugins

        def without_attnlint(cfg, opts):  # type: ignore[no-untyped-def]
            return [p for p in find_plugins(cfg, opts) if p.package != "attnlint"]

        finder.find_plugins = without_attnlint
    from flake8.main.cli import main as flake8_main

    return flake8_main(args)


if __name__ == "__main__":
    sys.exit(main())
