"""The rule registry: one module per rule, found here by code.

``CATALOGUE`` names every rule (code, name, module, class) without importing
it; ``ALL_RULES``, ``RULES_BY_CODE`` and ``RULES_BY_NAME`` import the rule
modules when first asked for. A run whose findings all come from the cache
never loads the rules (nor the analysis they use). A test keeps the
catalogue and the rule classes in agreement.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from typing import Any

    from lint_rules.rules.base import Rule

#: (code, name, module in this package, class), in registry order.
CATALOGUE: tuple[tuple[str, str, str, str], ...] = (
    ("ATN001", "unused-noqa", "atn001_unused_noqa", "UnusedNoqa"),
    ("ATN101", "zeros-overwritten", "atn101_zeros_overwritten", "ZerosOverwritten"),
    (
        "ATN102",
        "zeros-persistent-buffer",
        "atn102_zeros_persistent_buffer",
        "ZerosPersistentBuffer",
    ),
    ("ATN103", "uninitialized-read", "atn103_uninitialized_read", "UninitializedRead"),
    ("ATN201", "repeated-host-sync", "atn201_repeated_host_sync", "RepeatedHostSync"),
    (
        "ATN202",
        "redundant-reassignment",
        "atn202_redundant_reassignment",
        "RedundantReassignment",
    ),
    (
        "ATN203",
        "host-sync-in-hot-path",
        "atn203_host_sync_in_hot_path",
        "HostSyncInHotPath",
    ),
    (
        "ATN205",
        "non-blocking-from-pageable",
        "atn205_non_blocking_from_pageable",
        "NonBlockingFromPageable",
    ),
    ("ATN301", "dead-loop-alias", "atn301_dead_loop_alias", "DeadLoopAlias"),
)

#: The codes of the rules, in registry order (no rule module imported).
CODES: tuple[str, ...] = tuple(code for code, _, _, _ in CATALOGUE)

#: The codes of the rules users opt into (``Rule.opt_in``): ``ALL`` and
#: ``ATN`` do not select them, ``ATN0`` or the code itself does.
OPT_IN_CODES: frozenset[str] = frozenset({"ATN001"})

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
    "CATALOGUE",
    "CODES",
    "OPT_IN_CODES",
    "RULES_BY_CODE",
    "RULES_BY_NAME",
    "Invalid",
    "Rule",
]
