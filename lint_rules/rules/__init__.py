"""The rule registry: one module per rule, found here by code."""

from __future__ import annotations

from lint_rules.rules.atn201_repeated_host_sync import RepeatedHostSync
from lint_rules.rules.atn202_redundant_reassignment import RedundantReassignment
from lint_rules.rules.atn301_dead_loop_alias import DeadLoopAlias
from lint_rules.rules.base import Invalid, Rule

ALL_RULES: tuple[type[Rule], ...] = (
    RepeatedHostSync,
    RedundantReassignment,
    DeadLoopAlias,
)

RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
RULES_BY_NAME: dict[str, type[Rule]] = {rule.name: rule for rule in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_CODE", "RULES_BY_NAME", "Invalid", "Rule"]
