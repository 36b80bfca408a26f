"""The rule registry: one module per rule, found here by code.

``CATALOGUE`` (from :mod:`lint_rules.catalogue`) names every rule (code,
name, module, class) without importing it; ``ALL_RULES``, ``RULES_BY_CODE``
and ``RULES_BY_NAME`` import the rule modules when first asked for. A run
whose findings all come from the cache never loads the rules (nor the
analysis they use). Settings hold codes; a :class:`Registry` maps them to
rule classes, and the checker asks it: :func:`default_registry` is
attnlint's, tests pass their own.
"""

from __future__ import annotations

import importlib

from lint_rules.catalogue import CATALOGUE, CODES, OPT_IN_CODES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from lint_rules.config import Settings
    from lint_rules.rules.base import Rule

ALL_RULES: tuple[type[Rule], ...]
RULES_BY_CODE: dict[str, type[Rule]]
RULES_BY_NAME: dict[str, type[Rule]]


def _load() -> dict[str, Any]:
    rules = tuple(
        getattr(importlib.import_module(f"{__name__}.{module}"), cls)
        for _, _, module, cls in CATALOGUE
    )
    return {
        "ALL_RULES": rules,
        "RULES_BY_CODE": {rule.code: rule for rule in rules},
        "RULES_BY_NAME": {rule.name: rule for rule in rules},
    }


class Registry:
    """The rules a run chooses from, by code.

    ``rules`` are the classes, or a function that gives them, called when
    first needed (attnlint's registry knows its codes from the catalogue and
    imports no rule until a file is checked).
    """

    def __init__(
        self,
        rules: tuple[type[Rule], ...] | Callable[[], tuple[type[Rule], ...]],
        codes: tuple[str, ...] | None = None,
        opt_in_codes: frozenset[str] | None = None,
    ) -> None:
        if callable(rules):
            self._load = rules
            self._rules: tuple[type[Rule], ...] | None = None
        else:
            self._rules = tuple(rules)
            codes = tuple(rule.code for rule in self._rules)
            opt_in_codes = frozenset(
                rule.code for rule in self._rules if getattr(rule, "opt_in", False)
            )
        assert codes is not None and opt_in_codes is not None
        self.codes = codes
        self.opt_in_codes = opt_in_codes
        self._selected: dict[frozenset[str], tuple[type[Rule], ...]] = {}

    @property
    def rules(self) -> tuple[type[Rule], ...]:
        if self._rules is None:
            self._rules = tuple(self._load())
        return self._rules

    def rules_for(self, codes: Iterable[str]) -> tuple[type[Rule], ...]:
        """The rules with these codes, in registry order."""
        key = frozenset(codes)
        selected = self._selected.get(key)
        if selected is None:
            selected = tuple(rule for rule in self.rules if rule.code in key)
            self._selected[key] = selected
        return selected

    def rule_for_code(self, code: str) -> type[Rule] | None:
        for rule in self.rules:
            if rule.code == code:
                return rule
        return None

    def settings(self, **values: Any) -> Settings:
        """Settings (``values`` as ``Settings`` takes them) choosing among these rules."""
        from lint_rules.config import Settings

        return Settings(
            available_codes=self.codes, opt_in_codes=self.opt_in_codes, **values
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Workers get attnlint's registry as the function that builds it.
        if self is _DEFAULT:
            return (default_registry, ())
        return (Registry, (self.rules,))


def _attnlint_rules() -> tuple[type[Rule], ...]:
    return __getattr__("ALL_RULES")


_DEFAULT = Registry(_attnlint_rules, CODES, OPT_IN_CODES)


def default_registry() -> Registry:
    """attnlint's own rules."""
    return _DEFAULT


def __getattr__(name: str) -> Any:
    if name in ("ALL_RULES", "RULES_BY_CODE", "RULES_BY_NAME"):
        values = _load()
        globals().update(values)
        return values[name]
    if name in ("Invalid", "Rule"):
        from lint_rules.rules import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ALL_RULES",
    "Registry",
    "default_registry",
    "CATALOGUE",
    "CODES",
    "OPT_IN_CODES",
    "RULES_BY_CODE",
    "RULES_BY_NAME",
    "Invalid",
    "Rule",
]
