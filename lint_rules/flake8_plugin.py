"""attnlint as a flake8 plugin (entry point ``ATN`` in ``flake8.extension``).

flake8 hands over the tree it already parsed, so nothing is parsed twice; the
same rules run with the same messages. Each file gets the settings ``attnlint
check`` would give it: those of the nearest configuration file above it
(``.attnlint.toml``, ``attnlint.toml``, ``pyproject.toml`` with
``[tool.attnlint]``), with their rule selection, ``per-file-ignores``,
excludes and options, so flake8 and the command report the same findings.
flake8 then applies its own ``--select``/``--ignore`` and per-file ignores
on top. Suppression comments are read as ``attnlint check`` reads them
(:mod:`lint_rules.noqa`): attnlint's reading holds flake8's (flake8 then
applies its own, which finds nothing more to suppress) and adds what flake8
does not read, ``# attnlint: noqa`` and ``#noqa`` without a space. ``flake8
--disable-noqa`` turns both off. ATN001 (unused-noqa) does not run here.
Two options are offered: ``--attnlint-config 'KEY = VALUE'`` (repeatable;
in flake8's configuration, ``attnlint-config`` with one setting a line)
sets any ``[tool.attnlint]`` key over the configuration files, as ``attnlint
check --config KEY=VALUE`` does (``hot-path-methods``, ``host-tensor-names``,
``hot-paths-only``, ``full-write-calls``, ...; a bad key or value is an
error naming it); ``--attnlint-graph-state-methods`` (or
``attnlint-graph-state-methods``), a comma-separated list of method-name
globs, replaces ``graph-state-methods``.
"""

from __future__ import annotations

import ast
import gc
import sys
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from lint_rules import __version__, prefilter
from lint_rules.config import DEFAULT_GRAPH_STATE_METHODS, Settings
from lint_rules.resolver import Resolver


class Flake8Checker:
    """flake8's view of attnlint: ``run()`` yields ``(row, col, "CODE message", type)``."""

    name = "attnlint"
    version = __version__

    # Settings for every file, when set (tests and embedders); otherwise each
    # file's come from the configuration files, as in ``attnlint check``.
    settings: ClassVar[Settings | None] = None
    # --attnlint-graph-state-methods, when given.
    graph_state_methods: ClassVar[tuple[str, ...] | None] = None
    # --attnlint-config KEY=VALUE settings, over the configuration files'.
    overrides: ClassVar[dict[str, Any]] = {}
    _resolver: ClassVar[Resolver | None] = None
    _triggers: ClassVar[dict[int, tuple[str, ...] | None]] = {}
    # flake8's --disable-noqa: report findings whatever the comments say.
    disable_noqa: ClassVar[bool] = False

    def __init__(self, tree: ast.Module, filename: str, lines: Sequence[str]) -> None:
        self.tree = tree
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, option_manager: Any) -> None:
        option_manager.add_option(
            "--attnlint-graph-state-methods",
            default=None,
            parse_from_config=True,
            comma_separated_list=True,
            help="method-name globs that set up CUDA-graph state (attnlint ATN102); "
            "replaces graph-state-methods of attnlint's configuration "
            f"(default there: {','.join(DEFAULT_GRAPH_STATE_METHODS)})",
        )
        option_manager.add_option(
            "--attnlint-config",
            default=None,
            action="append",
            parse_from_config=True,
            metavar="KEY=VALUE",
            help="an attnlint setting over its configuration files, in TOML "
            "(as `attnlint check --config`), e.g. 'hot-paths-only = false'; "
            "repeatable (in flake8's configuration: one setting a line)",
        )

    @classmethod
    def parse_options(cls, options: Any) -> None:
        methods = getattr(options, "attnlint_graph_state_methods", None)
        if isinstance(methods, str):
            methods = [part.strip() for part in methods.split(",") if part.strip()]
        cls.graph_state_methods = tuple(methods) if methods else None
        try:
            cls.overrides = _overrides(getattr(options, "attnlint_config", None))
        except ValueError as error:
            # As flake8 stops for a bad value of its own options (argparse):
            # the message on stderr, exit status 2, no traceback.
            sys.stderr.write(f"flake8: error: {error}\n")
            raise SystemExit(2) from None
        cls.settings = None
        cls._resolver = None
        cls._triggers = {}
        cls.disable_noqa = bool(getattr(options, "disable_noqa", False))

    @classmethod
    def settings_for(cls, filename: str) -> Settings | None:
        """The settings of ``filename``; None when its configuration excludes it."""
        if cls.settings is not None:
            return cls.settings
        from lint_rules.config import ConfigError, load_settings
        from lint_rules.discover import is_force_excluded

        resolver = cls._resolver
        if resolver is None:
            override = cls.graph_state_methods
            overrides = cls.overrides

            def load(path: Any = None) -> Settings:
                settings = load_settings(path, overrides=overrides)
                if override is not None:
                    settings = settings.replace(graph_state_methods=override)
                return settings

            try:
                resolver = cls._resolver = Resolver(load(), load)
            except ConfigError as error:
                raise _failure(str(error)) from None
        try:
            settings = resolver.settings_for(filename)
        except ConfigError as error:
            raise _failure(str(error)) from None
        if filename not in ("-", "stdin") and is_force_excluded(filename, settings):
            return None
        return settings

    @classmethod
    def _all_triggers(cls, settings: Settings) -> tuple[str, ...] | None:
        """Every enabled rule's triggers, or None when some rule can fire on any text."""
        key = id(settings)
        if key not in cls._triggers:
            triggers: list[str] = []
            from lint_rules.rules import default_registry

            for rule in default_registry().rules_for(settings.enabled_codes):
                if not rule.triggers:
                    cls._triggers[key] = None
                    break
                triggers.extend(rule.triggers)
            else:
                cls._triggers[key] = tuple(triggers)
        return cls._triggers[key]

    def run(self) -> Iterator[tuple[int, int, str, type[Flake8Checker]]]:
        settings = self.settings_for(self.filename)
        if settings is None:
            return
        text = "".join(self.lines)
        triggers = self._all_triggers(settings)
        if (
            triggers is not None
            and not any(trigger in text for trigger in triggers)
            and prefilter.enabled()
            and not prefilter.may_respell_ascii(text)
        ):
            return
        from lint_rules.checker import check_source

        # The analysis makes many objects but, as it releases its graphs when
        # done, hardly any garbage cycles; each collection it triggered would
        # scan all that flake8 holds alive again. Pause the collector meanwhile.
        collecting = gc.isenabled()
        gc.disable()
        try:
            findings = check_source(
                text,
                self.filename,
                settings,
                tree=self.tree,
                apply_noqa=not self.disable_noqa,
                review_suppressions=False,
            )
        finally:
            if collecting:
                gc.enable()
        for finding in findings:
            yield (
                finding.location.row,
                finding.location.column - 1,
                f"{finding.code} {finding.message}",
                type(self),
            )


def _overrides(values: Any) -> dict[str, Any]:
    """``--attnlint-config`` values (a list from the command line; a string
    of lines from flake8's configuration) as one table of settings, checked
    now: a bad one stops flake8 with a message naming it."""
    if not values:
        return {}
    if isinstance(values, str):
        values = [values]
    from lint_rules.config import ConfigError, settings_from_table, toml_module

    tomllib = toml_module()
    table: dict[str, Any] = {}
    for value in values:
        for line in str(value).splitlines() or [""]:
            line = line.strip()
            if not line:
                continue
            try:
                table.update(tomllib.loads(line))
            except (tomllib.TOMLDecodeError, RecursionError) as error:
                raise ValueError(
                    f"--attnlint-config: {line!r} is not a TOML KEY = VALUE: {error}"
                ) from None
    try:
        settings_from_table(table, config_file="--attnlint-config")
    except ConfigError as error:
        raise ValueError(str(error)) from None
    return table


def _failure(message: str) -> Exception:
    """The exception that stops flake8 with ``message`` (a configuration file
    found while checking is wrong) as flake8 stops for its own errors, with
    "There was a critical error during execution of Flake8:", the message
    and exit status 1, not with a traceback: flake8 catches its
    ``ExecutionError`` around the checks, raised in the main process or
    again there from a worker. A ValueError outside flake8."""
    try:
        from flake8.exceptions import ExecutionError
    except ImportError:  # pragma: no cover - the plugin runs under flake8
        return ValueError(message)
    return ExecutionError(message)
