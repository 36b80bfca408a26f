"""attnlint as a flake8 plugin (entry point ``ATN`` in ``flake8.extension``).

flake8 hands over the tree it already parsed, so nothing is parsed twice; the
same rules run with the same messages. flake8 applies ``--select``/``--ignore``
and per-file ignores; attnlint's own configuration (``[tool.attnlint]``) is
not read here. Suppression comments are read as ``attnlint check`` reads them
(:mod:`lint_rules.noqa`), so both report the same findings: attnlint's
reading holds flake8's (flake8 then applies its own, which finds nothing
more to suppress) and adds what flake8 does not read, ``# attnlint: noqa``
and ``#noqa`` without a space. ``flake8 --disable-noqa`` turns both off.
ATN001 (unused-noqa) does not run here. One option is offered:
``--attnlint-graph-state-methods`` (or ``attnlint-graph-state-methods`` in
flake8's configuration), a comma-separated list of method-name globs.
"""

from __future__ import annotations

import ast
import gc
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from lint_rules import __version__, prefilter
from lint_rules.config import DEFAULT_GRAPH_STATE_METHODS, Settings


class Flake8Checker:
    """flake8's view of attnlint: ``run()`` yields ``(row, col, "CODE message", type)``."""

    name = "attnlint"
    version = __version__

    settings: ClassVar[Settings | None] = None
    _triggers: ClassVar[tuple[str, ...] | None] = None
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
            default=",".join(DEFAULT_GRAPH_STATE_METHODS),
            parse_from_config=True,
            comma_separated_list=True,
            help="method-name globs that set up CUDA-graph state (attnlint ATN102). "
            "(Default: %(default)s)",
        )

    @classmethod
    def parse_options(cls, options: Any) -> None:
        methods = getattr(options, "attnlint_graph_state_methods", None)
        if isinstance(methods, str):
            methods = [part.strip() for part in methods.split(",") if part.strip()]
        cls.settings = Settings(
            graph_state_methods=tuple(methods)
            if methods
            else DEFAULT_GRAPH_STATE_METHODS
        )
        cls._triggers = None
        cls.disable_noqa = bool(getattr(options, "disable_noqa", False))

    @classmethod
    def _settings(cls) -> Settings:
        if cls.settings is None:
            cls.settings = Settings()
        return cls.settings

    @classmethod
    def _all_triggers(cls) -> tuple[str, ...] | None:
        """Every rule's triggers, or None when some rule can fire on any text."""
        if cls._triggers is None:
            triggers: list[str] = []
            for rule in cls._settings().enabled_rules:
                if not rule.triggers:
                    cls._triggers = ()
                    return None
                triggers.extend(rule.triggers)
            cls._triggers = tuple(triggers)
        return cls._triggers or None

    def run(self) -> Iterator[tuple[int, int, str, type[Flake8Checker]]]:
        text = "".join(self.lines)
        triggers = self._all_triggers()
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
                self._settings(),
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
